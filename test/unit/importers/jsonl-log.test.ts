import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jsonlLogImporter } from '../../../node/engine/importers/jsonl-log';
import { events, runImporter } from './run-importer';

const TEXT = [
  '{"timestamp":"2026-03-01T10:00:00.250Z","level":"INFO","fields":{"message":"Connected"},"target":"text_generation_router"}',
  '{"ts":1772359201,"msg":"slow","level":40,"req":{"id":7}}',
  '{"@timestamp":"2026-03-01 10:00:02","severity":"ERROR","message":"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.10 GiB of which 1.00 GiB is free."}',
  '{"time":1772359203000000000,"log":"NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.\\n"}',
  'not json',
  '{"message":"no time"}',
].join('\n');

test('JSON-lines: time fields and units, message fields, levels, OOM and Xid kinds, bad lines warned', async () => {
  const r = await runImporter(jsonlLogImporter, { text: TEXT, options: { tzOffsetMinutes: 60 } });
  try {
    assert.equal(r.error, null);
    const e = events(r);
    assert.deepEqual(
      e.map((x) => [x.ts_ms, x.kind, x.severity, x.text.slice(0, 20)]),
      [
        [Date.UTC(2026, 2, 1, 10, 0, 0, 250), 'log', 'info', 'Connected'],
        [1772359201000, 'log', 'warning', 'slow'],
        [Date.UTC(2026, 2, 1, 9, 0, 2), 'oom', 'error', 'torch.OutOfMemoryErr'],
        [1772359203000, 'xid', 'critical', 'NVRM: Xid (PCI:0000:'],
      ],
    );
    assert.equal(e[0].attrs.target, 'text_generation_router');
    assert.equal(e[1].attrs.req, '{"id":7}');
    assert.equal(e[2].attrs.tried_bytes, 2 * 2 ** 30);
    assert.equal(e[3].attrs.code, 79);
    assert.equal(r.warnings.length, 2);
    assert.match(r.warnings[0], /\(line 5\): not a JSON object/);
    assert.match(r.warnings[1], /\(line 6\): no time field/);
  } finally {
    r.dispose();
  }
  assert.equal(jsonlLogImporter.detect(Buffer.from(TEXT), 'x.jsonl'), 0.8);
  assert.equal(jsonlLogImporter.detect(Buffer.from('{"resourceSpans":[]}\n'), 'x.jsonl'), 0);
});

test("vLLM's own lines shipped through Loki (logcli --output=jsonl: `line`, `timestamp`) are read as vLLM's log: stats as series, a crash as its event", async () => {
  const stats = (i: number) => `INFO 03-14 10:00:${String(i).padStart(2, '0')} [loggers.py:123] Engine 000: Avg prompt throughput: ${i}.0 tokens/s, Avg generation throughput: 2.0 tokens/s, Running: ${i % 5} reqs, Waiting: 0 reqs, GPU KV cache usage: ${i}.0%, Prefix cache hit rate: 0.0%`;
  const rec = (i: number, line: string) => JSON.stringify({ labels: { app: 'vllm', pod: 'vllm-0' }, line, timestamp: `2025-03-14T10:00:${String(i).padStart(2, '0')}.250Z` });
  const lines = Array.from({ length: 20 }, (_, i) => rec(i, stats(i)));
  lines.push(rec(21, 'ERROR 03-14 10:00:21 [core.py:396] EngineCore encountered a fatal error.\nTraceback (most recent call last):\n  File "core.py", line 1, in run\nvllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue.'));
  const r = await runImporter(jsonlLogImporter, { text: lines.join('\n') + '\n', name: 'loki.jsonl' });
  try {
    assert.equal(r.error, null, r.error?.message);
    const kv = r.all<{ ts: number; v: number }>("SELECT ts_ms ts, value v FROM samples JOIN series s ON s.id = series_id WHERE s.name = 'kv.usage' ORDER BY ts_ms");
    assert.equal(kv.length, 20);
    assert.deepEqual(kv[3], { ts: Date.parse('2025-03-14T10:00:03.250Z'), v: 0.03 });
    assert.ok(events(r).some((e) => e.kind === 'engine_crash'), JSON.stringify(events(r).map((e) => e.kind)));
  } finally {
    r.dispose();
  }
});
