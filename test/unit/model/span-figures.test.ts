// Figures the importer derives from traced requests (label from=spans, on its own 10 s windows) count only
// the sampled requests: beside the engine's own metrics they neither time the window grid nor stand for
// the completion rate. SGLang exports no finished counter, so its e2e histogram's count is that rate.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { median } from '../../../node/engine/model/baseline';
import { analyzeSignals } from '../../../node/engine/model/diagnose';
import { loadSignals } from '../../../node/engine/model/signals-from-store';
import { tempStore } from '../../helpers/import-file';
import { SyntheticIncident, T0 } from '../../helpers/synthetic-incident';

test('a 5% trace sample beside 60 s scrapes: W from the scrapes, completions from the e2e count', () => {
  const ts = tempStore();
  try {
    // The engine's own metrics, scraped every 60 s: 3 completions a second.
    const m = new SyntheticIncident(ts.store, 3600, 60);
    const metric = { instance: 'a:30000', metric: 'sglang:e2e_request_latency_seconds' };
    m.counter('lat.e2e.count', () => 3, metric);
    m.counter('lat.e2e.sum', () => 30, metric);
    m.gauge('req.running', () => 30, { instance: 'a:30000', metric: 'sglang:num_running_reqs' });
    m.gauge('req.waiting', () => 0, { instance: 'a:30000', metric: 'sglang:num_queue_reqs' });
    const id = m.done();
    // The traced 5%, as the importer writes it: 10 s windows.
    const w = ts.store.beginSource(id, { path: 'traces/otel-spans.jsonl', format: 'otlp-json', bytes: 0 });
    const fin = w.series({ name: 'req.finished', labels: { from: 'spans' }, kind: 'counter' });
    const cnt = w.series({ name: 'lat.e2e.count', labels: { from: 'spans' }, kind: 'counter' });
    for (let s = 0, total = 0; s <= 3600; s += 10, total += 1.5) {
      w.sample(fin, T0 + s * 1000, total);
      w.sample(cnt, T0 + s * 1000, total);
    }
    w.commit([]);
    ts.store.refreshIncidentSpan(id);
    const f = analyzeSignals(loadSignals(ts.store, id)).frame;
    assert.ok(f.grid.W >= 120_000, `W ${f.grid.W} ms: at least two of the engine's 60 s scrapes`);
    const rate = median(Array.from(f.lamOut).filter(Number.isFinite));
    assert.ok(Math.abs(rate - 3) < 0.2, `completions ${rate}/s, not the traced 0.15/s`);
  } finally {
    ts.dispose();
  }
});
