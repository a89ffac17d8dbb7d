// One signal in pieces: the files of a pod that a rollout replaced and of its successor (or a rotated log)
// follow each other in time with the same labels. They are one engine's signal, joined — not one file kept
// and the rest dropped, which read the successor's half hour as an engine silent with requests in flight.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from '../../../node/engine/store/store';
import { analyzeIncidentDetailed } from '../../../node/engine/model/diagnose';
import { rng, T0 } from '../../helpers/synthetic-incident';

test("a rollout's old and new pod, each in its own file with the same labels, are one signal joined: no silence where the old file ends", () => {
  const dir = mkdtempSync(join(tmpdir(), 'qs-pieces-'));
  const store = new Store(join(dir, 'ws.db'));
  try {
    const incident = store.createIncident('rollout');
    const r = rng(3);
    const labels = { engine: '0', model_name: 'm' };
    // The old pod for 2 h 20 min, the new one (its counter from zero) for the last 40 min: the longer file alone
    // ends 40 minutes before the data does.
    for (const [path, from, to] of [['metrics/vllm-7d9f-old.om.txt', 0, 8400], ['metrics/vllm-1c91-new.om.txt', 8430, 10800]] as const) {
      const w = store.beginSource(incident, { path, format: 'prometheus-text', bytes: 0 });
      const tokens = w.series({ name: 'tokens.generation', labels, kind: 'counter' });
      const running = w.series({ name: 'req.running', labels, kind: 'gauge' });
      const waiting = w.series({ name: 'req.waiting', labels, kind: 'gauge' });
      let total = 0;
      for (let s = from; s <= to; s += 30) {
        total += 30 * 500 * (0.9 + 0.2 * r());
        w.sample(tokens, T0 + s * 1000, total);
        w.sample(running, T0 + s * 1000, Math.round(20 * (0.8 + 0.4 * r())));
        w.sample(waiting, T0 + s * 1000, 0);
      }
      w.commit([]);
    }
    store.refreshIncidentSpan(incident);
    const d = analyzeIncidentDetailed(store, incident);
    const f = d.frame;
    const late = Array.from(f.gtok).filter((_, i) => f.t[i] >= T0 + 8_500_000);
    assert.ok(late.length > 10 && late.every((x) => x > 100), `tokens/s after the old file ends: ${late.slice(0, 5).join(', ')}`);
    assert.ok(!d.diagnosis.causes.some((c) => c.id === 'engine_hang'), JSON.stringify(d.diagnosis.causes.map((c) => c.id)));
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
