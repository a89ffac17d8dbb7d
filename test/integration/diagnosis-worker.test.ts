// Diagnoses on their worker thread (node/engine/analysis/diagnosis-runner.ts): the same JSON as on the
// engine thread, other calls answered while one runs, a diagnosis of another incident asked for
// meanwhile drops the stale one, and the engine-thread fallback.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine } from '../../node/engine/api';
import { DiagnosisRunner } from '../../node/engine/analysis/diagnosis-runner';
import { analyzeIncident } from '../../node/engine/model/diagnose';
import { Store } from '../../node/engine/store/store';
import { servingIncident } from '../helpers/synthetic-incident';

/** Two incidents: a 6 h one at 1 s (a diagnosis of a second or so) and a small one. */
function workspace(): { dir: string; file: string; big: number; small: number } {
  const dir = mkdtempSync(join(tmpdir(), 'qs-diag-worker-'));
  const file = join(dir, 'w.db');
  const store = new Store(file);
  const seconds = 6 * 3600;
  const big = servingIncident(store, seconds, { kv: (s) => (s > seconds * 0.7 ? 0.97 : 0.4), preemptRate: (s) => (s > seconds * 0.7 ? 2 : 0) }).done();
  const small = servingIncident(store, 1800, {}).done();
  store.close();
  return { dir, file, big, small };
}

test('the worker answers the engine thread’s diagnosis, and calls made meanwhile do not wait for it', { timeout: 180_000 }, async () => {
  const w = workspace();
  const engine = new Engine(w.file);
  try {
    const expected = JSON.stringify(analyzeIncident(engine.store, w.big));
    await engine.analyze({ incident_id: w.small }); // the worker started and the model loaded
    const series = await engine.listSeries({ incident_id: w.big });
    const order: string[] = [];
    const diagnosis = engine.analyze({ incident_id: w.big }).then((d) => {
      order.push('diagnosis');
      return d;
    });
    // Asked 30 ms into the diagnosis, as a zoom right after opening: on the engine thread it would be
    // answered only after the diagnosis.
    await new Promise((r) => setTimeout(r, 30));
    const span = series[0];
    await engine.querySeries({ series_ids: series.map((s) => s.id).slice(0, 10), start_ms: span.start_ms!, end_ms: span.end_ms!, points: 800 });
    order.push('zoom');
    const d = await diagnosis;
    assert.deepEqual(order, ['zoom', 'diagnosis']);
    assert.equal(JSON.stringify(d), expected, 'the worker’s diagnosis is the engine thread’s, byte for byte');
    assert.equal(engine.store.latestDiagnosis(w.big), expected, 'and it is the one stored');
  } finally {
    await engine.close();
    rmSync(w.dir, { recursive: true, force: true });
  }
});

test('a diagnosis of another incident makes the one before it stale: it answers cancelled, the new one is answered', { timeout: 180_000 }, async () => {
  const w = workspace();
  const engine = new Engine(w.file);
  try {
    const stale = engine.analyze({ incident_id: w.big });
    const fresh = engine.analyze({ incident_id: w.small });
    await assert.rejects(stale, (e: Error & { code?: string }) => e.code === 'cancelled' && /incident \d+ was asked for after it/.test(e.message));
    const d = await fresh;
    assert.ok(d.windows.length > 0);
    assert.equal(engine.store.latestDiagnosis(w.big), null, 'the stale diagnosis was not stored');
    // The same incident with other options is not stale: both are answered, in turn.
    const [a, b] = await Promise.all([engine.analyze({ incident_id: w.small }), engine.analyze({ incident_id: w.small, options: { preset: 'high-qps' } })]);
    assert.equal(a.preset, 'default');
    assert.equal(b.preset, 'high-qps');
  } finally {
    await engine.close();
    rmSync(w.dir, { recursive: true, force: true });
  }
});

test('without a worker, diagnoses run on the engine thread with the same answers and the same staleness rule', { timeout: 180_000 }, async () => {
  const w = workspace();
  const store = new Store(w.file);
  const runner = new DiagnosisRunner(w.file, {
    noWorker: true,
    inThread: async (id, options) => {
      const diagnosis = analyzeIncident(store, id, options);
      return { diagnosis, json: JSON.stringify(diagnosis) };
    },
  });
  try {
    const stale = runner.run(w.big);
    const first = runner.run(w.small);
    const last = runner.run(w.small, { preset: 'long-context' });
    await assert.rejects(stale, /was dropped/);
    assert.equal((await first).json, JSON.stringify(analyzeIncident(store, w.small)));
    assert.equal((await last).diagnosis.preset, 'long-context');
    runner.close();
    await assert.rejects(runner.run(w.small), /closing/);
  } finally {
    store.close();
    rmSync(w.dir, { recursive: true, force: true });
  }
});
