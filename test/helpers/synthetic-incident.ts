// Builds incidents directly through the Store/SourceWriter API from functions of time, so model tests
// state the truth (onset, shape) in code and check the diagnosis against it. Deterministic: noise comes
// from a seeded generator, histogram observations from fixed quantiles.
import type { Store } from '../../node/engine/store/store';
import type { SourceWriter } from '../../node/engine/store/source-writer';
import type { EventRecord } from '../../node/engine/importers/types';

export const T0 = Date.UTC(2025, 0, 15, 12, 0, 0);

/** Latency buckets (s) as vLLM exports them. */
export const LATENCY_BUCKETS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80, Infinity];

export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

export class SyntheticIncident {
  readonly incidentId: number;
  private readonly w: SourceWriter;
  private readonly rand: () => number;

  /** `seconds` of data sampled every `stepS` seconds from T0. */
  constructor(private readonly store: Store, readonly seconds: number, readonly stepS = 1, seed = 7) {
    this.incidentId = store.createIncident('synthetic');
    this.w = store.beginSource(this.incidentId, { path: 'synthetic', format: 'prometheus-text', bytes: 0 });
    this.rand = rng(seed);
  }

  /** ±`rel` relative noise. */
  noise(rel: number): number {
    return 1 + (this.rand() * 2 - 1) * rel;
  }

  private times(): number[] {
    const out: number[] = [];
    for (let s = 0; s <= this.seconds; s += this.stepS) out.push(s);
    return out;
  }

  gauge(name: string, value: (s: number) => number | null, labels?: Record<string, string>): this {
    return this.readings(name, 'gauge', value, labels);
  }

  /** A series written as its readings `value(s)` (null: no reading). */
  private readings(name: string, kind: 'gauge' | 'counter', value: (s: number) => number | null, labels?: Record<string, string>): this {
    const id = this.w.series({ name, labels, kind });
    for (const s of this.times()) {
      const v = value(s);
      if (v !== null) this.w.sample(id, T0 + s * 1000, v);
    }
    return this;
  }

  /** A cumulative counter whose rate (per second) is `rate(s)`. */
  counter(name: string, rate: (s: number) => number, labels?: Record<string, string>): this {
    const id = this.w.series({ name, labels, kind: 'counter' });
    let total = 0;
    let prev = 0;
    for (const s of this.times()) {
      total += Math.max(0, rate(s)) * (s - prev);
      prev = s;
      this.w.sample(id, T0 + s * 1000, Math.round(total * 1000) / 1000);
    }
    return this;
  }

  /** A counter written as its readings `total(s)` (null: no reading), resets and gaps as given. */
  counterReadings(name: string, total: (s: number) => number | null, labels?: Record<string, string>): this {
    return this.readings(name, 'counter', total, labels);
  }

  /**
   * A latency histogram: `perSecond(s)` observations per second whose p50/p99 are `quantiles(s)`; writes
   * the buckets and the `.sum`/`.count` companions. Observation values follow a log-logistic shape through
 * those two quantiles.
   */
  histogram(name: string, perSecond: (s: number) => number, quantiles: (s: number) => [number, number], buckets = LATENCY_BUCKETS, labels?: Record<string, string>): this {
    return this.histogramOf(
      name,
      perSecond,
      (s, u) => {
        const [p50, p99] = quantiles(s);
        return p50 * Math.pow(p99 / p50, Math.log(u / (1 - u)) / Math.log(99));
      },
      buckets,
      labels,
    );
  }

  /**
   * A histogram whose observations at second `s` are `value(s, u)` for u spread over (0, 1): an inverse
   * CDF, so any shape (a length capped at max_tokens) can be written; with the `.sum`/`.count` companions.
   */
  histogramOf(name: string, perSecond: (s: number) => number, value: (s: number, u: number) => number, buckets = LATENCY_BUCKETS, labels?: Record<string, string>): this {
    const id = this.w.series({ name, labels, kind: 'histogram' });
    const sumId = this.w.series({ name: `${name}.sum`, labels, kind: 'counter' });
    const countId = this.w.series({ name: `${name}.count`, labels, kind: 'counter' });
    const cum = new Float64Array(buckets.length);
    let sum = 0;
    let count = 0;
    let carry = 0;
    let prev = 0;
    for (const s of this.times()) {
      const want = perSecond(s) * (s - prev) + carry;
      prev = s;
      const n = Math.floor(want);
      carry = want - n;
      for (let j = 0; j < n; j++) {
        // A golden-ratio sequence spreads even a few observations a scrape over the whole distribution.
        const u = Math.min(0.999, Math.max(0.001, ((count + 1) * 0.6180339887498949) % 1));
        const v = value(s, u);
        sum += v;
        count++;
        for (let b = 0; b < buckets.length; b++) if (v <= buckets[b]) cum[b]++;
      }
      for (let b = 0; b < buckets.length; b++) this.w.histogram(id, T0 + s * 1000, buckets[b], cum[b]);
      this.w.sample(sumId, T0 + s * 1000, sum);
      this.w.sample(countId, T0 + s * 1000, count);
    }
    return this;
  }

  event(atS: number, e: Omit<EventRecord, 'ts_ms'>): this {
    this.w.event({ ...e, ts_ms: T0 + atS * 1000 });
    return this;
  }

  /** A traced request span from `atS` lasting `durS`, with its request attributes (request.ttft_s, request.lora, …). */
  span(atS: number, durS: number, attrs: Record<string, unknown>): this {
    const ns = (s: number) => BigInt(Math.round((T0 + s * 1000) * 1e3)) * 1000n;
    const id = (this.spans++).toString(16).padStart(16, '0');
    this.w.span({ trace_id: id.padStart(32, '0'), span_id: id, name: 'chat', start_ns: ns(atS), end_ns: ns(atS + durS), attrs: { 'request.side': 'server', ...attrs } });
    return this;
  }
  /**
   * One request traced across two services, as W3C trace context links them: the client's call (a root span,
   * `otel.kind` client, no request id) and the server's span as its child in the same trace.
   */
  tracedCall(atS: number, client: { durS: number; attrs: Record<string, unknown> }, server: { delayS: number; durS: number; attrs: Record<string, unknown> }): this {
    const ns = (s: number) => BigInt(Math.round((T0 + s * 1000) * 1e3)) * 1000n;
    const callId = (this.spans++).toString(16).padStart(16, '0');
    const serverId = (this.spans++).toString(16).padStart(16, '0');
    const trace = callId.padStart(32, '0');
    this.w.span({ trace_id: trace, span_id: callId, name: 'POST /v1/chat/completions', start_ns: ns(atS), end_ns: ns(atS + client.durS), attrs: { 'otel.kind': 'client', ...client.attrs } });
    this.w.span({ trace_id: trace, span_id: serverId, parent_id: callId, name: 'llm_request', start_ns: ns(atS + server.delayS), end_ns: ns(atS + server.delayS + server.durS), attrs: { 'otel.kind': 'server', ...server.attrs } });
    return this;
  }
  private spans = 1;

  /** Commits the source and refreshes the incident's span; answers the incident id. */
  done(): number {
    this.w.commit([]);
    this.store.refreshIncidentSpan(this.incidentId);
    return this.incidentId;
  }
}

export const GB = 1e9;

export interface ServingShape {
  /** Finished requests per second. */
  rps?: (s: number) => number;
  gtok?: (s: number) => number;
  /** No token counters at all (TGI scraped without its generated-tokens and input-length histograms). */
  noTokenCounter?: boolean;
  ptok?: (s: number) => number;
  /** Null: no KV usage exported (TGI). */
  kv?: ((s: number) => number) | null;
  running?: (s: number) => number;
  waiting?: (s: number) => number;
  e2e?: (s: number) => [number, number];
  /** Null: no TTFT exported (TGI). */
  ttft?: ((s: number) => [number, number]) | null;
  /** A router's validation time (TGI's tokenizing and checking before the queue), where given. */
  validation?: (s: number) => [number, number];
  itl?: (s: number) => [number, number];
  /** Null: no queue-time histogram (vLLM V0 exported none). */
  queue?: ((s: number) => [number, number]) | null;
  preemptRate?: (s: number) => number;
  errRate?: (s: number) => number;
  util?: (s: number) => number;
  clock?: (s: number) => number;
  throttle?: (s: number) => number;
  memUsed?: (s: number) => number;
  torchAllocated?: (s: number) => number;
  torchReserved?: (s: number) => number;
}

/** A vLLM-like engine on one GPU, scraped every `stepS` seconds: healthy defaults, each signal replaceable by the scenario. */
export function servingIncident(store: Store, seconds: number, shape: ServingShape, seed = 7, stepS = 1): SyntheticIncident {
  const x = new SyntheticIncident(store, seconds, stepS, seed);
  const n = (rel: number) => x.noise(rel);
  const rps = shape.rps ?? (() => 5 * n(0.05));
  x.counter('req.finished', rps, { reason: 'stop' });
  if (!shape.noTokenCounter) x.counter('tokens.generation', shape.gtok ?? (() => 2000 * n(0.05)));
  if (!shape.noTokenCounter) x.counter('tokens.prompt', shape.ptok ?? (() => 4000 * n(0.05)));
  x.counter('kv.preemptions', shape.preemptRate ?? (() => 0));
  x.counter('req.errors', shape.errRate ?? (() => 0));
  if (shape.kv !== null) x.gauge('kv.usage', shape.kv ?? (() => 0.4 * n(0.05)));
  x.gauge('req.running', shape.running ?? (() => Math.round(20 * n(0.1))));
  x.gauge('req.waiting', shape.waiting ?? (() => 0));
  x.histogram('lat.e2e', rps, shape.e2e ?? (() => [2, 4]));
  if (shape.ttft !== null) x.histogram('lat.ttft', rps, shape.ttft ?? (() => [0.08, 0.2]));
  if (shape.validation) x.histogram('lat.validation', rps, shape.validation);
  if (shape.queue !== null) x.histogram('lat.queue', rps, shape.queue ?? (() => [0.005, 0.02]));
  x.histogram('lat.itl', (s) => (shape.gtok ?? (() => 2000))(s) / 10, shape.itl ?? (() => [0.02, 0.04]));
  const gpu = { gpu: '0' };
  x.gauge('gpu.mem.total', () => 80 * GB, gpu);
  x.gauge('gpu.mem.used', shape.memUsed ?? (() => 72 * GB), gpu);
  x.gauge('gpu.util', shape.util ?? (() => Math.min(1, 0.9 * n(0.03))), gpu);
  x.gauge('gpu.sm_clock', shape.clock ?? (() => 1980), gpu);
  x.gauge('gpu.throttle_reasons', shape.throttle ?? (() => 0), gpu);
  x.gauge('gpu.temp', () => 65 * n(0.02), gpu);
  x.gauge('gpu.power', () => 550 * n(0.03), gpu);
  if (shape.torchAllocated) x.gauge('torch.allocated', shape.torchAllocated, gpu);
  if (shape.torchReserved) x.gauge('torch.reserved', shape.torchReserved, gpu);
  return x;
}

/**
 * The review's stray clock: a dense burst of `kv.usage` and `req.running` every 5 s from `from`, and a
 * small one a year later (one sample dated 2000-01-01 beside the demo made `analyze` grid the whole span
 * at 5 s steps: 20.7 GB). Answers the incident and the dense burst's first and last instants.
 */
export function burstsAYearApart(store: Store, from = Date.UTC(2025, 0, 1)): { id: number; dense: [number, number] } {
  const id = store.createIncident('bursts');
  const w = store.beginSource(id, { path: 'bursts', format: 'prometheus-text', bytes: 0 });
  const kv = w.series({ name: 'kv.usage', kind: 'gauge' });
  const run = w.series({ name: 'req.running', kind: 'gauge' });
  const year = 365 * 86_400_000;
  for (const [start, n] of [[from, 200], [from + year, 40]] as const)
    for (let i = 0; i < n; i++) {
      w.sample(kv, start + i * 5000, 0.3);
      w.sample(run, start + i * 5000, 10);
    }
  w.commit([]);
  store.refreshIncidentSpan(id);
  return { id, dense: [from, from + 199 * 5000] };
}
