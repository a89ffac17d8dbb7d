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

/** Typical sampling interval: the median over series of each series' median step. */
export function samplingInterval(times: ArrayLike<number>[]): number {
  const per: number[] = [];
  for (const t of times) {
    if (t.length < 2) continue;
    const d = new Float64Array(t.length - 1);
    for (let i = 1; i < t.length; i++) d[i - 1] = t[i] - t[i - 1];
    const m = median(d);
    if (m > 0) per.push(m);
  }
  return per.length ? median(per) : NaN;
}

/**
 * W and step from the configuration, widened when the data are sparser than the window: a window must
 * hold `min_samples_per_window` intervals (15 s scrapes → W ≥ 30 s), and the step keeps its ratio to W.
 */
export function makeGrid(startMs: number, endMs: number, intervalMs: number, cfg: Pick<ModelConfig, 'window_ms' | 'step_ms' | 'min_samples_per_window'>): WindowGrid {
  const k = Math.max(1, Math.round(cfg.window_ms / cfg.step_ms));
  let W = cfg.window_ms;
  if (Number.isFinite(intervalMs) && intervalMs * cfg.min_samples_per_window > W) W = Math.ceil((intervalMs * cfg.min_samples_per_window) / 1000) * 1000;
  const step = W / k;
  const span = Math.max(0, endMs - startMs);
  const nb = Math.max(k, Math.floor(span / step) + 1);
  return { t0: startMs, end: endMs, step, k, W: step * k, nb, n: nb - k + 1 };
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
