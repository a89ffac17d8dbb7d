// What the fleet view draws: each instance's own windows (quadrant and S) and the label values that name
// it, from the per-instance diagnoses mergeFleet folds. Four replicas on a real SQLite workspace, one
// hangs: its windows leave the healthy quadrant after the hang, the others' stay.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FLEET_WINDOWS, type WindowScore } from '../../../common/contract/diagnosis';
import { analyzeIncident } from '../../../node/engine/model/diagnose';
import { thinWindows } from '../../../node/engine/model/fleet';
import { Store } from '../../../node/engine/store/store';
import { SyntheticIncident, T0 } from '../../helpers/synthetic-incident';

test('thinWindows keeps at most FLEET_WINDOWS, each the worst window of its run, in time order', () => {
  const ws: WindowScore[] = Array.from({ length: 2 * FLEET_WINDOWS + 7 }, (_, i) => ({
    t_ms: i * 1000,
    R: 0,
    S: i === 901 ? 0.9 : 0.1,
    quadrant: i === 901 ? 'saturated' : 'healthy',
    scores: { gpu_mem: 0, kv: 0, tokens: 0, queue: 0 },
  }));
  const out = thinWindows(ws);
  assert.ok(out.length <= FLEET_WINDOWS, `${out.length}`);
  assert.ok(out.every((w, i) => i === 0 || w.t_ms > out[i - 1].t_ms));
  assert.deepEqual(out.filter((w) => w.quadrant === 'saturated').map((w) => w.S), [0.9], 'a lone bad window survives the thinning');
  assert.deepEqual(thinWindows(ws.slice(0, 5)).map((w) => w.t_ms), [0, 1000, 2000, 3000, 4000]);
});

test('each instance of a fleet carries its windows and identities; only the hung one leaves the healthy quadrant', () => {
  const dir = mkdtempSync(join(tmpdir(), 'qs-fleet-windows-'));
  try {
    const store = new Store(join(dir, 'ws.db'));
    const x = new SyntheticIncident(store, 1800, 5, 11);
    const hung = '10.0.0.3:8000';
    for (const instance of ['10.0.0.1:8000', '10.0.0.2:8000', hung, '10.0.0.4:8000']) {
      const bad = instance === hung;
      const labels = { instance, pod: `vllm-${instance.slice(7, 8)}` };
      x.counter('tokens.generation', (s) => (bad && s >= 1000 ? 0 : 2000 * x.noise(0.05)), labels);
      x.counter('req.finished', (s) => (bad && s >= 1000 ? 0 : 5 * x.noise(0.05)), { ...labels, reason: 'stop' });
      x.gauge('req.running', (s) => (bad && s >= 1000 ? 24 : Math.round(20 * x.noise(0.1))), labels);
      x.gauge('req.waiting', (s) => (bad && s >= 1000 ? Math.min(40, (s - 1000) / 10) : 0), labels);
      x.gauge('kv.usage', () => 0.4 * x.noise(0.05), labels);
    }
    const id = x.done();
    const d = analyzeIncident(store, id);
    store.close();
    assert.equal(d.instances?.length, 4);
    for (const i of d.instances!) {
      assert.ok(i.windows && i.windows.length > 10, `${i.instance}: ${i.windows?.length} windows`);
      assert.ok(i.ids?.includes(i.instance) && i.ids.some((v) => v.startsWith('vllm-')), `${i.instance}: ${i.ids?.join(',')}`);
    }
    const bad = d.instances!.find((i) => i.instance === hung)!;
    const after = bad.windows!.filter((w) => w.t_ms >= T0 + 1_100_000);
    assert.ok(after.some((w) => w.quadrant !== 'healthy'), `hung replica after onset: ${after.map((w) => w.quadrant).join(',')}`);
    for (const i of d.instances!.filter((x) => x.instance !== hung)) {
      const off = i.windows!.filter((w) => w.quadrant !== 'healthy').length;
      assert.ok(off <= i.windows!.length * 0.1, `${i.instance}: ${off} of ${i.windows!.length} windows off healthy`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
