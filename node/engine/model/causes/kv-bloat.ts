// KV-cache bloat: few requests fill the pool, each holding far more KV cache than its tokens need.
import { SIG } from '../../../../common/names';
import { median, ratio } from '../baseline';
import {
  cond, defineCause, departureOnset, fmt, medB, medE, missingInputs, notAssessable, queuedBeyond, seriesEvidence, type CauseContext, type RuleResult,
} from './context';
import { biggerRequests, contextLength, idleFloor, kvHeldPerToken, kvPerRunning } from './shared';

export const kvBloat = defineCause({
  id: 'kv_bloat',
  level: 8,
  upstream: ['workload_drift'],
  rule,
});

/** The least pool share at which admission control that reserves whole budgets is read as turning requests away. */
const BLOCKED_KV = 0.5;

function rule(c: CauseContext): RuleResult {
  const T = c.cfg.causes;
  const missing = missingInputs(c.f, [SIG.kvUsage, SIG.reqRunning, [SIG.reqPromptLen, SIG.reqGenLen, 'spans', SIG.tokensPrompt, SIG.tokensPromptRate]]);
  if (missing.length) return notAssessable('kv_bloat', missing);
  const kv = medE(c, c.f.kv);
  const run = medE(c, c.f.run);
  const runB = medB(c, c.f.run);
  const len = contextLength(c.f);
  const rLen = ratio(medE(c, len), medB(c, len));
  const floor = idleFloor(c);
  const lastFloor = floor.v.length ? median(floor.v.slice(-3)) : NaN;
  const heldE = medE(c, kvHeldPerToken(c));
  const wait = medE(c, c.f.wait);
  // Below bloat_kv the pool refuses the next request only where each running one holds a reservation larger than
  // its tokens; where the pool's size says they hold about their tokens, half a pool has room for the next, and the
  // queue waits on something else (long prefills that take the step's token budget: prompts ×3 at KV 0.55 with
  // 2,700 waiting and each request holding 0.99× its tokens). Unknown where the pool's size is not exported.
  const reserves = !(heldE < T.bloat_held_ratio);
  const blocked = wait > queuedBeyond(c) && run <= T.bloat_run_share * runB && reserves;
  // Bigger requests, not more of them: a batch that did not shrink (or grew, where the baseline was light)
  // can still hold the pool in few requests for their size. Each request holds KV in proportion to its
  // context, so the pool's share per running request grows with the requests' size and stays with their
  // number: prompts and answers ×1.7 at the same arrivals held 1.6–2× the share each (the batch ×1.6–2.4,
  // from a light baseline), where lengths ×1.3 with arrivals ×1.2 held 1.0–1.5×. Read at flat arrivals and
  // without a tail of long documents (shared.ts biggerRequests): more requests, or a share of them carrying
  // documents, fill a pool by another mechanism.
  const bigger = biggerRequests(c);
  const perRun = kvPerRunning(c);
  const perRunB = medB(c, perRun);
  // Only the bigger requests' reading dates by the share per request; the batch fallen or reservations date
  // by the batch, as they did before that reading.
  const fewer = run <= T.bloat_run_share * runB || heldE >= T.bloat_held_ratio || !bigger.held;
  return {
    id: 'kv_bloat',
    missing: [],
    require: [
      // A pool that reserves each request's whole budget at admission turns the next one away well below full:
      // n=8 × max_tokens 4096 held one request at 0.68 while 577 waited and the batch fell from 23 to 4.
      cond(
        `kv ≥ ${T.bloat_kv} (median over the span), OR kv ≥ ${BLOCKED_KV} turning requests away: waiting above the baseline's while the batch fell to ≤ ${T.bloat_run_share}× its baseline, each request holding ≥ ${T.bloat_held_ratio}× its tokens where the pool's size is known`,
        `kv ${fmt(kv)}, wait ${fmt(wait)} (baseline ${fmt(medB(c, c.f.wait))}), run ${fmt(run)} vs ${fmt(runB)}, KV held ÷ tokens ${fmt(heldE)}`,
        kv >= T.bloat_kv || (kv >= BLOCKED_KV && blocked),
        T.bloat_kv,
      ),
      // Few requests hold the pool: the batch fell to a share of the baseline's, or (read directly, where the
      // pool's size is known) each running request holds several times the KV its tokens need — the
      // baseline's batch is no reference where the recording began in a quiet stretch.
      cond(
        `run ≤ ${T.bloat_run_share}·median_B(run) OR KV held per running request ≥ ${T.bloat_held_ratio}× its tokens OR the pool's share per running request ≥ ${T.bloat_len_ratio}× the baseline's at flat arrivals (r(lam_in) < ${T.surge_arrival_veto}) with no tail of long prompts`,
        `${fmt(run)} vs baseline ${fmt(runB)}, KV held ÷ tokens ${fmt(heldE)}, share per request ×${fmt(bigger.rKvPerRun)}, arrivals ×${fmt(bigger.rLam)}${bigger.tail ? ', a long-prompt tail' : ''}`,
        run <= T.bloat_run_share * runB || heldE >= T.bloat_held_ratio || bigger.held,
        T.bloat_run_share,
      ),
      cond(`r(plen + glen) ≥ ${T.bloat_len_ratio} OR KV tokens per running request ≥ ${T.bloat_held_ratio}× its tokens (plen + glen)`, `r(len) ${fmt(rLen)}, KV held ÷ tokens ${fmt(heldE)}`, rLen >= T.bloat_len_ratio || heldE >= T.bloat_held_ratio, T.bloat_len_ratio),
    ],
    support: [cond('KV growth mode', c.kv?.growth ?? null, c.kv?.growth === 'step' || c.kv?.growth === 'exponential')],
    veto: [cond(`kv floor at idle > ${T.block_leak_floor} (→ kv_block_leak)`, lastFloor, lastFloor > T.block_leak_floor, T.block_leak_floor)],
    evidence: [seriesEvidence(c, SIG.kvUsage, `KV ${fmt(kv)} with ${fmt(run)} running (baseline ${fmt(runB)})`), seriesEvidence(c, SIG.reqRunning, 'few requests hold the pool')],
    // Dated by the reading that holds over the span: the batch fallen (or reservations), else each request's
    // share grown (read window by window, a share grown ×1.5 is also a quiet window's few requests: it dated a
    // reservation bloat, whose batch fell, 24 minutes early, inside the baseline).
    onset_ms: departureOnset(c, c.f.kv, 1, (i) => c.f.kv[i] >= (kv >= T.bloat_kv ? T.bloat_kv : BLOCKED_KV) && (fewer ? c.f.run[i] <= T.bloat_run_share * runB : perRun[i] >= T.bloat_len_ratio * perRunB)),
  };
}

