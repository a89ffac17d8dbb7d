// quantile() selects two order statistics instead of sorting; it must answer exactly what the sorted
// definition answers, on ties, NaNs, both ends and sizes either side of the small-array cut-over.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mad, median, quantile } from '../../../node/engine/model/baseline';
import { rng } from '../../helpers/rng';

function bySort(xs: number[], q: number): number {
  const v = Float64Array.from(xs.filter(Number.isFinite)).sort();
  if (!v.length) return NaN;
  const pos = (v.length - 1) * Math.min(1, Math.max(0, q));
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return v[lo] + (v[hi] - v[lo]) * (pos - lo);
}


test('quantile equals the sorted definition on random arrays with ties and NaNs', () => {
  const r = rng(7);
  for (let k = 0; k < 3000; k++) {
    const n = Math.floor(r() * 400);
    const xs = Array.from({ length: n }, () => (r() < 0.1 ? NaN : r() < 0.3 ? Math.floor(r() * 4) : r() * 1e3 - 500));
    for (const q of [0, 0.01, 0.25, 0.5, 0.95, 0.99, 1, r()]) {
      const want = bySort(xs, q);
      const got = quantile(xs, q);
      assert.ok(Object.is(got, want) || got === want, `n=${n} q=${q}: ${got} vs ${want}`);
    }
  }
});

test('quantile: empty, all NaN, one value, constant, sorted and reversed input', () => {
  assert.ok(Number.isNaN(quantile([], 0.5)));
  assert.ok(Number.isNaN(quantile([NaN, NaN], 0.5)));
  assert.equal(quantile([3], 0.99), 3);
  assert.equal(quantile(new Array(1000).fill(2), 0.5), 2);
  const up = Array.from({ length: 1001 }, (_, i) => i);
  assert.equal(median(up), 500);
  assert.equal(median([...up].reverse()), 500);
  assert.equal(quantile(up, 0.999), bySort(up, 0.999));
  assert.equal(mad(up), 250);
});
