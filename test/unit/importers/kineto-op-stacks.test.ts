import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OpStacks, pythonFrame } from '../../../node/engine/importers/kineto-op-stacks';

/** Resolves and answers each point's frames (null: no stack), with the number of distinct stacks asked for. */
function resolved(s: OpStacks): { stacks: (string[] | null)[]; asked: number } {
  const byId: string[][] = [];
  const ids = s.resolve((frames) => byId.push(frames) - 1);
  return { stacks: Array.from(ids, (id) => (id < 0 ? null : byId[id])), asked: byId.length };
}

test('a point gets its enclosing intervals innermost first, ends included', () => {
  const s = new OpStacks();
  s.interval(1, 1, 0, 100, 'step', false);
  s.interval(1, 1, 10, 50, 'aten::linear', false);
  s.interval(1, 1, 20, 30, 'aten::addmm', false);
  s.interval(1, 1, 60, 70, 'aten::relu', false);
  s.at(1, 1, 25);
  s.at(1, 1, 30);
  s.at(1, 1, 40);
  s.at(1, 1, 55);
  s.at(1, 1, 60);
  s.at(1, 1, 101);
  s.at(1, 1, -5);
  assert.deepEqual(resolved(s).stacks, [
    ['aten::addmm', 'aten::linear', 'step'],
    ['aten::addmm', 'aten::linear', 'step'],
    ['aten::linear', 'step'],
    ['step'],
    ['aten::relu', 'step'],
    null,
    null,
  ]);
});

test('intervals and points in any file order, on separate threads', () => {
  const s = new OpStacks();
  s.at(1, 2, 15);
  s.at(1, 1, 15);
  s.at(1, 1, 5);
  s.at(9, 1, 15);
  s.interval(1, 1, 10, 20, 'inner', false);
  s.interval(1, 2, 0, 100, 'other thread', false);
  s.interval(1, 1, 0, 100, 'outer', false);
  assert.deepEqual(resolved(s).stacks, [['other thread'], ['inner', 'outer'], ['outer'], null]);
});

test('equal intervals nest in file order; equal starts put the longer outside', () => {
  const s = new OpStacks();
  s.interval(0, 0, 10, 20, 'aten::matmul', false);
  s.interval(0, 0, 10, 20, 'aten::mm', false);
  s.interval(0, 0, 5, 9, 'earlier', false);
  s.interval(0, 0, 10, 15, 'short', false);
  s.at(0, 0, 12);
  assert.deepEqual(resolved(s).stacks, [['short', 'aten::mm', 'aten::matmul']]);
});

test('an interval overlapping the top without nesting is skipped once it has ended', () => {
  const s = new OpStacks();
  s.interval(0, 0, 0, 10, 'a', false);
  s.interval(0, 0, 5, 15, 'b', false);
  s.at(0, 0, 7);
  s.at(0, 0, 12);
  assert.deepEqual(resolved(s).stacks, [['b', 'a'], ['b']]);
});

test('points under the same frames share one stack request; Python frames read file:line name', () => {
  const s = new OpStacks();
  for (let i = 0; i < 5; i++) {
    s.interval(0, 0, i * 10, i * 10 + 5, 'train.py(20): step', true);
    s.interval(0, 0, i * 10 + 1, i * 10 + 3, 'aten::mm', false);
    s.at(0, 0, i * 10 + 2);
  }
  const r = resolved(s);
  assert.deepEqual(r.stacks, Array(5).fill(['aten::mm', 'train.py:20 step']));
  assert.equal(r.asked, 1);
  assert.equal(pythonFrame('<built-in method add of type object at 0x7f>'), '<built-in method add of type object at 0x7f>');
  assert.equal(pythonFrame('torch/nn/modules/module.py(1501): _call_impl'), 'torch/nn/modules/module.py:1501 _call_impl');
});

test('many intervals and points, beyond the initial capacities, match a brute-force reading', () => {
  const s = new OpStacks();
  const ops: [number, number, number, string][] = [];
  let seed = 1;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  // Properly nested random trees per thread, emitted in shuffled order.
  for (let th = 0; th < 3; th++) {
    let t = 0;
    for (let r = 0; r < 200; r++) {
      const s0 = t;
      const e0 = t + 100;
      ops.push([th, s0, e0, `root${r % 3}`]);
      ops.push([th, s0 + 10, s0 + 60, `mid${r % 2}`]);
      ops.push([th, s0 + 20, s0 + 30, 'leaf']);
      t += 150;
    }
  }
  const shuffled = ops.map((o) => [rnd(), o] as const).sort((a, b) => a[0] - b[0]).map((x) => x[1]);
  for (const [th, a, b, name] of shuffled) s.interval(7, th, a, b, name, false);
  const points: [number, number][] = [];
  for (let i = 0; i < 1000; i++) points.push([Math.floor(rnd() * 3), Math.floor(rnd() * 30000)]);
  for (const [th, ts] of points) s.at(7, th, ts);
  const expected = points.map(([th, ts]) => {
    const enc = ops.filter((o) => o[0] === th && o[1] <= ts && ts <= o[2]).sort((x, y) => y[1] - x[1]);
    return enc.length ? enc.map((o) => o[3]) : null;
  });
  assert.deepEqual(resolved(s).stacks, expected);
});
