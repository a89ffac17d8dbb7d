// The sliding-window grid: time is cut into buckets of one step; window i is the k = W/step buckets
// from bucket i. Every series is bucketed in one pass, and windows are read off the buckets, so a
// 24 h incident at 1 s costs one scan per series however much the windows overlap.
import type { ModelConfig } from './config';
import { median } from './baseline';
import { counterStep, type CounterBuckets } from '../../../common/counters';

export interface WindowGrid {
  t0: number;
  end: number;
  step: number;
  /** Buckets per window. */
  k: number;
  W: number;
  /** Buckets. */
  nb: number;
  /** Windows. */
  n: number;
}

/** Median step of one series' timestamps; NaN with fewer than two samples. */
export function medianStep(t: ArrayLike<number>): number {
  if (t.length < 2) return NaN;
  const d = new Float64Array(t.length - 1);
  for (let i = 1; i < t.length; i++) d[i - 1] = t[i] - t[i - 1];
  return medianOfSteps(d);
}

/** The median of a series' steps (in any order), NaN unless positive. */
export function medianOfSteps(d: Float64Array): number {
  const m = median(d);
  return m > 0 ? m : NaN;
}

/**
 * A series' steps taken one at a time, kept as runs of equal steps (a regular scrape is one run), and
 * their median exactly as medianOfSteps reads the steps themselves.
 */
export class StepTally {
  private values = new Float64Array(64);
  private counts = new Float64Array(64);
  private runs = 0;

  add(d: number): void {
    const k = this.runs;
    if (k && this.values[k - 1] === d) {
      this.counts[k - 1]++;
      return;
    }
    if (k === this.values.length) {
      const v = new Float64Array(2 * k);
      const c = new Float64Array(2 * k);
      v.set(this.values);
      c.set(this.counts);
      this.values = v;
      this.counts = c;
    }
    this.values[k] = d;
    this.counts[k] = 1;
    this.runs++;
  }

  median(): number {
    // baseline.ts quantile(·, 0.5) over the finite steps: the order statistics at floor and ceil of (n − 1)/2, interpolated.
    const order: number[] = [];
    let n = 0;
    for (let k = 0; k < this.runs; k++)
      if (Number.isFinite(this.values[k])) {
        order.push(k);
        n += this.counts[k];
      }
    if (!n) return NaN;
    order.sort((a, b) => this.values[a] - this.values[b]);
    const pos = (n - 1) * 0.5;
    const lo = Math.floor(pos);
    const hi = Math.ceil(pos);
    const at = (rank: number): number => {
      let seen = 0;
      for (const k of order) if ((seen += this.counts[k]) > rank) return this.values[k];
      return NaN;
    };
    const a = at(lo);
    const m = hi === lo ? a : a + (at(hi) - a) * (pos - lo);
    return m > 0 ? m : NaN;
  }
}

/** Typical sampling interval: the median over series of each series' median step. */
export function samplingInterval(times: ArrayLike<number>[]): number {
  const per: number[] = [];
  for (const t of times) {
    const m = medianStep(t);
    if (m > 0) per.push(m);
  }
  return per.length ? median(per) : NaN;
}

/**
 * The serving engine's own scrape interval. Windows must hold ≥ 2 of its scrapes: per-GPU nvidia-smi
 * series sampled every second outnumber the engine's series and would set a window that 15 s scrapes
 * leave empty a third of the time. Each engine signal counts once, at its best-sampled source (a 10 s
 * stats log line beside 5 s Prometheus scrapes of the same signal is the fallback, not the cadence);
 * the median over signals is the engine's interval.
 */
export function engineInterval(series: Iterable<{ name: string; t: ArrayLike<number> }>): number {
  return engineIntervalOf(Array.from(series, (s) => ({ name: s.name, step: medianStep(s.t) })));
}

/** engineInterval from each series' median step (NaN where it has none). */
export function engineIntervalOf(series: Iterable<{ name: string; step: number }>): number {
  const best = new Map<string, number>();
  const all: number[] = [];
  for (const s of series) {
    const m = s.step;
    if (!(m > 0)) continue;
    all.push(m);
    if (ENGINE_FAMILY.test(s.name)) best.set(s.name, Math.min(best.get(s.name) ?? Infinity, m));
  }
  if (best.size) return median([...best.values()]);
  return all.length ? median(all) : NaN;
}

/**
 * When the serving engine's own data begins: GPU telemetry often starts first (nvidia-smi running before
 * the engine came up), and a baseline read before the engine reported anything has no engine values.
 */
export function engineStart(series: Iterable<{ name: string; t: ArrayLike<number> }>, from: number): number {
  return engineStartOf(Array.from(series, (s) => ({ name: s.name, atOrAfter: (x: number) => firstAtOrAfter(s.t, x) })), from);
}

/** The first time at or after `from` (NaN where none). */
function firstAtOrAfter(t: ArrayLike<number>, from: number): number {
  for (let i = 0; i < t.length; i++) if (t[i] >= from) return t[i];
  return NaN;
}

/** engineStart from each series' first time at or after a moment (NaN where none). */
export function engineStartOf(series: Iterable<{ name: string; atOrAfter: (from: number) => number }>, from: number): number {
  let first = Infinity;
  for (const s of series) {
    if (!ENGINE_FAMILY.test(s.name)) continue;
    const t = s.atOrAfter(from);
    if (t === t) first = Math.min(first, t);
  }
  return Number.isFinite(first) ? first : from;
}

/**
 * Signals the serving engine itself reports (its scrape or log cadence), as opposed to GPU telemetry.
 * `lora.max` is its configuration (the start banner's max_loras), stated once and maybe long before
 * the rest: no reading of its activity, so it neither starts the engine's data nor times the grid.
 */
export const ENGINE_FAMILY = /^(?!lora\.max$)(req|kv|lat|tokens|spec|lora|batch)\./;

/**
 * W and step from the configuration, widened when the data are sparser than the window: a window must
 * hold `min_samples_per_window` intervals (15 s scrapes → W ≥ 30 s), and the step keeps its ratio to W.
 * A long span widens them again so the grid never exceeds `max_windows`: analysis cost and memory
 * follow the data, not the span.
 */
export function makeGrid(startMs: number, endMs: number, intervalMs: number, cfg: Pick<ModelConfig, 'window_ms' | 'step_ms' | 'min_samples_per_window' | 'max_windows'>): WindowGrid {
  const k = Math.max(1, Math.round(cfg.window_ms / cfg.step_ms));
  let W = cfg.window_ms;
  if (Number.isFinite(intervalMs) && intervalMs * cfg.min_samples_per_window > W) W = Math.ceil((intervalMs * cfg.min_samples_per_window) / 1000) * 1000;
  const span = Math.max(0, endMs - startMs);
  const minStep = Math.ceil(span / Math.max(1, cfg.max_windows) / 1000) * 1000;
  if (W / k < minStep) W = minStep * k;
  const step = W / k;
  const nb = Math.max(k, Math.floor(span / step) + 1);
  return { t0: startMs, end: endMs, step, k, W: step * k, nb, n: nb - k + 1 };
}

export interface DenseSpan {
  start_ms: number;
  end_ms: number;
  /** Stretches of the data's whole extent left out: before, between and after the dense part. */
  gaps: { start_ms: number; end_ms: number }[];
}

/**
 * The dense part of the data: series are cut where they fall silent for longer than `gapMs`, the pieces
 * of all series merged, and the merged stretch with the most series-time kept. Two sources a year apart
 * (a stray old sample, a profile from another day) would otherwise stretch the grid over the year.
 */
export function denseSpan(series: Iterable<{ t: ArrayLike<number> }>, gapMs: number): DenseSpan | null {
  const pieces: Piece[] = [];
  for (const s of series) pieces.push(...piecesOf(s.t, gapMs));
  return denseSpanOf(pieces, gapMs);
}

/** A stretch of one series without a silence longer than the gap: its first and last time. */
export interface Piece {
  a: number;
  b: number;
}

/** A series cut where it falls silent for longer than `gapMs`. */
export function piecesOf(t: ArrayLike<number>, gapMs: number): Piece[] {
  const out: Piece[] = [];
  if (!t.length) return out;
  let a = t[0];
  for (let i = 1; i <= t.length; i++) {
    if (i < t.length && t[i] - t[i - 1] <= gapMs) continue;
    out.push({ a, b: t[i - 1] });
    if (i < t.length) a = t[i];
  }
  return out;
}

/** denseSpan from every series' pieces. */
export function denseSpanOf(cut: Iterable<Piece>, gapMs: number): DenseSpan | null {
  const pieces = Array.from(cut, (p) => ({ a: p.a, b: p.b, w: Math.max(p.b - p.a, 1) }));
  if (!pieces.length) return null;
  pieces.sort((x, y) => x.a - y.a);
  const merged: { a: number; b: number; w: number }[] = [];
  for (const p of pieces) {
    const last = merged[merged.length - 1];
    if (last && p.a - last.b <= gapMs) {
      last.b = Math.max(last.b, p.b);
      last.w += p.w;
    } else merged.push({ ...p });
  }
  let best = merged[0];
  for (const m of merged) if (m.w > best.w) best = m;
  const gaps: { start_ms: number; end_ms: number }[] = [];
  for (let i = 0; i < merged.length; i++) {
    if (i > 0) gaps.push({ start_ms: merged[i - 1].b, end_ms: merged[i].a });
    if (merged[i] !== best) gaps.push({ start_ms: merged[i].a, end_ms: merged[i].b });
  }
  return { start_ms: best.a, end_ms: best.b, gaps: mergeRanges(gaps) };
}

function mergeRanges(r: { start_ms: number; end_ms: number }[]): { start_ms: number; end_ms: number }[] {
  const out: { start_ms: number; end_ms: number }[] = [];
  for (const x of [...r].sort((p, q) => p.start_ms - q.start_ms)) {
    const last = out[out.length - 1];
    if (last && x.start_ms <= last.end_ms) last.end_ms = Math.max(last.end_ms, x.end_ms);
    else out.push({ ...x });
  }
  return out;
}

export const windowStart = (g: WindowGrid, i: number): number => g.t0 + i * g.step;

/** Index of the window that starts at or before t (clamped to the grid). */
export function windowAt(g: WindowGrid, t: number): number {
  return Math.min(g.n - 1, Math.max(0, Math.floor((t - g.t0) / g.step)));
}

/**
 * Windows lying wholly inside [start, end]; where none does, the one window nearest `start` on the grid (a
 * stretch past the grid's end — one replica's engine data hours after the dense span, its log read in the
 * wrong zone — gets the last window, never an index beyond it).
 */
export function windowsWithin(g: WindowGrid, start: number, end: number): [number, number] {
  const a = Math.min(g.n - 1, Math.max(0, Math.ceil((start - g.t0) / g.step)));
  const b = Math.min(g.n - 1, Math.floor((end - g.W - g.t0) / g.step));
  return b >= a ? [a, b] : [a, a];
}

export interface GaugeBuckets {
  sum: Float64Array;
  cnt: Float64Array;
  max: Float64Array;
  min: Float64Array;
  /** Samples at or above `above` (for frac(x ≥ θ, W)). */
  hi: Float64Array;
}

/** The buckets a fold keeps: a gauge's (with its threshold), a counter's, a bit mask's (OR-ed, NaN where none). */
export interface FoldKinds {
  gauge?: { above: number };
  counter?: boolean;
  bits?: boolean;
}

/**
 * Buckets a series one sample at a time, in time order, as bucketGauge, bucketCounter (common/counters.ts)
 * and the throttle bits do over whole arrays, with the same arithmetic in the same order, so a series
 * scanned from the store buckets exactly as the same series held in memory. The first sample folded
 * must be the series' first, or lie before the grid (a counter step needs the sample before it).
 */
export class BucketFold {
  readonly gauge: GaugeBuckets | null;
  readonly counter: CounterBuckets | null;
  readonly bits: Float64Array | null;
  /**
   * Where a counter went back (a new process starts it again): each reading below the one before, with that one's
   * time and the share it fell to. Null unless the fold keeps counter buckets.
   */
  readonly resets: CounterReset[] | null;
  /** The threshold `gauge.hi` counts samples at or above. */
  readonly above: number;
  private pt = NaN;
  private pv = NaN;
  private started = false;

  constructor(
    private readonly g: Pick<WindowGrid, 't0' | 'step' | 'nb'>,
    kinds: FoldKinds,
  ) {
    const nb = g.nb;
    this.gauge = kinds.gauge ? { sum: new Float64Array(nb), cnt: new Float64Array(nb), max: new Float64Array(nb).fill(-Infinity), min: new Float64Array(nb).fill(Infinity), hi: new Float64Array(nb) } : null;
    this.above = kinds.gauge?.above ?? Infinity;
    this.counter = kinds.counter ? { inc: new Float64Array(nb), dt: new Float64Array(nb) } : null;
    this.bits = kinds.bits ? new Float64Array(nb).fill(NaN) : null;
    this.resets = kinds.counter ? [] : null;
  }

  add(t: number, x: number): void {
    const j = Math.floor((t - this.g.t0) / this.g.step);
    if (j >= 0 && j < this.g.nb) {
      const b = this.gauge;
      if (b) {
        b.sum[j] += x;
        b.cnt[j]++;
        if (x > b.max[j]) b.max[j] = x;
        if (x < b.min[j]) b.min[j] = x;
        if (x >= this.above) b.hi[j]++;
      }
      const c = this.counter;
      if (c && this.started) {
        c.inc[j] += counterStep(this.pv, x);
        c.dt[j] += t - this.pt;
      }
      const m = this.bits;
      if (m) m[j] = (Number.isNaN(m[j]) ? 0 : m[j]) | x;
    }
    if (this.resets && this.started && x < this.pv) this.resets.push({ t, last: this.pt, share: x / this.pv });
    this.pt = t;
    this.pv = x;
    this.started = true;
  }
}

/** A counter reading below the one before: its time, the time of the one before, and the share it fell to. */
export interface CounterReset {
  t: number;
  last: number;
  share: number;
}

/** The resets of a counter held in arrays, as BucketFold records them. */
export function counterResets(t: ArrayLike<number>, v: ArrayLike<number>): CounterReset[] {
  const out: CounterReset[] = [];
  for (let i = 1; i < t.length; i++) if (v[i] < v[i - 1]) out.push({ t: t[i], last: t[i - 1], share: v[i] / v[i - 1] });
  return out;
}

/** Throttle-style bit masks per bucket: the samples' bits OR-ed, NaN where the bucket has none. */
export function bucketBits(t: ArrayLike<number>, v: ArrayLike<number>, g: WindowGrid): Float64Array {
  const f = new BucketFold(g, { bits: true });
  for (let i = 0; i < t.length; i++) f.add(t[i], v[i]);
  return f.bits!;
}

export function bucketGauge(t: ArrayLike<number>, v: ArrayLike<number>, g: WindowGrid, above = Infinity): GaugeBuckets {
  const b: GaugeBuckets = {
    sum: new Float64Array(g.nb),
    cnt: new Float64Array(g.nb),
    max: new Float64Array(g.nb).fill(-Infinity),
    min: new Float64Array(g.nb).fill(Infinity),
    hi: new Float64Array(g.nb),
  };
  for (let i = 0; i < t.length; i++) {
    const j = Math.floor((t[i] - g.t0) / g.step);
    if (j < 0 || j >= g.nb) continue;
    const x = v[i];
    b.sum[j] += x;
    b.cnt[j]++;
    if (x > b.max[j]) b.max[j] = x;
    if (x < b.min[j]) b.min[j] = x;
    if (x >= above) b.hi[j]++;
  }
  return b;
}

/** Sums bucket values over each window (a running sum: O(buckets)). */
export function windowSums(x: Float64Array, g: WindowGrid): Float64Array {
  const out = new Float64Array(g.n);
  let s = 0;
  for (let j = 0; j < g.nb; j++) {
    s += x[j];
    if (j >= g.k) s -= x[j - g.k];
    if (j >= g.k - 1) out[j - g.k + 1] = s;
  }
  return out;
}

function windowExtreme(x: Float64Array, g: WindowGrid, pick: (a: number, b: number) => number, empty: number): Float64Array {
  const out = new Float64Array(g.n);
  for (let i = 0; i < g.n; i++) {
    let m = empty;
    for (let j = i; j < i + g.k; j++) m = pick(m, x[j]);
    out[i] = m === empty ? NaN : m;
  }
  return out;
}

export interface GaugeWindows {
  mean: Float64Array;
  max: Float64Array;
  min: Float64Array;
  /** Share of the window's samples at or above the bucketing threshold. */
  frac: Float64Array;
}

/** Window mean, max, min and frac of a bucketed gauge; NaN for windows without samples. */
export function gaugeWindows(b: GaugeBuckets, g: WindowGrid): GaugeWindows {
  const sum = windowSums(b.sum, g);
  const cnt = windowSums(b.cnt, g);
  const hi = windowSums(b.hi, g);
  const mean = new Float64Array(g.n);
  const frac = new Float64Array(g.n);
  for (let i = 0; i < g.n; i++) {
    mean[i] = cnt[i] > 0 ? sum[i] / cnt[i] : NaN;
    frac[i] = cnt[i] > 0 ? hi[i] / cnt[i] : NaN;
  }
  return { mean, max: windowExtreme(b.max, g, Math.max, -Infinity), min: windowExtreme(b.min, g, Math.min, Infinity), frac };
}

/** Per-second rate per window from bucketed counter increases; NaN where the counter had no steps. */
export function rateWindows(inc: Float64Array, dt: Float64Array, g: WindowGrid): Float64Array {
  const s = windowSums(inc, g);
  const d = windowSums(dt, g);
  const out = new Float64Array(g.n);
  for (let i = 0; i < g.n; i++) out[i] = d[i] > 0 ? (s[i] / d[i]) * 1000 : NaN;
  return out;
}
