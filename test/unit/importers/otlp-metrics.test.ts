// OTLP metrics in the collector's file exporter output and in one document (otlp-metrics.ts), and the
// .proto's snake_case field names protobuf's JSON mapping allows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { corpusFile, skipUnlessCorpus } from '../../helpers/corpus';
import { join } from 'node:path';
import { importFiles, tempStore } from '../../helpers/import-file';
import { otlpImporter } from '../../../node/engine/importers/otlp';
import { storeSql } from '../../helpers/store-sql';

const importers = [otlpImporter];
const T0 = 1_700_000_000_000; // ms
const ns = (ms: number) => String(BigInt(ms) * 1_000_000n);
const attrs = (o: Record<string, string>) => Object.entries(o).map(([key, v]) => ({ key, value: { stringValue: v } }));
const resource = { attributes: attrs({ 'service.name': 'vllm', 'service.namespace': 'prod', 'service.instance.id': '10.0.0.7:8000' }) };
const metricsRequest = (metrics: unknown[]) => ({ resourceMetrics: [{ resource, scopeMetrics: [{ scope: { name: 'otelcol/prometheusreceiver' }, metrics }] }] });

const warnings = (t: ReturnType<typeof tempStore>): string[] => JSON.parse(storeSql(t.store).prepare('SELECT warnings_json FROM sources').pluck().get() as string);

function rows(t: ReturnType<typeof tempStore>, sql: string): Record<string, unknown>[] {
  return storeSql(t.store).prepare(sql).all() as Record<string, unknown>[];
}

test("collector JSON lines with metrics and spans: a scrape's gauge, counter and histogram land in the canonical series, buckets made cumulative", async () => {
  const t = tempStore();
  try {
    const dp = (ms: number, extra: Record<string, unknown>) => ({ attributes: attrs({ model_name: 'llama' }), startTimeUnixNano: ns(T0 - 60_000), timeUnixNano: ns(ms), ...extra });
    const line1 = metricsRequest([
      { name: 'vllm:num_requests_running', gauge: { dataPoints: [dp(T0, { asDouble: 3 }), dp(T0 + 15_000, { asDouble: 5 })] } },
      // The receiver keeps the scrape's names; `_total` trimmed or not, a monotonic sum is the counter.
      { name: 'vllm:prompt_tokens', sum: { aggregationTemporality: 2, isMonotonic: true, dataPoints: [dp(T0, { asInt: '1024' })] } },
      { name: 'vllm:generation_tokens_total', sum: { aggregationTemporality: 'AGGREGATION_TEMPORALITY_CUMULATIVE', isMonotonic: true, dataPoints: [dp(T0, { asInt: '300' })] } },
      {
        name: 'vllm:e2e_request_latency_seconds',
        unit: 's',
        histogram: { aggregationTemporality: 2, dataPoints: [dp(T0, { count: '6', sum: 4.5, bucketCounts: ['1', '2', '3'], explicitBounds: [0.3, 1.0] })] },
      },
      // The point of a series gone stale: no value recorded.
      { name: 'vllm:num_requests_waiting', gauge: { dataPoints: [dp(T0, { asDouble: 0, flags: 1 })] } },
    ]);
    const line2 = { resourceSpans: [{ resource, scopeSpans: [{ scope: { name: 'vllm' }, spans: [{ traceId: '5b8efff798038103d269b633813fc60c', spanId: 'eee19b7ec3c1b174', name: 'llm_request', startTimeUnixNano: ns(T0), endTimeUnixNano: ns(T0 + 250) }] }] }] };
    const file = join(t.dir, 'otelcol-export.jsonl');
    writeFileSync(file, `${JSON.stringify(line1)}\n${JSON.stringify(line2)}\n`);
    const r = await importFiles(t.store, [file], { importers });
    assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
    assert.equal(r.sources[0].format, 'otlp-json');
    const series = rows(t, 'SELECT name, labels_json, kind FROM series ORDER BY name');
    const byName = new Map(series.map((s) => [s.name as string, s]));
    assert.deepEqual([...byName.keys()].filter((n) => !n.includes('.count') && !n.includes('.sum')), ['lat.e2e', 'req.running', 'tokens.generation', 'tokens.prompt']);
    assert.equal(byName.get('tokens.prompt')!.kind, 'counter');
    assert.deepEqual(JSON.parse(byName.get('req.running')!.labels_json as string), { job: 'prod/vllm', instance: '10.0.0.7:8000', model: 'llama', metric: 'vllm:num_requests_running' });
    const sample = (name: string) => rows(t, `SELECT ts_ms, value FROM samples JOIN series s ON s.id = series_id WHERE s.name = '${name}' ORDER BY ts_ms`);
    assert.deepEqual(sample('req.running'), [{ ts_ms: T0, value: 3 }, { ts_ms: T0 + 15_000, value: 5 }]);
    assert.deepEqual(sample('tokens.prompt'), [{ ts_ms: T0, value: 1024 }]);
    assert.deepEqual(sample('lat.e2e.count'), [{ ts_ms: T0, value: 6 }]);
    assert.deepEqual(sample('lat.e2e.sum'), [{ ts_ms: T0, value: 4.5 }]);
    const buckets = rows(t, "SELECT le, count FROM histograms JOIN series s ON s.id = series_id WHERE s.name = 'lat.e2e' ORDER BY le");
    assert.deepEqual(buckets, [{ le: 0.3, count: 1 }, { le: 1, count: 3 }, { le: Infinity, count: 6 }]);
    assert.equal(rows(t, 'SELECT COUNT(*) n FROM spans')[0].n, 1);
    assert.deepEqual(warnings(t), []);
  } finally {
    t.dispose();
  }
});

test('one metrics document, streamed: delta sums made cumulative, a trimmed unit suffix put back, summaries, exponential histograms warned', async () => {
  const t = tempStore();
  try {
    const doc = metricsRequest([
      { name: 'requests', sum: { aggregationTemporality: 1, isMonotonic: true, dataPoints: [{ timeUnixNano: ns(T0), asInt: '5' }, { timeUnixNano: ns(T0 + 10_000), asInt: '7' }] } },
      // trim_metric_suffixes: vllm:e2e_request_latency_seconds arrives as vllm:e2e_request_latency, unit s.
      { name: 'vllm:e2e_request_latency', unit: 's', histogram: { aggregationTemporality: 2, dataPoints: [{ timeUnixNano: ns(T0), count: '2', sum: 1, bucketCounts: [], explicitBounds: [] }] } },
      { name: 'rpc_duration', summary: { dataPoints: [{ timeUnixNano: ns(T0), count: '4', sum: 2, quantileValues: [{ quantile: 0.99, value: 0.9 }, { value: 0.1 }] }] } },
      { name: 'ttft', exponentialHistogram: { aggregationTemporality: 2, dataPoints: [{ timeUnixNano: ns(T0), count: '3', sum: 0.6, scale: 3, positive: { offset: -20, bucketCounts: ['1', '2'] } }] } },
      { name: 'broken', gauge: { dataPoints: [{ timeUnixNano: 'soon', asDouble: 1 }] } },
    ]);
    const file = join(t.dir, 'metrics.json');
    writeFileSync(file, JSON.stringify({ ...doc, resourceLogs: [{ scopeLogs: [] }] }, null, 2));
    const r = await importFiles(t.store, [file], { importers });
    assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
    const sample = (name: string, where = '') => rows(t, `SELECT ts_ms, value FROM samples JOIN series s ON s.id = series_id WHERE s.name = '${name}' ${where} ORDER BY ts_ms`);
    assert.deepEqual(sample('requests_total'), [{ ts_ms: T0, value: 5 }, { ts_ms: T0 + 10_000, value: 12 }]);
    assert.deepEqual(sample('lat.e2e.count'), [{ ts_ms: T0, value: 2 }]);
    assert.deepEqual(sample('rpc_duration', `AND s.labels_json LIKE '%"quantile":"0.99"%'`), [{ ts_ms: T0, value: 0.9 }]);
    assert.deepEqual(sample('rpc_duration', `AND s.labels_json LIKE '%"quantile":"0"%'`), [{ ts_ms: T0, value: 0.1 }]);
    assert.deepEqual(sample('rpc_duration_count'), [{ ts_ms: T0, value: 4 }]);
    assert.deepEqual(sample('ttft_count'), [{ ts_ms: T0, value: 3 }]);
    const warned = warnings(t).join('\n');
    assert.match(warned, /\(line \d+, byte \d+, key metrics\.broken\): 1 data points without a readable time or value skipped/);
    assert.match(warned, /1 exponential histogram points: their count and sum are kept/);
    // The empty logs request is read (no records) and says nothing.
    assert.doesNotMatch(warned, /resourceLogs/);
  } finally {
    t.dispose();
  }
});

test("snake_case field names (the .proto's own, as protobuf's JSON mapping allows): spans and metrics read, in one document and in JSON lines", async () => {
  const t = tempStore();
  try {
    const spans = {
      resource_spans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { string_value: 'vllm' } }] },
          scope_spans: [{ scope: { name: 'x' }, spans: [{ trace_id: 'W47/95gDgQPSabYzgT/GDA==', span_id: '7uGbfsPBsXQ=', parent_span_id: '', name: 'root', kind: 'SPAN_KIND_SERVER', start_time_unix_nano: ns(T0), end_time_unix_nano: ns(T0 + 5) }] }],
        },
      ],
    };
    const metrics = { resource_metrics: [{ resource: {}, scope_metrics: [{ metrics: [{ name: 'vllm:num_requests_waiting', gauge: { data_points: [{ time_unix_nano: ns(T0), as_double: 4 }] } }] }] }] };
    const doc = join(t.dir, 'trace.json');
    writeFileSync(doc, JSON.stringify(spans, null, 2));
    const lines = join(t.dir, 'export.jsonl');
    writeFileSync(lines, `${JSON.stringify(metrics)}\n${JSON.stringify(spans)}\n`);
    const r = await importFiles(t.store, [doc, lines], { importers });
    for (const s of r.sources) assert.equal(s.status, 'ok', `${s.path}: ${s.error}`);
    const got = rows(t, 'SELECT trace_id, span_id, attrs_json FROM spans');
    assert.equal(got.length, 2);
    for (const s of got) {
      assert.equal(s.trace_id, '5b8efff798038103d269b633813fc60c');
      assert.equal(s.span_id, 'eee19b7ec3c1b174');
      assert.equal(JSON.parse(s.attrs_json as string)['service.name'], 'vllm');
      assert.equal(JSON.parse(s.attrs_json as string)['otel.kind'], 2);
    }
    assert.deepEqual(rows(t, "SELECT value FROM samples JOIN series s ON s.id = series_id WHERE s.name = 'req.waiting'"), [{ value: 4 }]);
  } finally {
    t.dispose();
  }
});

test('a metrics file with no readable point fails naming the first problem', async () => {
  const t = tempStore();
  try {
    const file = join(t.dir, 'metrics.json');
    writeFileSync(file, JSON.stringify(metricsRequest([{ name: 'x', gauge: { dataPoints: [{ timeUnixNano: ns(T0) }] } }, { name: 'y', histogram: { dataPoints: [{ timeUnixNano: ns(T0), count: 'many' }] } }])));
    const r = await importFiles(t.store, [file], { importers });
    assert.equal(r.sources[0].status, 'failed');
    assert.match(r.sources[0].error ?? '', /no spans and no readable metric points in this OTLP file/);
  } finally {
    t.dispose();
  }
});

test("real-world shapes: the hostmetrics receiver's resource (host.name only) and the old prometheus receiver's (job, instance) keep hosts apart; a delta up-down counter is summed; a restart (a later start time) is a reset; buckets that do not fit keep count and sum; JS Long times", async () => {
  const t = tempStore();
  try {
    const host = (h: string, v: number) => ({ resource: { attributes: attrs({ 'host.name': h, 'os.type': 'linux' }) }, scopeMetrics: [{ metrics: [{ name: 'system.memory.usage', gauge: { dataPoints: [{ timeUnixNano: ns(T0), asInt: String(v) }] } }] }] });
    const target = (instance: string, v: number) => ({ resource: { attributes: attrs({ 'service.name': 'vllm', job: 'vllm', instance, 'host.name': instance.split(':')[0], port: '8000' }) }, scopeMetrics: [{ metrics: [{ name: 'vllm:num_requests_running', gauge: { dataPoints: [{ timeUnixNano: ns(T0), asDouble: v }] } }] }] });
    const doc = {
      resourceMetrics: [
        host('gpu-node-1', 100),
        host('gpu-node-2', 200),
        target('10.0.0.5:8000', 3),
        target('10.0.0.6:8000', 7),
        {
          resource: { attributes: attrs({ 'service.name': 'sdk' }) },
          scopeMetrics: [
            {
              metrics: [
                { name: 'inflight', sum: { aggregationTemporality: 1, isMonotonic: false, dataPoints: [3, -1, -2].map((v, i) => ({ timeUnixNano: ns(T0 + i * 1000), asInt: String(v) })) } },
                // vLLM restarted between the second and third points: the start moved on, the count began again.
                { name: 'vllm:prompt_tokens', sum: { aggregationTemporality: 2, isMonotonic: true, dataPoints: [[0, 60, 100], [0, 70, 130], [80, 90, 30]].map(([s, at, v]) => ({ startTimeUnixNano: ns(T0 + s * 1000), timeUnixNano: ns(T0 + at * 1000), asInt: String(v) })) } },
                { name: 'ttft', histogram: { aggregationTemporality: 2, dataPoints: [{ timeUnixNano: ns(T0), count: '3', sum: 1.5, bucketCounts: ['1', '1', '1'], explicitBounds: [1] }] } },
                { name: 'js_long', gauge: { dataPoints: [{ timeUnixNano: { low: Number(BigInt(ns(T0)) & 0xffffffffn) | 0, high: Number(BigInt(ns(T0)) >> 32n) }, asDouble: 1 }] } },
              ],
            },
          ],
        },
      ],
    };
    const file = join(t.dir, 'metrics.json');
    writeFileSync(file, JSON.stringify(doc));
    const r = await importFiles(t.store, [file], { importers });
    assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
    const by = (name: string) => rows(t, `SELECT json_extract(s.labels_json, '$.instance') i, ts_ms, value FROM samples JOIN series s ON s.id = series_id WHERE s.name = '${name}' ORDER BY i, ts_ms`);
    assert.deepEqual(by('system.memory.usage').map((x) => [x.i, x.value]), [['gpu-node-1', 100], ['gpu-node-2', 200]]);
    assert.deepEqual(by('req.running').map((x) => [x.i, x.value]), [['10.0.0.5:8000', 3], ['10.0.0.6:8000', 7]]);
    assert.deepEqual(by('inflight').map((x) => x.value), [3, 2, 0]);
    assert.deepEqual(by('tokens.prompt').map((x) => [(x.ts_ms as number) - T0, x.value]), [[60_000, 100], [70_000, 130], [80_000, 0], [90_000, 30]]);
    assert.deepEqual(by('ttft_count').map((x) => x.value), [3]);
    assert.deepEqual(rows(t, "SELECT COUNT(*) n FROM histograms JOIN series s ON s.id = series_id WHERE s.name = 'ttft'"), [{ n: 0 }]);
    assert.deepEqual(by('js_long').map((x) => x.ts_ms), [T0]);
    assert.match(warnings(t).join('\n'), /1 histogram points whose bucketCounts do not fit their explicitBounds/);
  } finally {
    t.dispose();
  }
});

test("opentelemetry-python's ConsoleMetricExporter (to_json per export, one document after another; attributes as objects, a `data` member, `value`) and OTLP 0.8's intSum with labels", async () => {
  const t = tempStore();
  try {
    const exportAt = (ms: number, running: number) => ({
      resource_metrics: [
        {
          resource: { attributes: { 'service.name': 'router', 'telemetry.sdk.language': 'python' }, schema_url: '' },
          scope_metrics: [
            {
              scope: { name: 'app', version: '', schema_url: '' },
              metrics: [
                { name: 'vllm:num_requests_running', description: '', unit: '', data: { data_points: [{ attributes: { model_name: 'm' }, start_time_unix_nano: 0, time_unix_nano: Number(BigInt(ns(ms))), value: running }] } },
                { name: 'requests', description: '', unit: '1', data: { data_points: [{ attributes: {}, start_time_unix_nano: Number(BigInt(ns(T0))), time_unix_nano: Number(BigInt(ns(ms))), value: running * 10 }], aggregation_temporality: 2, is_monotonic: true } },
                { name: 'latency', description: '', unit: 's', data: { data_points: [{ attributes: {}, start_time_unix_nano: Number(BigInt(ns(T0))), time_unix_nano: Number(BigInt(ns(ms))), count: 2, sum: 0.5, bucket_counts: [1, 1, 0], explicit_bounds: [0.1, 1], min: 0.1, max: 0.4, exemplars: [] }], aggregation_temporality: 2 } },
              ],
              schema_url: '',
            },
          ],
          schema_url: '',
        },
      ],
    });
    const console = join(t.dir, 'console.json');
    writeFileSync(console, `${JSON.stringify(exportAt(T0, 2), null, 4)}\n${JSON.stringify(exportAt(T0 + 5000, 4), null, 4)}\n`);
    const old = join(t.dir, 'old.json');
    writeFileSync(old, JSON.stringify({ resourceMetrics: [{ instrumentationLibraryMetrics: [{ metrics: [{ name: 'vllm:num_requests_waiting', intGauge: { dataPoints: [{ labels: [{ key: 'model_name', value: 'm' }], timeUnixNano: ns(T0), value: '6' }] } }] }] }] }));
    const r = await importFiles(t.store, [console, old], { importers });
    for (const s of r.sources) assert.equal(s.status, 'ok', `${s.path}: ${s.error}`);
    const v = (name: string) => rows(t, `SELECT ts_ms, value FROM samples JOIN series s ON s.id = series_id WHERE s.name = '${name}' ORDER BY ts_ms`).map((x) => [x.ts_ms, x.value]);
    assert.deepEqual(v('req.running'), [[T0, 2], [T0 + 5000, 4]]);
    assert.deepEqual(v('requests_total'), [[T0, 20], [T0 + 5000, 40]]);
    assert.deepEqual(v('latency_count'), [[T0, 2], [T0 + 5000, 2]]);
    assert.deepEqual(v('req.waiting'), [[T0, 6]]);
    assert.equal(JSON.parse(rows(t, "SELECT labels_json FROM series WHERE name = 'req.running'")[0].labels_json as string).model, 'm');
  } finally {
    t.dispose();
  }
});

test("opentelemetry-java's OtlpJsonLogging*Exporter: one bare ResourceMetrics / ResourceSpans a line, alone or behind java.util.logging's INFO: lines", async () => {
  const t = tempStore();
  try {
    const resource = { attributes: [{ key: 'service.name', value: { stringValue: 'gateway' } }, { key: 'telemetry.sdk.language', value: { stringValue: 'java' } }] };
    const metricsAt = (ms: number, running: number) =>
      JSON.stringify({ resource, scopeMetrics: [{ scope: { name: 'gw' }, metrics: [{ name: 'vllm:num_requests_running', gauge: { dataPoints: [{ timeUnixNano: ns(ms), asInt: String(running), attributes: [{ key: 'model_name', value: { stringValue: 'm' } }] }] } }] }] });
    const spans = JSON.stringify({ resource, scopeSpans: [{ scope: { name: 'gw' }, spans: [{ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', name: 'POST /v1/chat/completions', kind: 2, startTimeUnixNano: ns(T0), endTimeUnixNano: ns(T0 + 1500) }] }] });
    const bare = join(t.dir, 'otel-metrics.log');
    writeFileSync(bare, `${metricsAt(T0, 3)}\n${metricsAt(T0 + 60_000, 5)}\n`);
    const jul = join(t.dir, 'gateway.log');
    const julHead = (ms: number, what: string) => `${new Date(ms).toUTCString()} io.opentelemetry.exporter.logging.otlp.OtlpJsonLogging${what}Exporter export`;
    writeFileSync(jul, [julHead(T0, 'Span'), `INFO: ${spans}`, julHead(T0, 'Metric'), `INFO: ${metricsAt(T0 + 120_000, 7)}`, ''].join('\n'));
    const r = await importFiles(t.store, [bare, jul], { importers });
    for (const s of r.sources) assert.equal(s.status, 'ok', `${s.path}: ${s.error}`);
    assert.deepEqual(r.sources.map((s) => s.format), ['otlp-json', 'otlp-json']);
    const v = rows(t, "SELECT ts_ms, value FROM samples JOIN series s ON s.id = series_id WHERE s.name = 'req.running' ORDER BY ts_ms").map((x) => [x.ts_ms, x.value]);
    assert.deepEqual(v, [[T0, 3], [T0 + 60_000, 5], [T0 + 120_000, 7]]);
    assert.deepEqual(rows(t, 'SELECT name, span_id FROM spans'), [{ name: 'POST /v1/chat/completions', span_id: 'b7ad6b7169203331' }]);
  } finally {
    t.dispose();
  }
});

test('a metrics file it cannot read says why: resourceMetrics as an object (opentelemetry-rust stdout), or the first problem met', async () => {
  const t = tempStore();
  try {
    const rust = join(t.dir, 'rust.json');
    writeFileSync(rust, JSON.stringify({ resourceMetrics: { resource: {}, scopeMetrics: [] } }));
    const none = join(t.dir, 'none.json');
    writeFileSync(none, JSON.stringify(metricsRequest([{ name: 'x', gauge: { dataPoints: [{ timeUnixNano: 'later', asDouble: 1 }] } }])));
    const r = await importFiles(t.store, [rust, none], { importers });
    assert.match(r.sources[0].error ?? '', /rust\.json \(key resourceMetrics\): "resourceMetrics" is an object, not the array OTLP\/JSON has/);
    assert.match(r.sources[1].error ?? '', /none\.json \(key resourceMetrics\): no spans and no readable metric points in this OTLP file: 1 data points without a readable time or value skipped/);
  } finally {
    t.dispose();
  }
});

test('OTLP logs (the collector file exporter with a filelog receiver): records are events at their time, classified as log lines are (a CUDA OOM, an Xid), with severity, attributes, the resource identity and the span they belong to', async () => {
  const t = tempStore();
  try {
    const rec = (extra: Record<string, unknown>) => ({ observedTimeUnixNano: ns(T0 + 500), ...extra });
    const logs = {
      resourceLogs: [
        {
          resource: { attributes: attrs({ 'service.name': 'vllm', 'k8s.pod.name': 'vllm-0' }) },
          scopeLogs: [
            {
              scope: {},
              logRecords: [
                rec({ timeUnixNano: ns(T0), severityNumber: 9, severityText: 'INFO', body: { stringValue: 'Avg prompt throughput: 2.0 tokens/s' }, attributes: attrs({ 'log.file.name': 'vllm.log' }) }),
                rec({ timeUnixNano: '0', severityNumber: 'SEVERITY_NUMBER_ERROR', body: { stringValue: 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.10 GiB of which 1.06 GiB is free.' }, traceId: 'W47/95gDgQPSabYzgT/GDA==', spanId: '7uGbfsPBsXQ=' }),
                rec({ timeUnixNano: ns(T0 + 2000), body: { stringValue: 'NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python3, GPU has fallen off the bus.' } }),
                rec({ timeUnixNano: ns(T0 + 3000), severityText: 'WARN', body: { kvlistValue: { values: [{ key: 'event', value: { stringValue: 'preempted' } }] } } }),
                { body: { stringValue: 'no time at all' } },
              ],
            },
          ],
        },
      ],
    };
    const spans = { resourceSpans: [{ resource: {}, scopeSpans: [{ spans: [{ traceId: '5b8efff798038103d269b633813fc60c', spanId: 'eee19b7ec3c1b174', name: 'llm_request', startTimeUnixNano: ns(T0), endTimeUnixNano: ns(T0 + 900) }] }] }] };
    const file = join(t.dir, 'otelcol.jsonl');
    writeFileSync(file, `${JSON.stringify(logs)}\n${JSON.stringify(spans)}\n`);
    const r = await importFiles(t.store, [file], { importers });
    assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
    const events = rows(t, 'SELECT ts_ms, kind, severity, text, attrs_json FROM events ORDER BY ts_ms');
    assert.deepEqual(events.map((e) => [(e.ts_ms as number) - T0, e.kind, e.severity]), [[0, 'log', 'info'], [500, 'oom', 'error'], [2000, 'xid', 'critical'], [3000, 'log', 'warning']]);
    const oom = JSON.parse(events[1].attrs_json as string);
    assert.equal(oom.trace_id, '5b8efff798038103d269b633813fc60c');
    assert.equal(oom['service.name'], 'vllm');
    assert.equal(oom['k8s.pod.name'], 'vllm-0');
    assert.equal(JSON.parse(events[0].attrs_json as string)['log.file.name'], 'vllm.log');
    assert.equal(events[3].text, '{"event":"preempted"}');
    assert.match(warnings(t).join('\n'), /\(key resourceLogs\): 1 log records with neither timeUnixNano nor observedTimeUnixNano skipped/);
    assert.equal(rows(t, 'SELECT COUNT(*) n FROM spans')[0].n, 1);
  } finally {
    t.dispose();
  }
});

const PROTO_METRICS = 'otlp_json/otel-proto_examples_metrics.json';
const PROTO_LOGS = 'otlp_json/otel-proto_examples_logs.json';

test("corpus: opentelemetry-proto's metrics and logs examples (both skipped as 'not a format Quadscope reads' before)", { skip: skipUnlessCorpus(PROTO_METRICS, PROTO_LOGS) }, async () => {
  const t = tempStore();
  try {
    const r = await importFiles(t.store, [corpusFile(PROTO_METRICS)!, corpusFile(PROTO_LOGS)!], { importers });
    for (const s of r.sources) assert.equal(s.status, 'ok', `${s.path}: ${s.error}`);
    const doc = JSON.parse(readFileSync(corpusFile(PROTO_METRICS)!, 'utf8'));
    const metrics = doc.resourceMetrics[0].scopeMetrics[0].metrics as { name: string; histogram?: { dataPoints: { bucketCounts: string[]; explicitBounds: number[] }[] } }[];
    const h = metrics.find((m) => m.histogram)!;
    const p = h.histogram!.dataPoints[0];
    // Its per-bucket counts, made cumulative, with +Inf last.
    let cum = 0;
    const want = p.bucketCounts.map((c, i) => ({ le: i < p.explicitBounds.length ? p.explicitBounds[i] : Infinity, count: (cum += Number(c)) }));
    assert.deepEqual(rows(t, `SELECT le, count FROM histograms JOIN series s ON s.id = series_id WHERE s.name = '${h.name}' ORDER BY le`), want);
    const logs = JSON.parse(readFileSync(corpusFile(PROTO_LOGS)!, 'utf8'));
    const record = logs.resourceLogs[0].scopeLogs[0].logRecords[0];
    const events = rows(t, 'SELECT ts_ms, text FROM events');
    assert.deepEqual(events, [{ ts_ms: Number(BigInt(record.timeUnixNano) / 1_000_000n), text: record.body.stringValue }]);
  } finally {
    t.dispose();
  }
});

test("OTLP logs whose records are vLLM's own lines (a filelog receiver on its output) are read as vLLM's log: stats as series", async () => {
  const t = tempStore();
  try {
    const body = (i: number) => `INFO 03-14 10:00:${String(i).padStart(2, '0')} [loggers.py:123] Avg prompt throughput: ${i}.0 tokens/s, Avg generation throughput: 2.0 tokens/s, Running: 3 reqs, Waiting: ${i} reqs, GPU KV cache usage: 50.0%`;
    const doc = { resourceLogs: [{ resource: { attributes: attrs({ 'service.name': 'vllm' }) }, scopeLogs: [{ logRecords: Array.from({ length: 12 }, (_, i) => ({ timeUnixNano: ns(Date.parse(`2025-03-14T10:00:${String(i).padStart(2, '0')}Z`)), body: { stringValue: body(i) } })) }] }] };
    const file = join(t.dir, 'logs.json');
    writeFileSync(file, JSON.stringify(doc));
    const r = await importFiles(t.store, [file], { importers });
    assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
    const waiting = rows(t, "SELECT value FROM samples JOIN series s ON s.id = series_id WHERE s.name = 'req.waiting' ORDER BY ts_ms").map((x) => x.value);
    assert.deepEqual(waiting, Array.from({ length: 12 }, (_, i) => i));
  } finally {
    t.dispose();
  }
});
