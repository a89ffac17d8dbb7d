// KV-cache analysis (docs/four-quadrant-model.md §8): how KV usage grew into its plateau (linear, step,
// exponential), and the entropy of request lengths, which tells a static-length workload (low, stable
// entropy, linear growth) from a long-tail one (high or jumping entropy, sudden growth).
import { max, mean } from './baseline';
import { changePoint } from './change-point';
import type { Frame } from './frame';
import { olsSlope } from './trend';

export type KvGrowth = 'linear' | 'step' | 'exponential' | 'flat';

export interface KvAnalysis {
  growth: KvGrowth | null;
  /** Share of windows in the span at or above the "full" threshold. */
  plateau_share: number;
  preempt_per_s: number;
  wait_slope_per_min: number;
  hit_rate: number;
  entropy_mean: number;
  entropy_jumpy: boolean;
  workload: 'static' | 'long-tail' | null;
}

function r2(x: number[], y: number[]): number {
  const b = olsSlope(x, y);
  const mx = mean(x);
  const my = mean(y);
  let ssr = 0;
  let sst = 0;
  for (let i = 0; i < y.length; i++) {
    const fit = my + b * (x[i] - mx);
    ssr += (y[i] - fit) ** 2;
    sst += (y[i] - my) ** 2;
  }
  return sst > 0 ? 1 - ssr / sst : 0;
}

/**
 * Growth mode of a rising series up to its first approach of its peak: a step when one move (`smear`
 * samples) carries half the rise; exponential when log-values fit a line clearly better than the values do; else linear.
 */
export function growthMode(t: ArrayLike<number>, v: ArrayLike<number>, smear = 1): KvGrowth {
  const x: number[] = [];
  const y: number[] = [];
  for (let i = 0; i < v.length; i++) if (Number.isFinite(v[i])) {
    x.push(t[i]);
    y.push(v[i]);
  }
  if (y.length < 4) return 'flat';
  const peak = Math.max(...y);
  const floor = Math.min(...y);
  const rise = peak - floor;
  if (rise < 0.05 * Math.max(peak, 1e-9)) return 'flat';
  const top = y.findIndex((z) => z >= floor + 0.9 * rise);
  let lo = 0;
  for (let i = 0; i < top; i++) if (y[i] <= y[lo]) lo = i;
  const xs = x.slice(lo, top + 1);
  const ys = y.slice(lo, top + 1);
  if (ys.length < 3) return 'step';
  // Sliding windows smear a step over `smear` windows, so a step is a big rise within that many moves.
  let biggest = 0;
  for (let i = smear; i < y.length; i++) biggest = Math.max(biggest, y[i] - y[i - smear]);
  const cp = changePoint(ys, 1);
  if (biggest >= 0.5 * rise || (cp && cp.strength >= 0.95 && ys.length > 4 && biggest >= 0.3 * rise)) return 'step';
  const eps = Math.max(1e-6, 0.01 * rise);
  const logs = ys.map((z) => Math.log(z - floor + eps));
  return r2(xs, logs) > r2(xs, ys) + 0.02 ? 'exponential' : 'linear';
}

export function analyzeKv(f: Frame, span: [number, number], kvFull: number): KvAnalysis | null {
  if (!f.kv.some(Number.isFinite)) return null;
  const [a, b] = span;
  const sl = (x: Float64Array) => x.subarray(a, b + 1);
  const kv = sl(f.kv);
  let full = 0;
  let seen = 0;
  for (const x of kv) if (Number.isFinite(x)) {
    seen++;
    if (x >= kvFull) full++;
  }
  const ent = Array.from(sl(f.lenEntropy)).filter(Number.isFinite);
  let jump = 0;
  for (let i = 1; i < ent.length; i++) jump = Math.max(jump, Math.abs(ent[i] - ent[i - 1]));
  const em = mean(ent);
  const jumpy = ent.length >= 3 && jump >= 0.2;
  return {
    growth: growthMode(f.t.subarray(0, b + 1), f.kv.subarray(0, b + 1), f.grid.k),
    plateau_share: seen ? full / seen : 0,
    preempt_per_s: mean(sl(f.preempt)),
    wait_slope_per_min: olsSlope(sl(f.t), sl(f.wait)) * 60_000,
    hit_rate: mean(sl(f.hit)),
    entropy_mean: em,
    entropy_jumpy: jumpy,
    workload: Number.isFinite(em) ? (em < 0.3 && !jumpy ? 'static' : 'long-tail') : null,
  };
}

export const kvPeak = (f: Frame, span: [number, number]): number => max(f.kvMax.subarray(span[0], span[1] + 1));
