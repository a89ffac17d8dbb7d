import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { corpusFile, skipUnlessCorpus } from '../../helpers/corpus';
import { importFiles, tempStore } from '../../helpers/import-file';
import { hexId, otlpImporter } from '../../../node/engine/importers/otlp';
import { E2E_BUCKETS } from '../../../node/engine/importers/request-series';
import { storeSql } from '../../helpers/store-sql';

const importers = [otlpImporter];
const REL = 'otlp_json/otel-proto_examples_trace.json';

test('corpus OTLP example: the span with its ids, times and attributes', { skip: skipUnlessCorpus(REL) }, async () => {
  const doc = JSON.parse(readFileSync(corpusFile(REL)!, 'utf8'));
  const sp = doc.resourceSpans[0].scopeSpans[0].spans[0];
  const t = tempStore();
  try {
    const r = await importFiles(t.store, [corpusFile(REL)!], { importers });
    assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
    const rows = storeSql(t.store).prepare('SELECT trace_id, span_id, parent_id, name, start_ns, end_ns, attrs_json FROM spans').safeIntegers().all() as Record<string, unknown>[];
    assert.equal(rows.length, 1);
    assert.equal(rows[0].trace_id, sp.traceId.toLowerCase());
    assert.equal(rows[0].span_id, sp.spanId.toLowerCase());
    assert.equal(rows[0].parent_id, sp.parentSpanId.toLowerCase());
    assert.equal(rows[0].start_ns, BigInt(sp.startTimeUnixNano));
    assert.equal(rows[0].end_ns, BigInt(sp.endTimeUnixNano));
    const attrs = JSON.parse(rows[0].attrs_json as string);
    assert.equal(attrs['my.span.attr'], 'some value');
    assert.equal(attrs['service.name'], 'my.service');
    // Not a request span: no request facts, no derived series.
    assert.equal(attrs['request.status'], undefined);
    assert.equal(storeSql(t.store).prepare('SELECT COUNT(*) FROM series').pluck().get(), 0);
  } finally {
    t.dispose();
  }
});

const T0 = 1_700_000_000_000n * 1_000_000n; // ns, on a 10 s boundary
const span = (i: number, attrs: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  traceId: Buffer.alloc(16, i).toString('base64'),
  spanId: Buffer.alloc(8, i).toString('base64'),
  name: 'llm_request',
  kind: 2,
  startTimeUnixNano: String(T0 + BigInt(i) * 1_000_000_000n),
  endTimeUnixNano: Number(T0 + BigInt(i) * 1_000_000_000n + 400_000_000n),
  attributes: Object.entries(attrs).map(([key, v]) => ({ key, value: typeof v === 'string' ? { stringValue: v } : Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v } })),
  ...extra,
});

test('collector JSON lines, old instrumentationLibrarySpans, base64 ids; vLLM and llm.* attributes onto request facts and series', async () => {
  const t = tempStore();
  try {
    const vllm = (i: number, e2e: number) => ({ 'gen_ai.request.model': 'llama', 'gen_ai.request.id': `r${i}`, 'gen_ai.usage.prompt_tokens': 100, 'gen_ai.usage.completion_tokens': 20, 'gen_ai.latency.time_in_queue': 0.05, 'gen_ai.latency.time_to_first_token': 0.2, 'gen_ai.latency.e2e': e2e });
    const line1 = { resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'vllm' } }] }, scopeSpans: [{ scope: { name: 'vllm' }, spans: [span(1, vllm(1, 0.4)), span(2, vllm(2, 3.0))] }] }] };
    const line2 = { resourceSpans: [{ instrumentationLibrarySpans: [{ instrumentationLibrary: { name: 'old' }, spans: [span(12, { 'llm.model': 'gpt', 'llm.input_tokens': 7, 'llm.output_tokens': 3, 'http.status_code': 503 }, { status: { code: 2, message: 'upstream down' } }), span(13, { 'other.attr': 1 })] }] }] };
    const file = join(t.dir, 'traces.jsonl');
    writeFileSync(file, `${JSON.stringify(line1)}\n${JSON.stringify(line2)}\n`);
    const r = await importFiles(t.store, [file], { importers });
    assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
    const rows = storeSql(t.store).prepare('SELECT trace_id, span_id, attrs_json FROM spans ORDER BY start_ns').all() as { trace_id: string; span_id: string; attrs_json: string }[];
    assert.equal(rows.length, 4);
    assert.equal(rows[0].trace_id, '01'.repeat(16));
    assert.equal(rows[0].span_id, '01'.repeat(8));
    const a0 = JSON.parse(rows[0].attrs_json);
    assert.deepEqual(
      [a0['request.model'], a0['request.id'], a0['request.prompt_tokens'], a0['request.output_tokens'], a0['request.queue_s'], a0['request.ttft_s'], a0['request.e2e_s'], a0['request.status']],
      ['llama', 'r1', 100, 20, 0.05, 0.2, 0.4, 'ok'],
    );
    assert.equal(a0['gen_ai.usage.prompt_tokens'], 100);
    const a2 = JSON.parse(rows[2].attrs_json);
    assert.deepEqual([a2['request.model'], a2['request.prompt_tokens'], a2['request.output_tokens'], a2['request.status'], a2['request.error'], a2['http.status'], a2['request.e2e_s']], ['gpt', 7, 3, 'error', 'upstream down', 503, 0.4]);
    assert.equal(JSON.parse(rows[3].attrs_json)['request.status'], undefined);

    // Series: windows end at T0+10 s (requests 1, 2) and T0+20 s (request 12).
    const ms0 = Number(T0 / 1_000_000n);
    const counter = (name: string) => storeSql(t.store).prepare(`SELECT ts_ms, value FROM samples WHERE series_id = (SELECT id FROM series WHERE name = ?) ORDER BY ts_ms`).raw().all(name);
    assert.deepEqual(counter('req.finished'), [[ms0 + 10_000, 2], [ms0 + 20_000, 3]]);
    assert.deepEqual(counter('req.errors'), [[ms0 + 10_000, 0], [ms0 + 20_000, 1]]);
    assert.deepEqual(counter('lat.e2e.count'), [[ms0 + 10_000, 2], [ms0 + 20_000, 3]]);
    assert.deepEqual(counter('lat.ttft.count'), [[ms0 + 10_000, 2], [ms0 + 20_000, 2]]);
    const hid = storeSql(t.store).prepare("SELECT id, kind FROM series WHERE name = 'lat.e2e'").get() as { id: number; kind: string };
    assert.equal(hid.kind, 'histogram');
    const snaps = t.store.histogramSnapshots(hid.id);
    assert.equal(snaps.length, 2);
    assert.equal(snaps[0].le.length, E2E_BUCKETS.length + 1);
    const at = (s: (typeof snaps)[number], le: number) => s.counts[s.le.indexOf(le)];
    // 0.4 s falls in le=0.5, 3.0 s in le=5; the 0.4 s span duration of request 12 in the second window.
    assert.deepEqual([at(snaps[0], 0.3), at(snaps[0], 0.5), at(snaps[0], 2.5), at(snaps[0], 5)], [0, 1, 1, 2]);
    assert.deepEqual([at(snaps[1], 0.5), at(snaps[1], 5)], [2, 3]);
  } finally {
    t.dispose();
  }
});

test('ids: hex as written, base64 decoded', () => {
  assert.equal(hexId('5B8EFFF798038103D269B633813FC60C', 16), '5b8efff798038103d269b633813fc60c');
  assert.equal(hexId(Buffer.from('0102030405060708', 'hex').toString('base64'), 8), '0102030405060708');
});

test('a truncated OTLP document fails with its position and imports nothing', async () => {
  const t = tempStore();
  try {
    const file = join(t.dir, 'cut.json');
    const text = JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [span(1, {})] }] }] }, null, 2);
    writeFileSync(file, text.slice(0, 120));
    const r = await importFiles(t.store, [file], { importers });
    assert.equal(r.sources[0].status, 'failed');
    assert.match(r.sources[0].error!, /cut\.json \(line \d+, byte \d+\): not valid OTLP\/JSON/);
    assert.equal(storeSql(t.store).prepare('SELECT COUNT(*) FROM spans').pluck().get(), 0);
  } finally {
    t.dispose();
  }
});

const variant = (name: string) => new URL(`../../samples/variants/${name}`, import.meta.url).pathname;

test("Jaeger's api/v3 answer ({result: {resourceSpans}}, one per line) is OTLP: every span read (it was 'no spans')", async () => {
  const t = tempStore();
  try {
    const r = await importFiles(t.store, [variant('jaeger-api-v3.json')], { importers });
    assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
    const rows = storeSql(t.store).prepare('SELECT span_id, parent_id, name, start_ns, attrs_json FROM spans ORDER BY start_ns').all() as { span_id: string; parent_id: string | null; name: string; start_ns: number; attrs_json: string }[];
    assert.deepEqual(
      rows.map((x) => [x.span_id, x.parent_id, x.name, JSON.parse(x.attrs_json)['service.name']]),
      [
        ['051581bf3cb55c13', null, 'llm_request', 'vllm'],
        ['151581bf3cb55c14', '051581bf3cb55c13', 'prefill', 'vllm'],
        ['251581bf3cb55c15', null, 'route', 'router'],
      ],
    );
    assert.equal(JSON.parse(rows[2].attrs_json)['otel.status_code'], 2);
  } finally {
    t.dispose();
  }
});

test('a single api/v3 answer over several lines (pretty-printed) is read as one document', async () => {
  const t = tempStore();
  try {
    const one = JSON.parse(readFileSync(variant('jaeger-api-v3.json'), 'utf8').split('\n')[0]);
    const file = join(t.dir, 'trace.json');
    writeFileSync(file, JSON.stringify(one, null, 2));
    const r = await importFiles(t.store, [file], { importers });
    assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
    assert.equal((storeSql(t.store).prepare('SELECT COUNT(*) n FROM spans').get() as { n: number }).n, 2);
  } finally {
    t.dispose();
  }
});

test("Grafana Tempo's trace answers ({trace: {resourceSpans}} of v2, {batches: […]} of v1) are OTLP; a kind written by name is the kind", async () => {
  const resourceSpans = [
    {
      resource: { attributes: [{ key: 'service.name', value: { stringValue: 'gateway' } }] },
      scopeSpans: [
        {
          scope: { name: 'x' },
          spans: [
            { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: '1111111111111111', name: 'POST /v1/completions', kind: 'SPAN_KIND_SERVER', startTimeUnixNano: '1717000000000000000', endTimeUnixNano: '1717000001000000000' },
            { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: '2222222222222222', parentSpanId: '1111111111111111', name: 'upstream', kind: 'SPAN_KIND_CLIENT', startTimeUnixNano: '1717000000100000000', endTimeUnixNano: '1717000000900000000' },
            { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: '3333333333333333', parentSpanId: '2222222222222222', name: 'tokenize', kind: 1, startTimeUnixNano: '1717000000200000000', endTimeUnixNano: '1717000000300000000' },
          ],
        },
      ],
    },
  ];
  for (const doc of [{ trace: { resourceSpans } }, { batches: resourceSpans }]) {
    const t = tempStore();
    try {
      const file = join(t.dir, 'tempo.json');
      writeFileSync(file, JSON.stringify(doc, null, 1));
      assert.ok(otlpImporter.detect(readFileSync(file), 'tempo.json') >= 0.9);
      const r = await importFiles(t.store, [file], { importers });
      assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
      const rows = storeSql(t.store).prepare('SELECT span_id, parent_id, attrs_json FROM spans ORDER BY start_ns').all() as { span_id: string; parent_id: string | null; attrs_json: string }[];
      assert.deepEqual(
        rows.map((x) => [x.span_id, x.parent_id, JSON.parse(x.attrs_json)['otel.kind'], JSON.parse(x.attrs_json)['service.name']]),
        [
          ['1111111111111111', null, 2, 'gateway'],
          ['2222222222222222', '1111111111111111', 3, 'gateway'],
          ['3333333333333333', '2222222222222222', 1, 'gateway'],
        ],
      );
    } finally {
      t.dispose();
    }
  }
});

test('the resource attributes that name a replica (host, pod, instance) are kept on its spans; SDK details are not', async () => {
  const kv = (key: string, v: string) => ({ key, value: { stringValue: v } });
  const doc = {
    resourceSpans: [
      {
        resource: { attributes: [kv('service.name', 'vllm'), kv('host.name', 'gpu-node-3'), kv('k8s.pod.name', 'vllm-7f9c-2'), kv('telemetry.sdk.version', '1.27.0')] },
        scopeSpans: [
          {
            scope: { name: 'x' },
            spans: [
              { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: '1111111111111111', name: 'a', startTimeUnixNano: '1717000000000000000', endTimeUnixNano: '1717000001000000000' },
              { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: '2222222222222222', name: 'b', startTimeUnixNano: '1717000000000000000', endTimeUnixNano: '1717000001000000000', attributes: [kv('host.name', 'own-host')] },
            ],
          },
        ],
      },
    ],
  };
  const attrs = await spanAttrsOf(doc);
  assert.equal(attrs[0]['host.name'], 'gpu-node-3');
  assert.equal(attrs[0]['k8s.pod.name'], 'vllm-7f9c-2');
  assert.equal(attrs[0]['telemetry.sdk.version'], undefined);
  assert.equal(attrs[1]['host.name'], 'own-host');
});

/** One OTLP document imported alone: its spans' stored attributes, by span id. */
async function spanAttrsOf(doc: unknown): Promise<Record<string, unknown>[]> {
  const t = tempStore();
  try {
    const file = join(t.dir, 'r.json');
    writeFileSync(file, JSON.stringify(doc));
    const r = await importFiles(t.store, [file], { importers });
    assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
    return (storeSql(t.store).prepare('SELECT attrs_json FROM spans ORDER BY span_id').pluck().all() as string[]).map((x) => JSON.parse(x));
  } finally {
    t.dispose();
  }
}

test("a client span's first token: the GenAI conventions' time_to_first_chunk, else a first-token event's time after the span's start, kept apart from TTFT", async () => {
  const kv = (key: string, v: string | number) => ({ key, value: typeof v === 'number' ? { doubleValue: v } : { stringValue: v } });
  const call = (spanId: string, extra: Record<string, unknown>) => ({
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId,
    name: 'POST /v1/chat/completions',
    kind: 3,
    startTimeUnixNano: '1717000000000000000',
    endTimeUnixNano: '1717000004000000000',
    attributes: [kv('gen_ai.request.model', 'm'), ...((extra.attributes as object[]) ?? [])],
    events: extra.events ?? [],
  });
  const doc = {
    resourceSpans: [
      {
        resource: { attributes: [kv('service.name', 'gateway')] },
        scopeSpans: [
          {
            scope: { name: 'httpx' },
            spans: [
              call('1111111111111111', { attributes: [kv('gen_ai.response.time_to_first_chunk', 0.35)] }),
              call('2222222222222222', { events: [{ timeUnixNano: '1717000000600000000', name: 'other' }, { timeUnixNano: '1717000000750000000', name: 'first_token_received' }] }),
              call('3333333333333333', { events: [{ timeUnixNano: '1717000000900000000', name: 'tokens' }] }),
            ],
          },
        ],
      },
    ],
  };
  const attrs = await spanAttrsOf(doc);
  assert.deepEqual(
    attrs.map((a) => a['request.first_token_s']),
    [0.35, 0.75, undefined],
  );
  // The caller's view (the network included) is not the server's TTFT.
  assert.deepEqual(attrs.map((a) => a['request.ttft_s']), [undefined, undefined, undefined]);
});
