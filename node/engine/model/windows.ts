// The sliding-window grid: time is cut into buckets of one step; window i is the k = W/step buckets
// from bucket i. Every series is bucketed in one pass, and windows are read off the buckets, so a
// 24 h incident at 1 s costs one scan per series however much the windows overlap.
import type { ModelConfig } from './config';
import { median } from './baseline';

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
function medianStep(t: ArrayLike<number>): number {
  if (t.length < 2) return NaN;
  const d = new Float64Array(t.length - 1);
  for (let i = 1; i < t.length; i++) d[i - 1] = t[i] - t[i - 1];
  const m = median(d);
  return m > 0 ? m : NaN;
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
  const best = new Map<string, number>();
  const all: number[] = [];
  for (const s of series) {
    const m = medianStep(s.t);
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
  let first = Infinity;
  for (const s of series) {
    if (!ENGINE_FAMILY.test(s.name) || !s.t.length) continue;
    for (let i = 0; i < s.t.length; i++) if (s.t[i] >= from) {
      first = Math.min(first, s.t[i]);
      break;
    }
  }
  return Number.isFinite(first) ? first : from;
}

/** Signals the serving engine itself reports (its scrape or log cadence), as opposed to GPU telemetry. */
export const ENGINE_FAMILY = /^(req|kv|lat|tokens|spec|lora|batch)\./;

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
  const pieces: { a: number; b: number; w: number }[] = [];
  for (const s of series) {
    const t = s.t;
    if (!t.length) continue;
    let a = t[0];
    for (let i = 1; i <= t.length; i++) {
      if (i < t.length && t[i] - t[i - 1] <= gapMs) continue;
      const b = t[i - 1];
      pieces.push({ a, b, w: Math.max(b - a, 1) });
      if (i < t.length) a = t[i];
    }
  }
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

/** Windows lying wholly inside [start, end]. */
export function windowsWithin(g: WindowGrid, start: number, end: number): [number, number] {
  const a = Math.max(0, Math.ceil((start - g.t0) / g.step));
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
