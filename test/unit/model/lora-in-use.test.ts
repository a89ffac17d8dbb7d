// Adapters in use, as lora_thrash counts them: vLLM lists at most max_loras adapters running at a time, so
// a thrash only shows as adapters taking turns in the slots. The frame counts, per engine, the adapters
// named within the last minute, and compares the busiest engine (replicas' adapters do not add up).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SIG } from '../../../common/names';
import { analyzeSignals } from '../../../node/engine/model/diagnose';
import { loadSignals } from '../../../node/engine/model/signals-from-store';
import { Store } from '../../../node/engine/store/store';
import { SyntheticIncident } from '../../helpers/synthetic-incident';

test('adapters taking turns in two slots count as all of them; two engines do not add up', () => {
  const dir = mkdtempSync(join(tmpdir(), 'qs-lora-'));
  const store = new Store(join(dir, 'w.db'));
  try {
    const inc = new SyntheticIncident(store, 1800, 5);
    const a = { instance: 'a:8000', max_lora: '2', metric: 'vllm:lora_requests_info' };
    const b = { instance: 'b:8000', max_lora: '2', metric: 'vllm:lora_requests_info' };
    // Engine a: the first 15 min two adapters; then eight, two at a time, each for 10 s in turn.
    const turn = (s: number) => Math.floor(s / 10) % 4;
    for (let k = 0; k < 8; k++) {
      inc.gauge(SIG.loraAdapter, (s) => (s < 900 ? (k < 2 ? 1 : null) : turn(s) === k >> 1 ? 1 : null), { ...a, adapter: `ad-${k}` });
    }
    inc.gauge(SIG.loraActive, () => 2, a);
    // Engine b: the same two adapters all along, under other names.
    for (const k of ['x', 'y']) inc.gauge(SIG.loraAdapter, () => 1, { ...b, adapter: k });
    inc.gauge(SIG.loraActive, () => 2, b);
    inc.gauge(SIG.reqRunning, () => 10, a);
    const id = inc.done();
    const f = analyzeSignals(loadSignals(store, id)).frame;
    const before: number[] = [];
    const after: number[] = [];
    for (let i = 0; i < f.grid.n; i++) {
      const s = (f.t[i] - f.t[0]) / 1000;
      if (s > 120 && s < 840) before.push(f.loraActive[i]);
      if (s > 1000 && s < 1700) after.push(f.loraActive[i]);
    }
    assert.ok(before.length > 5 && after.length > 5);
    assert.deepEqual([...new Set(before)], [2], 'two adapters in two slots');
    assert.deepEqual([...new Set(after)], [8], 'eight adapters taking turns in two slots, not ten (b\'s are its own)');
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
