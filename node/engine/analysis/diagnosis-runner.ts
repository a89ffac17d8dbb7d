// Diagnoses run on a worker thread with a read-only SQLite connection of their own, so the engine
// thread keeps answering while one runs: the first zoom after opening an incident used to wait behind
// its diagnosis (0.4–1.2 s with 30 series, 3.8–5.3 s with 300; issue 20). The engine thread only stores
// the JSON the worker made.
//
// One diagnosis runs at a time (on two cores a second would halve the first's speed). A call joins a
// queued diagnosis of the same incident and options; a call for another incident makes the ones before
// it stale — the workstation shows one incident, and a diagnosis nobody will look at must not hold the
// CPU — so those answer `cancelled`, and a stale one that is running ends with its thread (the model is
// synchronous: ending the thread is the only way to stop it; the next diagnosis starts a fresh one).
// A call never gets an answer older than itself: one arriving while the same diagnosis runs queues a new
// run (a live recording has grown meanwhile).
//
// Where no worker thread can start (a packaging that cannot run the bundle as a worker) or the database
// is in memory, diagnoses run on the engine thread, as they did before.
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { EngineError } from '../../../common/contract/api';
import type { AnalyzeOptions, Diagnosis } from '../../../common/contract/diagnosis';
import { DIAGNOSIS_WORKER_ROLE, type FromDiagnosisWorker, type ToDiagnosisWorker } from './diagnosis-protocol';

export interface DiagnosisResult {
  diagnosis: Diagnosis;
  /** JSON.stringify(diagnosis), as stored in `diagnoses`. */
  json: string;
}

export interface DiagnosisRunnerOptions {
  /** Runs one diagnosis on the engine thread (no worker can start, or an in-memory database). */
  inThread: (incidentId: number, options: AnalyzeOptions) => Promise<DiagnosisResult>;
  /** An idle worker ends after this long (its heap and its SQLite page cache go with it). */
  idleMs?: number;
  /** Never start a worker (tests of the engine-thread path). */
  noWorker?: boolean;
}

interface Job {
  id: number;
  key: string;
  incidentId: number;
  options: AnalyzeOptions;
  promise: Promise<DiagnosisResult>;
  resolve: (r: DiagnosisResult) => void;
  reject: (e: Error) => void;
}

interface Thread {
  worker: Worker;
  /** Resolves when the worker has loaded the model; rejects when it could not start. */
  ready: Promise<void>;
}

/** A worker that never answered: it could not start. */
class WorkerStartError extends Error {}

const IDLE_MS = 120_000;

/** From the TypeScript sources the worker boots tsx first; from the engine bundle it is the bundle itself (host.ts). */
function startWorker(): Worker {
  const self = fileURLToPath(import.meta.url);
  if (self.endsWith('.ts')) {
    return new Worker(new URL('../import/worker-boot.mjs', import.meta.url), {
      workerData: { role: DIAGNOSIS_WORKER_ROLE, entry: new URL('./diagnosis-worker-entry.ts', import.meta.url).href },
    });
  }
  return new Worker(self, { workerData: { role: DIAGNOSIS_WORKER_ROLE } });
}

export class DiagnosisRunner {
  private thread: Thread | null = null;
  private running: Job | null = null;
  private readonly queue: Job[] = [];
  private nextId = 1;
  private idleTimer: NodeJS.Timeout | null = null;
  private broken: boolean;
  private closed = false;

  constructor(
    private readonly dbFile: string,
    private readonly opts: DiagnosisRunnerOptions,
  ) {
    this.broken = !!opts.noWorker || dbFile === ':memory:' || dbFile === '';
  }

  /** The diagnosis of an incident as of this call (or later); rejects `cancelled` when another incident's is asked for first. */
  run(incidentId: number, options: AnalyzeOptions = {}): Promise<DiagnosisResult> {
    if (this.closed) return Promise.reject(new EngineError('cancelled', 'the engine is closing'));
    const key = `${incidentId} ${JSON.stringify(options)}`;
    const queued = this.queue.find((j) => j.key === key);
    if (queued) return queued.promise;
    for (const j of this.queue.filter((q) => q.incidentId !== incidentId)) this.cancel(j, incidentId);
    if (this.running && this.running.incidentId !== incidentId) {
      const stale = this.running;
      this.running = null;
      this.endThread();
      this.cancel(stale, incidentId);
    }
    let resolve!: (r: DiagnosisResult) => void;
    let reject!: (e: Error) => void;
    const promise = new Promise<DiagnosisResult>((ok, fail) => ((resolve = ok), (reject = fail)));
    const job: Job = { id: this.nextId++, key, incidentId, options, promise, resolve, reject };
    this.queue.push(job);
    this.pump();
    return promise;
  }

  /** Ends the worker; diagnoses not yet answered answer `cancelled`. */
  close(): void {
    this.closed = true;
    for (const j of [...this.queue, ...(this.running ? [this.running] : [])]) j.reject(new EngineError('cancelled', 'the engine closed before the diagnosis was done'));
    this.queue.length = 0;
    this.running = null;
    this.endThread();
  }

  private cancel(job: Job, newer: number): void {
    const i = this.queue.indexOf(job);
    if (i >= 0) this.queue.splice(i, 1);
    job.reject(new EngineError('cancelled', `the diagnosis of incident ${job.incidentId} was dropped: incident ${newer} was asked for after it`));
  }

  private pump(): void {
    if (this.running || !this.queue.length) {
      if (!this.running && !this.queue.length) this.idle();
      return;
    }
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    const job = this.queue.shift()!;
    this.running = job;
    const done = (r: DiagnosisResult | Error) => {
      if (this.running !== job) return; // stale: its caller was answered already
      this.running = null;
      if (r instanceof Error) job.reject(r);
      else job.resolve(r);
      this.pump();
    };
    if (this.broken) {
      this.opts.inThread(job.incidentId, job.options).then(done, (e: unknown) => done(e instanceof Error ? e : new Error(String(e))));
      return;
    }
    const thread = this.ensureThread();
    thread.ready.then(
      () => {
        if (this.running !== job || this.thread !== thread) return;
        thread.worker.ref();
        thread.worker.postMessage({ job: job.id, dbFile: this.dbFile, incidentId: job.incidentId, options: job.options } satisfies ToDiagnosisWorker);
      },
      (e: unknown) => {
        if (this.running !== job) return;
        if (e instanceof WorkerStartError) {
          // No worker here: this and every later diagnosis run on the engine thread.
          this.broken = true;
          this.running = null;
          this.queue.unshift(job);
          this.pump();
        } else done(e instanceof Error ? e : new Error(String(e)));
      },
    );
  }

  private ensureThread(): Thread {
    if (this.thread) return this.thread;
    const worker = startWorker();
    worker.unref();
    let started = false;
    let settle!: { ok: () => void; fail: (e: Error) => void };
    const ready = new Promise<void>((ok, fail) => (settle = { ok, fail }));
    ready.catch(() => undefined);
    const thread: Thread = { worker, ready };
    const lost = (e: Error) => {
      if (this.thread !== thread) return;
      this.thread = null;
      if (!started) return settle.fail(new WorkerStartError(`the diagnosis worker could not start (${e.message})`));
      const job = this.running;
      if (job) {
        this.running = null;
        job.reject(e);
        this.pump();
      }
    };
    worker.on('message', (m: FromDiagnosisWorker) => {
      if (this.thread !== thread) return;
      if (m.t === 'ready') {
        started = true;
        settle.ok();
        return;
      }
      const job = this.running;
      if (!job || job.id !== m.job) return;
      worker.unref();
      this.running = null;
      if (m.t === 'done') job.resolve({ diagnosis: m.diagnosis, json: m.json });
      else job.reject(Object.assign(new Error(m.message), { name: m.name }));
      this.pump();
    });
    worker.on('error', (e) => lost(e));
    worker.on('exit', (code) => lost(new Error(`the diagnosis worker stopped (exit code ${code})`)));
    this.thread = thread;
    return thread;
  }

  private endThread(): void {
    const t = this.thread;
    this.thread = null;
    if (t) void t.worker.terminate();
  }

  private idle(): void {
    if (this.idleTimer || !this.thread) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      if (!this.running && !this.queue.length) this.endThread();
    }, this.opts.idleMs ?? IDLE_MS);
    this.idleTimer.unref();
  }
}
