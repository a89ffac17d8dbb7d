// The OTLP importer reads a single document as a stream (json-path-scanner.ts): these tests pin that
// chunk boundaries and key order change nothing, that a cut file fails with its place and leaves
// nothing behind, and that memory does not follow the file's size.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, openSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { importFiles, tempStore } from '../../helpers/import-file';
import { runImporter } from './run-importer';
import { detectOtlp, otlpImporter } from '../../../node/engine/importers/otlp';
import type { Importer, SpanRecord } from '../../../node/engine/importers/types';
import { storeSql } from '../../helpers/store-sql';

const importers = [otlpImporter];
const T0 = 1_700_000_000_000n * 1_000_000n;
const kv = (o: Record<string, string | number>) => Object.entries(o).map(([key, v]) => ({ key, value: typeof v === 'string' ? { stringValue: v } : { intValue: String(v) } }));

/** A span whose strings hold what a byte scanner can trip on: escapes, brackets, multi-byte UTF-8. */
function span(r: number, s: number, i: number): Record<string, unknown> {
  const n = r * 10_000 + s * 1000 + i;
  return {
    traceId: Buffer.alloc(16, r + 1).toString('hex'),
    spanId: n.toString(16).padStart(16, '0'),
    parentSpanId: i ? (n - 1).toString(16).padStart(16, '0') : '',
    name: `GET /v1/"chat"\\{completions}[${i}]`,
    kind: 2,
    startTimeUnixNano: String(T0 + BigInt(n) * 1_000_000n),
    endTimeUnixNano: String(T0 + BigInt(n) * 1_000_000n + 250_000n),
    attributes: kv({ 'http.route': '/v1/{model}]"},', 'note': `caf\u00e9 \u{1F600} \\u00e9 \n\t${'}'.repeat(i % 4)}`, 'i': i }),
    events: i % 3 ? [] : [{ name: 'tick', attributes: kv({ k: '{"nested": [1]}' }) }],
    status: i % 7 ? {} : { code: 2, message: 'boom "quoted"' },
  };
}

interface Shape {
  resources: number;
  scopes: number;
  spans: number;
}

/** An OTLP request; `reorder` writes resource after scopeSpans and scope after spans, with extra keys. */
function request(shape: Shape, reorder = false): Record<string, unknown> {
  return {
    resourceSpans: Array.from({ length: shape.resources }, (_, r) => {
      const resource = { attributes: kv({ 'service.name': `svc-${r}`, 'host.name': `h"${r}"` }) };
      const scopeSpans = Array.from({ length: shape.scopes }, (_, s) => {
        const scope = { name: `scope.${r}.${s}`, version: '1.0' };
        const spans = Array.from({ length: shape.spans }, (_, i) => span(r, s, i));
        return reorder ? { schemaUrl: 'https://x/{y}', spans, droppedSpans: 0, scope } : { scope, spans };
      });
      return reorder ? { schemaUrl: '', scopeSpans, resource } : { resource, scopeSpans };
    }),
  };
}

function rows(r: Awaited<ReturnType<typeof runImporter>>) {
  assert.equal(r.error, null, r.error?.message);
  return r.all('SELECT trace_id, span_id, parent_id, name, start_ns, end_ns, attrs_json FROM spans ORDER BY rowid');
}

/** What a chunk boundary at p cuts: classes of the byte scanner's state. */
function boundaryClasses(buf: Buffer, chunk: number): Set<string> {
  const seen = new Set<string>();
  let inString = false;
  let escaped = false;
  let lastSolid = 0;
  for (let p = 0; p < buf.length; p++) {
    if (p > 0 && p % chunk === 0) {
      if (inString && escaped) seen.add('right after a backslash');
      else if (inString && buf[p] >= 0x80 && buf[p] < 0xc0) seen.add('inside a UTF-8 character');
      else if (inString) seen.add('inside a string');
      else if (lastSolid === 0x2c || lastSolid === 0x3a) seen.add('between members');
    }
    const b = buf[p];
    if (inString) {
      if (escaped) escaped = false;
      else if (b === 0x5c) escaped = true;
      else if (b === 0x22) inString = false;
    } else if (b === 0x22) inString = true;
    if (!inString && b !== 0x20 && b !== 0x0a) lastSolid = b;
  }
  return seen;
}

test('a document over 64 KiB read in chunks cut at awkward places gives the rows of a whole-file read', async () => {
  const doc = request({ resources: 3, scopes: 2, spans: 60 });
  const text = JSON.stringify(doc, null, 2);
  const buf = Buffer.from(text);
  assert.ok(buf.length > 3 * 65536, `${buf.length} bytes`);
  // A chunk size whose boundaries land in every awkward place at least once.
  let chunk = 997;
  while (boundaryClasses(buf, chunk).size < 4) chunk += 2;
  assert.ok(chunk < 5000, `no chunk size below 5000 cuts everywhere (${chunk})`);

  const whole = await runImporter(otlpImporter, { text, name: 'doc.json', chunk: buf.length });
  const cut = await runImporter(otlpImporter, { text, name: 'doc.json', chunk });
  try {
    const expected = rows(whole);
    assert.deepEqual(rows(cut), expected);
    assert.deepEqual(cut.warnings, []);
    // And the rows are the document's: every span, with its resource and scope.
    const spans = doc.resourceSpans as { resource: { attributes: { value: { stringValue: string } }[] }; scopeSpans: { scope: { name: string }; spans: ReturnType<typeof span>[] }[] }[];
    const want = spans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans.map((sp) => [sp.spanId, sp.name, rs.resource.attributes[0].value.stringValue, ss.scope.name, (sp.attributes as { value: { stringValue?: string } }[])[1].value.stringValue])));
    assert.equal(want.length, 360);
    assert.deepEqual(
      expected.map((x) => {
        const a = JSON.parse(x.attrs_json as string);
        return [x.span_id, x.name, a['service.name'], a['otel.scope'], a.note];
      }),
      want,
    );
  } finally {
    whole.dispose();
    cut.dispose();
  }
});

test('key order does not matter: spans before their scope, resource after scopeSpans, unknown keys between', async () => {
  const shape = { resources: 2, scopes: 3, spans: 5 };
  const canonical = await runImporter(otlpImporter, { text: JSON.stringify(request(shape)), name: 'a.json' });
  try {
    const expected = rows(canonical);
    assert.equal(expected.length, 30);
    for (const chunk of [1, 5, 64 * 1024]) {
      for (const text of [JSON.stringify(request(shape, true)), JSON.stringify(request(shape, true), null, 1)]) {
        const r = await runImporter(otlpImporter, { text, name: 'b.json', chunk });
        try {
          assert.deepEqual(rows(r), expected, `chunk ${chunk}`);
        } finally {
          r.dispose();
        }
      }
    }
    // Old files: instrumentationLibrarySpans / instrumentationLibrary, also in any order.
    const old = JSON.stringify(request(shape, true)).replaceAll('"scopeSpans"', '"instrumentationLibrarySpans"').replaceAll('"scope"', '"instrumentationLibrary"');
    const r = await runImporter(otlpImporter, { text: old, name: 'c.json', chunk: 7 });
    try {
      assert.deepEqual(rows(r), expected);
    } finally {
      r.dispose();
    }
  } finally {
    canonical.dispose();
  }
});

test('a truncated or invalid document fails with its line and byte offset, and nothing of it is committed', async () => {
  const t = tempStore();
  try {
    const text = JSON.stringify(request({ resources: 2, scopes: 2, spans: 60 }), null, 2);
    assert.ok(Buffer.byteLength(text) > 2 * 65536);
    const cutAt = Math.floor(text.length * 0.9);
    const cut = text.slice(0, cutAt);
    // A bad token inside the last span (parsed whole, so JSON.parse finds it): well after the first
    // spans went to the sink.
    const badAt = text.lastIndexOf('"kind": 2');
    const bad = `${text.slice(0, badAt)}"kind" 2${text.slice(badAt + '"kind": 2'.length)}`;
    writeFileSync(join(t.dir, 'cut.json'), cut);
    writeFileSync(join(t.dir, 'bad.json'), bad);
    const r = await importFiles(t.store, [join(t.dir, 'cut.json'), join(t.dir, 'bad.json')], { importers });
    assert.deepEqual(r.sources.map((s) => s.status), ['failed', 'failed']);
    const lineOf = (s: string, i: number) => s.slice(0, i).split('\n').length;
    const cutError = r.sources[0].error!;
    assert.ok(cutError.startsWith(`cut.json (line ${lineOf(cut, cutAt)}, byte ${Buffer.byteLength(cut)}): not valid OTLP/JSON: `), cutError);
    assert.match(cutError, /the JSON ends early .* in resourceSpans\[1\]\.scopeSpans\[1\]\.spans\[\d+\]: the file is truncated$/);
    const badByte = Buffer.byteLength(bad.slice(0, badAt + '"kind"'.length + 1));
    assert.match(r.sources[1].error!, new RegExp(`^bad\\.json \\(line ${lineOf(bad, badAt)}, byte ${badByte}\\): not valid OTLP/JSON: Unexpected number \\(in resourceSpans\\[1\\]\\.scopeSpans\\[1\\]\\.spans\\[59\\]\\)$`));
    for (const table of ['spans', 'series', 'samples']) assert.equal(storeSql(t.store).prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get(), 0, table);
    assert.deepEqual(storeSql(t.store).prepare('SELECT path, status FROM sources ORDER BY id').raw().all(), [['cut.json', 'failed'], ['bad.json', 'failed']]);
  } finally {
    t.dispose();
  }
});

test('collector JSON lines: a malformed line and a cut last line are skipped with warnings; documents after a pretty document are read, a cut one warned', async () => {
  const line = (r: number) => JSON.stringify(request({ resources: 1, scopes: 1, spans: 2 + r }));
  const text = `${line(0)}\n{"resourceSpans": [oops\n\n${line(1)}\r\n${line(2).slice(0, 50)}`;
  const r = await runImporter(otlpImporter, { text, name: 'traces.jsonl', chunk: 13 });
  try {
    assert.equal(rows(r).length, 2 + 3);
    assert.equal(r.warnings.length, 2);
    assert.match(r.warnings[0], /^traces\.jsonl \(line 2\): malformed JSON: /);
    assert.equal(r.warnings[1], 'traces.jsonl (line 5): truncated last line');
  } finally {
    r.dispose();
  }
  // `jq .` of the collector's lines: pretty documents one after another (a string holding braces inside),
  // then a line, then a document the file cut short.
  const pretty = (n: number) => JSON.stringify(request({ resources: 1, scopes: 1, spans: n }), null, 2).replace('"name": "', '"name": "} { \\" ');
  const cutDoc = pretty(1).slice(0, 60);
  const text2 = `${pretty(1)}\n${pretty(2)}${line(0)}\n${cutDoc}`;
  const after = await runImporter(otlpImporter, { text: text2, name: 'two.json', chunk: 100 });
  try {
    assert.equal(after.error, null, after.error?.message);
    assert.equal(rows(after).length, 1 + 2 + 2);
    assert.deepEqual(after.warnings, [`two.json (line ${text2.split('\n').length - cutDoc.split('\n').length + 1}): truncated last document`]);
  } finally {
    after.dispose();
  }
});

test('a 50 MB document imports with live heap far below its size', async () => {
  const t = tempStore();
  const file = join(t.dir, 'big.json');
  // Written in pieces, so the test itself never holds the document.
  const fd = openSync(file, 'w');
  const perScope = 2000;
  let spans = 0;
  writeSync(fd, '{"resourceSpans": [');
  for (let r = 0; statSync(file).size < 50e6; r++) {
    writeSync(fd, `${r ? ',' : ''}{"resource": ${JSON.stringify({ attributes: kv({ 'service.name': `svc-${r}` }) })}, "scopeSpans": [{"scope": {"name": "s"}, "spans": [\n`);
    for (let i = 0; i < perScope; i++) writeSync(fd, `${i ? ',\n' : ''}${JSON.stringify(span(r, 0, i))}`);
    writeSync(fd, ']}]}');
    spans += perScope;
  }
  writeSync(fd, ']}\n');
  closeSync(fd);
  const size = statSync(file).size;

  // Live heap (after a full GC), sampled as spans reach the sink: that is while the importer holds
  // whatever it holds (a timer would not fire inside a synchronous whole-file parse), and garbage
  // between GCs is not counted as growth.
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  gc();
  const base = process.memoryUsage().heapUsed;
  let peak = base;
  let samples = 0;
  let seen = 0;
  const sampled: Importer = {
    ...otlpImporter,
    import: (input, sink, ctx) =>
      otlpImporter.import(
        input,
        new Proxy(sink, {
          get(target, key) {
            if (key === 'span') {
              return (s: SpanRecord) => {
                if (seen++ % 2500 === 0) {
                  gc();
                  peak = Math.max(peak, process.memoryUsage().heapUsed);
                  samples++;
                }
                target.span(s);
              };
            }
            const v = Reflect.get(target, key, target);
            return typeof v === 'function' ? v.bind(target) : v;
          },
        }),
        ctx,
      ),
  };
  try {
    const r = await importFiles(t.store, [file], { importers: [sampled] });
    assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
    assert.equal(storeSql(t.store).prepare('SELECT COUNT(*) FROM spans').pluck().get(), spans);
    assert.equal(samples, Math.ceil(spans / 2500));
    // Reading the file whole would hold it as a string (1×) and as parsed objects (several ×).
    const growth = peak - base;
    assert.ok(growth < size / 5, `heap grew ${(growth / 2 ** 20).toFixed(1)} MiB importing ${(size / 2 ** 20).toFixed(1)} MiB`);
  } finally {
    t.dispose();
  }
});

test('JSON lines that are mostly not JSON are given up on after a thousand bad lines, with the same error as at the end', async () => {
  const first = JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: '5b8efff798038103d269b633813fc60c', spanId: 'eee19b7ec3c1b174', name: 'x', startTimeUnixNano: '1700000000000000000' }] }] }] });
  const r = await runImporter(otlpImporter, { text: `${first}\n${'a 1\n'.repeat(50_000)}`, name: 'otel.jsonl' });
  try {
    assert.match(r.error?.message ?? '', /otel\.jsonl \(line 2, byte \d+\): not valid OTLP\/JSON \(neither one document nor JSON lines\)/);
    // One warning a bad line up to the point of giving up, not 50,000.
    assert.equal(r.warnings.filter((w) => /malformed JSON/.test(w)).length, 1000);
  } finally {
    r.dispose();
  }
});

test("opentelemetry-python's ConsoleSpanExporter output (one indented document a span): detected and read, ids, kinds, µs times, status and resource kept", async () => {
  const span = (name: string, id: string, parent: string | null, start: string, end: string, status = 'UNSET') => ({
    name,
    context: { trace_id: '0x5b8efff798038103d269b633813fc60c', span_id: `0x${id}`, trace_state: '[]' },
    kind: 'SpanKind.SERVER',
    parent_id: parent ? `0x${parent}` : null,
    start_time: start,
    end_time: end,
    status: status === 'ERROR' ? { status_code: 'ERROR', description: 'upstream down' } : { status_code: status },
    attributes: { 'gen_ai.request.model': 'llama', 'http.status_code': status === 'ERROR' ? 503 : 200 },
    events: [],
    links: [],
    resource: { attributes: { 'service.name': 'router', 'host.name': 'gw-1' }, schema_url: '' },
  });
  const text = [span('llm_request', 'eee19b7ec3c1b174', null, '2023-11-14T22:13:20.000001Z', '2023-11-14T22:13:20.250000Z'), span('upstream', 'eee19b7ec3c1b173', 'eee19b7ec3c1b174', '2023-11-14T22:13:20.100000Z', '2023-11-14T22:13:20.200000Z', 'ERROR')]
    .map((s) => JSON.stringify(s, null, 4))
    .join('\n');
  assert.equal(detectOtlp(Buffer.from(text)), 0.9);
  const r = await runImporter(otlpImporter, { text, name: 'console.json', chunk: 50 });
  try {
    assert.equal(r.error, null, r.error?.message);
    const got = r.all<{ span_id: string; parent_id: string | null; start_ns: number; attrs_json: string }>('SELECT span_id, parent_id, start_ns, attrs_json FROM spans ORDER BY start_ns');
    assert.deepEqual(got.map((s) => [s.span_id, s.parent_id]), [['eee19b7ec3c1b174', null], ['eee19b7ec3c1b173', 'eee19b7ec3c1b174']]);
    const first = r.all<{ s: string }>('SELECT CAST(start_ns AS TEXT) s FROM spans ORDER BY start_ns LIMIT 1')[0].s;
    assert.equal(first, '1700000000000001000');
    const a = JSON.parse(got[1].attrs_json);
    assert.deepEqual([a['otel.kind'], a['otel.status_code'], a['otel.status_message'], a['service.name'], a['host.name']], [2, 2, 'upstream down', 'router', 'gw-1']);
    assert.deepEqual(r.warnings, []);
  } finally {
    r.dispose();
  }
});
