// The long fuzz run's draw: scalable mutations at sizes from their full one down to 1/32 (each alike),
// the others as they are; the covering jobs keep every scalable mutation at full size and ×SCALE_UP,
// the pair the linearity check compares.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DRAWN_SCALES, SCALE_UP, coverJobs, fuzzJobs, scaleLabel } from '../fuzz/harness';
import { SCALABLE, mutate } from '../fuzz/mutate';

const SEEDS = ['/x/a.prom', '/x/b.json', '/x/c.pickle', '/x/d.log', '/x/e.sqlite'];

test('drawn jobs: a scalable mutation gets a size from DRAWN_SCALES, each of them drawn; the others none', () => {
  const jobs = fuzzJobs(SEEDS, 400, 1203);
  assert.equal(jobs.length, 2000);
  const seen = new Map<number, number>();
  for (const j of jobs) {
    if (!SCALABLE.has(j.mutation)) {
      assert.equal(j.scale, undefined, `${j.mutation} has no size`);
      continue;
    }
    assert.ok((DRAWN_SCALES as readonly number[]).includes(j.scale!), `${j.mutation} at ${j.scale}`);
    seen.set(j.scale!, (seen.get(j.scale!) ?? 0) + 1);
  }
  assert.deepEqual([...seen.keys()].sort(), [...DRAWN_SCALES].sort());
  // Alike: none of the six sizes under half or over twice its share.
  const n = [...seen.values()].reduce((a, b) => a + b, 0);
  for (const [k, c] of seen) assert.ok(c > n / 12 && c < n / 3, `scale ${k}: ${c} of ${n}`);
  // The same seed draws the same jobs.
  assert.deepEqual(fuzzJobs(SEEDS, 400, 1203), jobs);
});

test('covering jobs keep every scalable mutation at full size and ×SCALE_UP', () => {
  const jobs = coverJobs(SEEDS, 7);
  for (const m of SCALABLE) {
    const mine = jobs.filter((j) => j.mutation === m);
    if (!mine.length) continue;
    // One pair per family that has the mutation (giant-line is both JSON's and text's).
    const full = mine.filter((j) => (j.scale ?? 1) === 1);
    assert.ok(full.length >= 1, m);
    assert.deepEqual(mine.filter((j) => j.scale === SCALE_UP).map((j) => j.seed), full.map((j) => j.seed), m);
    assert.equal(mine.length, 2 * full.length, m);
  }
});

test('a smaller size makes a smaller input of the same shape; labels name the size', () => {
  const full = mutate(Buffer.from('x 1\n'), 'cardinality', 9, 1);
  const small = mutate(Buffer.from('x 1\n'), 'cardinality', 9, 1 / 32);
  assert.ok(small.length * 20 < full.length, `${small.length} vs ${full.length}`);
  assert.equal(small.toString().split('\n')[1], full.toString().split('\n')[1]);
  // repeat-events never falls to a single copy (the seed unchanged).
  const events = Buffer.from('[{"a":1},{"b":2}]');
  assert.ok(mutate(events, 'repeat-events', 3, 1 / 32).length > events.length);
  assert.equal(scaleLabel({ mutation: 'giant-line', scale: 1 / 8 }), 'giant-line×1/8');
  assert.equal(scaleLabel({ mutation: 'cardinality', scale: 4 }), 'cardinality×4');
  assert.equal(scaleLabel({ mutation: 'flip' }), 'flip');
});
