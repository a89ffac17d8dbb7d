// traffic_surge's capacity-loss veto (servedBefore): the arrivals a queue began at, taken before it by a
// stretch with no queue. Read on a grid finer than the engine's scrapes (a 10 s DCGM exporter beside a 2-minute
// engine scrape), the windows between two engine readings are unread: not a queue, and no end of the stretch.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { queueStart, servedBefore } from '../../../node/engine/model/causes/traffic-surge';
import type { CauseContext } from '../../../node/engine/model/causes/context';

function context(every: number): { c: CauseContext; q0: number } {
  const n = (4 * 3600) / 10;
  const q0 = (3 * 3600) / 10;
  const read = (i: number) => i % every === 0;
  const t = Float64Array.from({ length: n }, (_, i) => i * 10_000);
  const wait = Float64Array.from({ length: n }, (_, i) => (!read(i) ? NaN : i >= q0 ? 12 : 0));
  const lamIn = Float64Array.from({ length: n }, (_, i) => (!read(i) ? NaN : 1.4));
  const f = { t, wait, lamIn, grid: { n, W: 10_000, step: 10_000 } };
  return { c: { f, span: [60, n - 1], base: [0, 59] } as unknown as CauseContext, q0 };
}

test('arrivals served for hours without a queue before it count at the engine scrape of every window and of every twelfth (2-minute scrapes on a 10 s grid)', () => {
  for (const every of [1, 12]) {
    const { c, q0 } = context(every);
    const served = servedBefore(c, q0);
    assert.ok(served, `every ${every}: not read as served before`);
    assert.equal(served.level, 1.4);
  }
});

test('a gap of unread windows longer than a stretch ends it: what was served across an hour of silence is not known', () => {
  const { c, q0 } = context(12);
  // Only the first 5 minutes and the last 5 minutes before the queue were read.
  for (let i = 0; i < q0; i++) if (i > 30 && i < q0 - 30) c.f.wait[i] = c.f.lamIn[i] = NaN;
  assert.equal(servedBefore(c, q0), null);
});

test("a capped batch's queue that drains for a scrape now and then began where it first built, not after its last dip; a queue half an hour earlier is another", () => {
  // 10 s windows read every 2 minutes; requests wait from 3 h on, drained at two scrapes (3 h 8 min, 3 h 16 min) of it.
  const { c } = context(12);
  const w = c.f.wait;
  const q = (3 * 3600) / 10;
  for (let i = 0; i < w.length; i++) if (!Number.isNaN(w[i])) w[i] = i >= q && i !== q + 48 && i !== q + 96 ? 10 + (i - q) / 12 : 0;
  assert.equal(queueStart(c), q);
  // An episode of queueing 40 minutes before, drained for 30 minutes between: the span's queue began at 3 h.
  for (let i = q - 240; i < q - 180; i++) if (!Number.isNaN(w[i])) w[i] = 8;
  assert.equal(queueStart(c), q);
});
