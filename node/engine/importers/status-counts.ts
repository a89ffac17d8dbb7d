// HTTP responses counted by status class, as the model reads them from access lines (an engine's uvicorn lines,
// a gateway's access log): `http.requests` per class and `req.errors` (the 5xx), cumulative, one sample per
// class seen at each time the counts are flushed (the caller flushes when the time moves on, or when a line of
// another kind comes between).
import type { Sink } from './types';

const STATUS_CLASS = Array.from({ length: 10 }, (_, d) => `${d}xx`);

export class StatusCounts {
  private readonly counts = new Array<number>(10).fill(0);
  /** Classes in the order they were first seen (their series are made in that order). */
  private readonly classes: number[] = [];
  private readonly ids = new Map<number, number>();
  private errorsId = -1;
  private dirty = false;
  private ts = NaN;

  /** `metric`: the label naming where the counts come from (`vllm-log:access`, `access-log`). */
  constructor(private readonly sink: Sink, private readonly metric: string) {}

  /** One response of class `d` (its status's first digit) at `ts`; the counts so far are flushed first when the time moved on. */
  add(ts: number, d: number): void {
    if (this.dirty && ts !== this.ts) this.flush();
    if (this.counts[d]++ === 0) this.classes.push(d);
    this.dirty = true;
    this.ts = ts;
  }

  flush(): void {
    if (!this.dirty) return;
    this.dirty = false;
    let errors = 0;
    for (const d of this.classes) {
      const n = this.counts[d];
      if (d === 5) errors = n;
      else this.sink.sample(this.classSeries(d), this.ts, n);
    }
    if (this.errorsId < 0) this.errorsId = this.sink.series({ name: 'req.errors', labels: { metric: `${this.metric} 5xx` }, unit: 'count', kind: 'counter' });
    this.sink.sample(this.errorsId, this.ts, errors);
  }

  private classSeries(d: number): number {
    let id = this.ids.get(d);
    if (id === undefined) {
      id = this.sink.series({ name: 'http.requests', labels: { status: STATUS_CLASS[d], metric: this.metric }, unit: 'count', kind: 'counter' });
      this.ids.set(d, id);
    }
    return id;
  }
}
