// Quantiles from cumulative histogram buckets, as Prometheus' histogram_quantile: find the bucket that
// holds the rank, interpolate linearly inside it; the +Inf bucket answers the highest finite bound.

/** q in 0..1; `le` ascending upper bounds (last usually Infinity); `cum` cumulative counts, from `at`. NaN when empty. */
export function histogramQuantile(q: number, le: ArrayLike<number>, cum: ArrayLike<number>, at = 0): number {
  const n = le.length;
  if (n === 0 || q < 0 || q > 1) return NaN;
  const total = cum[at + n - 1];
  if (!(total > 0)) return NaN;
  const rank = q * total;
  let b = 0;
  while (b < n - 1 && cum[at + b] < rank) b++;
  if (le[b] === Infinity) return n >= 2 ? le[n - 2] : NaN;
  const lower = b === 0 ? Math.min(0, le[0]) : le[b - 1];
  const below = b === 0 ? 0 : cum[at + b - 1];
  const inBucket = cum[at + b] - below;
  if (inBucket <= 0) return le[b];
  return lower + ((le[b] - lower) * (rank - below)) / inBucket;
}

/**
 * Bucket counts accumulated between two snapshots. A bucket that went down means the process restarted,
 * so the later snapshot alone is the increase. Written into `out` (as long as `later`) when given.
 */
export function bucketDelta(earlier: ArrayLike<number> | null, later: ArrayLike<number>, out = new Float64Array(later.length)): Float64Array {
  if (!earlier || earlier.length !== later.length) {
    out.set(later);
    return out;
  }
  for (let i = 0; i < later.length; i++) {
    if (later[i] < earlier[i]) {
      out.set(later);
      return out;
    }
    out[i] = later[i] - earlier[i];
  }
  return out;
}

/**
 * Shannon entropy of the distribution a cumulative histogram describes (its `n` counts from `at`),
 * normalised to 0..1 by the log of the bucket count: 0 = every observation in one bucket, 1 = spread evenly.
 */
export function histogramEntropy(cum: ArrayLike<number>, at = 0, n = cum.length - at): number {
  const total = n ? cum[at + n - 1] : 0;
  if (!(total > 0) || n < 2) return NaN;
  let h = 0;
  let prev = 0;
  for (let i = 0; i < n; i++) {
    const p = (cum[at + i] - prev) / total;
    prev = cum[at + i];
    if (p > 0) h -= p * Math.log(p);
  }
  return h / Math.log(n);
}
