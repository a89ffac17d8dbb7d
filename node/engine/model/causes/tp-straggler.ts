// Tensor-parallel straggler: one rank slower than the rest sets the step time.
import { EV, SIG } from '../../../../common/names';
import type { GpuWindows } from '../frame';
import {
  cond, defineCause, departureOnset, events, fmt, medB, medE, missingInputs, notAssessable, rE, seriesEvidence, slice, spanStart, type CauseContext, type RuleResult,
} from './context';
import { ofFrame } from './shared';

export const tpStraggler = defineCause({
  id: 'tp_straggler',
  level: 4,
  // A host whose memory leaks into swap pages a rank's process out mid-step: that rank stalls every collective.
  upstream: ['gpu_throttling', 'host_memory_leak'],
  rule,
});

/** Share of the cut's excess over uniformity (straggler_spread − 1) by which the spread must outgrow the baseline's. */
const SPREAD_GREW = 0.5;

const SPREAD_FIELDS: [keyof GpuWindows, string][] = [['clk', SIG.gpuSmClock], ['temp', SIG.gpuTemp], ['power', SIG.gpuPower], ['smAct', SIG.gpuSmActive]];

/**
 * Per window, how far one GPU stands from the others of its machine in a field (the widest machine wins).
 * Tensor parallel ranks share a node; GPUs of different replicas' nodes carry different loads and are no
 * ranks of one another. Replicas can share a node too, so among three or more GPUs the spread is a lone
 * rank's: the gap between the highest and the next (or the next-lowest and the lowest), not max ÷ min —
 * two replicas' pairs parting with their loads (52, 52, 60, 60 °C: one replica idle after a restart) have no
 * rank apart from its peers, where one slow rank (45, 60, 60, 60) stands alone.
 */
function spread(gpus: GpuWindows[], field: keyof GpuWindows, n: number): Float64Array {
  const machines = new Map<string, GpuWindows[]>();
  for (const g of gpus) {
    const m = `${g.key.includes('/') ? g.key.slice(0, g.key.lastIndexOf('/')) : ''}|${workloadPod(g.labels)}`;
    machines.set(m, [...(machines.get(m) ?? []), g]);
  }
  const out = new Float64Array(n).fill(NaN);
  const xs: number[] = [];
  for (const group of machines.values())
    for (let i = 0; i < n; i++) {
      xs.length = 0;
      for (const g of group) {
        const x = (g[field] as Float64Array)[i];
        if (Number.isFinite(x)) xs.push(x);
      }
      const k = xs.length;
      if (k < 2) continue;
      xs.sort((a, b) => a - b);
      if (!(xs[0] > 0)) continue;
      const apart = k === 2 ? xs[1] / xs[0] : Math.max(xs[k - 1] / xs[k - 2], xs[1] / xs[0]);
      if (!(out[i] >= apart)) out[i] = apart;
    }
  return out;
}

/**
 * The pod dcgm-exporter attributes a GPU to (its Kubernetes mapping; `exported_pod` where the scrape's own
 * `pod` label, the exporter's, took the name). GPUs of different pods are different replicas — four TP-1
 * replicas on one node, one busier than the rest, are no ranks of one another. Where `pod` is the exporter's
 * own, every GPU of the node shares it and the node stays one group.
 */
const workloadPod = (labels: Record<string, string>) => labels.exported_pod ?? labels.pod ?? '';

function rule(c: CauseContext): RuleResult {
  const multi = SPREAD_FIELDS.some(([f]) => c.f.gpus.filter((g) => (g[f] as Float64Array).some(Number.isFinite)).length >= 2);
  const missing = missingInputs(c.f, [SIG.latItl]);
  if (!multi) missing.push('per-GPU gpu.sm_clock / gpu.temp / gpu.power / gpu.sm_active for ≥ 2 GPUs');
  if (missing.length) return notAssessable('tp_straggler', missing);
  let best: { name: string; e: number; b: number; s: Float64Array | null } = { name: '', e: NaN, b: NaN, s: null };
  const spreads = new Map<keyof GpuWindows, Float64Array>();
  for (const [field, name] of SPREAD_FIELDS) {
    // The frame's alone: made once, not again on every span the convergence re-reads.
    const s = ofFrame(c.f, `gpuSpread:${field}`, () => spread(c.f.gpus, field, c.f.grid.n));
    spreads.set(field, s);
    const e = medE(c, s);
    if (Number.isFinite(e) && !(best.e >= e)) best = { name, e, b: medB(c, s), s };
  }
  // vLLM's ITL buckets (10, 25, 50 ms) put a healthy median and a 25% slower one in the same bucket,
  // where interpolation cannot tell them apart; the histogram mean can.
  const itl = slice(c.f.itlMean, c.base).some(Number.isFinite) ? c.f.itlMean : c.f.itl50;
  const rItl = rE(c, itl);
  const rRun = rE(c, c.f.run);
  const rPlen = rE(c, c.f.plenMean);
  const flat = (x: number) => !Number.isFinite(x) || (x >= 0.8 && x <= 1.25);
  // The workload is judged by what comes in: arrivals and prompt length. Slower steps at the same arrivals
  // hold each request longer, so the batch grows by the slowdown (Little's law), and more once the slower
  // engine falls behind its arrivals: that growth is the straggler's consequence, not a bigger workload.
  // Only where arrivals aren't measured does the batch stand in for them, allowed to grow by the slowdown.
  // Fewer arrivals cannot slow a step (a day-long incident's evening, or arrivals inferred from
  // completions that the slower engine itself holds back): only more of them competes with a slow rank.
  const rLam = rE(c, c.f.lamIn);
  // More arrivals make bigger batches, and a bigger batch steps slower, but by less than it grew: where the
  // step slowed further than arrivals grew (the day's traffic ×1.3 beside one rank at 62% of its clock),
  // the arrivals cannot be what slowed it.
  const workloadFlat = Number.isFinite(rLam)
    ? (rLam <= 1.25 || rItl >= rLam) && flat(rPlen)
    : Number.isFinite(rRun) && (flat(rRun) || rRun <= 1.1 * rItl) && flat(rPlen);
  const th = c.cfg.causes.straggler_spread;
  // Dated where the ranks' speed parted (clock, else SM activity), where that spread reached the cut: a
  // temperature or power spread also grows through the heat soak that comes before a throttled rank slows.
  const speed = (['clk', 'smAct'] as const).map((f) => spreads.get(f)!).find((x) => slice(x, c.span).some((v) => v >= th)) ?? best.s;
  const onset = speed ? departureOnset(c, speed, 1, (i) => speed[i] >= th) ?? spanStart(c) : spanStart(c);
  // A rank whose process died (OOM, crash) sits idle beside the others: a spread, but not a slow rank.
  const deadFirst = [...events(c, EV.oom), ...events(c, EV.engineCrash)].filter((e) => e.ts_ms <= onset + c.f.grid.W).length;
  return {
    id: 'tp_straggler',
    missing: [],
    require: [
      cond(`r(itl${itl === c.f.itlMean ? ' mean' : '50'}) ≥ ${c.cfg.causes.straggler_itl_ratio}`, rItl, rItl >= c.cfg.causes.straggler_itl_ratio, c.cfg.causes.straggler_itl_ratio),
      cond('workload flat: arrivals r ≤ 1.25 (or below r(itl): the step slowed more than arrivals grew) and prompt length r within 0.8..1.25 (without arrivals, the batch within that or grown by no more than the slowdown)', `lam_in ${fmt(rLam)}, itl ${fmt(rItl)}, plen ${fmt(rPlen)}, run ${fmt(rRun)}`, workloadFlat),
      cond(`cross-rank spread ≥ ${th} in clock/temperature/power/sm_act`, `${best.name} ${fmt(best.e)}`, best.e >= th),
    ],
    support: [],
    veto: [
      // Or nearly: the spread must have grown by half the cut's excess over uniformity at least. Temperatures
      // parted ×1.146 in the baseline and ×1.150 in the span read as a straggler beside a LoRA thrash.
      cond(
        `the same spread already in the baseline (ranks were never uniform): ≥ ${th}, or within ${fmt(SPREAD_GREW * (th - 1))} of the span's`,
        `${fmt(best.b)} (span ${fmt(best.e)})`,
        best.b >= th || best.e - best.b < SPREAD_GREW * (th - 1),
      ),
      cond('an OOM or crash at or before the spread began (a dead rank idles, it does not straggle)', deadFirst, deadFirst > 0),
    ],
    evidence: [seriesEvidence(c, best.name || SIG.gpuSmClock, `cross-GPU spread ${fmt(best.e)} (baseline ${fmt(best.b)})`), seriesEvidence(c, SIG.latItl, `median ITL ×${fmt(rItl)}`)],
    onset_ms: onset,
  };
}
