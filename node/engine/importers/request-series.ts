// Latency histograms and request counters derived from request spans, per 10 s window, written in the
// representation Prometheus histograms get: cumulative over buckets and over time (see span-attributes.ts).
// Engine logs that print one line per request (TGI) feed the same series under their own labels, with
// three more latencies spans do not carry: lat.validation, lat.inference and lat.itl (from the request's
// mean time per output token, as TGI's own request_mean_time_per_token_duration maps to lat.itl).
import type { Sink } from './types';
import { spanSide } from '../../../common/span-side';
import { requestFacts, type RequestFacts, type SpanOutcome } from './span-attributes';

export const WINDOW_MS = 10_000;

/** vLLM's bucket bounds (s): request_latency_buckets (e2e, queue) and time_to_first_token. */
export const E2E_BUCKETS = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0];
export const TTFT_BUCKETS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0];
/** vLLM's time_per_output_token / inter_token_latency bounds (s). */
export const ITL_BUCKETS = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0];

/** Request facts some logs add to the span model's (seconds). */
export interface LatencyFacts extends RequestFacts {
  'request.validation_s'?: number;
  'request.inference_s'?: number;
  /** Mean time per output token of the request. */
  'request.tpot_s'?: number;
}

const SPAN_LABELS = { from: 'spans' };


interface Hist {
  name: string;
  key: keyof LatencyFacts;
  bounds: number[];
  /** Per window end: values observed. */
  values: Map<number, number[]>;
}

export class RequestSeries {
  private readonly hists: Hist[] = [
    { name: 'lat.e2e', key: 'request.e2e_s', bounds: E2E_BUCKETS, values: new Map() },
    { name: 'lat.ttft', key: 'request.ttft_s', bounds: TTFT_BUCKETS, values: new Map() },
    { name: 'lat.queue', key: 'request.queue_s', bounds: E2E_BUCKETS, values: new Map() },
    { name: 'lat.validation', key: 'request.validation_s', bounds: TTFT_BUCKETS, values: new Map() },
    { name: 'lat.inference', key: 'request.inference_s', bounds: E2E_BUCKETS, values: new Map() },
    { name: 'lat.itl', key: 'request.tpot_s', bounds: ITL_BUCKETS, values: new Map() },
  ];
  private readonly finished = new Map<number, number>();
  private readonly errors = new Map<number, number>();
  private lo = Infinity;
  private hi = -Infinity;

  /** `labels` of each series by its name; spans' series all carry {from: 'spans'}. */
  constructor(private readonly labels: (series: string) => Record<string, string> = () => SPAN_LABELS) {}

  /** Client-side request spans (the callers' view), counted apart: see flush. */
  private client: RequestSeries | null = null;

  /**
   * A trace span's request facts, read from its own attributes (span-attributes.ts): merged into the
   * attributes it is stored with, and counted in the series at its end. Every trace reader's one way in.
   */
  addSpan(own: Record<string, unknown>, outcome: SpanOutcome, attrs: Record<string, unknown>): void {
    const facts = requestFacts(own, outcome);
    if (!facts) return;
    Object.assign(attrs, facts);
    const into = spanSide(attrs) === 'client' ? (this.client ??= new RequestSeries(this.labels)) : this;
    into.add(facts, Number(outcome.end_ns / 1_000_000n));
  }

  add(facts: LatencyFacts, endMs: number): void {
    if (!Number.isFinite(endMs)) return;
    const w = Math.ceil(endMs / WINDOW_MS) * WINDOW_MS;
    this.lo = Math.min(this.lo, w);
    this.hi = Math.max(this.hi, w);
    for (const h of this.hists) {
      const v = facts[h.key];
      if (typeof v !== 'number' || !Number.isFinite(v)) continue;
      let list = h.values.get(w);
      if (!list) h.values.set(w, (list = []));
      list.push(v);
    }
    this.finished.set(w, (this.finished.get(w) ?? 0) + 1);
    if (facts['request.status'] === 'error') this.errors.set(w, (this.errors.get(w) ?? 0) + 1);
  }

  get requests(): number {
    let n = 0;
    for (const c of this.finished.values()) n += c;
    return n;
  }

  /** Window ends to write: every window from the first request to the last (only busy ones past 100k). */
  private windows(): number[] {
    if ((this.hi - this.lo) / WINDOW_MS <= 100_000) {
      const out: number[] = [];
      for (let w = this.lo; w <= this.hi; w += WINDOW_MS) out.push(w);
      return out;
    }
    return [...this.finished.keys()].sort((a, b) => a - b);
  }

  /**
   * Writes every series, one point per window. Client-side request spans (an application's or a gateway's
   * call to the model, OpenTelemetry GenAI's CLIENT inference spans) are the same requests a server's spans
   * count again, timed with the network and the gateway inside: where a file holds request spans of the
   * server (or of no stated side) the series are theirs alone; a file of client spans only is counted from
   * them, which `warn` says.
   */
  flush(sink: Sink, warn?: (message: string) => void): void {
    if (!Number.isFinite(this.lo)) {
      if (this.client && Number.isFinite(this.client.lo)) {
        warn?.(`request series from ${this.client.requests} client-side request spans only (the callers' view: network and gateway time included)`);
        this.client.flush(sink);
      }
      return;
    }
    const windows = this.windows();
    for (const h of this.hists) {
      if (h.values.size === 0) continue;
      const labels = this.labels(h.name);
      const hist = sink.series({ name: h.name, labels, unit: 'seconds', kind: 'histogram' });
      const count = sink.series({ name: `${h.name}.count`, labels, unit: 'count', kind: 'counter' });
      const sum = sink.series({ name: `${h.name}.sum`, labels, unit: 'seconds', kind: 'counter' });
      const cum = new Array<number>(h.bounds.length + 1).fill(0);
      let n = 0;
      let total = 0;
      for (const w of windows) {
        for (const v of h.values.get(w) ?? []) {
          n++;
          total += v;
          let i = 0;
          while (i < h.bounds.length && v > h.bounds[i]) i++;
          cum[i]++;
        }
        let running = 0;
        for (let i = 0; i <= h.bounds.length; i++) {
          running += cum[i];
          sink.histogram(hist, w, i < h.bounds.length ? h.bounds[i] : Infinity, running);
        }
        sink.sample(count, w, n);
        sink.sample(sum, w, total);
      }
    }
    const finished = sink.series({ name: 'req.finished', labels: this.labels('req.finished'), unit: 'count', kind: 'counter' });
    const errors = sink.series({ name: 'req.errors', labels: this.labels('req.errors'), unit: 'count', kind: 'counter' });
    let f = 0;
    let e = 0;
    for (const w of windows) {
      f += this.finished.get(w) ?? 0;
      e += this.errors.get(w) ?? 0;
      sink.sample(finished, w, f);
      sink.sample(errors, w, e);
    }
  }
}
