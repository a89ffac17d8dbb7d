// GPU throttling: the SM clock cut by a thermal or power slowdown while the GPU is busy.
import { SIG } from '../../../../common/names';
import { median } from '../baseline';
import type { GpuWindows } from '../frame';
import {
  cond, defineCause, fmt, longestRun, missingInputs, notAssessable, rE, seriesEvidence, slice, spanEnd, spanStart, type CauseContext, type RuleResult,
} from './context';

export const gpuThrottling = defineCause({
  id: 'gpu_throttling',
  level: 4,
  rule,
});

const gpuRef = (name: string, g: GpuWindows) => (g.labels.gpu !== undefined ? `${name}{gpu="${g.labels.gpu}"}` : name);

const orBits = (x: Float64Array) => {
  let b = 0;
  for (const v of x) if (Number.isFinite(v)) b |= v;
  return b;
};

function rule(c: CauseContext): RuleResult {
  const missing = missingInputs(c.f, [SIG.gpuSmClock, [SIG.gpuUtil, SIG.gpuSmActive, SIG.gpuGrActive], SIG.gpuThrottleReasons]);
  if (missing.length) return notAssessable('gpu_throttling', missing);
  const cc = c.cfg.causes;
  let best: { g: GpuWindows; run: ReturnType<typeof longestRun>; clkB: number; clkE: number; bitsE: number; bitsB: number; util: number } | null = null;
  for (const g of c.f.gpus) {
    if (!g.clk.some(Number.isFinite)) continue;
    const clkB = median(slice(g.clk, c.base));
    const busy = g.smAct.some(Number.isFinite) && !g.util.some(Number.isFinite) ? g.smAct : g.util;
    // Cut: below the ratio; or, where the GPU itself flags a thermal or power slowdown in that window, any
    // cut beyond the clock's jitter — a heat soak takes 5–30 min to pull the clock down, and the bits are
    // set from its first step.
    const cut = (i: number) => g.clk[i] <= cc.throttle_clock_ratio * clkB || ((g.thr[i] & cc.throttle_bits) !== 0 && g.clk[i] <= cc.throttle_clock_ratio_flagged * clkB);
    const run = longestRun(c, (i) => (Number.isFinite(g.clk[i]) ? busy[i] >= cc.throttle_util_min && cut(i) : null));
    const bitsE = run.start === null ? orBits(slice(g.thr, c.span)) : orBits(g.thr.subarray(Math.floor((run.start - c.f.grid.t0) / c.f.grid.step), Math.floor((run.end! - c.f.grid.W - c.f.grid.t0) / c.f.grid.step) + 1));
    const cand = { g, run, clkB, clkE: median(slice(g.clk, c.span)), bitsE, bitsB: orBits(slice(g.thr, c.base)), util: median(slice(busy, c.span)) };
    if (!best || run.ms > best.run.ms) best = cand;
  }
  if (!best) return notAssessable('gpu_throttling', [SIG.gpuSmClock]);
  const slow = best.bitsE & cc.throttle_bits;
  const idleOnly = best.bitsE !== 0 && (best.bitsE & ~0x1) === 0;
  const sameAsBaseline = slow !== 0 && (best.bitsB & slow) === slow;
  return {
    id: 'gpu_throttling',
    missing: [],
    require: [
      cond(`util ≥ ${cc.throttle_util_min}`, best.util, best.util >= cc.throttle_util_min, cc.throttle_util_min),
      cond(`sm_clk ≤ ${cc.throttle_clock_ratio}·median_B(sm_clk) (≤ ${cc.throttle_clock_ratio_flagged}· where a slowdown bit is set) for ≥ ${cc.throttle_min_ms / 1000} s (longest run, s)`, best.run.ms / 1000, best.run.ms >= cc.throttle_min_ms),
      cond('throttle bits HW_SLOWDOWN|SW_THERMAL|HW_THERMAL|POWER_BRAKE set', `0x${best.bitsE.toString(16)}`, slow !== 0),
    ],
    support: [cond('median clock in the span ÷ baseline', best.clkE / best.clkB, best.clkE / best.clkB <= cc.throttle_clock_ratio), cond('r(itl50)', rE(c, c.f.itl50), rE(c, c.f.itl50) >= 1.15)],
    veto: [
      cond('only the idle bit', idleOnly, idleOnly),
      cond('the same slowdown bits already in the baseline (a permanent cap is a baseline, not an incident)', `0x${best.bitsB.toString(16)}`, sameAsBaseline),
    ],
    evidence: [
      seriesEvidence(c, gpuRef(SIG.gpuSmClock, best.g), `SM clock ${fmt(best.clkE)} MHz vs baseline ${fmt(best.clkB)} MHz`, best.run.start ?? spanStart(c), best.run.end ?? spanEnd(c)),
      seriesEvidence(c, gpuRef(SIG.gpuThrottleReasons, best.g), `throttle reasons 0x${best.bitsE.toString(16)}`, best.run.start ?? spanStart(c), best.run.end ?? spanEnd(c)),
    ],
    onset_ms: best.run.start === null ? null : flaggedFrom(c, best.g, best.run.start),
  };
}

/**
 * The GPU sets its slowdown bits from the first step of a throttle, while the clock takes minutes of heat
 * soak to fall below the cut: the incident began where the bits came on, walking back from the cut clock's
 * first window over windows that keep them set (a window without a reading neither breaks nor extends the
 * stretch). The temperature is no date: a sensor read in whole degrees climbs 1 °C through an idle
 * afternoon, and dating the soak from there put throttles 2–11 min early.
 */
function flaggedFrom(c: CauseContext, g: GpuWindows, runStart: number): number {
  const bits = c.cfg.causes.throttle_bits;
  let i = Math.max(0, Math.floor((runStart - c.f.grid.t0) / c.f.grid.step));
  let from = i;
  for (i = i - 1; i >= 0; i--) {
    const x = g.thr[i];
    if (Number.isNaN(x)) continue;
    if ((x & bits) === 0) break;
    from = i;
  }
  return Math.min(runStart, c.f.t[from]);
}
