// The incident onset (four-quadrant-model.md §5): the first window where P99 latency rose by more than
// θℓ AND the token rate fell by more than θt, both against the baseline. Either alone is routine (a
// burst of long prompts, a quiet hour); together they mean users wait longer for less.
import type { TriggerThresholds } from './config';

/** Index of the first triggering window at or after `from` that is not excluded; -1 when none. */
export function jointTrigger(dP99ms: ArrayLike<number>, dTps: ArrayLike<number>, th: TriggerThresholds, from = 0, excluded?: (i: number) => boolean): number {
  for (let i = from; i < dP99ms.length; i++) {
    if (excluded?.(i)) continue;
    if (dP99ms[i] > th.latency_ms && dTps[i] < -th.throughput_drop) return i;
  }
  return -1;
}
