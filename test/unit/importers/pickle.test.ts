import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PickleError, TakenItemError, unpickle } from '../../../node/engine/importers/pickle';
import { float, pickle, rawOp, tuple } from '../../../fixtures/lib/pickle-writer';

test('round-trips plain data through the writer (protocols 2 and 4)', () => {
  const frames = [{ filename: 'model.py', line: 12, name: 'forward' }];
  const value = { ints: [0, 255, 256, 65535, 65536, -1, 2 ** 31 - 1, -(2 ** 31)], f: 1.25, whole: float(3), s: 'ünïcode', n: null, t: true, fa: false, tup: tuple(0, 0), a: frames, b: frames };
  for (const protocol of [2, 4] as const) {
    const out = unpickle(pickle(value, { protocol })) as Record<string, unknown>;
    assert.deepEqual(out.ints, value.ints);
    assert.equal(out.f, 1.25);
    assert.equal(out.whole, 3);
    assert.equal(out.s, 'ünïcode');
    assert.equal(out.n, null);
    assert.equal(out.t, true);
    assert.equal(out.fa, false);
    assert.deepEqual(out.tup, [0, 0]);
    // The memo makes both keys the very same list, as in Python.
    assert.equal(out.a, out.b);
    assert.equal(((out.a as unknown[])[0] as Record<string, unknown>).line, 12);
  }
});

test('LONG1 above 2^53 becomes a BigInt, below stays a number', () => {
  const out = unpickle(pickle([2n ** 60n + 7n, 2 ** 52, -(2n ** 64n)])) as unknown[];
  assert.equal(out[0], 2n ** 60n + 7n);
  assert.equal(out[1], 2 ** 52);
  assert.equal(out[2], -(2n ** 64n));
});

test('BINFLOAT is big-endian', () => {
  // Hand-written: PROTO 2, BINFLOAT 1.5 (0x3ff8000000000000), STOP.
  const b = Buffer.from([0x80, 0x02, 0x47, 0x3f, 0xf8, 0, 0, 0, 0, 0, 0, 0x2e]);
  assert.equal(unpickle(b), 1.5);
});

test('refuses opcodes that construct objects, naming the opcode and the offset', () => {
  // GLOBAL 'os\nsystem\n' inside a list: the offset is that of the GLOBAL byte.
  const evil = pickle([1, rawOp([0x63, ...Buffer.from('os\nsystem\n')])]);
  const at = evil.indexOf(0x63);
  assert.throws(() => unpickle(evil), (e: unknown) => e instanceof PickleError && e.opcode === 'GLOBAL' && e.offset === at && /GLOBAL/.test(e.message) && new RegExp(`byte ${at}`).test(e.message));
  for (const [op, name] of [[0x93, 'STACK_GLOBAL'], [0x52, 'REDUCE'], [0x62, 'BUILD'], [0x81, 'NEWOBJ'], [0x69, 'INST'], [0x6f, 'OBJ'], [0x51, 'BINPERSID']] as const) {
    const b = pickle({ k: rawOp([op]) });
    assert.throws(() => unpickle(b), (e: unknown) => e instanceof PickleError && e.opcode === name && e.offset === b.lastIndexOf(op));
  }
});

test('truncated and malformed pickles fail with the offset', () => {
  const good = pickle({ a: 'x'.repeat(40) });
  assert.throws(() => unpickle(good.subarray(0, good.length - 10)), (e: unknown) => e instanceof PickleError && /truncated/.test(e.message));
  assert.throws(() => unpickle(Buffer.from([0x80, 0x04, 0x68, 0x05, 0x2e])), (e: unknown) => e instanceof PickleError && e.offset === 2 && /memo key 5/.test(e.message));
  assert.throws(() => unpickle(Buffer.from([0x80, 0x04, 0xff])), (e: unknown) => e instanceof PickleError && e.offset === 2 && /unknown pickle opcode 0xff/.test(e.message));
  assert.throws(() => unpickle(Buffer.from([0x80, 0x06, 0x4e, 0x2e])), /unsupported pickle protocol 6/);
});

test('take: items offered batch by batch stay out of their list, and the memo forgets them', () => {
  // A list of 2,001 dicts, as CPython writes it: two APPENDS of 1,000, then one APPEND; then a dict kept whole.
  const items = Array.from({ length: 2001 }, (_, i) => ({ i }));
  const kept = { k: 1 };
  const buf = pickle({ trace: items, other: [kept] });
  const batches: number[] = [];
  const out = unpickle(buf, {
    take: (list, got) => {
      if (!got.every((x) => typeof x === 'object' && x !== null && 'i' in x)) return false;
      batches.push(got.length);
      assert.equal(list.length, 0);
      return true;
    },
  }) as { trace: unknown[]; other: unknown[] };
  assert.deepEqual(batches, [1000, 1000, 1]);
  assert.deepEqual(out.trace, []);
  // Items not taken go into their list as before.
  assert.deepEqual(out.other, [kept]);
  // A memo reference to a taken item fails at its byte (the memo holds it no more): the caller reads again without taking.
  const again = Buffer.concat([pickle([{ i: 0 }]).subarray(0, -1), Buffer.from([0x68, 1, 0x30, 0x2e])]);
  assert.deepEqual(unpickle(again), [{ i: 0 }]);
  assert.throws(
    () => unpickle(again, { take: () => true }),
    (e: unknown) => e instanceof TakenItemError && e.offset === again.length - 4 && /memo key 1 names an item already read out of its list/.test(e.message),
  );
});
