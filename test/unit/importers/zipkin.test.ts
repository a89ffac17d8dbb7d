// Zipkin v2 JSON: the sample (an /api/v2/traces answer: an array of traces), a bare span list read in any
// chunking, exact ns times, skipped and open spans each said once, malformed and refused files placed, and
// detection that claims Zipkin's shape only (not Jaeger's, OTLP's or Kineto's).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CORPUS_DIR } from '../../helpers/corpus';
import { importFiles, tempStore } from '../../helpers/import-file';
import { runImporter, type Run } from './run-importer';
import { storeSql } from '../../helpers/store-sql';
import { detectZipkin, zipkinImporter } from '../../../node/engine/importers/zipkin';
import { detectImporter, HEAD_BYTES, IMPORTERS } from '../../../node/engine/importers/registry';

const VARIANTS = fileURLToPath(new URL('../../samples/variants/', import.meta.url));
const SAMPLE = join(VARIANTS, 'zipkin-v2-traces.json');
/** The registry as it is once Zipkin is listed (the test does not depend on that edit). */
const WITH_ZIPKIN = [...IMPORTERS.filter((i) => i.format !== zipkinImporter.format), zipkinImporter];

interface Row {
  trace_id: string;
  span_id: string;
  parent_id: string | null;
  name: string;
  start: string;
  end: string;
  attrs: Record<string, unknown>;
}

/** The spans in file order, times as exact decimal text (a JS number of ns would round them). */
function spans(r: Run): Row[] {
  assert.equal(r.error, null, r.error?.message);
  return r
    .all<Omit<Row, 'attrs'> & { attrs_json: string }>('SELECT trace_id, span_id, parent_id, name, CAST(start_ns AS TEXT) AS start, CAST(end_ns AS TEXT) AS "end", attrs_json FROM spans ORDER BY rowid')
    .map(({ attrs_json, ...x }) => ({ ...x, attrs: JSON.parse(attrs_json) }));
}

test('the /api/v2/traces sample (an array of traces): every span, its ids, parent, exact times, kind, services, tags', async () => {
  const head = readFileSync(SAMPLE).subarray(0, HEAD_BYTES);
  assert.ok(detectZipkin(head) >= 0.9);
  assert.equal(detectImporter(head, 'traces.json', WITH_ZIPKIN)?.format, 'zipkin-json');
  // A trace list whose first traces are empty, as /api/v2/traces can answer.
  assert.ok(detectZipkin(Buffer.from(`[[], [ ],${readFileSync(SAMPLE, 'utf8').slice(1)}`)) >= 0.9);
  const r = await runImporter(zipkinImporter, { file: SAMPLE });
  try {
    const got = spans(r);
    const T1 = '5af7183fb1d4cf5f4b2c9e1d0a7f3e21';
    const T2 = '00f067aa0ba902b7';
    assert.deepEqual(
      got.map((s) => [s.trace_id, s.span_id, s.parent_id, s.name, s.start, s.end, s.attrs['span.kind'], s.attrs['service.name'], s.attrs['peer.service']]),
      [
        [T1, 'a1b2c3d4e5f60001', null, 'post /v1/chat/completions', '1718000000000000000', '1718000002400000000', 'server', 'llm-gateway', undefined],
        [T1, 'a1b2c3d4e5f60002', 'a1b2c3d4e5f60001', 'post /v1/chat/completions', '1718000000001200000', '1718000002391200000', 'client', 'llm-gateway', 'vllm'],
        // The server half of the shared RPC span: the client's id, Zipkin's parent, marked shared.
        [T1, 'a1b2c3d4e5f60002', 'a1b2c3d4e5f60001', 'post /v1/chat/completions', '1718000000002100000', '1718000002382100000', 'server', 'vllm', undefined],
        [T1, 'a1b2c3d4e5f60003', 'a1b2c3d4e5f60002', 'prefill', '1718000000035000000', '1718000000185000000', undefined, 'vllm', undefined],
        // (the late half of a1b2…0002 without a timestamp is skipped)
        [T2, 'b0c1d2e3f4a50001', null, 'post /v1/completions', '1718000005000000000', '1718000035000000000', 'server', 'llm-gateway', undefined],
        // Still open (no duration): ends where it starts.
        [T2, 'b0c1d2e3f4a50002', 'b0c1d2e3f4a50001', 'post /v1/completions', '1718000005000900000', '1718000005000900000', 'client', 'llm-gateway', 'vllm'],
        [T2, 'b0c1d2e3f4a50003', 'b0c1d2e3f4a50001', 'send usage', '1718000035000100000', '1718000035000520000', 'producer', 'llm-gateway', 'kafka'],
        [T2, 'b0c1d2e3f4a50004', 'b0c1d2e3f4a50003', 'poll usage', '1718000035004000000', '1718000035005800000', 'consumer', 'usage-billing', 'kafka'],
      ],
    );
    const [root, client, server, prefill, failed, open] = got.map((s) => s.attrs);
    // Tags kept as written, beside what the reader adds.
    assert.equal(root['http.path'], '/v1/chat/completions');
    assert.equal(root['http.status_code'], '200');
    assert.equal(prefill['batch.size'], '6');
    assert.equal(got[6].attrs['kafka.topic'], 'llm-usage');
    assert.equal(root['zipkin.local'], '10.1.2.3:8080');
    assert.equal(root['zipkin.remote'], '10.1.9.40:51712');
    assert.equal(open['zipkin.remote'], '[fd00:10:1::5:9]:8000');
    assert.equal(server['zipkin.shared'], true);
    assert.equal(client['zipkin.shared'], undefined);
    assert.equal(client['zipkin.annotations'], 2);
    assert.deepEqual(client['zipkin.annotation_values'], [{ at_us: 100, value: 'ws' }, { at_us: 2_383_800, value: 'wr' }]);
    assert.equal(root['zipkin.annotations'], 0);
    // Request facts from the GenAI tags (strings, as Zipkin's tags are).
    assert.deepEqual(
      [server['request.model'], server['request.id'], server['request.prompt_tokens'], server['request.output_tokens'], server['request.ttft_s'], server['request.queue_s'], server['request.e2e_s'], server['request.status']],
      ['llama-3-8b-instruct', 'chatcmpl-7f3e0c21', 512, 128, 0.182, 0.031, 2.38, 'ok'],
    );
    assert.equal(client['request.status'], undefined);
    // Zipkin's error tag: an error whatever its value, the value its message.
    assert.deepEqual([failed['request.status'], failed['request.error'], failed['http.status']], ['error', 'upstream request timeout', 504]);
    const finished = r.all<{ v: number }>("SELECT value AS v FROM samples WHERE series_id = (SELECT id FROM series WHERE name = 'req.finished') ORDER BY ts_ms DESC LIMIT 1");
    assert.deepEqual(finished, [{ v: 2 }]);
    // One warning for the skipped half, one for the open span, each placed.
    assert.deepEqual(r.warnings, [
      'zipkin-v2-traces.json (line 97, byte 2538, key [0][4]): span without traceId, id or timestamp, skipped',
      'zipkin-v2-traces.json (line 131, byte 3384, key [1][1].duration): span without a duration (still open, or its end reported apart): ends where it starts',
    ]);
  } finally {
    r.dispose();
  }
});

const span = (i: number, extra: Record<string, unknown> = {}) => ({
  traceId: '463ac35c9f6413ad48485a3953bb6124',
  parentId: i ? `a2fb4a1d1a96d31${i - 1}` : undefined,
  id: `a2fb4a1d1a96d31${i}`,
  kind: i % 2 ? 'CLIENT' : 'SERVER',
  name: `get /x{"${i}"}[\\]`,
  timestamp: 1_718_000_000_000_001 + i,
  duration: 1_000 + i,
  localEndpoint: { serviceName: `svc-${i % 3}`, ipv4: '10.0.0.1' },
  tags: { 'caf\u00e9': '\u{1F600}]', i: String(i) },
  ...extra,
});

test('a bare span list (/api/v2/trace/{id}, a UI download): the same rows in any chunking, µs × 1000 exactly', async () => {
  const text = JSON.stringify(Array.from({ length: 9 }, (_, i) => span(i)), null, 2);
  const reference = await runImporter(zipkinImporter, { text, name: 'trace.json', chunk: 1 << 20 });
  try {
    const expected = spans(reference);
    assert.equal(expected.length, 9);
    // 1718000000000001 µs: its ns (1.718000000000001e18) is past 2^53, where a double would round it.
    assert.deepEqual([expected[0].start, expected[0].end], ['1718000000000001000', '1718000000001001000']);
    assert.deepEqual([expected[8].start, expected[8].end], ['1718000000000009000', '1718000000001017000']);
    assert.deepEqual(expected.map((s) => s.parent_id), [null, ...expected.slice(0, 8).map((s) => s.span_id)]);
    assert.deepEqual(expected[3].attrs, { 'caf\u00e9': '\u{1F600}]', i: '3', 'service.name': 'svc-0', 'span.kind': 'client', 'zipkin.local': '10.0.0.1', 'zipkin.annotations': 0 });
    assert.equal(expected[2].name, 'get /x{"2"}[\\]');
    for (const chunk of [1, 7, 4096]) {
      const r = await runImporter(zipkinImporter, { text, name: 'trace.json', chunk });
      try {
        assert.deepEqual(spans(r), expected, `chunk ${chunk}`);
        assert.deepEqual(r.warnings, []);
      } finally {
        r.dispose();
      }
    }
  } finally {
    reference.dispose();
  }
});

/** A compact JSON array of these elements, and the byte where each begins. */
function listAt(items: unknown[]): { text: string; at: number[] } {
  const parts = items.map((x) => JSON.stringify(x));
  const at: number[] = [];
  let offset = 1;
  for (const p of parts) {
    at.push(offset);
    offset += Buffer.byteLength(p) + 1;
  }
  return { text: `[${parts.join(',')}]`, at };
}

test('ids as written, lower-cased; times as digits kept exact; a time a double of µs cannot hold is refused', async () => {
  const { text, at } = listAt([
    span(0, { traceId: '463AC35C9F6413AD', id: 'A2FB4A1D1A96D310', parentId: 'FFFF4A1D1A96D310', name: undefined, kind: undefined, timestamp: '1718000000123457', duration: '3' }),
    span(1, { timestamp: 2 ** 53 + 2 }),
    span(2, { timestamp: -5 }),
    span(3, { duration: 'soon' }),
  ]);
  const r = await runImporter(zipkinImporter, { text, name: 't.json' });
  try {
    const got = spans(r);
    assert.deepEqual(
      got.map((s) => [s.trace_id, s.span_id, s.parent_id, s.name, s.start, s.end, s.attrs['span.kind']]),
      [
        ['463ac35c9f6413ad', 'a2fb4a1d1a96d310', 'ffff4a1d1a96d310', '', '1718000000123457000', '1718000000123460000', undefined],
        ['463ac35c9f6413ad48485a3953bb6124', 'a2fb4a1d1a96d313', 'a2fb4a1d1a96d312', 'get /x{"3"}[\\]', '1718000000000004000', '1718000000000004000', 'client'],
      ],
    );
    assert.deepEqual(r.warnings, [
      `t.json (line 1, byte ${at[1]}, key [1].timestamp): span whose timestamp is no time in µs (a whole number of µs since 1970, below 2^53), skipped (2 in all; the first here)`,
      `t.json (line 1, byte ${at[3]}, key [3].duration): span whose duration is no time in µs (or ends past 2^63 ns): ends where it starts`,
    ]);
  } finally {
    r.dispose();
  }
});

test("Zipkin's error tag marks an error whatever its value (even empty); OpenTelemetry's otel.status_code ERROR too", async () => {
  const model = { 'gen_ai.request.model': 'm', 'http.status_code': '200' };
  const text = JSON.stringify([
    span(0, { tags: { ...model, error: '' } }),
    span(1, { tags: { ...model, error: 'CANCELLED' } }),
    span(2, { tags: { ...model, 'otel.status_code': 'ERROR', 'otel.status_description': 'deadline exceeded' } }),
    span(3, { tags: model }),
  ]);
  const r = await runImporter(zipkinImporter, { text, name: 'e.json' });
  try {
    assert.deepEqual(
      spans(r).map((s) => [s.attrs['request.status'], s.attrs['request.error']]),
      [
        ['error', undefined],
        ['error', 'CANCELLED'],
        ['error', 'deadline exceeded'],
        ['ok', undefined],
      ],
    );
  } finally {
    r.dispose();
  }
});

test('spans without id, traceId or timestamp: skipped, counted in one warning; a file of only those fails naming the first', async () => {
  const { text, at } = listAt([span(0), span(1, { timestamp: undefined }), span(2, { id: undefined }), span(3, { traceId: 42 }), span(4, { timestamp: 0 }), span(5), 7]);
  const r = await runImporter(zipkinImporter, { text, name: 's.json', chunk: 5 });
  try {
    assert.deepEqual(spans(r).map((s) => s.span_id), ['a2fb4a1d1a96d310', 'a2fb4a1d1a96d315']);
    assert.deepEqual(r.warnings, [
      `s.json (line 1, byte ${at[1]}, key [1]): span without traceId, id or timestamp, skipped (4 in all; the first here)`,
      's.json (key [6]): a value where a span belongs, skipped',
    ]);
  } finally {
    r.dispose();
  }
  const none = await runImporter(zipkinImporter, { text: JSON.stringify([[span(1, { timestamp: undefined }), span(2, { id: '' })]]), name: 'n.json' });
  try {
    assert.match(none.error?.message ?? '', /^n\.json \(line 1, byte 2, key \[0\]\[0\]\): no spans in this Zipkin file: 2 spans skipped, the first: span without traceId, id or timestamp$/);
    assert.equal(none.all('SELECT * FROM spans').length, 0);
  } finally {
    none.dispose();
  }
});

test('malformed JSON fails with its line, byte and place; an empty list, an object and Zipkin v1 fail saying what they are', async () => {
  const good = JSON.stringify([span(0)], null, 2);
  const at = good.indexOf('"duration": ') + '"duration": '.length;
  const bad = `${good.slice(0, at)}}${good.slice(at)}`;
  const lines = bad.slice(0, at).split('\n').length;
  const cases: [string, string, RegExp][] = [
    ['bad.json', bad, new RegExp(`^bad\\.json \\(line ${lines}, byte ${Buffer.byteLength(bad.slice(0, at))}(, key \\[0\\])?\\): malformed JSON: .*\\(in \\[0\\]\\)$`)],
    ['cut.json', good.slice(0, 200), /^cut\.json \(line \d+, byte 200(, key \[0\])?\): malformed JSON: the JSON ends early/],
    ['empty.json', '[]', /^empty\.json \(line 1, byte 0\): no spans in this Zipkin file: an empty list/],
    ['object.json', JSON.stringify(span(0)), /^object\.json \(line 1, byte 0\): not a Zipkin v2 file: expected a JSON array of spans, or of traces/],
  ];
  for (const [name, text, want] of cases) {
    const r = await runImporter(zipkinImporter, { text, name, chunk: 64 });
    try {
      assert.match(r.error?.message ?? 'no error', want, name);
      assert.equal(r.all('SELECT * FROM spans').length, 0, name);
    } finally {
      r.dispose();
    }
  }
  // Zipkin v1: the core annotations hold the kind, times and endpoints; claimed, and refused saying how to get v2.
  const v1 = JSON.stringify([
    {
      traceId: '5af7183fb1d4cf5f',
      id: '352bff9a74ca9ad2',
      name: 'get',
      timestamp: 1718000000000000,
      duration: 20000,
      annotations: [
        { timestamp: 1718000000000000, value: 'cs', endpoint: { serviceName: 'frontend', ipv4: '10.0.0.2' } },
        { timestamp: 1718000000020000, value: 'cr', endpoint: { serviceName: 'frontend', ipv4: '10.0.0.2' } },
      ],
      binaryAnnotations: [{ key: 'http.path', value: '/api', endpoint: { serviceName: 'frontend', ipv4: '10.0.0.2' } }],
    },
  ]);
  assert.equal(detectImporter(Buffer.from(v1), 'v1.json', WITH_ZIPKIN)?.format, 'zipkin-json');
  const r = await runImporter(zipkinImporter, { text: v1, name: 'v1.json' });
  try {
    assert.match(r.error?.message ?? '', /^v1\.json \(line 1, byte 1, key \[0\]\): Zipkin v1 JSON .* is not read: POST it to a Zipkin server/);
  } finally {
    r.dispose();
  }
});

test('detection: Zipkin only; Jaeger, OTLP, Kineto and JSON logs with a traceId are not claimed and keep their reader', () => {
  const heads: [string, Buffer, string | null][] = [];
  for (const f of readdirSync(VARIANTS)) if (f.endsWith('.json') && f !== 'zipkin-v2-traces.json') heads.push([f, readFileSync(join(VARIANTS, f)), 'any']);
  for (const dir of ['jaeger_json', 'otlp_json', 'kineto_trace']) {
    const d = join(CORPUS_DIR, dir);
    if (existsSync(d)) for (const f of readdirSync(d)) if (!f.endsWith('.gz')) heads.push([`${dir}/${f}`, readFileSync(join(d, f)), 'any']);
  }
  // Always there, whatever the corpus: the shapes closest to Zipkin's.
  const jaegerSpans = readFileSync(join(VARIANTS, 'jaeger-span-array.json'));
  const otlp = { resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ spans: [{ traceId: '5b8efff798038103d269b633813fc60c', spanId: 'eee19b7ec3c1b174', name: 'x', startTimeUnixNano: '1718000000000000000', endTimeUnixNano: '1718000000000001000' }] }] }] };
  const logs = [{ timestamp: '2024-06-10T06:13:20Z', traceId: '5b8efff798038103d269b633813fc60c', id: 17, message: 'done' }];
  const logLines = `{"timestamp": 1718000000000000, "traceId": "5b8efff798038103", "id": "eee19b7ec3c1b174", "msg": "x"}\n`;
  heads.push(['jaeger-span-array.json', jaegerSpans, 'jaeger-json'], ['otlp', Buffer.from(JSON.stringify(otlp)), 'otlp-json'], ['log array', Buffer.from(JSON.stringify(logs)), null], ['log lines', Buffer.from(logLines.repeat(3)), null]);
  heads.push(['kineto-ns-precision.json', readFileSync(join(VARIANTS, 'kineto-ns-precision.json')), 'kineto-json']);
  assert.ok(heads.length >= 8);
  for (const [name, body, reader] of heads) {
    const head = body.subarray(0, HEAD_BYTES);
    assert.equal(detectZipkin(head), 0, name);
    const before = detectImporter(head, name)?.format ?? null;
    assert.equal(detectImporter(head, name, WITH_ZIPKIN)?.format ?? null, before, name);
    if (reader !== 'any' && reader !== null) assert.equal(before, reader, name);
    if (reader === null) assert.notEqual(before, 'zipkin-json', name);
  }
});

test('imported through the pipeline with the Zipkin reader registered: detected from content, one ok source', async () => {
  const t = tempStore();
  try {
    const file = join(t.dir, 'download.json');
    writeFileSync(file, readFileSync(SAMPLE));
    const r = await importFiles(t.store, [file], { importers: WITH_ZIPKIN });
    assert.deepEqual(r.sources.map((s) => [s.format, s.status, s.error]), [['zipkin-json', 'ok', null]]);
    const [row] = storeSql(t.store).prepare('SELECT warnings_json, (SELECT COUNT(*) FROM spans) AS spans FROM sources').all() as { warnings_json: string; spans: number }[];
    assert.equal(row.spans, 8);
    assert.equal(JSON.parse(row.warnings_json).length, 2);
  } finally {
    t.dispose();
  }
});
