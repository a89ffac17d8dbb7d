// The `series`, `samples` and `sample_tiles` tables as the timeline reads them: the incident's series with
// their extents, and any series over any range at chart width (downsample.ts). Whole-series reads for
// the model and the report are in sample-reads.ts, the few the histogram quantiles need in
// histogram-reads.ts.
import type { SeriesData, SeriesInfo } from '../../../common/contract/types';
import type { Db } from './db';
import { downsampleSeries } from './downsample';
import { parse } from './parse-json';

export function listSeries(db: Db, incidentId: number, namePrefix?: string): SeriesInfo[] {
  const rows = db
    .prepare(
      `SELECT r.id, r.name, r.labels_json, r.unit, r.kind,
              (SELECT COUNT(*) FROM samples s WHERE s.series_id = r.id) AS points,
              (SELECT MIN(ts_ms) FROM samples s WHERE s.series_id = r.id) AS start_ms,
              (SELECT MAX(ts_ms) FROM samples s WHERE s.series_id = r.id) AS end_ms
         FROM series r
        WHERE r.incident_id = ? AND r.name LIKE ? ESCAPE '\\'
        ORDER BY r.name, r.labels_json`,
    )
    .all(incidentId, `${(namePrefix ?? '').replace(/[\\%_]/g, (c) => `\\${c}`)}%`) as (Omit<SeriesInfo, 'labels'> & { labels_json: string })[];
  return rows.map(({ labels_json, ...r }) => ({ ...r, labels: parse<Record<string, string>>(labels_json, {}) }));
}

export function querySeries(db: Db, seriesIds: number[], startMs: number, endMs: number, points: number): SeriesData[] {
  return seriesIds.map((id) => downsampleSeries(db, id, startMs, endMs, points));
}

/** Every series of an incident with the path of the file it came from (null for live recordings without one), by name and labels. */
export function seriesCatalog(db: Db, incidentId: number): { id: number; name: string; labels: Record<string, string>; kind: string; source_path: string | null }[] {
  const rows = db
    .prepare('SELECT se.id, se.name, se.labels_json, se.kind, so.path FROM series se LEFT JOIN sources so ON so.id = se.source_id WHERE se.incident_id = ? ORDER BY se.name, se.labels_json, se.id')
    .all(incidentId) as { id: number; name: string; labels_json: string; kind: string; path: string | null }[];
  return rows.map((r) => ({ id: r.id, name: r.name, labels: parse<Record<string, string>>(r.labels_json, {}), kind: r.kind, source_path: r.path }));
}
