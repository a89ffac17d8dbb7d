// Counters are charted as per-second rates. The store answers min/max per bucket; a counter only grows
// between resets, so a bucket's max is its last value. A drop means the counter restarted from zero.
export function counterRate(t: ArrayLike<number>, v: ArrayLike<number>): { t: Float64Array; v: Float64Array } {
  const n = Math.max(0, t.length - 1);
  const outT = new Float64Array(n);
  const outV = new Float64Array(n);
  for (let i = 1; i < t.length; i++) {
    const dt = (t[i] - t[i - 1]) / 1000;
    const dv = v[i] >= v[i - 1] ? v[i] - v[i - 1] : v[i];
    outT[i - 1] = t[i];
    outV[i - 1] = dt > 0 ? dv / dt : 0;
  }
  return { t: outT, v: outV };
}
