// Long-prompt interference: long prefill chunks share steps with decodes, which stall.
import { SIG } from '../../../../common/names';
import { ratio } from '../baseline';
import {
  cond, defineCause, departureOnset, fires, fmt, medB, medE, missingInputs, notAssessable, rAny, rE, seriesEvidence, type CauseContext, type RuleResult,
} from './context';
import { kvExhaustion } from './kv-exhaustion';
import { promptTail, TAIL_OVER_BODY } from './shared';

/** A prompt-length P10 grown this much: the body of the prompts grew, not a tail. */
const BODY_GREW = 1.5;

export const longPromptInterference = defineCause({
  id: 'long_prompt_interference',
  level: 11,
  rule,
});

function rule(c: CauseContext): RuleResult {
  const T = c.cfg.causes;
  const missing = missingInputs(c.f, [[SIG.reqPromptLen, 'spans', SIG.tokensPrompt, SIG.tokensPromptRate], [SIG.latTtft, 'spans', SIG.latItl]]);
  if (missing.length) return notAssessable('long_prompt_interference', missing);
  const { rP90, rP99, rMean, tail } = promptTail(c);
  // Every prompt longer, the body's low end as much as the mean (conversations that grew: P10 ×1.96 beside the
  // mean ×1.84, the pool filled → kv_exhaustion): no tail of long documents, whose P10 stays within a third of
  // where it was (0.94–1.32 on 60 such incidents) or, with many documents, lags far behind the mean.
  const rP10 = rE(c, c.f.plenP10);
  // That reading is the full pool's: where the KV pool did not run out, prompts that all grew (new long-context
  // traffic, ×9) still prefill in chunks beside the decodes, and nothing else names them (read "unexplained").
  const bodyGrew = rP10 >= BODY_GREW && !(rMean >= TAIL_OVER_BODY * rP10) && fires(kvExhaustion.rule(c));
  const rLam = rE(c, c.f.lamIn);
  // Prompt tokens per request: prompt tokens/s grow with arrivals too, and a few more requests of the
  // same length are load (a surge, KV pressure), not longer prompts.
  const rPtokAll = rE(c, c.f.ptok);
  const rPtok = rPtokAll / (rLam > 1 ? rLam : 1);
  // The prompts' exact mean (sum ÷ count), where exported, is the tokens per request itself: prompt tokens/s
  // grown twice as fast as arrivals beside a mean that did not move count prompts prefilled again (preempted
  // requests recomputed), not longer ones (×2.5 per arrival beside a mean ×1.03 and quantiles ×0.94–1.07).
  // Or prompt tokens/s doubled at arrivals below a surge (the design's r(ptok) ≥ 2 with r(lam_in) ≤ 1.3): a new
  // client's documents ride requests of their own, so the arrivals they add are the long prompts themselves —
  // a fifth more requests, each with a 10k-token document, read ×1.73 per arrival and "unexplained".
  const moreTokens = Math.max(rPtok, rLam <= T.surge_arrival_ratio ? rPtokAll : -Infinity);
  const perArrivalLonger = moreTokens >= T.long_prompt_ratio && !bodyGrew && !(rMean < Math.sqrt(T.long_prompt_ratio));
  // Where no TTFT is exported (TGI), its queue part still shows requests held behind long prefills.
  const rTtftOwn = rAny(c, c.f.ttft99, c.f.ttftMean);
  const ttftKnown = Number.isFinite(rTtftOwn);
  const rTtft = ttftKnown ? rTtftOwn : rAny(c, c.f.q99, c.f.queueMean);
  // A long prefill chunk shares its step with every decode in the batch: the decodes' ITL tail stalls by
  // the chunk's time. Where TTFT is coarse (vLLM's buckets) or not exported at all (TGI), that is the symptom.
  const rItl99 = rE(c, c.f.itl99);
  // Every answer slower end to end (P99 or mean): the prefill of a long document delays its own first token
  // and stalls the decodes batched with it, whichever histogram resolves it (TGI exports neither TTFT nor a
  // prefill time: its ITL P99 read ×1.47 and TTFT's queue part ×1.23 with prompts ×3).
  const rE2e = rAny(c, c.f.e2e99, c.f.e2eMean);
  const hitB = medB(c, c.f.hit);
  const hitCollapse = hitB >= 0.3 && medE(c, c.f.hit) <= 0.5 * hitB && !(rE(c, c.f.plenMean) >= 1.2);
  const bimodal = rE(c, c.f.itl99) / rE(c, c.f.itl50);
  return {
    id: 'long_prompt_interference',
    missing: [],
    require: [
      cond(
        `r(ptok) ÷ max(1, r(lam_in)), or r(ptok) where r(lam_in) ≤ ${T.surge_arrival_ratio}, ≥ ${T.long_prompt_ratio} unless the body grew alike (r(plen_p10) ≥ ${BODY_GREW}, the mean under ${TAIL_OVER_BODY}× it) at a pool that ran out (kv_exhaustion) or the mean prompt, where exported, grew under ×${fmt(Math.sqrt(T.long_prompt_ratio))} OR a long tail: r(plen_p90) or r(plen_p99) ≥ ${T.long_prompt_ratio} and ≥ ${TAIL_OVER_BODY}× r(plen mean)`,
        `ptok ${fmt(rPtokAll)}, per arrival ${fmt(rPtok)}, plen_p10 ${fmt(rP10)}, plen_p90 ${fmt(rP90)}, plen_p99 ${fmt(rP99)} (mean ×${fmt(rMean)})`,
        perArrivalLonger || tail,
        T.long_prompt_ratio,
      ),
      // More requests of the same length are load (a surge), not longer prompts; where prompts per arrival
      // grew more than the arrivals did, the prompts carry the load (at 0.5 req/s, arrivals read ×1.33 beside
      // prompt tokens per arrival ×4.1, every fifth request an 11k-token document).
      cond(
        `r(lam_in) ≤ ${T.surge_arrival_ratio} OR r(ptok) ÷ r(lam_in) ≥ r(lam_in) (prompts grew more than arrivals)`,
        `lam_in ${fmt(rLam)}, ptok per arrival ${fmt(rPtok)}`,
        Number.isFinite(rLam) ? rLam <= T.surge_arrival_ratio || rPtok >= rLam : false,
        T.surge_arrival_ratio,
      ),
      cond(
        `r(ttft) ≥ ${T.long_prompt_ttft_ratio} (P99 or mean; queue time where no TTFT is exported) OR r(itl99) ≥ ${T.long_prompt_ttft_ratio} (decodes stalled behind long prefills) OR r(e2e) ≥ ${T.drift_e2e_ratio} (P99 or mean)`,
        `${ttftKnown ? 'ttft' : 'queue'} ${fmt(rTtft)}, itl99 ${fmt(rItl99)}, e2e ${fmt(rE2e)}`,
        rTtft >= T.long_prompt_ttft_ratio || rItl99 >= T.long_prompt_ttft_ratio || rE2e >= T.drift_e2e_ratio,
        T.long_prompt_ttft_ratio,
      ),
    ],
    support: [cond('spiky ITL: r(itl99) ÷ r(itl50) ≥ 1.5', bimodal, bimodal >= 1.5)],
    // A preemption storm is what long prompts do to a full pool: it goes in the chain (→ kv_exhaustion), not a veto.
    veto: [cond('hit-rate collapse with unchanged prompts (→ prefix_cache_collapse)', hitCollapse, hitCollapse)],
    evidence: [seriesEvidence(c, c.f.have.has(SIG.reqPromptLen) ? SIG.reqPromptLen : SIG.tokensPrompt, `prompt p90 ×${fmt(rP90)}, prompt tokens/s ×${fmt(rPtok)}`), seriesEvidence(c, SIG.latTtft, `TTFT ×${fmt(rTtft)}`)],
    // Dated on prompt tokens/s, which count at prefill: the prompt-length histogram counts a request when it
    // finishes, a whole request later.
    onset_ms: departureOnset(c, c.f.ptok, 1, (i) => ratio(c.f.ptok[i], medB(c, c.f.ptok)) >= 1.5 || ratio(c.f.plenP90[i], medB(c, c.f.plenP90)) >= 2),
  };
}
