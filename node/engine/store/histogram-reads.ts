// The few reads the histogram quantile charts need (node/engine/series/histogram-quantiles.ts, through
// the Store): the companion `.count` series, its scrape span, the last scrape at or before given
// instants, and the cumulative buckets of a histogram at chosen scrapes (through the documented
// `histograms` view, so the storage layout of snapshots stays in one place).
import type { Db } from './db';

export interface HistogramSeries {
  id: number;
  incident_id: number;
  name: string;
  labels_json: string;
  kind: string;
}

export function histogramSeries(db: Db, seriesId: number): HistogramSeries | null {
  return (db.prepare('SELECT id, incident_id, name, labels_json, kind FROM series WHERE id = ?').get(seriesId) as HistogramSeries | undefined) ?? null;
}

/** The `<name>.count` counter written with the histogram (one sample per scrape), or null. */
export function countCompanion(db: Db, h: HistogramSeries): number | null {
  const id = db.prepare('SELECT id FROM series WHERE incident_id = ? AND name = ? AND labels_json = ? ORDER BY id LIMIT 1').pluck().get(h.incident_id, `${h.name}.count`, h.labels_json);
  return typeof id === 'number' ? id : null;
}

export function scrapeSpan(db: Db, countId: number): { n: number; first: number | null; last: number | null } {
  const [n, first, last] = db.prepare('SELECT COUNT(*), MIN(ts_ms), MAX(ts_ms) FROM samples WHERE series_id = ?').raw().get(countId) as [number, number | null, number | null];
  return { n, first, last };
}

/** For each instant (ascending), the timestamp of the last scrape at or before it; null before the first. */
export function lastScrapesAtOrBefore(db: Db, countId: number, instants: readonly number[]): (number | null)[] {
  const at = db.prepare('SELECT MAX(ts_ms) FROM samples WHERE series_id = ? AND ts_ms <= ?').pluck();
  return instants.map((t) => (at.get(countId, Math.floor(t)) as number | null) ?? null);
}

export interface BucketRow {
  le: number[];
  cum: number[];
}

const IN_CHUNK = 500;

/** Cumulative buckets by ascending `le` at each of the given scrape timestamps that has a row. */
export function bucketsAt(db: Db, seriesId: number, timestamps: readonly number[]): Map<number, BucketRow> {
  const out = new Map<number, BucketRow>();
  const unique = [...new Set(timestamps)];
  for (let i = 0; i < unique.length; i += IN_CHUNK) {
    const part = unique.slice(i, i + IN_CHUNK);
    const rows = db
      .prepare(`SELECT ts_ms, le, count FROM histograms WHERE series_id = ? AND ts_ms IN (${part.map(() => '?').join(',')}) ORDER BY ts_ms, le`)
      .raw()
      .all(seriesId, ...part) as [number, number, number][];
    for (const [ts, le, count] of rows) {
      let r = out.get(ts);
      if (!r) out.set(ts, (r = { le: [], cum: [] }));
      r.le.push(le);
      r.cum.push(count);
    }
  }
  return out;
}
