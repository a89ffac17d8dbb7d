// The baseline's (and the span's) median and MAD of one of the model's per-window arrays, computed once
// per array and range. The rules ask for the same ones again and again: the baseline median of a signal
// in several rules, inside departureOnset's per-window test (once per window until it holds), and in
// every run of the convergence step (diagnose.ts), which reruns all rules on growing spans over the same
// baseline. Measured on the analysis benchmark's 24 h incident, recomputing them was about a third of
// the rules' CPU time (issue 20).
//
// The cache is keyed by the array itself (a WeakMap: it lives as long as the array, a frame's or a rule's
// own) and by the exact range, so another range — a longer span in the next convergence run — is
// computed anew. It relies on what holds for every array the rules read: it is filled once, before any
// statistic of it is asked for (the frame's arrays are built before the rules run; a rule's own
// arrays are built before it reads them). An array written after a statistic was read would answer the
// statistic of its old values.
import { madAbout, median } from './baseline';

/** Inclusive window indices, as the rules' ranges (causes/context.ts Range). */
type Range = readonly [number, number];

interface Stats {
  median: Map<string, number>;
  mad: Map<string, number>;
}

const cache = new WeakMap<Float64Array, Stats>();

function statsOf(x: Float64Array): Stats {
  let s = cache.get(x);
  if (!s) cache.set(x, (s = { median: new Map(), mad: new Map() }));
  return s;
}

const key = (r: Range) => `${r[0]}:${r[1]}`;

/** median(x over windows r[0]..r[1]), as median(x.subarray(r[0], r[1] + 1)) answers it. */
export function rangeMedian(x: Float64Array, r: Range): number {
  const m = statsOf(x).median;
  const k = key(r);
  let v = m.get(k);
  if (v === undefined) m.set(k, (v = median(x.subarray(r[0], r[1] + 1))));
  return v;
}

/** mad(x over windows r[0]..r[1]), as mad(x.subarray(r[0], r[1] + 1)) answers it. */
export function rangeMad(x: Float64Array, r: Range): number {
  const m = statsOf(x).mad;
  const k = key(r);
  let v = m.get(k);
  if (v === undefined) m.set(k, (v = madAbout(x.subarray(r[0], r[1] + 1), rangeMedian(x, r))));
  return v;
}

const peaks = new WeakMap<Float64Array, number>();

/** The largest finite value of the whole array (NaN when there is none), as Math.max over its finite values. */
export function finitePeak(x: Float64Array): number {
  let p = peaks.get(x);
  if (p === undefined) {
    p = -Infinity;
    let any = false;
    for (let i = 0; i < x.length; i++)
      if (Number.isFinite(x[i])) {
        p = Math.max(p, x[i]);
        any = true;
      }
    if (!any) p = NaN;
    peaks.set(x, p);
  }
  return p;
}
