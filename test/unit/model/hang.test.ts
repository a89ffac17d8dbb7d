// A wedged scheduler read from its log: the periodic stats stop with requests in flight and the engine
// dies of a fatal error 20 minutes later. Nothing reads "0 tokens/s" — the lines simply stop — so the
// stall is the silence that a fatal error ends; a silence that just ends (lost scrapes) is no hang.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from '../../../node/engine/store/store';
import { analyzeIncident } from '../../../node/engine/model/diagnose';
import { SyntheticIncident, T0 } from '../../helpers/synthetic-incident';

function logOnly(endWithCrash: boolean): { store: Store; id: number; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'qs-hang-'));
  const store = new Store(join(dir, 'ws.db'));
  const x = new SyntheticIncident(store, 3600, 10, 5);
  const on = (s: number) => s < 2000 || s > 3300;
  x.gauge('tokens.generation_rate', (s) => (on(s) ? 500 * x.noise(0.1) : null));
  x.gauge('req.running', (s) => (on(s) ? Math.round(12 * x.noise(0.2)) : null));
  x.gauge('req.waiting', (s) => (on(s) ? 0 : null));
  x.gauge('kv.usage', (s) => (on(s) ? 0.3 * x.noise(0.1) : null));
  if (endWithCrash) x.event(3250, { kind: 'engine_crash', severity: 'critical', line: 1, text: 'EngineCore encountered a fatal error.', attrs: {} });
  return { store, id: x.done(), dir };
}

test('log stats that stop with requests in flight until a fatal error are an engine hang, dated where they stopped', () => {
  const { store, id, dir } = logOnly(true);
  try {
    const d = analyzeIncident(store, id);
    assert.equal(d.causes[0]?.id, 'engine_hang', JSON.stringify(d.checked.find((c) => c.id === 'engine_hang')));
    assert.ok(Math.abs(d.onset_ms! - (T0 + 2_000_000)) <= 30_000, `onset ${(d.onset_ms! - T0) / 1000} s`);
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the same silence without a fatal error at its end is a gap in the data, not a hang', () => {
  const { store, id, dir } = logOnly(false);
  try {
    const d = analyzeIncident(store, id);
    assert.ok(!d.causes.some((c) => c.id === 'engine_hang'), JSON.stringify(d.causes.map((c) => c.id)));
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
