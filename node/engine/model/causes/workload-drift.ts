// Workload drift: outputs got longer — capacity planning, not a fault.
import { SIG } from '../../../../common/names';
import { ratio } from '../baseline';
import { windowAt } from '../windows';
import {
  cond, defineCause, departureOnset, fmt, medB, medE, missingInputs, notAssessable, rE, seriesEvidence, slice, type CauseContext, type RuleResult,
} from './context';
import { biggerRequests, kvHeldPerToken, ofFrame, sumArrays } from './shared';

export const workloadDrift = defineCause({
  id: 'workload_drift',
  level: 16,
  rule,
});

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

/** How much KV held per request must have grown over the baseline's to read as reservations. */
const DRIFT_HELD_RISE = 1.5;

/** Share of the outputs' growth the batch must show (Little's law, less the noise of two medians). */
const DRIFT_BATCH_SHARE = 0.8;

/** Share of the in-flight growth longer answers imply that must show (two medians' noise, a batch that drained). */
const LITTLE_SHARE = 0.5;

/**
 * Longer answers keep each request in the engine for longer: at the same arrivals and step time the requests in
 * flight (running, or waiting where the batch is at its cap) grow as the answers do (Little's law). Where they did
 * not, the lengths read are not what was served — a TGI output length read off its inference time over its time
 * per token (frame.ts timedOutputLength) where the inference time rose for another reason. Not judged where the
 * baseline held no request in flight or the answers' rise is unknown.
 */
function inFlightFollows(c: CauseContext, rLen: number, rItl: number): { held: boolean; rInFlight: number; expected: number } {
  const inFlight = ofFrame(c.f, 'inFlight', () => sumArrays(c.f.run, c.f.wait));
  const before = medB(c, inFlight);
  const rInFlight = before > 0 ? ratio(medE(c, inFlight), before) : NaN;
  const rLam = rE(c, c.f.lamIn);
  const expected = rLen * (Number.isFinite(rLam) ? rLam : 1) * (Number.isFinite(rItl) ? rItl : 1);
  return { held: Number.isFinite(rInFlight) && Number.isFinite(expected) && rInFlight < LITTLE_SHARE * expected, rInFlight, expected };
}

function rule(c: CauseContext): RuleResult {
  const T = c.cfg.causes;
  const missing = missingInputs(c.f, [[SIG.reqGenLen, 'spans', SIG.tokensGeneration, SIG.tokensGenerationRate, SIG.latInference], SIG.latItl, [SIG.latE2e, 'spans']]);
  if (missing.length) return notAssessable('workload_drift', missing);
  // P90 or mean, whichever moved more: a p90 read off the 1-2-5 buckets of vLLM's length histogram moves
  // inside a bucket (answers 1.75x longer read 1.29x), where the exact mean (sum / count) moves with them.
  const rOf = (x: Float64Array) => (slice(x, c.base).some(Number.isFinite) ? rE(c, x) : NaN);
  const rP90 = rOf(c.f.glenP90);
  // Lengths counted, else (TGI without its generated-tokens histogram) read off its times, which the veto on
  // the requests in flight below holds to the work served.
  const mean = slice(c.f.glenMean, c.base).some(Number.isFinite) ? c.f.glenMean : c.f.glenTimed;
  const rMean = rOf(mean);
  const hasP90 = rP90 >= rMean || (Number.isFinite(rP90) && !Number.isFinite(rMean));
  const glen = hasP90 ? c.f.glenP90 : mean;
  const rGlen = hasP90 ? rP90 : rMean;
  // The histogram mean where the baseline has one: vLLM's ITL buckets move an interpolated median in
  // bucket-sized jumps (5 → 16 ms while the mean went 9 → 12 ms).
  const itl = slice(c.f.itlMean, c.base).some(Number.isFinite) ? c.f.itlMean : c.f.itl50;
  const rItl = rE(c, itl);
  // Longer answers at the same arrivals hold more sequences at once (Little's law), and a bigger decode
  // batch takes longer per step: an ITL rise is the drift's own consequence where the batch grew as much as
  // the outputs did and ITL rose less than the batch. A decode slowdown of its own raises ITL at the batch
  // it had.
  const rRun = rE(c, c.f.run);
  const rLam = rE(c, c.f.lamIn);
  const batchGrew = rRun >= DRIFT_BATCH_SHARE * rGlen * (Number.isFinite(rLam) ? Math.min(1, rLam) : 1) && rItl < rRun;
  const itlHeld = rItl <= T.drift_itl_max || batchGrew;
  // P99 or mean: a P99 read off buckets stops at the last finite bound (vLLM's e2e buckets end at 60 s
  // in older versions), where answers twice as long move the mean and leave the P99 at the cap.
  const e2eRatios = [rE(c, c.f.e2e99), rE(c, c.f.e2eMean)].filter(Number.isFinite);
  const rE2e = e2eRatios.length ? Math.max(...e2eRatios) : NaN;
  const onsetLen = slice(mean, c.base).some(Number.isFinite) ? mean : glen;
  // Longer answers fill the pool with their tokens; a pool whose requests each hold several times the
  // tokens they have holds reservations (max_tokens × n set aside at admission): that is kv_bloat's
  // mechanism, which no length of answer explains.
  // Read against the baseline too: a pool that also keeps cached prefix blocks, or a fixed reserve,
  // divides over few requests when load is light, and that share does not grow with the answers.
  const heldW = kvHeldPerToken(c);
  const held = medE(c, heldW);
  const heldB = medB(c, heldW);
  const heldRose = !(heldB > 0) || held >= DRIFT_HELD_RISE * heldB;
  // Longer answers raise each request's share of the pool by the tokens they add on average while running,
  // which outputs of a few hundred tokens beside prompts of a thousand barely move (×1.0–1.3 where answers
  // grew ×1.7–2.7): a pool filled by requests each holding half as much again is bigger requests, the prompts
  // grown with the answers — kv_bloat's reading, and the answers alone do not explain it.
  const bigger = biggerRequests(c);
  const little = inFlightFollows(c, Number.isFinite(rMean) ? rMean : rGlen, rItl);
  return {
    id: 'workload_drift',
    missing: [],
    require: [
      cond(`r(glen_${hasP90 ? 'p90' : 'mean'}) ≥ ${T.drift_gen_ratio}`, rGlen, rGlen >= T.drift_gen_ratio, T.drift_gen_ratio),
      cond(`r(itl${itl === c.f.itlMean ? ' mean' : '50'}) ≤ ${T.drift_itl_max}, or ITL rose less than the batch, which grew with the outputs (r(run) ≥ ${DRIFT_BATCH_SHARE}·r(glen))`, `itl ×${fmt(rItl)}, run ×${fmt(rRun)}`, itlHeld, T.drift_itl_max),
      cond(`r(e2e99 or e2e mean) ≥ ${T.drift_e2e_ratio}`, rE2e, rE2e >= T.drift_e2e_ratio, T.drift_e2e_ratio),
    ],
    support: [],
    veto: [
      cond(`KV held per running request ≥ ${T.bloat_held_ratio}× its tokens and ≥ ${DRIFT_HELD_RISE}× the baseline's (reservations, → kv_bloat)`, `${fmt(held)} (baseline ${fmt(heldB)})`, held >= T.bloat_held_ratio && heldRose, T.bloat_held_ratio),
      cond(
        `requests in flight (running + waiting) grew less than ${LITTLE_SHARE}× what longer answers at those arrivals and that ITL hold (Little's law: r(glen) × r(lam_in) × r(itl)): the lengths read are not the work served`,
        `in flight ×${fmt(little.rInFlight)}, expected ×${fmt(little.expected)}`,
        little.held,
        LITTLE_SHARE,
      ),
      cond(`the pool full (kv ≥ ${T.bloat_kv}) with each running request holding ≥ ${T.bloat_len_ratio}× the baseline's share of it at flat arrivals, no long-prompt tail (bigger requests, → kv_bloat)`, `kv ${fmt(bigger.kv)}, share per request ×${fmt(bigger.rKvPerRun)}, arrivals ×${fmt(bigger.rLam)}${bigger.tail ? ', a long-prompt tail' : ''}`, bigger.held, T.bloat_len_ratio),
    ],
    evidence: [seriesEvidence(c, c.f.have.has(SIG.reqGenLen) ? SIG.reqGenLen : SIG.tokensGeneration, `outputs ×${fmt(rGlen)} longer; ITL ×${fmt(rItl)}`)],
    onset_ms: lengthOnset(c, onsetLen),
  };
}
