// Where the serving behaviour changed when the joint trigger never fired: most faults slow one part of
// the pipeline (a clock, a hit rate, a step time) at a load the engine still keeps up with, so tokens/s
// hold and the trigger stays quiet while the bundle plainly changed. The strongest mean shift among
// the core signals after the baseline marks the start of the stretch the rules read.
import { changePoint } from './change-point';
import type { Frame } from './frame';
import type { Range } from './causes/context';

/** Signals whose shift marks an episode; levels are compared on a log scale (a ×2 is a ×2 at any level). */
const KPIS: (keyof Frame)[] = ['e2e99', 'ttft99', 'itl50', 'q99', 'gtok', 'ptok', 'lamIn', 'run', 'wait', 'kv', 'hit', 'smAct', 'util', 'smClk', 'temp', 'plenMean', 'glenMean', 'accLen', 'errFrac'];

export interface ChangeOnset {
  index: number;
  signal: string;
  strength: number;
}

/**
 * The change-point (mean shift, ≥ `minStrength` of the variance explained and ≥ 15% in size) with the
 * highest strength among KPIS over [baseline start, end], provided it falls after the baseline.
 */
export function changeOnset(f: Frame, base: Range, minStrength = 0.5): ChangeOnset | null {
  let best: ChangeOnset | null = null;
  for (const k of KPIS) {
    const x = f[k] as Float64Array;
    const v = new Float64Array(f.grid.n - base[0]);
    for (let i = base[0]; i < f.grid.n; i++) v[i - base[0]] = Number.isFinite(x[i]) ? Math.log1p(Math.max(0, x[i]) * 1000) : NaN;
    const cp = changePoint(v, 3);
    if (!cp || cp.strength < minStrength) continue;
    const index = base[0] + cp.index;
    const rel = Math.abs(Math.expm1(cp.after - cp.before));
    if (index <= base[1] || rel < 0.15) continue;
    if (!best || cp.strength > best.strength) best = { index, signal: k, strength: cp.strength };
  }
  return best;
}
