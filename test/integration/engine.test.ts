// The engine API end to end on a real SQLite file: import with progress events, per-file errors that
// do not stop the bundle, skipped unknown files, cancel, series downsampling, events and annotations.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Engine } from '../../node/engine/api';
import type { EngineEvent, ImportProgress } from '../../common/contract/types';

const T0 = Date.parse('2026-03-14T09:00:00Z');

function bundle(dir: string): string {
  const b = join(dir, 'bundle');
  mkdirSync(join(b, 'metrics'), { recursive: true });
  const lines = ['# HELP vllm:kv_cache_usage_perc KV-cache usage. 1 means 100 percent usage.', '# TYPE vllm:kv_cache_usage_perc gauge'];
  for (let i = 0; i < 120; i++) lines.push(`vllm:kv_cache_usage_perc{engine="0",model_name="llama"} ${(i / 120).toFixed(4)} ${T0 + i * 5000}`);
  writeFileSync(join(b, 'metrics', 'vllm.prom'), lines.join('\n') + '\n');
  writeFileSync(join(b, 'empty.log'), '');
  writeFileSync(join(b, 'README.txt'), 'exported by the on-call engineer\n');
  writeFileSync(join(b, 'broken.json.gz'), gzipSync(Buffer.from('{"traceEvents": [')).subarray(0, 12));
  return b;
}

test('import a bundle through the engine API, then query it', { timeout: 60_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'qs-engine-'));
  const events: EngineEvent[] = [];
  const engine = new Engine(join(dir, 'w.db'), { emit: (e) => events.push(e) });
  try {
    const { job_id } = await engine.startImport({ paths: [bundle(dir)], name: 'surge' });
    const result = await engine.awaitImport({ job_id });
    const byPath = Object.fromEntries(result.sources.map((s) => [s.path, s]));
    assert.equal(byPath['metrics/vllm.prom'].status, 'ok');
    assert.equal(byPath['metrics/vllm.prom'].format, 'prometheus-text');
    assert.equal(byPath['metrics/vllm.prom'].rows, 120);
    assert.equal(byPath['empty.log'].status, 'failed');
    assert.match(byPath['empty.log'].error!, /empty\.log.*empty file \(0 bytes\)/);
    assert.equal(byPath['README.txt'].status, 'skipped');
    assert.equal(byPath['broken.json.gz'].status, 'failed');
    assert.match(byPath['broken.json.gz'].error!, /broken\.json\.gz \(byte \d+\): .*truncated/);

    const progress = events.filter((e): e is { type: 'import-progress'; progress: ImportProgress } => e.type === 'import-progress').map((e) => e.progress);
    assert.ok(progress.every((p) => p.job_id === job_id));
    assert.equal(progress.at(-1)!.state, 'done');
    assert.equal(progress.filter((p) => p.finished).length, 4);

    const [inc] = await engine.listIncidents();
    assert.equal(inc.name, 'surge');
    assert.equal(inc.start_ms, T0);
    assert.equal(inc.end_ms, T0 + 119 * 5000);
    const detail = await engine.getIncident({ id: inc.id });
    assert.equal(detail.sources.length, 4);
    assert.equal(detail.counts.samples, 120);

    const series = await engine.listSeries({ incident_id: inc.id });
    const kv = series.find((s) => s.name === 'kv.usage');
    assert.ok(kv, `canonical kv.usage among ${series.map((s) => s.name).join(', ')}`);
    assert.equal(kv.points, 120);
    const [down] = await engine.querySeries({ series_ids: [kv.id], start_ms: T0, end_ms: T0 + 600_000, points: 12 });
    assert.equal(down.downsampled, true);
    assert.ok(down.t.length <= 12);
    assert.equal(down.min[0], 0);
    assert.equal(Math.max(...down.max), Number((119 / 120).toFixed(4)));
    const [raw] = await engine.querySeries({ series_ids: [kv.id], start_ms: T0, end_ms: T0 + 600_000, points: 1000 });
    assert.equal(raw.downsampled, false);
    assert.equal(raw.t.length, 120);

    const note = await engine.addAnnotation({ incident_id: inc.id, start_ms: T0, end_ms: T0 + 60_000, panel: 'timeline', text: 'surge starts' });
    await engine.updateAnnotation({ id: note.id, text: 'surge starts here' });
    assert.deepEqual((await engine.listAnnotations({ incident_id: inc.id })).map((a) => a.text), ['surge starts here']);
    await assert.rejects(engine.addAnnotation({ incident_id: inc.id, start_ms: 10, end_ms: 5, panel: 'x', text: 'y' }), /end after it starts/);
  } finally {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('cancel stops an import and rolls back the file in flight', { timeout: 120_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'qs-engine-cancel-'));
  const big = join(dir, 'big.prom');
  const lines: string[] = ['# TYPE vllm:num_requests_running gauge'];
  for (let i = 0; i < 600_000; i++) lines.push(`vllm:num_requests_running{engine="${i % 20}",model_name="m"} ${i % 50} ${T0 + Math.floor(i / 20) * 1000}`);
  writeFileSync(big, lines.join('\n') + '\n');
  let jobId = '';
  let cancelled = false;
  const engine = new Engine(join(dir, 'w.db'), {
    emit: (e) => {
      if (e.type === 'import-progress' && e.progress.entry_bytes_done > 1_000_000 && !cancelled) {
        cancelled = true;
        void engine.cancelImport({ job_id: jobId });
      }
    },
  });
  try {
    jobId = (await engine.startImport({ paths: [big] })).job_id;
    const r = await engine.awaitImport({ job_id: jobId });
    assert.equal(r.cancelled, true);
    assert.equal(r.sources.length, 0);
    await assert.rejects(engine.getIncident({ id: r.incident_id }), /does not exist/);
    assert.deepEqual(await engine.listIncidents(), []);
  } finally {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('year-less log lines take their year from the bundle, not from a reset mtime', { timeout: 60_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'qs-engine-year-'));
  const b = join(dir, 'bundle');
  mkdirSync(b);
  writeFileSync(join(b, 'metrics.prom'), `# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{engine="0",model_name="m"} 3 ${T0}\nvllm:num_requests_running{engine="0",model_name="m"} 4 ${T0 + 600_000}\n`);
  const log = join(b, 'vllm.log');
  writeFileSync(log, 'INFO 03-14 09:05:00 [loggers.py:123] Engine 000: Avg prompt throughput: 10.0 tokens/s, Avg generation throughput: 20.0 tokens/s, Running: 3 reqs, Waiting: 0 reqs, GPU KV cache usage: 5.0%, Prefix cache hit rate: 0.0%\n');
  // A fresh checkout or a copy gives the log today's mtime, years after the incident.
  const { utimesSync } = await import('node:fs');
  utimesSync(log, new Date('2031-07-01T00:00:00Z'), new Date('2031-07-01T00:00:00Z'));
  const engine = new Engine(join(dir, 'w.db'));
  try {
    const { job_id } = await engine.startImport({ paths: [b] });
    const r = await engine.awaitImport({ job_id });
    assert.deepEqual(r.sources.map((s) => [s.path, s.status]), [['metrics.prom', 'ok'], ['vllm.log', 'ok']]);
    const series = await engine.listSeries({ incident_id: r.incident_id, name_prefix: 'kv.usage' });
    assert.equal(series.length, 1);
    assert.equal(series[0].start_ms, Date.parse('2026-03-14T09:05:00Z'));
  } finally {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
