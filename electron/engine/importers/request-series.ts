// Latency histograms and request counters derived from request spans, per 10 s window, written in the
// representation Prometheus histograms get: cumulative over buckets and over time (see span-attributes.ts).
import type { Sink } from './types';
import type { RequestFacts } from './span-attributes';

export const WINDOW_MS = 10_000;

/** vLLM's bucket bounds (s): request_latency_buckets (e2e, queue) and time_to_first_token. */
export const E2E_BUCKETS = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0];
export const TTFT_BUCKETS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0];

const LABELS = { from: 'spans' };

interface Hist {
  name: string;
  bounds: number[];
  /** Per window end: values observed. */
  values: Map<number, number[]>;
}

export class RequestSeries {
  private readonly hists: Hist[] = [
    { name: 'lat.e2e', bounds: E2E_BUCKETS, values: new Map() },
    { name: 'lat.ttft', bounds: TTFT_BUCKETS, values: new Map() },
    { name: 'lat.queue', bounds: E2E_BUCKETS, values: new Map() },
  ];
  private readonly finished = new Map<number, number>();
  private readonly errors = new Map<number, number>();
  private lo = Infinity;
  private hi = -Infinity;

  add(facts: RequestFacts, endMs: number): void {
    if (!Number.isFinite(endMs)) return;
    const w = Math.ceil(endMs / WINDOW_MS) * WINDOW_MS;
    this.lo = Math.min(this.lo, w);
    this.hi = Math.max(this.hi, w);
    const observe = (h: Hist, v: number | undefined) => {
      if (v === undefined || !Number.isFinite(v)) return;
      let list = h.values.get(w);
      if (!list) h.values.set(w, (list = []));
      list.push(v);
    };
    observe(this.hists[0], facts['request.e2e_s']);
    observe(this.hists[1], facts['request.ttft_s']);
    observe(this.hists[2], facts['request.queue_s']);
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

  /** Writes every series, one point per window. */
  flush(sink: Sink): void {
    if (!Number.isFinite(this.lo)) return;
    const windows = this.windows();
    for (const h of this.hists) {
      if (h.values.size === 0) continue;
      const hist = sink.series({ name: h.name, labels: LABELS, unit: 's', kind: 'histogram' });
      const count = sink.series({ name: `${h.name}.count`, labels: LABELS, unit: '', kind: 'counter' });
      const sum = sink.series({ name: `${h.name}.sum`, labels: LABELS, unit: 's', kind: 'counter' });
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
    const finished = sink.series({ name: 'req.finished', labels: LABELS, unit: '', kind: 'counter' });
    const errors = sink.series({ name: 'req.errors', labels: LABELS, unit: '', kind: 'counter' });
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
