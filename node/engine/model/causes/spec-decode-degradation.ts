// Speculative-decoding degradation: fewer draft tokens are accepted per step, and decoding slows.
import { SIG } from '../../../../common/names';
import { ratio } from '../baseline';
import {
  cond, defineCause, departureOnset, fmt, medB, medE, missingInputs, notAssessable, rAny, rE, seriesEvidence, type CauseContext, type RuleResult,
} from './context';

export const specDecodeDegradation = defineCause({
  id: 'spec_decode_degradation',
  level: 13,
  upstream: ['deploy_regression', 'workload_drift'],
  rule,
});

function rule(c: CauseContext): RuleResult {
  const T = c.cfg.causes;
  const missing = missingInputs(c.f, [[SIG.specAcceptLen, SIG.specAcceptedTokens], SIG.latItl]);
  if (missing.length) return notAssessable('spec_decode_degradation', missing);
  const accB = medB(c, c.f.accLen);
  const accE = medE(c, c.f.accLen);
  // With drafts, several tokens land per step: the median ITL sits on the bucket of the burst's
  // near-zero gaps, while the mean (step time ÷ tokens accepted) and the tokens each running sequence
  // gets per second move with the acceptance length.
  const rItl = rAny(c, c.f.itl50, c.f.itlMean);
  const perSeq = new Float64Array(c.f.grid.n);
  for (let i = 0; i < perSeq.length; i++) perSeq[i] = c.f.run[i] > 0 ? c.f.gtok[i] / c.f.run[i] : NaN;
  const rPerSeq = rE(c, perSeq);
  // Requests take longer end to end: fewer tokens a step stretch every answer, whichever of the per-token
  // figures the engine's histograms resolve (a step-timed ITL reads flat while e2e P99 rose ×1.4).
  const rE2e = rAny(c, c.f.e2e99, c.f.e2eMean);
  const slower = rItl >= T.spec_itl_ratio || rPerSeq <= 1 / T.spec_itl_ratio || rE2e >= T.spec_itl_ratio;
  const stable = Math.abs(ratio(accE, accB) - 1) < 0.1 && Math.abs(rE(c, c.f.run) - 1) < 0.1;
  // The acceptance length counts the bonus token every step yields with or without drafts; what the
  // drafts buy is the rest (accepted drafts per step), and that is what falls when drafts stop matching.
  const draftsB = accB - 1;
  const fell = (x: number) => x - 1 <= T.spec_acc_fall * draftsB;
  return {
    id: 'spec_decode_degradation',
    missing: [],
    require: [
      cond('speculative decoding on (acceptance measured in the baseline)', accB, Number.isFinite(accB)),
      cond(`accepted drafts per step (acc_len − 1) ≤ ${T.spec_acc_fall}·the baseline's`, `${fmt(accE - 1)} vs ${fmt(draftsB)}`, draftsB > 0 && fell(accE), T.spec_acc_fall),
      cond(
        `r(itl) ≥ ${T.spec_itl_ratio} (median or mean) OR tokens/s per running sequence ≤ 1/${T.spec_itl_ratio} of the baseline OR r(e2e) ≥ ${T.spec_itl_ratio} (P99 or mean)`,
        `itl ×${fmt(rItl)}, per sequence ×${fmt(rPerSeq)}, e2e ×${fmt(rE2e)}`,
        slower,
        T.spec_itl_ratio,
      ),
    ],
    support: [],
    veto: [cond('acc_len and run both stable', stable, stable)],
    evidence: [seriesEvidence(c, c.f.have.has(SIG.specAcceptLen) ? SIG.specAcceptLen : SIG.specAcceptedTokens, `acceptance length ${fmt(accE)} vs ${fmt(accB)}`)],
    onset_ms: departureOnset(c, c.f.accLen, -1, (i) => fell(c.f.accLen[i])),
  };
}
