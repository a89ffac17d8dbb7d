// What every rule sees, and the small vocabulary rules are written in (docs/root-causes.md §1): values over
// the evaluation span E vs the baseline B, conditions with their measured values, evidence links.
import type { CauseId, Condition, Evidence } from '../../../../common/contract/diagnosis';
import type { EventRow } from '../../../../common/contract/types';
import type { EventKind } from '../../../../common/names';
import { max, median, min, ratio } from '../baseline';
import { finitePeak, rangeMad, rangeMedian } from '../range-stats';
import type { ModelConfig } from '../config';
import type { Frame } from '../frame';
import type { KvAnalysis } from '../kvcache';
import type { Fragmentation, MemoryTrend } from '../leak';
import type { Dimensions } from '../normalize';
import type { Signals } from '../signals-from-store';
import { olsSlope } from '../trend';
import { formatBytes } from '../../../../common/format';
import { kneeFit } from '../change-point';

export type Range = [number, number];

export interface CauseContext {
  f: Frame;
  dims: Dimensions;
  cfg: ModelConfig;
  sig: Signals;
  /** Baseline windows (inclusive). */
  base: Range;
  /** Evaluation windows: the degraded episode from onset, else everything after the baseline. */
  span: Range;
  /** Whether `span` is a symptom episode (an onset or alerts), not just "after the baseline". */
  episode: boolean;
  onsetIndex: number;
  trend: MemoryTrend | null;
  frag: Fragmentation | null;
  kv: KvAnalysis | null;
}

export interface RuleResult {
  id: CauseId;
  /** Inputs whose absence makes the rule not assessable (REQUIRE data missing). */
  missing: string[];
  require: Condition[];
  support: Condition[];
  veto: Condition[];
  evidence: Evidence[];
  onset_ms: number | null;
  /**
   * Where the cause first showed by its own threshold (a full pool that blocked requests), where that is
   * later than `onset_ms`, which dates the drift leading there: a trigger that began before it can have
   * driven it (rank.ts), though a noisy walk-back dated the drift earlier than the trigger.
   */
  manifest_ms?: number | null;
  /** Memory causes rank with oom_crash_loop when they end in an OOM. */
  endsInOom?: boolean;
  /**
   * The cause's defining figure was read off the symptom itself (a CUDA-graph capture size taken as the
   * batch where ITL stepped): other mechanisms leave the same trace, so it ranks after every cause read
   * from signals of its own.
   */
  inferred?: boolean;
}

export type Rule = (ctx: CauseContext) => RuleResult;

/**
 * One root cause, declared in its own file (docs/adding-a-cause.md): its id, where it ranks, which causes
 * can drive it, and its rule. registry.ts lists every definition once.
 */
export interface CauseDefinition<Id extends CauseId = CauseId> {
  id: Id;
  /** Precedence level (docs/root-causes.md §2): lower ranks first; causes on one level tie. */
  level: number;
  /** Upstream triggers this cause can follow from (the chain runs upstream → proximate), in the order they are tried. */
  upstream?: CauseId[];
  rule: Rule;
}

export const defineCause = <Id extends CauseId>(d: CauseDefinition<Id>): CauseDefinition<Id> => d;

/** A rule fires when it could be assessed, every REQUIRE held and no VETO did. */
export const fires = (r: RuleResult): boolean => !r.missing.length && r.require.length > 0 && r.require.every((c) => c.held) && !r.veto.some((c) => c.held);

/** Measured values are rounded for the report: 4 significant digits. */
export function round(x: number | null): number | null {
  if (x === null || !Number.isFinite(x)) return x === Infinity ? 1e308 : null;
  if (x === 0) return 0;
  return Number(x.toPrecision(4));
}

/** A condition with its measured value and, where it compares with a configured number, that threshold. */
export function cond(condition: string, value: number | string | boolean | null, held: boolean, threshold?: number): Condition {
  const c: Condition = { condition, value: typeof value === 'number' ? round(value) : value, held };
  if (threshold !== undefined) c.threshold = threshold;
  return c;
}

/**
 * Missing inputs: each entry is a name or a list of alternatives (any one present will do); a rule is
 * not assessable when any entry is unmet, and says which.
 */
export function missingInputs(f: Frame, needs: (string | string[])[]): string[] {
  const out: string[] = [];
  for (const n of needs) {
    const alts = Array.isArray(n) ? n : [n];
    if (!alts.some((a) => f.have.has(a))) out.push(alts.join(' or '));
  }
  return out;
}

export const slice = (x: Float64Array, r: Range): Float64Array => x.subarray(r[0], r[1] + 1);
// Medians of a range are kept per array and range (range-stats.ts): rules ask for the same ones in every convergence run.
export const medE = (c: CauseContext, x: Float64Array) => rangeMedian(x, c.span);
export const maxE = (c: CauseContext, x: Float64Array) => max(slice(x, c.span));
export const minE = (c: CauseContext, x: Float64Array) => min(slice(x, c.span));
export const medB = (c: CauseContext, x: Float64Array) => rangeMedian(x, c.base);
/** r(x): the span's median ÷ the baseline's. */
export const rE = (c: CauseContext, x: Float64Array) => ratio(medE(c, x), medB(c, x));

/**
 * The largest r() over several readings of one symptom — a family's P99 and its exact mean from the
 * histogram's sum and count. A P99 interpolated inside wide buckets can sit still while the mean moves
 * severalfold, and a mean can hide a tail the P99 shows; either moving is the symptom. NaN when none is known.
 */
export function rAny(c: CauseContext, ...xs: Float64Array[]): number {
  let best = NaN;
  for (const x of xs) {
    const r = rE(c, x);
    if (Number.isFinite(r) || r === Infinity) best = Number.isNaN(best) ? r : Math.max(best, r);
  }
  return best;
}

/** Share of span windows where `pred` holds, among windows where it can be judged (finite inputs). */
export function fracE(c: CauseContext, pred: (i: number) => boolean | null): number {
  let yes = 0;
  let n = 0;
  for (let i = c.span[0]; i <= c.span[1]; i++) {
    const p = pred(i);
    if (p === null) continue;
    n++;
    if (p) yes++;
  }
  return n ? yes / n : NaN;
}

/** Start of the first span window where `pred` holds; null when it never does. */
export function firstE(c: CauseContext, pred: (i: number) => boolean): number | null {
  for (let i = c.span[0]; i <= c.span[1]; i++) if (pred(i)) return c.f.t[i];
  return null;
}

/**
 * The longest stretch of span windows where `pred` holds, in ms, and where it began and ended. A window
 * where `pred` cannot be judged (null: no data) neither breaks nor extends a run — a 600 s stall with a
 * missed scrape is one 600 s stall — and a run's length is the time from its first window's start to
 * its last window's end, whatever the step.
 */
export function longestRun(c: CauseContext, pred: (i: number) => boolean | null): { ms: number; start: number | null; end: number | null } {
  let best = { ms: 0, start: null as number | null, end: null as number | null };
  let first = -1;
  let last = -1;
  const close = () => {
    if (first < 0) return;
    const end = c.f.t[last] + c.f.grid.W;
    const ms = end - c.f.t[first];
    if (ms > best.ms) best = { ms, start: c.f.t[first], end };
    first = last = -1;
  };
  for (let i = c.span[0]; i <= c.span[1]; i++) {
    const p = pred(i);
    if (p === null) continue;
    if (p) {
      if (first < 0) first = i;
      last = i;
    } else close();
  }
  close();
  return best;
}

/**
 * Where a sustained departure of `x` from the baseline began. From the first span window where
 * `strong` holds (the rule's own threshold), walk back over the windows where x is still beyond the
 * baseline's noise band (median ± z·1.4826·MAD, and at least `minRel` of the median) in direction
 * `dir`, bridging single quiet windows; answered as the earliest such window's centre, the time its
 * value describes. A ramp is thus dated where it left the noise, not where it crossed the threshold.
 */
export function departureOnset(c: CauseContext, x: Float64Array, dir: 1 | -1, strong: (i: number) => boolean, z = 3, minRel = 0.05): number | null {
  let j = -1;
  for (let i = c.span[0]; i <= c.span[1]; i++) if (strong(i)) {
    j = i;
    break;
  }
  if (j < 0) return null;
  const m = rangeMedian(x, c.base);
  const band = Math.max(z * 1.4826 * rangeMad(x, c.base), minRel * Math.abs(m));
  const out = (i: number) => Number.isFinite(x[i]) && dir * (x[i] - m) > band;
  let i = j;
  while (i - 1 > c.base[1] && (out(i - 1) || (i - 2 > c.base[1] && out(i - 2)))) i -= out(i - 1) ? 1 : 2;
  const half = c.f.grid.W / 2;
  // A ramp leaves the band some way in: fit "level, move, level" to the windows around the departure
  // (window centres: a window's mean is the signal's value at its centre) and date the move's start.
  // The fit reaches only a little past the departure, so a long concave approach (a heat soak) is read
  // by its first, steepest part rather than bent back by its tail.
  const a = Math.max(c.base[0], i - Math.ceil(KNEE_REACH_MS / c.f.grid.step));
  const z2 = Math.min(c.f.grid.n - 1, i + Math.ceil(KNEE_AFTER_MS / c.f.grid.step));
  const centres = new Float64Array(z2 - a + 1);
  for (let k = a; k <= z2; k++) centres[k - a] = c.f.t[k] + half;
  const fit = kneeFit(centres, x.subarray(a, z2 + 1));
  const first = c.f.t[i] + half;
  if (!fit || !(dir * (fit.after - fit.before) > 0)) return first;
  // A window averages [t, t + W): a move at s shows in every window whose centre is past s − W/2, so the
  // move read off window centres starts half a window before it began.
  return Math.max(c.f.t[c.base[1]] + c.f.grid.W, Math.min(first, centres[fit.start] + half));
}

/**
 * Time before a departure that the knee fit reads (3 min), and after it (80 s): far
 * enough to see a minute-long ramp arrive at its new level, without which a noisy ramp's start is
 * placed late; not so far that a heat soak's long tail bends the fit back.
 */
const KNEE_REACH_MS = 180_000;
const KNEE_AFTER_MS = 80_000;

export const spanStart = (c: CauseContext) => c.f.t[c.span[0]];
export const spanEnd = (c: CauseContext) => c.f.t[c.span[1]] + c.f.grid.W;

export function seriesEvidence(c: CauseContext, ref: string, text: string, start = spanStart(c), end = spanEnd(c)): Evidence {
  return { kind: 'series', ref, start_ms: start, end_ms: end, text };
}

export function eventEvidence(e: EventRow, text?: string): Evidence {
  return { kind: 'event', ref: String(e.id), start_ms: e.ts_ms, end_ms: e.ts_ms, text: text ?? e.text.slice(0, 200) };
}

export const events = (c: CauseContext, ...kinds: EventKind[]) => c.sig.events.filter((e) => (kinds as string[]).includes(e.kind));

export const inSpan = (c: CauseContext, t: number, lookbackMs = 0) => t >= spanStart(c) - lookbackMs && t <= spanEnd(c);

/** Bytes in condition text, as everywhere else in the workstation (common/format.ts). */
export const fmtBytes = (b: number) => formatBytes(b);

/** A rule's result with nothing measured: REQUIRE data absent. */
export function notAssessable(id: CauseId, missing: string[]): RuleResult {
  return { id, missing, require: [], support: [], veto: [], evidence: [], onset_ms: null };
}

/** A ratio or level for condition texts: 3 significant digits, ∞, or n/a. */
export function fmt(x: number): string {
  if (x === Infinity) return '∞';
  return Number.isFinite(x) ? String(Number(x.toPrecision(3))) : 'n/a';
}

/** Prompt tokens the GPU actually computed per window: prompt tokens less the share served from the prefix cache. */
export function computedPromptTokens(c: CauseContext): Float64Array {
  const out = new Float64Array(c.f.grid.n);
  for (let i = 0; i < out.length; i++) out[i] = c.f.ptok[i] * (1 - (Number.isFinite(c.f.hit[i]) ? c.f.hit[i] : 0));
  return out;
}

/**
 * The engine is full and requests pile up inside it: running at its peak while requests queue (median of
 * per-window max ≥ 0.85 × the peak) or KV at `kv_high`, with the waiting queue ramping. Demand beyond what
 * the engine serves looks like this; a starved engine (a slow frontend) does not.
 */
export function engineFull(c: CauseContext): { full: boolean; runAtMax: boolean; kvHigh: boolean; waitSlope: number } {
  const runPeak = finitePeak(c.f.runMax);
  // Judged where the queue stands above its baseline (a short surge inside a long span would be diluted
  // by the calm around it), else over the span.
  const beyond = queuedBeyond(c);
  const queued: number[] = [];
  for (let i = c.span[0]; i <= c.span[1]; i++) if (c.f.wait[i] > beyond) queued.push(c.f.runMax[i]);
  const atQueue = queued.length >= 3 ? median(queued) : medE(c, c.f.runMax);
  // 0.85: a window's max of two or three scrapes misses the cap by a few sequences between steps.
  const runAtMax = atQueue >= 0.85 * runPeak && runPeak > 0;
  const kvHigh = maxE(c, c.f.kv) >= c.cfg.causes.kv_high;
  const waitSlope = rampSlope(c, c.f.wait);
  return { full: (runAtMax || kvHigh) && waitSlope > 0, runAtMax, kvHigh, waitSlope };
}

/** Requests waiting beyond this many stand out from the baseline's queue: max(1, 2× its median). */
export function queuedBeyond(c: CauseContext): number {
  const waitB = medB(c, c.f.wait);
  return Math.max(1, 2 * (Number.isFinite(waitB) ? waitB : 0));
}

/**
 * Requests waiting, as a share of those running, that the scheduler takes in within a step or two (as
 * requests finish, or as the prefill budget of the next step allows): no backlog. One that piles up
 * outgrows the batch.
 */
export const QUEUE_IN_STEP = 0.25;

/** OLS slope of `x` per minute over the span up to its peak: the ramp part of a queue. */
export function rampSlope(c: CauseContext, x: Float64Array): number {
  let peak = c.span[0];
  for (let i = c.span[0]; i <= c.span[1]; i++) if (x[i] > (x[peak] || -Infinity)) peak = i;
  const a = Math.max(0, c.span[0] - 2);
  if (peak - a < 2) return 0;
  return olsSlope(c.f.t.subarray(a, peak + 1), x.subarray(a, peak + 1)) * 60_000;
}
