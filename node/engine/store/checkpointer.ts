// Copies the WAL back into the database file on a worker thread, off the import's path. A commit that
// crosses SQLite's auto-checkpoint threshold would otherwise copy every page it wrote a second time, and
// fsync, before the import could report done: ~40% of the commit of a 100 MB trace. The writer turns
// its auto-checkpoint off and asks here after each commit; a PASSIVE checkpoint never blocks readers or
// the next writer, and requests while one runs are folded into one more run. Where no worker can be
// started the writer keeps SQLite's own auto-checkpoint (see Store.writer).
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** Run in the worker: one connection, a PASSIVE checkpoint per message. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 0');
parentPort.on('message', (m) => {
  if (m === 'close') { db.close(); parentPort.close(); return; }
  let error = null;
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch (e) { error = String(e && e.message || e); }
  parentPort.postMessage({ error });
});
`;

/** How long close() waits for the worker to close its connection before it terminates it. */
const CLOSE_WAIT_MS = 5000;

export class Checkpointer {
  private readonly worker: Worker;
  private running = false;
  private again = false;
  private idle: Array<() => void> = [];
  private failed: string | null = null;
  /** The worker died (or never started): requests are ignored, and SQLite's auto-checkpoint does the work. */
  private dead = false;

  /** Throws where no worker thread can be started (the caller keeps SQLite's auto-checkpoint). */
  constructor(file: string) {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, driver } });
    this.worker.unref();
    this.worker.on('message', (m: { error: string | null }) => {
      if (m.error) this.failed = m.error;
      if (this.again) {
        this.again = false;
        this.worker.postMessage('run');
        return;
      }
      this.running = false;
      this.worker.unref();
      for (const f of this.idle.splice(0)) f();
    });
    const die = (why: string) => {
      this.failed = why;
      this.dead = true;
      this.running = false;
      this.again = false;
      for (const f of this.idle.splice(0)) f();
    };
    this.worker.on('error', (e) => die(e.message));
    this.worker.on('exit', (code) => die(`checkpoint worker exited (code ${code})`));
  }

  /** Whether the worker is there to take requests (else SQLite's own auto-checkpoint must do the work). */
  get alive(): boolean {
    return !this.dead;
  }

  /** The last checkpoint's error (a busy database is not one), for diagnostics. */
  get lastError(): string | null {
    return this.failed;
  }

  /** Asks for a checkpoint soon; returns at once. */
  request(): void {
    if (this.dead) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    // Held while it runs, so a short-lived CLI import still gets its WAL folded back before exiting.
    this.worker.ref();
    this.worker.postMessage('run');
  }

  /** Resolves when no checkpoint is running or asked for. */
  settled(): Promise<void> {
    if (!this.running) return Promise.resolve();
    return new Promise((r) => this.idle.push(r));
  }

  /**
   * Waits for a running checkpoint, then has the worker close its connection and exit. Terminated instead,
   * its connection closed at the thread's teardown, after the store had closed its own: that last close
   * folded the WAL back and deleted its files while the caller went on (a folder removed right after
   * `Engine.close()` failed with ENOTEMPTY).
   */
  async close(): Promise<void> {
    await this.settled();
    this.worker.removeAllListeners('exit');
    if (this.dead) return;
    const exited = new Promise<void>((r) => this.worker.once('exit', () => r()));
    // Held until it exits: an unreferenced worker lets the process end with close() still pending.
    this.worker.ref();
    this.worker.postMessage('close');
    await Promise.race([exited, new Promise<void>((r) => setTimeout(r, CLOSE_WAIT_MS).unref())]);
    await this.worker.terminate();
  }
}
