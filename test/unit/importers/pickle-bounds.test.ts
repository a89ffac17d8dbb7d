// Pickles whose work is not bounded by their size: a huge LONG4 (quadratic to decode byte by byte), memo
// references that repeat a container thousands of times (12 KB → 9 M rows), and the protocol-0 STRING
// opcode, which protocol 0 needs and which was refused as unknown.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FANOUT_BASE, FANOUT_PER_BYTE, MAX_LONG_BYTES, PickleError, unpickle } from '../../../node/engine/importers/pickle';
import { detectMemorySnapshot } from '../../../node/engine/importers/memory-snapshot';
import { importFiles, tempStore } from '../../helpers/import-file';
import { storeSql } from '../../helpers/store-sql';

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
};

test('LONG4 of 256 KiB decodes in linear time (it took 61 s); longer than 1 MiB is refused', () => {
  const n = 256 * 1024;
  const body = Buffer.alloc(n, 0x5a);
  body[n - 1] = 0x01;
  const t0 = performance.now();
  const v = unpickle(Buffer.concat([Buffer.from([0x80, 2, 0x8b]), u32(n), body, Buffer.from('.')]));
  const ms = performance.now() - t0;
  assert.ok(ms < 1000, `took ${ms.toFixed(0)} ms`);
  assert.equal(typeof v, 'bigint');
  assert.equal((v as bigint) >> BigInt(8 * (n - 1)), 1n);
  assert.equal((v as bigint) & 0xffffn, 0x5a5an);
  // Negative, two's complement, and small widths through the fast path.
  assert.equal(unpickle(Buffer.concat([Buffer.from([0x80, 2, 0x8b]), u32(9), Buffer.alloc(9, 0xff), Buffer.from('.')])), -1);
  assert.equal(unpickle(Buffer.from([0x80, 2, 0x8a, 2, 0x00, 0x80, 0x2e])), -32768);
  assert.equal(unpickle(Buffer.from([0x80, 2, 0x8a, 6, 1, 0, 0, 0, 0, 0x80, 0x2e])), -(2 ** 47) + 1);
  assert.equal(unpickle(Buffer.from([0x80, 2, 0x8a, 8, 0, 0, 0, 0, 0, 0, 0x20, 0, 0x2e])), 2n ** 53n);
  assert.equal(unpickle(Buffer.from([0x80, 2, 0x8a, 8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x1f, 0, 0x2e])), 2 ** 53 - 1);
  assert.throws(
    () => unpickle(Buffer.concat([Buffer.from([0x80, 2, 0x8b]), u32(MAX_LONG_BYTES + 1), Buffer.alloc(MAX_LONG_BYTES + 1), Buffer.from('.')])),
    (e: unknown) => e instanceof PickleError && e.offset === 2 && /integer of 1048577 bytes is longer than 1048576/.test(e.message),
  );
});

test('protocol 0 STRING: quoted reprs with escapes decode; unquoted ones are refused at their byte', () => {
  // pickle.dumps({'segments': [], 'note': 'it\'s\n\x01é'}, protocol=0) as Python 2 writes it.
  const p0 = Buffer.from("(dp0\nS'segments'\np1\n(lp2\nsS'note'\np3\nS\"it's\\n\\x01\\xe9\\101\\\\\"\np4\ns.", 'latin1');
  assert.deepEqual(unpickle(p0), { segments: [], note: "it's\n\x01\u00e9A\\" });
  assert.deepEqual(unpickle(Buffer.from("(lp0\nS'a'\np1\naS''\np2\na.")), ['a', '']);
  assert.throws(() => unpickle(Buffer.from('(lp0\nSabc\na.')), (e: unknown) => e instanceof PickleError && e.offset === 5 && /STRING opcode argument must be quoted/.test(e.message));
  assert.throws(() => unpickle(Buffer.from("S'a\\xZZ'\n.")), /invalid \\x escape/);
  // Protocol 0 and 1 snapshots are detected too.
  assert.ok(detectMemorySnapshot(Buffer.from("(dp0\nS'segments'\np1\n(lp2\nsS'device_traces'\np3\n(lp4\ns.")) > 0.5);
});

/** {segments: [], device_traces: [T] * n} with T = [entry] * n, as CPython's pickler writes it (memoised). */
function memoBomb(n: number): Buffer {
  const entry = Buffer.concat([
    Buffer.from([0x7d, 0x94, 0x28]), // EMPTY_DICT MEMOIZE MARK
    Buffer.from([0x8c, 6]), Buffer.from('action'), Buffer.from([0x8c, 5]), Buffer.from('alloc'),
    Buffer.from([0x8c, 4]), Buffer.from('addr'), Buffer.from([0x4d, 0x00, 0x10]),
    Buffer.from([0x8c, 4]), Buffer.from('size'), Buffer.from([0x4d, 0x00, 0x02]),
    Buffer.from([0x8c, 7]), Buffer.from('time_us'), Buffer.from([0x4a]), u32(1_000_000),
    Buffer.from([0x75]), // SETITEMS
  ]);
  const parts: Buffer[] = [Buffer.from([0x80, 4, 0x7d, 0x28, 0x8c, 8]), Buffer.from('segments'), Buffer.from([0x5d, 0x8c, 13]), Buffer.from('device_traces')];
  // device_traces list: MARK, T (built once: memo 0 = T, memo 1 = the entry), then n-1 BINGETs of T.
  parts.push(Buffer.from([0x5d, 0x28]));
  parts.push(Buffer.from([0x5d, 0x94, 0x28]), entry);
  for (let i = 1; i < n; i++) parts.push(Buffer.from([0x68, 1]));
  parts.push(Buffer.from([0x65])); // APPENDS into T
  for (let i = 1; i < n; i++) parts.push(Buffer.from([0x68, 0]));
  parts.push(Buffer.from([0x65, 0x75, 0x2e])); // APPENDS into device_traces, SETITEMS, STOP
  return Buffer.concat(parts);
}

test('memo references that repeat a 3,000-entry trace 3,000 times (12 KB) are refused at the reference that crosses the budget', () => {
  const bomb = memoBomb(3000);
  assert.ok(bomb.length < 13_000);
  const t0 = performance.now();
  assert.throws(
    () => unpickle(bomb),
    (e: unknown) => e instanceof PickleError && /memo references repeat more than [\d,]+ items .* refused as amplifying input/.test(e.message) && e.offset > bomb.length / 2 && bomb[e.offset] === 0x68,
  );
  assert.ok(performance.now() - t0 < 1000);
  // The same shape, small, decodes: the budget scales with the input.
  const small = unpickle(memoBomb(50)) as { device_traces: unknown[][] };
  assert.equal(small.device_traces.length, 50);
  assert.equal(FANOUT_BASE + FANOUT_PER_BYTE * bomb.length < 9_000_000, true);
});

test('filling a container after it was fetched counts once per fetch', () => {
  // L = [] (memo 0); D = [L, L, …] (100 k GETs of the empty list: free); then 100 k items appended to L.
  const n = 100_000;
  const parts = [Buffer.from([0x80, 4, 0x28, 0x5d, 0x94])];
  for (let i = 1; i < n; i++) parts.push(Buffer.from([0x68, 0]));
  parts.push(Buffer.from([0x6c, 0x68, 0, 0x28])); // LIST (D), BINGET L, MARK
  for (let i = 0; i < n; i++) parts.push(Buffer.from([0x4b, 1]));
  parts.push(Buffer.from([0x65, 0x30, 0x2e])); // APPENDS, POP, STOP
  assert.throws(() => unpickle(Buffer.concat(parts)), (e: unknown) => e instanceof PickleError && /items added to a container already fetched/.test(e.message));
});

test('importing the 12 KB memo bomb fails fast naming the file and byte; a segments bomb past the unpickler is caught by the importer', async () => {
  const t = tempStore();
  try {
    const file = join(t.dir, 'snapshot.pickle');
    writeFileSync(file, memoBomb(3000));
    const t0 = performance.now();
    const r = await importFiles(t.store, [file]);
    assert.ok(performance.now() - t0 < 5000);
    assert.equal(r.sources[0].status, 'failed');
    // The importer reads trace entries as they are unpickled (the repeated trace is empty when fetched), so
    // its own budget refuses the repeats, naming the byte of the first memo reference to the trace.
    const m = /^snapshot\.pickle \(byte (\d+)\): more than [\d,]+ trace entries and other items to read from [\d,]+ bytes: refused as amplifying input/.exec(r.sources[0].error ?? '');
    assert.ok(m, r.sources[0].error ?? '');
    assert.equal(memoBomb(3000)[Number(m[1])], 0x68);
    assert.equal(storeSql(t.store).prepare('SELECT COUNT(*) FROM allocations').pluck().get(), 0);

    // segments = [seg] * 3000, seg.blocks = [block] * 20000: little fan-out for the unpickler (each GET
    // hands out a dict of 3 keys), but 60 M blocks for the importer to walk.
    const { pickle } = await import('../../../fixtures/lib/pickle-writer');
    const block = { state: 'inactive', size: 512, address: 4096 };
    const seg = { device: 0, total_size: 1 << 20, blocks: Array.from({ length: 20_000 }, () => block) };
    const bytes = pickle({ segments: Array.from({ length: 3000 }, () => seg), device_traces: [] });
    const file2 = join(t.dir, 'segments.pickle');
    writeFileSync(file2, bytes);
    const t1 = performance.now();
    const r2 = await importFiles(t.store, [file2]);
    assert.ok(performance.now() - t1 < 5000, `took ${(performance.now() - t1).toFixed(0)} ms`);
    assert.equal(r2.sources[0].status, 'failed');
    assert.match(r2.sources[0].error ?? '', /^segments\.pickle \(byte \d+\): more than [\d,]+ blocks and other items to read from [\d,]+ bytes: refused as amplifying input/);
  } finally {
    t.dispose();
  }
});
