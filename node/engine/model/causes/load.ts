// Demand-side causes: a traffic surge (arrivals exceed the service rate), long prompts interfering with
// decodes, and workload drift (longer outputs: capacity planning, not a fault).
import { ratio } from '../baseline';
import { windowAt } from '../windows';
import {
  cond, departureOnset, engineFull, fmt, maxE, medB, medE, missingInputs, notAssessable, rAny, rE, seriesEvidence, slice,
  type CauseContext, type Rule,
} from './context';
import { SIG, countOf } from '../../../../common/names';

export const trafficSurge: Rule = (c) => {
  const T = c.cfg.causes;
  const missing = missingInputs(c.f, [[SIG.reqFinished, SIG.latE2e, countOf(SIG.latE2e)], SIG.reqWaiting, [SIG.latQueue, 'spans'], [SIG.latE2e, 'spans']]);
  if (missing.length) return notAssessable('traffic_surge', missing);
  const rLam = rE(c, c.f.lamIn);
  const { waitSlope, runAtMax, kvHigh } = engineFull(c);
  const rQ = rE(c, c.f.q99);
  const dQ = medE(c, c.f.q99) - medB(c, c.f.q99);
  const dE = medE(c, c.f.e2e99) - medB(c, c.f.e2e99);
  const busy = c.f.smAct.some(Number.isFinite) ? c.f.smAct : c.f.util;
  const util = medE(c, busy);
  // Starved is a change, as cpu_frontend_bottleneck reads it: an engine that idled at 0.4 before the surge
  // as during it is lightly loaded per step, not starved.
  const starved = util <= T.frontend_sm_max && rE(c, busy) <= T.frontend_util_ratio;
  return {
    id: 'traffic_surge',
    missing: [],
    require: [
      cond(`r(lam_in) ≥ ${T.surge_arrival_ratio}`, rLam, rLam >= T.surge_arrival_ratio, T.surge_arrival_ratio),
      cond('slope(wait) > 0 (per min, up to its peak)', waitSlope, waitSlope > 0),
      cond(`run at max OR kv ≥ ${c.cfg.causes.kv_high}`, `run at max ${runAtMax}, max kv ${fmt(maxE(c, c.f.kv))}`, runAtMax || kvHigh, c.cfg.causes.kv_high),
      cond(`r(q99) ≥ ${T.surge_queue_ratio}`, rQ, rQ >= T.surge_queue_ratio, T.surge_queue_ratio),
      cond(`Δq99 ≥ ${T.surge_queue_share}·Δe2e99 (s)`, `Δq99 ${fmt(dQ)}, Δe2e99 ${fmt(dE)}`, dQ >= T.surge_queue_share * dE && dQ > 0, T.surge_queue_share),
    ],
    support: [],
    veto: [
      cond(`r(lam_in) < ${T.surge_arrival_veto} (capacity loss instead)`, rLam, rLam < T.surge_arrival_veto, T.surge_arrival_veto),
      cond(`GPU starved: busy ≤ ${T.frontend_sm_max} and fell to ≤ ${T.frontend_util_ratio}× its baseline (→ cpu_frontend_bottleneck)`, `${fmt(util)} (×${fmt(rE(c, busy))})`, starved, T.frontend_sm_max),
    ],
    evidence: [seriesEvidence(c, SIG.reqWaiting, `queue grows ${fmt(waitSlope)}/min; arrivals ×${fmt(rLam)}`), seriesEvidence(c, SIG.latQueue, `P99 queue time ×${fmt(rQ)}`)],
    onset_ms: departureOnset(c, c.f.lamIn, 1, (i) => ratio(c.f.lamIn[i], medB(c, c.f.lamIn)) >= T.surge_arrival_ratio, 2),
  };
};

export const longPromptInterference: Rule = (c) => {
  const T = c.cfg.causes;
  const missing = missingInputs(c.f, [[SIG.reqPromptLen, 'spans', SIG.tokensPrompt, SIG.tokensPromptRate], [SIG.latTtft, 'spans']]);
  if (missing.length) return notAssessable('long_prompt_interference', missing);
  const rP90 = rE(c, c.f.plenP90);
  const rLam = rE(c, c.f.lamIn);
  // Prompt tokens per request: prompt tokens/s grow with arrivals too, and a few more requests of the
  // same length are load (a surge, KV pressure), not longer prompts.
  const rPtok = rE(c, c.f.ptok) / (rLam > 1 ? rLam : 1);
  const rTtft = rAny(c, c.f.ttft99, c.f.ttftMean);
  const hitB = medB(c, c.f.hit);
  const hitCollapse = hitB >= 0.3 && medE(c, c.f.hit) <= 0.5 * hitB && !(rE(c, c.f.plenMean) >= 1.2);
  const bimodal = rE(c, c.f.itl99) / rE(c, c.f.itl50);
  return {
    id: 'long_prompt_interference',
    missing: [],
    require: [
      cond(`r(plen_p90) ≥ ${T.long_prompt_ratio} OR r(ptok) ÷ max(1, r(lam_in)) ≥ ${T.long_prompt_ratio}`, `plen_p90 ${fmt(rP90)}, ptok per arrival ${fmt(rPtok)}`, rP90 >= T.long_prompt_ratio || rPtok >= T.long_prompt_ratio, T.long_prompt_ratio),
      cond(`r(lam_in) ≤ ${T.surge_arrival_ratio}`, rLam, Number.isFinite(rLam) ? rLam <= T.surge_arrival_ratio : false, T.surge_arrival_ratio),
      cond(`r(ttft) ≥ ${T.long_prompt_ttft_ratio} (P99 or mean)`, rTtft, rTtft >= T.long_prompt_ttft_ratio, T.long_prompt_ttft_ratio),
    ],
    support: [cond('spiky ITL: r(itl99) ÷ r(itl50) ≥ 1.5', bimodal, bimodal >= 1.5)],
    // A preemption storm is what long prompts do to a full pool: it goes in the chain (→ kv_exhaustion), not a veto.
    veto: [cond('hit-rate collapse with unchanged prompts (→ prefix_cache_collapse)', hitCollapse, hitCollapse)],
    evidence: [seriesEvidence(c, c.f.have.has(SIG.reqPromptLen) ? SIG.reqPromptLen : SIG.tokensPrompt, `prompt p90 ×${fmt(rP90)}, prompt tokens/s ×${fmt(rPtok)}`), seriesEvidence(c, SIG.latTtft, `TTFT ×${fmt(rTtft)}`)],
    // Dated on prompt tokens/s, which count at prefill: the prompt-length histogram counts a request when it
    // finishes, a whole request later.
    onset_ms: departureOnset(c, c.f.ptok, 1, (i) => ratio(c.f.ptok[i], medB(c, c.f.ptok)) >= 1.5 || ratio(c.f.plenP90[i], medB(c, c.f.plenP90)) >= 2),
  };
};

/**
 * Where output lengths began to grow, dated on the mean length where there is one (a p90 read off
 * buckets moves in bucket-sized jumps). Length histograms count a request when it finishes, so the
 * departure is moved back by the mean e2e latency of the requests finishing then: they arrived that much earlier.
 */
function lengthOnset(c: CauseContext, len: Float64Array): number | null {
  const t = departureOnset(c, len, 1, (i) => ratio(len[i], medB(c, len)) >= 1.3, 2);
  if (t === null) return null;
  const e2e = c.f.e2eMean[windowAt(c.f.grid, t)];
  return Number.isFinite(e2e) ? Math.max(c.f.t[c.base[1]] + c.f.grid.W, t - e2e * 1000) : t;
}

export const workloadDrift: Rule = (c) => {
  const T = c.cfg.causes;
  const missing = missingInputs(c.f, [[SIG.reqGenLen, 'spans', SIG.tokensGeneration, SIG.tokensGenerationRate], SIG.latItl, [SIG.latE2e, 'spans']]);
  if (missing.length) return notAssessable('workload_drift', missing);
  const hasP90 = slice(c.f.glenP90, c.base).some(Number.isFinite);
  const glen = hasP90 ? c.f.glenP90 : c.f.glenMean;
  const rGlen = rE(c, glen);
  const rItl = rE(c, c.f.itl50);
  const rE2e = rE(c, c.f.e2e99);
  const onsetLen = slice(c.f.glenMean, c.base).some(Number.isFinite) ? c.f.glenMean : glen;
  return {
    id: 'workload_drift',
    missing: [],
    require: [
      cond(`r(glen_${hasP90 ? 'p90' : 'mean'}) ≥ ${T.drift_gen_ratio}`, rGlen, rGlen >= T.drift_gen_ratio, T.drift_gen_ratio),
      cond(`r(itl50) ≤ ${T.drift_itl_max}`, rItl, rItl <= T.drift_itl_max, T.drift_itl_max),
      cond(`r(e2e99) ≥ ${T.drift_e2e_ratio}`, rE2e, rE2e >= T.drift_e2e_ratio, T.drift_e2e_ratio),
    ],
    support: [],
    veto: [],
    evidence: [seriesEvidence(c, c.f.have.has(SIG.reqGenLen) ? SIG.reqGenLen : SIG.tokensGeneration, `outputs ×${fmt(rGlen)} longer; ITL ×${fmt(rItl)}`)],
    onset_ms: lengthOnset(c, onsetLen),
  };
};
