// Quantiles of a histogram series over time, for charts: the range is cut into windows of at least two
// scrape intervals (about (end − start) / points each); a window's distribution is the bucket increase
// between the last scrapes at its two edges, and each quantile interpolates linearly inside its bucket
// (Prometheus' histogram_quantile over increase()). Only the edge scrapes are read, so a day at 5 s
// scrapes costs ~points lookups, not 17 280 snapshots.
import type { Res } from '../../../common/contract/api';
import { EngineError } from '../../../common/contract/api';
import { bucketDelta, histogramQuantile } from '../model/quantiles';
import type { Store } from '../store/store';

export interface QuantileQuery {
  series_id: number;
  quantiles: number[];
  start_ms: number;
  end_ms: number;
  points: number;
}

/** Window edges from `start` in steps of `w` up to the first edge at or past `end`. */
export function windowEdges(start: number, end: number, w: number): number[] {
  const n = Math.max(1, Math.ceil((end - start) / w));
  return Array.from({ length: n + 1 }, (_, k) => start + k * w);
}

/**
 * `t` is the later edge scrape of each window that saw observations; `values[j]` is the column of
 * `quantiles[j]`, aligned with `t`, in the histogram's unit.
 */
export function queryQuantiles(store: Store, q: QuantileQuery): Res<'queryQuantiles'> {
  const h = store.histogramSeries(q.series_id);
  if (!h) throw new EngineError('not_found', `series ${q.series_id} does not exist`);
  if (h.kind !== 'histogram') throw new EngineError('bad_series', `series ${q.series_id} (${h.name}) is a ${h.kind}, not a histogram`);
  if (q.quantiles.some((x) => !(x >= 0 && x <= 1))) throw new EngineError('bad_quantile', 'quantiles must lie in 0..1');
  const out: Res<'queryQuantiles'> = { series_id: q.series_id, t: [], quantiles: q.quantiles, values: q.quantiles.map(() => []) };
  const countId = store.countCompanion(h);
  if (countId === null || !(q.end_ms > q.start_ms)) return out;
  const span = store.scrapeSpan(countId);
  if (span.n < 2 || span.first === null || span.last === null) return out;
  const interval = (span.last - span.first) / (span.n - 1);
  const w = Math.max(2 * interval, (q.end_ms - q.start_ms) / q.points);
  const scrapes = store.lastScrapesAtOrBefore(countId, windowEdges(q.start_ms, q.end_ms, w));
  const rows = store.bucketsAt(q.series_id, scrapes.filter((s): s is number => s !== null));
  for (let k = 1; k < scrapes.length; k++) {
    const a = scrapes[k - 1];
    const b = scrapes[k];
    if (a === null || b === null || b === a) continue;
    const earlier = rows.get(a);
    const later = rows.get(b);
    if (!earlier || !later) continue;
    const delta = bucketDelta(earlier.le.length === later.le.length ? earlier.cum : null, later.cum);
    if (!(delta[delta.length - 1] > 0)) continue;
    out.t.push(b);
    q.quantiles.forEach((x, j) => out.values[j].push(histogramQuantile(x, later.le, delta)));
  }
  return out;
}
