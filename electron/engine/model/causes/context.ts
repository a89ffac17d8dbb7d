// What every rule sees, and the small vocabulary rules are written in (root-causes.md §1): values over
// the evaluation span E vs the baseline B, conditions with their measured values, evidence links.
import type { CauseId, Condition, Evidence } from '../../../contract/diagnosis';
import type { EventRow } from '../../../contract/types';
import { max, median, min, ratio } from '../baseline';
import type { ModelConfig } from '../config';
import type { Frame } from '../frame';
import type { KvAnalysis } from '../kvcache';
import type { Fragmentation, MemoryTrend } from '../leak';
import type { Dimensions } from '../normalize';
import type { Signals } from '../signals-from-store';

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
  /** Memory causes rank with oom_crash_loop when they end in an OOM. */
  endsInOom?: boolean;
}

export type Rule = (ctx: CauseContext) => RuleResult;

/** Measured values are rounded for the report: 4 significant digits. */
export function round(x: number | null): number | null {
  if (x === null || !Number.isFinite(x)) return x === Infinity ? 1e308 : null;
  if (x === 0) return 0;
  return Number(x.toPrecision(4));
}

export function cond(condition: string, value: number | string | boolean | null, held: boolean): Condition {
  return { condition, value: typeof value === 'number' ? round(value) : value, held };
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
export const medE = (c: CauseContext, x: Float64Array) => median(slice(x, c.span));
export const maxE = (c: CauseContext, x: Float64Array) => max(slice(x, c.span));
export const minE = (c: CauseContext, x: Float64Array) => min(slice(x, c.span));
export const medB = (c: CauseContext, x: Float64Array) => median(slice(x, c.base));
/** r(x): the span's median ÷ the baseline's. */
export const rE = (c: CauseContext, x: Float64Array) => ratio(medE(c, x), medB(c, x));

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

/** The longest run of consecutive span windows where `pred` holds, in ms of windows' starts, and where it began. */
export function longestRun(c: CauseContext, pred: (i: number) => boolean): { ms: number; start: number | null; end: number | null } {
  let best = { ms: 0, start: null as number | null, end: null as number | null };
  let from = -1;
  const step = c.f.grid.step;
  for (let i = c.span[0]; i <= c.span[1] + 1; i++) {
    const ok = i <= c.span[1] && pred(i);
    if (ok && from < 0) from = i;
    if (!ok && from >= 0) {
      const ms = (i - from - 1) * step + c.f.grid.W;
      if (ms > best.ms) best = { ms, start: c.f.t[from], end: c.f.t[i - 1] + c.f.grid.W };
      from = -1;
    }
  }
  return best;
}

export const spanStart = (c: CauseContext) => c.f.t[c.span[0]];
export const spanEnd = (c: CauseContext) => c.f.t[c.span[1]] + c.f.grid.W;

export function seriesEvidence(c: CauseContext, ref: string, text: string, start = spanStart(c), end = spanEnd(c)): Evidence {
  return { kind: 'series', ref, start_ms: start, end_ms: end, text };
}

export function eventEvidence(e: EventRow, text?: string): Evidence {
  return { kind: 'event', ref: String(e.id), start_ms: e.ts_ms, end_ms: e.ts_ms, text: text ?? e.text.slice(0, 200) };
}

export const events = (c: CauseContext, ...kinds: string[]) => c.sig.events.filter((e) => kinds.includes(e.kind));

export const inSpan = (c: CauseContext, t: number, lookbackMs = 0) => t >= spanStart(c) - lookbackMs && t <= spanEnd(c);

export const fmtBytes = (b: number) => `${(b / 2 ** 30).toFixed(2)} GiB`;

/** A rule's result with nothing measured: REQUIRE data absent. */
export function notAssessable(id: CauseId, missing: string[]): RuleResult {
  return { id, missing, require: [], support: [], veto: [], evidence: [], onset_ms: null };
}

/** A ratio or level for condition texts: 3 significant digits, ∞, or n/a. */
export function fmt(x: number): string {
  if (x === Infinity) return '∞';
  return Number.isFinite(x) ? String(Number(x.toPrecision(3))) : 'n/a';
}
