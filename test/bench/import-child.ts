// One import of one file in a process of its own, as `quadscope import` runs it (the pipeline: format,
// worker or not as the pipeline decides, one transaction), so its time starts cold and its peak RSS is
// that import's alone:
//   node --import tsx test/bench/import-child.ts <format> <file> [pipeline|parse]
// `parse` runs the importer into a sink that stores nothing (what parsing alone costs).
// QUADSCOPE_IMPORT_WORKER=always|never forces the worker thread on or off (parallel-import.ts).
// Prints one JSON line: ms (start of the import to its commit), rows, cpu_ms (this process, all its
// threads), rss_mb (peak), close_ms (closing the store: the WAL folded back).
import { createReadStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { FormatId } from '../../common/contract/types';
import { importPaths } from '../../node/engine/import/pipeline';
import { importerFor } from '../../node/engine/importers/registry';
import type { Sink } from '../../node/engine/importers/types';
import { Store } from '../../node/engine/store/store';

const [format, file, mode = 'pipeline'] = process.argv.slice(2);
const importer = importerFor(format as FormatId);
if (!importer) throw new Error(`import-child: no importer for ${format}`);
const rssMb = () => Math.round(process.resourceUsage().maxRSS / 1024);
const cpuMs = (c: NodeJS.CpuUsage) => (c.user + c.system) / 1000;

function countingSink(): Sink {
  let id = 0;
  let rows = 0;
  const row = () => void rows++;
  return {
    get rows() {
      return rows;
    },
    series: () => ++id,
    sample: row,
    histogram: row,
    event: row,
    span: row,
    kernel: row,
    stack: () => 0,
    allocation: row,
    attached: () => {
      throw new Error('no attached file');
    },
    incidentId: 1,
    sourceId: 1,
  };
}

const c0 = process.cpuUsage();
if (mode === 'parse') {
  const sink = countingSink();
  const size = statSync(file).size;
  const t = performance.now();
  await importer.import(
    { stream: () => createReadStream(file, { highWaterMark: 1 << 16 }) as AsyncIterable<Buffer>, file: async () => file },
    sink,
    { path: file, size, mtimeMs: statSync(file).mtimeMs, options: {}, signal: new AbortController().signal, progress() {}, warn() {} },
  );
  console.log(JSON.stringify({ ms: performance.now() - t, rows: sink.rows, cpu_ms: cpuMs(process.cpuUsage(c0)), rss_mb: rssMb() }));
} else if (mode === 'pipeline') {
  const dir = mkdtempSync(join(tmpdir(), 'qs-bench-import-'));
  try {
    const store = new Store(join(dir, 'w.db'));
    const t = performance.now();
    const r = await importPaths(store, [file], { importers: [importer] });
    const ms = performance.now() - t;
    const src = r.sources[0];
    if (src?.status !== 'ok') throw new Error(`import-child: ${file} did not import: ${src?.error ?? 'no source'}`);
    const cpu = cpuMs(process.cpuUsage(c0));
    const tc = performance.now();
    await store.checkpointsSettled();
    store.close();
    console.log(JSON.stringify({ ms, rows: src.rows, cpu_ms: cpu, rss_mb: rssMb(), close_ms: performance.now() - tc }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
} else throw new Error(`import-child: unknown mode ${mode} (pipeline | parse)`);
