// Lines the timeline computes from several series, on the bucket grid of a fetched window.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SeriesData } from '../../../common/contract/types';
import { arrivals, ratio, sumRates } from '../../../common/charts/derive-columns';

const w = { bucket_ms: 1000, start_ms: 0, end_ms: 10_000, points: 10 };
const data = (id: number, v: number[]): SeriesData => ({ series_id: id, t: v.map((_, i) => i * 1000), min: v, max: v, downsampled: false });

test('finishes sum the rates of every reason; arrivals add the growth of the queue', () => {
  const stop = data(1, [0, 5, 10, 15, 20]);
  const abort = data(2, [0, 1, 2, 3, 4]);
  assert.deepEqual([...sumRates([stop, abort], w, 0).v], [6, 6, 6, 6]);
  const waiting = data(3, [0, 0, 4, 8, 8]);
  assert.deepEqual([...arrivals([stop, abort], [waiting], w, 0).v], [6, 10, 10, 6]);
});

test('ratios: gauges bucket by bucket (KV per running request), counters by their rates (hit rate)', () => {
  assert.deepEqual([...ratio([data(1, [0.5, 0.6])], [data(2, [10, 0])], w, { rates: false, windowMs: 0 }).v], [0.05]);
  assert.deepEqual([...ratio([data(1, [0, 5, 10])], [data(2, [0, 10, 40])], w, { rates: true, windowMs: 0 }).v], [0.5, 5 / 30]);
});
