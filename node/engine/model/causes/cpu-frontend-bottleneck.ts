// CPU/frontend bottleneck: tokenizer, detokenizer or preprocessing on the CPU starve the GPU.
import { SIG } from '../../../../common/names';
import { ratio } from '../baseline';
import {
  computedPromptTokens, cond, defineCause, departureOnset, fires, fmt, maxE, medB, medE, missingInputs, notAssessable, rAny, rE, seriesEvidence, type CauseContext, type RuleResult,
} from './context';
import { isTgi, ofFrame } from './shared';
import { trafficSurge } from './traffic-surge';

/** How far a pool may outgrow the batch and still count as filled by it (window noise in both medians). */
const KV_WITH_BATCH = 1.1;

export const cpuFrontendBottleneck = defineCause({
  id: 'cpu_frontend_bottleneck',
  level: 5,
  upstream: ['traffic_surge', 'deploy_regression', 'host_memory_leak'],
  rule,
});

/** Util that fell no further than this share of the batch's fall is the batch's doing. */
const LOAD_EXPLAINS = 0.9;

/** GPU activity grown this far (ratio) for output that grew no more than SAME_OUTPUT is a GPU working harder per token. */
const BUSIER = 1.25;
const SAME_OUTPUT = 1.1;

/** The least growth of the front gap that counts, s: below it the gap is tokenisation jitter, not a starved frontend. */
const FRONT_GAP_MIN_S = 0.05;

function rule(c: CauseContext): RuleResult {
  const T = c.cfg.causes;
  // The GPU side (SM active or util falling) or the host side (TTFT growing beyond queue + prefill) can
  // show it; either will do.
  const gpuSide = missingInputs(c.f, [[SIG.gpuSmActive, SIG.gpuUtil, SIG.gpuGrActive]]);
  const hostSide = missingInputs(c.f, [SIG.latTtft, [SIG.latQueue, SIG.latPrefill]]);
  const routerSide = missingInputs(c.f, [SIG.latValidation]);
  const missing = missingInputs(c.f, [[SIG.reqWaiting, SIG.latTtft, SIG.latItl, 'spans']]);
  if (gpuSide.length && hostSide.length && routerSide.length) missing.push(`${gpuSide.join('; ')}, or ${hostSide.join(' and ')}`);
  if (missing.length) return notAssessable('cpu_frontend_bottleneck', missing);
  const sm = medE(c, c.f.smAct);
  const rSm = rE(c, c.f.smAct);
  const rUtil = rE(c, c.f.util);
  const wait = medE(c, c.f.wait);
  const waitB = medB(c, c.f.wait);
  // A starved engine is slow wherever the host sits in the loop: tokenizing (TTFT), stepping (ITL), or both (e2e).
  const rSymMean = rAny(c, c.f.ttftMean, c.f.itlMean, c.f.e2eMean);
  const rSym = rAny(c, c.f.ttft99, c.f.ttftMean, c.f.itl99, c.f.itlMean, c.f.e2eMean);
  const kv = medE(c, c.f.kv);
  // The pool is not the limit: below frontend_kv_max, or short of kv_high where it filled only as far as the
  // batch grew (a host gap in every step keeps each request, and its blocks, longer: 0.63 → 0.86 with the
  // batch ×1.46). A pool that outgrew the batch holds bigger requests (kv_exhaustion's reading).
  const rKv = rE(c, c.f.kv);
  const rRun = rE(c, c.f.run);
  const rGtok = rE(c, c.f.gtok);
  // Where no TTFT is exported but the router times its own work before queueing a request (TGI's validation:
  // tokenizing and checking it), that time is the front gap itself, read directly; the rise it must carry is
  // then e2e's. A full pool cannot hide in it: TGI books the wait for room as queue time, not validation.
  const routerGap = !c.f.ttftMean.some(Number.isFinite) && c.f.validationMean.some(Number.isFinite);
  // Where the engine exports no queue time (SGLang without its queue histogram), TTFT less prefill still holds
  // the wait in the engine's own queue wherever requests wait there: no front gap is read in those windows (a
  // spec-decoding slowdown whose queue grew ×4 read as a frontend whose gap carried all of TTFT's rise).
  const queueTimed = c.f.queueMean.some(Number.isFinite);
  const gap = ofFrame(c.f, 'frontGap', () => {
    const x = new Float64Array(c.f.grid.n);
    for (let i = 0; i < x.length; i++)
      x[i] = routerGap
        ? c.f.validationMean[i]
        : !queueTimed && c.f.waitMax[i] > 0
          ? NaN
          : c.f.ttftMean[i] - (Number.isFinite(c.f.queueMean[i]) ? c.f.queueMean[i] : 0) - (Number.isFinite(c.f.prefillMean[i]) ? c.f.prefillMean[i] : 0);
    return x;
  });
  const rGap = rE(c, gap);
  // "Starve the GPU" is a change: an engine that idled at SM active 0.4 before the incident as after it
  // is lightly loaded, not starved. The SM-active level must also have fallen as far as util's ratio.
  // Where SM activity is read it decides: util (any kernel running) is the coarser reading of the same thing,
  // and on bursty traffic the median of its on/off windows jumps between the two modes (util ×0.69 beside
  // SM active ×0.91 on a healthy fleet whose bursts came and went).
  const hasSm = Number.isFinite(sm);
  const starved = hasSm ? sm <= T.frontend_sm_max && rSm <= T.frontend_util_ratio : rUtil <= T.frontend_util_ratio;
  // Less work is not starvation: where the batch thinned as far as util fell and nothing waits, the GPU idles
  // because traffic did, unless every request got slower (a mean). A thin engine's P99 is its slowest request
  // or two (at 0.5 req/s TTFT P99 read ×1.8 with its mean flat, util ×0.55 beside the batch ×0.55).
  const thinned = rRun <= T.frontend_util_ratio && rUtil >= LOAD_EXPLAINS * rRun && !(wait > waitB);
  const symptom = thinned ? rSymMean : rSym;
  // The host side read directly: the serving process's CPU (prometheus_client's process_cpu_seconds_total)
  // pinned at one core where it was not in the baseline. Tokenizing, detokenizing and the engine loop are
  // Python under one GIL, so a CPU-bound frontend sits at one core however many the host has — where no
  // GPU telemetry says the GPU idles, and the front gap stays small because the lost time is between steps.
  const cpu = medE(c, c.f.hostCpu);
  const cpuB = medB(c, c.f.hostCpu);
  const pinned = cpu >= T.frontend_cpu_pinned && cpuB < T.frontend_cpu_pinned;
  // The front gap carries the new wait: a gap of tens of milliseconds in the baseline grows by orders of
  // magnitude when a queue inside the engine swells (queue time is booked as requests leave the queue, TTFT
  // as their first token lands), yet the engine's queue still holds most of the rise in TTFT. A starved
  // frontend holds requests before the engine sees them, so most of TTFT's rise is the gap itself.
  const dGap = medE(c, gap) - medB(c, gap);
  const dTtft = routerGap ? medE(c, c.f.e2eMean) - medB(c, c.f.e2eMean) : medE(c, c.f.ttftMean) - medB(c, c.f.ttftMean);
  // And it is a wait someone feels: a gap of 1 ms grown to 5 ms is ×5 and nothing (tokenisation jitter).
  const frontGap = rGap >= T.frontend_gap_ratio && !(dGap < 0.5 * dTtft) && dGap >= FRONT_GAP_MIN_S;
  // The pool is not the limit either where the API server is shown to be, in both of its own readings: its
  // process pinned on a core and the time before the engine sees a request carrying the TTFT rise. Its slower
  // steps keep every request, and its blocks, longer, and the pool fills: kv_exhaustion is then the
  // consequence, in the chain (a host gap of 53 ms a step filled a pool to 0.98 beside the CPU at 0.98 core
  // and TTFT beyond queue and prefill ×3000).
  // Where the engine exports no KV usage (TGI), the GPU's own reading stands for it: a pool that limits the
  // engine keeps its GPU busy (a full batch, preemptions recomputed), so an idling GPU says the pool is not
  // the limit; so does the API server shown in both its readings, as above. A front gap alone, beside a busy
  // GPU, could be a queue at a full pool (a request preempted before its first token waits again outside its
  // queue time): not assumed — except in TGI, which never preempts and books every wait for room as queue
  // time, so a gap beyond its queue time is the frontend's (an API server admitting 57% of arrivals, TTFT +60 s
  // with TGI's queue time flat, read "unexplained").
  const kvKnown = Number.isFinite(kv);
  const poolFree =
    (kvKnown ? kv <= T.frontend_kv_max || (kv < T.kv_high && rKv <= KV_WITH_BATCH * rRun) : starved) || (pinned && frontGap) || (routerGap && frontGap) || (!kvKnown && frontGap && queueTimed && isTgi(c));
  const down = rGtok <= T.frontend_down_ratio;
  const rBusy = hasSm ? rSm : rUtil;
  const busier = rBusy >= BUSIER && rGtok <= SAME_OUTPUT;
  const busy = c.f.smAct.some(Number.isFinite) ? c.f.smAct : c.f.util;
  const busyB = medB(c, busy);
  // Prompt tokens the GPU computed, after the prefix cache: a cache that stops hitting multiplies prefill work.
  const rWork = rAny(c, c.f.plenMean, c.f.plenP90, c.f.ptok, computedPromptTokens(c));
  const loraE = maxE(c, c.f.loraActive);
  // Demand beyond what the engine serves (the surge rule holds: arrivals up, requests piling up inside a
  // full engine, the queue carrying the latency): the engine, not the frontend, is the limit.
  const demand = fires(trafficSurge.rule(c));
  const loraCap = T.max_loras ?? medE(c, c.f.loraMax);
  const onBusy = busy.some(Number.isFinite) ? departureOnset(c, busy, -1, (i) => busy[i] <= 0.8 * busyB) : null;
  return {
    id: 'cpu_frontend_bottleneck',
    missing: [],
    require: [
      cond(
        `GPU starved: sm_act ≤ ${T.frontend_sm_max} (and fell: r(sm_act) ≤ ${T.frontend_util_ratio}), where no SM activity is read r(util) ≤ ${T.frontend_util_ratio}; OR r(front_gap = TTFT − queue − prefill, or the router's validation time where no TTFT is exported) ≥ ${T.frontend_gap_ratio} carrying ≥ half of TTFT's (else e2e's) rise; OR the serving process's CPU pinned ≥ ${T.frontend_cpu_pinned} core (below it in the baseline)`,
        `sm_act ${fmt(sm)} (×${fmt(rSm)}), r(util) ${fmt(rUtil)}, r(front_gap${routerGap ? ' = validation' : ''}) ${fmt(rGap)} (Δ ${fmt(dGap)} s of Δ${routerGap ? 'e2e' : 'TTFT'} ${fmt(dTtft)} s), process CPU ${fmt(cpu)} (baseline ${fmt(cpuB)})`,
        starved || frontGap || pinned,
        T.frontend_util_ratio,
      ),
      cond(
        `wait > 0 (above the baseline) OR r(ttft, itl or e2e) ≥ ${T.frontend_ttft_ratio} (a mean where the batch thinned as far as util fell: r(run) ≤ ${T.frontend_util_ratio} and r(util) ≥ ${LOAD_EXPLAINS}·r(run))`,
        `wait ${fmt(wait)} (baseline ${fmt(waitB)}), r(latency) ${fmt(rSym)}, mean ${fmt(rSymMean)}${thinned ? `, batch thinned ×${fmt(rRun)}` : ''}`,
        (wait > 0 && !(wait <= waitB)) || symptom >= T.frontend_ttft_ratio,
        T.frontend_ttft_ratio,
      ),
      cond(
        `kv ≤ ${T.frontend_kv_max}, OR kv < ${T.kv_high} having grown no more than the batch (r(kv) ≤ ${KV_WITH_BATCH}·r(run)), OR the process CPU pinned and the front gap carrying TTFT's rise (the full pool their consequence); where no KV usage is exported, the GPU starved or that; OR the router's own validation time carrying the rise (a wait for room is queue time)`,
        kvKnown ? `kv ${fmt(kv)} (×${fmt(rKv)}, run ×${fmt(rRun)})` : `no KV usage exported; GPU starved ${starved}${routerGap ? `, router's validation carrying the rise ${frontGap}` : ''}`,
        poolFree,
        T.frontend_kv_max,
      ),
    ],
    support: [
      cond(`r(front_gap) ≥ ${T.frontend_gap_ratio} (TTFT − queue − prefill, or the router's validation time) and the gap ≥ half of TTFT's (else e2e's) rise`, `×${fmt(rGap)}, Δgap ${fmt(dGap)} s of Δ${routerGap ? 'e2e' : 'TTFT'} ${fmt(dTtft)} s`, frontGap),
      cond('GPU starved', starved, starved),
      cond(`serving process CPU pinned (≥ ${T.frontend_cpu_pinned} core)`, `${fmt(cpu)} (baseline ${fmt(cpuB)})`, pinned, T.frontend_cpu_pinned),
    ],
    veto: [
      cond('GPU-bound: sm_act ≥ 0.8 and kv ≥ 0.9', `sm_act ${fmt(sm)}, kv ${fmt(kv)}`, sm >= 0.8 && kv >= 0.9),
      cond(`engine not serving (r(gtok) ≤ ${T.frontend_down_ratio}): an idle GPU behind a crash or hang is not a starved one`, rGtok, down, T.frontend_down_ratio),
      // TTFT outgrowing queue + prefill is also what longer prompts (chunked prefill interleaved with
      // decodes) and adapter loads do inside the engine: those are the engine's work, not a starved GPU.
      cond(`the engine's work grew: prompt length, prompt tokens/s or computed (uncached) prompt tokens/s ≥ ${T.prefix_prompt_veto}× (→ long_prompt_interference, prefix_cache_collapse)`, rWork, rWork >= T.prefix_prompt_veto, T.prefix_prompt_veto),
      cond('more LoRA adapters active than slots (→ lora_thrash)', `${fmt(loraE)} > ${fmt(loraCap)}`, loraE > loraCap),
      cond('a traffic surge holds: arrivals up, requests piling up inside a full engine, the queue carrying the latency (→ traffic_surge)', demand, demand),
      // A starved GPU idles more: one busier than before for no more tokens spends longer on each of them, the
      // engine's own steps slowed (a kernel or a build that regressed, graphs no longer replayed). TTFT then
      // outgrows the queue by the slower prefill it holds, which reads as a front gap where no prefill time is
      // exported (SGLang: SM active ×1.53, tokens ×0.94, after an upgrade).
      cond(
        `the GPU busier for no more tokens: r(sm_act, else util) ≥ ${BUSIER} with r(gtok) ≤ ${SAME_OUTPUT} (the engine's steps slowed → deploy_regression, cuda_graph_fallback)`,
        `×${fmt(rBusy)}, tokens ×${fmt(rGtok)}`,
        busier,
      ),
    ],
    evidence: [
      ...(busy.some(Number.isFinite) ? [seriesEvidence(c, c.f.have.has(SIG.gpuSmActive) ? SIG.gpuSmActive : SIG.gpuUtil, `GPU ${c.f.have.has(SIG.gpuSmActive) ? `SM active ${fmt(sm)}` : `util ×${fmt(rUtil)}`} while requests wait`)] : []),
      ...(Number.isFinite(rGap) ? [routerGap ? seriesEvidence(c, SIG.latValidation, `router's validation time ×${fmt(rGap)}`) : seriesEvidence(c, SIG.latTtft, `TTFT beyond queue and prefill ×${fmt(rGap)}`)] : []),
      ...(pinned ? [seriesEvidence(c, SIG.hostCpuSeconds, `serving process at ${fmt(cpu)} CPU core (baseline ${fmt(cpuB)})`)] : []),
    ],
    // The earlier of its two readings: the GPU idling, and the time before the engine sees a request. A
    // tokenizer-bound frontend held requests back from the onset while util, noisy at 0.35, first read
    // below 0.8× its baseline 25 minutes later.
    onset_ms: earliest(onBusy, departureOnset(c, gap, 1, (i) => ratio(gap[i], medB(c, gap)) >= T.frontend_gap_ratio)),
  };
}

/** The earlier of two times, either of which may be unknown (null). */
function earliest(a: number | null, b: number | null): number | null {
  return a === null ? b : b === null ? a : Math.min(a, b);
}
