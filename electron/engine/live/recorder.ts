// Live data into the store in complete batches. Producers (the NVML sampler, each scraper) write into
// a LiveStream — a Sink, so the Prometheus importer can write into one unchanged — which holds rows in
// memory; every flush commits each stream's pending rows as one source, in one transaction, so readers
// never see half a batch. A series keeps one id across batches: it is registered in the batch that
// first writes it and later batches add samples to it.
import type { FormatId } from '../../contract/types';
import type { AllocationRecord, AttachedQuery, EventRecord, KernelRecord, SeriesDef, Sink, SpanRecord } from '../importers/types';
import type { Store } from '../store/store';

export interface RecorderOptions {
  /** How often pending rows are committed (default 1000 ms). */
  flushMs?: number;
  /** Pending rows kept per stream while the store is busy; the oldest are dropped beyond (default 2 M). */
  maxPendingRows?: number;
}

export interface StreamStats {
  path: string;
  batches: number;
  rows: number;
  pending: number;
  dropped: number;
  last_error: string | null;
}

const MAX_WARNINGS_PER_BATCH = 50;

interface Mark {
  samples: number;
  histograms: number;
  events: number;
}

function seriesKey(def: SeriesDef): string {
  const labels = def.labels ?? {};
  return `${def.name}\u0000${JSON.stringify(Object.keys(labels).sort().map((k) => [k, labels[k]]))}`;
}

export class LiveStream implements Sink {
  private readonly defs: SeriesDef[] = [];
  private readonly localIds = new Map<string, number>();
  /** Local series id → id in the store, once a committed batch registered it. */
  private readonly storeIds: (number | undefined)[] = [];
  private samplesBuf: number[] = [];
  private histogramsBuf: number[] = [];
  private eventsBuf: EventRecord[] = [];
  private warnings: string[] = [];
  private pendingBytes = 0;
  private committedRows = 0;
  private batchCount = 0;
  private droppedRows = 0;
  private lastError: string | null = null;

  constructor(
    readonly path: string,
    readonly format: FormatId,
    readonly incidentId: number,
    private readonly maxPending: number,
  ) {}

  get sourceId(): number {
    return 0;
  }

  /** Rows written so far, committed or pending. */
  get rows(): number {
    return this.committedRows + this.pending;
  }

  get pending(): number {
    return this.samplesBuf.length / 3 + this.histogramsBuf.length / 4 + this.eventsBuf.length;
  }

  stats(): StreamStats {
    return { path: this.path, batches: this.batchCount, rows: this.committedRows, pending: this.pending, dropped: this.droppedRows, last_error: this.lastError };
  }

  series(def: SeriesDef): number {
    const key = seriesKey(def);
    let id = this.localIds.get(key);
    if (id === undefined) {
      id = this.defs.length;
      this.defs.push(def);
      this.localIds.set(key, id);
    }
    return id;
  }

  sample(series: number, ts_ms: number, value: number): void {
    if (!Number.isFinite(value) || !Number.isFinite(ts_ms)) return;
    this.samplesBuf.push(series, ts_ms, value);
    this.bound();
  }

  histogram(series: number, ts_ms: number, le: number, count: number): void {
    if (!Number.isFinite(count) || Number.isNaN(le)) return;
    this.histogramsBuf.push(series, ts_ms, le, count);
    this.bound();
  }

  event(e: EventRecord): void {
    this.eventsBuf.push(e);
    this.bound();
  }

  span(_s: SpanRecord): void {
    throw new Error('live recording does not take spans');
  }

  kernel(_k: KernelRecord): void {
    throw new Error('live recording does not take kernels');
  }

  stack(_frames: string[]): number {
    throw new Error('live recording does not take stacks');
  }

  allocation(_a: AllocationRecord): void {
    throw new Error('live recording does not take allocations');
  }

  attached<T>(_fn: (q: AttachedQuery) => T): T {
    throw new Error('live recording has no attached file');
  }

  /** A recoverable problem, kept with the next batch's source. */
  warn(message: string): void {
    if (this.warnings.length < MAX_WARNINGS_PER_BATCH) this.warnings.push(message);
  }

  /** Counts bytes read for the next batch's source row. */
  addBytes(n: number): void {
    this.pendingBytes += n;
  }

  /** Where the pending rows end now; `reset(mark)` drops what came after (a scrape that failed midway). */
  mark(): Mark {
    return { samples: this.samplesBuf.length, histograms: this.histogramsBuf.length, events: this.eventsBuf.length };
  }

  reset(m: Mark): void {
    this.samplesBuf.length = m.samples;
    this.histogramsBuf.length = m.histograms;
    this.eventsBuf.length = m.events;
  }

  private bound(): void {
    if (this.pending <= this.maxPending) return;
    // The store has been unwritable for a long while: keep the newest rows.
    const drop = Math.ceil(this.samplesBuf.length / 6);
    this.samplesBuf = this.samplesBuf.slice(drop * 3);
    this.droppedRows += drop;
  }

  /** Commits pending rows as one source; answers the rows written (0 when there was nothing). */
  flush(store: Store): number {
    const n = this.pending;
    if (n === 0 && this.warnings.length === 0) return 0;
    const w = store.beginSource(this.incidentId, { path: this.path, format: this.format, bytes: this.pendingBytes });
    const fresh: number[] = [];
    const idOf = (local: number): number => {
      let id = this.storeIds[local];
      if (id === undefined) {
        id = w.series(this.defs[local]);
        this.storeIds[local] = id;
        fresh.push(local);
      }
      return id;
    };
    try {
      const s = this.samplesBuf;
      for (let i = 0; i < s.length; i += 3) w.sample(idOf(s[i]), s[i + 1], s[i + 2]);
      const h = this.histogramsBuf;
      for (let i = 0; i < h.length; i += 4) w.histogram(idOf(h[i]), h[i + 1], h[i + 2], h[i + 3]);
      for (const e of this.eventsBuf) w.event(e);
      w.commit(this.warnings);
    } catch (e) {
      w.rollback();
      for (const local of fresh) this.storeIds[local] = undefined;
      this.lastError = e instanceof Error ? e.message : String(e);
      throw e;
    }
    this.samplesBuf = [];
    this.histogramsBuf = [];
    this.eventsBuf = [];
    this.warnings = [];
    this.pendingBytes = 0;
    this.committedRows += n;
    this.batchCount++;
    this.lastError = null;
    return n;
  }
}

export class LiveRecorder {
  private readonly streams = new Map<string, LiveStream>();
  private timer: NodeJS.Timeout | null = null;
  private readonly flushMs: number;
  private readonly maxPending: number;
  private lastSpanRefresh = 0;

  constructor(
    private readonly store: Store,
    readonly incidentId: number,
    opts: RecorderOptions = {},
    /** Called after each flush that wrote rows. */
    private readonly onFlush?: (rows: number) => void,
  ) {
    this.flushMs = opts.flushMs ?? 1000;
    this.maxPending = opts.maxPendingRows ?? 2_000_000;
  }

  /** The stream for one producer ('live:nvml', 'live:scrape:<url>'); one source per flush. */
  stream(path: string, format: FormatId): LiveStream {
    let s = this.streams.get(path);
    if (!s) {
      s = new LiveStream(path, format, this.incidentId, this.maxPending);
      this.streams.set(path, s);
    }
    return s;
  }

  start(): void {
    this.timer ??= setInterval(() => this.flush(), this.flushMs);
  }

  /**
   * Commits every stream's pending rows. While the writer connection is inside another transaction
   * (an import in progress), rows stay pending and go with a later flush.
   */
  flush(): number {
    if (this.store.writer.inTransaction) return 0;
    let rows = 0;
    for (const s of this.streams.values()) {
      try {
        rows += s.flush(this.store);
      } catch {
        // kept in the stream's stats; its rows stay pending and the next flush tries again
      }
    }
    if (rows > 0) {
      const now = Date.now();
      // The span query touches every series and event of the incident: not on every flush.
      if (now - this.lastSpanRefresh >= 10_000) {
        this.store.refreshIncidentSpan(this.incidentId);
        this.lastSpanRefresh = now;
      }
      this.onFlush?.(rows);
    }
    return rows;
  }

  /** Stops the timer and commits what is left; the incident's span is brought up to date. */
  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    for (let attempt = 0; attempt < 3 && this.pending() > 0; attempt++) this.flush();
    this.store.refreshIncidentSpan(this.incidentId);
  }

  pending(): number {
    let n = 0;
    for (const s of this.streams.values()) n += s.pending;
    return n;
  }

  /** Sample rows recorded so far (committed and pending), over all streams. */
  rows(): number {
    let n = 0;
    for (const s of this.streams.values()) n += s.rows;
    return n;
  }

  stats(): StreamStats[] {
    return [...this.streams.values()].map((s) => s.stats());
  }
}
