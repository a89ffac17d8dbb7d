// Live data into the store in complete batches. Producers (the NVML sampler, each scraper) write into
// a LiveStream — a Sink, so the Prometheus importer can write into one unchanged — which holds rows in
// memory; every flush commits each stream's pending rows in one transaction, so readers never see half a
// batch. Each stream is one source (one row in `sources` per endpoint, its rows and bytes adding up over
// the batches), and a series keeps one id across batches: it is registered in the batch that first
// writes it and later batches add samples to it. A stream takes at most `maxSeries` series (an endpoint
// minting new label values every scrape would otherwise grow without end): past it, new series are not
// recorded, with one warning saying so. Each flush widens the incident's span to what it wrote, so a
// recording stopped at any point (SIGTERM included) leaves its span current.
import type { FormatId } from '../../../common/contract/types';
import type { AllocationRecord, AttachedQuery, EventRecord, KernelRecord, SeriesDef, Sink, SpanRecord } from '../importers/types';
import type { Store } from '../store/store';
import { groupDigits } from '../../../common/format';

export interface RecorderOptions {
  /** How often pending rows are committed (default 1000 ms). */
  flushMs?: number;
  /** Pending rows kept per stream while the store is busy; the oldest are dropped beyond (default 2 M). */
  maxPendingRows?: number;
  /** Series one stream may register (default DEFAULT_MAX_SERIES). */
  maxSeries?: number;
}

/** Far above any real endpoint (a vLLM server exposes hundreds of series, dcgm-exporter on 8 GPUs about 500). */
export const DEFAULT_MAX_SERIES = 20_000;

export interface StreamStats {
  path: string;
  batches: number;
  rows: number;
  pending: number;
  dropped: number;
  last_error: string | null;
  /** Series registered, and samples left out because their series was over the cap. */
  series: number;
  over_cap: number;
  /** Why rows are being left out (the series cap), or null. */
  warning: string | null;
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
  private overCap = 0;
  private capWarning: string | null = null;
  private lastError: string | null = null;
  /** The stream's source row, once its first batch committed. */
  private storeSourceId: number | null = null;
  /** The time range of the last batch committed (for the incident's span). */
  lastRange: { start_ms: number; end_ms: number } | null = null;

  constructor(
    readonly path: string,
    readonly format: FormatId,
    readonly incidentId: number,
    private readonly maxPending: number,
    private readonly maxSeries = DEFAULT_MAX_SERIES,
  ) {}

  get sourceId(): number {
    return this.storeSourceId ?? 0;
  }

  /** Rows written so far, committed or pending. */
  get rows(): number {
    return this.committedRows + this.pending;
  }

  get pending(): number {
    return this.samplesBuf.length / 3 + this.histogramsBuf.length / 4 + this.eventsBuf.length;
  }

  stats(): StreamStats {
    return {
      path: this.path,
      batches: this.batchCount,
      rows: this.committedRows,
      pending: this.pending,
      dropped: this.droppedRows,
      last_error: this.lastError,
      series: this.defs.length,
      over_cap: this.overCap,
      warning: this.capWarning,
    };
  }

  /** A series' id in this stream; -1 once the stream holds maxSeries (its samples are then left out). */
  series(def: SeriesDef): number {
    const key = seriesKey(def);
    let id = this.localIds.get(key);
    if (id === undefined) {
      if (this.defs.length >= this.maxSeries) {
        if (this.capWarning === null) {
          this.capWarning = `${this.path}: more than ${groupDigits(this.maxSeries)} series (the latest: ${def.name}): new series are not recorded from here on; the endpoint mints label values without bound (a request id or timestamp as a label?)`;
          this.warn(this.capWarning);
        }
        return -1;
      }
      id = this.defs.length;
      this.defs.push(def);
      this.localIds.set(key, id);
    }
    return id;
  }

  sample(series: number, ts_ms: number, value: number): void {
    if (!Number.isFinite(value) || !Number.isFinite(ts_ms)) return;
    if (series < 0) {
      this.overCap++;
      return;
    }
    this.samplesBuf.push(series, ts_ms, value);
    this.bound();
  }

  histogram(series: number, ts_ms: number, le: number, count: number): void {
    if (!Number.isFinite(count) || Number.isNaN(le)) return;
    if (series < 0) {
      this.overCap++;
      return;
    }
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

  /** Commits pending rows into the stream's source; answers the rows written (0 when there was nothing). */
  flush(store: Store): number {
    const n = this.pending;
    this.lastRange = null;
    if (n === 0 && this.warnings.length === 0) return 0;
    const meta = { path: this.path, format: this.format, bytes: this.pendingBytes };
    const w = this.storeSourceId === null ? store.beginSource(this.incidentId, meta) : store.continueSource(this.incidentId, this.storeSourceId, meta);
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
      this.storeSourceId = w.sourceId;
      this.lastRange = w.timeRange;
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
  private readonly maxSeries: number;

  constructor(
    private readonly store: Store,
    readonly incidentId: number,
    opts: RecorderOptions = {},
    /** Called after each flush that wrote rows. */
    private readonly onFlush?: (rows: number) => void,
  ) {
    this.flushMs = opts.flushMs ?? 1000;
    this.maxPending = opts.maxPendingRows ?? 2_000_000;
    this.maxSeries = opts.maxSeries ?? DEFAULT_MAX_SERIES;
  }

  /** The stream for one producer ('live:nvml', 'live:scrape:<url>'); one source a stream. */
  stream(path: string, format: FormatId): LiveStream {
    let s = this.streams.get(path);
    if (!s) {
      s = new LiveStream(path, format, this.incidentId, this.maxPending, this.maxSeries);
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
    if (this.store.writing) return 0;
    let rows = 0;
    let lo = Infinity;
    let hi = -Infinity;
    for (const s of this.streams.values()) {
      try {
        rows += s.flush(this.store);
        if (s.lastRange) {
          lo = Math.min(lo, s.lastRange.start_ms);
          hi = Math.max(hi, s.lastRange.end_ms);
        }
      } catch {
        // kept in the stream's stats; its rows stay pending and the next flush tries again
      }
    }
    if (rows > 0) {
      try {
        // One row updated, no scan: the span is current after every flush (close() recomputes it).
        if (lo <= hi) this.store.extendIncidentSpan(this.incidentId, lo, hi);
      } catch {
        /* the next flush, or close(), brings it up to date */
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
