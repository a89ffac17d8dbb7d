import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { corpusFile, skipUnlessCorpus } from '../../helpers/corpus';
import { importFiles, tempStore } from '../../helpers/import-file';
import { memorySnapshotImporter } from '../../../node/engine/importers/memory-snapshot';
import { detectImporter } from '../../../node/engine/importers/registry';
import { pickle, rawOp, tuple, type PickleValue } from '../../../fixtures/lib/pickle-writer';
import { storeSql } from '../../helpers/store-sql';

const importers = [memorySnapshotImporter];
const count = (t: ReturnType<typeof tempStore>, sql: string, ...p: unknown[]) => storeSql(t.store).prepare(sql).pluck().get(...p) as number;
const liveAtEnd = (t: ReturnType<typeof tempStore>, inc: number) => t.store.allocationSites(inc, undefined, 10_000).reduce((a, s) => a + s.live_bytes, 0);
const lastValue = (t: ReturnType<typeof tempStore>, name: string) =>
  storeSql(t.store).prepare('SELECT value FROM samples WHERE series_id = (SELECT id FROM series WHERE name = ?) ORDER BY ts_ms DESC LIMIT 1').pluck().get(name) as number;

// Facts read from the files with Python's pickle (segments, trace entries, allocations, live bytes).
const CORPUS = [
  { file: 'pytorch_memory_snapshot/mlsys_profile_grad.pickle', segments: 7, entries: 33, allocations: 12, live: 3233754432, reserved: 4439670784 },
  { file: 'pytorch_memory_snapshot/eor_nn_snapshot.pickle', segments: 10, entries: 5803, allocations: 1966, live: 48748928, reserved: 134217728 },
  { file: 'pytorch_memory_snapshot/mlsys_profile_no_grad.pickle', segments: 7, entries: 33, allocations: 12, live: 3233754432, reserved: 4439670784 },
];

for (const c of CORPUS) {
  test(`corpus ${c.file}: allocations, live bytes at the end, reserved`, { skip: skipUnlessCorpus(c.file) }, async () => {
    const t = tempStore();
    try {
      const r = await importFiles(t.store, [corpusFile(c.file)!], { importers });
      assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
      assert.equal(r.sources[0].format, 'torch-memory-snapshot');
      assert.equal(count(t, 'SELECT COUNT(*) FROM allocations WHERE incident_id = ?', r.incident_id), c.allocations);
      assert.equal(liveAtEnd(t, r.incident_id), c.live);
      assert.equal(lastValue(t, 'torch.allocated'), c.live);
      assert.equal(lastValue(t, 'torch.reserved'), c.reserved);
      // Every allocation's stack is the C++/Python frames, innermost first.
      const site = t.store.allocationSites(r.incident_id)[0];
      assert.equal(site.frames[0], 'torch::unwind::unwind()');
    } finally {
      t.dispose();
    }
  });
}

test('detects snapshots from the head only', { skip: skipUnlessCorpus(CORPUS[0].file) }, async () => {
  const { readFileSync } = await import('node:fs');
  const head = readFileSync(corpusFile(CORPUS[0].file)!).subarray(0, 65536);
  assert.equal(detectImporter(head, 'x.pickle')?.format, 'torch-memory-snapshot');
});

const frame = (filename: string, line: number, name: string) => ({ filename, line, name });

function snapshot(): PickleValue {
  const stackA = [frame('alloc.py', 10, 'make_a'), frame('train.py', 5, 'step')];
  const stackB = [frame('??', 0, 'c10::alloc'), frame('cache.py', 42, 'grow')];
  const T = 1_700_000_000_000_000; // epoch µs
  const entry = (action: string, addr: number | bigint, size: number, dt: number, frames: PickleValue = []) => ({ action, addr, size, stream: 0, time_us: T + dt, frames });
  const big = 2n ** 60n; // an address above 2^53
  return {
    segments: [
      { device: 0, address: 0x1000, total_size: 4096, allocated_size: 1024, active_size: 1024, requested_size: 1000, stream: 0, segment_type: 'small', segment_pool_id: tuple(0, 0), is_expandable: false, frames: [],
        blocks: [
          { address: 0x1000, size: 1024, requested_size: 1000, state: 'active_allocated', frames: stackA },
          { address: 0x1400, size: 3072, requested_size: 3072, state: 'inactive', frames: [] },
        ] },
      { device: 0, address: 0x9000, total_size: 2048, allocated_size: 512, active_size: 512, requested_size: 512, stream: 0, segment_type: 'small', segment_pool_id: tuple(0, 0), is_expandable: false, frames: [],
        blocks: [{ address: 0x9000, size: 512, requested_size: 500, state: 'active_allocated', frames: stackB }] },
    ],
    device_traces: [[
      entry('segment_alloc', 0x1000, 4096, 0),
      entry('alloc', 0x1000, 1000, 1, stackA),
      entry('alloc', big, 300, 2, stackB),
      entry('free_requested', big, 300, 3, stackB),
      entry('free_completed', big, 300, 4, stackB),
      entry('alloc', big, 200, 5, stackB), // the same address again: a second version
      entry('free_requested', big, 200, 6, stackB), // never completed
      entry('free_completed', 0x7000, 64, 7), // allocated before the trace began
      { action: 'oom', device_free: 1234, size: 99999, stream: 0, time_us: T + 8, frames: [] },
      entry('snapshot', 0, 0, 9),
    ]],
  };
}

test('synthetic snapshot: pairing, versioned addresses, pre-trace blocks, oom, replayed series', async () => {
  const t = tempStore();
  try {
    const file = join(t.dir, 'snap.pickle');
    writeFileSync(file, pickle(snapshot()));
    const r = await importFiles(t.store, [file], { importers });
    assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
    const rows = storeSql(t.store).prepare('SELECT addr, size, alloc_ns, free_ns, stack_id FROM allocations ORDER BY alloc_ns IS NULL, alloc_ns, free_ns').safeIntegers().all() as { addr: string; size: bigint; alloc_ns: bigint | null; free_ns: bigint | null }[];
    const T = 1_700_000_000_000_000n * 1000n;
    const big = `0x${(2n ** 60n).toString(16)}`;
    const byAddr = (a: string) => rows.filter((x) => x.addr === a);
    // Two versions of the big address: completed free, then free_requested only.
    assert.deepEqual(byAddr(big).map((x) => [x.size, x.alloc_ns! - T, x.free_ns! - T]), [[300n, 2000n, 4000n], [200n, 5000n, 6000n]]);
    // Freed before the trace knew it.
    assert.deepEqual(byAddr('0x7000').map((x) => [x.size, x.alloc_ns, x.free_ns! - T]), [[64n, null, 7000n]]);
    // Alive at the end from the trace (0x1000) and from a block only (0x9000, requested size).
    assert.deepEqual(byAddr('0x1000').map((x) => [x.size, x.alloc_ns! - T, x.free_ns]), [[1000n, 1000n, null]]);
    assert.deepEqual(byAddr('0x9000').map((x) => [x.size, x.alloc_ns, x.free_ns]), [[500n, null, null]]);
    assert.equal(rows.length, 5);
    const sites = t.store.allocationSites(r.incident_id);
    assert.deepEqual(sites.map((s) => [s.frames, s.live_bytes]), [[['alloc.py:10 make_a', 'train.py:5 step'], 1000], [['c10::alloc', 'cache.py:42 grow'], 500]]);
    const oom = t.store.queryEvents({ incident_id: r.incident_id, kinds: ['oom'] }).rows;
    assert.equal(oom.length, 1);
    assert.equal(oom[0].attrs.device_free, 1234);
    assert.equal(oom[0].attrs.size, 99999);
    assert.equal(lastValue(t, 'torch.allocated'), 1500);
    assert.equal(lastValue(t, 'torch.reserved'), 6144);
  } finally {
    t.dispose();
  }
});

test('a pickle with a forbidden opcode fails with the opcode and offset, and imports nothing', async () => {
  const t = tempStore();
  try {
    const bad = pickle({ segments: [], device_traces: [[{ action: 'alloc', addr: rawOp([0x63, ...Buffer.from('builtins\neval\n')]) }]] });
    const file = join(t.dir, 'evil.pickle');
    writeFileSync(file, bad);
    const r = await importFiles(t.store, [file], { importers });
    assert.equal(r.sources[0].status, 'failed');
    assert.match(r.sources[0].error!, new RegExp(`evil\\.pickle \\(byte ${bad.lastIndexOf(0x63)}\\): refused opcode GLOBAL`));
    assert.equal(count(t, 'SELECT COUNT(*) FROM allocations'), 0);
    assert.equal(count(t, 'SELECT COUNT(*) FROM series'), 0);
  } finally {
    t.dispose();
  }
});

test('a pickle that is not a snapshot fails naming the key', async () => {
  const t = tempStore();
  try {
    const file = join(t.dir, 'other.pickle');
    writeFileSync(file, pickle({ segments: 5, device_traces: [] }));
    const r = await importFiles(t.store, [file], { importers });
    assert.equal(r.sources[0].status, 'failed');
    assert.match(r.sources[0].error!, /key segments/);
  } finally {
    t.dispose();
  }
});

const variant = (name: string) => new URL(`../../samples/variants/${name}`, import.meta.url).pathname;

test('torch ~2.1 snapshot without time_us: entries in order, 1 µs apart, ending at the mtime, warned (they were at 1970)', async () => {
  const { runImporter } = await import('./run-importer');
  const mtime = Date.UTC(2025, 0, 21, 4, 40);
  const r = await runImporter(memorySnapshotImporter, { file: variant('memory-snapshot-torch21-no-time.pickle'), mtimeMs: mtime });
  try {
    assert.equal(r.error, null);
    const end = BigInt(mtime) * 1_000_000n;
    const rows = r.all<{ addr: string; size: number; a: string | null; f: string | null }>('SELECT addr, size, CAST(alloc_ns AS TEXT) a, CAST(free_ns AS TEXT) f FROM allocations ORDER BY alloc_ns');
    assert.deepEqual(rows, [
      { addr: '0x7f0000000000', size: 1000000, a: String(end - 3000n), f: null },
      { addr: '0x7f0000100000', size: 500000, a: String(end - 2000n), f: String(end) },
    ]);
    assert.ok(r.all<{ t: number }>('SELECT MIN(ts_ms) t FROM samples')[0].t > Date.UTC(2025, 0, 1));
    assert.equal(r.warnings.length, 1);
    assert.match(r.warnings[0], /carry no time_us .*placed at the file's modification time, 2025-01-21T04:40:00\.000Z/);
  } finally {
    r.dispose();
  }
});

test("torch 2.0 snapshot, segments only: block addresses from the segment's, totals at dump time, warned", async () => {
  const { runImporter } = await import('./run-importer');
  const mtime = Date.UTC(2025, 0, 21, 4, 40);
  const r = await runImporter(memorySnapshotImporter, { file: variant('memory-snapshot-torch20-segments-only.pickle'), mtimeMs: mtime });
  try {
    assert.equal(r.error, null);
    const rows = r.all<{ addr: string; size: number; stack_id: number | null }>('SELECT addr, size, stack_id FROM allocations ORDER BY addr');
    // Active blocks at segment + offset (they were all 0x0), their frames from their history.
    assert.deepEqual(rows.map((x) => [x.addr, x.size, x.stack_id !== null]), [
      ['0x7f1000000000', 4194304, true],
      ['0x7f1000600000', 2097152, true],
    ]);
    const series = r.all<{ name: string; gpu: string; ts: number; v: number }>("SELECT r.name, json_extract(r.labels_json, '$.gpu') gpu, s.ts_ms ts, s.value v FROM series r JOIN samples s ON s.series_id = r.id ORDER BY r.name, gpu");
    assert.deepEqual(series, [
      { name: 'torch.allocated', gpu: '0', ts: mtime, v: 6291456 },
      { name: 'torch.allocated', gpu: '1', ts: mtime, v: 0 },
      { name: 'torch.reserved', gpu: '0', ts: mtime, v: 20971520 },
      { name: 'torch.reserved', gpu: '1', ts: mtime, v: 2097152 },
    ]);
    assert.equal(r.warnings.length, 2);
    assert.match(r.warnings.join('\n'), /no trace \(segments only\).*placed at the file's modification time/);
    assert.match(r.warnings.join('\n'), /5 blocks carry no address/);
  } finally {
    r.dispose();
  }
});

test('a trace read as it is unpickled gives the rows and warnings it gives when read whole', async () => {
  const { runImporter } = await import('./run-importer');
  const { float } = await import('../../../fixtures/lib/pickle-writer');
  const T = 1_700_000_000_000_000;
  const stacks = [[frame('a.py', 1, 'f')], [frame('b.py', 2, 'g'), frame('??', 0, 'c10::x')]];
  const actions = ['alloc', 'alloc', 'free_requested', 'free_completed', 'free', 'segment_alloc', 'segment_unmap', 'snapshot', 'alloc'];
  // 2,001 entries (two APPENDS of 1,000 and a last APPEND of one), every action, addresses past
  // 2^53 and as text, a non-dict item, an oom, entries without a time, one whose time is no time.
  const trace = (timed: boolean): PickleValue[] => {
    const out: PickleValue[] = [];
    for (let i = 0; i < 2000; i++) {
      const addr = i % 97 === 0 ? 2n ** 60n + BigInt(i % 5) : i % 89 === 0 ? `0x${(0x5000 + (i % 7)).toString(16)}` : 0x7f00_0000_0000 + (i % 13) * 0x1000;
      const e: { [k: string]: PickleValue } = { action: actions[i % actions.length], addr, size: 512 * (1 + (i % 11)), stream: 0, frames: stacks[i % 2] };
      if (timed && i % 50 !== 7) e.time_us = i === 1234 ? float(1e308) : T + i * 1000;
      out.push(i === 1500 ? 'not an entry' : i === 1900 ? { action: 'oom', device_free: 77, size: 4096, stream: 0, time_us: T + i * 1000, frames: [] } : e);
    }
    out.push({ action: 'alloc', addr: 0x1234, size: 64, stream: 0, time_us: T + 3_000_000, frames: stacks[0] });
    return out;
  };
  const tables = async (body: PickleValue) => {
    const r = await runImporter(memorySnapshotImporter, { text: pickle(body), name: 'snap.pickle', mtimeMs: Date.UTC(2025, 0, 21) });
    try {
      assert.equal(r.error, null, String(r.error));
      return {
        allocations: r.all('SELECT device, addr, size, CAST(alloc_ns AS TEXT) a, CAST(free_ns AS TEXT) f, stack_id FROM allocations ORDER BY rowid'),
        samples: r.all('SELECT r.name, s.ts_ms, s.value FROM samples s JOIN series r ON r.id = s.series_id ORDER BY r.name, s.ts_ms'),
        events: r.all('SELECT ts_ms, kind, text, attrs_json FROM events ORDER BY id'),
        stacks: r.all('SELECT frames_json FROM stacks ORDER BY id'),
        warnings: r.warnings,
      };
    } finally {
      r.dispose();
    }
  };
  const segments = [{ device: 0, address: 0x7f00_0000_0000, total_size: 1 << 20, blocks: [{ address: 0x7f00_0000_0000, size: 512, requested_size: 512, state: 'active_allocated', frames: stacks[0] }] }];
  for (const timed of [true, false]) {
    const list = trace(timed);
    const copies = structuredClone(list.slice(0, 3));
    // A list arrives in APPENDS batches and is read as it comes; a tuple arrives whole (TUPLE opcode).
    const whole = await tables({ segments, device_traces: [tuple(...list), tuple(), tuple(...copies)] });
    const asRead = await tables({ segments, device_traces: [list, [], copies] });
    assert.ok((asRead.allocations as unknown[]).length > 500 && (asRead.samples as unknown[]).length > (timed ? 1000 : 1), `the trace wrote rows: ${(asRead.allocations as unknown[]).length} allocations, ${(asRead.samples as unknown[]).length} samples`);
    assert.deepEqual(asRead, whole);
    // Entries the pickle refers to twice (memoised: the same dicts in two traces) are read again, whole.
    assert.deepEqual(await tables({ segments, device_traces: [list, [], list.slice(0, 3)] }), whole);
  }
  // Entry-like dicts (a text `action`) in a list that is no device trace: the list is not left emptied (its
  // blocks would be lost); the pickle is read again, whole.
  const blocks = (b: PickleValue) => [{ ...segments[0], blocks: b }];
  const actionBlocks = [0, 1].map((k) => ({ action: 'kept', address: 0x7f00_0000_0000 + k * 512, size: 512, requested_size: 500, state: 'active_allocated', frames: stacks[k] }));
  const inList = await tables({ segments: blocks(actionBlocks), device_traces: [trace(true)] });
  assert.deepEqual(inList, await tables({ segments: blocks(tuple(...actionBlocks)), device_traces: [tuple(...trace(true))] }));
  assert.equal((inList.allocations as { a: string | null }[]).filter((x) => x.a === null).length >= 2, true, 'the blocks were read');
});

test('a free still pending at dump time is one open allocation, counted once; every device shares the dump time', async () => {
  const T = 1_750_000_000_000_000; // µs
  const frames = [{ filename: 'train.py', line: 5, name: 'step' }];
  const block = (address: number, state: string) => ({ address, size: 1 << 20, requested_size: 1 << 20, state, frames });
  const body = {
    segments: [
      // Device 0: history recorded after these were made; one block's free is pending on another stream.
      { device: 0, address: 0x7f0000000000, total_size: 4 << 20, stream: 0, segment_type: 'large', blocks: [block(0x7f0000000000, 'active_allocated'), block(0x7f0000100000, 'active_pending_free'), { address: 0x7f0000200000, size: 2 << 20, state: 'inactive' }] },
      // Device 1: segments and no trace at all.
      { device: 1, address: 0x7e0000000000, total_size: 2 << 20, stream: 0, segment_type: 'large', blocks: [block(0x7e0000000000, 'active_allocated')] },
    ],
    device_traces: [
      [
        { action: 'alloc', addr: 0x7f0000100000, size: 1 << 20, stream: 0, time_us: T + 3000, frames },
        { action: 'free_requested', addr: 0x7f0000100000, size: 1 << 20, stream: 0, time_us: T + 4000, frames },
        { action: 'alloc', addr: 0x7f0000200000, size: 1 << 20, stream: 0, time_us: T + 5000, frames },
        { action: 'free_completed', addr: 0x7f0000200000, size: 1 << 20, stream: 0, time_us: T + 9000, frames },
      ],
      [],
    ],
  };
  const t = tempStore();
  try {
    const file = join(t.dir, 'snap.pickle');
    writeFileSync(file, pickle(body));
    const r = await importFiles(t.store, [file], { importers });
    assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
    const db = storeSql(t.store);
    const rows = db.prepare('SELECT device, addr, alloc_ns, free_ns FROM allocations ORDER BY device, addr').all() as { device: number; addr: string; alloc_ns: number | null; free_ns: number | null }[];
    assert.deepEqual(
      rows.map((x) => [x.device, x.addr, x.alloc_ns === null ? null : x.alloc_ns / 1e6 - T / 1000, x.free_ns === null ? null : x.free_ns / 1e6 - T / 1000]),
      [
        [0, '0x7f0000000000', null, null],
        [0, '0x7f0000100000', 3, null],
        [0, '0x7f0000200000', 5, 9],
        [1, '0x7e0000000000', null, null],
      ],
    );
    const series = (name: string, gpu: string) => db.prepare('SELECT ts_ms, value FROM samples WHERE series_id = (SELECT id FROM series WHERE name = ? AND labels_json = ?) ORDER BY ts_ms').all(name, `{"gpu":"${gpu}"}`) as { ts_ms: number; value: number }[];
    const ms = T / 1000;
    // Never above what the segments held: 1 MiB before the trace, 2 with the pending one, 3 while the other lived.
    assert.deepEqual(series('torch.allocated', '0').map((x) => [x.ts_ms - ms, x.value / 2 ** 20]), [[3, 2], [5, 3], [9, 2]]);
    // No segment event in the trace: no reserved series (a flat one from the trace's start would read the
    // cache's headroom as fragmentation and hide a leak growing inside the cache).
    assert.deepEqual(series('torch.reserved', '0'), []);
    // What the segments held at the dump is said instead (4 MiB reserved beside 2 MiB allocated).
    assert.match(db.prepare('SELECT warnings_json FROM sources').pluck().get() as string, /GPU 0: the trace records no segment changes, so torch\.reserved is not drawn; at the dump its segments held 4\.00 MiB reserved beside 2\.00 MiB allocated/);
    // Device 1 has no trace: its totals at the dump time of device 0's trace, not at the file's mtime, and no "segments only" warning.
    assert.deepEqual(series('torch.reserved', '1').map((x) => [x.ts_ms - ms, x.value / 2 ** 20]), [[9, 2]]);
    assert.doesNotMatch(db.prepare('SELECT warnings_json FROM sources').pluck().get() as string, /no trace/);
  } finally {
    t.dispose();
  }
});

test("an oom trace entry's frames: its stack, and the Python frame that asked in the event's text", async () => {
  const T = 1_750_000_000_000_000;
  const frames = [
    { filename: '??', line: 0, name: 'c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc' },
    { filename: '/app/model.py', line: 42, name: 'forward' },
    { filename: '/app/train.py', line: 7, name: 'step' },
  ];
  const body = { segments: [], device_traces: [[{ action: 'oom', addr: 1234, device_free: 1234, size: 4 * 2 ** 30, stream: 0, time_us: T, frames }]] };
  const t = tempStore();
  try {
    const file = join(t.dir, 'oom.pickle');
    writeFileSync(file, pickle(body));
    const r = await importFiles(t.store, [file], { importers });
    assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
    const [oom] = t.store.queryEvents({ incident_id: r.incident_id, kinds: ['oom'] }).rows;
    assert.match(oom.text, /tried to allocate 4096\.00 MiB with 0\.00 MiB free, at \/app\/model\.py:42 forward$/);
    const stack = storeSql(t.store).prepare('SELECT frames_json FROM stacks WHERE id = ?').pluck().get(oom.attrs.stack_id) as string;
    assert.deepEqual(JSON.parse(stack).slice(1), ['/app/model.py:42 forward', '/app/train.py:7 step']);
  } finally {
    t.dispose();
  }
});

test('a snapshot taken at an OOM whose trace is its one snapshot entry gives the totals at that entry (it gave no series)', async () => {
  const t = tempStore();
  try {
    const T = 1_700_000_000_000_000;
    const snap = snapshot() as Record<string, PickleValue>;
    snap.device_traces = [[{ action: 'snapshot', addr: 0, size: 0, stream: 0, time_us: T + 50, frames: [] }]];
    const file = join(t.dir, 'at-oom.pickle');
    writeFileSync(file, pickle(snap));
    const r = await importFiles(t.store, [file], { importers });
    assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
    const series = storeSql(t.store).prepare("SELECT r.name, s.ts_ms ts, s.value v FROM series r JOIN samples s ON s.series_id = r.id ORDER BY r.name").all();
    assert.deepEqual(series, [
      { name: 'torch.allocated', ts: T / 1000, v: 1500 },
      { name: 'torch.reserved', ts: T / 1000, v: 6144 },
    ]);
  } finally {
    t.dispose();
  }
});
