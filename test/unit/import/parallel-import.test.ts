// The worker-thread import against the inline one: the same rows, the same warnings, the same errors,
// nothing left behind when it fails or is cancelled.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { importInWorker, runImport, wantsWorker, WORKER_MIN_BYTES, WORKER_MIN_CPUS } from '../../../node/engine/import/parallel-import';
import { prometheusTextImporter, scrapeHeader } from '../../../node/engine/importers/prometheus-text';
import type { EntryInput, ImportContext, Importer, Position } from '../../../node/engine/importers/types';
import { importFiles, tempStore } from '../../helpers/import-file';
import { corpusFile, skipUnlessCorpus } from '../../helpers/corpus';
import { kinetoImporter } from '../../../node/engine/importers/kineto';
import { storeSql } from '../../helpers/store-sql';

const T0 = Date.UTC(2026, 0, 1);

/** Scrapes of gauges, counters, a histogram and DCGM memory (which derives gpu.mem.total), ~`bytes` long. */
function scrapes(bytes: number, broken: number[] = []): string {
  const out: string[] = [];
  let n = 0;
  for (let i = 0; n < bytes; i++) {
    const s = [scrapeHeader(T0 + i * 1000), '# TYPE vllm:num_requests_running gauge', `vllm:num_requests_running{model_name="m"} ${i % 17}`];
    s.push('# TYPE vllm:e2e_request_latency_seconds histogram');
    for (const [k, le] of ['0.5', '1.0', '+Inf'].entries()) s.push(`vllm:e2e_request_latency_seconds_bucket{model_name="m",le="${le}"} ${i * (k + 1)}`);
    s.push(`vllm:e2e_request_latency_seconds_sum{model_name="m"} ${i * 0.25}`, `vllm:e2e_request_latency_seconds_count{model_name="m"} ${i * 3}`);
    for (let g = 0; g < 4; g++) s.push(`DCGM_FI_DEV_FB_USED{gpu="${g}",UUID="GPU-${g}"} ${1000 + i}`, `DCGM_FI_DEV_FB_FREE{gpu="${g}",UUID="GPU-${g}"} ${79000 - i}`);
    if (broken.includes(i)) s.push('this is { not a sample');
    const text = s.join('\n') + '\n';
    out.push(text);
    n += text.length;
  }
  return out.join('');
}

/** Input in odd-sized chunks, so lines are cut everywhere. */
function input(text: string, chunk = 7919): EntryInput {
  const buf = Buffer.from(text);
  const parts: Buffer[] = [];
  for (let i = 0; i < buf.length; i += chunk) parts.push(buf.subarray(i, i + chunk));
  return { stream: () => Readable.from(parts), file: () => Promise.reject(new Error('no file')) };
}

function context(signal = new AbortController().signal): ImportContext & { warnings: string[] } {
  const warnings: string[] = [];
  return { path: 'm.prom', size: null, mtimeMs: null, options: {}, signal, progress() {}, warn: (m: string, w?: Position) => void warnings.push(`${w?.line}: ${m}`), warnings };
}

/** Every table an importer writes, as comparable rows (series by name + labels, not by id). */
function dump(ts: ReturnType<typeof tempStore>): Record<string, unknown[]> {
  const q = (sql: string) => storeSql(ts.store).prepare(sql).raw().all();
  return {
    series: q('SELECT name, labels_json, unit, kind FROM series ORDER BY name, labels_json'),
    samples: q('SELECT s.name, s.labels_json, x.ts_ms, x.value FROM samples x JOIN series s ON s.id = x.series_id ORDER BY 1, 2, 3'),
    tiles: q('SELECT s.name, s.labels_json, x.tile, x.t_first, x.min, x.max, x.n FROM sample_tiles x JOIN series s ON s.id = x.series_id ORDER BY 1, 2, 3'),
    histograms: q('SELECT s.name, s.labels_json, h.ts_ms, h.le, h.count FROM histograms h JOIN series s ON s.id = h.series_id ORDER BY 1, 2, 3, 4'),
    sources: q('SELECT path, format, rows, status FROM sources'),
  };
}

async function importWith(text: string, how: 'inline' | 'worker', importer: Importer = prometheusTextImporter) {
  const ts = tempStore();
  const inc = ts.store.createIncident('p');
  const w = ts.store.beginSource(inc, { path: 'm.prom', format: importer.format, bytes: text.length });
  const ctx = context();
  let error: Error | null = null;
  try {
    if (how === 'worker') await importInWorker(importer, input(text), w, ctx);
    else await importer.import(input(text), w, ctx);
    w.commit(ctx.warnings);
  } catch (e) {
    error = e as Error;
    w.rollback();
  }
  return { ts, warnings: ctx.warnings, error, rows: dump(ts) };
}

test('a worker-thread import writes exactly the rows, tiles, histograms and warnings of the inline import', async () => {
  const text = scrapes(3e6, [5, 900]);
  const a = await importWith(text, 'inline');
  const b = await importWith(text, 'worker');
  try {
    assert.equal(a.error, null);
    assert.equal(b.error, null);
    assert.ok((a.rows.samples as unknown[]).length > 50_000, `${(a.rows.samples as unknown[]).length} samples`);
    assert.ok((a.rows.series as unknown[][]).some((r) => r[0] === 'gpu.mem.total'));
    assert.deepEqual(b.rows, a.rows);
    assert.equal(a.warnings.length, 2);
    assert.deepEqual(b.warnings, a.warnings);
  } finally {
    a.ts.dispose();
    b.ts.dispose();
  }
});

test('an importer error on the worker fails the import with its message, and the rollback leaves nothing', async () => {
  // Mostly garbage: the importer gives up on the file (GarbageGuard), on the worker as inline.
  const garbage = Array.from({ length: 5000 }, (_, i) => `%%% not metrics ${i}`).join('\n');
  const text = `# TYPE a gauge\na 1\n${garbage}\n`;
  const a = await importWith(text, 'inline');
  const b = await importWith(text, 'worker');
  try {
    assert.ok(a.error, 'inline import fails');
    assert.equal(b.error?.message, a.error!.message);
    assert.deepEqual(b.rows.samples, []);
    assert.deepEqual(b.rows.series, []);
    assert.deepEqual(b.rows.sources, []);
  } finally {
    a.ts.dispose();
    b.ts.dispose();
  }
});

test('cancelling a worker import stops the worker; nothing of the source is committed', async () => {
  const ts = tempStore();
  try {
    const text = scrapes(4e6);
    const ac = new AbortController();
    const inc = ts.store.createIncident('c');
    const w = ts.store.beginSource(inc, { path: 'm.prom', format: 'prometheus-text', bytes: text.length });
    const ctx = context(ac.signal);
    let chunks = 0;
    const src = input(text, 1 << 16);
    const cancelling: EntryInput = {
      ...src,
      async *stream() {
        for await (const c of src.stream()) {
          if (++chunks === 30) ac.abort();
          if (ac.signal.aborted) throw new Error('cancelled');
          yield c;
        }
      },
    };
    await assert.rejects(importInWorker(prometheusTextImporter, cancelling, w, ctx), /cancelled/);
    w.rollback();
    assert.equal(storeSql(ts.store).prepare('SELECT COUNT(*) FROM samples').pluck().get(), 0);
    assert.equal(storeSql(ts.store).prepare('SELECT COUNT(*) FROM sources').pluck().get(), 0);
  } finally {
    ts.dispose();
  }
});

test('which imports use a worker: parallel formats from WORKER_MIN_BYTES on WORKER_MIN_CPUS, never one that needs its file', () => {
  const prev = process.env.QUADSCOPE_IMPORT_WORKER;
  delete process.env.QUADSCOPE_IMPORT_WORKER;
  try {
    assert.equal(wantsWorker(prometheusTextImporter, WORKER_MIN_BYTES, WORKER_MIN_CPUS), true);
    assert.equal(wantsWorker(prometheusTextImporter, WORKER_MIN_BYTES, WORKER_MIN_CPUS - 1), false);
    assert.equal(wantsWorker(prometheusTextImporter, WORKER_MIN_BYTES - 1, 16), false);
    assert.equal(wantsWorker(prometheusTextImporter, null, 16), false);
    assert.equal(wantsWorker({ ...prometheusTextImporter, parallel: false }, 1e9, 16), false);
    assert.equal(wantsWorker({ ...prometheusTextImporter, needsFile: true }, 1e9, 16), false);
    process.env.QUADSCOPE_IMPORT_WORKER = 'never';
    assert.equal(wantsWorker(prometheusTextImporter, 1e9), false);
    process.env.QUADSCOPE_IMPORT_WORKER = 'always';
    assert.equal(wantsWorker(prometheusTextImporter, 1), true);
  } finally {
    if (prev === undefined) delete process.env.QUADSCOPE_IMPORT_WORKER;
    else process.env.QUADSCOPE_IMPORT_WORKER = prev;
  }
});

const KINETO = [
  'kineto_trace/hta_alexnet_a100_trace.json.gz',
  'kineto_trace/hta_df_index_resolver_v100_profile_memory_WINDOW30ms.json.gz',
  'kineto_trace/kineto_tbplugin_resnet50_v100_2021.pt.trace.json.gz',
  'kineto_trace/hta_sampled_rank-0_nccl128.json.gz',
];

/** Everything a trace import writes, ids left out (they depend on nothing but order). */
function dumpTrace(ts: ReturnType<typeof tempStore>): Record<string, unknown[]> {
  const q = (sql: string) => storeSql(ts.store).prepare(sql).safeIntegers().raw().all();
  return {
    kernels: q('SELECT device, stream, name, start_ns, end_ns, correlation_id, attrs_json FROM kernels ORDER BY start_ns, device, stream, name, end_ns'),
    spans: q('SELECT trace_id, span_id, parent_id, name, start_ns, end_ns, attrs_json FROM spans ORDER BY start_ns, span_id, name, end_ns'),
    allocations: q('SELECT a.device, a.addr, a.size, a.alloc_ns, a.free_ns, s.frames_json, a.source FROM allocations a LEFT JOIN stacks s ON s.id = a.stack_id ORDER BY 2, 4, 5'),
    ...dump(ts),
  };
}

for (const rel of KINETO) {
  test(`corpus ${rel}: on a worker thread as inline, row for row`, { skip: skipUnlessCorpus(rel) }, async () => {
    const prev = process.env.QUADSCOPE_IMPORT_WORKER;
    const runs: Record<string, unknown[]>[] = [];
    try {
      for (const mode of ['never', 'always']) {
        process.env.QUADSCOPE_IMPORT_WORKER = mode;
        const ts = tempStore();
        try {
          const r = await importFiles(ts.store, [corpusFile(rel)!], { importers: [{ ...kinetoImporter, parallel: true }] });
          assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
          runs.push(dumpTrace(ts));
        } finally {
          ts.dispose();
        }
      }
    } finally {
      if (prev === undefined) delete process.env.QUADSCOPE_IMPORT_WORKER;
      else process.env.QUADSCOPE_IMPORT_WORKER = prev;
    }
    assert.ok(runs[0].kernels.length + runs[0].spans.length > 100);
    assert.deepEqual(runs[1], runs[0]);
  });
}

test('an importer that reads its input twice (Kineto: relative times, baseTimeNanoseconds after the events) does so on a worker too', async () => {
  const base = 1_700_000_000_123_456_789n;
  const events = Array.from({ length: 30_000 }, (_, i) => ({ ph: 'X', cat: 'kernel', name: `k${i % 7}`, pid: 0, tid: 7, ts: 10.5 + i * 3, dur: 2.25, args: { correlation: i, 'External id': i } }));
  const text = JSON.stringify({ schemaVersion: 1, traceEvents: events, baseTimeNanoseconds: 0 }).replace(/"baseTimeNanoseconds":0/, `"baseTimeNanoseconds":${base}`);
  assert.ok(text.length > 3 * 2 ** 20, 'several chunks a pass');
  const a = await importWith(text, 'inline', kinetoImporter);
  const b = await importWith(text, 'worker', kinetoImporter);
  try {
    assert.equal(a.error, null);
    assert.equal(b.error, null);
    const kernels = (ts: ReturnType<typeof tempStore>) => storeSql(ts.store).prepare('SELECT name, start_ns, end_ns, correlation_id FROM kernels ORDER BY start_ns').safeIntegers().raw().all();
    const ka = kernels(a.ts);
    assert.equal(ka.length, 30_000);
    assert.deepEqual(ka[0], ['k0', base + 10_500n, base + 12_750n, 0n]);
    assert.deepEqual(kernels(b.ts), ka);
  } finally {
    a.ts.dispose();
    b.ts.dispose();
  }
});

const BUNDLE = fileURLToPath(new URL('../../../out/engine/host.cjs', import.meta.url));

test('the built engine bundle runs as the import worker (as in the desktop app)', { skip: existsSync(BUNDLE) ? false : 'out/engine/host.cjs not built (npm run build)' }, async () => {
  const saved = process.env.QUADSCOPE_IMPORT_WORKER_ENTRY;
  process.env.QUADSCOPE_IMPORT_WORKER_ENTRY = BUNDLE;
  try {
    const text = scrapes(1e6);
    const a = await importWith(text, 'inline');
    const b = await importWith(text, 'worker');
    try {
      assert.equal(b.error, null);
      assert.deepEqual(b.rows, a.rows);
    } finally {
      a.ts.dispose();
      b.ts.dispose();
    }
  } finally {
    if (saved === undefined) delete process.env.QUADSCOPE_IMPORT_WORKER_ENTRY;
    else process.env.QUADSCOPE_IMPORT_WORKER_ENTRY = saved;
  }
});

test('a worker that cannot start: the import runs on this thread instead, with a warning, and later ones skip the worker', async () => {
  const saved = { mode: process.env.QUADSCOPE_IMPORT_WORKER, entry: process.env.QUADSCOPE_IMPORT_WORKER_ENTRY };
  process.env.QUADSCOPE_IMPORT_WORKER = 'always';
  process.env.QUADSCOPE_IMPORT_WORKER_ENTRY = '/nonexistent/quadscope-import-worker.cjs';
  const ts = tempStore();
  try {
    const text = scrapes(2e5);
    const w = ts.store.beginSource(ts.store.createIncident('f'), { path: 'm.prom', format: 'prometheus-text', bytes: text.length });
    const ctx = context();
    await runImport(prometheusTextImporter, input(text), w, ctx, text.length);
    w.commit(ctx.warnings);
    assert.equal(ctx.warnings.length, 1);
    assert.match(ctx.warnings[0], /parsed on one thread: the import worker could not start/);
    assert.ok(Number(storeSql(ts.store).prepare('SELECT COUNT(*) FROM samples').pluck().get()) > 1000);
  } finally {
    ts.dispose();
    for (const [k, v] of [['QUADSCOPE_IMPORT_WORKER', saved.mode], ['QUADSCOPE_IMPORT_WORKER_ENTRY', saved.entry]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
});
