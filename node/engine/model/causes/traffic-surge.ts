// Traffic surge: arrivals exceed the service rate and the queue grows.
import { SIG, countOf } from '../../../../common/names';
import { median, ratio } from '../baseline';
import {
  cond, defineCause, departureOnset, engineFull, fmt, QUEUE_IN_STEP, queuedBeyond, maxE, medB, medE, missingInputs, notAssessable, rE, seriesEvidence, type CauseContext, type Range, type RuleResult,
} from './context';
import { rangeMedian } from '../range-stats';
import { windowAt } from '../windows';
import { itlReading } from '../frame';
import { contextLength } from './shared';
import { BURST_MAX_MS, DECODE_SLOWER, LOAD_SLOWDOWN, loadExplains } from '../unexplained';

export const trafficSurge = defineCause({
  id: 'traffic_surge',
  level: 12,
  // An API server killed at its memory limit comes back to the backlog and the clients' retries at once.
  upstream: ['host_memory_leak'],
  rule,
});

function rule(c: CauseContext): RuleResult {
  const T = c.cfg.causes;
  // The wait is read off queue time, else TTFT, which contains it: vLLM V0 exported no queue histogram.
  const missing = missingInputs(c.f, [[SIG.reqFinished, SIG.latE2e, countOf(SIG.latE2e)], SIG.reqWaiting, [SIG.latQueue, 'spans', SIG.latTtft], [SIG.latE2e, 'spans']]);
  if (missing.length) return fromLogLines(c) ?? notAssessable('traffic_surge', missing);
  const rFill = fillingArrivals(c);
  const rLam = Number.isFinite(rFill) ? Math.max(rE(c, c.f.lamIn), rFill) : rE(c, c.f.lamIn);
  const { waitSlope, runAtMax, kvHigh } = engineFull(c);
  // Requests that grew (longer prompts and answers) fill a KV pool as more requests do: where the pool
  // is the saturation and each request grew more than their number did, the longer requests are the
  // trigger (kv_exhaustion), not the arrivals.
  const len = contextLength(c.f);
  const rLen = ratio(medE(c, len), medB(c, len));
  // And as a step: the span's first half hour against the half hour before it. A pool filled by prompts ×1.9
  // as arrivals stepped ×1.28, read over an eight-hour day whose traffic doubled, read arrivals ×1.81 beside
  // lengths ×1.44 against a morning baseline.
  const early: Range = [c.span[0], Math.max(c.span[0], Math.min(c.span[1], windowAt(c.f.grid, c.f.t[c.span[0]] + STEP_MS)))];
  const before = halfHourBefore(c);
  const stepOf = (x: Float64Array) => (before[1] >= before[0] ? ratio(rangeMedian(x, early), rangeMedian(x, before)) : NaN);
  const rLenEarly = stepOf(len);
  const rLamEarly = stepOf(c.f.lamIn);
  const longer = kvHigh && (rLen >= rLam || rLenEarly >= rLamEarly);
  const queueRead = c.f.q99.some(Number.isFinite);
  const rQ = rE(c, queueRead ? c.f.q99 : c.f.ttft99);
  // Waiting shows in queue time and in TTFT (which contains it, and is measured where the queue
  // histogram is coarse or capped); the rest of e2e is decode, which a full batch also slows.
  const dQ = finiteMax(medE(c, c.f.q99) - medB(c, c.f.q99), medE(c, c.f.ttft99) - medB(c, c.f.ttft99));
  const dE = medE(c, c.f.e2e99) - medB(c, c.f.e2e99);
  const busy = c.f.smAct.some(Number.isFinite) ? c.f.smAct : c.f.util;
  const util = medE(c, busy);
  // Starved is a change, as cpu_frontend_bottleneck reads it: an engine that idled at 0.4 before the surge
  // as during it is lightly loaded per step, not starved.
  const starved = util <= T.frontend_sm_max && rE(c, busy) <= T.frontend_util_ratio;
  const q0 = queueStart(c);
  const served = servedBefore(c, q0);
  const absorbed = batchAbsorbed(c, rLam, rLamEarly, runAtMax);
  const outgrown = queueOutgrewBatch(c);
  return {
    id: 'traffic_surge',
    missing: [],
    require: [
      cond(`r(lam_in) ≥ ${T.surge_arrival_ratio}`, rLam, rLam >= T.surge_arrival_ratio, T.surge_arrival_ratio),
      cond('slope(wait) > 0 (per min, up to its peak)', waitSlope, waitSlope > 0),
      heldCond(queueHeld(c), absorbed),
      cond(
        `run at max OR kv ≥ ${c.cfg.causes.kv_high} OR the engine served more (tokens, else requests finished, ×≥ ${SERVED_MORE}) with more waiting than running (median)`,
        `run at max ${runAtMax}, max kv ${fmt(maxE(c, c.f.kv))}; served ×${fmt(outgrown.rServed)}, waiting ${fmt(outgrown.wait)} beside ${fmt(outgrown.run)} running`,
        runAtMax || kvHigh || outgrown.held,
        c.cfg.causes.kv_high,
      ),
      // A surge the batch took in pays in every token, not in the wait (batchAbsorbed).
      cond(`r(${queueRead ? 'q99' : 'ttft99 (no queue time exported)'}) ≥ ${T.surge_queue_ratio}, or the batch took the surge in`, rQ, rQ >= T.surge_queue_ratio || absorbed.held, T.surge_queue_ratio),
      cond(`Δq99 (or Δttft99) ≥ ${T.surge_queue_share}·Δe2e99 (s), or the batch took the surge in`, `Δq99 ${fmt(dQ)}, Δe2e99 ${fmt(dE)}`, (dQ >= T.surge_queue_share * dE && dQ > 0) || absorbed.held, T.surge_queue_share),
    ],
    support: [],
    veto: [
      cond(`r(lam_in) < ${T.surge_arrival_veto} (capacity loss instead)`, rLam, rLam < T.surge_arrival_veto, T.surge_arrival_veto),
      cond(
        'KV full with requests grown more than arrivals, over the span or as a step (its first half hour ÷ the half hour before): r(plen + glen) ≥ r(lam_in) (→ kv_exhaustion)',
        `r(len) ${fmt(rLen)}, r(lam_in) ${fmt(rLam)}; step ${fmt(rLenEarly)}, ${fmt(rLamEarly)}`,
        longer,
      ),
      cond(`GPU starved: busy ≤ ${T.frontend_sm_max} and fell to ≤ ${T.frontend_util_ratio}× its baseline (→ cpu_frontend_bottleneck)`, `${fmt(util)} (×${fmt(rE(c, busy))})`, starved, T.frontend_sm_max),
      cond(
        `the arrivals the queue began at were served before it without a queue, ${SERVED_MS / 60_000} min at a stretch (the engine lost capacity)`,
        served ? `${fmt(served.level)}/s at the queue's start; ${fmt(served.before)}/s served ${fmtAgo(served.ago)}` : null,
        !!served,
      ),
    ],
    evidence: [seriesEvidence(c, SIG.reqWaiting, `queue grows ${fmt(waitSlope)}/min; arrivals ×${fmt(rLam)}`), seriesEvidence(c, SIG.latQueue, `P99 queue time ×${fmt(rQ)}`)],
    onset_ms: surgeOnset(c, q0),
  };
}

/**
 * Where the surge began: arrivals leaving the baseline's level by the surge's ratio; where that came more than
 * LOCAL_BEFORE_MS before the queue began, leaving their level of the half hour before the queue instead (ending
 * WALK_BACK_MS before it, so the walk back can reach the ramp's start). A day's traffic that crept from 1.66 to 2.48/s
 * through the morning passed 1.3× the baseline's at 8349 s, eight thousand seconds before the ×2.55 surge
 * that built the queue.
 */
function surgeOnset(c: CauseContext, q0: number): number | null {
  const ratioMin = c.cfg.causes.surge_arrival_ratio;
  const fromBaseline = departureOnset(c, c.f.lamIn, 1, (i) => ratio(c.f.lamIn[i], medB(c, c.f.lamIn)) >= ratioMin, 2);
  // Only a departure from the baseline more than LOCAL_BEFORE_MS before the queue began is read again: nearer,
  // it is the surge's own ramp (a surge just above capacity takes minutes to build a queue).
  if (q0 >= 0 && fromBaseline !== null && fromBaseline < c.f.t[q0] - LOCAL_BEFORE_MS) {
    const t0 = c.f.t[q0];
    let a = q0;
    while (a - 1 > c.base[1] && c.f.t[a - 1] >= t0 - WALK_BACK_MS - LOCAL_BEFORE_MS) a--;
    let b = a;
    while (b + 1 < q0 && c.f.t[b + 1] < t0 - WALK_BACK_MS) b++;
    const local: Range = [a, b];
    const level = rangeMedian(c.f.lamIn, local);
    if (b < q0 && level > 0) {
      const at = departureOnset({ ...c, base: local, span: [b + 1, c.span[1]] }, c.f.lamIn, 1, (i) => ratio(c.f.lamIn[i], level) >= ratioMin, 2);
      if (at !== null) return at;
    }
  }
  return fromBaseline;
}

/** The stretch before a surge's queue whose arrivals it is dated against, and the room left for the ramp before the queue. */
const LOCAL_BEFORE_MS = 30 * 60_000;
const WALK_BACK_MS = 5 * 60_000;

/** Where the span's queue began: back from its peak to where it last stood within its baseline; -1 where none built. */
export function queueStart(c: CauseContext): number {
  const wait = c.f.wait;
  const beyond = queuedBeyond(c);
  // The queue's start: back from its peak to where it last stood within its baseline (a request or two
  // waiting for a moment earlier is no start of it).
  let peak = -1;
  for (let i = c.span[0]; i <= c.span[1]; i++) if (wait[i] > beyond && !(wait[peak] >= wait[i])) peak = i;
  if (peak < 0) return -1;
  // A queue drained for a moment (a scrape or two) and back within QUEUE_DIP_MS is the same queue: a batch capped
  // below its arrivals drains now and then, and its start read after the last dip was at the arrivals of an
  // hour later. A longer calm ends it.
  let q0 = peak;
  const t = c.f.t;
  for (let i = peak - 1; i >= 0; i--) {
    if (!Number.isFinite(wait[i])) continue;
    if (wait[i] > beyond) {
      q0 = i;
      continue;
    }
    if (t[q0] - t[i] > QUEUE_DIP_MS) break;
  }
  return q0;
}

/** How long a queue may stand drained within its baseline and still be the same queue when it builds again. */
const QUEUE_DIP_MS = 5 * 60_000;

/**
 * Arrivals while the queue was filling, where it filled (FULL_SHARE of its peak) within FILL_MS of the span's start, ÷ the
 * baseline's and ÷ the half hour before the span (the lower of the two); NaN otherwise or with fewer than 3
 * windows. A surge builds its backlog while it lasts and the span runs on while the backlog drains, at the
 * old arrivals or fewer: over a 54-minute episode, a 19-minute ×2.45 surge read ×1.16, and over a two-hour
 * one, arrivals ×1.8 for 55 minutes read ×1.25. A queue that took hours to fill, or arrivals the half hour
 * before already carried, is a day's peak, not a surge; one filled by arrivals at a surge's level for 5
 * minutes or less is an arrival spike's.
 */
function fillingArrivals(c: CauseContext): number {
  // The queue's peak over the span (its first, on a tie), and where it first stood within FULL_SHARE of it,
  // which must come within FILL_MS of the start: a queue that filled and then held, clients giving up as
  // fast as new ones came, peaks by a few requests hours later.
  let peak = -1;
  for (let i = c.span[0]; i <= c.span[1]; i++) if (Number.isFinite(c.f.wait[i]) && (peak < 0 || c.f.wait[i] > c.f.wait[peak])) peak = i;
  if (peak < 0) return NaN;
  let full = c.span[0];
  while (!(c.f.wait[full] >= FULL_SHARE * c.f.wait[peak])) full++;
  if (c.f.t[full] > c.f.t[c.span[0]] + FILL_MS) return NaN;
  // How long arrivals stood at a surge's level: a queue filled by a burst of a few minutes is an arrival
  // spike's, which drains by itself (unexplained.ts).
  const lamB = medB(c, c.f.lamIn);
  const level = c.cfg.causes.surge_arrival_ratio * lamB;
  const xs: number[] = [];
  let surged = 0;
  for (let i = c.span[0]; i <= full; i++) {
    if (!Number.isFinite(c.f.lamIn[i])) continue;
    xs.push(c.f.lamIn[i]);
    if (c.f.lamIn[i] >= level) surged += c.f.grid.step;
  }
  if (surged <= BURST_MAX_MS) return NaN;
  const [b0, b1] = halfHourBefore(c);
  const before: number[] = [];
  for (let i = b0; i <= b1; i++) if (Number.isFinite(c.f.lamIn[i])) before.push(c.f.lamIn[i]);
  if (xs.length < 3 || before.length < 3) return NaN;
  const m = median(xs);
  return Math.min(ratio(m, lamB), ratio(m, median(before)));
}

/**
 * The longest stretch of the span with a backlog — requests waiting beyond the baseline's (queuedBeyond) and
 * beyond what the next steps take in (QUEUE_IN_STEP of those running) — in ms from its first window's start to
 * its last window's, and whether it still stood at the last window the queue was read in. Windows with no
 * reading neither end nor extend a stretch by themselves.
 */
function queueHeld(c: CauseContext): { ms: number; open: boolean } {
  const { wait, t } = c.f;
  const beyond = queuedBeyond(c);
  let best = 0;
  let from = -1;
  let last = -1;
  let i = c.span[0];
  for (; i < wait.length; i++) {
    if (!Number.isFinite(wait[i])) continue;
    if (wait[i] > beyond && !(wait[i] <= QUEUE_IN_STEP * c.f.run[i])) {
      if (from < 0) {
        if (i > c.span[1]) break;
        from = i;
      }
      last = i;
      best = Math.max(best, t[last] - t[from] + c.f.grid.step);
    } else {
      from = -1;
      if (i > c.span[1]) break;
    }
  }
  // A stretch still open when the loop ran out of windows stood at the last reading.
  return { ms: best, open: from >= 0 && i === wait.length };
}

/**
 * A surge is arrivals beyond what the engine serves for as long as it lasts: its queue stands for minutes
 * (BURST_MAX_MS at a stretch) or until the data ends. A queue of a few requests that drains within
 * minutes is a burst the service absorbed: at the peak of a healthy day (KV at 8%) eight requests waited
 * for three minutes, queue time P99 ×38 against the quiet morning's, and read as a surge.
 */
function heldCond(held: { ms: number; open: boolean }, absorbed?: Absorbed): ReturnType<typeof cond> {
  const backlog = `a backlog (requests waiting beyond the baseline's and beyond ${QUEUE_IN_STEP}× those running) for ≥ ${BURST_MAX_MS / 60_000} min at a stretch, or still at the data's end`;
  const value = `${Math.round(held.ms / 1000)} s${held.open ? ', still waiting at the end' : ''}`;
  const backlogHeld = held.ms >= BURST_MAX_MS || held.open;
  if (!absorbed) return cond(backlog, value, backlogHeld);
  return cond(
    `${backlog}, or the batch took the surge in at its cap (running ×≥ arrivals', decode ×≥ ${DECODE_SLOWER} and ≤ ${LOAD_SLOWDOWN}× arrivals')`,
    `${value}; running ×${fmt(absorbed.rRun)}, decode ×${fmt(absorbed.rItl)}`,
    backlogHeld || absorbed.held,
  );
}

/**
 * Saturation shown by the work itself where neither the batch's cap nor the pool is reached: the engine served
 * more than in the baseline (tokens ×SERVED_MORE: it was not failing) while more requests waited than ran, in
 * the median over the span. An engine whose steps are bound by prefill compute serves at its rate with slots
 * and KV to spare: arrivals ×1.75 built a queue of 26,000 beside 90 running, KV at 0.45, tokens ×1.2, and the
 * surge was not named. Lost capacity serves less, not more; a starved frontend is the veto's.
 */
function queueOutgrewBatch(c: CauseContext): { held: boolean; rServed: number; wait: number; run: number } {
  // Tokens out, else in; where neither is counted (TGI scraped without its token histograms), requests finished.
  const served = c.f.gtok.some(Number.isFinite) ? c.f.gtok : c.f.ptok.some(Number.isFinite) ? c.f.ptok : c.f.lamOut;
  const rServed = rE(c, served);
  const wait = medE(c, c.f.wait);
  const run = medE(c, c.f.run);
  return { held: rServed >= SERVED_MORE && wait > Math.max(1, run), rServed, wait, run };
}

/** Tokens served at least this many times the baseline's: an engine doing more, not failing. */
const SERVED_MORE = 1.1;

interface Absorbed {
  held: boolean;
  rRun: number;
  rItl: number;
}

/**
 * A surge the batch took in: arrivals that jumped (×surge_arrival_ratio against the half hour before the span as
 * well as the baseline: no day's climb), the batch at its cap with running grown at least as much as arrivals
 * (each request stays longer as every step slows: Little's law), and decode slower by DECODE_SLOWER at
 * the median, but by no more than LOAD_SLOWDOWN × the arrivals' rise. Such a surge pays in every token rather
 * than in a queue: arrivals ×2.5 for 27 minutes grew the batch ×10 to its cap, ITL ×2.6, TTFT ×10, while the
 * requests waiting beside 60 running stayed under a quarter of them but for a few minutes, and read
 * "unexplained". More sequences in a memory-bound step slow it by less than their number; decode ×6.5 at
 * arrivals ×1.36 is a step that lost its speed by itself (eager steps past the CUDA-graph cap: three fallbacks
 * read as this surge), the batch grown because of it. Another cause that slows decode leaves arrivals where
 * they were; one that grows the batch from within (longer requests) is kv_exhaustion's veto below.
 */
function batchAbsorbed(c: CauseContext, rLam: number, rLamEarly: number, runAtMax: boolean): Absorbed {
  const rRun = rE(c, c.f.run);
  const rItl = rE(c, itlReading(c.f));
  const jumped = rLam >= c.cfg.causes.surge_arrival_ratio && rLamEarly >= c.cfg.causes.surge_arrival_ratio;
  return { held: jumped && runAtMax && rRun >= rLam && rItl >= DECODE_SLOWER && loadExplains(rItl, rLam), rRun, rItl };
}

/**
 * How soon after the span's start a surge's queue is full (FULL_SHARE of its peak): a surge lasts as long as
 * it lasts, and its queue fills for all of it (30 min missed a 55-minute surge); hours of filling are a day's
 * climb. STEP_MS is the episode's start read as a step against the half hour before it (BEFORE_MS).
 */
const FILL_MS = 120 * 60_000;
const STEP_MS = 30 * 60_000;
const FULL_SHARE = 0.9;
const BEFORE_MS = 30 * 60_000;

/** The windows of the half hour before the span (BEFORE_MS); empty (end < start) where the span starts the data. */
function halfHourBefore(c: CauseContext): Range {
  let a = c.span[0];
  while (a - 1 >= 0 && c.f.t[a - 1] >= c.f.t[c.span[0]] - BEFORE_MS) a--;
  return [a, c.span[0] - 1];
}

/**
 * An engine read from its periodic log lines alone (vLLM's "Avg prompt throughput … Running … Waiting …"):
 * no completions, no latency. Arrivals are at least the work served, and more where the queue grows, so
 * served tokens up ≥ surge_arrival_ratio with every slot busy and the queue growing is the surge. Only
 * where the slots are the limit: a pool filled by longer requests serves more tokens per request too, and
 * without request counts the two cannot be told apart (kv_exhaustion reads that case). Null where the
 * log lines do not give these signals either.
 */
function fromLogLines(c: CauseContext): RuleResult | null {
  const T = c.cfg.causes;
  if (missingInputs(c.f, [SIG.reqWaiting, SIG.reqRunning, [SIG.tokensPromptRate, SIG.tokensPrompt, SIG.tokensGenerationRate, SIG.tokensGeneration]]).length) return null;
  const served = c.f.ptok.some(Number.isFinite) ? c.f.ptok : c.f.gtok;
  const rServed = rE(c, served);
  const { waitSlope, runAtMax, kvHigh } = engineFull(c);
  const waitB = medB(c, c.f.wait);
  const waitE = maxE(c, c.f.wait);
  const queued = waitE > queuedBeyond(c);
  // A full pool is the surge's too: the log lines show KV held per running request, which longer requests
  // raise and more requests of the same size do not (a surge's full pool holds younger requests, if
  // anything less each). Held per request under-reads longer prompts (half the output held on average,
  // cached prefixes), so any growth past GREW reads as longer requests. An unmeasured footprint keeps the
  // pool's reading (NaN fails the comparison, the veto holds).
  const held = c.f.kv.map((k, i) => (c.f.run[i] > 0 ? k / c.f.run[i] : NaN));
  const rHeld = rE(c, held);
  return {
    id: 'traffic_surge',
    missing: [],
    require: [
      cond(`work served up: r(${served === c.f.ptok ? 'prompt' : 'generation'} tokens/s) ≥ ${T.surge_arrival_ratio} (no request counts: log lines only)`, rServed, rServed >= T.surge_arrival_ratio, T.surge_arrival_ratio),
      cond('slope(wait) > 0 (per min, up to its peak)', waitSlope, waitSlope > 0),
      cond('every slot busy (run at max)', runAtMax, runAtMax),
      heldCond(queueHeld(c)),
      cond('requests waiting (wait > max(1, 2× the baseline)): no latency measured, the queue is the symptom', `${fmt(waitE)} (baseline ${fmt(waitB)})`, queued),
    ],
    support: [],
    veto: [
      cond(
        `KV ≥ ${T.kv_high} with each running request holding more: r(KV per running request) ≥ ${GREW} (longer requests, → kv_exhaustion)`,
        `max kv ${fmt(maxE(c, c.f.kv))}, r(KV per request) ${fmt(rHeld)}`,
        kvHigh && !(rHeld < GREW),
        T.kv_high,
      ),
    ],
    evidence: [seriesEvidence(c, SIG.reqWaiting, `queue grows ${fmt(waitSlope)}/min; work served ×${fmt(rServed)}`)],
    onset_ms: departureOnset(c, served, 1, (i) => ratio(served[i], medB(c, served)) >= T.surge_arrival_ratio, 2),
  };
}

/** How long a queue-free stretch must carry the queue's arrivals to show the engine could serve them. */
const SERVED_MS = 10 * 60_000;
/**
 * The share of the queue's arrivals a queue-free stretch must have taken: a 10-minute median of arrivals
 * read off counters wanders by a few percent, and a rise of 5% is no surge (the rule asks for 30%).
 */
const SERVED_SHARE = 0.95;
/** The minutes after the queue's start whose arrivals it began at. */
const QUEUE_START_MS = 5 * 60_000;

/**
 * A queue that a surge grew starts where arrivals rose past what the engine serves. Where a stretch of
 * SERVED_MS before it, with no queue, took the arrivals the queue began at (the median of its first
 * QUEUE_START_MS; SERVED_SHARE of them), the engine had served that load: it lost capacity (a starved frontend, a
 * slower step), and arrivals that crept up through a day are no surge. Chunks of SERVED_MS inside the
 * queue-free stretches are read, not every sliding stretch: linear in the windows. Null where it was not
 * served before, or no queue began.
 */
export function servedBefore(c: CauseContext, q0: number): { level: number; before: number; ago: number } | null {
  const { wait, lamIn, t } = c.f;
  const beyond = queuedBeyond(c);
  if (q0 < 0) return null;
  const first: number[] = [];
  for (let i = q0; i <= c.span[1] && t[i] < t[q0] + QUEUE_START_MS; i++) if (Number.isFinite(lamIn[i])) first.push(lamIn[i]);
  if (!first.length) return null;
  const level = median(first);
  let chunk: number[] = [];
  let from = NaN;
  let lastRead = -Infinity;
  for (let i = 0; i < q0; i++) {
    // A window not read is skipped: on a grid finer than the engine's scrapes (a 10 s GPU exporter beside a
    // 2-minute engine scrape) most windows are, and a stretch of them is no queue. Unread for longer than
    // a stretch, the stretch ends: what was served across the silence is unknown. A window with a queue ends it.
    if (Number.isNaN(wait[i])) continue;
    const queued = wait[i] > beyond;
    if (queued || t[i] - lastRead > SERVED_MS) {
      chunk = [];
      from = NaN;
    }
    lastRead = t[i];
    if (queued) continue;
    if (Number.isNaN(from)) from = t[i];
    if (Number.isFinite(lamIn[i])) chunk.push(lamIn[i]);
    if (t[i] - from < SERVED_MS) continue;
    const before = chunk.length ? median(chunk) : NaN;
    if (before >= SERVED_SHARE * level) return { level, before, ago: t[q0] - from };
    chunk = [];
    from = NaN;
  }
  return null;
}

const fmtAgo = (ms: number) => (ms >= 3_600_000 ? `${fmt(ms / 3_600_000)} h before` : `${Math.round(ms / 60_000)} min before`);

/** Requests that hold this much more KV each than in the baseline have grown (a surge's do not: 0.7–1.0 in the generator's surges, 1.15–2 where conversations lengthened). */
const GREW = 1.1;

/** The larger of two readings, either of which may be unmeasured (NaN); NaN when both are. */
function finiteMax(a: number, b: number): number {
  return Number.isNaN(a) ? b : Number.isNaN(b) ? a : Math.max(a, b);
}
