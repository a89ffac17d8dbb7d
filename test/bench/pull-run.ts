// The measured half of pull.bench.ts, in a process of its own so its peak RSS is the pull's (and the
// diagnosis's) alone: pulls argv's server and range into a fresh workspace, lists its series as the
// workstation does on opening it, diagnoses it, and prints one JSON line of timings.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CONFIG } from '../../node/engine/model/config';
import { analyzeIncidentDetailed } from '../../node/engine/model/diagnose';
import { pullIncident } from '../../node/engine/pull/pull';
import { Store } from '../../node/engine/store/store';
import { peakRssMb } from './lib';

const [url, start, end, step] = process.argv.slice(2);
const dir = mkdtempSync(join(tmpdir(), 'qs-bench-pull-run-'));
const store = new Store(join(dir, 'w.db'));
try {
  const p0 = performance.now();
  const result = await pullIncident(store, { url, start_ms: Number(start), end_ms: Number(end), step_s: Number(step), timeout_s: 600 });
  const pullMs = performance.now() - p0;
  await store.checkpointsSettled();
  const pullRss = peakRssMb();
  const o0 = performance.now();
  const listed = store.listSeries(result.incident_id!).length;
  const listMs = performance.now() - o0;
  const a0 = performance.now();
  let analyzeMs: number | null = null;
  let analyzeError: string | null = null;
  try {
    analyzeIncidentDetailed(store, result.incident_id!, {}, DEFAULT_CONFIG);
    analyzeMs = performance.now() - a0;
  } catch (e) {
    analyzeError = (e as Error).message;
  }
  console.log(JSON.stringify({ result, pullMs, pullRss, listed, listMs, analyzeMs, analyzeError, peakRss: peakRssMb() }));
} finally {
  store.close();
  rmSync(dir, { recursive: true, force: true });
}
