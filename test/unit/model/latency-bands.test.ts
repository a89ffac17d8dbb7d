// Latency bands: the whole span's own spread floors each band (a day's swing), unless the premise of that
// floor fails — on a short span most of it degraded, over hours a step that stays — read by two measures at once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { latencyBands, latencyRise } from '../../../node/engine/model/latency-bands';
import { DEFAULT_CONFIG } from '../../../node/engine/model/config';
import { makeGrid } from '../../../node/engine/model/windows';
import type { Frame } from '../../../node/engine/model/frame';

const STEP = 10_000;

/** A frame of `minutes` whose ITL P99 and mean (when `meanMoves`) triple from `fromMin` on, with a little noise; every other family unknown. */
function frame(minutes: number, fromMin: number, meanMoves: boolean): Frame {
  return shaped(minutes, (tMs) => (tMs >= fromMin * 60_000 ? 3 : 1), meanMoves);
}

/** A frame of `minutes` whose ITL P99 and mean (when `meanMoves`) follow `level(t)` (1 at the baseline), with a little noise. */
function shaped(minutes: number, level: (tMs: number) => number, meanMoves: boolean): Frame {
  const grid = makeGrid(0, minutes * 60_000, STEP, DEFAULT_CONFIG);
  const t = Float64Array.from({ length: grid.n }, (_, i) => i * grid.step);
  const wobble = (i: number) => 1 + 0.05 * Math.sin(i * 1.7);
  const itl99 = Float64Array.from({ length: grid.n }, (_, i) => 0.09 * level(t[i]) * wobble(i));
  const itlMean = Float64Array.from({ length: grid.n }, (_, i) => 0.022 * (meanMoves ? level(t[i]) : 1) * wobble(i));
  const unknown = new Float64Array(grid.n).fill(NaN);
  return new Proxy({ grid, t, itl99, itlMean } as unknown as Frame, { get: (o, k) => (k in o ? (o as never)[k] : unknown) });
}

const band = (f: Frame, family: string) => {
  const base: [number, number] = [0, Math.round(300_000 / STEP) - 1];
  return latencyBands(f, base, DEFAULT_CONFIG, DEFAULT_CONFIG.presets.default).find((b) => b.family === family)!;
};

test('a short span degraded for most of its length keeps bands at the baseline: the floor would sit at the degraded level', () => {
  // 26 minutes, ITL ×3 from minute 9 on (two thirds of the span), P99 and mean alike.
  const f = frame(26, 9, true);
  for (const fam of ['itl', 'itl_mean']) {
    const b = band(f, fam);
    assert.equal(b.floor_s, -Infinity, `${fam}: floor dropped`);
    assert.ok(b.threshold_s < 1.5 * b.baseline_s, `${fam}: threshold ${b.threshold_s} near the baseline ${b.baseline_s}`);
    assert.ok(f[fam === 'itl' ? 'itl99' : 'itlMean'][f.grid.n - 2] > b.threshold_s, `${fam}: the degraded windows are rises`);
  }
});

test('one measure alone beyond its band keeps its floor (a P99 jumping a histogram bucket while the mean stays)', () => {
  const b = band(frame(26, 9, false), 'itl');
  assert.ok(Number.isFinite(b.floor_s) && b.threshold_s >= b.floor_s);
  assert.ok(b.threshold_s > 0.25, `threshold ${b.threshold_s} at the span's own level`);
});

test('over a span of hours the floor stays where the day swings through it (up to ×3 at its peak and back down)', () => {
  // A day from its quiet night: the latency rises with the load to ×3 at its peak and falls back by the night.
  const day = 24 * 60;
  const f = shaped(day, (tMs) => 2 - Math.cos((tMs / (day * 60_000)) * 2 * Math.PI), true);
  for (const fam of ['itl', 'itl_mean']) assert.ok(Number.isFinite(band(f, fam).floor_s), fam);
});

test('over a span of hours a step that stays (×3 from minute 40 of 150, P99 and mean alike) drops the floor; the P99 alone stepping keeps it', () => {
  const step = frame(150, 40, true);
  for (const fam of ['itl', 'itl_mean']) {
    const b = band(step, fam);
    assert.equal(b.floor_s, -Infinity, `${fam}: floor dropped`);
    assert.ok(step[fam === 'itl' ? 'itl99' : 'itlMean'][step.grid.n - 2] > b.threshold_s, `${fam}: the stepped windows are rises`);
  }
  assert.ok(Number.isFinite(band(frame(150, 40, false), 'itl').floor_s), 'P99 alone: floor kept');
});

test('over a span of hours a step past the middle (×1.7 from minute 90 of 165, P99 and mean alike) drops the floor, though the span median stays at the old level', () => {
  const late = shaped(165, (tMs) => (tMs >= 90 * 60_000 ? 1.7 : 1), true);
  for (const fam of ['itl', 'itl_mean']) {
    const b = band(late, fam);
    assert.equal(b.floor_s, -Infinity, `${fam}: floor dropped`);
    assert.ok(late[fam === 'itl' ? 'itl99' : 'itlMean'][late.grid.n - 2] > b.threshold_s, `${fam}: the stepped windows are rises`);
  }
  assert.ok(Number.isFinite(band(shaped(165, (tMs) => (tMs >= 90 * 60_000 ? 1.7 : 1), false), 'itl').floor_s), 'P99 alone: floor kept');
});

test('a short span whose P99 jumps a bucket (×2) a third of the way in while its exact mean ramps to ×1.6 by the end drops the floor: the mean is read where the ramp got to', () => {
  const grid = makeGrid(0, 44 * 60_000, STEP, DEFAULT_CONFIG);
  const t = Float64Array.from({ length: grid.n }, (_, i) => i * grid.step);
  const ramp = (tMs: number, to: number) => 1 + (to - 1) * Math.min(1, Math.max(0, (tMs - 16 * 60_000) / (28 * 60_000)));
  const wobble = (i: number) => 1 + 0.05 * Math.sin(i * 1.7);
  const itl99 = Float64Array.from({ length: grid.n }, (_, i) => 0.09 * (t[i] >= 18 * 60_000 ? 2 : 1) * wobble(i));
  const itlMean = Float64Array.from({ length: grid.n }, (_, i) => 0.022 * ramp(t[i], 1.6) * wobble(i));
  const unknown = new Float64Array(grid.n).fill(NaN);
  const f = new Proxy({ grid, t, itl99, itlMean } as unknown as Frame, { get: (o, k) => (k in o ? (o as never)[k] : unknown) });
  const b = band(f, 'itl');
  assert.equal(b.floor_s, -Infinity, 'floor dropped');
  assert.ok(itl99[grid.n - 2] > b.threshold_s, 'the late windows are rises');
});

test("an ITL P99 that flips between a bimodal ITL's two modes (×12, its P98 and mean unmoved) is no rise; one whose P98 rose with it is", () => {
  // Four hours; from minute 40, every other quarter hour a percent of tokens sits in the stalled mode (300 ms beside 25).
  const grid = makeGrid(0, 240 * 60_000, STEP, DEFAULT_CONFIG);
  const t = Float64Array.from({ length: grid.n }, (_, i) => i * grid.step);
  const flipped = (i: number) => t[i] >= 40 * 60_000 && Math.floor(t[i] / (15 * 60_000)) % 2 === 1;
  const wobble = (i: number) => 1 + 0.03 * Math.sin(i * 1.7);
  const itl99 = Float64Array.from({ length: grid.n }, (_, i) => (flipped(i) ? 0.3 : 0.025) * wobble(i));
  const itlMean = Float64Array.from({ length: grid.n }, (_, i) => (flipped(i) ? 0.0145 : 0.013) * wobble(i));
  const unknown = new Float64Array(grid.n).fill(NaN);
  const frameWith = (p98: (i: number) => number) =>
    new Proxy({ grid, t, itl99, itlMean, itl98: Float64Array.from({ length: grid.n }, (_, i) => p98(i) * wobble(i)) } as unknown as Frame, { get: (o, k) => (k in o ? (o as never)[k] : unknown) });
  const base: [number, number] = [0, Math.round(600_000 / STEP) - 1];
  const rises = (f: Frame) => {
    const bands = latencyBands(f, base, DEFAULT_CONFIG, DEFAULT_CONFIG.presets.default);
    let n = 0;
    for (let i = 0; i < grid.n; i++) if (latencyRise(bands, i)?.family === 'itl') n++;
    return n;
  };
  assert.equal(rises(frameWith(() => 0.022)), 0, 'P98 flat: the P99 flips mode');
  assert.ok(rises(frameWith((i) => (flipped(i) ? 0.28 : 0.022))) > 0, 'P98 up with it: the tail grew');
});

test("a short span degraded for most of its length in TTFT alone, its P99 and exact mean alike, drops the TTFT floor; its P99 alone keeps it", () => {
  // 26 minutes, TTFT ×2.5 from minute 9 on (long prompts beside the chat traffic), e2e and ITL unmeasured.
  for (const meanMoves of [true, false]) {
    const grid = makeGrid(0, 26 * 60_000, STEP, DEFAULT_CONFIG);
    const t = Float64Array.from({ length: grid.n }, (_, i) => i * grid.step);
    const wobble = (i: number) => 1 + 0.05 * Math.sin(i * 1.7);
    const level = (i: number) => (t[i] >= 9 * 60_000 ? 2.5 : 1) * wobble(i);
    const ttft99 = Float64Array.from({ length: grid.n }, (_, i) => 0.3 * level(i));
    const ttftMean = Float64Array.from({ length: grid.n }, (_, i) => 0.07 * (meanMoves ? level(i) : wobble(i)));
    const unknown = new Float64Array(grid.n).fill(NaN);
    const f = new Proxy({ grid, t, ttft99, ttftMean } as unknown as Frame, { get: (o, k) => (k in o ? (o as never)[k] : unknown) });
    const b = band(f, 'ttft');
    assert.equal(Number.isFinite(b.floor_s), !meanMoves, `mean ${meanMoves ? 'moves' : 'flat'}: floor ${b.floor_s}`);
  }
});
