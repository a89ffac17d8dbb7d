// An episode hours into the data is judged against the minutes before it, not the data's first minutes:
// a day's drift (prompts growing through the day) is not the episode's cause.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tempStore } from '../../helpers/import-file';
import { servingIncident, T0 } from '../../helpers/synthetic-incident';
import { analyzeIncidentDetailed } from '../../../node/engine/model/diagnose';
import { DEFAULT_CONFIG, mergeConfig } from '../../../node/engine/model/config';

const SPAN = 4 * 3600;
const ON = 3 * 3600;
const after = (s: number) => s >= ON;
/** Prompts per request grow ×2.4 over the day, smoothly (conversations getting longer). */
const drift = (s: number) => 1 + 1.4 * Math.min(s, ON) / ON;

function run(config = DEFAULT_CONFIG) {
  const ts = tempStore();
  try {
    const x = servingIncident(ts.store, SPAN, {
      rps: () => 5,
      ptok: (s) => 4000 * drift(s),
      gtok: (s) => (after(s) ? 1300 : 2000),
      kv: (s) => (after(s) ? Math.min(1, 0.96 + 0.04 * Math.sin(s)) : 0.3 * drift(s)),
      running: (s) => (after(s) ? 14 : 20),
      waiting: (s) => (after(s) ? Math.min(60, 0.2 * (s - ON)) : 0),
      preemptRate: (s) => (after(s) ? 1.5 : 0),
      e2e: (s) => (after(s) ? [6, 14] : [2, 4]),
      ttft: (s) => (after(s) ? [1.5, 4] : [0.08, 0.2]),
      itl: (s) => (after(s) ? [0.04, 0.1] : [0.02, 0.04]),
      queue: (s) => (after(s) ? [Math.min(30, 0.5 + (s - ON) * 0.05), Math.min(60, 1 + (s - ON) * 0.1)] : [0.005, 0.02]),
    });
    return analyzeIncidentDetailed(ts.store, x.done(), {}, config);
  } finally {
    ts.dispose();
  }
}

test('a KV exhaustion three hours into a day of growing prompts: the causes are read against the minutes before it', { timeout: 120_000 }, () => {
  const d = run().diagnosis;
  assert.equal(d.causes[0]?.id, 'kv_exhaustion', d.causes.map((c) => c.id).join(', '));
  assert.ok(d.causes_baseline, 'the reference is named');
  const ref = d.causes_baseline!;
  assert.ok(ref.end_ms <= T0 + ON * 1000 - DEFAULT_CONFIG.local_reference.guard_ms + 60_000 && ref.start_ms > d.baseline.end_ms, JSON.stringify(ref));
  // Read against the first ten minutes instead, the day's growth is the cause: every prompt ×2.4 at the same
  // arrivals, each running request holding several times the pool's share it held then — bigger requests.
  const first = run(mergeConfig({ local_reference: { after_ms: 24 * 3_600_000 } })).diagnosis;
  assert.equal(first.causes_baseline, undefined);
  assert.equal(first.causes[0]?.id, 'kv_bloat', first.causes.map((c) => c.id).join(', '));
});
