// The four dimensions of docs/four-quadrant-model.md §3 normalised per window, and the two axes of §4:
// resource pressure R and service degradation S, with the terms S is the max of.
import type { ModelConfig, TriggerThresholds } from './config';
import type { Frame } from './frame';

export interface References {
  /** Baseline P99 latency (s) of the latency signal used; NaN without one. */
  p99: number;
  /** Baseline generation tokens/s. */
  tps: number;
  /** Baseline arrivals/s (the throughput term reads tokens against demand). */
  lamIn: number;
  /** Token rate taken as 100% for the token score. */
  tokenPeak: number;
  /** Baseline used bytes per GPU key. */
  memUsed: Map<string, number>;
  /** Baseline queue P95, ms (NaN without one): the queue term reads the rise above it. */
  q95ms: number;
  /** Queue P95 rise that puts the queue term at 0.5, ms: half the configured queue latency, or the baseline's noise. */
  queueRiseMs: number;
}

export interface Dimensions {
  gpuMem: Float64Array;
  kv: Float64Array;
  tokens: Float64Array;
  queue: Float64Array;
  /** Worst GPU's memory pressure: share of the baseline headroom consumed. */
  memPressure: Float64Array;
  R: Float64Array;
  S: Float64Array;
  latencyTerm: Float64Array;
  throughputTerm: Float64Array;
  queueTerm: Float64Array;
  errorTerm: Float64Array;
  /** ΔP99 in ms against the baseline (NaN without latency data). */
  dP99ms: Float64Array;
  /** ΔTPS% as a fraction ((TPS_W − TPS_B) / TPS_B). */
  dTps: Float64Array;
  /** Which latency the latency term reads: e2e, else TTFT. */
  latencySignal: 'e2e99' | 'ttft99' | null;
}

export const clamp01 = (x: number): number => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : x === Infinity ? 1 : 0);
const or0 = (x: number) => (Number.isFinite(x) ? x : 0);

export function latencySignal(f: Frame): 'e2e99' | 'ttft99' | null {
  if (f.e2e99.some(Number.isFinite)) return 'e2e99';
  if (f.ttft99.some(Number.isFinite)) return 'ttft99';
  return null;
}

/** Memory pressure of one GPU window: headroom consumed, or the absolute share once nearly full. */
export function memoryPressure(used: number, total: number, usedB: number, cfg: Pick<ModelConfig, 'memory_epsilon_bytes' | 'memory_absolute_above'>): number {
  if (!Number.isFinite(used) || !(total > 0)) return NaN;
  const base = Number.isFinite(usedB) ? usedB : used;
  const p = Math.max(0, used - base) / Math.max(cfg.memory_epsilon_bytes, total - base);
  const share = used / total;
  return clamp01(share > cfg.memory_absolute_above ? Math.max(p, share) : p);
}

/**
 * `latencyBacked`: whether window i's P99 rise of the latency the term reads is carried by enough requests
 * (LatencyBand.backed of its family); a rise it does not back is no degradation, as the alerts read it.
 */
export function normalize(f: Frame, ref: References, cfg: ModelConfig, th: TriggerThresholds, latencyBacked: ((i: number) => boolean) | null = null): Dimensions {
  const n = f.grid.n;
  const mk = () => new Float64Array(n);
  const d: Dimensions = {
    gpuMem: mk(), kv: mk(), tokens: mk(), queue: mk(), memPressure: mk(), R: mk(), S: mk(),
    latencyTerm: mk(), throughputTerm: mk(), queueTerm: mk(), errorTerm: mk(),
    dP99ms: new Float64Array(n).fill(NaN), dTps: new Float64Array(n).fill(NaN),
    latencySignal: latencySignal(f),
  };
  const lat = d.latencySignal ? f[d.latencySignal] : null;
  for (let i = 0; i < n; i++) {
    let share = 0;
    let pressure = 0;
    for (const gpu of f.gpus) {
      const used = gpu.memUsed[i];
      const total = gpu.memTotal[i];
      if (!(total > 0) || !Number.isFinite(used)) continue;
      share = Math.max(share, used / total);
      pressure = Math.max(pressure, or0(memoryPressure(used, total, ref.memUsed.get(gpu.key) ?? NaN, cfg)));
    }
    d.gpuMem[i] = clamp01(share);
    d.memPressure[i] = pressure;
    d.kv[i] = clamp01(f.kv[i]);
    d.tokens[i] = ref.tokenPeak > 0 ? clamp01(f.gtok[i] / ref.tokenPeak) : 0;
    const q95ms = f.q95[i] * 1000;
    d.queue[i] = Number.isFinite(q95ms) ? 1 - Math.min(1, Math.max(0, q95ms) / cfg.queue_latency_ms) : 1;
    d.R[i] = Math.max(d.kv[i], pressure);

    if (lat && Number.isFinite(lat[i]) && Number.isFinite(ref.p99)) d.dP99ms[i] = (lat[i] - ref.p99) * 1000;
    if (ref.tps > 0 && Number.isFinite(f.gtok[i])) d.dTps[i] = (f.gtok[i] - ref.tps) / ref.tps;
    d.latencyTerm[i] = latencyBacked && !latencyBacked(i) ? 0 : clamp01(or0(d.dP99ms[i]) / (2 * th.latency_ms));
    // Tokens served fall with demand at night and that is no degradation: where requests still finish,
    // the fall is measured against the arrivals' own fall (a hang finishes nothing and keeps the raw fall).
    // An engine with nothing arriving and nothing in flight is idle (the off phase of bursty traffic), not
    // degraded; a hang has requests in flight.
    const idle = f.lamIn[i] === 0 && f.lamOut[i] === 0 && f.run[i] === 0 && !(f.wait[i] > 0);
    const demand = ref.lamIn > 0 && f.lamOut[i] > 0 && Number.isFinite(f.lamIn[i]) ? Math.min(1, f.lamIn[i] / ref.lamIn) : 1;
    const served = idle ? 0 : Number.isFinite(d.dTps[i]) ? (1 + d.dTps[i]) / Math.max(demand, 1e-6) - 1 : NaN;
    d.throughputTerm[i] = clamp01(-or0(Math.min(0, served)) / (2 * th.throughput_drop));
    // The term S reads is the rise over the baseline's own queue: vLLM's first queue bucket is 0.3 s wide,
    // and one slow request in a quiet window lifts an interpolated P95 to a third of a second.
    const qBase = Number.isFinite(ref.q95ms) ? ref.q95ms : 0;
    d.queueTerm[i] = Number.isFinite(q95ms) ? clamp01(Math.max(0, q95ms - qBase) / (2 * ref.queueRiseMs)) : 0;
    d.errorTerm[i] = clamp01(or0(f.errFrac[i]) / (2 * cfg.error_rate));
    d.S[i] = Math.max(d.latencyTerm[i], d.throughputTerm[i], d.queueTerm[i], d.errorTerm[i]);
  }
  d.S = medianOf(d.S, 2);
  return d;
}

/**
 * Each window's value as the median of it and its `h` neighbours on either side (fewer at the ends and
 * across unknown windows; an unknown window stays unknown). One window's P99 is read off a handful of
 * requests and its tokens/s off a few scrapes, and windows overlap by half: one or two past the threshold
 * are a burst (on healthy traffic a median of three still left 8% of windows degraded), three in five a state.
 */
export function medianOf(x: Float64Array, h: number): Float64Array {
  const out = Float64Array.from(x);
  const buf: number[] = [];
  for (let i = 0; i < x.length; i++) {
    if (!Number.isFinite(x[i])) continue;
    buf.length = 0;
    for (let j = Math.max(0, i - h); j <= Math.min(x.length - 1, i + h); j++) if (Number.isFinite(x[j])) buf.push(x[j]);
    buf.sort((a, b) => a - b);
    out[i] = buf.length % 2 ? buf[buf.length >> 1] : (buf[buf.length / 2 - 1] + buf[buf.length / 2]) / 2;
  }
  return out;
}
