// Min/max per bucket over any series and time range, so a chart never receives more points than it
// has pixels. Buckets are equal slices of [start, end]; each answers its first timestamp, min and max
// (drawn as a vertical stroke per pixel column, as uPlot's linear path does).
import type { Db } from './db';
import type { SeriesData } from '../../contract/types';

export function downsampleSeries(db: Db, seriesId: number, startMs: number, endMs: number, points: number): SeriesData {
  const span = Math.max(1, endMs - startMs);
  const n = Math.max(1, Math.floor(points));
  const count = db.prepare('SELECT COUNT(*) FROM samples WHERE series_id = ? AND ts_ms BETWEEN ? AND ?').pluck().get(seriesId, startMs, endMs) as number;
  if (count <= n) {
    const rows = db.prepare('SELECT ts_ms, value FROM samples WHERE series_id = ? AND ts_ms BETWEEN ? AND ? ORDER BY ts_ms').raw().all(seriesId, startMs, endMs) as [number, number][];
    const t = rows.map((r) => r[0]);
    const v = rows.map((r) => r[1]);
    return { series_id: seriesId, t, min: v, max: v.slice(), downsampled: false };
  }
  const rows = db
    .prepare(
      `SELECT MIN(ts_ms), MIN(value), MAX(value)
         FROM samples
        WHERE series_id = ? AND ts_ms BETWEEN ? AND ?
        GROUP BY CAST((ts_ms - ?) * ? / ? AS INTEGER)
        ORDER BY 1`,
    )
    .raw()
    .all(seriesId, startMs, endMs, startMs, n, span) as [number, number, number][];
  return {
    series_id: seriesId,
    t: rows.map((r) => r[0]),
    min: rows.map((r) => r[1]),
    max: rows.map((r) => r[2]),
    downsampled: true,
  };
}
