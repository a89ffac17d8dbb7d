// The workspace store: one SQLite file and the only way to it. Two connections, both private: `db`
// serves reads and small writes (annotations, diagnoses); `writer` is a second connection that only
// imports use, so a source's open transaction is never seen by readers (WAL) and an import never blocks
// a query. The SQL is in one module per table family, each a set of functions over a connection:
//
//   incidents.ts        incidents, sources            series-reads.ts    series, samples, sample_tiles (timeline)
//   sample-reads.ts     whole series as typed arrays   histogram-reads.ts the reads of histogram quantiles
//   event-reads.ts      events, events_fts             trace-reads.ts     spans, kernels
//   allocation-reads.ts allocations, stacks            profile-reads.ts   kernel flows, memory by site
//   notes.ts            annotations, diagnoses         model-reads.ts     the diagnosis model's input
//   source-writer.ts    one source's import, every data table, in one transaction
//
// Tables are declared once in tables.ts (insert statements and the documented table lists come from it).
// This class holds the connections, the checkpointer and the incident sweep, and hands each call to its
// family's module.
import { statSync } from 'node:fs';
import { Checkpointer } from './checkpointer';
import type { Db } from './db';
import { isReadOnlyError, openDb } from './db';
import * as incidents from './incidents';
import { allocationSites, memoryTimeline } from './allocation-reads';
import { queryEvents, type EventQuery } from './event-reads';
import { bucketsAt, countCompanion, histogramSeries, lastScrapesAtOrBefore, scrapeSpan, type BucketRow, type HistogramSeries } from './histogram-reads';
import { readModelInput, type ModelInput, type ModelInputOptions } from './model-reads';
import * as notes from './notes';
import { kernelFlows, memoryBySite } from './profile-reads';
import { readHistogramSnapshots, readSampleArrays } from './sample-reads';
import { listSeries, querySeries, seriesCatalog } from './series-reads';
import { SourceWriter } from './source-writer';
import { registerConnections } from './test-access';
import { kernelSummary, listTraces, queryKernels, querySpans } from './trace-reads';
import type {
  AllocationSite,
  Annotation,
  EventRow,
  Incident,
  IncidentDetail,
  KernelFlows,
  KernelRow,
  KernelSummaryRow,
  MemoryBySite,
  MemoryPoint,
  SeriesData,
  SeriesInfo,
  SourceInfo,
  SourceStatus,
  SpanRow,
} from '../../../common/contract/types';

export { IN_PROGRESS_KEY } from './incidents';
export { toFtsQuery, type EventQuery } from './event-reads';
export type { ModelInput, ModelInputOptions } from './model-reads';

/** SQLite's default auto-checkpoint threshold, 1000 pages of 4 KiB. */
const WAL_CHECKPOINT_BYTES = 1000 * 4096;

export interface StoreOptions {
  /** Open for reading only (no migrations, no writes; read-only media work). */
  readonly?: boolean;
}

export class Store {
  private readonly db: Db;
  readonly readonly: boolean;
  private writerDb: Db | null = null;
  private checkpointer: Checkpointer | null = null;
  private noCheckpointer = false;

  constructor(
    readonly file: string,
    opts: StoreOptions = {},
  ) {
    this.readonly = !!opts.readonly;
    this.db = openDb(file, { readonly: this.readonly });
    registerConnections(this, { read: this.db, writer: () => this.writer });
    if (!this.readonly) incidents.sweepAbandoned(this.db);
  }

  /**
   * A store for reading a workspace the user named (analyze, report): read-write where possible, else
   * read-only (a read-only file, folder or mount), so such a workspace can still be read and reported.
   */
  static openForReading(file: string): Store {
    try {
      return new Store(file);
    } catch (e) {
      if (!isReadOnlyError(e)) throw e;
      return new Store(file, { readonly: true });
    }
  }

  private get writer(): Db {
    if (this.readonly) throw Object.assign(new Error(`${this.file} is open read-only: it cannot be written`), { code: 'SQLITE_READONLY' });
    this.writerDb ??= openDb(this.file);
    return this.writerDb;
  }

  /** Whether an import (or a recording's batch) holds the writer's transaction open now. */
  get writing(): boolean {
    return this.writerDb?.inTransaction ?? false;
  }

  /**
   * close(), once the checkpoint worker has closed its connection: the store's is then the last, so its
   * close folds the WAL back and removes the WAL files before this resolves, and nothing touches the
   * workspace's files afterwards.
   */
  async closeSettled(): Promise<void> {
    const cp = this.checkpointer;
    this.checkpointer = null;
    await cp?.close();
    this.close();
  }

  close(): void {
    // A checkpoint cut short is harmless (the WAL stays valid); the last connection to close folds it back.
    void this.checkpointer?.close();
    this.checkpointer = null;
    try {
      // A transaction left open by a failure (a full disk) must not keep the close from happening.
      if (this.writerDb?.inTransaction) this.writerDb.exec('ROLLBACK');
    } catch {
      /* closing rolls it back anyway */
    }
    this.writerDb?.close();
    this.db.close();
  }

  // ---- imports: one source a transaction on the writer (source-writer.ts)

  beginSource(incidentId: number, meta: { path: string; format: string; bytes: number }, attachFile?: string): SourceWriter {
    return new SourceWriter(this.writer, incidentId, meta, attachFile, () => this.checkpointSoon(), () => this.autoCheckpointPages());
  }

  /** A further batch of a source committed before (live recording: one source a stream), in its own transaction. */
  continueSource(incidentId: number, sourceId: number, meta: { path: string; format: string; bytes: number }): SourceWriter {
    return new SourceWriter(this.writer, incidentId, { ...meta, sourceId }, undefined, () => this.checkpointSoon(), () => this.autoCheckpointPages());
  }

  /**
   * After a source's commit: a WAL past SQLite's own auto-checkpoint size (1000 pages) is folded back by
   * the checkpointer thread. Where none can start, the next commit's auto-checkpoint does it, as before.
   */
  private checkpointSoon(): void {
    if (this.file === ':memory:' || this.noCheckpointer) return;
    let walBytes = 0;
    try {
      walBytes = statSync(`${this.file}-wal`).size;
    } catch {
      return;
    }
    if (walBytes < WAL_CHECKPOINT_BYTES) return;
    try {
      if (!this.checkpointer) {
        this.checkpointer = new Checkpointer(this.file);
        // From here the checkpointer folds the WAL back after each source. SQLite's own auto-checkpoint
        // would do it first, on this thread, inside the next small commit (the incident's span after an
        // import: 200–340 ms of a 100 MB import, the whole WAL copied and synced).
        this.setAutoCheckpoint();
      }
      this.checkpointer.request();
    } catch {
      this.noCheckpointer = true;
    }
  }

  /** The writer's auto-checkpoint: off while a checkpointer thread does the work, SQLite's 1000 pages otherwise. */
  private autoCheckpointPages(): number {
    return this.checkpointer?.alive ? 0 : 1000;
  }

  private setAutoCheckpoint(): void {
    if (this.writerDb && !this.writerDb.inTransaction) this.writerDb.pragma(`wal_autocheckpoint = ${this.autoCheckpointPages()}`);
  }

  /** Resolves once no background checkpoint is running (tests, benchmarks, and closing). */
  checkpointsSettled(): Promise<void> {
    return this.checkpointer?.settled() ?? Promise.resolve();
  }

  /**
   * Folds the WAL back into the database file now: waits for the background checkpoint, then copies
   * what came after it (the last small commits). A command calls it before it answers, so what it
   * reports is in the file itself (a copy of the file alone holds it) and closing has nothing left to
   * copy: the CLI lingered 0.4–3.1 s after printing the answer of a large import, checkpointing on close.
   */
  async checkpointNow(): Promise<void> {
    await this.checkpointsSettled();
    if (!this.writerDb || this.writerDb.inTransaction) return;
    try {
      // TRUNCATE also empties the WAL, so the close that follows has nothing to copy or delete.
      this.writerDb.pragma('wal_checkpoint(TRUNCATE)');
    } catch {
      /* a full disk or a busy reader: the WAL stays valid and holds the data; closing tries again */
    }
  }

  // ---- incidents and sources (incidents.ts)

  /** A new incident; `inProgress` marks it as being filled by this process until finishIncident (incidents.ts). */
  createIncident(name: string, source = 'import', meta: Record<string, unknown> = {}, opts: { inProgress?: boolean } = {}): number {
    return incidents.createIncident(this.writer, name, source, meta, !!opts.inProgress);
  }

  /** Clears the in-progress mark; an incident that kept no data is deleted when `dropIfEmpty`. Answers whether it stays. */
  finishIncident(id: number, opts: { dropIfEmpty?: boolean } = {}): boolean {
    return incidents.finishIncident(this.writer, id, !!opts.dropIfEmpty);
  }

  /** Whether an incident holds data: a source that committed rows. */
  hasData(id: number): boolean {
    return incidents.hasData(this.db, id);
  }

  /** The newest incident that holds data (what a command means by "the newest incident"), or null. */
  newestIncident(): Incident | null {
    return incidents.newestIncident(this.db);
  }

  /** Widens an incident's span to cover [startMs, endMs] (cheap: no scan; refreshIncidentSpan recomputes it). */
  extendIncidentSpan(incidentId: number, startMs: number, endMs: number): void {
    incidents.extendIncidentSpan(this.writer, incidentId, startMs, endMs);
  }

  /** Records a source that imported nothing (failed or skipped) in its own small transaction. */
  recordSource(incidentId: number, meta: { path: string; format: string; bytes: number; status: SourceStatus; error: string | null; warnings?: string[] }): number {
    return incidents.recordSource(this.writer, incidentId, meta);
  }

  /** Recomputes an incident's time span from what its sources hold. */
  refreshIncidentSpan(incidentId: number): void {
    incidents.refreshIncidentSpan(this.writer, incidentId);
  }

  /** Sets an incident's span to the one its rows give (see RowExtent: what refreshIncidentSpan would read back). */
  setIncidentSpan(incidentId: number, span: { start_ms: number | null; end_ms: number | null }): void {
    incidents.setIncidentSpan(this.writer, incidentId, span);
  }

  /** Deletes an incident on the writer connection (the pipeline's own, for an import that kept nothing). */
  deleteIncidentWriter(id: number): void {
    incidents.deleteIncident(this.writer, id);
  }

  listIncidents(): Incident[] {
    return incidents.listIncidents(this.db);
  }

  /** Whether an incident exists (getIncident also counts its rows, which scans its samples). */
  incidentExists(id: number): boolean {
    return incidents.incidentExists(this.db, id);
  }

  getIncident(id: number): IncidentDetail | null {
    return incidents.getIncident(this.db, id);
  }

  /** An incident's recorded span, without getIncident's row counts; null if absent. */
  incidentSpan(incidentId: number): { start_ms: number | null; end_ms: number | null } | null {
    return incidents.incidentSpan(this.db, incidentId);
  }

  incidentMeta(id: number): Record<string, unknown> {
    return incidents.incidentMeta(this.db, id);
  }

  listSources(incidentId: number): SourceInfo[] {
    return incidents.listSources(this.db, incidentId);
  }

  renameIncident(id: number, name: string): void {
    incidents.renameIncident(this.db, id, name);
  }

  deleteIncident(id: number): void {
    incidents.deleteIncident(this.db, id);
  }

  // ---- series (series-reads.ts, sample-reads.ts, histogram-reads.ts)

  listSeries(incidentId: number, namePrefix?: string): SeriesInfo[] {
    return listSeries(this.db, incidentId, namePrefix);
  }

  /** Every series of an incident with the path of the file it came from, by name and labels (no sample counts). */
  seriesCatalog(incidentId: number): { id: number; name: string; labels: Record<string, string>; kind: string; source_path: string | null }[] {
    return seriesCatalog(this.db, incidentId);
  }

  /** Each series over [startMs, endMs] at `points` min/max buckets at most (downsample.ts). */
  querySeries(seriesIds: number[], startMs: number, endMs: number, points: number): SeriesData[] {
    return querySeries(this.db, seriesIds, startMs, endMs, points);
  }

  /** All samples of a series, in time order, as typed arrays (sample-reads.ts). */
  samples(seriesId: number): { t: Float64Array; v: Float64Array } {
    return readSampleArrays(this.db, seriesId);
  }

  /** Every scrape of a histogram series: cumulative bucket counts by ascending bound (sample-reads.ts). */
  histogramSnapshots(seriesId: number): { t: number; le: number[]; counts: number[] }[] {
    return readHistogramSnapshots(this.db, seriesId);
  }

  /** A series' identity, or null (histogram-reads.ts, for the quantile charts). */
  histogramSeries(seriesId: number): HistogramSeries | null {
    return histogramSeries(this.db, seriesId);
  }

  /** The `<name>.count` counter written with a histogram, or null. */
  countCompanion(h: HistogramSeries): number | null {
    return countCompanion(this.db, h);
  }

  scrapeSpan(countId: number): { n: number; first: number | null; last: number | null } {
    return scrapeSpan(this.db, countId);
  }

  /** For each instant (ascending), the last scrape at or before it; null before the first. */
  lastScrapesAtOrBefore(countId: number, instants: readonly number[]): (number | null)[] {
    return lastScrapesAtOrBefore(this.db, countId, instants);
  }

  /** Cumulative buckets by ascending `le` at each of the given scrapes that has a row. */
  bucketsAt(seriesId: number, timestamps: readonly number[]): Map<number, BucketRow> {
    return bucketsAt(this.db, seriesId, timestamps);
  }

  // ---- the diagnosis model's input (model-reads.ts)

  /** Everything the model reads of an incident, in one read transaction; null when there is no such incident. */
  modelInput(incidentId: number, opts: ModelInputOptions): ModelInput | null {
    return readModelInput(this.db, incidentId, opts);
  }

  // ---- events (event-reads.ts)

  queryEvents(q: EventQuery): { rows: EventRow[]; total: number } {
    return queryEvents(this.db, q);
  }

  // ---- spans, traces and kernels (trace-reads.ts, profile-reads.ts)

  querySpans(q: { incident_id: number; trace_id?: string; start_ms?: number; end_ms?: number; limit?: number }): SpanRow[] {
    return querySpans(this.db, q);
  }

  listTraces(incidentId: number, limit?: number): { trace_id: string; root: string; start_ms: number; end_ms: number; spans: number }[] {
    return listTraces(this.db, incidentId, limit);
  }

  queryKernels(incidentId: number, startMs: number, endMs: number, limit?: number): KernelRow[] {
    return queryKernels(this.db, incidentId, startMs, endMs, limit);
  }

  kernelSummary(incidentId: number, startMs?: number, endMs?: number, limit?: number): KernelSummaryRow[] {
    return kernelSummary(this.db, incidentId, startMs, endMs, limit);
  }

  /** CPU → GPU flows of the kernels in a range (profile-reads.ts). */
  kernelFlows(incidentId: number, startMs: number, endMs: number, limit?: number): KernelFlows {
    return kernelFlows(this.db, incidentId, startMs, endMs, limit);
  }

  // ---- allocations (allocation-reads.ts, profile-reads.ts)

  /** Live bytes over time stacked by allocation site (profile-reads.ts). */
  memoryBySite(incidentId: number, opts: { device?: number; points?: number; top?: number } = {}): MemoryBySite {
    return memoryBySite(this.db, incidentId, opts);
  }

  /** Live bytes over time from allocation records (alloc +size, free −size), at most `points` points. */
  memoryTimeline(incidentId: number, device?: number, points?: number): MemoryPoint[] {
    return memoryTimeline(this.db, incidentId, device, points);
  }

  /** Allocations alive at `atMs` (default: the end), grouped by stack, largest first. */
  allocationSites(incidentId: number, atMs?: number, limit?: number): AllocationSite[] {
    return allocationSites(this.db, incidentId, atMs, limit);
  }

  // ---- annotations and diagnoses (notes.ts)

  listAnnotations(incidentId: number): Annotation[] {
    return notes.listAnnotations(this.db, incidentId);
  }

  addAnnotation(a: Omit<Annotation, 'id' | 'created_ms'>): Annotation {
    return notes.addAnnotation(this.db, a);
  }

  updateAnnotation(id: number, text: string): Annotation | null {
    return notes.updateAnnotation(this.db, id, text);
  }

  deleteAnnotation(id: number): void {
    notes.deleteAnnotation(this.db, id);
  }

  /** The JSON of the incident's most recently saved diagnosis, or null. */
  latestDiagnosis(incidentId: number): string | null {
    return notes.latestDiagnosis(this.db, incidentId);
  }

  saveDiagnosis(incidentId: number, json: string): void {
    notes.saveDiagnosis(this.db, incidentId, json);
  }
}
