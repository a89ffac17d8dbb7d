// CUDA-graph fallback: batches beyond the captured CUDA-graph sizes run in eager mode, and ITL steps up
// where the running batch crosses the capture max.
import { SIG } from '../../../../common/names';
import { median, ratio } from '../baseline';
import { changePoint } from '../change-point';
import { itlReading } from '../frame';
import { isTgi } from './shared';
import { trafficSurge } from './traffic-surge';
import {
  cond, defineCause, departureOnset, fires, fmt, medB, medE, missingInputs, notAssessable, rE, seriesEvidence, type CauseContext, type RuleResult,
} from './context';

export const cudaGraphFallback = defineCause({
  id: 'cuda_graph_fallback',
  level: 10,
  upstream: ['traffic_surge', 'deploy_regression'],
  rule,
});

/** The largest batch an engine captures CUDA graphs for by default: vLLM 512, TGI 32 (--cuda-graphs 1,2,4,8,16,32). */
const MAX_CAPTURE = 512;
const TGI_MAX_CAPTURE = 32;

/** The largest capture size plausible for the engine the metrics come from. */
function maxCapture(c: CauseContext): number {
  return isTgi(c) ? TGI_MAX_CAPTURE : MAX_CAPTURE;
}

/**
 * Median ITL over windows whose running peak sits just above `cap` (up to 1.5×) ÷ over windows just below
 * it (from 2/3 of it): near 1 where ITL only grows with the batch, ≥ the eager slowdown at a graph cap.
 * NaN with fewer than 3 windows on either side.
 */
function cudaGraphJump(c: CauseContext, itl: Float64Array, cap: number): number {
  const below: number[] = [];
  const above: number[] = [];
  for (let i = 0; i < c.f.grid.n; i++) {
    const r = c.f.runMax[i];
    if (!Number.isFinite(itl[i]) || !Number.isFinite(r)) continue;
    if (r > cap && r <= 1.5 * cap) above.push(itl[i]);
    else if (r <= cap && r >= (2 / 3) * cap) below.push(itl[i]);
  }
  return below.length >= 3 && above.length >= 3 ? ratio(median(above), median(below)) : NaN;
}

/**
 * The episode's ITL ÷ what load alone would make of the baseline's: a decode step costs a fixed part (the
 * weights read once) plus a part per sequence, ITL = a + b·running with a, b ≥ 0. b is the Theil–Sen slope
 * of ITL on running over the baseline's windows, bounded by a ≥ 0 (at most ITL ÷ running: ITL at most
 * proportional to the batch). Eager steps cost the fallback's factor on top, at every batch past the cap —
 * the same-batch comparison of `cudaGraphJump` needs windows just above the cap, and a batch that leaps past
 * it (an eager step slows everyone, so the batch grows) leaves few. NaN without the inputs.
 */
function loadExcess(c: CauseContext, itl: Float64Array): number {
  const run = c.f.run;
  const xs: number[] = [];
  const ys: number[] = [];
  const step = Math.max(1, Math.ceil((c.base[1] - c.base[0] + 1) / 200));
  for (let i = c.base[0]; i <= c.base[1]; i += step) {
    if (Number.isFinite(run[i]) && run[i] > 0 && Number.isFinite(itl[i])) {
      xs.push(run[i]);
      ys.push(itl[i]);
    }
  }
  if (xs.length < 3) return NaN;
  const slopes: number[] = [];
  for (let i = 0; i < xs.length; i++) for (let j = i + 1; j < xs.length; j++) if (xs[j] !== xs[i]) slopes.push((ys[j] - ys[i]) / (xs[j] - xs[i]));
  const nB = median(xs);
  const yB = median(ys);
  const b = Math.min(Math.max(0, slopes.length ? median(slopes) : 0), yB / nB);
  const predicted = yB + b * (medE(c, run) - nB);
  return ratio(medE(c, itl), predicted);
}

/** Prompts this much longer per request make every decode step heavier: an inferred cap is not read over them. */
const PROMPTS_GREW = 1.25;

/**
 * Where running went past the cap: of the span's upward crossings, the one nearest the ITL change-point
 * (the first where there is none). A busy baseline brushes the cap for a window now and then, an hour
 * before the load that carries the batch past it for good: the first crossing is not the one the ITL
 * step lines up with.
 */
export function crossingNear(c: CauseContext, cap: number, cpAt: number | null): number | null {
  let best: number | null = null;
  let below = true;
  for (let i = c.span[0]; i <= c.span[1]; i++) {
    const x = c.f.runMax[i];
    if (!Number.isFinite(x)) continue;
    if (x > cap && below) {
      const t = c.f.t[i];
      if (best === null) best = t;
      else if (cpAt !== null && Math.abs(t - cpAt) < Math.abs(best - cpAt)) best = t;
      if (cpAt === null) break;
    }
    below = !(x > cap);
  }
  return best;
}

/**
 * The least distance, in time, within which the ITL step and the crossing line up. A batch that arrivals carry
 * toward the cap brushes it and falls back for a minute or two before it stays past it (Poisson swings), and
 * ITL climbs with the batch on the way: the change-point of the window means lands anywhere in that minute or
 * two (65 s before the crossing with 10 s windows, a logged cap of 48 and ITL ×1.8 at the same batch across it).
 */
const ALIGN_MIN_MS = 2 * 60_000;

/** The rise in the share of decode passes run eager that is a fallback: a fifth of the steps newly without graphs. */
const EAGER_ROSE = 0.2;

/** How far the batch must outgrow demand for a surge's arrivals to leave the slowdown the batch's driver. */
const RUNAWAY = 2;

function rule(c: CauseContext): RuleResult {
  const T = c.cfg.causes;
  const missing = missingInputs(c.f, [SIG.latItl, SIG.reqRunning]);
  if (missing.length) return notAssessable('cuda_graph_fallback', missing);
  // The ITL step, on the exact mean where there is one.
  const itl = itlReading(c.f);
  const cp = changePoint(itl, 2);
  const cpAt = cp ? c.f.t[cp.index] : null;
  // The capture max: from the engine's startup log where it printed one; else read off the data as the
  // running level the ITL step happened at (logs are often missing or cut) — checked below against what
  // load alone would do to ITL.
  const known = Number.isFinite(c.f.cudaGraphMax);
  let cap = known ? c.f.cudaGraphMax : c.cfg.causes.cuda_graph_max_batch;
  if (!known && cp && cp.size >= T.cuda_graph_itl_ratio - 1) cap = median(c.f.runMax.subarray(Math.max(0, cp.index - 4), cp.index));
  const cross = crossingNear(c, cap, cpAt);
  const aligned = cross !== null && cpAt !== null && Math.abs(cpAt - cross) <= Math.max(2 * c.f.grid.W, ALIGN_MIN_MS);
  const rItl = rE(c, itl);
  // A cap read off the ITL step lines up with that step by construction, so it needs evidence of its
  // own: eager steps are slower at the *same* batch size, a jump in ITL across the cap that load alone
  // (a gentle rise with the batch) does not make; and no engine captures graphs above its default
  // largest size (vLLM 512 sequences, TGI 32).
  const jump = cudaGraphJump(c, itl, cap);
  // Only where the episode ran past the cap for the most part (ITL up at the batch the baseline had is some
  // other slowdown), and where arrivals stayed below a surge's: the fit extrapolates the baseline's ITL per
  // sequence far beyond the batches it saw, and the baseline's noise flattens that slope — fair where the
  // engine's own slowdown grew the batch, while a batch a surge tripled reads as excess by that bias alone
  // (and a surge that tipped the engine into eager mode is the surge's chain, read by the same-batch test).
  const rArr = rE(c, c.f.lamIn);
  // Arrivals at a surge's ratio count as the batch's driver unless the batch outgrew them at least twofold
  // (Little's law: the rest is each request staying longer, the engine's slowdown) and no surge holds.
  const rGlen = rE(c, c.f.glenMean);
  const demand = Number.isFinite(rGlen) ? rArr * rGlen : rArr;
  const outgrew = rE(c, c.f.run) >= RUNAWAY * demand;
  const surge = rArr >= T.surge_arrival_ratio && (!outgrew || fires(trafficSurge.rule(c)));
  const excess = medE(c, c.f.run) > cap && !surge ? loadExcess(c, itl) : NaN;
  const maxCap = maxCapture(c);
  // An inferred cap is only a running level where ITL stepped, and any slowdown grows the batch (each request
  // stays longer): the fallback is the root only where demand grew the batch — arrivals × output length up
  // at least surge_arrival_veto (below it, lost capacity: a host-bound engine loop stepped ITL ×3–6 and its
  // batch outgrew a "cap" of 13 on flat arrivals). A cap the engine logged is a fact and needs no such test.
  const demandRose = demand >= T.surge_arrival_veto;
  // Nor where each request carries more context: a decode step reads every cached token, so longer prompts
  // slow it beyond what the number of sequences says (conversations ×1.95 long stepped ITL ×1.6 past an
  // "inferred cap" as they filled the pool), and the jump is theirs.
  const rPlen = rE(c, c.f.plenMean);
  const promptsFlat = !(rPlen >= PROMPTS_GREW);
  // SGLang counts its decode passes by whether they replayed a graph: where it does, the engine says whether
  // steps went eager, and that decides over any cap, logged or inferred.
  const eagerB = medB(c, c.f.eager);
  const eagerE = medE(c, c.f.eager);
  const counted = Number.isFinite(eagerB) && Number.isFinite(eagerE);
  const wentEager = eagerE - eagerB >= EAGER_ROSE;
  const plausible = counted ? wentEager : known || (cap <= maxCap && demandRose && promptsFlat && (jump >= T.cuda_graph_itl_ratio || excess >= T.cuda_graph_itl_ratio));
  return {
    id: 'cuda_graph_fallback',
    missing: [],
    require: [
      cond(`running crosses the CUDA-graph capture max (${fmt(cap)}${known ? '' : ', inferred: the running level at the ITL step'})`, cross, cross !== null),
      cond(`ITL change-point aligned with the crossing (within 2 windows, at least ${ALIGN_MIN_MS / 60_000} min)`, cpAt, aligned),
      cond(`r(itl) ≥ ${T.cuda_graph_itl_ratio}`, rItl, rItl >= T.cuda_graph_itl_ratio, T.cuda_graph_itl_ratio),
      cond(
        `where the engine counts its decode passes (SGLang), ≥ ${EAGER_ROSE} more of them ran eager than in the baseline; else the capture max is known from the engine log, or the inferred one is ≤ ${maxCap}, demand grew the batch (r(lam_in × output length) ≥ ${T.surge_arrival_veto}), prompts did not grow (r(plen mean) < ${PROMPTS_GREW}) and ITL is ≥ ${T.cuda_graph_itl_ratio}× higher just above it than just below it (same batch size, eager steps) or than load alone explains (the baseline's ITL per running sequence)`,
        `${counted ? `eager decode passes ${fmt(eagerE)} (baseline ${fmt(eagerB)}); ` : ''}${known ? 'known' : `inferred ${fmt(cap)}`}, r(demand) ${fmt(demand)}, r(plen) ${fmt(rPlen)}, ITL above ÷ below ${fmt(jump)}, ITL ÷ load-explained ${fmt(excess)}`,
        plausible,
        T.cuda_graph_itl_ratio,
      ),
    ],
    support: [cond('capture max from the engine log', known, known)],
    veto: [cond('the ITL jump does not line up with the threshold', !aligned, cross !== null && !aligned)],
    evidence: [seriesEvidence(c, SIG.reqRunning, `running above ${fmt(cap)} from ${cross === null ? 'never' : new Date(cross).toISOString()}`), seriesEvidence(c, SIG.latItl, `ITL ×${fmt(rItl)}`)],
    // The fallback is the end of a rise in load: the incident began where arrivals left their baseline on the way up.
    onset_ms: cross === null ? null : departureOnset(c, c.f.lamIn, 1, (i) => c.f.t[i] >= cross && c.f.runMax[i] > cap, 2) ?? cross,
    inferred: !known,
  };
}
