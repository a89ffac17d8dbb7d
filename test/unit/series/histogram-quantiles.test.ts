import { test } from 'node:test';
import assert from 'node:assert/strict';
import { queryQuantiles, windowEdges } from '../../../node/engine/series/histogram-quantiles';
import { tempStore } from '../../helpers/import-file';

const T0 = Date.UTC(2026, 0, 1);
const LE = [0.1, 0.5, 1, Infinity];
// Cumulative counts per scrape, 5 s apart: +10 ≤ 0.1 s; +10 in (0.1, 0.5] and +10 in (0.5, 1];
// +10 above 1 s; +10 in each of the four buckets.
const SCRAPES = [
  [0, 0, 0, 0],
  [10, 10, 10, 10],
  [10, 20, 30, 30],
  [10, 20, 30, 40],
  [20, 30, 40, 50],
];

function withHistogram(fn: (store: ReturnType<typeof tempStore>['store'], hist: number, count: number) => void): void {
  const t = tempStore();
  try {
    const inc = t.store.createIncident('q');
    const w = t.store.beginSource(inc, { path: 'm.prom', format: 'prometheus-text', bytes: 0 });
    const labels = { engine: '0' };
    const hist = w.series({ name: 'lat.e2e', labels, unit: 'seconds', kind: 'histogram' });
    const count = w.series({ name: 'lat.e2e.count', labels, unit: 'count', kind: 'counter' });
    SCRAPES.forEach((cum, i) => {
      const ts = T0 + i * 5000;
      cum.forEach((c, k) => w.histogram(hist, ts, LE[k], c));
      w.sample(count, ts, cum[cum.length - 1]);
    });
    w.commit([]);
    fn(t.store, hist, count);
  } finally {
    t.dispose();
  }
}

const close = (a: number[], b: number[]) => assert.deepEqual(a.map((x) => Math.round(x * 1e9) / 1e9), b);

test('quantiles interpolate inside the bucket of the increase between the window-edge scrapes', () => {
  withHistogram((store, hist) => {
    const r = queryQuantiles(store, { series_id: hist, quantiles: [0.5, 0.95, 0.99], start_ms: T0, end_ms: T0 + 20_000, points: 2 });
    assert.deepEqual(r.t, [T0 + 10_000, T0 + 20_000]);
    assert.deepEqual(r.quantiles, [0.5, 0.95, 0.99]);
    // Window 1: increase [10, 20, 30, 30]; P50 rank 15 → 0.1 + 0.4·5/10; P95 rank 28.5 → 0.5 + 0.5·8.5/10.
    // Window 2: increase [10, 10, 10, 20]; P50 rank 10 → 0.1 (top of the first bucket); P95 in +Inf → 1.
    close(r.values[0], [0.3, 0.1]);
    close(r.values[1], [0.925, 1]);
    close(r.values[2], [0.985, 1]);
  });
});

test('a window spans at least two scrape intervals however many points are asked for', () => {
  withHistogram((store, hist) => {
    const r = queryQuantiles(store, { series_id: hist, quantiles: [0.5], start_ms: T0, end_ms: T0 + 20_000, points: 1000 });
    assert.deepEqual(r.t, [T0 + 10_000, T0 + 20_000]);
    close(r.values[0], [0.3, 0.1]);
  });
});

test('windows without an earlier scrape or without observations give no point', () => {
  withHistogram((store, hist) => {
    // Edges T0−10 s (no scrape yet), T0, T0+10 s: only the window T0..T0+10 s has both edges.
    const r = queryQuantiles(store, { series_id: hist, quantiles: [0.5], start_ms: T0 - 10_000, end_ms: T0 + 10_000, points: 2 });
    assert.deepEqual(r.t, [T0 + 10_000]);
    // T0+10 s..T0+20 s: one window, increase [10, 10, 10, 20]; P99 falls in +Inf → the top finite bound.
    const one = queryQuantiles(store, { series_id: hist, quantiles: [0.99], start_ms: T0 + 10_000, end_ms: T0 + 20_000, points: 1 });
    assert.deepEqual(one.t, [T0 + 20_000]);
    close(one.values[0], [1]);
  });
});

test('a series that is not a histogram is refused by name', () => {
  withHistogram((store, _hist, count) => {
    assert.throws(() => queryQuantiles(store, { series_id: count, quantiles: [0.5], start_ms: T0, end_ms: T0 + 20_000, points: 2 }), /lat\.e2e\.count\) is a counter, not a histogram/);
    assert.throws(() => queryQuantiles(store, { series_id: 99_999, quantiles: [0.5], start_ms: T0, end_ms: T0 + 20_000, points: 2 }), /series 99999 does not exist/);
  });
});

test('window edges step from the start to the first edge at or past the end', () => {
  assert.deepEqual(windowEdges(0, 25, 10), [0, 10, 20, 30]);
  assert.deepEqual(windowEdges(0, 20, 10), [0, 10, 20]);
});
