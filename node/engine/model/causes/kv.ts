// KV-cache causes: exhaustion (preemption at a full pool), bloat (few requests fill it), block leak
// (the idle floor climbs), prefix-cache collapse (hit rate falls, prefill work rises).
import { max, median, min, ratio } from '../baseline';
import { oscillation } from '../oscillation';
import { monotonicity } from '../trend';
import {
  computedPromptTokens, cond, departureOnset, events, firstE, fmt, inSpan, maxE, medB, medE, missingInputs, notAssessable, rAny, rE, seriesEvidence, slice,
  type CauseContext, type Rule,
} from './context';
import { EV, SIG } from '../../../../common/names';

const LATENCY_OR_TOKENS = [SIG.latItl, SIG.latE2e, SIG.tokensGeneration, SIG.tokensGenerationRate, 'spans'];

/** Preemptions counted over the span: counter increase (rate × step per window) plus logged preemptions. */
function preemptions(c: CauseContext): number {
  let n = 0;
  for (let i = c.span[0]; i <= c.span[1]; i++) if (Number.isFinite(c.f.preempt[i])) n += (c.f.preempt[i] * c.f.grid.step) / 1000;
  return n + events(c, EV.preemption).filter((e) => inSpan(c, e.ts_ms)).length;
}

export const kvExhaustion: Rule = (c) => {
  const missing = missingInputs(c.f, [SIG.kvUsage, [SIG.kvPreemptions, 'events', SIG.reqWaiting], LATENCY_OR_TOKENS]);
  if (missing.length) return notAssessable('kv_exhaustion', missing);
  const cc = c.cfg.causes;
  const frac = medE(c, c.f.kvFrac);
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
        `r(itl), r(e2e), r(ttft) or r(queue) ≥ ${sym} (P99 or mean) OR r(gtok) ≤ ${cc.kv_tokens_ratio}`,
        `itl ${fmt(rItl)}, e2e ${fmt(rE2e)}, ttft ${fmt(rTtft)}, queue ${fmt(rQ)}, gtok ${fmt(rTok)}`,
        rItl >= sym || rE2e >= sym || rTtft >= sym || rQ >= sym || rTok <= cc.kv_tokens_ratio,
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
    onset_ms: departureOnset(c, c.f.kv, 1, (i) => c.f.kvFrac[i] >= cc.kv_full_share && (c.f.preempt[i] > 0 || c.f.wait[i] > cc.kv_blocked_wait)) ?? departureOnset(c, c.f.kv, 1, (i) => c.f.kvFrac[i] >= cc.kv_full_share),
  };
};

export const kvBloat: Rule = (c) => {
  const T = c.cfg.causes;
  const missing = missingInputs(c.f, [SIG.kvUsage, SIG.reqRunning, [SIG.reqPromptLen, SIG.reqGenLen, 'spans', SIG.tokensPrompt, SIG.tokensPromptRate]]);
  if (missing.length) return notAssessable('kv_bloat', missing);
  const kv = medE(c, c.f.kv);
  const run = medE(c, c.f.run);
  const runB = medB(c, c.f.run);
  const len = sumArrays(c.f.plenMean, c.f.glenMean);
  const rLen = ratio(medE(c, len), medB(c, len));
  const floor = idleFloor(c);
  const lastFloor = floor.v.length ? median(floor.v.slice(-3)) : NaN;
  // KV tokens each running request holds ÷ the tokens it has (prompt + output so far ≤ plen + glen).
  const held = new Float64Array(c.f.grid.n);
  for (let i = 0; i < held.length; i++) held[i] = c.f.run[i] > 0 && len[i] > 0 ? (c.f.kv[i] * c.f.kvCapacityTokens) / c.f.run[i] / len[i] : NaN;
  const heldE = medE(c, held);
  return {
    id: 'kv_bloat',
    missing: [],
    require: [
      cond(`kv ≥ ${T.kv_high} (median over the span)`, kv, kv >= T.kv_high, T.kv_high),
      cond(`run ≤ ${T.bloat_run_share}·median_B(run)`, `${fmt(run)} vs baseline ${fmt(runB)}`, run <= T.bloat_run_share * runB, T.bloat_run_share),
      cond(`r(plen + glen) ≥ ${T.bloat_len_ratio} OR KV tokens per running request ≥ ${T.bloat_held_ratio}× its tokens (plen + glen)`, `r(len) ${fmt(rLen)}, KV held ÷ tokens ${fmt(heldE)}`, rLen >= T.bloat_len_ratio || heldE >= T.bloat_held_ratio, T.bloat_len_ratio),
    ],
    support: [cond('KV growth mode', c.kv?.growth ?? null, c.kv?.growth === 'step' || c.kv?.growth === 'exponential')],
    veto: [cond(`kv floor at idle > ${T.block_leak_floor} (→ kv_block_leak)`, lastFloor, lastFloor > T.block_leak_floor, T.block_leak_floor)],
    evidence: [seriesEvidence(c, SIG.kvUsage, `KV ${fmt(kv)} with ${fmt(run)} running (baseline ${fmt(runB)})`), seriesEvidence(c, SIG.reqRunning, 'few requests hold the pool')],
    onset_ms: departureOnset(c, c.f.kv, 1, (i) => c.f.kv[i] >= c.cfg.causes.kv_high && c.f.run[i] <= 0.5 * runB),
  };
};

function sumArrays(a: Float64Array, b: Float64Array): Float64Array {
  const out = new Float64Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = (Number.isFinite(a[i]) ? a[i] : 0) + (Number.isFinite(b[i]) ? b[i] : 0) || NaN;
  return out;
}

/** KV usage in windows with nothing running or waiting: what the pool keeps when it should be empty. */
export function idleFloor(c: CauseContext): { t: number[]; v: number[] } {
  const t: number[] = [];
  const v: number[] = [];
  for (let i = 0; i < c.f.grid.n; i++) if (c.f.runMax[i] === 0 && (c.f.waitMax[i] === 0 || !Number.isFinite(c.f.waitMax[i])) && Number.isFinite(c.f.kv[i])) {
    t.push(c.f.t[i]);
    v.push(c.f.kv[i]);
  }
  return { t, v };
}

export const kvBlockLeak: Rule = (c) => {
  const T = c.cfg.causes;
  const missing = missingInputs(c.f, [SIG.kvUsage, SIG.reqRunning]);
  if (missing.length) return notAssessable('kv_block_leak', missing);
  const floor = idleFloor(c);
  const last = floor.v.length ? median(floor.v.slice(-3)) : NaN;
  const mono = monotonicity(floor.t, floor.v);
  const lateMin = floor.v.length ? min(floor.v.slice(Math.floor((floor.v.length * 2) / 3))) : NaN;
  const aborts = max(c.f.abort);
  return {
    id: 'kv_block_leak',
    missing: [],
    require: [
      cond(`kv floor (kv at run + wait = 0) ≥ ${T.block_leak_floor}`, last, last >= T.block_leak_floor, T.block_leak_floor),
      cond(`mono(floor, H) ≥ ${T.leak_mono}`, mono, mono >= T.leak_mono, T.leak_mono),
    ],
    support: [cond('aborts seen (finished_reason="abort")', aborts, aborts > 0), cond('idle windows measured', floor.v.length, floor.v.length >= 4)],
    veto: [cond(`kv returns to ~0 when idle (late idle minimum ≤ ${T.block_leak_idle_min})`, lateMin, lateMin <= T.block_leak_idle_min, T.block_leak_idle_min)],
    evidence: floor.t.length ? [seriesEvidence(c, SIG.kvUsage, `idle KV floor rises to ${fmt(last)}`, floor.t[0], floor.t[floor.t.length - 1] + c.f.grid.W)] : [],
    onset_ms: leakOnset(c, floor),
  };
};

/**
 * The first step of the staircase: the first idle window whose floor sits above the baseline's idle
 * floor, with the floor never back down to it afterwards. The blocks were lost during the busy
 * stretch before that window, so the leak is dated at the end of the idle stretch preceding it.
 */
function leakOnset(c: CauseContext, floor: { t: number[]; v: number[] }): number | null {
  const baseEnd = c.f.t[c.base[1]] + c.f.grid.W;
  const before = floor.v.filter((_, k) => floor.t[k] < baseEnd);
  // An idle pool reads the same blocks every scrape, so any rise above the baseline's highest idle floor is a step.
  const level = (before.length ? max(before) : 0) + 0.002;
  let k = floor.v.length;
  while (k > 0 && floor.v[k - 1] > level) k--;
  if (k >= floor.v.length) return null;
  if (k === 0) return floor.t[0];
  return floor.t[k - 1] + c.f.grid.W;
}

export const prefixCacheCollapse: Rule = (c) => {
  const T = c.cfg.causes;
  const missing = missingInputs(c.f, [[SIG.kvPrefixQueries, SIG.kvPrefixHitRate], [SIG.latTtft, 'spans'], [SIG.tokensPrompt, SIG.tokensPromptRate]]);
  if (missing.length) return notAssessable('prefix_cache_collapse', missing);
  const hitB = medB(c, c.f.hit);
  const hitE = medE(c, c.f.hit);
  const rTtft = rAny(c, c.f.ttft99, c.f.ttftMean);
  const rComp = rE(c, computedPromptTokens(c));
  const rPlen = rE(c, c.f.plenMean);
  return {
    id: 'prefix_cache_collapse',
    missing: [],
    require: [
      cond(`median_B(hit) ≥ ${T.prefix_hit_base_min}`, hitB, hitB >= T.prefix_hit_base_min, T.prefix_hit_base_min),
      cond(`hit_W ≤ ${T.prefix_hit_fall}·median_B(hit)`, hitE, hitE <= T.prefix_hit_fall * hitB, T.prefix_hit_fall),
      cond(`r(ttft) ≥ ${T.prefix_ttft_ratio} (P99 or mean)`, rTtft, rTtft >= T.prefix_ttft_ratio, T.prefix_ttft_ratio),
      cond(`r(computed_ptok) ≥ ${T.prefix_computed_ratio}`, rComp, rComp >= T.prefix_computed_ratio, T.prefix_computed_ratio),
    ],
    support: [],
    // Preemptions that follow the collapse (recomputed prompts fill the pool) are its consequence: the
    // chain orders the two by onset (rank.ts), no veto.
    veto: [cond(`prompt length up ≥ ${T.prefix_prompt_veto}× (→ long_prompt_interference)`, rPlen, rPlen >= T.prefix_prompt_veto, T.prefix_prompt_veto)],
    evidence: [seriesEvidence(c, SIG.kvPrefixHits, `prefix hit rate ${fmt(hitE)} vs baseline ${fmt(hitB)}`), seriesEvidence(c, SIG.latTtft, `TTFT ×${fmt(rTtft)}`)],
    onset_ms: firstE(c, (i) => c.f.hit[i] <= T.prefix_hit_fall * hitB),
  };
};
