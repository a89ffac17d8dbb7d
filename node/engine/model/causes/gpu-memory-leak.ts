// GPU memory leak: growth beyond the preallocated budget and beyond what the running batch explains.
import { SIG } from '../../../../common/names';
import { median } from '../baseline';
import { memoryTrend } from '../leak';
import { cond, defineCause, eventEvidence, fmtBytes, missingInputs, notAssessable, seriesEvidence, slice, type CauseContext, type RuleResult } from './context';
import { isHostOom, ooms, reservedOutgrowsAllocated, growthIsStranded } from './shared';

export const gpuMemoryLeak = defineCause({
  id: 'gpu_memory_leak',
  level: 7.5,
  upstream: ['deploy_regression'],
  rule,
});

function rule(c: CauseContext): RuleResult {
  const missing = missingInputs(c.f, [[SIG.torchAllocated, SIG.gpuMemUsed]]);
  if (missing.length) return notAssessable('gpu_memory_leak', missing);
  const tr = c.trend;
  if (!tr) return notAssessable('gpu_memory_leak', ['torch.allocated or gpu.mem.used with ≥ 3 windows']);
  const min = c.cfg.causes.leak_min_growth_bytes;
  const oomAfter = ooms(c).filter((e) => e.ts_ms >= tr.start_ms && !isHostOom(e));
  const fragInstead = (tr.signal === SIG.torchAllocated && reservedOutgrowsAllocated(c)) || growthIsStranded(c, tr);
  // What load explains: memory regressed on the running batch; the leak is what grows beyond that. A
  // batch that grew with traffic lifts activations and allocated bytes with it, and a few arrival spikes
  // must not hide a monotone climb into an OOM (testing "batch peaks flat" did).
  const resid = loadResidual(c, tr.values, tr.start_ms);
  const rtr = resid ? memoryTrend(tr.signal, tr.ref, c.f.t, resid.values, median(slice(resid.values, c.base)), null) : null;
  const residMono = rtr?.mono ?? tr.mono;
  const residGrowth = rtr?.growth_bytes ?? tr.growth_bytes;
  const require = [
    cond(`slope(${tr.signal} beyond the baseline level) > 0 bytes/min`, tr.slope_bytes_per_min, tr.slope_bytes_per_min > 0),
    cond(`mono(${tr.signal} beyond what the running batch explains) ≥ ${c.cfg.causes.leak_mono}`, residMono, residMono >= c.cfg.causes.leak_mono, c.cfg.causes.leak_mono),
    cond(`growth beyond the baseline and the load ≥ ${fmtBytes(min)}`, residGrowth, residGrowth >= min, min),
  ];
  const projected = tr.projected_oom_ms;
  return {
    id: 'gpu_memory_leak',
    missing: [],
    require,
    support: [
      cond('memory explained by the running batch (share of variance)', resid?.r2 ?? null, resid !== null && resid.r2 < 0.5),
      cond('growth shape', tr.shape, tr.shape === 'ramp' || tr.shape === 'staircase'),
      cond('projected OOM (ms since epoch)', projected, projected !== null),
      cond('OOM after the growth began', oomAfter.length, oomAfter.length > 0),
      cond('allocation sites alive at the end', c.sig.sites.length, c.sig.sites.length > 0),
    ],
    veto: [
      cond('reserved grows with allocated flat, or the OOM text calls the growth reserved-but-unallocated or says the refused allocation would have fit in that reserve (→ allocator_fragmentation)', fragInstead, fragInstead),
      cond('growth stopped after warm-up (late slope ÷ slope < 0.1)', tr.late_slope_ratio, tr.late_slope_ratio < 0.1),
    ],
    evidence: [
      seriesEvidence(c, tr.ref, `${tr.shape}: ${fmtBytes(tr.slope_bytes_per_min)}/min, +${fmtBytes(tr.growth_bytes)} over the baseline`, tr.start_ms, tr.end_ms),
      ...oomAfter.slice(0, 3).map((e) => eventEvidence(e)),
      ...c.sig.sites.slice(0, 3).filter((s) => s.stack_id !== null).map((s) => ({ kind: 'allocation' as const, ref: String(s.stack_id), start_ms: tr.start_ms, end_ms: tr.end_ms, text: `${fmtBytes(s.live_bytes)} live in ${s.allocs} allocations at ${s.frames[0] ?? '?'}` })),
    ],
    onset_ms: tr.start_ms,
    endsInOom: oomAfter.length > 0,
  };
}

/**
 * Memory minus what the running batch explains, or null without a load signal that varies. The batch's
 * effect is learnt where memory did not grow (before `growthFrom`, else the whole span): fitted over the
 * growth too, a leak that coincides with a queue building up (a leaking engine slows, running climbs)
 * would be taken for load and subtracted away. `r2` is the share of memory's variance the batch explains.
 */
function loadResidual(c: CauseContext, mem: ArrayLike<number>, growthFrom: number): { values: Float64Array; r2: number } | null {
  const load = c.f.run;
  const before = (i: number) => c.f.t[i] < growthFrom;
  let fitAll = 0;
  for (let i = 0; i < mem.length; i++) if (before(i) && Number.isFinite(mem[i]) && Number.isFinite(load[i])) fitAll++;
  const inFit = fitAll >= 10 ? before : () => true;
  let n = 0;
  let sx = 0;
  let sy = 0;
  for (let i = 0; i < mem.length; i++) if (inFit(i) && Number.isFinite(mem[i]) && Number.isFinite(load[i])) {
    n++;
    sx += load[i];
    sy += mem[i];
  }
  if (n < 10) return null;
  const mx = sx / n;
  const my = sy / n;
  let sxx = 0;
  let sxy = 0;
  let syy = 0;
  for (let i = 0; i < mem.length; i++) if (inFit(i) && Number.isFinite(mem[i]) && Number.isFinite(load[i])) {
    sxx += (load[i] - mx) ** 2;
    sxy += (load[i] - mx) * (mem[i] - my);
    syy += (mem[i] - my) ** 2;
  }
  if (!(sxx > 0)) return null;
  // Only a positive dependence is load: more running requests hold more memory.
  const beta = Math.max(0, sxy / sxx);
  const values = new Float64Array(mem.length).fill(NaN);
  for (let i = 0; i < mem.length; i++) if (Number.isFinite(mem[i])) values[i] = mem[i] - beta * ((Number.isFinite(load[i]) ? load[i] : mx) - mx);
  return { values, r2: syy > 0 ? (beta * sxy) / syy : 0 };
}
