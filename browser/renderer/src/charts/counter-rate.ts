// Counters are charted as per-second rates. The store answers min/max per bucket; a counter only grows
// between resets, so a bucket's max is its last value. A drop means the counter restarted from zero.
// `windowMs` smooths: each rate is the increase over the last window (at least one step), as
// Prometheus' rate(x[window]) reads it.
export function counterRate(t: ArrayLike<number>, v: ArrayLike<number>, windowMs = 0): { t: Float64Array; v: Float64Array } {
  const n = Math.max(0, t.length - 1);
  const outT = new Float64Array(n);
  const outV = new Float64Array(n);
  // Increase since the first sample, resets counted from zero.
  const total = new Float64Array(t.length);
  for (let i = 1; i < t.length; i++) total[i] = total[i - 1] + (v[i] >= v[i - 1] ? v[i] - v[i - 1] : v[i]);
  let j = 0;
  for (let i = 1; i < t.length; i++) {
    while (j + 1 < i && t[i] - t[j + 1] >= windowMs) j++;
    const dt = (t[i] - t[j]) / 1000;
    outT[i - 1] = t[i];
    outV[i - 1] = dt > 0 ? (total[i] - total[j]) / dt : 0;
  }
  return { t: outT, v: outV };
}
