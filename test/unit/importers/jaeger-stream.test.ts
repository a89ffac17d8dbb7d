// The Jaeger importer reads its document as a stream; `processes` usually comes after `spans` (the
// query API writes traceID, spans, processes, warnings), so a trace's spans wait for it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { importFiles, tempStore } from '../../helpers/import-file';
import { runImporter } from './run-importer';
import { jaegerImporter } from '../../../node/engine/importers/jaeger';
import { storeSql } from '../../helpers/store-sql';

const tags = (o: Record<string, unknown>) => Object.entries(o).map(([key, value]) => ({ key, type: typeof value === 'string' ? 'string' : 'int64', value }));

function trace(t: number, spans: number, order: 'processes-last' | 'processes-first' | 'traceID-last'): Record<string, unknown> {
  const traceID = `${t}`.padStart(16, '0');
  const list = Array.from({ length: spans }, (_, i) => ({
    // Every other span leaves its traceID to the trace's.
    ...(i % 2 ? {} : { traceID }),
    spanID: `${t}${i}`.padStart(16, '0'),
    operationName: `op "${i}" {x}[y]\\`,
    references: i ? [{ refType: 'CHILD_OF', traceID, spanID: `${t}${i - 1}`.padStart(16, '0') }] : [],
    startTime: 1_700_000_000_000_000 + t * 1_000_000 + i * 1000,
    duration: 250 + i,
    processID: `p${i % 3}`,
    tags: tags({ 'caf\u00e9': '\u{1F600}}', i }),
    logs: [],
  }));
  const processes = Object.fromEntries([0, 1, 2].map((p) => [`p${p}`, { serviceName: `svc-${t}-${p}`, tags: [] }]));
  if (order === 'processes-first') return { processes, traceID, spans: list };
  if (order === 'traceID-last') return { spans: list, processes, warnings: null, traceID };
  return { traceID, spans: list, processes, warnings: null };
}

function rows(r: Awaited<ReturnType<typeof runImporter>>) {
  assert.equal(r.error, null, r.error?.message);
  return r.all<{ trace_id: string; span_id: string; parent_id: string | null; name: string; start_ns: number; end_ns: number; attrs_json: string }>(
    'SELECT trace_id, span_id, parent_id, name, start_ns, end_ns, attrs_json FROM spans ORDER BY rowid',
  );
}

test('processes after spans, before them, traceID last: the same rows in any chunking, each span with its service', async () => {
  const doc = (order: Parameters<typeof trace>[2]) => JSON.stringify({ data: [trace(1, 40, order), trace(2, 25, order), trace(3, 1, order)], total: 3, limit: 0, errors: null }, null, 2);
  const reference = await runImporter(jaegerImporter, { text: doc('processes-first'), name: 'ref.json', chunk: 1 << 24 });
  try {
    const expected = rows(reference);
    assert.equal(expected.length, 66);
    const svc = expected.map((x) => [x.trace_id, JSON.parse(x.attrs_json)['service.name']]);
    assert.deepEqual(svc.slice(0, 4), [['0000000000000001', 'svc-1-0'], ['0000000000000001', 'svc-1-1'], ['0000000000000001', 'svc-1-2'], ['0000000000000001', 'svc-1-0']]);
    assert.deepEqual(svc[65], ['0000000000000003', 'svc-3-0']);
    for (const order of ['processes-last', 'traceID-last'] as const) {
      for (const chunk of [1, 7, 4096]) {
        const r = await runImporter(jaegerImporter, { text: doc(order), name: 'j.json', chunk });
        try {
          assert.deepEqual(rows(r), expected, `${order}, chunk ${chunk}`);
          assert.deepEqual(r.warnings, []);
        } finally {
          r.dispose();
        }
      }
    }
  } finally {
    reference.dispose();
  }
});

test('a bare trace with processes last, read in small chunks', async () => {
  const r = await runImporter(jaegerImporter, { text: JSON.stringify(trace(9, 12, 'processes-last')), name: 'bare.json', chunk: 5 });
  try {
    const got = rows(r);
    assert.equal(got.length, 12);
    assert.deepEqual(got.map((x) => JSON.parse(x.attrs_json)['service.name']).slice(0, 3), ['svc-9-0', 'svc-9-1', 'svc-9-2']);
    assert.deepEqual(got.map((x) => x.trace_id), Array(12).fill('0000000000000009'));
  } finally {
    r.dispose();
  }
});

test('a truncated or invalid Jaeger file fails with line and byte offset, and nothing of it is committed', async () => {
  const t = tempStore();
  try {
    // processes first: the first trace's spans go to the sink before the fault shows.
    const text = JSON.stringify({ data: [trace(1, 200, 'processes-first'), trace(2, 200, 'processes-first')] }, null, 2);
    assert.ok(Buffer.byteLength(text) > 65536);
    const cut = text.slice(0, Math.floor(text.length * 0.8));
    const badAt = text.lastIndexOf('"duration"');
    const bad = `${text.slice(0, badAt)}"duration": 0x${text.slice(badAt + '"duration": '.length)}`;
    // processes last: the bad span is held as text and parsed when processes comes, still placed right.
    const held = JSON.stringify({ data: [trace(1, 200, 'processes-last'), trace(2, 200, 'processes-last')] }, null, 2);
    const heldAt = held.lastIndexOf('"duration"');
    const heldBad = `${held.slice(0, heldAt)}"duration": 0x${held.slice(heldAt + '"duration": '.length)}`;
    writeFileSync(join(t.dir, 'cut.json'), cut);
    writeFileSync(join(t.dir, 'bad.json'), bad);
    writeFileSync(join(t.dir, 'held.json'), heldBad);
    const r = await importFiles(t.store, ['cut.json', 'bad.json', 'held.json'].map((f) => join(t.dir, f)), { importers: [jaegerImporter] });
    assert.deepEqual(r.sources.map((s) => s.status), ['failed', 'failed', 'failed']);
    const lines = (s: string) => s.split('\n').length;
    assert.match(r.sources[0].error!, new RegExp(`^cut\\.json \\(line ${lines(cut)}, byte ${Buffer.byteLength(cut)}\\): malformed JSON: the JSON ends early .* in data\\[1\\]\\.spans\\[\\d+\\]`));
    const prefix = bad.slice(0, badAt + '"duration": 0'.length);
    assert.match(r.sources[1].error!, new RegExp(`^bad\\.json \\(line ${lines(prefix)}, byte ${Buffer.byteLength(prefix)}\\): malformed JSON: .* \\(in data\\[1\\]\\.spans\\[199\\]\\)$`));
    const heldPrefix = heldBad.slice(0, heldAt + '"duration": 0'.length);
    assert.match(r.sources[2].error!, new RegExp(`^held\\.json \\(line ${lines(heldPrefix)}, byte ${Buffer.byteLength(heldPrefix)}\\): malformed JSON: .* \\(in data\\[1\\]\\.spans\\[199\\]\\)$`));
    assert.equal(storeSql(t.store).prepare('SELECT COUNT(*) FROM spans').pluck().get(), 0);
    assert.deepEqual(storeSql(t.store).prepare('SELECT path, status FROM sources ORDER BY id').raw().all(), [['cut.json', 'failed'], ['bad.json', 'failed'], ['held.json', 'failed']]);
  } finally {
    t.dispose();
  }
});
