// Pickles built to hurt: lengths far past the end, deep nesting, memo tricks and giant integers. Each
// must fail fast with a PickleError naming the byte, or decode within bounded memory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_TEXT_INT_DIGITS, PickleError, unpickle } from '../../../node/engine/importers/pickle';
import { storeSql } from '../../helpers/store-sql';

const P = (...parts: (number[] | string | Buffer)[]) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));
const u32 = (n: number) => { const b = Buffer.alloc(4); b.writeUInt32LE(n); return b; };
const u64 = (n: bigint) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(n); return b; };
const fails = (buf: Buffer, re: RegExp, offset?: number) =>
  assert.throws(() => unpickle(buf), (e: unknown) => e instanceof PickleError && re.test(e.message) && (offset === undefined || e.offset === offset), re.source);

test('huge declared lengths fail as truncated without allocating them', () => {
  const before = process.memoryUsage().rss;
  fails(P([0x80, 4, 0x58], u32(0xffffffff), 'abc'), /truncated pickle: BINUNICODE needs 4294967295 more bytes/, 2);
  fails(P([0x80, 4, 0x8d], u64(2n ** 40n), 'abc'), /truncated pickle: BINUNICODE8/, 2);
  fails(P([0x80, 4, 0x8d], u64(2n ** 63n)), /length 9223372036854775808 is too large/, 2);
  fails(P([0x80, 4, 0x8e], u64(2n ** 50n)), /truncated/, 2);
  fails(P([0x80, 2, 0x8b], u32(0xfffffff0), [1, 2]), /truncated pickle: LONG4/, 2);
  fails(P([0x80, 2, 0x8a, 200], [1, 2, 3]), /truncated pickle: LONG1 needs 200 more bytes/, 2);
  assert.ok(process.memoryUsage().rss - before < 64 * 2 ** 20);
});

test('memo indexes never stored, far out of range or not numbers are refused', () => {
  fails(P([0x80, 2, 0x6a], u32(0xfffffffe), '.'), /memo key 4294967294 was never stored/, 2);
  fails(P([0x80, 2, 0x68, 5, 0x2e]), /memo key 5 was never stored/, 2);
  fails(P('(lp0\ng1\n.'), /memo key 1 was never stored/);
  fails(P('(lp0\ng__proto__\n.'), /bad memo key "__proto__"/);
  fails(P('(lp-1\ng-1\n.'), /bad memo key "-1"/, 2);
});

test('deep nesting decodes iteratively: 200k nested lists do not overflow the stack', () => {
  const depth = 200_000;
  const buf = Buffer.concat([Buffer.from([0x80, 2]), Buffer.alloc(depth, 0x5d), Buffer.alloc(depth - 1, 0x61), Buffer.from([0x2e])]);
  let v = unpickle(buf) as unknown[];
  let n = 1;
  while (v.length) {
    v = v[0] as unknown[];
    n++;
  }
  assert.equal(n, depth);
});

test('a stack bomb of marks without values ends with a clear error', () => {
  fails(Buffer.concat([Buffer.from([0x80, 2]), Buffer.alloc(1_000_000, 0x28), Buffer.from([0x2e])]), /STOP with an unbalanced stack/);
});

test('text integers longer than Python allows are refused before BigInt parses them', () => {
  const digits = '9'.repeat(MAX_TEXT_INT_DIGITS + 1);
  const t0 = Date.now();
  fails(P(`L${digits}L\n.`), /integer of 4301 digits is longer than 4300/, 0);
  fails(P(`I${digits}\n.`), /integer of 4301 digits/, 0);
  assert.ok(Date.now() - t0 < 1000);
  fails(P('Ifoo\n.'), /not an integer: "foo"/, 0);
  assert.equal(unpickle(P(`L${'9'.repeat(30)}L\n.`)), BigInt('9'.repeat(30)));
});

test('a dict key that is a self-sharing list is refused at once, not stringified', () => {
  const M = 250;
  // {<nested self-sharing list>: 1}
  const ops = [0x80, 0x02, 0x7d, 0x5d, 0x71, M, 0x30];
  for (let i = 0; i < 28; i++) ops.push(0x28, 0x68, M, 0x68, M, 0x6c, 0x71, M, 0x30);
  ops.push(0x68, M, 0x4b, 1, 0x73, 0x2e);
  const t0 = Date.now();
  assert.throws(() => unpickle(Buffer.from(ops)), (e: unknown) => e instanceof PickleError && /nested container/.test(e.message));
  assert.ok(Date.now() - t0 < 1000);
});

test('a snapshot whose frames are self-sharing lists imports quickly (frames are never stringified)', async () => {
  const { pickle, rawOp } = await import('../../../fixtures/lib/pickle-writer');
  const { importFiles, tempStore } = await import('../../helpers/import-file');
  const { writeFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  // A list that holds itself twice, 28 levels deep: 250 bytes that String() would expand 2^28-fold.
  const M = 250;
  const bomb = [0x5d, 0x71, M, 0x30];
  for (let i = 0; i < 28; i++) bomb.push(0x28, 0x68, M, 0x68, M, 0x6c, 0x71, M, 0x30);
  bomb.push(0x68, M);
  const bytes = pickle({ segments: [], device_traces: [[{ action: 'alloc', addr: 4096, size: 512, stream: 0, time_us: 1_700_000_000_000_000, frames: [rawOp(bomb)] }]] });
  const t = tempStore();
  try {
    const file = join(t.dir, 'snapshot.pickle');
    writeFileSync(file, bytes);
    const t0 = Date.now();
    const r = await importFiles(t.store, [file]);
    assert.ok(Date.now() - t0 < 5000, `took ${Date.now() - t0} ms`);
    assert.equal(r.sources[0].format, 'torch-memory-snapshot');
    assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
    const frames = storeSql(t.store).prepare('SELECT frames_json FROM stacks').pluck().all() as string[];
    assert.ok(frames.every((f) => f.length < 1000));
  } finally {
    t.dispose();
  }
});
