// The collector's debug exporter (verbosity: detailed) in its own log (otlp-debug-text.ts): each printed batch
// read as the OTLP request it was — spans, metric points and log records through the same readers as the file
// exporter's — and the collector's other log lines left out, counted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { importFiles, tempStore } from '../../helpers/import-file';
import { otlpImporter } from '../../../node/engine/importers/otlp';
import { debugTimeNanos } from '../../../node/engine/importers/otlp-debug-text';
import { detectImporter } from '../../../node/engine/importers/registry';
import { storeSql } from '../../helpers/store-sql';

const LOG = [
  '2026-03-14T09:00:00.100Z\tinfo\tservice@v0.110.0/service.go:213\tEverything is ready. Begin running and processing data.',
  '2026-03-14T09:00:05.200Z\tinfo\tTracesExporter\t{"kind": "exporter", "data_type": "traces", "name": "debug", "resource spans": 1, "spans": 2}',
  '2026-03-14T09:00:05.200Z\tinfo\tResourceSpans #0',
  'Resource SchemaURL: ',
  'Resource attributes:',
  '     -> service.name: Str(vllm)',
  '     -> service.instance.id: Str(10.0.3.17:8000)',
  'ScopeSpans #0',
  'ScopeSpans SchemaURL: ',
  'InstrumentationScope vllm.tracing 0.1',
  'Span #0',
  '    Trace ID       : 5b8aa5a2d2c872e8321cf37308d69df2',
  '    Parent ID      : ',
  '    ID             : 051581bf3cb55c13',
  '    Name           : llm_request',
  '    Kind           : Server',
  '    Start time     : 2026-03-14 09:00:04.100000000 +0000 UTC',
  '    End time       : 2026-03-14 09:00:05.150000000 +0000 UTC',
  '    Status code    : Error',
  '    Status message : CUDA out of memory',
  'Attributes:',
  '     -> gen_ai.usage.prompt_tokens: Int(812)',
  '     -> gen_ai.latency.time_to_first_token: Double(0.31)',
  'Span #1',
  '    Trace ID       : 5b8aa5a2d2c872e8321cf37308d69df2',
  '    Parent ID      : 051581bf3cb55c13',
  '    ID             : 7a3bd1c2e4f50617',
  '    Name           : prefill',
  '    Kind           : SPAN_KIND_INTERNAL',
  '    Start time     : 2026-03-14 09:00:04.200000000 +0000 UTC',
  '    End time       : 2026-03-14 09:00:04.500000000 +0000 UTC',
  '    Status code    : Unset',
  '    Status message : ',
  '\t{"kind": "exporter", "data_type": "traces", "name": "debug"}',
  '2026-03-14T09:00:06.000Z\tinfo\tResourceMetrics #0',
  'Resource attributes:',
  '     -> service.name: Str(vllm)',
  'ScopeMetrics #0',
  'InstrumentationScope otelcol/prometheusreceiver 0.110.0',
  'Metric #0',
  'Descriptor:',
  '     -> Name: vllm:num_requests_waiting',
  '     -> Description: Number of requests waiting.',
  '     -> Unit: ',
  '     -> DataType: Gauge',
  'NumberDataPoints #0',
  'Data point attributes:',
  '     -> model_name: Str(llama)',
  'StartTimestamp: 1970-01-01 00:00:00 +0000 UTC',
  'Timestamp: 2026-03-14 09:00:06 +0000 UTC',
  'Value: 7.000000',
  '2026-03-14T09:00:07.000Z\tinfo\tResourceLogs #0',
  'Resource attributes:',
  '     -> service.name: Str(vllm)',
  'ScopeLogs #0',
  'LogRecord #0',
  'ObservedTimestamp: 2026-03-14 09:00:07.000 +0000 UTC',
  'Timestamp: 2026-03-14 09:00:06.900 +0000 UTC',
  'SeverityText: ERROR',
  'SeverityNumber: Error(17)',
  'Body: Str(torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.19 GiB of which 1.02 GiB is free.)',
  'Trace ID: 5b8aa5a2d2c872e8321cf37308d69df2',
  'Span ID: 051581bf3cb55c13',
  'Flags: 1',
  '',
].join('\n');

test('times as the debug exporter prints them', () => {
  assert.equal(debugTimeNanos('2026-03-14 09:00:04.100000001 +0000 UTC'), `${Date.UTC(2026, 2, 14, 9, 0, 4, 100)}000001`);
  assert.equal(debugTimeNanos('2026-03-14 10:00:04 +0100 CET'), `${Date.UTC(2026, 2, 14, 9, 0, 4)}000000`);
  assert.equal(debugTimeNanos('1970-01-01 00:00:00 +0000 UTC'), null);
});

test("the debug exporter's text: spans with kinds, status and attributes; a gauge; a log record that is a CUDA OOM", async () => {
  assert.equal(detectImporter(Buffer.from(LOG), 'otelcol.log')?.format, 'otlp-json');
  const t = tempStore();
  try {
    const file = join(t.dir, 'otelcol.log');
    writeFileSync(file, LOG);
    const r = await importFiles(t.store, [file], { importers: [otlpImporter] });
    assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
    const db = storeSql(t.store);
    const spans = db.prepare('SELECT span_id, parent_id, name, start_ns, end_ns, attrs_json FROM spans ORDER BY start_ns').safeIntegers().all() as { span_id: string; parent_id: string | null; name: string; start_ns: bigint; end_ns: bigint; attrs_json: string }[];
    assert.deepEqual(
      spans.map((s) => [s.span_id, s.parent_id, s.name, JSON.parse(s.attrs_json)['otel.kind'], JSON.parse(s.attrs_json)['otel.status_code']]),
      [
        ['051581bf3cb55c13', null, 'llm_request', 2, 2],
        ['7a3bd1c2e4f50617', '051581bf3cb55c13', 'prefill', 1, 0],
      ],
    );
    assert.equal(spans[0].start_ns, BigInt(Date.UTC(2026, 2, 14, 9, 0, 4, 100)) * 1_000_000n);
    assert.equal(JSON.parse(spans[0].attrs_json)['gen_ai.usage.prompt_tokens'], 812);
    const waiting = db.prepare("SELECT ts_ms, value FROM samples JOIN series s ON s.id = series_id WHERE s.name = 'req.waiting'").all();
    assert.deepEqual(waiting, [{ ts_ms: Date.UTC(2026, 2, 14, 9, 0, 6), value: 7 }]);
    const oom = db.prepare("SELECT ts_ms, kind FROM events WHERE kind = 'oom'").all();
    assert.deepEqual(oom, [{ ts_ms: Date.UTC(2026, 2, 14, 9, 0, 6, 900), kind: 'oom' }]);
    const warnings = JSON.parse((db.prepare('SELECT warnings_json FROM sources').get() as { warnings_json: string }).warnings_json) as string[];
    assert.ok(warnings.some((w) => /lines of the collector's own log between the exported batches skipped/.test(w)), warnings.join('\n'));
  } finally {
    t.dispose();
  }
});

test('an item of another kind inside a block (a cut or mangled log) is no item of this one: no crash, the rest read', async () => {
  const mangled = LOG.replace('Span #1', 'Metric #1').replace('Metric #0', 'Span #9').replace('LogRecord #0', 'HistogramDataPoints #0');
  const t = tempStore();
  try {
    const file = join(t.dir, 'otelcol.log');
    writeFileSync(file, mangled);
    const r = await importFiles(t.store, [file], { importers: [otlpImporter] });
    assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
    assert.equal((storeSql(t.store).prepare('SELECT COUNT(*) n FROM spans').get() as { n: number }).n, 1);
  } finally {
    t.dispose();
  }
});

test("exemplars are not a point's labels; a body printed over lines is whole (its CUDA OOM found); a long run of spaces is linear", async () => {
  const text = [
    '2026-03-14T09:00:06.000Z\tinfo\tResourceMetrics #0',
    'ScopeMetrics #0',
    'Metric #0',
    'Descriptor:',
    '     -> Name: vllm:num_requests_running',
    '     -> DataType: Gauge',
    ...[0, 1].flatMap((i) => [
      `NumberDataPoints #${i}`,
      'Data point attributes:',
      '     -> model_name: Str(llama)',
      `Timestamp: 2026-03-14 09:00:0${6 + i} +0000 UTC`,
      `Value: ${3 + i}.000000`,
      'Exemplars:',
      'Exemplar #0',
      '     -> Trace ID: 5b8aa5a2d2c872e8321cf37308d69df2',
      `     -> Value: ${i}.000000`,
    ]),
    '2026-03-14T09:00:07.000Z\tinfo\tResourceLogs #0',
    'ScopeLogs #0',
    'LogRecord #0',
    'Timestamp: 2026-03-14 09:00:06.900 +0000 UTC',
    'SeverityText: ERROR',
    'Body: Str(Traceback (most recent call last):',
    '  File "/v/worker.py", line 10, in run',
    `    x = torch.empty(n)${' '.repeat(200_000)}`,
    'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.19 GiB of which 1.02 GiB is free.)',
    'Attributes:',
    '     -> log.file.name: Str(vllm.log)',
    '',
  ].join('\n');
  const t = tempStore();
  try {
    const file = join(t.dir, 'otelcol.log');
    writeFileSync(file, text);
    const t0 = performance.now();
    const r = await importFiles(t.store, [file], { importers: [otlpImporter] });
    assert.ok(performance.now() - t0 < 5000);
    assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
    const db = storeSql(t.store);
    assert.deepEqual(db.prepare("SELECT COUNT(*) n FROM series WHERE name = 'req.running'").get(), { n: 1 }, 'one series: the exemplar did not become labels');
    assert.deepEqual((db.prepare("SELECT value FROM samples JOIN series s ON s.id = series_id WHERE s.name = 'req.running' ORDER BY ts_ms").all() as { value: number }[]).map((x) => x.value), [3, 4]);
    const oom = db.prepare("SELECT text FROM events WHERE kind = 'oom'").all() as { text: string }[];
    assert.equal(oom.length, 1);
    assert.match(oom[0].text, /^Traceback \(most recent call last\):\n {2}File/);
  } finally {
    t.dispose();
  }
});
