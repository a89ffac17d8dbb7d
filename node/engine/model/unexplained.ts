// What makes an incident abnormal whether or not a rule explains it (docs/four-quadrant-model.md §7, Status): a crash, an
// OOM, an Xid, an outage, a stall, the joint trigger, a sustained symptom alert. With no rule firing
// these make the status "unexplained" with their evidence and onset — an engine that died of a CUDA OOM
// must never read "healthy" because no rule's REQUIRE held.
import type { Alert, Evidence } from '../../../common/contract/diagnosis';
import type { EventRow } from '../../../common/contract/types';
import type { ModelConfig } from './config';
import { itlReading, stepping, type Frame } from './frame';
import { QUEUE_IN_STEP, type Range } from './causes/context';
import { hasSampleIn, samplesIn, type Signals } from './signals-from-store';
import { EV, SIG } from '../../../common/names';
import { ENGINE_FAMILY, windowAt } from './windows';
import { rangeMedian } from './range-stats';
import { worstRestartLoop } from './restarts';
import { sustainedSymptoms } from './alerts';
import { median } from './baseline';

/** Event kinds that are faults by themselves. */
// (An NCCL error is a fault: a job whose log shows only ncclRemoteError and a DistBackendError had read "healthy".)
const FAULT_KINDS = new Set<string>([EV.oom, EV.hostOomKill, EV.engineCrash, EV.gpuFallenOff, EV.gpuLost, EV.ncclTimeout, EV.ncclError, EV.xid]);
/** A traceback is a fault when it is one of these (a handled client error prints tracebacks too). */
const FATAL_TRACE = /EngineDeadError|CUDA error|out of memory|NCCL|Segmentation fault|fatal/i;

export interface AbnormalInputs {
  f: Frame;
  sig: Signals;
  cfg: ModelConfig;
  base: Range;
  alerts: Alert[];
  /** First window of a joint-trigger streak that lasted `alerts.incident_min_ms`, -1 when none did. */
  onsetIndex: number;
}

/** Evidence that something went wrong, earliest first; empty for a healthy incident. */
export function abnormalEvidence(x: AbnormalInputs): Evidence[] {
  const { f, sig, cfg } = x;
  const from = f.t[0];
  const to = f.t[f.grid.n - 1] + f.grid.W;
  const out: Evidence[] = [];
  const faults = sig.events.filter((e) => e.ts_ms >= from && e.ts_ms <= to && isFault(e));
  for (const e of faults.slice(0, MAX_EVENTS)) out.push({ kind: 'event', ref: String(e.id), start_ms: e.ts_ms, end_ms: e.ts_ms, text: `${e.kind}: ${e.text.slice(0, 160)}` });

  // A process that restarted again and again is a crash loop whether or not its logs were collected.
  const loop = worstRestartLoop(sig, cfg.causes.crash_loop_window_ms);
  if (loop && loop.count >= cfg.causes.crash_loop_restarts) {
    out.push({ kind: 'series', ref: SIG.processStart, start_ms: loop.from, end_ms: loop.to, text: `the engine restarted ${loop.count} times in ${Math.round((loop.to - loop.from) / 60_000)} min (its process start time moved)` });
  }

  const gpusLived = gpusHeldAndWorking(f, x.base);
  const outage = longestSilence(f, x.base, (a, b) => engineSpoke(sig, a, b) || gpusLived(a, b) || countedThrough(sig, a, b));
  if (outage && outage.ms >= cfg.causes.outage_min_ms) out.push({ kind: 'series', ref: SIG.tokensGeneration, start_ms: outage.start, end_ms: outage.end, text: `the engine reported nothing for ${Math.round(outage.ms / 1000)} s ${OUTAGE_MARK}` });

  const stall = longestStall(f, x.base);
  // As engine_hang reads it: two windows at least (one window of no tokens is one pair of equal readings).
  if (stall && stall.ms >= Math.max(cfg.causes.hang_min_ms, 2 * f.grid.W)) out.push({ kind: 'series', ref: 'tokens.generation', start_ms: stall.start, end_ms: stall.end, text: `no tokens with requests in flight for ${Math.round(stall.ms / 1000)} s (stall)` });

  if (x.onsetIndex >= 0) out.push({ kind: 'series', ref: 'lat.e2e', start_ms: f.t[x.onsetIndex], end_ms: f.t[x.onsetIndex] + f.grid.W, text: 'joint trigger: P99 latency up and token rate down against the baseline' });
  for (const a of sustainedSymptoms(x.alerts, to, cfg.alerts.incident_min_ms)) {
    if (absorbedBurst(x, a) || servedInStep(x, a)) continue;
    out.push({ kind: 'series', ref: a.family, start_ms: a.first_fired_ms, end_ms: a.resolved_ms ?? to, text: `${a.family} alert` });
  }
  return out.sort((a, b) => a.start_ms - b.start_ms);
}

const MAX_EVENTS = 10;

/** The longest arrival burst a service may absorb with a while of slow requests and still be healthy. */
export const BURST_MAX_MS = 5 * 60_000;
/** How soon after such a burst its queue must have drained (the alert resolved). */
const BURST_DRAIN_MS = 15 * 60_000;

/**
 * Whether a short burst of arrivals explains a symptom alert: arrivals at `surge_arrival_ratio` × the
 * baseline's or more, within BURST_MAX_MS before the alert's streak began, for no longer than BURST_MAX_MS
 * in all, and the alert resolved within BURST_DRAIN_MS of the burst's end. A service near its capacity
 * that took a two-minute burst queues it and serves it slowly for minutes: that alert is the burst's, and
 * the service absorbed it (short arrival spikes are healthy traffic's look-alikes; a surge that lasts is
 * traffic_surge's, which this does not touch: a firing cause makes the status).
 */
function absorbedBurst(x: AbnormalInputs, a: Alert): boolean {
  const { f, cfg } = x;
  if (a.resolved_ms === null) return false;
  const lamB = rangeMedian(f.lamIn, x.base);
  if (!(lamB > 0)) return false;
  const at = (ms: number) => windowAt(f.grid, ms);
  const high = (i: number) => f.lamIn[i] >= cfg.causes.surge_arrival_ratio * lamB;
  const streak = a.first_fired_ms - cfg.alerts.for_ms;
  let i = at(streak - BURST_MAX_MS);
  const last = at(a.first_fired_ms);
  while (i <= last && !high(i)) i++;
  if (i > last) return false;
  let j0 = i;
  while (j0 - 1 > x.base[1] && high(j0 - 1)) j0--;
  let j1 = i;
  while (j1 + 1 < f.grid.n && high(j1 + 1)) j1++;
  const start = f.t[j0];
  const end = f.t[j1] + f.grid.W;
  return end - start <= BURST_MAX_MS + f.grid.W && a.resolved_ms <= end + BURST_DRAIN_MS;
}

/** Arrivals this far above the baseline's are a grown load (a day's peak, not a wobble). */
const LOAD_GROWN = 1.1;
/** Tokens/s at this share of the arrivals' growth or more: the engine served the load it was given. */
const SERVED_SHARE = 0.9;
/**
 * Median decode (ITL) this many times the baseline's is every request slowed: harm, not a busier engine's longer
 * tail (a surge the batch took in slows every token too, and traffic_surge names it) — unless the load explains
 * it (LOAD_SLOWDOWN).
 */
export const DECODE_SLOWER = 1.5;
/**
 * A load slows a memory-bound decode step by less than it grew: more sequences add their KV reads to a step
 * that reads every weight anyway. Decode slower by more than this many times the arrivals' rise is a step
 * that lost its speed by itself (an engine loop starved by its host: ITL ×2.5 at arrivals ×1.5; eager steps
 * past the CUDA-graph cap: ×6.5 at ×1.36), not the load's doing.
 */
export const LOAD_SLOWDOWN = 1.5;
/** Whether the arrivals' rise (`rLam`) explains decode slower by `rItl` (LOAD_SLOWDOWN). */
export const loadExplains = (rItl: number, rLam: number): boolean => rItl <= LOAD_SLOWDOWN * rLam;

/**
 * Whether a latency alert rode a load the engine served in step: over the alert's stretch arrivals grew
 * (≥ LOAD_GROWN × the baseline's median), tokens/s grew with them (≥ SERVED_SHARE of the arrivals' ratio),
 * no queue built up (under one more request waiting than in the baseline), errors did not rise, decode kept its speed and
 * the requests kept their lengths. Latency that rises with served load is
 * a busier engine, not a fault: a day's peak (arrivals ×1.5 over a quiet morning's baseline) lifted the TTFT
 * tail ×6 (the odd request queued for a second at the peak) while every request was served, and its hours
 * of latency alerts read "unexplained". A fault takes throughput (the joint trigger), piles requests up
 * or raises errors, and a surge beyond capacity queues: all of those still count.
 */
function servedInStep(x: AbnormalInputs, a: Alert): boolean {
  const { f, cfg } = x;
  if (a.family !== 'latency') return false;
  const from = windowAt(f.grid, a.first_fired_ms - cfg.alerts.for_ms);
  const to = a.resolved_ms === null ? f.grid.n - 1 : windowAt(f.grid, a.resolved_ms);
  if (to < from) return false;
  const during: Range = [Math.max(from, x.base[1] + 1), to];
  const med = (v: Float64Array, r: Range) => rangeMedian(v, r);
  const rLam = med(f.lamIn, during) / med(f.lamIn, x.base);
  const rGtok = med(f.gtok, during) / med(f.gtok, x.base);
  const waitB = med(f.wait, x.base);
  const errB = med(f.errFrac, x.base);
  // Nothing piles up: less than one more request waiting, in median, than in the baseline (a fleet of three
  // at its peak had half a request queued somewhere at a time), or fewer than QUEUE_IN_STEP of the batch
  // running beside them: those are taken in the next step or two (a day's peak at 3.8/s held 1–2 waiting
  // beside 11 running, and read "unexplained"). A backlog that piles up outgrows the batch.
  const queueRoom = Math.max((Number.isFinite(waitB) ? waitB : 0) + 1, QUEUE_IN_STEP * med(f.run, during));
  const calm = !(med(f.wait, during) >= queueRoom) && !(med(f.errFrac, during) > (Number.isFinite(errB) ? errB : 0));
  // And at its speed: a busier engine lengthens the tail, not every token. Decode slower in the median by
  // DECODE_SLOWER is every request slowed (a starved engine loop: ITL ×2.5 at the median for three hours, beside
  // arrivals ×1.5 it still served), unless the load explains it: a day's peak on a memory-bound engine slows its
  // decode too, by less than it grew (a 70B model on two replicas at 2,500-token prompts: ITL ×1.4–1.5 at the
  // evening peak, arrivals ×5 the night's; each replica's latency alerts of 5–15 minutes through the peak kept a
  // healthy day "unexplained").
  const itl = itlReading(f);
  const rItl = med(itl, during) / med(itl, x.base);
  const slower = rItl >= DECODE_SLOWER && !loadExplains(rItl, rLam);
  // And with the same requests: more of them, not longer ones. Prompts or outputs grown by LONGER in the mean
  // are a changed workload whose latency is its own (documents sent beside the chat traffic raised TTFT ×3 at
  // arrivals ×1.2, every one served, and read healthy).
  const grew = (v: Float64Array) => med(v, during) / med(v, x.base) >= LONGER;
  const sameRequests = !grew(f.plenMean) && !grew(f.glenMean);
  return rLam >= LOAD_GROWN && rGtok >= SERVED_SHARE * rLam && calm && !slower && sameRequests;
}

/** Requests this much longer in the mean (prompt or output) than the baseline's are another workload, not more of the same. */
const LONGER = 1.3;

const OUTAGE_MARK = '(outage)';

/** Whether a piece of abnormal evidence is an outage (a silence of the engine's own metrics). */
export function isOutageEvidence(e: Evidence): boolean {
  return e.kind === 'series' && e.ref === SIG.tokensGeneration && e.text.endsWith(OUTAGE_MARK);
}

function isFault(e: EventRow): boolean {
  if (FAULT_KINDS.has(e.kind)) return true;
  return e.kind === EV.traceback && FATAL_TRACE.test(e.text);
}

/** Each loaded GPU's readings over a stretch: how many windows read its memory, and its util there. */
export type GpuReadings = { seen: number; util: number[] }[];

/**
 * A reader of the loaded GPUs' readings over [startMs, endMs), null where any of them let its loaded memory
 * go (< 90% of its baseline median: a process that died or restarted frees it). GPUs idle in the baseline
 * (no memory held) are left out; their baseline levels are read once.
 */
export function loadedGpus(f: Frame, base: Range): (startMs: number, endMs: number) => GpuReadings | null {
  const gpus = f.gpus.map((g) => ({ g, level: median(g.memUsed.subarray(base[0], base[1] + 1)) })).filter((x) => x.level > 0);
  return (startMs, endMs) => {
    // Windows are a regular grid: only those inside the stretch are read.
    const from = Math.max(0, Math.ceil((startMs - f.grid.t0) / f.grid.step));
    const out: GpuReadings = [];
    for (const { g, level } of gpus) {
      const r = { seen: 0, util: [] as number[] };
      for (let i = from; i < f.grid.n && f.t[i] < endMs; i++) {
        if (!Number.isFinite(g.memUsed[i])) continue;
        if (g.memUsed[i] < 0.9 * level) return null;
        r.seen++;
        if (Number.isFinite(g.util[i])) r.util.push(g.util[i]);
      }
      out.push(r);
    }
    return out;
  };
}

/**
 * Whether the GPUs' own telemetry says the engine lived through [startMs, endMs): every GPU read there holds
 * its loaded memory and they were not pinned busy throughout (a rank spinning in a hung collective keeps its
 * memory too). Lost scrapes of the engine's metrics, with nvidia-smi showing the same traffic rhythm, are a
 * gap in one source.
 */
function gpusHeldAndWorking(f: Frame, base: Range): (startMs: number, endMs: number) => boolean {
  const read = loadedGpus(f, base);
  return (startMs, endMs) => {
    const gpus = read(startMs, endMs);
    if (!gpus) return false;
    let minUtil = Infinity;
    for (const g of gpus) for (const u of g.util) minUtil = Math.min(minUtil, u);
    return gpus.some((g) => g.seen > 0) && minUtil < 0.95;
  };
}

/** How far either side of a silence its token counters are read: the pace before it, and the reading that ends it. */
const COUNTED_SPAN_MS = 15 * 60_000;
/** The least share of the pace before a silence that its counters kept across it for the engine to have served through it. */
const COUNTED_PACE = 0.5;

/**
 * Whether the engine's generated-token counters went on counting through a silence: every counter read on both
 * sides of it rose across it at COUNTED_PACE of its pace over the quarter hour before or more, none fell. A
 * scraper that lost every replica's scrapes for seven minutes (a monitoring gap) left the windows as silent as
 * a dead engine, while the counters showed 107 tokens/s across the gap against 100 before. An engine that was
 * down restarts its counters (a fall) and a hung one stops them: both stay outages.
 */
function countedThrough(sig: Signals, startMs: number, endMs: number): boolean {
  let judged = 0;
  for (const s of sig.series.get(SIG.tokensGeneration) ?? []) {
    if (s.kind !== 'counter') continue;
    // The first and last readings of the quarter hour before the silence, and the first after it.
    const before = { n: 0, t0: NaN, v0: NaN, t1: NaN, v1: NaN };
    samplesIn(s, startMs - COUNTED_SPAN_MS, startMs - 1, (t, v) => {
      if (before.n++ === 0) [before.t0, before.v0] = [t, v];
      [before.t1, before.v1] = [t, v];
    });
    const after = { t: NaN, v: NaN };
    samplesIn(s, endMs + 1, endMs + COUNTED_SPAN_MS, (t, v) => {
      if (Number.isNaN(after.t)) [after.t, after.v] = [t, v];
    });
    if (before.n < 2 || Number.isNaN(after.t)) continue;
    judged++;
    const paceBefore = (before.v1 - before.v0) / (before.t1 - before.t0);
    if (!(before.t1 > before.t0 && paceBefore > 0 && after.v >= before.v1 && (after.v - before.v1) / (after.t - before.t1) >= COUNTED_PACE * paceBefore)) return false;
  }
  return judged > 0;
}

/** Whether a window has any reading from the serving engine. */
const engineSeen = (f: Frame, i: number) =>
  Number.isFinite(f.gtok[i]) || Number.isFinite(f.run[i]) || Number.isFinite(f.wait[i]) || Number.isFinite(f.kv[i]) || Number.isFinite(f.lamOut[i]);

/**
 * The longest stretch after the baseline where the engine, seen before, reported nothing (scrapes
 * failed, the process was down), measured in time; trailing silence counts (an engine that died for good).
 */
function longestSilence(f: Frame, base: Range, spoke: (startMs: number, endMs: number) => boolean): { ms: number; start: number; end: number } | null {
  let seen = false;
  for (let i = base[0]; i <= base[1]; i++) seen ||= engineSeen(f, i);
  if (!seen) return null;
  let best: { ms: number; start: number; end: number } | null = null;
  let from = -1;
  for (let i = base[1] + 1; i <= f.grid.n; i++) {
    const quiet = i < f.grid.n && !engineSeen(f, i);
    if (quiet && from < 0) from = i;
    if (!quiet && from >= 0) {
      const start = f.t[from];
      const end = i < f.grid.n ? f.t[i] + f.grid.W / 2 : f.t[f.grid.n - 1] + f.grid.W;
      // The engine's voice is sought inside the silence only: the first window with data holds the reading
      // that ended it, and counting it as spoken there hid every outage the engine came back from.
      const inside = i < f.grid.n ? f.t[i] - 1 : end;
      if ((!best || end - start > best.ms) && !spoke(start, inside)) best = { ms: end - start, start, end };
      from = -1;
    }
  }
  return best;
}

/** The longest stretch after the baseline with zero tokens and requests in flight (unknown windows bridge). */
function longestStall(f: Frame, base: Range): { ms: number; start: number; end: number } | null {
  let best: { ms: number; start: number; end: number } | null = null;
  let first = -1;
  let last = -1;
  const close = () => {
    if (first < 0) return;
    const end = f.t[last] + f.grid.W;
    if (!best || end - f.t[first] > best.ms) best = { ms: end - f.t[first], start: f.t[first], end };
    first = last = -1;
  };
  for (let i = base[1] + 1; i < f.grid.n; i++) {
    if (!Number.isFinite(f.gtok[i])) continue;
    const inFlight = (Number.isFinite(f.runMin[i]) ? f.runMin[i] : 0) + (Number.isFinite(f.waitMin[i]) ? f.waitMin[i] : 0);
    if (f.gtok[i] === 0 && inFlight > 0 && !(f.lamOut[i] > 0) && !stepping(f, i)) {
      if (first < 0) first = i;
      last = i;
    } else close();
  }
  close();
  return best;
}

/**
 * Whether any of the engine's own series, from any source, has a reading in [startMs, endMs]. The frame
 * reads each signal from its best source (the scrape before the log line), so lost scrapes look silent
 * there while the engine's log went on talking: that is a gap in one source, not an outage. A stored
 * series answers by one seek, never by reading it whole.
 */
export function engineSpoke(sig: Signals, startMs: number, endMs: number): boolean {
  for (const [name, list] of sig.series) {
    if (!ENGINE_FAMILY.test(name)) continue;
    for (const s of list) if (hasSampleIn(s, startMs, endMs)) return true;
  }
  return false;
}
