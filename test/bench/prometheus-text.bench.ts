// Throughput of the Prometheus text importer into SQLite: a generated series of vLLM + DCGM scrapes
// (gauges, counters, histograms), headed by scrape_ts_ms comments, streamed in 64 KiB chunks. Cases:
// the import as the pipeline runs it (a worker thread parses, this thread writes), the same on one
// thread, and parsing into a sink that stores nothing. Baseline for the machine's speed: the same
// samples written straight into the samples table with prepared statements (no parsing, no tiles).
// Run: node --import tsx test/bench/prometheus-text.bench.ts   (QUADSCOPE_BENCH_SIZES=100MB,1GB)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import Database from 'better-sqlite3';
import { importInWorker } from '../../node/engine/import/parallel-import';
import { prometheusTextImporter, scrapeHeader } from '../../node/engine/importers/prometheus-text';
import type { Sink } from '../../node/engine/importers/types';
import { Store } from '../../node/engine/store/store';
import { benchSizes, emit } from './lib';

/** Counts what an importer writes and keeps nothing. */
function countingSink(): Sink & { rows: number } {
  let series = 0;
  const s = {
    rows: 0,
    series: () => ++series,
    sample: () => void s.rows++,
    histogram: () => void s.rows++,
    event: () => void s.rows++,
    span: () => void s.rows++,
    kernel: () => void s.rows++,
    stack: () => 0,
    allocation: () => void s.rows++,
    attached: () => {
      throw new Error('no attached file');
    },
    incidentId: 1,
    sourceId: 1,
  };
  return s;
}

const GPUS = 8;
const BOUNDS = ['0.001', '0.005', '0.01', '0.02', '0.04', '0.06', '0.08', '0.1', '0.25', '0.5', '0.75', '1.0', '2.5', '5.0', '7.5', '10.0', '+Inf'];

function scrape(i: number, t0: number): string {
  const out: string[] = [scrapeHeader(t0 + i * 1000)];
  const m = 'model_name="meta-llama/Llama-3.1-8B-Instruct",engine="0"';
  out.push('# TYPE vllm:num_requests_running gauge\n', `vllm:num_requests_running{${m}} ${i % 64}\n`);
  out.push('# TYPE vllm:kv_cache_usage_perc gauge\n', `vllm:kv_cache_usage_perc{${m}} ${(i % 100) / 100}\n`);
  out.push('# TYPE vllm:generation_tokens counter\n', `vllm:generation_tokens_total{${m}} ${i * 1234}\n`);
  for (const h of ['time_to_first_token_seconds', 'inter_token_latency_seconds', 'e2e_request_latency_seconds', 'request_queue_time_seconds']) {
    out.push(`# TYPE vllm:${h} histogram\n`);
    BOUNDS.forEach((le, k) => out.push(`vllm:${h}_bucket{${m},le="${le}"} ${i * (k + 1)}.0\n`));
    out.push(`vllm:${h}_sum{${m}} ${i * 0.37}\n`, `vllm:${h}_count{${m}} ${i * BOUNDS.length}.0\n`);
  }
  for (const f of ['SM_CLOCK', 'GPU_TEMP', 'POWER_USAGE', 'GPU_UTIL', 'FB_USED', 'FB_FREE', 'PROF_SM_ACTIVE', 'MEM_CLOCK']) {
    out.push(`# TYPE DCGM_FI_DEV_${f} gauge\n`);
    for (let g = 0; g < GPUS; g++) {
      out.push(`DCGM_FI_DEV_${f}{gpu="${g}",UUID="GPU-${g}0c56d28-0da5-6d26-a36a-e7af1ce2586e",device="nvidia${g}",modelName="NVIDIA H100 80GB HBM3",Hostname="node-17"} ${(i * 7 + g) % 1500}\n`);
    }
  }
  for (let k = 0; k < 40; k++) out.push(`# TYPE app_metric_${k} gauge\n`, `app_metric_${k}{shard="${k % 4}"} ${i + k}\n`);
  return out.join('');
}

/** Scrapes of about `bytes` of text, in 64 KiB chunks (generated before timing). */
function scrapes(bytes: number): { chunks: Buffer[]; bytes: number } {
  const t0 = Date.UTC(2026, 0, 1);
  const chunks: Buffer[] = [];
  let text = '';
  let total = 0;
  for (let i = 0; total + text.length < bytes; i++) {
    text += scrape(i, t0);
    if (text.length > 1 << 16) {
      chunks.push(Buffer.from(text));
      total += text.length;
      text = '';
    }
  }
  chunks.push(Buffer.from(text));
  return { chunks, bytes: chunks.reduce((n, c) => n + c.length, 0) };
}

type Mode = 'worker' | 'inline';

async function run(chunks: Buffer[], bytes: number, sink: Sink, mode: Mode = 'inline'): Promise<number> {
  const start = process.hrtime.bigint();
  const input = { stream: () => Readable.from(chunks), file: async () => '' };
  const ctx = { path: 'scrapes.prom', size: bytes, mtimeMs: null, options: {}, signal: new AbortController().signal, progress: () => {}, warn: (m: string) => console.warn(m) };
  if (mode === 'worker') await importInWorker(prometheusTextImporter, input, sink as ReturnType<Store['beginSource']>, ctx);
  else await prometheusTextImporter.import(input, sink, ctx);
  if ('commit' in sink) (sink as ReturnType<Store['beginSource']>).commit([]);
  return Number(process.hrtime.bigint() - start) / 1e9;
}

/** `rows` samples of 115 series written straight into a samples table, 256 rows a statement, one transaction. */
function rawSqliteRate(dir: string, rows: number): number {
  const db = new Database(join(dir, 'raw.db'));
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE samples (series_id INTEGER NOT NULL, ts_ms INTEGER NOT NULL, value REAL NOT NULL, PRIMARY KEY (series_id, ts_ms)) WITHOUT ROWID');
  const stmt = db.prepare(`INSERT OR REPLACE INTO samples VALUES ${Array.from({ length: 256 }, () => '(?,?,?)').join(',')}`);
  const bufs: number[][] = Array.from({ length: 115 }, () => []);
  const t0 = performance.now();
  db.exec('BEGIN');
  for (let n = 0, k = 0; n < rows; k++) {
    for (let s = 0; s < 115 && n < rows; s++, n++) {
      const b = bufs[s];
      b.push(s + 1, 1.7e12 + k * 1000, k + s * 0.5);
      if (b.length === 768) {
        stmt.run(b);
        b.length = 0;
      }
    }
  }
  db.exec('COMMIT');
  const secs = (performance.now() - t0) / 1000;
  db.close();
  return rows / secs;
}

for (const size of benchSizes('100MB')) {
  const { chunks, bytes } = scrapes(size);
  const counting = countingSink();
  const parseSecs = await run(chunks, bytes, counting);
  const mb = (bytes / 1e6).toFixed(0);
  for (const mode of ['worker', 'inline'] as Mode[]) {
    const dir = mkdtempSync(join(tmpdir(), 'qs-bench-'));
    const store = new Store(join(dir, 'bench.db'));
    try {
      const w = store.beginSource(store.createIncident('bench'), { path: 'scrapes.prom', format: 'prometheus-text', bytes });
      const secs = await run(chunks, bytes, w, mode);
      const rate = w.rows / secs;
      await store.checkpointsSettled();
      const raw = mode === 'inline' ? rawSqliteRate(dir, Math.min(w.rows, 2_000_000)) : 0;
      emit({
        bench: 'prometheus-text',
        case: mode === 'worker' ? `${mb} MB of scrapes into SQLite, parsed on a worker thread (${w.rows} samples + buckets)` : `${mb} MB of scrapes into SQLite, one thread`,
        value: rate,
        unit: 'samples/s',
        ...(mode === 'worker' ? { baseline: 'parse only, storing nothing', baseline_value: counting.rows / parseSecs } : { baseline: 'machine: raw prepared inserts of samples alone', baseline_value: raw }),
        target: '>= 1e6 samples/s',
        met: rate >= 1e6,
      });
    } finally {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
}
