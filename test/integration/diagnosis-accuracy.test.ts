// Suite-level accuracy of the diagnosis on a small seeded set of realistic incidents (fixtures/gen), the
// same pipeline as `npm run bench -- diagnosis` (generate, import into one SQLite file each, analyze):
// ten cheap bundles from each split (under 45 min, at most two replicas, distinct causes, healthy ones
// among them). It asserts floors, not the answer on any one bundle — a model change may trade one
// bundle for another; the floors say how much of the suite must hold. Measured numbers are printed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SPLITS, runBench, type Summary } from '../bench/diagnosis.bench';
import { drawVariant } from '../../fixtures/gen/variant';

/**
 * Floors, set from what the model scored when the suite was written, minus a margin. Raise them as the
 * model improves. Measured when set: top-1 10/16 (62.5%), top-3 75%, false incidents 0/4, outages called
 * healthy 0/2, onset error median 9 s, p90 113 s.
 */
const FLOORS = {
  /** Share of cause bundles whose root cause is named first. */
  top1: 0.5,
  /** Healthy bundles called an incident (any cause named, or status other than healthy): none. */
  falseIncidents: 0,
  /** Bundles where the engine crashed, OOMed, hung or lost a GPU, called healthy: none. */
  outagesCalledHealthy: 0,
};

/**
 * Floors issue 13 sets that the model did not meet yet when the suite was written: reported as todo (the
 * measured value in the output) rather than failing every run; delete an entry once the model meets it.
 */
const NOT_MET_YET: Partial<Record<keyof typeof FLOORS, string>> = {};

/** Ten cheap seeds of a split: distinct causes, up to three healthy. */
function suiteSeeds(start: number): number[] {
  const picked: number[] = [];
  const causes = new Set<string>();
  let healthy = 0;
  for (let seed = start; picked.length < 10 && seed < start + 2000; seed++) {
    const v = drawVariant(seed).variant;
    if (v.durationS > 2700 || v.replicas > 2 || (v.bursty && v.cause !== 'kv_block_leak')) continue;
    const c = v.cause ?? 'healthy';
    if (c === 'healthy' ? healthy >= 3 : causes.has(c)) continue;
    if (c === 'healthy') healthy++;
    causes.add(c);
    picked.push(seed);
  }
  return picked;
}

test('diagnosis accuracy on a seeded suite of realistic incidents (dev and judge seeds)', { timeout: 900_000 }, async (t) => {
  const seeds = [...suiteSeeds(SPLITS.dev + 5000), ...suiteSeeds(SPLITS.judge + 5000)];
  const res = await runBench({ split: 'judge', n: seeds.length, seeds, log: (l) => t.diagnostic(l) });
  const s: Summary = res.summary;
  const named = res.rows.map((r) => `${r.truth.seed}:${r.truth.cause ?? 'healthy'}→${r.a.causes[0] ?? r.a.status}`).join(' ');
  t.diagnostic(`measured: top-1 ${(100 * s.top1).toFixed(0)}% of ${s.causeBundles}, top-3 ${(100 * s.top3).toFixed(0)}%, false incidents ${s.falseIncidents}/${s.healthyBundles}, outages called healthy ${s.outagesCalledHealthy}/${s.outageBundles}, onset median ${s.onsetMedianS ?? '—'} s p90 ${s.onsetP90S ?? '—'} s`);
  t.diagnostic(named);
  console.log(res.text);
  assert.equal(res.rows.length, seeds.length, 'every bundle generated, imported and analyzed');
  assert.equal(s.errors, 0, 'no analysis threw');
  await t.test('top-1 root cause', { todo: NOT_MET_YET.top1 ?? false }, () => {
    assert.ok(s.top1 >= FLOORS.top1, `top-1 ${(100 * s.top1).toFixed(0)}% under the floor ${(100 * FLOORS.top1).toFixed(0)}%`);
  });
  await t.test('no healthy bundle called an incident', { todo: NOT_MET_YET.falseIncidents ?? false }, () => {
    assert.ok(s.falseIncidents <= FLOORS.falseIncidents, `${s.falseIncidents} of ${s.healthyBundles} healthy bundles called incidents`);
  });
  await t.test('no crash, OOM, hang or lost GPU called healthy', { todo: NOT_MET_YET.outagesCalledHealthy ?? false }, () => {
    assert.ok(s.outagesCalledHealthy <= FLOORS.outagesCalledHealthy, `${s.outagesCalledHealthy} of ${s.outageBundles} outage bundles called healthy`);
  });
});
