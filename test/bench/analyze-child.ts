// One measurement of analyze.bench.ts in a process of its own, so its peak RSS is that work's alone:
//   node --import tsx test/bench/analyze-child.ts <db> <incident> analyze|one-pass|row-scan|chunk-scan [chunks.db]
// `analyze` loads the incident's signals and runs the model (what `quadscope analyze` does after opening);
// `one-pass` is the SQL a user would write for the same samples: one ordered GROUP BY pass (count, mean,
// min, max per series). Prints one JSON line: times in ms (wall, and `cpu`: this process's user + system
// time over the same work, which a busy machine moves far less) and the process's peak RSS in MB.
// `row-scan` and `chunk-scan` are the storage-layout comparison (storage-layout.ts): every sample folded
// into window buckets from the samples table, or from the chunked copy in chunks.db.
import { performance } from 'node:perf_hooks';
import { Store } from '../../node/engine/store/store';
import { loadSignals } from '../../node/engine/model/signals-from-store';
import { analyzeSignals } from '../../node/engine/model/diagnose';
import { ownPeakRssMb as rssMb } from './lib';
import { onePassSql } from './one-pass';
import { scanChunks, scanRows } from './storage-layout';

const [file, incident, mode, chunkFile] = process.argv.slice(2);
const id = Number(incident);
const store = new Store(file, { readonly: true });
const cpuMs = (since: NodeJS.CpuUsage) => {
  const c = process.cpuUsage(since);
  return (c.user + c.system) / 1000;
};
const startRss = rssMb();
let out: Record<string, number | string>;
if (mode === 'one-pass') {
  const t = performance.now();
  const c = process.cpuUsage();
  const rows = onePassSql(file, id);
  out = { ms: performance.now() - t, cpu: cpuMs(c), series: rows };
} else if (mode === 'analyze') {
  const c = process.cpuUsage();
  let t = performance.now();
  const sig = loadSignals(store, id);
  const load = performance.now() - t;
  t = performance.now();
  const d = analyzeSignals(sig).diagnosis;
  out = { load, model: performance.now() - t, cpu: cpuMs(c), windows: d.windows.length, top: d.causes[0]?.id ?? 'none' };
} else if (mode === 'row-scan' || mode === 'chunk-scan') {
  const c = process.cpuUsage();
  const r = mode === 'row-scan' ? scanRows(file, id) : scanChunks(file, chunkFile, id);
  out = { cpu: cpuMs(c), ...r };
} else throw new Error(`analyze-child: unknown mode ${mode} (analyze | one-pass | row-scan | chunk-scan)`);
store.close();
console.log(JSON.stringify({ ...out, rss_mb: rssMb(), start_rss_mb: startRss }));
