// The single most likely change-point of a series: the split that minimises the two segments' squared
// error (a mean shift), found in one pass with prefix sums.

export interface ChangePoint {
  /** Index of the first sample after the change. */
  index: number;
  before: number;
  after: number;
  /** Relative size (after − before) / |before|; Infinity when before is 0 and after is not. */
  size: number;
  /** Share of the series' variance the split explains, 0..1. */
  strength: number;
}

/** NaN entries are skipped; segments have at least `minSegment` finite points. Null when no split exists. */
export function changePoint(v: ArrayLike<number>, minSegment = 2): ChangePoint | null {
  const idx: number[] = [];
  const x: number[] = [];
  for (let i = 0; i < v.length; i++) {
    if (Number.isFinite(v[i])) {
      idx.push(i);
      x.push(v[i]);
    }
  }
  const n = x.length;
  if (n < 2 * minSegment) return null;
  const s = new Float64Array(n + 1);
  const s2 = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) {
    s[i + 1] = s[i] + x[i];
    s2[i + 1] = s2[i] + x[i] * x[i];
  }
  const sse = (a: number, b: number) => s2[b] - s2[a] - (s[b] - s[a]) ** 2 / (b - a);
  const total = sse(0, n);
  let best = -1;
  let bestCost = Infinity;
  for (let k = minSegment; k <= n - minSegment; k++) {
    const c = sse(0, k) + sse(k, n);
    if (c < bestCost - 1e-12) {
      bestCost = c;
      best = k;
    }
  }
  if (best < 0) return null;
  const before = s[best] / best;
  const after = (s[n] - s[best]) / (n - best);
  const size = before === 0 ? (after === 0 ? 0 : Infinity) : (after - before) / Math.abs(before);
  return { index: idx[best], before, after, size, strength: total > 0 ? 1 - bestCost / total : 0 };
}
