// One drag-in of drag-in.bench.ts in a process of its own, so its peak RSS is that work's alone:
//   node --import tsx test/bench/drag-in-child.ts <bundle dir> diagnose|floor
// `diagnose` is what the workstation does when a bundle is dropped on it: the import pipeline over the
// folder (every file, one incident), then the diagnosis of that incident. `floor` reads every file of the
// bundle and gunzips the compressed ones, storing nothing: the least any tool pays to look at it.
// Prints one JSON line: times in ms (wall; cpu: this process, all its threads) and this image's peak RSS in MB.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { gunzipSync } from 'node:zlib';
import { importPaths } from '../../node/engine/import/pipeline';
import { analyzeIncident } from '../../node/engine/model/diagnose';
import { Store } from '../../node/engine/store/store';
import { ownPeakRssMb as rssMb } from './lib';

const [bundle, mode] = process.argv.slice(2);
const cpuMs = (c: NodeJS.CpuUsage) => (c.user + c.system) / 1000;

function* files(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) yield* files(join(dir, e.name));
    else yield join(dir, e.name);
  }
}

const c0 = process.cpuUsage();
const t0 = performance.now();
let out: Record<string, number | string>;
if (mode === 'floor') {
  let bytes = 0;
  for (const f of files(bundle)) {
    const b = readFileSync(f);
    bytes += (f.endsWith('.gz') ? gunzipSync(b) : b).length;
  }
  out = { ms: performance.now() - t0, cpu: cpuMs(process.cpuUsage(c0)), bytes };
} else if (mode === 'diagnose') {
  const dir = mkdtempSync(join(tmpdir(), 'qs-drag-in-'));
  const store = new Store(join(dir, 'workspace.db'));
  try {
    const r = await importPaths(store, [bundle], {});
    const imported = performance.now();
    const d = analyzeIncident(store, r.incident_id);
    const done = performance.now();
    out = {
      ms: done - t0,
      import_ms: imported - t0,
      analyze_ms: done - imported,
      cpu: cpuMs(process.cpuUsage(c0)),
      rows: r.sources.reduce((a, s) => a + s.rows, 0),
      failed: r.sources.filter((s) => s.status === 'failed').length,
      top: d.causes[0]?.id ?? d.status,
    };
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
} else throw new Error(`drag-in-child: unknown mode ${mode} (diagnose | floor)`);
console.log(JSON.stringify({ ...out, rss_mb: rssMb() }));
