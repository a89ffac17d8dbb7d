// The workspace store: one SQLite file. `db` serves reads and small writes (annotations, diagnoses);
// `writer` is a second connection that only imports use, so a source's open transaction is never seen
// by readers (WAL) and an import never blocks a query.
import { statSync } from 'node:fs';
import { hostname } from 'node:os';
import { Checkpointer } from './checkpointer';
import type { Db } from './db';
import { isReadOnlyError, openDb } from './db';
import { downsampleSeries } from './downsample';
import { readHistogramSnapshots, readSampleArrays } from './sample-reads';
import { parse } from './parse-json';
import { kernelFlows, memoryBySite } from './profile-reads';
import { SourceWriter } from './source-writer';
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
import type { Req } from '../../../common/contract/api';


/** The engine's event query (the contract's request type: one definition). */
export type EventQuery = Req<'queryEvents'>;

/** SQLite's default auto-checkpoint threshold, 1000 pages of 4 KiB. */
const WAL_CHECKPOINT_BYTES = 1000 * 4096;

export interface StoreOptions {
  /** Open for reading only (no migrations, no writes; read-only media work). */
  readonly?: boolean;
}

/** The key in incidents.meta_json that marks an import or recording still running (its process and host). */
export const IN_PROGRESS_KEY = 'in_progress';

export class Store {
  readonly db: Db;
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
    if (!this.readonly) this.sweepAbandoned();
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

  get writer(): Db {
    if (this.readonly) throw Object.assign(new Error(`${this.file} is open read-only: it cannot be written`), { code: 'SQLITE_READONLY' });
    this.writerDb ??= openDb(this.file);
    return this.writerDb;
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

  // ---- incidents and sources

  /**
   * A new incident. `inProgress` marks it as being filled by this process (an import, a recording) until
   * finishIncident: if the process dies first, the next store opened here deletes it when nothing of it
   * was committed, and clears the mark otherwise (sources are whole or absent, one transaction each).
   */
  createIncident(name: string, source = 'import', meta: Record<string, unknown> = {}, opts: { inProgress?: boolean } = {}): number {
    const m = opts.inProgress ? { ...meta, [IN_PROGRESS_KEY]: { pid: process.pid, host: hostname(), started_ms: Date.now() } } : meta;
    return Number(
      this.writer.prepare('INSERT INTO incidents (name, created_ms, source, meta_json) VALUES (?, ?, ?, ?)').run(name, Date.now(), source, JSON.stringify(m)).lastInsertRowid,
    );
  }

  /** Clears the in-progress mark; an incident that kept no data (no source with rows) is deleted when `dropIfEmpty`. Answers whether it stays. */
  finishIncident(id: number, opts: { dropIfEmpty?: boolean } = {}): boolean {
    const w = this.writer;
    if (opts.dropIfEmpty && !this.hasData(id, w)) {
      w.prepare('DELETE FROM incidents WHERE id = ?').run(id);
      return false;
    }
    w.prepare(`UPDATE incidents SET meta_json = json_remove(meta_json, '$.${IN_PROGRESS_KEY}') WHERE id = ? AND json_valid(meta_json) AND json_type(meta_json, '$.${IN_PROGRESS_KEY}') IS NOT NULL`).run(id);
    return true;
  }

  /** Whether an incident holds data: a source that committed rows. */
  hasData(id: number, db: Db = this.db): boolean {
    return db.prepare("SELECT 1 FROM sources WHERE incident_id = ? AND status = 'ok' AND rows > 0 LIMIT 1").pluck().get(id) !== undefined;
  }

  /**
   * The newest incident that holds data (what a command means by "the newest incident"): an import that
   * failed whole, or one cut short before its first file committed, is passed over. Null when none has data.
   */
  newestIncident(): Incident | null {
    return (
      (this.db
        .prepare(
          `SELECT id, name, created_ms, start_ms, end_ms, source FROM incidents i
            WHERE EXISTS (SELECT 1 FROM sources s WHERE s.incident_id = i.id AND s.status = 'ok' AND s.rows > 0)
            ORDER BY created_ms DESC, id DESC LIMIT 1`,
        )
        .get() as Incident | undefined) ?? null
    );
  }

  /**
   * Incidents marked in progress by a process of this host that is gone (killed mid-import or mid-
   * recording): deleted when they kept no data, else unmarked. Never waits on a busy database: when
   * another process holds the write lock, the sweep is left to a later open.
   */
  private sweepAbandoned(): void {
    let marked: { id: number; meta_json: string }[];
    try {
      marked = this.db.prepare(`SELECT id, meta_json FROM incidents WHERE meta_json LIKE '%"${IN_PROGRESS_KEY}"%'`).all() as { id: number; meta_json: string }[];
    } catch {
      return;
    }
    const host = hostname();
    const dead = marked.filter((r) => {
      const mark = parse<Record<string, { pid?: unknown; host?: unknown }>>(r.meta_json, {})[IN_PROGRESS_KEY];
      return mark && mark.host === host && typeof mark.pid === 'number' && mark.pid !== process.pid && !processAlive(mark.pid);
    });
    if (!dead.length) return;
    const timeout = this.db.pragma('busy_timeout', { simple: true }) as number;
    this.db.pragma('busy_timeout = 0');
    try {
      this.db.transaction(() => {
        for (const r of dead) {
          if (this.hasData(r.id)) {
            this.db.prepare(`UPDATE incidents SET meta_json = json_remove(meta_json, '$.${IN_PROGRESS_KEY}') WHERE id = ?`).run(r.id);
          } else this.db.prepare('DELETE FROM incidents WHERE id = ?').run(r.id);
        }
      })();
    } catch {
      /* busy or unwritable: a later open sweeps */
    } finally {
      this.db.pragma(`busy_timeout = ${timeout}`);
    }
  }

  beginSource(incidentId: number, meta: { path: string; format: string; bytes: number }, attachFile?: string): SourceWriter {
    return new SourceWriter(this.writer, incidentId, meta, attachFile, () => this.checkpointSoon());
  }

  /** A further batch of a source committed before (live recording: one source a stream), in its own transaction. */
  continueSource(incidentId: number, sourceId: number, meta: { path: string; format: string; bytes: number }): SourceWriter {
    return new SourceWriter(this.writer, incidentId, { ...meta, sourceId }, undefined, () => this.checkpointSoon());
  }

  /** Widens an incident's span to cover [startMs, endMs] (cheap: no scan; refreshIncidentSpan recomputes it). */
  extendIncidentSpan(incidentId: number, startMs: number, endMs: number): void {
    this.writer
      .prepare('UPDATE incidents SET start_ms = MIN(COALESCE(start_ms, @lo), @lo), end_ms = MAX(COALESCE(end_ms, @hi), @hi) WHERE id = @id')
      .run({ id: incidentId, lo: Math.floor(startMs), hi: Math.ceil(endMs) });
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
      this.checkpointer ??= new Checkpointer(this.file);
      this.checkpointer.request();
    } catch {
      this.noCheckpointer = true;
    }
  }

  /** Resolves once no background checkpoint is running (tests, benchmarks, and closing). */
  checkpointsSettled(): Promise<void> {
    return this.checkpointer?.settled() ?? Promise.resolve();
  }

  /** Records a source that imported nothing (failed or skipped) in its own small transaction. */
  recordSource(incidentId: number, meta: { path: string; format: string; bytes: number; status: SourceStatus; error: string | null; warnings?: string[] }): number {
    return Number(
      this.writer
        .prepare('INSERT INTO sources (incident_id, path, format, bytes, rows, status, error, warnings_json) VALUES (?, ?, ?, ?, 0, ?, ?, ?)')
        .run(incidentId, meta.path, meta.format, meta.bytes, meta.status, meta.error, JSON.stringify(meta.warnings ?? []))
        .lastInsertRowid,
    );
  }

  /** Recomputes an incident's time span from what its sources hold. */
  refreshIncidentSpan(incidentId: number): void {
    const w = this.writer;
    const r = w
      .prepare(
        `SELECT MIN(lo) AS lo, MAX(hi) AS hi FROM (
           -- Per series, the first and last sample are one seek each in the clustered (series, time) key.
           SELECT MIN((SELECT ts_ms FROM samples WHERE series_id = r.id ORDER BY ts_ms LIMIT 1)) AS lo,
                  MAX((SELECT ts_ms FROM samples WHERE series_id = r.id ORDER BY ts_ms DESC LIMIT 1)) AS hi
             FROM series r WHERE r.incident_id = @id
           UNION ALL SELECT MIN(ts_ms), MAX(ts_ms) FROM events WHERE incident_id = @id
           UNION ALL SELECT MIN(start_ns) / 1000000, MAX(end_ns) / 1000000 FROM spans WHERE incident_id = @id
           UNION ALL SELECT MIN(start_ns) / 1000000, MAX(end_ns) / 1000000 FROM kernels WHERE incident_id = @id
           UNION ALL SELECT MIN(alloc_ns) / 1000000, MAX(COALESCE(free_ns, alloc_ns)) / 1000000 FROM allocations WHERE incident_id = @id
         )`,
      )
      .get({ id: incidentId }) as { lo: number | null; hi: number | null };
    w.prepare('UPDATE incidents SET start_ms = ?, end_ms = ? WHERE id = ?').run(r.lo === null ? null : Math.floor(r.lo), r.hi === null ? null : Math.ceil(r.hi), incidentId);
  }

  /** Deletes an incident on the writer connection (the pipeline's own, for an import that kept nothing). */
  deleteIncidentWriter(id: number): void {
    this.writer.prepare('DELETE FROM incidents WHERE id = ?').run(id);
  }

  listIncidents(): Incident[] {
    return this.db.prepare('SELECT id, name, created_ms, start_ms, end_ms, source FROM incidents ORDER BY created_ms DESC, id DESC').all() as Incident[];
  }

  /** Whether an incident exists (getIncident also counts its rows, which scans its samples). */
  incidentExists(id: number): boolean {
    return this.db.prepare('SELECT 1 FROM incidents WHERE id = ?').pluck().get(id) !== undefined;
  }

  getIncident(id: number): IncidentDetail | null {
    const inc = this.db.prepare('SELECT id, name, created_ms, start_ms, end_ms, source FROM incidents WHERE id = ?').get(id) as Incident | undefined;
    if (!inc) return null;
    const count = (sql: string) => this.db.prepare(sql).pluck().get(id) as number;
    return {
      ...inc,
      sources: this.listSources(id),
      counts: {
        series: count('SELECT COUNT(*) FROM series WHERE incident_id = ?'),
        samples: count('SELECT COUNT(*) FROM samples WHERE series_id IN (SELECT id FROM series WHERE incident_id = ?)'),
        events: count('SELECT COUNT(*) FROM events WHERE incident_id = ?'),
        spans: count('SELECT COUNT(*) FROM spans WHERE incident_id = ?'),
        kernels: count('SELECT COUNT(*) FROM kernels WHERE incident_id = ?'),
        allocations: count('SELECT COUNT(*) FROM allocations WHERE incident_id = ?'),
      },
    };
  }

  incidentMeta(id: number): Record<string, unknown> {
    return parse(this.db.prepare('SELECT meta_json FROM incidents WHERE id = ?').pluck().get(id) as string | undefined, {});
  }

  listSources(incidentId: number): SourceInfo[] {
    const rows = this.db.prepare('SELECT id, incident_id, path, format, bytes, rows, status, error, warnings_json FROM sources WHERE incident_id = ? ORDER BY id').all(incidentId) as (Omit<SourceInfo, 'warnings'> & { warnings_json: string })[];
    return rows.map(({ warnings_json, ...r }) => ({ ...r, warnings: parse<string[]>(warnings_json, []) }));
  }

  renameIncident(id: number, name: string): void {
    this.db.prepare('UPDATE incidents SET name = ? WHERE id = ?').run(name, id);
  }

  deleteIncident(id: number): void {
    this.db.prepare('DELETE FROM incidents WHERE id = ?').run(id);
  }

  // ---- series

  listSeries(incidentId: number, namePrefix?: string): SeriesInfo[] {
    const rows = this.db
      .prepare(
        `SELECT r.id, r.name, r.labels_json, r.unit, r.kind,
                (SELECT COUNT(*) FROM samples s WHERE s.series_id = r.id) AS points,
                (SELECT MIN(ts_ms) FROM samples s WHERE s.series_id = r.id) AS start_ms,
                (SELECT MAX(ts_ms) FROM samples s WHERE s.series_id = r.id) AS end_ms
           FROM series r
          WHERE r.incident_id = ? AND r.name LIKE ? ESCAPE '\\'
          ORDER BY r.name, r.labels_json`,
      )
      .all(incidentId, `${(namePrefix ?? '').replace(/[\\%_]/g, (c) => `\\${c}`)}%`) as (Omit<SeriesInfo, 'labels'> & { labels_json: string })[];
    return rows.map(({ labels_json, ...r }) => ({ ...r, labels: parse<Record<string, string>>(labels_json, {}) }));
  }

  querySeries(seriesIds: number[], startMs: number, endMs: number, points: number): SeriesData[] {
    return seriesIds.map((id) => downsampleSeries(this.db, id, startMs, endMs, points));
  }

  /** All samples of a series, in time order, as typed arrays (sample-reads.ts). */
  samples(seriesId: number): { t: Float64Array; v: Float64Array } {
    return readSampleArrays(this.db, seriesId);
  }

  /**
   * Histogram snapshots of a series: per timestamp, cumulative bucket counts by ascending upper bound
   * (sample-reads.ts). Snapshots of one layout share its `le` array (read-only).
   */
  histogramSnapshots(seriesId: number): { t: number; le: number[]; counts: number[] }[] {
    return readHistogramSnapshots(this.db, seriesId);
  }

  // ---- events

  queryEvents(q: EventQuery): { rows: EventRow[]; total: number } {
    const where: string[] = ['e.incident_id = @incident_id'];
    const params: Record<string, unknown> = { incident_id: q.incident_id };
    let from = 'events e';
    if (q.query && q.query.trim()) {
      from = 'events_fts f JOIN events e ON e.id = f.rowid';
      where.push('events_fts MATCH @match');
      params.match = toFtsQuery(q.query);
    }
    if (q.severities?.length) {
      where.push(`e.severity IN (${q.severities.map((_, i) => `@sev${i}`).join(',')})`);
      q.severities.forEach((s, i) => (params[`sev${i}`] = s));
    }
    if (q.kinds?.length) {
      where.push(`e.kind IN (${q.kinds.map((_, i) => `@kind${i}`).join(',')})`);
      q.kinds.forEach((s, i) => (params[`kind${i}`] = s));
    }
    if (q.start_ms !== undefined) {
      where.push('e.ts_ms >= @start');
      params.start = q.start_ms;
    }
    if (q.end_ms !== undefined) {
      where.push('e.ts_ms <= @end');
      params.end = q.end_ms;
    }
    const w = where.join(' AND ');
    const total = this.db.prepare(`SELECT COUNT(*) FROM ${from} WHERE ${w}`).pluck().get(params) as number;
    const rows = this.db
      .prepare(
        `SELECT e.id, e.ts_ms, e.kind, e.severity, e.source_id, s.path AS source_path, e.line, e.text, e.attrs_json
           FROM ${from} LEFT JOIN sources s ON s.id = e.source_id
          WHERE ${w} ORDER BY e.ts_ms, e.id LIMIT @limit OFFSET @offset`,
      )
      .all({ ...params, limit: q.limit ?? 500, offset: q.offset ?? 0 }) as (Omit<EventRow, 'attrs'> & { attrs_json: string })[];
    return { rows: rows.map(({ attrs_json, ...r }) => ({ ...r, attrs: parse(attrs_json, {}) })), total };
  }

  // ---- spans and traces

  querySpans(q: { incident_id: number; trace_id?: string; start_ms?: number; end_ms?: number; limit?: number }): SpanRow[] {
    const where = ['incident_id = @incident_id'];
    const p: Record<string, unknown> = { incident_id: q.incident_id, limit: q.limit ?? 5000 };
    if (q.trace_id) {
      where.push('trace_id = @trace_id');
      p.trace_id = q.trace_id;
    }
    if (q.start_ms !== undefined) {
      where.push('end_ns >= @start * 1000000');
      p.start = q.start_ms;
    }
    if (q.end_ms !== undefined) {
      where.push('start_ns <= @end * 1000000');
      p.end = q.end_ms;
    }
    const rows = this.db
      .prepare(`SELECT trace_id, span_id, parent_id, name, start_ns / 1e6 AS start_ms, end_ns / 1e6 AS end_ms, attrs_json FROM spans WHERE ${where.join(' AND ')} ORDER BY start_ns LIMIT @limit`)
      .all(p) as (Omit<SpanRow, 'attrs'> & { attrs_json: string })[];
    return rows.map(({ attrs_json, ...r }) => ({ ...r, attrs: parse(attrs_json, {}) }));
  }

  listTraces(incidentId: number, limit = 500): { trace_id: string; root: string; start_ms: number; end_ms: number; spans: number }[] {
    return this.db
      .prepare(
        `SELECT trace_id,
                COALESCE((SELECT name FROM spans r WHERE r.incident_id = s.incident_id AND r.trace_id = s.trace_id AND (r.parent_id IS NULL OR r.parent_id = '') ORDER BY start_ns LIMIT 1), MIN(name)) AS root,
                MIN(start_ns) / 1e6 AS start_ms, MAX(end_ns) / 1e6 AS end_ms, COUNT(*) AS spans
           FROM spans s WHERE incident_id = ? GROUP BY trace_id ORDER BY MIN(start_ns) LIMIT ?`,
      )
      .all(incidentId, limit) as { trace_id: string; root: string; start_ms: number; end_ms: number; spans: number }[];
  }

  // ---- kernels

  queryKernels(incidentId: number, startMs: number, endMs: number, limit = 20_000): KernelRow[] {
    return this.db
      .prepare(
        `SELECT device, stream, name, start_ns / 1e6 AS start_ms, end_ns / 1e6 AS end_ms, (end_ns - start_ns) / 1e3 AS duration_us, correlation_id
           FROM kernels WHERE incident_id = ? AND end_ns >= ? * 1000000 AND start_ns <= ? * 1000000 ORDER BY start_ns LIMIT ?`,
      )
      .all(incidentId, Math.floor(startMs), Math.ceil(endMs), limit) as KernelRow[];
  }

  kernelSummary(incidentId: number, startMs?: number, endMs?: number, limit = 200): KernelSummaryRow[] {
    const lo = startMs === undefined ? -1e18 : startMs * 1e6;
    const hi = endMs === undefined ? 1e19 : endMs * 1e6;
    const rows = this.db
      .prepare(
        `SELECT name, COUNT(*) AS count, SUM(end_ns - start_ns) / 1e3 AS total_us, AVG(end_ns - start_ns) / 1e3 AS mean_us
           FROM kernels WHERE incident_id = ? AND start_ns BETWEEN ? AND ? GROUP BY name ORDER BY total_us DESC LIMIT ?`,
      )
      .all(incidentId, lo, hi, limit) as Omit<KernelSummaryRow, 'p99_us'>[];
    const durations = this.db.prepare('SELECT (end_ns - start_ns) / 1e3 FROM kernels WHERE incident_id = ? AND name = ? AND start_ns BETWEEN ? AND ? ORDER BY 1').pluck();
    return rows.map((r) => {
      const d = durations.all(incidentId, r.name, lo, hi) as number[];
      return { ...r, p99_us: d.length ? d[Math.min(d.length - 1, Math.ceil(0.99 * d.length) - 1)] : 0 };
    });
  }

  /** CPU → GPU flows of the kernels in a range (profile-reads.ts). */
  kernelFlows(incidentId: number, startMs: number, endMs: number, limit?: number): KernelFlows {
    return kernelFlows(this.db, incidentId, startMs, endMs, limit);
  }

  // ---- allocations

  /** Live bytes over time stacked by allocation site (profile-reads.ts). */
  memoryBySite(incidentId: number, opts: { device?: number; points?: number; top?: number } = {}): MemoryBySite {
    return memoryBySite(this.db, incidentId, opts);
  }

  /** Live bytes over time from allocation records (alloc +size, free −size), at most `points` points. */
  memoryTimeline(incidentId: number, device?: number, points = 2000): MemoryPoint[] {
    const devWhere = device === undefined ? '' : 'AND device = @device';
    const rows = this.db
      .prepare(
        `SELECT ts, delta FROM (
           SELECT alloc_ns AS ts, size AS delta FROM allocations WHERE incident_id = @id AND alloc_ns IS NOT NULL ${devWhere}
           UNION ALL
           SELECT free_ns AS ts, -size AS delta FROM allocations WHERE incident_id = @id AND free_ns IS NOT NULL ${devWhere}
         ) ORDER BY ts`,
      )
      .raw()
      .all({ id: incidentId, device }) as [number, number][];
    if (!rows.length) return [];
    const out: MemoryPoint[] = [];
    const step = Math.max(1, Math.ceil(rows.length / points));
    let live = 0;
    let peak = -Infinity;
    for (let i = 0; i < rows.length; i++) {
      live += rows[i][1];
      if (live > peak) peak = live;
      // Keep each bucket's peak: a leak's sawtooth must survive downsampling.
      if ((i + 1) % step === 0 || i === rows.length - 1) {
        out.push({ t_ms: rows[i][0] / 1e6, live_bytes: step === 1 ? live : peak });
        peak = -Infinity;
      }
    }
    return out;
  }

  /** Allocations alive at `atMs` (default: the end), grouped by stack, largest first. */
  allocationSites(incidentId: number, atMs?: number, limit = 50): AllocationSite[] {
    const at = atMs === undefined ? null : atMs * 1e6;
    const rows = this.db
      .prepare(
        `SELECT a.stack_id, s.frames_json, SUM(a.size) AS live_bytes, COUNT(*) AS allocs
           FROM allocations a LEFT JOIN stacks s ON s.id = a.stack_id
          WHERE a.incident_id = @id
            AND (@at IS NULL OR a.alloc_ns IS NULL OR a.alloc_ns <= @at)
            AND (a.free_ns IS NULL OR (@at IS NOT NULL AND a.free_ns > @at))
          GROUP BY a.stack_id ORDER BY live_bytes DESC LIMIT @limit`,
      )
      .all({ id: incidentId, at, limit }) as { stack_id: number | null; frames_json: string | null; live_bytes: number; allocs: number }[];
    return rows.map((r) => ({ stack_id: r.stack_id, frames: parse<string[]>(r.frames_json, []), live_bytes: r.live_bytes, allocs: r.allocs }));
  }

  // ---- annotations

  listAnnotations(incidentId: number): Annotation[] {
    return this.db.prepare('SELECT * FROM annotations WHERE incident_id = ? ORDER BY start_ms, id').all(incidentId) as Annotation[];
  }

  addAnnotation(a: Omit<Annotation, 'id' | 'created_ms'>): Annotation {
    const id = Number(
      this.db.prepare('INSERT INTO annotations (incident_id, start_ms, end_ms, panel, text, author, created_ms) VALUES (?,?,?,?,?,?,?)').run(a.incident_id, Math.round(a.start_ms), Math.round(a.end_ms), a.panel, a.text, a.author, Date.now()).lastInsertRowid,
    );
    return this.db.prepare('SELECT * FROM annotations WHERE id = ?').get(id) as Annotation;
  }

  updateAnnotation(id: number, text: string): Annotation | null {
    this.db.prepare('UPDATE annotations SET text = ? WHERE id = ?').run(text, id);
    return (this.db.prepare('SELECT * FROM annotations WHERE id = ?').get(id) as Annotation | undefined) ?? null;
  }

  deleteAnnotation(id: number): void {
    this.db.prepare('DELETE FROM annotations WHERE id = ?').run(id);
  }

  // ---- diagnoses

  /** The JSON of the incident's most recently saved diagnosis, or null. */
  latestDiagnosis(incidentId: number): string | null {
    return (this.db.prepare('SELECT json FROM diagnoses WHERE incident_id = ? ORDER BY created_ms DESC, rowid DESC LIMIT 1').pluck().get(incidentId) as string | undefined) ?? null;
  }

  saveDiagnosis(incidentId: number, json: string): void {
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM diagnoses WHERE incident_id = ?').run(incidentId);
      this.db.prepare('INSERT INTO diagnoses (incident_id, json, created_ms) VALUES (?, ?, ?)').run(incidentId, json, Date.now());
    })();
  }

  // ---- model reads (node/engine/model): read-only, whole series in one pass into typed arrays

  /** Series of an incident without per-series counts (listSeries counts samples, which a full load does anyway). */
  /** Every series of an incident with the path of the file it came from (null for live recordings without one). */
  seriesCatalog(incidentId: number): { id: number; name: string; labels: Record<string, string>; kind: string; source_path: string | null }[] {
    const rows = this.db
      .prepare('SELECT se.id, se.name, se.labels_json, se.kind, so.path FROM series se LEFT JOIN sources so ON so.id = se.source_id WHERE se.incident_id = ? ORDER BY se.name, se.labels_json, se.id')
      .all(incidentId) as { id: number; name: string; labels_json: string; kind: string; path: string | null }[];
    return rows.map((r) => ({ id: r.id, name: r.name, labels: parse<Record<string, string>>(r.labels_json, {}), kind: r.kind, source_path: r.path }));
  }

  /** The model's name for samples(): every sample of a series in time order. */
  sampleArrays(seriesId: number): { t: Float64Array; v: Float64Array } {
    return readSampleArrays(this.db, seriesId);
  }

  /** An incident's recorded span, without getIncident's row counts (a full scan of its samples); null if absent. */
  incidentSpan(incidentId: number): { start_ms: number | null; end_ms: number | null } | null {
    return (this.db.prepare('SELECT start_ms, end_ms FROM incidents WHERE id = ?').get(incidentId) as { start_ms: number | null; end_ms: number | null } | undefined) ?? null;
  }

  /** Whether an incident holds any allocation records (the leak analysis reads sites only then). */
  allocationCount(incidentId: number): number {
    return this.db.prepare('SELECT COUNT(*) FROM allocations WHERE incident_id = ?').pluck().get(incidentId) as number;
  }

  // ---- end of model reads
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Turns what a user types into an FTS5 query: bare words are AND-ed prefixes; quoted phrases and FTS syntax pass through. */
export function toFtsQuery(input: string): string {
  const s = input.trim();
  if (/["*:()]|\b(AND|OR|NOT|NEAR)\b/.test(s)) return s;
  return s
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => `"${w.replace(/"/g, '""')}"*`)
    .join(' ');
}
