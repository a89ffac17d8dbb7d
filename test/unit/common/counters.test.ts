// The one counter arithmetic (common/counters.ts) the model, the timeline and the report read counters
// with: a drop is a restart from zero, increases go to the bucket of the later sample, rates per step or
// over a window.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bucketCounter, counterIncrease, counterRates, counterStep } from '../../../common/counters';

test('a drop is a restart from zero: the value after it is the increase', () => {
  assert.equal(counterStep(10, 15), 5);
  assert.equal(counterStep(20, 3), 3);
  assert.equal(counterIncrease([10, 15, 20, 3, 8]), 5 + 5 + 3 + 5);
  assert.equal(counterIncrease([10, 15, 20, 3, 8], 2, 4), 3, 'a slice [from, to)');
  assert.equal(counterIncrease([7]), 0);
});

test('bucketed counter credits each step to the later sample and records the covered time', () => {
  const b = bucketCounter([0, 1000, 2000, 3000, 4000], [0, 2, 4, 1, 3], 0, 2000, 3);
  assert.deepEqual(Array.from(b.inc), [2, 2 + 1, 2]);
  assert.deepEqual(Array.from(b.dt), [1000, 2000, 1000]);
});

test('counter rates: per step, or over a window (a reset counts from zero)', () => {
  assert.deepEqual([...counterRates([0, 1000, 2000, 3000], [0, 10, 20, 5]).v], [10, 10, 5]);
  assert.deepEqual([...counterRates([0, 1000, 2000, 3000], [10, 20, 5, 15]).t], [1000, 2000, 3000]);
  assert.deepEqual([...counterRates([0, 1000, 2000, 3000], [10, 20, 5, 15]).v], [10, 5, 10]);
  assert.deepEqual([...counterRates([0, 1000, 2000, 3000, 4000], [0, 10, 30, 30, 70], 2000).v], [10, 15, 10, 20]);
  assert.equal(counterRates([5], [1]).t.length, 0, 'one sample: no rate');
});
