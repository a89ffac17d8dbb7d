import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bucketCounter } from '../../../common/counters';
import { histogramQuantile, bucketDelta, histogramEntropy } from '../../../node/engine/model/quantiles';
import { mad, median, quantile, ratio, zScore, defaultBaselineSpan } from '../../../node/engine/model/baseline';
import { olsSlope, spearman } from '../../../node/engine/model/trend';
import { changePoint, rampStart } from '../../../node/engine/model/change-point';
import { oscillation } from '../../../node/engine/model/oscillation';
import { bucketGauge, denseSpan, engineInterval, engineStartOf, gaugeWindows, makeGrid, rateWindows, samplingInterval, windowsWithin } from '../../../node/engine/model/windows';
import { growthMode } from '../../../node/engine/model/kvcache';
import { growthShape } from '../../../node/engine/model/leak';

test('histogram quantile interpolates inside the bucket as Prometheus does', () => {
  // 100 observations: 50 ≤ 0.1, 90 ≤ 0.5, 100 ≤ 1.
  const le = [0.1, 0.5, 1, Infinity];
  const cum = [50, 90, 100, 100];
  assert.equal(histogramQuantile(0.5, le, cum), 0.1);
  assert.ok(Math.abs(histogramQuantile(0.7, le, cum) - 0.3) < 1e-12);
  assert.ok(Math.abs(histogramQuantile(0.99, le, cum) - 0.95) < 1e-12);
  assert.equal(histogramQuantile(0.25, le, cum), 0.05);
  // Rank in the +Inf bucket answers the highest finite bound.
  assert.equal(histogramQuantile(0.99, [0.1, 1, Infinity], [10, 20, 100]), 1);
  assert.ok(Number.isNaN(histogramQuantile(0.5, le, [0, 0, 0, 0])));
});

test('bucket deltas: difference of snapshots, the later one alone after a reset', () => {
  assert.deepEqual(Array.from(bucketDelta([1, 2, 3], [2, 4, 7])), [1, 2, 4]);
  assert.deepEqual(Array.from(bucketDelta([5, 6, 9], [1, 2, 2])), [1, 2, 2]);
  assert.equal(histogramEntropy([10, 10, 10]), 0);
  assert.ok(Math.abs(histogramEntropy([5, 10]) - 1) < 1e-12);
});

test('baseline: median, MAD, r() and z()', () => {
  assert.equal(median([3, 1, 2, NaN]), 2);
  assert.equal(mad([1, 2, 3, 4, 100]), 1);
  assert.equal(quantile([0, 10], 0.95), 9.5);
  assert.equal(ratio(3, 2), 1.5);
  assert.equal(ratio(1, 0), Infinity);
  assert.equal(zScore(4, { median: 2, mad: 1 }), 2 / 1.4826);
  assert.deepEqual(defaultBaselineSpan(0, 3_600_000, 0.2, 600_000), { start_ms: 0, end_ms: 600_000 });
  assert.deepEqual(defaultBaselineSpan(0, 1_000_000, 0.2, 600_000), { start_ms: 0, end_ms: 200_000 });
});

test('trend: OLS slope and Spearman monotonicity', () => {
  assert.equal(olsSlope([0, 1, 2, 3], [1, 3, 5, 7]), 2);
  assert.equal(spearman([1, 2, 3, 4], [10, 20, 25, 100]), 1);
  assert.equal(spearman([1, 2, 3, 4], [4, 3, 2, 1]), -1);
  // Tied ranks 1.5, 1.5, 3.5, 3.5, 5 against 1..5: ρ = 9 / √(10·9).
  assert.ok(Math.abs(spearman([1, 2, 3, 4, 5], [1, 1, 2, 2, 3]) - 9 / Math.sqrt(90)) < 1e-12);
});

test('change-point finds a mean shift and its relative size; rampStart finds where a ramp begins', () => {
  const cp = changePoint([1, 1, 1, 1, 2, 2, 2, 2]);
  assert.equal(cp?.index, 4);
  assert.equal(cp?.size, 1);
  assert.equal(cp?.strength, 1);
  const t = Array.from({ length: 20 }, (_, i) => i);
  const v = t.map((i) => (i < 8 ? 5 : 5 + 2 * (i - 8)));
  const r = rampStart(t, v);
  assert.ok(r && Math.abs(r.index - 8) <= 1, `ramp at ${r?.index}`);
  assert.ok(r && Math.abs(r.slope - 2) < 0.1);
});

test('oscillation: see-saw near 1, ramp 0', () => {
  assert.equal(oscillation([1, 3, 1, 3, 1, 3]), 1);
  assert.equal(oscillation([1, 2, 3, 4, 5]), 0);
  assert.ok(Number.isNaN(oscillation([1, 1, 1])));
});

test('window grid widens W for sparse scrapes and windows read off buckets', () => {
  const cfg = { window_ms: 10_000, step_ms: 5_000, min_samples_per_window: 2, max_windows: 20_000 };
  const dense = makeGrid(0, 60_000, 1000, cfg);
  assert.deepEqual([dense.W, dense.step, dense.k, dense.n], [10_000, 5_000, 2, 12]);
  const sparse = makeGrid(0, 600_000, 15_000, cfg);
  assert.deepEqual([sparse.W, sparse.step], [30_000, 15_000]);
  assert.equal(samplingInterval([[0, 15_000, 30_000, 45_000], [0, 1000]]), 8000);
  // The engine's scrapes set W, not per-GPU telemetry sampled every second beside them.
  const engineT = Array.from({ length: 40 }, (_, i) => i * 15_000);
  const smiT = Array.from({ length: 600 }, (_, i) => i * 1000);
  assert.equal(engineInterval([{ name: 'gpu.util', t: smiT }, { name: 'gpu.temp', t: smiT }, { name: 'kv.usage', t: engineT }]), 15_000);
  // A month of data: the step widens so the grid stays within max_windows.
  const month = makeGrid(0, 30 * 86_400_000, 5000, cfg);
  assert.ok(month.n <= 20_000 && month.n > 10_000, `${month.n} windows`);
  const g = makeGrid(0, 20_000, 1000, cfg);
  const t = Array.from({ length: 21 }, (_, i) => i * 1000);
  const w = gaugeWindows(bucketGauge(t, t.map((x) => (x >= 10_000 ? 1 : 0)), g, 0.5), g);
  assert.deepEqual(Array.from(w.mean).slice(0, 3), [0, 0.5, 1]);
  // Two bursts a year apart: the denser one is the incident, the rest is reported as gaps.
  const year = 365 * 86_400_000;
  const a = { t: Array.from({ length: 240 }, (_, i) => i * 5000) };
  const b = { t: Array.from({ length: 20 }, (_, i) => year + i * 5000) };
  const d = denseSpan([a, b], 3_600_000)!;
  assert.deepEqual([d.start_ms, d.end_ms], [0, 239 * 5000]);
  assert.deepEqual(d.gaps, [{ start_ms: 239 * 5000, end_ms: year + 19 * 5000 }]);
  assert.deepEqual(Array.from(w.frac).slice(0, 3), [0, 0.5, 1]);
  assert.equal(w.max[1], 1);
  const c = bucketCounter(t, t.map((x) => x / 100), 0, g.step, g.nb);
  assert.deepEqual(Array.from(rateWindows(c.inc, c.dt, g)).slice(0, 3), [10, 10, 10]);
  assert.deepEqual(windowsWithin(g, 0, 10_000), [0, 0]);
  // A stretch wholly past the grid's end is its last window, not an index beyond the grid.
  assert.deepEqual(windowsWithin(g, g.t0 + 1000 * g.n * g.step, g.t0 + 1001 * g.n * g.step), [g.n - 1, g.n - 1]);
});

test('growth modes and leak shapes', () => {
  const t = Array.from({ length: 30 }, (_, i) => i);
  assert.equal(growthMode(t, t.map((i) => 0.1 + 0.03 * i)), 'linear');
  assert.equal(growthMode(t, t.map((i) => (i < 15 ? 0.1 : 0.95))), 'step');
  assert.equal(growthMode(t, t.map((i) => 0.01 * Math.exp(i / 6.5))), 'exponential');
  assert.equal(growthShape([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]), 'ramp');
  assert.equal(growthShape([1, 1, 1, 1, 1, 5, 5, 5, 5, 5, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9]), 'staircase');
  assert.equal(growthShape([1, 5, 1, 5, 1, 5]), 'sawtooth');
});

test('engine data begin at its first reading: neither GPU telemetry nor configuration from a start banner', () => {
  const at = (t: number) => () => t;
  const series = [
    { name: 'gpu.util', atOrAfter: at(1_000) },
    // vLLM's max_loras, read off a start banner half an hour before the first scrape.
    { name: 'lora.max', atOrAfter: at(2_000) },
    { name: 'req.running', atOrAfter: at(1_802_000) },
    { name: 'lora.active', atOrAfter: at(1_805_000) },
  ];
  assert.equal(engineStartOf(series, 0), 1_802_000);
  assert.equal(engineStartOf(series.slice(0, 2), 0), 0, 'no engine reading at all: from where the grid starts');
});
