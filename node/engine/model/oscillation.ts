// osc(x): how often the first difference changes sign — a see-saw (run/wait under preemption) scores
// near 1, a ramp or a plateau near 0.

/** Sign changes of the first difference ÷ (non-zero differences − 1); NaN with fewer than three moves. */
export function oscillation(v: ArrayLike<number>): number {
  let prevSign = 0;
  let moves = 0;
  let changes = 0;
  let prev = NaN;
  for (let i = 0; i < v.length; i++) {
    if (!Number.isFinite(v[i])) continue;
    if (Number.isFinite(prev)) {
      const d = v[i] - prev;
      if (d !== 0) {
        const sign = d > 0 ? 1 : -1;
        moves++;
        if (prevSign !== 0 && sign !== prevSign) changes++;
        prevSign = sign;
      }
    }
    prev = v[i];
  }
  return moves >= 3 ? changes / (moves - 1) : NaN;
}
