// One import of one file in a process of its own, as `quadscope import` runs it (the pipeline: format,
// worker or not as the pipeline decides, one transaction), so its time starts cold and its peak RSS is
// that import's alone:
//   node --import tsx test/bench/import-child.ts <format> <file> [pipeline|parse]
// `parse` runs the importer into a sink that stores nothing (what parsing alone costs). `floor` imports,
// then times storing the very rows it made (spans, kernels, allocations), already in memory, into a fresh
// store of the same schema: 64-row INSERTs in one transaction, commit included. No import that writes
// those rows can beat it: it is what SQLite alone costs, with no reading or parsing at all.
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
import { storeSql, storeWriter } from '../helpers/store-sql';

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
} else if (mode === 'floor') {
  const dir = mkdtempSync(join(tmpdir(), 'qs-bench-import-'));
  try {
    const store = new Store(join(dir, 'w.db'));
    const r = await importPaths(store, [file], { importers: [importer] });
    if (r.sources[0]?.status !== 'ok') throw new Error(`import-child: ${file} did not import`);
    const read = storeSql(store);
    const rowsOf = (name: string) => {
      const cols = (read.prepare(`SELECT name FROM pragma_table_info('${name}')`).pluck().all() as string[]).join(', ');
      return { name, cols, rows: read.prepare(`SELECT ${cols} FROM ${name}`).raw().all() as unknown[][] };
    };
    // The rows they refer to (foreign keys) go in before the clock starts.
    const context = ['incidents', 'sources', 'stacks'].map(rowsOf);
    const tables = ['spans', 'kernels', 'allocations'].map(rowsOf);
    store.close();
    const fresh = new Store(join(dir, 'floor.db'));
    const db = storeWriter(fresh);
    const BATCH = 64;
    const insert = (tabs: typeof tables): number => {
      let rows = 0;
      for (const { name, cols, rows: all } of tabs) {
        const width = cols.split(',').length;
        const tuple = `(${Array(width).fill('?').join(',')})`;
        const many = db.prepare(`INSERT INTO ${name} (${cols}) VALUES ${Array(BATCH).fill(tuple).join(',')}`);
        const one = db.prepare(`INSERT INTO ${name} (${cols}) VALUES ${tuple}`);
        let k = 0;
        for (; k + BATCH <= all.length; k += BATCH) many.run(all.slice(k, k + BATCH).flat());
        for (; k < all.length; k++) one.run(all[k]);
        rows += all.length;
      }
      return rows;
    };
    db.exec('BEGIN');
    insert(context);
    db.exec('COMMIT');
    const t = performance.now();
    db.exec('BEGIN');
    const rows = insert(tables);
    db.exec('COMMIT');
    const ms = performance.now() - t;
    fresh.close();
    console.log(JSON.stringify({ ms, rows, rss_mb: rssMb() }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
} else throw new Error(`import-child: unknown mode ${mode} (pipeline | parse | floor)`);
