import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { corpusFile, skipUnlessCorpus } from '../../helpers/corpus';
import { importFiles, tempStore } from '../../helpers/import-file';
import { kinetoImporter, usToNs } from '../../../node/engine/importers/kineto';
import { scanChromeTrace } from '../../../node/engine/importers/json-event-scanner';
import { detectImporter } from '../../../node/engine/importers/registry';
import { storeSql } from '../../helpers/store-sql';

const importers = [kinetoImporter];
const GPU_CATS = new Set(['kernel', 'gpu_memcpy', 'gpu_memset', 'Kernel', 'Memcpy', 'Memset']);

interface Ev { ph?: string; cat?: string; name?: string; ts?: number; dur?: number; args?: Record<string, unknown> }

/** The independent reading: the whole trace through JSON.parse. */
function parsed(rel: string): { traceEvents: Ev[]; distributedInfo?: { rank?: number } } {
  return JSON.parse(gunzipSync(readFileSync(corpusFile(rel)!)).toString('utf8'));
}

const TRACES = [
  'kineto_trace/hta_simple_add_a100_trace.json.gz',
  'kineto_trace/hta_alexnet_a100_trace.json.gz',
  'kineto_trace/hta_cuda_event_sync_trace.json.gz',
  'kineto_trace/hta_sampled_rank-0_nccl128.json.gz',
  'kineto_trace/hta_df_index_resolver_v100_profile_memory_WINDOW30ms.json.gz',
  'kineto_trace/kineto_tbplugin_resnet50_v100_2021.pt.trace.json.gz',
];

for (const rel of TRACES) {
  test(`corpus ${rel}: kernels and spans match a plain JSON.parse of the trace`, { skip: skipUnlessCorpus(rel) }, async () => {
    const doc = parsed(rel);
    const x = doc.traceEvents.filter((e) => e.ph === 'X');
    const gpu = x.filter((e) => GPU_CATS.has(e.cat ?? ''));
    const totalNs = gpu.reduce((a, e) => a + (usToNs(e.ts! + (e.dur ?? 0)) - usToNs(e.ts!)), 0n);
    const t = tempStore();
    try {
      const r = await importFiles(t.store, [corpusFile(rel)!], { importers });
      assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
      const db = storeSql(t.store);
      assert.equal(db.prepare('SELECT COUNT(*) FROM kernels').pluck().get(), gpu.length);
      assert.equal(db.prepare('SELECT SUM(end_ns - start_ns) FROM kernels').pluck().safeIntegers().get(), totalNs);
      assert.equal(db.prepare('SELECT COUNT(*) FROM spans').pluck().get(), x.length - gpu.length);
      // One kernel, exactly: the longest one's start and duration in ns.
      const longest = gpu.reduce((a, e) => ((e.dur ?? 0) > (a.dur ?? 0) ? e : a));
      const k = db.prepare('SELECT start_ns, end_ns - start_ns AS d FROM kernels ORDER BY end_ns - start_ns DESC, start_ns LIMIT 1').safeIntegers().get() as { start_ns: bigint; d: bigint };
      assert.equal(k.d, usToNs(longest.ts! + longest.dur!) - usToNs(longest.ts!));
      const rank = doc.distributedInfo?.rank ?? 0;
      assert.equal(db.prepare('SELECT COUNT(DISTINCT trace_id) FROM spans').pluck().get(), 1);
      assert.equal(db.prepare('SELECT trace_id FROM spans LIMIT 1').pluck().get(), `kineto:${rank}`);
    } finally {
      t.dispose();
    }
  });
}

test('corpus kernels link to their launching runtime call by correlation', { skip: skipUnlessCorpus(TRACES[2]) }, async () => {
  const t = tempStore();
  try {
    const r = await importFiles(t.store, [corpusFile(TRACES[2])!], { importers });
    assert.equal(r.sources[0].status, 'ok');
    const rows = storeSql(t.store)
      .prepare("SELECT k.correlation_id AS c, s.name AS call FROM kernels k JOIN spans s ON s.span_id = json_extract(k.attrs_json, '$.launch_span_id') ORDER BY k.start_ns")
      .all() as { c: number; call: string }[];
    const doc = parsed(TRACES[2]);
    const gpu = doc.traceEvents.filter((e) => e.ph === 'X' && GPU_CATS.has(e.cat ?? ''));
    assert.equal(rows.length, gpu.length);
    assert.ok(rows.every((x) => x.call.startsWith('cuda')), JSON.stringify(rows));
    const k = storeSql(t.store).prepare("SELECT attrs_json FROM kernels WHERE json_extract(attrs_json, '$.kind') = 'kernel' LIMIT 1").pluck().get() as string;
    const attrs = JSON.parse(k);
    assert.ok(Array.isArray(attrs.grid) && Array.isArray(attrs.block) && typeof attrs.registers_per_thread === 'number' && typeof attrs.occupancy_pct === 'number');
    assert.equal(storeSql(t.store).prepare("SELECT COUNT(*) FROM kernels WHERE json_extract(attrs_json, '$.kind') = 'memcpy'").pluck().get(), 1);
  } finally {
    t.dispose();
  }
});

const MEM = TRACES[4];
test('corpus [memory] events: allocations paired by address, torch.allocated/reserved series, gpu.mem.total', { skip: skipUnlessCorpus(MEM) }, async () => {
  const doc = parsed(MEM);
  const mem = doc.traceEvents.filter((e) => e.name === '[memory]' && e.args?.['Device Type'] === 1);
  const allocs = mem.filter((e) => (e.args!.Bytes as number) > 0).length;
  const last = mem.reduce((a, e) => (e.ts! >= a.ts! ? e : a));
  const t = tempStore();
  try {
    const r = await importFiles(t.store, [corpusFile(MEM)!], { importers });
    assert.equal(r.sources[0].status, 'ok');
    const db = storeSql(t.store);
    assert.equal(db.prepare("SELECT COUNT(*) FROM allocations WHERE alloc_ns IS NOT NULL AND source = 'kineto'").pluck().get(), allocs);
    const lastOf = (name: string) => db.prepare("SELECT value FROM samples WHERE series_id = (SELECT id FROM series WHERE name = ? AND labels_json = '{\"gpu\":\"1\"}') ORDER BY ts_ms DESC LIMIT 1").pluck().get(name);
    // One value a ms, the ms's peak: an allocation freed within the last ms is seen (the last event alone hid it).
    const lastMs = mem.filter((e) => e.args!['Device Id'] === 1 && Math.round(e.ts! / 1000) === Math.round(last.ts! / 1000));
    const peakOf = (k: string) => Math.max(...lastMs.map((e) => e.args![k] as number));
    assert.equal(lastOf('torch.allocated'), peakOf('Total Allocated'));
    assert.equal(lastOf('torch.reserved'), peakOf('Total Reserved'));
    const total = db.prepare("SELECT value FROM samples WHERE series_id = (SELECT id FROM series WHERE name = 'gpu.mem.total' AND labels_json = '{\"gpu\":\"1\"}') LIMIT 1").pluck().get();
    const props = (JSON.parse(gunzipSync(readFileSync(corpusFile(MEM)!)).toString()).deviceProperties as { id: number; totalGlobalMem: number }[]).find((d) => d.id === 1)!;
    assert.equal(total, props.totalGlobalMem);
  } finally {
    t.dispose();
  }
});

test('detects Kineto traces from the head', { skip: skipUnlessCorpus(TRACES[0]) }, () => {
  const head = gunzipSync(readFileSync(corpusFile(TRACES[0])!)).subarray(0, 65536);
  assert.equal(detectImporter(head, 'trace.json')?.format, 'kineto-json');
});

async function* chunks(buf: Buffer, size: number): AsyncIterable<Buffer> {
  for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
}

test('the scanner cuts the same events whatever the chunk size, escapes and nesting included', async () => {
  const events = [{ ph: 'X', name: 'a "quoted" }{ name\\', ts: 1, args: { nested: { x: [1, { y: '[' }] } } }, { ph: 'i', name: 'ü', ts: 2.5 }, { ph: 'M', name: '}' }];
  const text = Buffer.from(JSON.stringify({ schemaVersion: 1, deviceProperties: [{ id: 0, name: 'G,"x"}' }], traceEvents: events, baseTimeNanoseconds: 5, traceName: 't' }, null, 1));
  for (const size of [1, 2, 7, 64, 1 << 20]) {
    const got: unknown[] = [];
    const keys: Record<string, unknown> = {};
    for await (const it of scanChromeTrace(chunks(text, size), { batchBytes: 16 })) {
      if (it.kind === 'events') got.push(...it.events);
      else if (it.kind === 'key') keys[it.key] = it.value;
    }
    assert.deepEqual(got, events, `chunk ${size}`);
    assert.deepEqual(keys, { schemaVersion: 1, deviceProperties: [{ id: 0, name: 'G,"x"}' }], baseTimeNanoseconds: 5, traceName: 't' });
  }
});

test('relative timestamps are placed after baseTimeNanoseconds, which follows traceEvents', async () => {
  const t = tempStore();
  try {
    const base = 1_700_000_000_123_456_789n;
    const trace = { schemaVersion: 1, traceEvents: [{ ph: 'X', cat: 'kernel', name: 'k', pid: 0, tid: 7, ts: 10.5, dur: 2.25, args: { correlation: 3 } }], baseTimeNanoseconds: Number(base) };
    // JSON.stringify would round the base: write it as a literal.
    const text = JSON.stringify(trace).replace(/"baseTimeNanoseconds":\d+/, `"baseTimeNanoseconds":${base}`);
    const file = join(t.dir, 'rel.json');
    writeFileSync(file, text);
    const r = await importFiles(t.store, [file], { importers });
    assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
    const k = storeSql(t.store).prepare('SELECT start_ns, end_ns FROM kernels').safeIntegers().get() as { start_ns: bigint; end_ns: bigint };
    // Exact to the nanosecond: the base is read from its digits, not through a double.
    assert.equal(k.start_ns, base + 10_500n);
    assert.equal(k.end_ns, base + 12_750n);
  } finally {
    t.dispose();
  }
});

/** A source's id and its warnings as one text, by the path it was imported from. */
function sourceOf(store: Parameters<typeof storeSql>[0], path: string): { id: number; warnings: string } {
  const name = path.split('/').pop()!;
  const row = storeSql(store).prepare('SELECT id, warnings_json FROM sources WHERE path IN (?, ?) OR path LIKE ? ORDER BY id DESC').get(path, name, `%/${name}`) as { id: number; warnings_json: string };
  return { id: row.id, warnings: (JSON.parse(row.warnings_json) as string[]).join('\n') };
}

test('a trace cut off mid-write keeps the events written whole before the cut, warned with its byte offset', async () => {
  const t = tempStore();
  try {
    const kernel = (i: number) => ({ ph: 'X', cat: 'kernel', name: `k${i}`, pid: 0, tid: 7, ts: 1_700_000_000_000_000 + i * 10, dur: 5, args: { device: 0, stream: 7, correlation: i } });
    const whole = JSON.stringify({ schemaVersion: 1, traceEvents: Array.from({ length: 6 }, (_, i) => kernel(i)), deviceProperties: [{ id: 0, name: 'H100', totalGlobalMem: 85_000_000_000 }] });
    // Cut inside the fifth event (a profiler killed while writing), and after traceEvents inside deviceProperties.
    const inside = whole.slice(0, whole.indexOf('"k4"') + 2);
    const after = whole.slice(0, whole.indexOf('"H100"'));
    for (const [name, text, kernels, where] of [['cut.json', inside, 4, /ends inside traceEvents/], ['cut-after.json', after, 6, /after traceEvents.*every event was read/]] as const) {
      const file = join(t.dir, name);
      writeFileSync(file, text);
      const r = await importFiles(t.store, [file], { importers });
      assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
      const src = sourceOf(t.store, file);
      assert.match(src.warnings, where);
      assert.match(src.warnings, new RegExp(`byte ${text.length}`));
      assert.equal(storeSql(t.store).prepare('SELECT COUNT(*) FROM kernels WHERE source_id = ?').pluck().get(src.id), kernels);
    }
  } finally {
    t.dispose();
  }
});

test('a real trace cut in half: fewer kernels than the whole, none half-read, warned', { skip: skipUnlessCorpus(TRACES[2]) }, async () => {
  const t = tempStore();
  try {
    const full = gunzipSync(readFileSync(corpusFile(TRACES[2])!));
    const file = join(t.dir, 'cut.json');
    writeFileSync(file, full.subarray(0, Math.floor(full.length / 2)));
    const wholeFile = join(t.dir, 'whole.json');
    writeFileSync(wholeFile, full);
    const r = await importFiles(t.store, [file, wholeFile], { importers });
    assert.deepEqual(r.sources.map((s) => s.status), ['ok', 'ok']);
    assert.match(sourceOf(t.store, file).warnings, /cut\.json \(byte \d+, key traceEvents\): the trace ends inside traceEvents/);
    const count = (path: string) => storeSql(t.store).prepare('SELECT COUNT(*) FROM kernels WHERE source_id = ?').pluck().get(sourceOf(t.store, path).id) as number;
    const [cut, whole] = [count(file), count(wholeFile)];
    assert.ok(cut > 0 && cut < whole, `${cut} of ${whole}`);
  } finally {
    t.dispose();
  }
});

test('a malformed event fails naming its offset', async () => {
  const t = tempStore();
  try {
    const good = '{"ph":"X","cat":"cpu_op","name":"a","ts":1700000000000000,"dur":1}';
    const text = `{"traceEvents":[${good},{"ph":"X","ts":nope}]}`;
    const file = join(t.dir, 'bad.json');
    writeFileSync(file, text);
    const r = await importFiles(t.store, [file], { importers });
    assert.equal(r.sources[0].status, 'failed');
    assert.match(r.sources[0].error!, new RegExp(`bad\\.json \\(byte ${text.indexOf(',{"ph":"X","ts":nope') + 1}, key traceEvents\\): malformed trace event`));
  } finally {
    t.dispose();
  }
});

const variant = (name: string) => new URL(`../../samples/variants/${name}`, import.meta.url).pathname;

test('ns-precision epoch µs: kernel times and durations exact (a double lost the last digits), chunk size aside', async () => {
  const { runImporter } = await import('./run-importer');
  for (const chunk of [64 * 1024, 7, 1]) {
    const r = await runImporter(kinetoImporter, { file: variant('kineto-ns-precision.json'), chunk });
    try {
      assert.equal(r.error, null);
      const k = r.all<{ name: string; s: string; d: string }>('SELECT name, CAST(start_ns AS TEXT) s, CAST(end_ns - start_ns AS TEXT) d FROM kernels ORDER BY start_ns');
      assert.deepEqual(
        k.map((x) => [x.s, x.d]),
        [
          ['1737434455123456789', '12345'],
          ['1737434455123470001', '1000'],
          ['1737434455123480250', '3500'],
        ],
        `chunk ${chunk}`,
      );
      const call = r.all<{ s: string; d: string }>('SELECT CAST(start_ns AS TEXT) s, CAST(end_ns - start_ns AS TEXT) d FROM spans')[0];
      assert.deepEqual([call.s, call.d], ['1737434455123400101', '5119']);
    } finally {
      r.dispose();
    }
  }
});

test('a pre-Kineto profiler trace (bare array, relative µs, no base time): imported, ending at the mtime, warned', async () => {
  const { runImporter } = await import('./run-importer');
  const file = variant('torch-legacy-profiler-trace.json');
  assert.equal(detectImporter(readFileSync(file), 'trace.json')?.format, 'kineto-json');
  const mtime = Date.UTC(2025, 0, 21, 4, 40, 0);
  const r = await runImporter(kinetoImporter, { file, mtimeMs: mtime });
  try {
    assert.equal(r.error, null);
    const k = r.all<{ name: string; device: number; s: string; e: string }>('SELECT name, device, CAST(start_ns AS TEXT) s, CAST(end_ns AS TEXT) e FROM kernels');
    // The last event (aten::relu, 1900 + 15.5 µs) ends at the mtime; the kernel runs 330 → 1830.25 µs.
    const zero = BigInt(mtime) * 1_000_000n - 1_915_500n;
    assert.deepEqual(k, [{ name: 'volta_sgemm_128x64_nn', device: 0, s: String(zero + 330_000n), e: String(zero + 1_830_250n) }]);
    assert.equal(r.all<{ n: number }>('SELECT COUNT(*) n FROM spans')[0].n, 3);
    assert.equal(r.warnings.length, 1);
    assert.match(r.warnings[0], /relative to the profiler start .*: placed at the file's modification time/);
  } finally {
    r.dispose();
  }
});

test("a ROCm trace's own `kind` arg does not overwrite the kernel/memcpy kind", async () => {
  const { runImporter } = await import('./run-importer');
  const r = await runImporter(kinetoImporter, { file: variant('rocm-kernel-kind.json') });
  try {
    const k = r.all<{ attrs_json: string }>('SELECT attrs_json FROM kernels ORDER BY start_ns').map((x) => JSON.parse(x.attrs_json));
    assert.deepEqual(
      k.map((a) => [a.kind, a.arg_kind]),
      [
        ['kernel', 'Dispatch Kernel'],
        ['memcpy', 'CopyHostToDevice'],
      ],
    );
  } finally {
    r.dispose();
  }
});

test('exact times hold back a few hundred bytes at most: a number or a space run as long as the file streams through', async () => {
  const { exactTimes } = await import('../../../node/engine/importers/kineto');
  const chunk = 64 * 1024;
  for (const [what, body] of [
    ['digits', Buffer.alloc(4 * 2 ** 20, '1')],
    ['spaces before the colon', Buffer.alloc(4 * 2 ** 20, ' ')],
    ['spaces after the colon', Buffer.alloc(4 * 2 ** 20, ' ')],
  ] as const) {
    const head = Buffer.from(what === 'spaces before the colon' ? '{"traceEvents":[{"ts"' : what === 'digits' ? '{"traceEvents":[{"ts": 1.' : '{"traceEvents":[{"ts":');
    const whole = Buffer.concat([head, body, Buffer.from('5,"dur":1}]}')]);
    async function* chunks() {
      for (let at = 0; at < whole.length; at += chunk) yield whole.subarray(at, at + chunk);
    }
    let fed = 0;
    let out = 0;
    let held = 0;
    const gen = exactTimes(
      (async function* () {
        for await (const c of chunks()) {
          // Asked for more: what went in and has not come out is held back.
          held = Math.max(held, fed - out);
          fed += c.length;
          yield c;
        }
      })(),
    );
    const parts: Buffer[] = [];
    for await (const c of gen) {
      out += c.length;
      parts.push(c);
    }
    assert.ok(held < 1024, `${what}: ${held.toLocaleString('en-US')} bytes held back at once`);
    // Nothing quoted, nothing lost: the bytes pass as they were.
    assert.ok(Buffer.concat(parts).equals(whole), what);
  }
});

test('exact times quote the same numbers however the stream is cut: "ts" keys at any depth, not keys that end in ts', async () => {
  const { exactTimes } = await import('../../../node/engine/importers/kineto');
  const text =
    '{"traceEvents":[{"ts":1694039959123456.789,"dur":1},{"ts": 12.5},{"cats":1694039959123456.789,"ts":\n1694039959123457.5},' +
    '{"name":"a\\"ts\\": 1694039959123456.789","ts":1694039959123458.25,"args":{"ts":1694039959123459.125}}]}';
  const want =
    '{"traceEvents":[{"ts":"1694039959123456.789","dur":1},{"ts": 12.5},{"cats":1694039959123456.789,"ts":\n"1694039959123457.5"},' +
    '{"name":"a\\"ts\\": 1694039959123456.789","ts":"1694039959123458.25","args":{"ts":"1694039959123459.125"}}]}';
  const whole = Buffer.from(text);
  for (let size = 1; size <= 48; size++) {
    const parts: Buffer[] = [];
    for await (const c of exactTimes((async function* () {
      for (let at = 0; at < whole.length; at += size) yield whole.subarray(at, at + size);
    })()))
      parts.push(c);
    assert.equal(Buffer.concat(parts).toString(), want, `chunks of ${size}`);
  }
});

test('µs text to ns: exact to the ns, half up past it, the same on the char-code path and the general one', async () => {
  const { usTextToNs } = await import('../../../node/engine/importers/kineto');
  const cases: [string, bigint][] = [
    ['1694039959123456.789', 1694039959123456789n],
    ['1694039959123456.7895', 1694039959123456790n],
    ['1694039959123456.7894', 1694039959123456789n],
    ['1694039959123456.9995', 1694039959123457000n],
    ['1694039959123456.5', 1694039959123456500n],
    ['12.', 12000n],
    ['.5', 500n],
    ['00012.05', 12050n],
    // Past 2^53 whole µs: read through a double, as before.
    ['9007199254740993.5', 9007199254740994000n],
  ];
  for (const [text, ns] of cases) assert.equal(usTextToNs(text), ns, text);
});

test("libkineto's header members first: a distributedInfo too large for the head (traceEvents past it) is still a Kineto trace", () => {
  const groups = Array.from({ length: 32 }, (_, g) => ({ pg_name: String(g), backend_config: 'cuda:nccl', pg_size: 1024, ranks: Array.from({ length: 1024 }, (_, r) => r) }));
  const text = JSON.stringify({ schemaVersion: 1, distributedInfo: { backend: 'nccl', rank: 0, world_size: 1024, pg_count: 32, pg_config: groups }, traceEvents: [] });
  const head = Buffer.from(text).subarray(0, 65536);
  assert.equal(head.includes('"traceEvents"'), false);
  assert.equal(detectImporter(head, 'rank0.json')?.format, 'kineto-json');
  // Another JSON document with neither is not claimed.
  assert.equal(detectImporter(Buffer.from('{"data": {"items": [1, 2, 3]}}'), 'x.json'), null);
});

test('[memory] events inside one ms: the ms keeps its peak (a spike allocated and freed within it was lost)', async () => {
  const t0 = 1700000000000000; // µs, a whole ms
  const mem = (us: number, addr: number, bytes: number, allocated: number) => ({
    ph: 'i', cat: 'cpu_instant_event', name: '[memory]', pid: 1, tid: 1, s: 't', ts: t0 + us,
    args: { 'Device Type': 1, 'Device Id': 0, Addr: addr, Bytes: bytes, 'Total Allocated': allocated, 'Total Reserved': 1024 * 2 ** 20 },
  });
  const doc = { schemaVersion: 1, traceEvents: [mem(0, 1, 2 ** 20, 2 ** 20), mem(50, 2, 512 * 2 ** 20, 513 * 2 ** 20), mem(100, 2, -512 * 2 ** 20, 2 ** 20), mem(1200, 3, 2 * 2 ** 20, 3 * 2 ** 20)] };
  const t = tempStore();
  try {
    const file = join(t.dir, 'spike.json');
    writeFileSync(file, JSON.stringify(doc));
    const r = await importFiles(t.store, [file], { importers });
    assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
    const rows = storeSql(t.store).prepare("SELECT ts_ms, value FROM samples WHERE series_id = (SELECT id FROM series WHERE name = 'torch.allocated') ORDER BY ts_ms").all();
    assert.deepEqual(rows, [
      { ts_ms: t0 / 1000, value: 513 * 2 ** 20 },
      { ts_ms: t0 / 1000 + 1, value: 3 * 2 ** 20 },
    ]);
  } finally {
    t.dispose();
  }
});

test("Chrome's B/E duration events: paired per pid and tid as a stack into spans (exact to the ns), the halves without a pair said", async () => {
  const doc = {
    traceEvents: [
      { ph: 'B', cat: 'user_annotation', name: 'generate', pid: 1, tid: 1, ts: 1700000000000000.5, args: { a: 1 } },
      { ph: 'B', cat: 'user_annotation', name: 'decode', pid: 1, tid: 1, ts: 1700000000000010 },
      { ph: 'B', cat: 'user_annotation', name: 'other thread', pid: 1, tid: 2, ts: 1700000000000020 },
      { ph: 'E', pid: 1, tid: 1, ts: 1700000000000050 },
      { ph: 'E', pid: 1, tid: 2, ts: 1700000000000060, args: { b: 2 } },
      { ph: 'E', pid: 1, tid: 1, ts: 1700000000000100.25 },
      { ph: 'E', pid: 1, tid: 3, ts: 1700000000000100 },
      { ph: 'B', cat: 'user_annotation', name: 'never closed', pid: 1, tid: 1, ts: 1700000000000200 },
    ],
  };
  const t = tempStore();
  try {
    const file = join(t.dir, 'chrome.json');
    writeFileSync(file, JSON.stringify(doc));
    const r = await importFiles(t.store, [file], { importers });
    assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
    const rows = storeSql(t.store).prepare('SELECT name, start_ns, end_ns, attrs_json FROM spans ORDER BY start_ns').safeIntegers().all() as { name: string; start_ns: bigint; end_ns: bigint; attrs_json: string }[];
    assert.deepEqual(
      rows.map((x) => [x.name, x.end_ns - x.start_ns]),
      [
        // (.25 is written .2 by JSON.stringify: the shortest text that reads back as the same double)
        ['generate', 99_700n],
        ['decode', 40_000n],
        ['other thread', 40_000n],
      ],
    );
    assert.equal(rows[0].start_ns, 1700000000000000500n);
    assert.equal(JSON.parse(rows[2].attrs_json).b, 2);
    const warnings = JSON.parse(storeSql(t.store).prepare('SELECT warnings_json FROM sources').pluck().get() as string) as string[];
    assert.ok(warnings.some((w) => /2 duration event halves \(B\/E\) found no other half/.test(w)), warnings.join('\n'));
  } finally {
    t.dispose();
  }
});

test('B/E halves with a time that is no time (1e400) pair with nothing and fail nothing (the fuzzer found a BigInt of Infinity)', async () => {
  const text = '{"traceEvents": [{"ph": "B", "name": "a", "pid": 1, "tid": 9, "ts": 1700000000000000}, {"ph": "E", "pid": 1, "tid": 9, "ts": 1e400}, {"ph": "B", "name": "b", "pid": 1, "tid": 8, "ts": 1e400}, {"ph": "X", "cat": "cpu_op", "name": "ok", "pid": 1, "tid": 1, "ts": 1700000000000000, "dur": 1}]}';
  const t = tempStore();
  try {
    const file = join(t.dir, 'huge.json');
    writeFileSync(file, text);
    const r = await importFiles(t.store, [file], { importers });
    assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
    assert.deepEqual(storeSql(t.store).prepare('SELECT name FROM spans').pluck().all(), ['ok']);
    const warnings = storeSql(t.store).prepare('SELECT warnings_json FROM sources').pluck().get() as string;
    assert.match(warnings, /3 duration event halves \(B\/E\) found no other half/);
  } finally {
    t.dispose();
  }
});

test('review: a JSON document that opens with schemaVersion alone (an OCI image manifest) is not a Kineto trace', () => {
  const manifest = JSON.stringify({ schemaVersion: 2, mediaType: 'application/vnd.oci.image.manifest.v1+json', config: { digest: 'sha256:0', size: 1 }, layers: [] });
  assert.equal(detectImporter(Buffer.from(manifest), 'index.json'), null);
});

test("[memory] events of a ROCm build's HIP device (Device Type 6) are the GPU's; the CPU's (0) are not", async () => {
  const { runImporter } = await import('./run-importer');
  const T = 1_700_000_000_000_000;
  const mem = (i: number, type: number, bytes: number, total: number) => ({ ph: 'i', s: 't', cat: 'cpu_instant_event', name: '[memory]', pid: 1, tid: 1, ts: T + i * 1000, args: { 'Total Reserved': total * 2, 'Total Allocated': total, Bytes: bytes, Addr: 0x7f0000 + (i % 2) * 0x1000, 'Device Type': type, 'Device Id': 0 } });
  const text = JSON.stringify({ schemaVersion: 1, traceEvents: [mem(0, 6, 512, 512), mem(1, 0, 64, 64), mem(2, 6, -512, 0)] });
  const r = await runImporter(kinetoImporter, { text, name: 'rocm.json' });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(r.all('SELECT device, size, alloc_ns IS NOT NULL AS a, free_ns IS NOT NULL AS f FROM allocations'), [{ device: 0, size: 512, a: 1, f: 1 }]);
    assert.deepEqual(r.all("SELECT s.name, COUNT(*) AS n, MAX(v.value) AS peak FROM series s JOIN samples v ON v.series_id = s.id WHERE s.name = 'torch.allocated' GROUP BY s.id"), [{ name: 'torch.allocated', n: 2, peak: 512 }]);
  } finally {
    r.dispose();
  }
});

test("[memory] events of an older profiler (Bytes only, no Addr, no totals) make no allocator series: no empty torch.allocated beside its warning", async () => {
  const { runImporter } = await import('./run-importer');
  const T = 1_623_213_129_365_000;
  const mem = (i: number, bytes: number) => ({ ph: 'i', s: 't', cat: 'memory', name: '[memory]', pid: 1, tid: 1, ts: T + i * 1000, args: { 'Device Type': 1, 'Device Id': 0, Bytes: bytes } });
  const r = await runImporter(kinetoImporter, { text: JSON.stringify({ schemaVersion: 1, traceEvents: [mem(0, 19_267_584), mem(1, -19_267_584)] }), name: 'old.json' });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(r.all("SELECT name FROM series WHERE name LIKE 'torch.%'"), []);
    assert.match(r.warnings.join('\n'), /2 CUDA \[memory\] events carry no Addr/);
  } finally {
    r.dispose();
  }
});

test('a torch 2.0–2.1 trace whose launches carry their correlation id as External id: no launch tied to an unrelated op, said once; in a current trace only a launch whose ids agree by chance goes unlinked, unsaid', async () => {
  const { runImporter } = await import('./run-importer');
  const T = 1_700_000_000_000_000;
  const op = (ext: number, ts: number) => ({ ph: 'X', cat: 'cpu_op', name: `aten::op${ext}`, pid: 1, tid: 1, ts: T + ts, dur: 50, args: { 'External id': ext } });
  const call = (ext: number, corr: number, ts: number) => ({ ph: 'X', cat: 'cuda_runtime', name: 'cudaLaunchKernel', pid: 1, tid: 1, ts: T + ts + 1, dur: 5, args: { 'External id': ext, correlation: corr } });
  const kernel = (ext: number, corr: number, ts: number) => ({ ph: 'X', cat: 'kernel', name: `k${corr}`, pid: 0, tid: 7, ts: T + ts + 10, dur: 5, args: { 'External id': ext, correlation: corr, device: 0, stream: 7 } });
  // Ops count 1…3; launches 7…9 each claim their own correlation as External id (the op 7… does not exist or is another).
  const old = [op(1, 0), op(2, 100), op(3, 200), ...[7, 8, 9].flatMap((c, i) => [call(c, c, i * 100), kernel(c, c, i * 100)])];
  let r = await runImporter(kinetoImporter, { text: JSON.stringify({ traceEvents: old }), name: 'old.json' });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(r.all("SELECT COUNT(*) AS n FROM kernels WHERE json_extract(attrs_json, '$.op_span_id') IS NOT NULL"), [{ n: 0 }]);
    assert.deepEqual(r.all("SELECT COUNT(*) AS n FROM spans WHERE parent_id IS NOT NULL"), [{ n: 0 }]);
    assert.match(r.warnings.join('\n'), /6 of 6 kernels and runtime calls carry their correlation id as their External id/);
  } finally {
    r.dispose();
  }
  // A current trace: ops 1…3 launch correlations 1, 5, 6 — the first pair agrees by chance (its link is lost:
  // one launch cannot tell chance from a torch 2.0 trace), the others link.
  const current = [op(1, 0), op(2, 100), op(3, 200), call(1, 1, 0), kernel(1, 1, 0), call(2, 5, 100), kernel(2, 5, 100), call(3, 6, 200), kernel(3, 6, 200)];
  r = await runImporter(kinetoImporter, { text: JSON.stringify({ traceEvents: current }), name: 'new.json' });
  try {
    assert.deepEqual(r.all("SELECT json_extract(attrs_json, '$.op_span_id') AS op FROM kernels ORDER BY start_ns").map((x) => x.op), [null, 'op2', 'op3']);
    assert.deepEqual(r.warnings, []);
  } finally {
    r.dispose();
  }
});

test('a top-level key with a control character fails naming its byte (the fuzzer found it unplaced)', async () => {
  const t = tempStore();
  try {
    const file = join(t.dir, 'badkey.json');
    writeFileSync(file, '{"schemaVersion":1,"trace\u0001Name":"x","traceEvents":[]}');
    const r = await importFiles(t.store, [file], { importers });
    assert.equal(r.sources[0].status, 'failed');
    assert.match(r.sources[0].error!, /badkey\.json \(byte 19\): malformed key: Bad control character in string literal$/);
  } finally {
    t.dispose();
  }
});
