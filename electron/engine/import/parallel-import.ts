// Large inputs of the parse-heavy formats are parsed on a worker thread while this (the engine) thread
// writes what the worker sends into the source's SQLite transaction: on two cores, JSON.parse or line
// parsing of chunk k + 1 runs beside the inserts of chunk k. The importer is the same code either way;
// only its sink differs (recording-sink.ts → batch-replay.ts). Commit, rollback and cancel stay with
// the pipeline, so a failed or cancelled worker import leaves nothing behind, as an inline one does.
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
 * Whether this import runs its parser on a worker thread: formats that declare `parallel`, for inputs of
 * WORKER_MIN_BYTES or more. QUADSCOPE_IMPORT_WORKER=always|never overrides the size rule (tests, diagnosis).
 */
export function wantsWorker(importer: Importer, bytes: number | null): boolean {
  if (!importer.parallel || importer.needsFile) return false;
  const mode = process.env.QUADSCOPE_IMPORT_WORKER;
  if (mode === 'never') return false;
  if (mode === 'always') return true;
  return bytes !== null && bytes >= WORKER_MIN_BYTES;
}

/** Runs the importer as the pipeline does: on a worker thread where wantsWorker says so, else here. */
export async function runImport(importer: Importer, input: EntryInput, writer: SourceWriter, ctx: ImportContext, bytes: number | null): Promise<void> {
  if (wantsWorker(importer, bytes)) await importInWorker(importer, input, writer, ctx);
  else await importer.import(input, writer, ctx);
}

/** From the TypeScript sources the worker boots tsx first; from the engine bundle it is the bundle itself. */
function startWorker(): Worker {
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
  let wakeReader: (() => void) | null = null;
  let failure: Error | null = null;
  let settle!: { resolve: () => void; reject: (e: Error) => void };
  const finished = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
  const fail = (e: Error) => {
    failure ??= e;
    settle.reject(failure);
    wakeReader?.();
  };

  worker.on('message', (m: FromWorker) => {
    if (failure) return;
    try {
      switch (m.t) {
        case 'batch':
          replay.apply(m.batch);
          ahead -= m.chunks;
          if (ahead < MAX_AHEAD) {
            const w = wakeReader;
            wakeReader = null;
            w?.();
          }
          break;
        case 'warn':
          ctx.warn(m.message, m.where);
          break;
        case 'progress':
          ctx.progress(m.bytes);
          break;
        case 'done':
          settle.resolve();
          break;
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
  worker.on('error', (e) => fail(e));
  worker.on('exit', (code) => fail(new Error(`the import worker stopped (exit code ${code})`)));
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
    for await (const bytes of coalesced(input.stream())) {
      if (failure) break;
      post({ t: 'chunk', bytes }, ownBuffer(bytes));
      ahead++;
      while (ahead >= MAX_AHEAD && !failure) await new Promise<void>((r) => (wakeReader = r));
    }
    if (!failure) post({ t: 'end' });
    await finished;
  } finally {
    ctx.signal.removeEventListener('abort', onAbort);
    worker.removeAllListeners('exit');
    await worker.terminate();
  }
}
