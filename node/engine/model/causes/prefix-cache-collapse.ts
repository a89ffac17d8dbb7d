// Prefix-cache collapse: the hit rate falls and the prompts it used to serve are computed again.
import { SIG } from '../../../../common/names';
import { ratio } from '../baseline';
import {
  computedPromptTokens, cond, defineCause, firstE, fmt, medB, medE, missingInputs, notAssessable, rAny, rE, seriesEvidence, type CauseContext, type RuleResult,
} from './context';

export const prefixCacheCollapse = defineCause({
  id: 'prefix_cache_collapse',
  level: 9,
  upstream: ['kv_exhaustion', 'traffic_surge', 'deploy_regression'],
  rule,
});

function rule(c: CauseContext): RuleResult {
  const T = c.cfg.causes;
  const missing = missingInputs(c.f, [[SIG.kvPrefixQueries, SIG.kvPrefixHitRate], [SIG.latTtft, 'spans'], [SIG.tokensPrompt, SIG.tokensPromptRate]]);
  if (missing.length) return notAssessable('prefix_cache_collapse', missing);
  const hitB = medB(c, c.f.hit);
  const hitE = medE(c, c.f.hit);
  // What the collapse costs is the prompts no longer served from the cache: the miss share, not the hit
  // rate, is what grows. A hit rate 0.81 → 0.56 (a timestamp in the system prompt) prefills 2.3× the
  // tokens and was not a "fall to half".
  const misses = (hit: number) => 1 - hit;
  const rMiss = ratio(misses(hitE), misses(hitB));
  const rTtft = rAny(c, c.f.ttft99, c.f.ttftMean);
  const rCompRate = rE(c, computedPromptTokens(c));
  const rPlen = rE(c, c.f.plenMean);
  // Per request too: a pool the recomputed prompts filled serves fewer of them a second, so the rate of
  // computed tokens falls with the throughput it costs (0.55 → 0.08 hit at prompts served ×0.73 read ×1.48),
  // while each request computes (1 − hit) × its length: the misses' ratio times the prompts' length ratio.
  const rCompPer = rMiss * (Number.isFinite(rPlen) ? rPlen : 1);
  const rComp = Math.max(Number.isFinite(rCompRate) ? rCompRate : -Infinity, Number.isFinite(rCompPer) ? rCompPer : -Infinity);
  return {
    id: 'prefix_cache_collapse',
    missing: [],
    require: [
      cond(`median_B(hit) ≥ ${T.prefix_hit_base_min}`, hitB, hitB >= T.prefix_hit_base_min, T.prefix_hit_base_min),
      cond(`misses (1 − hit) ≥ ${T.prefix_miss_ratio}× the baseline's`, `hit ${fmt(hitE)} vs ${fmt(hitB)}: misses ×${fmt(rMiss)}`, rMiss >= T.prefix_miss_ratio, T.prefix_miss_ratio),
      cond(`r(ttft) ≥ ${T.prefix_ttft_ratio} (P99 or mean)`, rTtft, rTtft >= T.prefix_ttft_ratio, T.prefix_ttft_ratio),
      cond(`r(computed_ptok) ≥ ${T.prefix_computed_ratio}, per second or per request`, `${fmt(rCompRate)} per second, ${fmt(rCompPer)} per request`, rComp >= T.prefix_computed_ratio, T.prefix_computed_ratio),
    ],
    support: [],
    // Preemptions that follow the collapse (recomputed prompts fill the pool) are its consequence: the
    // chain orders the two by onset (rank.ts), no veto.
    veto: [cond(`prompt length up ≥ ${T.prefix_prompt_veto}× (→ long_prompt_interference)`, rPlen, rPlen >= T.prefix_prompt_veto, T.prefix_prompt_veto)],
    evidence: [seriesEvidence(c, SIG.kvPrefixHits, `prefix hit rate ${fmt(hitE)} vs baseline ${fmt(hitB)}`), seriesEvidence(c, SIG.latTtft, `TTFT ×${fmt(rTtft)}`)],
    onset_ms: firstE(c, (i) => misses(c.f.hit[i]) >= T.prefix_miss_ratio * misses(hitB)),
  };
}
