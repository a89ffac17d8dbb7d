// The incident onset (docs/four-quadrant-model.md §5): the first window where P99 latency rose by more than
// θℓ AND the token rate fell by more than θt, both against the baseline. Either alone is routine (a
// burst of long prompts, a quiet hour); together they mean users wait longer for less.
import type { TriggerThresholds } from './config';

export interface TriggerGuard {
  /** Consecutive windows both conditions must hold (one noisy window is not an incident). */
  hold?: number;
  /**
   * The baseline's own window-to-window spread (1.4826·MAD) of ΔP99 in ms and of ΔTPS% as a fraction:
   * a rise is only news beyond `noise_z` of them. Histogram quantiles of 10 s windows with buckets
   * seconds wide swing by whole buckets when nothing is wrong.
   */
  latency_sigma_ms?: number;
  tps_sigma?: number;
  noise_z?: number;
}

/** Index of the first triggering window at or after `from` that is not excluded; -1 when none. */
export function jointTrigger(dP99ms: ArrayLike<number>, dTps: ArrayLike<number>, th: TriggerThresholds, from = 0, excluded?: (i: number) => boolean, guard: TriggerGuard = {}): number {
  const hold = Math.max(1, guard.hold ?? 1);
  const z = guard.noise_z ?? 0;
  const lat = Math.max(th.latency_ms, z * (Number.isFinite(guard.latency_sigma_ms) ? guard.latency_sigma_ms! : 0));
  const drop = Math.max(th.throughput_drop, z * (Number.isFinite(guard.tps_sigma) ? guard.tps_sigma! : 0));
  let run = 0;
  for (let i = from; i < dP99ms.length; i++) {
    const ok = !excluded?.(i) && dP99ms[i] > lat && dTps[i] < -drop;
    run = ok ? run + 1 : 0;
    if (run >= hold) return i - hold + 1;
  }
  return -1;
}

/**
 * The first window at or after `from`, not excluded, that starts a streak of `hold` windows where a
 * latency rise and a throughput fall hold together; -1 when none. The callers decide what a rise is
 * (e2e beyond its noise guard, or any latency family beyond its band).
 */
export function jointOnset(latRise: ArrayLike<boolean>, tpsFall: ArrayLike<boolean>, hold: number, from = 0, excluded?: (i: number) => boolean): number {
  let run = 0;
  const h = Math.max(1, hold);
  for (let i = from; i < latRise.length; i++) {
    run = !excluded?.(i) && latRise[i] && tpsFall[i] ? run + 1 : 0;
    if (run >= h) return i - h + 1;
  }
  return -1;
}

/**
 * The first window, not excluded, that starts a streak where a latency rise and a throughput fall hold
 * together for at least `minMs` (from the first window's start to the last one's end); -1 when none. A
 * minute of both around a restart or an arrival spike dates an incident's onset well; as the only evidence
 * that an incident happened it must last as long as a sustained symptom alert.
 */
export function sustainedJointOnset(latRise: ArrayLike<boolean>, tpsFall: ArrayLike<boolean>, t: ArrayLike<number>, W: number, minMs: number, excluded?: (i: number) => boolean): number {
  let start = -1;
  for (let i = 0; i < latRise.length; i++) {
    if (excluded?.(i) || !(latRise[i] && tpsFall[i])) {
      start = -1;
      continue;
    }
    if (start < 0) start = i;
    if (t[i] + W - t[start] >= minMs) return start;
  }
  return -1;
}
