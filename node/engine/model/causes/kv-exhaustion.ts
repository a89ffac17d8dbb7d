// KV-cache exhaustion: the pool is full, and running requests are preempted or new ones held waiting.
import { EV, SIG } from '../../../../common/names';
import { oscillation } from '../oscillation';
import { rangeMedian } from '../range-stats';
import {
  cond, defineCause, departureOnset, events, fmt, inSpan, longestRun, maxE, medB, medE, missingInputs, notAssessable, rAny, rE, seriesEvidence, slice, type CauseContext, type RuleResult,
} from './context';

export const kvExhaustion = defineCause({
  id: 'kv_exhaustion',
  level: 6,
  // cuda_graph_fallback: eager steps slow every sequence, so more of them are in flight at once, each holding its KV.
  // host_memory_leak: the API server killed at its memory limit comes back to the backlog and the clients'
  // retries at once, and they fill the pool.
  upstream: ['traffic_surge', 'workload_drift', 'kv_block_leak', 'kv_bloat', 'long_prompt_interference', 'prefix_cache_collapse', 'cuda_graph_fallback', 'host_memory_leak'],
  rule,
});

const LATENCY_OR_TOKENS = [SIG.latItl, SIG.latE2e, SIG.tokensGeneration, SIG.tokensGenerationRate, 'spans'];

/** Preemptions counted over the span: counter increase (rate × step per window) plus logged preemptions. */
function preemptions(c: CauseContext): number {
  let n = 0;
  for (let i = c.span[0]; i <= c.span[1]; i++) if (Number.isFinite(c.f.preempt[i])) n += (c.f.preempt[i] * c.f.grid.step) / 1000;
  return n + events(c, EV.preemption).filter((e) => inSpan(c, e.ts_ms)).length;
}

/**
 * The median share of samples at a full pool per window: over the span, or over its stretch from where the
 * pool first filled to its end, where that stretch lasts FILLED_MIN_MS. Longer conversations fill a pool
 * over minutes, and a recording that ends minutes after it filled has the span's first half still
 * filling (a pool full for its last 4 of 9 minutes read as never full).
 */
function fullShare(c: CauseContext): number {
  const whole = medE(c, c.f.kvFrac);
  let first = -1;
  for (let i = c.span[0]; i <= c.span[1]; i++) if (c.f.kvFrac[i] >= c.cfg.causes.kv_full_share) {
    first = i;
    break;
  }
  if (first < 0 || c.f.t[c.span[1]] + c.f.grid.W - c.f.t[first] < FILLED_MIN_MS) return whole;
  const since = rangeMedian(c.f.kvFrac, [first, c.span[1]]);
  return Number.isFinite(whole) && whole >= since ? whole : since;
}

/** How long a pool must have stood full to the span's end for that stretch alone to count. */
const FILLED_MIN_MS = 3 * 60_000;

function rule(c: CauseContext): RuleResult {
  const missing = missingInputs(c.f, [SIG.kvUsage, [SIG.kvPreemptions, 'events', SIG.reqWaiting], LATENCY_OR_TOKENS]);
  if (missing.length) return notAssessable('kv_exhaustion', missing);
  const cc = c.cfg.causes;
  // A window where the pool was full, and one where it was full and held requests back.
  const fullAt = (i: number) => c.f.kvFrac[i] >= cc.kv_full_share;
  const blockedAt = (i: number) => fullAt(i) && (c.f.preempt[i] > 0 || c.f.wait[i] > cc.kv_blocked_wait);
  const frac = fullShare(c);
  const pre = preemptions(c);
  // A full pool shows as preemptions where running sequences outgrow it (vLLM recomputes, SGLang
  // retracts) or, where the scheduler admits only what fits (vLLM V1 at long prompts, TGI's token
  // budget), as requests left waiting while the pool is full: either way the pool is the bottleneck.
  const waitE = medE(c, c.f.wait);
  const waitB = medB(c, c.f.wait);
  const blocked = waitE > Math.max(cc.kv_blocked_wait, 2 * (Number.isFinite(waitB) ? waitB : 0));
  const rItl = rAny(c, c.f.itl99, c.f.itlMean);
  const rE2e = rAny(c, c.f.e2e99, c.f.e2eMean);
  const rQ = rAny(c, c.f.q99, c.f.queueMean);
  const rTtft = rAny(c, c.f.ttft99, c.f.ttftMean);
  const rTok = rE(c, c.f.gtok);
  // Where no latency is measured at all (an engine read from its periodic log lines alone), requests left
  // waiting at a full pool are the users' latency: each waits its turn in that queue (Little's law).
  const noLatency = ![rItl, rE2e, rQ, rTtft].some(Number.isFinite);
  const queuedUnmeasured = noLatency && blocked;
  const sym = cc.kv_symptom_ratio;
  const kvMax = maxE(c, c.f.kvMax);
  const full = cc.kv_full;
  const rPtok = rE(c, c.f.ptok);
  const rLam = rE(c, c.f.lamIn);
  return {
    id: 'kv_exhaustion',
    missing: [],
    require: [
      cond(`frac(kv ≥ ${full}, W) ≥ ${cc.kv_full_share} (median over the span)`, frac, frac >= cc.kv_full_share, cc.kv_full_share),
      cond(`preemptions in the span > 0, OR requests waiting at a full pool (wait > max(${cc.kv_blocked_wait}, 2× the baseline))`, `preemptions ${fmt(pre)}, wait ${fmt(waitE)} (baseline ${fmt(waitB)})`, pre > 0 || blocked),
      cond(
        `r(itl), r(e2e), r(ttft) or r(queue) ≥ ${sym} (P99 or mean) OR r(gtok) ≤ ${cc.kv_tokens_ratio} OR, with no latency measured, requests waiting at the full pool`,
        `itl ${fmt(rItl)}, e2e ${fmt(rE2e)}, ttft ${fmt(rTtft)}, queue ${fmt(rQ)}, gtok ${fmt(rTok)}${noLatency ? `, waiting ${fmt(waitE)}` : ''}`,
        rItl >= sym || rE2e >= sym || rTtft >= sym || rQ >= sym || rTok <= cc.kv_tokens_ratio || queuedUnmeasured,
        sym,
      ),
    ],
    support: [
      cond('run/wait see-saw: osc(run) ≥ 0.4', oscillation(slice(c.f.run, c.span)), oscillation(slice(c.f.run, c.span)) >= 0.4),
      cond('prompt tokens/s up with flat arrivals (recompute): r(ptok) ≥ 1.2 AND r(lam_in) ≤ 1.1', `ptok ${fmt(rPtok)}, lam_in ${fmt(rLam)}`, rPtok >= 1.2 && rLam <= 1.1),
      cond('KV usage at its plateau (share of windows ≥ full)', c.kv?.plateau_share ?? null, (c.kv?.plateau_share ?? 0) >= 0.5),
      cond('KV growth mode', c.kv?.growth ?? null, c.kv?.growth === 'step' || c.kv?.growth === 'exponential'),
    ],
    veto: [cond(`max kv < ${cc.kv_max_veto}`, kvMax, kvMax < cc.kv_max_veto, cc.kv_max_veto)],
    evidence: [
      seriesEvidence(c, SIG.kvUsage, `KV usage ≥ ${full} in a median ${(frac * 100).toFixed(0)}% of the samples per window`),
      pre > 0 ? seriesEvidence(c, SIG.kvPreemptions, `${Math.round(pre)} preemptions`) : seriesEvidence(c, SIG.reqWaiting, `${fmt(waitE)} requests waiting at a full pool`),
      ...(c.f.have.has(SIG.latItl) ? [seriesEvidence(c, SIG.latItl, `ITL ×${fmt(rItl)} the baseline`)] : []),
    ],
    onset_ms: departureOnset(c, c.f.kv, 1, blockedAt) ?? departureOnset(c, c.f.kv, 1, fullAt),
    // Where the pool began its longest full stretch: a pool near full in the baseline fills for a window now and then.
    manifest_ms: longestRun(c, (i) => (Number.isFinite(c.f.kvFrac[i]) ? fullAt(i) : null)).start,
  };
}
