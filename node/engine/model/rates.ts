// Counters into increases and rates, with resets: a counter that goes down restarted from zero, so
// the value after the drop is the increase since the restart (as Prometheus' rate()).

/** Total increase of a cumulative counter over samples [from, to). */
export function counterIncrease(v: ArrayLike<number>, from = 0, to = v.length): number {
  let inc = 0;
  for (let i = from + 1; i < to; i++) {
    const d = v[i] - v[i - 1];
    inc += d >= 0 ? d : v[i];
  }
  return inc;
}

/** Per-second rate over samples at times t (ms); NaN with fewer than two samples. */
export function counterRate(t: ArrayLike<number>, v: ArrayLike<number>, from = 0, to = v.length): number {
  if (to - from < 2) return NaN;
  const dt = t[to - 1] - t[from];
  return dt > 0 ? (counterIncrease(v, from, to) / dt) * 1000 : NaN;
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
    const d = v[i] - v[i - 1];
    inc[b] += d >= 0 ? d : v[i];
    dt[b] += t[i] - t[i - 1];
  }
  return { inc, dt };
}
