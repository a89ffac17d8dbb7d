// Robust summaries of a baseline stretch and the two comparisons every rule uses: r() and z().

/**
 * The values that are numbers (NaN marks a window without data), copied into a scratch typed array (its
 * sort() is numeric and fast) that quantile() rearranges and the next call overwrites: the rules ask for
 * thousands of medians of day-long arrays, and a new array each time was a tenth of the analysis' time
 * in the garbage collector.
 */
let scratch = new Float64Array(1024);
/** The scratch array grows to this many values (2 MiB) at most; a longer input gets an array of its own. */
const SCRATCH_MAX = 1 << 18;
function finite(xs: ArrayLike<number>): Float64Array {
  if (scratch.length < xs.length && xs.length <= SCRATCH_MAX) scratch = new Float64Array(Math.min(SCRATCH_MAX, Math.max(xs.length, 2 * scratch.length)));
  const out = scratch.length >= xs.length ? scratch : new Float64Array(xs.length);
  let n = 0;
  for (let i = 0; i < xs.length; i++) if (Number.isFinite(xs[i])) out[n++] = xs[i];
  return out.subarray(0, n);
}

/** Linear-interpolated quantile (q in 0..1) of the finite values; NaN when there are none. */
export function quantile(xs: ArrayLike<number>, q: number): number {
  const v = finite(xs);
  if (!v.length) return NaN;
  const pos = (v.length - 1) * Math.min(1, Math.max(0, q));
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  // Two order statistics, not a sort: a day of 1 s windows is 86 k values per call, and the rules ask
  // for medians hundreds of times. Small arrays sort (cheaper than partitioning, same answer).
  if (v.length <= 64) {
    v.sort();
    return v[lo] + (v[hi] - v[lo]) * (pos - lo);
  }
  const a = select(v, lo);
  if (hi === lo) return a;
  // After selecting lo, everything right of it is ≥ it: the next order statistic is their minimum.
  let b = Infinity;
  for (let i = lo + 1; i < v.length; i++) if (v[i] < b) b = v[i];
  return a + (b - a) * (pos - lo);
}

/** Rearranges `v` so v[k] holds the k-th smallest value, smaller ones left of it, larger right (quickselect, median-of-three pivots). */
function select(v: Float64Array, k: number): number {
  let left = 0;
  let right = v.length - 1;
  while (right > left) {
    const mid = (left + right) >>> 1;
    const a = v[left];
    const b = v[mid];
    const c = v[right];
    const pivot = a < b ? (b < c ? b : a < c ? c : a) : a < c ? a : b < c ? c : b;
    let i = left;
    let j = right;
    while (i <= j) {
      while (v[i] < pivot) i++;
      while (v[j] > pivot) j--;
      if (i <= j) {
        const t = v[i];
        v[i] = v[j];
        v[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) right = j;
    else if (k >= i) left = i;
    else return v[k];
  }
  return v[k];
}

export const median = (xs: ArrayLike<number>): number => quantile(xs, 0.5);

/** Median absolute deviation from the median. */
export function mad(xs: ArrayLike<number>): number {
  return madAbout(xs, median(xs));
}

/** Median absolute deviation from `m`, the median of `xs` (known already: range-stats.ts keeps it). */
export function madAbout(xs: ArrayLike<number>, m: number): number {
  if (Number.isNaN(m)) return NaN;
  // The deviations overwrite the scratch copy; quantile's own copy of them is then made within that same
  // buffer, front to back (each value moves to its own place or before it, dropping any that overflowed).
  const d = finite(xs);
  for (let i = 0; i < d.length; i++) d[i] = Math.abs(d[i] - m);
  return median(d);
}

export function mean(xs: ArrayLike<number>): number {
  let s = 0;
  let n = 0;
  for (let i = 0; i < xs.length; i++) {
    if (Number.isFinite(xs[i])) {
      s += xs[i];
      n++;
    }
  }
  return n ? s / n : NaN;
}

export function max(xs: ArrayLike<number>): number {
  let m = -Infinity;
  for (let i = 0; i < xs.length; i++) if (xs[i] > m) m = xs[i];
  return m === -Infinity ? NaN : m;
}

export function min(xs: ArrayLike<number>): number {
  let m = Infinity;
  for (let i = 0; i < xs.length; i++) if (xs[i] < m) m = xs[i];
  return m === Infinity ? NaN : m;
}

export interface BaselineStats {
  median: number;
  mad: number;
}

export function summarize(xs: ArrayLike<number>): BaselineStats {
  return { median: median(xs), mad: mad(xs) };
}

/**
 * r(x) = x ÷ baseline median. A zero baseline gives Infinity for a positive x (something appeared that
 * was absent) and 1 for zero; NaN when either side is unknown.
 */
export function ratio(x: number, baselineMedian: number): number {
  if (!Number.isFinite(x) || !Number.isFinite(baselineMedian)) return NaN;
  if (baselineMedian === 0) return x === 0 ? 1 : x > 0 ? Infinity : -Infinity;
  return x / baselineMedian;
}

/** z(x) = (x − median_B) / (1.4826·MAD_B); a zero MAD falls back to 1% of the median so a flat baseline still scales. */
export function zScore(x: number, b: BaselineStats): number {
  if (!Number.isFinite(x) || !Number.isFinite(b.median)) return NaN;
  const scale = 1.4826 * (b.mad > 0 ? b.mad : Math.max(Math.abs(b.median) * 0.01, 1e-12));
  return (x - b.median) / scale;
}

/**
 * The default baseline: the first stretch of the incident, `fraction` of its span and at most `maxMs`
 * (docs/four-quadrant-model.md §2) — or, where the scrapes are sparse, `minScrapes` scrape intervals (still within
 * `fraction` of the span): ten minutes of scrapes three minutes apart are three readings, no band to judge by (a
 * healthy fleet scraped every 180 s read as latency alerts for hours).
 */
export function defaultBaselineSpan(startMs: number, endMs: number, fraction: number, maxMs: number, intervalMs = 0, minScrapes = 0): { start_ms: number; end_ms: number } {
  const span = Math.max(0, endMs - startMs);
  return { start_ms: startMs, end_ms: startMs + Math.min(Math.max(maxMs, minScrapes * intervalMs), span * fraction) };
}
