// Entry of the engine's Electron utility process. It speaks the Wire protocol over `process.parentPort`
// (Electron's utility-process channel), so imports never block the window. No `electron` import: the
// port is reached through `process`, and the same Engine runs under the CLI and the bridge.
// Run as Node with --run-sql, the same bundle is the killable child that user SQL runs in; started as
// a worker thread by an import (parallel-import.ts), it is that import's parser, and by a diagnosis
// (analysis/diagnosis-runner.ts), the thread the model runs on.
import type { Wire } from '../../common/contract/api';
import { Engine } from './api';
import { dispatchCall } from './dispatch';
import { ensureDemoIncident } from './demo';
import { isMainThread, workerData } from 'node:worker_threads';
import { diagnosisWorkerMain } from './analysis/diagnosis-worker';
import { DIAGNOSIS_WORKER_ROLE } from './analysis/diagnosis-protocol';
import { importWorkerMain } from './import/import-worker';
import { IMPORT_WORKER_ROLE } from './import/parallel-import';
import { sqlChildMain } from './store/sql-child';

interface ParentPort {
  on(event: 'message', listener: (e: { data: unknown }) => void): void;
  postMessage(message: unknown): void;
}

function serveEngine(port: ParentPort): void {
  const dbFile = process.argv[process.argv.indexOf('--db') + 1];
  const engine = new Engine(dbFile, { emit: (event) => port.postMessage({ kind: 'event', event } satisfies Wire) });

  port.on('message', ({ data }) => {
    const msg = data as Wire;
    if (!msg || msg.kind !== 'call') return;
    // Main has checked the window's calls already (electron-main/ipc.ts); its own may name where a report goes.
    void dispatchCall(engine, msg, { door: 'main' }).then((r) => port.postMessage(r));
  });

  if (process.argv.includes('--open-demo')) void ensureDemoIncident(engine).catch(() => undefined);
}

const workerRole = isMainThread ? null : (workerData as { role?: string } | null)?.role;
if (workerRole === IMPORT_WORKER_ROLE) {
  importWorkerMain();
} else if (workerRole === DIAGNOSIS_WORKER_ROLE) {
  diagnosisWorkerMain();
} else if (process.argv.includes('--run-sql')) {
  void sqlChildMain();
} else {
  const port = (process as unknown as { parentPort?: ParentPort }).parentPort;
  if (!port) throw new Error('engine host must run as an Electron utility process (or with --run-sql)');
  serveEngine(port);
}
