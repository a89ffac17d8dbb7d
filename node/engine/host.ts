// Entry of the engine's Electron utility process. It speaks the Wire protocol over `process.parentPort`
// (Electron's utility-process channel), so imports never block the window. No `electron` import: the
// port is reached through `process`, and the same Engine runs under the CLI and the bridge.
// Forked by main with --run-sql, the same bundle is the killable utility process that one user SQL query
// runs in (main starts it when the engine asks: store/user-sql-process.ts); started as a worker thread by
// an import (parallel-import.ts), it is that import's parser, and by a diagnosis
// (analysis/diagnosis-runner.ts), the thread the model runs on.
import type { Wire } from '../../common/contract/api';
import { isSqlRelay } from '../../common/contract/ipc';
import { Engine } from './api';
import { dispatchCall } from './dispatch';
import { ensureDemoIncident } from './demo';
import { isMainThread, workerData } from 'node:worker_threads';
import { diagnosisWorkerMain } from './analysis/diagnosis-worker';
import { DIAGNOSIS_WORKER_ROLE } from './analysis/diagnosis-protocol';
import { importWorkerMain } from './import/import-worker';
import { IMPORT_WORKER_ROLE } from './import/parallel-import';
import { sqlChildMain, sqlChildOnPort, type ParentPort } from './store/sql-child';
import { relayedSqlLauncher } from './store/user-sql-process';

function serveEngine(port: ParentPort): void {
  const dbFile = process.argv[process.argv.indexOf('--db') + 1];
  // User SQL in utility processes that main starts for the engine (it cannot start one itself).
  const sql = relayedSqlLauncher((m) => port.postMessage(m));
  const engine = new Engine(dbFile, { emit: (event) => port.postMessage({ kind: 'event', event } satisfies Wire), sqlLauncher: sql.launch });

  port.on('message', ({ data }) => {
    if (isSqlRelay(data)) return sql.receive(data);
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
} else {
  const port = (process as unknown as { parentPort?: ParentPort }).parentPort;
  if (process.argv.includes('--run-sql')) {
    if (port) sqlChildOnPort(port);
    else void sqlChildMain();
  } else if (!port) throw new Error('engine host must run as an Electron utility process (or with --run-sql)');
  else serveEngine(port);
}
