// Turns one downsampled series (first timestamp, min, max per bucket) into the x/y columns uPlot draws:
// where a bucket folded several samples, its min and max both appear (half a bucket apart, less than a
// pixel), so spikes survive downsampling as uPlot's min/max-per-column stroke.
import type { SeriesData } from '../contract/types';
import { counterRates } from '../counters';

export function seriesColumns(d: SeriesData, asRate: boolean, bucketMs: number, rateWindowMs = 0): { t: Float64Array; v: Float64Array } {
  if (asRate) return counterRates(d.t, d.max, rateWindowMs);
  if (!d.downsampled) return { t: Float64Array.from(d.t), v: Float64Array.from(d.max) };
  const n = d.t.length;
  const t = new Float64Array(n * 2);
  const v = new Float64Array(n * 2);
  const half = bucketMs / 2;
  for (let i = 0; i < n; i++) {
    // Alternate the order so the stroke joins neighbouring columns at the nearer end.
    const rising = i % 2 === 0;
    t[2 * i] = d.t[i];
    v[2 * i] = rising ? d.min[i] : d.max[i];
    t[2 * i + 1] = d.t[i] + half;
    v[2 * i + 1] = rising ? d.max[i] : d.min[i];
  }
  return { t, v };
}

/** Aligns several (t, v) columns on one shared, sorted x column, with nulls where a series has no point. */
export function alignColumns(cols: { t: Float64Array; v: Float64Array }[]): (number | null)[][] | [Float64Array, ...Float64Array[]] {
  if (cols.length === 1) return [cols[0].t, cols[0].v];
  const xs = new Set<number>();
  for (const c of cols) for (let i = 0; i < c.t.length; i++) xs.add(c.t[i]);
  const x = Float64Array.from(xs).sort();
  const out: (number | null)[][] = [Array.from(x)];
  for (const c of cols) {
    const y: (number | null)[] = new Array(x.length).fill(null);
    let j = 0;
    for (let i = 0; i < c.t.length; i++) {
      while (x[j] < c.t[i]) j++;
      y[j] = c.v[i];
    }
    out.push(y);
  }
  return out;
}
