// Lines computed from several series, on the bucket grid of the fetched window: a sum of counter rates
// (requests finished over every reason), arrivals (finishes plus the growth of running + waiting, as
// Little's law reads the queue), a ratio of gauges (KV usage per running request) and a ratio of rates
// (prefix-cache hits per query, the mean of a histogram from its sum and count). Series of one scrape
// share buckets; a bucket missing from any input is left out rather than summed short.
import type { SeriesData } from '../contract/types';
import type { FetchWindow } from './buffered-window';
import { counterRates } from '../counters';

export type Columns = { t: Float64Array; v: Float64Array };
type Grid = Map<number, number>;

const EMPTY: Columns = { t: new Float64Array(0), v: new Float64Array(0) };

function bucketOf(w: FetchWindow): number {
  return (w.end_ms - w.start_ms) / Math.max(1, w.points);
}

/** Values by bucket index (the last value a bucket holds). */
function toGrid(c: Columns, w: FetchWindow): Grid {
  const b = bucketOf(w);
  const g: Grid = new Map();
  for (let i = 0; i < c.t.length; i++) g.set(Math.floor((c.t[i] - w.start_ms) / b), c.v[i]);
  return g;
}

function fromGrid(g: Grid, w: FetchWindow): Columns {
  const b = bucketOf(w);
  const keys = [...g.keys()].sort((x, y) => x - y);
  return { t: Float64Array.from(keys, (k) => w.start_ms + k * b), v: Float64Array.from(keys, (k) => g.get(k)!) };
}

/** Bucket-wise sum; only buckets every grid has. */
function sumGrids(grids: Grid[]): Grid {
  const out: Grid = new Map();
  if (!grids.length) return out;
  for (const [k, v] of grids[0]) {
    let s = v;
    let all = true;
    for (let i = 1; i < grids.length && all; i++) {
      const x = grids[i].get(k);
      if (x === undefined) all = false;
      else s += x;
    }
    if (all) out.set(k, s);
  }
  return out;
}

const rateGrid = (d: SeriesData, w: FetchWindow, windowMs: number) => toGrid(counterRates(d.t, d.max, windowMs), w);
const gaugeGrid = (d: SeriesData, w: FetchWindow) => toGrid({ t: Float64Array.from(d.t), v: Float64Array.from(d.max) }, w);

export function sumRates(list: SeriesData[], w: FetchWindow, windowMs: number): Columns {
  return list.length ? fromGrid(sumGrids(list.map((d) => rateGrid(d, w, windowMs))), w) : EMPTY;
}

/** Arrivals per second ≈ finishes per second + d(running + waiting)/dt, never below zero. */
export function arrivals(finished: SeriesData[], queue: SeriesData[], w: FetchWindow, windowMs: number): Columns {
  if (!finished.length || !queue.length) return EMPTY;
  const f = sumGrids(finished.map((d) => rateGrid(d, w, windowMs)));
  const q = fromGrid(sumGrids(queue.map((d) => gaugeGrid(d, w))), w);
  const b = bucketOf(w);
  const growth: Grid = new Map();
  let j = 0;
  for (let i = 1; i < q.t.length; i++) {
    while (j + 1 < i && q.t[i] - q.t[j + 1] >= windowMs) j++;
    const dt = (q.t[i] - q.t[j]) / 1000;
    if (dt > 0) growth.set(Math.floor((q.t[i] - w.start_ms) / b), (q.v[i] - q.v[j]) / dt);
  }
  const out: Grid = new Map();
  for (const [k, v] of f) {
    const g = growth.get(k);
    if (g !== undefined) out.set(k, Math.max(0, v + g));
  }
  return fromGrid(out, w);
}

/** num / den bucket by bucket where den > 0; `rates`: of the counters' rates, else of the gauges. */
export function ratio(num: SeriesData[], den: SeriesData[], w: FetchWindow, opts: { rates: boolean; windowMs: number }): Columns {
  if (!num.length || !den.length) return EMPTY;
  const grid = (d: SeriesData) => (opts.rates ? rateGrid(d, w, opts.windowMs) : gaugeGrid(d, w));
  const n = sumGrids(num.map(grid));
  const d = sumGrids(den.map(grid));
  const out: Grid = new Map();
  for (const [k, v] of n) {
    const x = d.get(k);
    if (x !== undefined && x > 0) out.set(k, v / x);
  }
  return fromGrid(out, w);
}
