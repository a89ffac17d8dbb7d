import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { corpusFile, skipUnlessCorpus } from '../../helpers/corpus';
import { importFiles, tempStore } from '../../helpers/import-file';
import { jaegerImporter } from '../../../node/engine/importers/jaeger';
import { detectImporter } from '../../../node/engine/importers/registry';
import { storeSql } from '../../helpers/store-sql';

const importers = [jaegerImporter];
const REL = 'jaeger_json/jaeger_converter_fixture_ui_01.json';

test('corpus Jaeger trace (bare trace object): spans, µs times, parents, tags', { skip: skipUnlessCorpus(REL) }, async () => {
  const doc = JSON.parse(readFileSync(corpusFile(REL)!, 'utf8'));
  assert.equal(detectImporter(readFileSync(corpusFile(REL)!), 'ui_01.json', importers)?.format, 'jaeger-json');
  const t = tempStore();
  try {
    const r = await importFiles(t.store, [corpusFile(REL)!], { importers });
    assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
    const rows = storeSql(t.store).prepare('SELECT trace_id, span_id, parent_id, name, start_ns, end_ns, attrs_json FROM spans ORDER BY rowid').safeIntegers().all() as Record<string, unknown>[];
    assert.equal(rows.length, doc.spans.length);
    doc.spans.forEach((sp: { traceID: string; operationName: string; startTime: number; duration: number; references: { refType: string; traceID: string; spanID: string }[]; tags: { key: string; value: unknown }[]; processID: string }, i: number) => {
      assert.equal(rows[i].name, sp.operationName);
      assert.equal(rows[i].start_ns, BigInt(sp.startTime) * 1000n);
      assert.equal(rows[i].end_ns, BigInt(sp.startTime + sp.duration) * 1000n);
      // Jaeger's rule: the first CHILD_OF within the span's own trace (span 4 also points into trace 0xff first).
      const parent = sp.references.find((x) => x.refType === 'CHILD_OF' && x.traceID === sp.traceID) ?? sp.references.find((x) => x.refType === 'FOLLOWS_FROM' && x.traceID === sp.traceID);
      assert.equal(rows[i].parent_id, parent ? parent.spanID : null);
      const attrs = JSON.parse(rows[i].attrs_json as string);
      for (const tag of sp.tags) assert.deepEqual(attrs[tag.key], tag.value);
      assert.equal(attrs['service.name'], doc.processes[sp.processID].serviceName);
    });
  } finally {
    t.dispose();
  }
});

test('{data:[…]} with GenAI tags: request facts and an error from the error tag', async () => {
  const t = tempStore();
  try {
    const tags = (o: Record<string, unknown>) => Object.entries(o).map(([key, value]) => ({ key, type: typeof value === 'string' ? 'string' : typeof value === 'boolean' ? 'bool' : 'float64', value }));
    const trace = {
      traceID: 'abc',
      processes: { p1: { serviceName: 'gateway', tags: [] } },
      spans: [
        { traceID: 'abc', spanID: 'a1', operationName: 'chat', references: [], startTime: 1_700_000_000_000_000, duration: 2_500_000, processID: 'p1', tags: tags({ 'gen_ai.request.model': 'm', 'gen_ai.usage.input_tokens': 12, 'gen_ai.usage.output_tokens': 4, 'gen_ai.response.finish_reasons': 'stop' }) },
        { traceID: 'abc', spanID: 'a2', operationName: 'chat', references: [{ refType: 'CHILD_OF', traceID: 'abc', spanID: 'a1' }], startTime: 1_700_000_000_100_000, duration: 1_000, processID: 'p1', tags: tags({ 'llm.model': 'm', error: true, 'error.type': 'timeout' }) },
      ],
    };
    const file = join(t.dir, 'jaeger.json');
    writeFileSync(file, JSON.stringify({ data: [trace], total: 1 }));
    const r = await importFiles(t.store, [file], { importers });
    assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
    const rows = storeSql(t.store).prepare('SELECT span_id, parent_id, attrs_json FROM spans ORDER BY span_id').all() as { span_id: string; parent_id: string | null; attrs_json: string }[];
    const a = JSON.parse(rows[0].attrs_json);
    assert.deepEqual([a['request.model'], a['request.prompt_tokens'], a['request.output_tokens'], a['request.e2e_s'], a['request.status'], a['request.finish_reasons']], ['m', 12, 4, 2.5, 'ok', 'stop']);
    const b = JSON.parse(rows[1].attrs_json);
    assert.equal(rows[1].parent_id, 'a1');
    assert.deepEqual([b['request.status'], b['request.error']], ['error', 'timeout']);
    const errors = storeSql(t.store).prepare("SELECT value FROM samples WHERE series_id = (SELECT id FROM series WHERE name = 'req.errors') ORDER BY ts_ms DESC LIMIT 1").pluck().get();
    assert.equal(errors, 1);
  } finally {
    t.dispose();
  }
});

test("a gateway's client span beside the server's span of the same request counts it once, the server's; client spans alone are counted, warned", async () => {
  const t = tempStore();
  try {
    const tags = (o: Record<string, unknown>) => Object.entries(o).map(([key, value]) => ({ key, type: typeof value === 'string' ? 'string' : 'float64', value }));
    const genai = { 'gen_ai.request.model': 'm', 'gen_ai.usage.input_tokens': 12, 'gen_ai.usage.output_tokens': 4 };
    const client = { traceID: 'abc', spanID: 'c1', operationName: 'chat m', references: [], startTime: 1_700_000_000_000_000, duration: 3_000_000, processID: 'p1', tags: tags({ ...genai, 'span.kind': 'client' }) };
    const server = { traceID: 'abc', spanID: 's1', operationName: 'llm_request', references: [{ refType: 'CHILD_OF', traceID: 'abc', spanID: 'c1' }], startTime: 1_700_000_000_200_000, duration: 2_500_000, processID: 'p2', tags: tags({ ...genai, 'span.kind': 'server' }) };
    const processes = { p1: { serviceName: 'gateway', tags: [] }, p2: { serviceName: 'vllm', tags: [] } };
    const count = async (name: string, spans: unknown[]) => {
      const file = join(t.dir, name);
      writeFileSync(file, JSON.stringify({ data: [{ traceID: 'abc', processes, spans }] }));
      const r = await importFiles(t.store, [file], { importers });
      assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
      const sql = storeSql(t.store);
      const sum = sql.prepare("SELECT x.value FROM samples x JOIN series s ON s.id = x.series_id JOIN sources o ON o.id = s.source_id WHERE s.name = 'lat.e2e.sum' AND o.path LIKE ? ORDER BY x.ts_ms DESC LIMIT 1").pluck().get(`%${name}`);
      const warnings = JSON.parse(sql.prepare('SELECT warnings_json FROM sources WHERE path LIKE ?').pluck().get(`%${name}`) as string) as string[];
      return { sum, warnings };
    };
    const both = await count('both.json', [client, server]);
    assert.equal(both.sum, 2.5);
    assert.deepEqual(both.warnings, []);
    const callers = await count('client.json', [client]);
    assert.equal(callers.sum, 3);
    assert.match(callers.warnings.join('\n'), /1 client-side request spans only/);
  } finally {
    t.dispose();
  }
});

test('malformed Jaeger JSON fails with line and offset', async () => {
  const t = tempStore();
  try {
    const file = join(t.dir, 'bad.json');
    writeFileSync(file, '{"data": [\n  {"traceID": "x", "spans": [}\n]}');
    const r = await importFiles(t.store, [file], { importers });
    assert.equal(r.sources[0].status, 'failed');
    assert.match(r.sources[0].error!, /bad\.json \(line 2, byte \d+\): malformed JSON/);
  } finally {
    t.dispose();
  }
});

const variant = (name: string) => new URL(`../../samples/variants/${name}`, import.meta.url).pathname;

test('a bare array of Jaeger spans, each with its own process: detected and read (it failed)', async () => {
  const file = variant('jaeger-span-array.json');
  assert.equal(detectImporter(readFileSync(file), 'spans.json')?.format, 'jaeger-json');
  const t = tempStore();
  try {
    const r = await importFiles(t.store, [file], { importers });
    assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
    const rows = storeSql(t.store).prepare('SELECT span_id, parent_id, name, end_ns - start_ns AS d, attrs_json FROM spans ORDER BY start_ns').all() as { span_id: string; parent_id: string | null; name: string; d: number; attrs_json: string }[];
    assert.deepEqual(
      rows.map((x) => [x.span_id, x.parent_id, x.name, JSON.parse(x.attrs_json)['service.name'], x.d]),
      [
        ['0000000000000001', null, 'POST /v1/completions', 'vllm-frontend', 1_250_000_000],
        ['0000000000000002', '0000000000000001', 'llm_request', 'vllm', 1_240_000_000],
      ],
    );
  } finally {
    t.dispose();
  }
});

test("the parent by Jaeger's own rule: the first CHILD_OF within the trace, else the first FOLLOWS_FROM; a reference into another trace never", async () => {
  const trace = 'a1b2c3d4e5f60718';
  const span = (id: string, references: unknown[], start: number) => ({ traceID: trace, spanID: id, operationName: `op${id}`, references, startTime: start, duration: 10, tags: [], processID: 'p1' });
  const doc = {
    data: [
      {
        traceID: trace,
        spans: [
          span('1111111111111111', [], 1717000000000000),
          span('2222222222222222', [{ refType: 'CHILD_OF', traceID: 'ffffffffffffffff', spanID: '9999999999999999' }, { refType: 'CHILD_OF', traceID: trace, spanID: '1111111111111111' }], 1717000000000001),
          span('3333333333333333', [{ refType: 'FOLLOWS_FROM', traceID: trace, spanID: '2222222222222222' }], 1717000000000002),
        ],
        processes: { p1: { serviceName: 'vllm', tags: [] } },
      },
    ],
  };
  const t = tempStore();
  try {
    const file = join(t.dir, 'refs.json');
    writeFileSync(file, JSON.stringify(doc));
    const r = await importFiles(t.store, [file], { importers });
    assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
    const rows = storeSql(t.store).prepare('SELECT span_id, parent_id, attrs_json FROM spans ORDER BY start_ns').all() as { span_id: string; parent_id: string | null; attrs_json: string }[];
    assert.deepEqual(
      rows.map((x) => [x.span_id, x.parent_id]),
      [
        ['1111111111111111', null],
        ['2222222222222222', '1111111111111111'],
        ['3333333333333333', '2222222222222222'],
      ],
    );
    // The other trace's reference is kept beside it.
    assert.deepEqual(JSON.parse(rows[1].attrs_json)['jaeger.references'], [{ refType: 'CHILD_OF', traceID: 'ffffffffffffffff', spanID: '9999999999999999' }]);
  } finally {
    t.dispose();
  }
});

test("a Jaeger process's host names its spans (hostname as host.name)", async () => {
  const doc = { data: [{ traceID: 'a1', spans: [{ traceID: 'a1', spanID: 'b1', operationName: 'op', references: [], startTime: 1717000000000000, duration: 10, tags: [], processID: 'p1' }], processes: { p1: { serviceName: 'vllm', tags: [{ key: 'hostname', type: 'string', value: 'gpu-node-3' }, { key: 'jaeger.version', type: 'string', value: 'Go-2.30.0' }] } } }] };
  const t = tempStore();
  try {
    const file = join(t.dir, 'p.json');
    writeFileSync(file, JSON.stringify(doc));
    const r = await importFiles(t.store, [file], { importers });
    assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
    const attrs = JSON.parse(storeSql(t.store).prepare('SELECT attrs_json FROM spans').pluck().get() as string);
    assert.equal(attrs['host.name'], 'gpu-node-3');
    assert.equal(attrs['jaeger.version'], undefined);
  } finally {
    t.dispose();
  }
});

test("a span as Jaeger's Elasticsearch storage keeps it, alone or in a _search answer: typed text values read back, tags as fields, parentSpanID", async () => {
  const span = (id: string, parent: string | null, start: number) => ({
    traceID: '00000000000000010000000000000000',
    spanID: id,
    ...(parent ? { parentSpanID: parent } : {}),
    flags: 1,
    operationName: 'llm_request',
    references: [],
    startTime: start,
    startTimeMillis: Math.floor(start / 1000),
    duration: 250_000,
    tags: [
      { key: 'gen_ai.usage.prompt_tokens', type: 'int64', value: '14' },
      { key: 'error', type: 'bool', value: 'false' },
      { key: 'gen_ai.latency.time_to_first_token', type: 'float64', value: '0.19' },
      { key: 'big', type: 'int64', value: '9223372036854775222' },
    ],
    tag: { 'http@status_code': '200' },
    logs: [],
    process: { serviceName: 'vllm', tags: [], tag: { 'k8s@pod@name': 'vllm-0' } },
  });
  const t = tempStore();
  try {
    const one = join(t.dir, 'es-span.json');
    writeFileSync(one, JSON.stringify(span('0000000000000002', '0000000000000003', 1_700_000_000_000_000), null, 2));
    const answer = join(t.dir, 'es-search.json');
    writeFileSync(answer, JSON.stringify({ took: 3, timed_out: false, hits: { total: { value: 2 }, hits: [{ _index: 'jaeger-span-2026-03-14', _id: 'a', _source: span('00000000000000a1', null, 1_700_000_000_100_000) }, { _index: 'jaeger-span-2026-03-14', _id: 'b', _source: span('00000000000000a2', '00000000000000a1', 1_700_000_000_200_000) }] } }));
    assert.equal(detectImporter(readFileSync(one), 'es-span.json', importers)?.format, 'jaeger-json');
    assert.equal(detectImporter(readFileSync(answer), 'es-search.json', importers)?.format, 'jaeger-json');
    const r = await importFiles(t.store, [one, answer], { importers });
    assert.deepEqual(r.sources.map((s) => [s.status, s.error]), [['ok', null], ['ok', null]]);
    const rows = storeSql(t.store).prepare('SELECT span_id, parent_id, name, start_ns, end_ns, attrs_json FROM spans ORDER BY start_ns').safeIntegers().all() as { span_id: string; parent_id: string | null; start_ns: bigint; end_ns: bigint; attrs_json: string }[];
    assert.deepEqual(rows.map((x) => [x.span_id, x.parent_id, x.start_ns, x.end_ns - x.start_ns]), [
      ['0000000000000002', '0000000000000003', 1_700_000_000_000_000_000n, 250_000_000n],
      ['00000000000000a1', null, 1_700_000_000_100_000_000n, 250_000_000n],
      ['00000000000000a2', '00000000000000a1', 1_700_000_000_200_000_000n, 250_000_000n],
    ]);
    const a = JSON.parse(rows[0].attrs_json);
    assert.equal(a['gen_ai.usage.prompt_tokens'], 14);
    assert.equal(a.error, false);
    assert.equal(a['gen_ai.latency.time_to_first_token'], 0.19);
    assert.equal(a.big, '9223372036854775222', 'past 2^53: kept as written');
    assert.equal(a['http.status_code'], '200');
    assert.equal(a['service.name'], 'vllm');
  } finally {
    t.dispose();
  }
});
