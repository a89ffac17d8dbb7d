// The sink an importer writes into on a worker thread: calls become a Batch of compact rows (typed
// arrays of numbers; spans and kernels with their attributes already JSON) that the engine thread
// replays into the real SourceWriter (batch-replay.ts). Series and stacks get local ids, found again
// for the same definition as the writer would.
import type { AllocationRecord, AttachedQuery, EventRecord, KernelRecord, SeriesDef, Sink, SpanRecord } from '../importers/types';
import { seriesKey } from '../store/series-key';
import { nsValue, packable, RowPacker } from './packed-rows';
import type { Batch } from './worker-protocol';

/** Numbers per typed array of samples or histogram buckets (a multiple of 3 and of 4). */
const NUMBERS_PER_ARRAY = 3 * 4 * 16_384;

/** Fills Float64Arrays of `width`-number rows, one after another. */
class NumberRows {
  private full: Float64Array[] = [];
  private cur = new Float64Array(NUMBERS_PER_ARRAY);
  private n = 0;

  push3(a: number, b: number, c: number): void {
    if (this.n === NUMBERS_PER_ARRAY) this.next();
    const cur = this.cur;
    cur[this.n] = a;
    cur[this.n + 1] = b;
    cur[this.n + 2] = c;
    this.n += 3;
  }

  push4(a: number, b: number, c: number, d: number): void {
    if (this.n === NUMBERS_PER_ARRAY) this.next();
    const cur = this.cur;
    cur[this.n] = a;
    cur[this.n + 1] = b;
    cur[this.n + 2] = c;
    cur[this.n + 3] = d;
    this.n += 4;
  }

  private next(): void {
    this.full.push(this.cur);
    this.cur = new Float64Array(NUMBERS_PER_ARRAY);
    this.n = 0;
  }

  /** The rows so far (the last array cut to its rows), and a fresh start. */
  take(): Float64Array[] {
    const out = this.full;
    if (this.n) out.push(this.cur.slice(0, this.n));
    this.full = [];
    this.n = 0;
    return out;
  }
}

export class RecordingSink implements Sink {
  readonly incidentId = -1;
  readonly sourceId = -1;
  private count = 0;
  private readonly seriesIds = new Map<string, number>();
  private readonly stackIds = new Map<string, number>();
  private newSeries: Batch['series'] = [];
  private newStacks: Batch['stacks'] = [];
  private readonly samples = new NumberRows();
  private readonly buckets = new NumberRows();
  private readonly packedSpans = new RowPacker(5, 2, 0);
  private readonly packedKernels = new RowPacker(2, 2, 3);
  private spans: unknown[] = [];
  private kernels: unknown[] = [];
  private allocations: unknown[] = [];
  private events: EventRecord[] = [];

  get rows(): number {
    return this.count;
  }

  series(def: SeriesDef): number {
    const key = seriesKey(def.name, def.labels);
    let id = this.seriesIds.get(key);
    if (id === undefined) {
      this.seriesIds.set(key, (id = this.seriesIds.size));
      this.newSeries.push([id, def]);
    }
    return id;
  }

  sample(series: number, ts_ms: number, value: number): void {
    this.samples.push3(series, ts_ms, value);
    this.count++;
  }

  histogram(series: number, ts_ms: number, le: number, count: number): void {
    this.buckets.push4(series, ts_ms, le, count);
    this.count++;
  }

  event(e: EventRecord): void {
    this.events.push(e);
    this.count++;
  }

  span(s: SpanRecord): void {
    const attrs = s.attrs ? JSON.stringify(s.attrs) : '{}';
    const parent = s.parent_id ?? null;
    const start = nsValue(s.start_ns);
    const end = nsValue(s.end_ns);
    if (start !== null && end !== null && packable(s.trace_id) && packable(s.span_id) && (parent === null || packable(parent)) && packable(s.name)) {
      this.packedSpans.push([s.trace_id, s.span_id, parent, s.name, attrs], [start, end], []);
    } else {
      this.spans.push(s.trace_id, s.span_id, parent, s.name, s.start_ns, s.end_ns, attrs);
    }
    this.count++;
  }

  kernel(k: KernelRecord): void {
    const attrs = k.attrs ? JSON.stringify(k.attrs) : '{}';
    const start = nsValue(k.start_ns);
    const end = nsValue(k.end_ns);
    const corr = k.correlation_id ?? null;
    if (start !== null && end !== null && packable(k.name) && Number.isFinite(k.device) && Number.isFinite(k.stream) && (corr === null || Number.isFinite(corr))) {
      this.packedKernels.push([k.name, attrs], [start, end], [k.device, k.stream, corr ?? NaN]);
    } else {
      this.kernels.push(k.device, k.stream, k.name, k.start_ns, k.end_ns, corr, attrs);
    }
    this.count++;
  }

  stack(frames: string[]): number {
    const key = JSON.stringify(frames);
    let id = this.stackIds.get(key);
    if (id === undefined) {
      this.stackIds.set(key, (id = this.stackIds.size));
      this.newStacks.push([id, frames]);
    }
    return id;
  }

  allocation(a: AllocationRecord): void {
    this.allocations.push(a.device, a.addr, a.size, a.alloc_ns ?? null, a.free_ns ?? null, a.stack_id ?? null, a.source, a.correlation_id ?? null);
    this.count++;
  }

  attached<T>(_fn: (q: AttachedQuery) => T): T {
    throw new Error('an importer that needs its file attached cannot run on a worker thread');
  }

  /** Everything written since the last take(). */
  take(): Batch {
    const b: Batch = {
      series: this.newSeries,
      stacks: this.newStacks,
      samples: this.samples.take(),
      histograms: this.buckets.take(),
      packedSpans: this.packedSpans.take(),
      packedKernels: this.packedKernels.take(),
      spans: this.spans,
      kernels: this.kernels,
      allocations: this.allocations,
      events: this.events,
    };
    this.newSeries = [];
    this.newStacks = [];
    this.spans = [];
    this.kernels = [];
    this.allocations = [];
    this.events = [];
    return b;
  }
}
