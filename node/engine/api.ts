// The engine: QuadscopeApi's methods over the Store, the import pipeline, the model, the report and
// live recording. Plain Node, no `electron`: the desktop app runs it in a utility process, the CLI and
// the bridge run it in-process. Feature modules load lazily so start-up stays fast.
import { randomUUID } from 'node:crypto';
import type { EngineApi, Req, Res } from '../../common/contract/api';
import { EngineError } from '../../common/contract/api';
import type { EngineEvent, ImportResult, LiveStatus, PullResult } from '../../common/contract/types';
import type { Diagnosis } from '../../common/contract/diagnosis';
import { DiagnosisRunner } from './analysis/diagnosis-runner';
import { importPaths } from './import/pipeline';
import { runUserSqlInChild, type SqlLauncher } from './store/user-sql-process';
import { Store } from './store/store';

export interface EngineOptions {
  /** Receives progress and live events (the host forwards them to the renderer). */
  emit?: (e: EngineEvent) => void;
  /** How user SQL processes start: a child Node process unless the host says otherwise (the desktop app's engine asks main). */
  sqlLauncher?: SqlLauncher;
}

interface Job {
  controller: AbortController;
  done: Promise<ImportResult>;
}

const notFound = (what: string, id: number | string) => new EngineError('not_found', `${what} ${id} does not exist`);

export class Engine implements EngineApi {
  readonly store: Store;
  private readonly jobs = new Map<string, Job>();
  /** Imports run one at a time: each holds the writer connection's transaction. */
  private queue: Promise<unknown> = Promise.resolve();
  private live: import('./live/live-session').LiveSession | null = null;
  private diagnoses: DiagnosisRunner | null = null;
  private readonly pulls = new Map<string, { controller: AbortController; done: Promise<PullResult> }>();

  constructor(dbFile: string, private readonly opts: EngineOptions = {}) {
    this.store = new Store(dbFile);
  }

  private emit(e: EngineEvent): void {
    this.opts.emit?.(e);
  }

  async close(): Promise<void> {
    for (const j of [...this.jobs.values(), ...this.pulls.values()]) j.controller.abort();
    await Promise.allSettled([...this.jobs.values(), ...this.pulls.values()].map((j) => j.done));
    await this.live?.stop().catch(() => undefined);
    this.diagnoses?.close();
    await this.store.closeSettled();
  }

  // ---- incidents

  async listIncidents(): Promise<Res<'listIncidents'>> {
    return this.store.listIncidents();
  }

  async getIncident({ id }: Req<'getIncident'>): Promise<Res<'getIncident'>> {
    const inc = this.store.getIncident(id);
    if (!inc) throw notFound('incident', id);
    return inc;
  }

  async renameIncident({ id, name }: Req<'renameIncident'>): Promise<void> {
    this.store.renameIncident(id, name);
    this.emit({ type: 'incidents-changed' });
  }

  async deleteIncident({ id }: Req<'deleteIncident'>): Promise<void> {
    this.store.deleteIncident(id);
    this.emit({ type: 'incidents-changed' });
  }

  // ---- import

  async startImport(req: Req<'startImport'>): Promise<Res<'startImport'>> {
    const jobId = randomUUID();
    const controller = new AbortController();
    const run = () =>
      importPaths(this.store, req.paths, {
        jobId,
        name: req.name,
        options: req.options,
        signal: controller.signal,
        onProgress: (progress) => this.emit({ type: 'import-progress', progress }),
      });
    const done = this.queue.then(run, run);
    this.queue = done.catch(() => undefined);
    this.jobs.set(jobId, { controller, done });
    done
      .then(
        () => this.emit({ type: 'incidents-changed' }),
        (e: unknown) =>
          this.emit({
            type: 'import-progress',
            progress: { job_id: jobId, path: '', format: null, entry_bytes_done: 0, entry_bytes_total: null, entries_done: 0, entries_total: null, state: 'failed', error: e instanceof Error ? e.message : String(e) },
          }),
      )
      .finally(() => setTimeout(() => this.jobs.delete(jobId), 60_000).unref());
    return { job_id: jobId };
  }

  async cancelImport({ job_id }: Req<'cancelImport'>): Promise<Res<'cancelImport'>> {
    const job = this.jobs.get(job_id);
    if (!job) return { cancelled: false };
    job.controller.abort();
    return { cancelled: true };
  }

  async awaitImport({ job_id }: Req<'awaitImport'>): Promise<ImportResult> {
    const job = this.jobs.get(job_id);
    if (!job) throw notFound('import job', job_id);
    return job.done;
  }

  // ---- data

  async listSeries(req: Req<'listSeries'>): Promise<Res<'listSeries'>> {
    return this.store.listSeries(req.incident_id, req.name_prefix);
  }

  async querySeries(req: Req<'querySeries'>): Promise<Res<'querySeries'>> {
    return this.store.querySeries(req.series_ids, req.start_ms, req.end_ms, req.points);
  }

  async queryQuantiles(req: Req<'queryQuantiles'>): Promise<Res<'queryQuantiles'>> {
    const { queryQuantiles } = await import('./series/histogram-quantiles');
    return queryQuantiles(this.store, req);
  }

  async queryEvents(req: Req<'queryEvents'>): Promise<Res<'queryEvents'>> {
    try {
      return this.store.queryEvents(req);
    } catch (e) {
      if (req.query && e instanceof Error && /fts5|syntax/i.test(e.message)) {
        throw new EngineError('bad_query', `search "${req.query}" is not a valid query: ${e.message}`);
      }
      throw e;
    }
  }

  async querySpans(req: Req<'querySpans'>): Promise<Res<'querySpans'>> {
    return this.store.querySpans(req);
  }

  async listTraces(req: Req<'listTraces'>): Promise<Res<'listTraces'>> {
    return this.store.listTraces(req.incident_id, req.limit);
  }

  async queryKernels(req: Req<'queryKernels'>): Promise<Res<'queryKernels'>> {
    return this.store.queryKernels(req.incident_id, req.start_ms, req.end_ms, req.limit);
  }

  async kernelSummary(req: Req<'kernelSummary'>): Promise<Res<'kernelSummary'>> {
    return this.store.kernelSummary(req.incident_id, req.start_ms, req.end_ms, req.limit);
  }

  async memoryTimeline(req: Req<'memoryTimeline'>): Promise<Res<'memoryTimeline'>> {
    return this.store.memoryTimeline(req.incident_id, req.device, req.points);
  }

  async allocationSites(req: Req<'allocationSites'>): Promise<Res<'allocationSites'>> {
    return this.store.allocationSites(req.incident_id, req.at_ms, req.limit);
  }

  async kernelFlows(req: Req<'kernelFlows'>): Promise<Res<'kernelFlows'>> {
    return this.store.kernelFlows(req.incident_id, req.start_ms, req.end_ms, req.limit);
  }

  async memoryBySite(req: Req<'memoryBySite'>): Promise<Res<'memoryBySite'>> {
    return this.store.memoryBySite(req.incident_id, { device: req.device, points: req.points, top: req.top });
  }

  async exportTrace(req: Req<'exportTrace'>): Promise<Res<'exportTrace'>> {
    if (!this.store.incidentExists(req.incident_id)) throw notFound('incident', req.incident_id);
    if (!(req.end_ms > req.start_ms)) throw new EngineError('bad_range', 'a trace export needs a range that ends after it starts');
    const { exportChromeTrace } = await import('./report/chrome-trace');
    return exportChromeTrace(this.store, req.incident_id, req.start_ms, req.end_ms);
  }

  // ---- model

  /**
   * Runs on the diagnosis worker (analysis/diagnosis-runner.ts), so every other call is answered while it
   * runs; a diagnosis of another incident asked for meanwhile makes this one answer `cancelled`.
   */
  async analyze(req: Req<'analyze'>): Promise<Diagnosis> {
    if (!this.store.incidentExists(req.incident_id)) throw notFound('incident', req.incident_id);
    this.diagnoses ??= new DiagnosisRunner(this.store.file, {
      inThread: async (incidentId, options) => {
        const { analyzeIncident } = await import('./model/diagnose');
        const diagnosis = analyzeIncident(this.store, incidentId, options);
        return { diagnosis, json: JSON.stringify(diagnosis) };
      },
    });
    const { diagnosis, json } = await this.diagnoses.run(req.incident_id, req.options ?? {});
    // Deleted while it was diagnosed: nothing to keep it for.
    if (!this.store.incidentExists(req.incident_id)) throw notFound('incident', req.incident_id);
    this.store.saveDiagnosis(req.incident_id, json);
    return diagnosis;
  }

  // ---- annotations

  async listAnnotations(req: Req<'listAnnotations'>): Promise<Res<'listAnnotations'>> {
    return this.store.listAnnotations(req.incident_id);
  }

  async addAnnotation(req: Req<'addAnnotation'>): Promise<Res<'addAnnotation'>> {
    if (!this.store.incidentExists(req.incident_id)) throw notFound('incident', req.incident_id);
    if (req.end_ms < req.start_ms) throw new EngineError('bad_range', 'an annotation must end after it starts');
    return this.store.addAnnotation({ incident_id: req.incident_id, start_ms: req.start_ms, end_ms: req.end_ms, panel: req.panel, text: req.text, author: req.author ?? '' });
  }

  async updateAnnotation(req: Req<'updateAnnotation'>): Promise<Res<'updateAnnotation'>> {
    const a = this.store.updateAnnotation(req.id, req.text);
    if (!a) throw notFound('annotation', req.id);
    return a;
  }

  async deleteAnnotation(req: Req<'deleteAnnotation'>): Promise<void> {
    this.store.deleteAnnotation(req.id);
  }

  // ---- report

  async exportReport(req: Req<'exportReport'>): Promise<Res<'exportReport'>> {
    if (!this.store.incidentExists(req.incident_id)) throw notFound('incident', req.incident_id);
    const { writeReport } = await import('./report/index');
    return writeReport(this.store, req.incident_id, { format: req.format, out: req.out });
  }

  // ---- SQL

  async runSql(req: Req<'runSql'>): Promise<Res<'runSql'>> {
    return runUserSqlInChild(this.store.file, req.sql, req.limit ?? 1000, undefined, this.opts.sqlLauncher);
  }

  // ---- live

  private async liveSession() {
    if (!this.live) {
      const { LiveSession } = await import('./live/live-session');
      this.live = new LiveSession(this.store, (status: LiveStatus) => this.emit({ type: 'live-status', status }));
    }
    return this.live;
  }

  async liveStatus(): Promise<LiveStatus> {
    return (await this.liveSession()).status();
  }

  async startLive(req: Req<'startLive'>): Promise<LiveStatus> {
    const s = await (await this.liveSession()).start(req);
    this.emit({ type: 'incidents-changed' });
    return s;
  }

  async stopLive(): Promise<LiveStatus> {
    const s = await (await this.liveSession()).stop();
    this.emit({ type: 'incidents-changed' });
    return s;
  }

  // ---- pull from a Prometheus-compatible server

  async startPull(req: Req<'startPull'>): Promise<Res<'startPull'>> {
    const jobId = randomUUID();
    const controller = new AbortController();
    const { pullIncident } = await import('./pull/pull');
    const run = () =>
      pullIncident(this.store, req, {
        jobId,
        signal: controller.signal,
        onProgress: (progress) => this.emit({ type: 'pull-progress', progress }),
      });
    // The pull writes through the import writer: it waits its turn behind imports, and they behind it.
    const done = this.queue.then(run, run);
    this.queue = done.catch(() => undefined);
    this.pulls.set(jobId, { controller, done });
    done
      .then(
        (r) => {
          if (r.incident_id !== null) this.emit({ type: 'incidents-changed' });
        },
        (e: unknown) =>
          this.emit({
            type: 'pull-progress',
            progress: { job_id: jobId, state: 'failed', requests_done: 0, requests_total: null, series: 0, samples: 0, bytes: 0, error: e instanceof Error ? e.message : String(e) },
          }),
      )
      .finally(() => setTimeout(() => this.pulls.delete(jobId), 60_000).unref());
    return { job_id: jobId };
  }

  async cancelPull({ job_id }: Req<'cancelPull'>): Promise<Res<'cancelPull'>> {
    const job = this.pulls.get(job_id);
    if (!job) return { cancelled: false };
    job.controller.abort();
    return { cancelled: true };
  }

  async awaitPull({ job_id }: Req<'awaitPull'>): Promise<PullResult> {
    const job = this.pulls.get(job_id);
    if (!job) throw notFound('pull job', job_id);
    return job.done;
  }
}
