// Counters into increases and rates, in one place for the model, the workstation's charts and the report.
// A counter only grows between restarts; a value below the one before means the counter restarted from
// zero, so the increase across the drop is the new value itself (Prometheus' rate() reads it the same).

/** The increase from `prev` to `cur`: the difference, or `cur` where the counter restarted. */
export const counterStep = (prev: number, cur: number): number => (cur >= prev ? cur - prev : cur);

/** Total increase of a cumulative counter over samples [from, to). */
export function counterIncrease(v: ArrayLike<number>, from = 0, to = v.length): number {
  let inc = 0;
  for (let i = from + 1; i < to; i++) inc += counterStep(v[i - 1], v[i]);
  return inc;
}

export interface CounterBuckets {
  /** Increase credited to each bucket (each sample-to-sample step goes to the bucket of the later sample). */
  inc: Float64Array;
  /** Milliseconds of counter time those steps covered, so a partly covered window still gives a true rate. */
  dt: Float64Array;
}

/** One pass over a counter: increases per bucket of width `step` starting at t0. */
export function bucketCounter(t: ArrayLike<number>, v: ArrayLike<number>, t0: number, step: number, nb: number): CounterBuckets {
  const inc = new Float64Array(nb);
  const dt = new Float64Array(nb);
  for (let i = 1; i < t.length; i++) {
    const b = Math.floor((t[i] - t0) / step);
    if (b < 0 || b >= nb) continue;
    inc[b] += counterStep(v[i - 1], v[i]);
    dt[b] += t[i] - t[i - 1];
  }
  return { inc, dt };
}

/**
 * Per-second rates at each sample after the first (times in ms). `windowMs` smooths: each rate is the
 * increase over the last window (at least one step), as Prometheus' rate(x[window]) reads it; 0 is the
 * rate per step. Charts feed it the max of each downsampled bucket: a counter's max is its last value.
 */
export function counterRates(t: ArrayLike<number>, v: ArrayLike<number>, windowMs = 0): { t: Float64Array; v: Float64Array } {
  const n = Math.max(0, t.length - 1);
  const outT = new Float64Array(n);
  const outV = new Float64Array(n);
  // Increase since the first sample, restarts counted from zero.
  const total = new Float64Array(t.length);
  for (let i = 1; i < t.length; i++) total[i] = total[i - 1] + counterStep(v[i - 1], v[i]);
  let j = 0;
  for (let i = 1; i < t.length; i++) {
    while (j + 1 < i && t[i] - t[j + 1] >= windowMs) j++;
    const dt = (t[i] - t[j]) / 1000;
    outT[i - 1] = t[i];
    outV[i - 1] = dt > 0 ? (total[i] - total[j]) / dt : 0;
  }
  return { t: outT, v: outV };
}
