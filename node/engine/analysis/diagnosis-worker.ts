// The worker thread's half of a diagnosis (diagnosis-runner.ts): opens the workspace read-only on a
// connection of its own, reads the incident and runs the model, and posts the diagnosis back with its
// JSON (made here, so the engine thread only stores it). One diagnosis at a time; the engine thread
// ends the thread when a diagnosis goes stale, so nothing here needs to watch for that.
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { Store } from '../store/store';
import { analyzeIncident } from '../model/diagnose';
import type { FromDiagnosisWorker, ToDiagnosisWorker } from './diagnosis-protocol';

/** Niceness of the diagnosis thread (0 normal, 19 lowest): below the engine thread, not starved by other programs. */
const DIAGNOSIS_NICENESS = 5;

export function diagnosisWorkerMain(): void {
  const port = parentPort;
  if (!port) throw new Error('the diagnosis worker must run on a worker thread');
  // Where the niceness is per thread (Linux), the diagnosis yields the CPU to the engine thread, so a zoom
  // made while it runs is answered at once even on two busy cores. Elsewhere it would lower the whole
  // engine process, so it is left alone.
  if (process.platform === 'linux') {
    try {
      setPriority(0, DIAGNOSIS_NICENESS);
    } catch {
      /* not allowed here: the diagnosis runs at the engine's priority */
    }
  }
  let store: Store | null = null;
  port.on('message', (m: ToDiagnosisWorker) => {
    let reply: FromDiagnosisWorker;
    try {
      if (store?.file !== m.dbFile) {
        store?.close();
        store = null;
        store = new Store(m.dbFile, { readonly: true });
      }
      const diagnosis = analyzeIncident(store, m.incidentId, m.options);
      reply = { t: 'done', job: m.job, diagnosis, json: JSON.stringify(diagnosis) };
    } catch (e) {
      reply = { t: 'failed', job: m.job, name: e instanceof Error ? e.name : 'Error', message: e instanceof Error ? e.message : String(e) };
    }
    port.postMessage(reply);
  });
  port.postMessage({ t: 'ready' } satisfies FromDiagnosisWorker);
}
