// Large inputs of the parse-heavy formats are parsed on a worker thread while this (the engine) thread
// writes what the worker sends into the source's SQLite transaction: on two cores, JSON.parse or line
// parsing of chunk k + 1 runs beside the inserts of chunk k. The importer is the same code either way;
// only its sink differs (recording-sink.ts → batch-replay.ts). Commit, rollback and cancel stay with
// the pipeline, so a failed or cancelled worker import leaves nothing behind, as an inline one does.
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { EntryInput, ImportContext, Importer } from '../importers/types';
import type { SourceWriter } from '../store/source-writer';
import { BatchReplay } from './batch-replay';
import type { FromWorker, ToWorker, WorkerInit } from './worker-protocol';

/** Below this a worker's start-up (~30 ms from the bundle, ~300 ms from the TypeScript sources) is not repaid. */
export const WORKER_MIN_BYTES = 16 * 2 ** 20;
/** Input is handed over in chunks of about this size; at most MAX_AHEAD of them wait in the worker. */
const CHUNK_BYTES = 1 << 20;
const MAX_AHEAD = 4;

export const IMPORT_WORKER_ROLE = 'quadscope-import-worker';

/**
 * Logical CPUs from which the worker pays. On the 2-vCPU machines this was built on, two busy threads
 * run at 1.4× one (measured: a spin loop takes 736 ms alone, 1060 ms beside another), which the
 * hand-over eats: 100 MB of scrapes went in at 560 k samples/s with the worker against 730 k on one
 * thread, a Kineto trace at 29.5 against 27.7 MB/s. Four or more CPUs leave the worker a core of its own.
 */
export const WORKER_MIN_CPUS = 4;

/**
 * Whether this import runs its parser on a worker thread: formats that declare `parallel`, for inputs of
 * WORKER_MIN_BYTES or more, on machines with WORKER_MIN_CPUS. QUADSCOPE_IMPORT_WORKER=always|never
 * overrides both rules (tests, benchmarks, diagnosis).
 */
export function wantsWorker(importer: Importer, bytes: number | null, cpus = availableParallelism()): boolean {
  if (!importer.parallel || importer.needsFile) return false;
  const mode = process.env.QUADSCOPE_IMPORT_WORKER;
  if (mode === 'never') return false;
  if (mode === 'always') return true;
  return cpus >= WORKER_MIN_CPUS && bytes !== null && bytes >= WORKER_MIN_BYTES;
}

/** A worker that never answered: it could not start (a packaging that cannot run the bundle as a worker). */
export class WorkerStartError extends Error {}

/** Set once a worker failed to start: later imports go straight to one thread. */
let workersBroken = false;

/**
 * Runs the importer as the pipeline does: on a worker thread where wantsWorker says so, else here. A
 * worker that fails to start has written nothing, so the import runs again on this thread.
 */
export async function runImport(importer: Importer, input: EntryInput, writer: SourceWriter, ctx: ImportContext, bytes: number | null): Promise<void> {
  if (!workersBroken && wantsWorker(importer, bytes)) {
    try {
      await importInWorker(importer, input, writer, ctx);
      return;
    } catch (e) {
      if (!(e instanceof WorkerStartError)) throw e;
      workersBroken = true;
      ctx.warn(`parsed on one thread: ${e.message}`);
    }
  }
  await importer.import(input, writer, ctx);
}

/**
 * From the TypeScript sources the worker boots tsx first; from the engine bundle it is the bundle itself.
 * QUADSCOPE_IMPORT_WORKER_ENTRY names another entry (tests of a worker that cannot start).
 */
function startWorker(): Worker {
  const other = process.env.QUADSCOPE_IMPORT_WORKER_ENTRY;
  if (other) return new Worker(other, { workerData: { role: IMPORT_WORKER_ROLE } });
  const self = fileURLToPath(import.meta.url);
  if (self.endsWith('.ts')) {
    return new Worker(new URL('./worker-boot.mjs', import.meta.url), {
      workerData: { role: IMPORT_WORKER_ROLE, entry: new URL('./import-worker-entry.ts', import.meta.url).href },
    });
  }
  return new Worker(self, { workerData: { role: IMPORT_WORKER_ROLE } });
}

/** Coalesces a byte stream into chunks of at least CHUNK_BYTES (the last may be smaller). */
async function* coalesced(src: AsyncIterable<Buffer>): AsyncGenerator<Uint8Array> {
  let parts: Buffer[] = [];
  let n = 0;
  for await (const b of src) {
    parts.push(b);
    n += b.length;
    if (n >= CHUNK_BYTES) {
      yield Buffer.concat(parts, n);
      parts = [];
      n = 0;
    }
  }
  if (n) yield Buffer.concat(parts, n);
}

/** A chunk's own ArrayBuffer can be moved to the worker; a slice of a shared pool is copied. */
const ownBuffer = (b: Uint8Array): ArrayBuffer[] => (b.byteOffset === 0 && b.byteLength === b.buffer.byteLength ? [b.buffer as ArrayBuffer] : []);

export async function importInWorker(importer: Importer, input: EntryInput, writer: SourceWriter, ctx: ImportContext): Promise<void> {
  const worker = startWorker();
  const replay = new BatchReplay(writer);
  const post = (m: ToWorker, transfer: ArrayBuffer[] = []) => worker.postMessage(m, transfer);
  let ahead = 0;
  let pass = 0;
  let rewind = false;
  let done = false;
  let wakeReader: (() => void) | null = null;
  let failure: Error | null = null;
  let settle!: { resolve: () => void; reject: (e: Error) => void };
  const finished = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
  /** Lets the reader loop look at its conditions again (it waits for room ahead, a rewind or the end). */
  const wake = () => {
    const w = wakeReader;
    wakeReader = null;
    w?.();
  };
  const fail = (e: Error) => {
    failure ??= e;
    settle.reject(failure);
    wake();
  };

  let heard = false;
  worker.on('message', (m: FromWorker) => {
    heard = true;
    if (failure) return;
    try {
      switch (m.t) {
        case 'batch':
          replay.apply(m.batch);
          if (m.pass === pass) ahead -= m.chunks;
          if (ahead < MAX_AHEAD) wake();
          break;
        case 'rewind': {
          pass = m.pass;
          rewind = true;
          ahead = 0;
          wake();
          break;
        }
        case 'warn':
          ctx.warn(m.message, m.where);
          break;
        case 'progress':
          ctx.progress(m.bytes);
          break;
        case 'done': {
          done = true;
          settle.resolve();
          wake();
          break;
        }
        case 'error': {
          const e = new Error(m.message);
          e.name = m.name;
          fail(e);
          break;
        }
      }
    } catch (e) {
      // The writer refused a row (or the disk is full): stop the worker too.
      post({ t: 'abort' });
      fail(e instanceof Error ? e : new Error(String(e)));
    }
  });
  worker.on('error', (e) => fail(heard ? e : new WorkerStartError(`the import worker could not start (${e.message})`)));
  worker.on('exit', (code) => fail(heard ? new Error(`the import worker stopped (exit code ${code})`) : new WorkerStartError(`the import worker exited at start (code ${code})`)));
  const onAbort = () => post({ t: 'abort' });
  ctx.signal.addEventListener('abort', onAbort, { once: true });

  const init: WorkerInit = {
    format: importer.format,
    path: ctx.path,
    size: ctx.size,
    mtimeMs: ctx.mtimeMs,
    bundleEndMs: ctx.bundleEndMs ?? null,
    options: ctx.options,
  };
  try {
    post({ t: 'init', init });
    // Unhandled until awaited below: a failure while reading must not become an unhandled rejection.
    finished.catch(() => {});
    // Each pass reads the input from the start; a rewind during one ends it and starts the next.
    for (let reading = pass; !failure; reading = pass) {
      rewind = false;
      for await (const bytes of coalesced(input.stream())) {
        // The importer may finish without reading to the end (it found what it needed, or was cancelled).
        if (failure || rewind || done) break;
        post({ t: 'chunk', pass: reading, bytes }, ownBuffer(bytes));
        ahead++;
        while (ahead >= MAX_AHEAD && !failure && !rewind && !done) await new Promise<void>((r) => (wakeReader = r));
      }
      if (rewind) continue;
      if (!failure && !done) post({ t: 'end', pass: reading });
      // A rewind can still come after the end of this pass (the importer read it all, then asked again),
      // or may already have come while the last chunks were read.
      while (!rewind && !failure && !done) await new Promise<void>((r) => (wakeReader = r));
      if (!rewind) break;
    }
    await finished;
  } finally {
    ctx.signal.removeEventListener('abort', onAbort);
    worker.removeAllListeners('exit');
    await worker.terminate();
  }
}
