// Min/max per bucket over any series and time range, so a chart never receives more points than it
// has pixels. Buckets are equal slices of [start, end]; each answers its first timestamp, min and max
// (drawn as a vertical stroke per pixel column, as uPlot's linear path does). Wide ranges read the
// 10 s tiles the writer keeps; narrow ones read samples.
import type { Db } from './db';
import type { SeriesData } from '../../../common/contract/types';
import { TILE_MS } from './source-writer';

export function downsampleSeries(db: Db, seriesId: number, startMs: number, endMs: number, points: number): SeriesData {
  const span = Math.max(1, endMs - startMs);
  const n = Math.max(1, Math.floor(points));
  const pack = (rows: [number, number, number][], downsampled: boolean): SeriesData => ({
    series_id: seriesId,
    t: rows.map((r) => r[0]),
    min: rows.map((r) => r[1]),
    max: rows.map((r) => r[2]),
    downsampled,
  });

  if (span / n >= TILE_MS) {
    // A bucket spans at least one tile: tiles fold exactly (tiles straddling the range ends count whole).
    const rows = db
      .prepare(
        `SELECT MIN(t_first), MIN(min), MAX(max), SUM(n)
           FROM sample_tiles
          WHERE series_id = ? AND tile BETWEEN ? AND ?
          GROUP BY CAST((tile * ${TILE_MS} - ?) * ? / ? AS INTEGER)
          ORDER BY 1`,
      )
      .raw()
      .all(seriesId, Math.floor(startMs / TILE_MS), Math.floor(endMs / TILE_MS), startMs, n, span) as [number, number, number, number][];
    if (rows.some((r) => r[3] > 1)) return pack(rows.map((r) => [r[0], r[1], r[2]]), true);
  }

  const count = db.prepare('SELECT COUNT(*) FROM samples WHERE series_id = ? AND ts_ms BETWEEN ? AND ?').pluck().get(seriesId, startMs, endMs) as number;
  if (count <= n) {
    const rows = db.prepare('SELECT ts_ms, value, value FROM samples WHERE series_id = ? AND ts_ms BETWEEN ? AND ? ORDER BY ts_ms').raw().all(seriesId, startMs, endMs) as [number, number, number][];
    return pack(rows, false);
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
  return pack(rows, true);
}
