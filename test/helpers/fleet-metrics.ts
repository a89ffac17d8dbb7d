// Seeded vLLM- and dcgm-exporter-style series as a Prometheus server holds them after scraping a fleet:
// per replica (pod) vLLM V1's gauges, counters (`_total`) and a latency histogram (`_bucket` with `le`,
// `_sum`, `_count`), and per GPU DCGM's framebuffer, utilisation and power fields. Values are
// arbitrary doubles (not round numbers), so an exact round trip is a real check.
import { rng } from './rng';
import type { Series } from './prom-servers';

export interface FleetOptions {
  startMs: number;
  durationS: number;
  stepS: number;
  replicas: number;
  /** The first replica's number (pods vllm-N…): a big fleet is made a slice at a time. */
  firstReplica?: number;
  gpusPerReplica: number;
  seed?: number;
  /** Only these families (by metric name prefix), for smaller tests. */
  only?: string[];
  /**
   * Significant digits kept. VictoriaMetrics stores about 12 significant decimal digits (its lossy
   * float compression, as documented); values of 10 digits come back from it exactly.
   */
  digits?: number;
}

export const LATENCY_BUCKETS = [0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60, Infinity];

export function fleetSeries(o: FleetOptions): Series[] {
  const r = rng(o.seed ?? 7);
  const n = Math.floor(o.durationS / o.stepS) + 1;
  const times = Array.from({ length: n }, (_, i) => o.startMs + i * o.stepS * 1000);
  const out: Series[] = [];
  const keep = o.digits ? (v: number) => (Number.isFinite(v) ? Number(v.toPrecision(o.digits)) : v) : (v: number) => v;
  const add = (name: string, labels: Record<string, string>, value: (i: number) => number) => {
    if (o.only && !o.only.some((p) => name.startsWith(p))) return;
    out.push({ name, labels, points: times.map((t, i) => [t, keep(value(i))]) });
  };
  const counter = (rate: number) => {
    let c = r() * 1000;
    const vals = times.map(() => (c += rate * o.stepS * (0.5 + r())));
    return (i: number) => vals[i];
  };
  const first = o.firstReplica ?? 0;
  for (let rep = first; rep < first + o.replicas; rep++) {
    const pod = `vllm-${rep}`;
    const host = `gpu-node-${rep}`;
    const engine = { engine: '0', model_name: 'meta-llama/Llama-3.1-8B-Instruct', pod, namespace: 'llm', job: 'vllm' };
    const running = times.map(() => Math.floor(r() * 48));
    add('vllm:num_requests_running', engine, (i) => running[i]);
    add('vllm:num_requests_waiting', engine, () => Math.floor(r() * 10));
    add('vllm:kv_cache_usage_perc', engine, () => r());
    add('vllm:prompt_tokens_total', engine, counter(2000));
    add('vllm:generation_tokens_total', engine, counter(800));
    // A histogram: cumulative counts that only grow, every bucket at or above the one below it.
    const counts = LATENCY_BUCKETS.map(() => 0);
    const byTime = times.map(() => {
      const arrivals = Math.floor(r() * 20);
      for (let a = 0; a < arrivals; a++) {
        const lat = -Math.log(1 - r()) * 3;
        for (let b = 0; b < LATENCY_BUCKETS.length; b++) if (lat <= LATENCY_BUCKETS[b]) counts[b]++;
      }
      return [...counts];
    });
    LATENCY_BUCKETS.forEach((le, b) => add('vllm:e2e_request_latency_seconds_bucket', { ...engine, le: le === Infinity ? '+Inf' : String(le) }, (i) => byTime[i][b]));
    add('vllm:e2e_request_latency_seconds_count', engine, (i) => byTime[i][LATENCY_BUCKETS.length - 1]);
    let sum = 0;
    const sums = times.map((_, i) => (sum += (i ? byTime[i][LATENCY_BUCKETS.length - 1] - byTime[i - 1][LATENCY_BUCKETS.length - 1] : 0) * (1 + r() * 3)));
    add('vllm:e2e_request_latency_seconds_sum', engine, (i) => sums[i]);
    for (let g = 0; g < o.gpusPerReplica; g++) {
      const gpu = { gpu: String(g), UUID: `GPU-${rep.toString(16).padStart(4, '0')}-${g}`, device: `nvidia${g}`, modelName: 'NVIDIA H100 80GB HBM3', Hostname: host, pod, namespace: 'llm', container: 'vllm' };
      const used = times.map(() => 40_000 + Math.floor(r() * 30_000));
      add('DCGM_FI_DEV_FB_USED', gpu, (i) => used[i]);
      add('DCGM_FI_DEV_FB_FREE', gpu, (i) => 81_559 - used[i]);
      add('DCGM_FI_DEV_FB_RESERVED', gpu, () => 0);
      add('DCGM_FI_DEV_GPU_UTIL', gpu, () => Math.floor(r() * 100));
      add('DCGM_FI_DEV_POWER_USAGE', gpu, () => 200 + r() * 500);
    }
  }
  return out;
}
