// The worker thread's half of a worker import: runs one importer over the chunks the engine thread
// posts, into a RecordingSink, and posts what it wrote each time the importer asks for more input, so
// the engine thread writes chunk k while this thread parses chunk k + 1, and a batch holds one chunk's rows.
import { parentPort } from 'node:worker_threads';
import { importerFor } from '../importers/registry';
import type { ImportContext } from '../importers/types';
import { RecordingSink } from './recording-sink';
import type { Batch, FromWorker, ToWorker, WorkerInit } from './worker-protocol';

const transferables = (b: Batch): ArrayBuffer[] =>
  [...b.samples, ...b.histograms, b.packedSpans.ns, b.packedSpans.nums, b.packedKernels.ns, b.packedKernels.nums].map((a) => a.buffer as ArrayBuffer);

export function importWorkerMain(): void {
  const port = parentPort;
  if (!port) throw new Error('the import worker must run on a worker thread');
  const post = (m: FromWorker, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer);
  const chunks: Uint8Array[] = [];
  let ended = false;
  let wake: (() => void) | null = null;
  const abort = new AbortController();
  const sink = new RecordingSink();
  let consumed = 0;
  let pass = 0;
  let streams = 0;

  const flush = () => {
    const batch = sink.take();
    post({ t: 'batch', batch, pass, chunks: consumed }, transferables(batch));
    consumed = 0;
  };

  /** The input from the start: a second call asks the engine thread to read it again. */
  function stream(): AsyncGenerator<Buffer> {
    if (streams++ > 0) {
      pass++;
      chunks.length = 0;
      ended = false;
      consumed = 0;
      post({ t: 'rewind', pass });
    }
    return input(pass);
  }

  async function* input(mine: number): AsyncGenerator<Buffer> {
    for (;;) {
      if (mine !== pass) return;
      while (!chunks.length && !ended) await new Promise<void>((r) => (wake = r));
      const c = chunks.shift();
      if (!c) return;
      yield Buffer.from(c.buffer, c.byteOffset, c.byteLength);
      // The importer asks for the next chunk: this one is done with.
      consumed++;
      flush();
    }
  }

  const run = async (init: WorkerInit) => {
    const importer = importerFor(init.format);
    if (!importer) throw new Error(`no importer for format ${init.format}`);
    const ctx: ImportContext = {
      path: init.path,
      size: init.size,
      mtimeMs: init.mtimeMs,
      bundleEndMs: init.bundleEndMs,
      options: init.options,
      signal: abort.signal,
      progress: (bytes) => post({ t: 'progress', bytes }),
      warn: (message, where) => post({ t: 'warn', message, where }),
    };
    await importer.import({ stream, file: () => Promise.reject(new Error('no file on a worker thread')) }, sink, ctx);
    flush();
    post({ t: 'done' });
  };

  port.on('message', (m: ToWorker) => {
    switch (m.t) {
      case 'init':
        run(m.init).catch((e: unknown) => post({ t: 'error', message: e instanceof Error ? e.message : String(e), name: e instanceof Error ? e.name : 'Error' }));
        return;
      case 'chunk':
        if (m.pass === pass) chunks.push(m.bytes);
        break;
      case 'end':
        if (m.pass === pass) ended = true;
        break;
      case 'abort':
        abort.abort();
        ended = true;
        chunks.length = 0;
        break;
    }
    const w = wake;
    wake = null;
    w?.();
  });
}
