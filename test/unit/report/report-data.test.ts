import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bucket, intervalQuantile } from '../../../node/engine/report/chart-series';
import { compareNatural, gatherReportData, quadrantPath } from '../../../node/engine/report/report-data';
import { buildIncident, GIB, kvAt, POINTS, STEP_MS, T0, reportStore } from './fixture';

test('gatherReportData collects the incident, charts, summaries and logs in a stable order', () => {
  const ts = reportStore();
  try {
    const b = buildIncident(ts.store);
    const d = gatherReportData(ts.store, b.incidentId, b.diagnosis, 0);

    assert.equal(d.incident.name, 'vllm-prod-a & friends');
    assert.deepEqual(d.span, { start_ms: T0, end_ms: T0 + (POINTS - 1) * STEP_MS });
    assert.deepEqual(d.sources.map((s) => [s.path, s.status]), [
      ['metrics/vllm.prom', 'ok'],
      ['logs/vllm.log', 'ok'],
      ['profiles/snapshot.pickle', 'ok'],
      ['traces/broken.json', 'failed'],
    ]);
    assert.deepEqual(d.sources[0].warnings, ['metrics/vllm.prom:17: malformed sample line skipped']);

    // Only the charts whose canonical series exist, in the fixed order.
    assert.deepEqual(d.charts.map((c) => c.id), ['latency', 'tokens', 'requests', 'kv', 'gpu-memory', 'errors']);
    const mem = d.charts.find((c) => c.id === 'gpu-memory')!;
    assert.deepEqual(mem.lines.map((l) => l.label), ['used gpu=0', 'used gpu=1']);
    assert.deepEqual(mem.refs, [{ value: 80 * GIB, label: 'capacity' }]);

    // Counter → rate: 2000 tokens per 5 s after sample 72, 5000 before.
    const tokens = d.charts.find((c) => c.id === 'tokens')!.lines[0];
    assert.equal(tokens.t.length, POINTS - 1);
    assert.equal(tokens.max[0], 1000);
    assert.equal(tokens.max[tokens.max.length - 1], 400);

    // Histogram → P99 per interval: after onset 8 of 10 requests land in (1, 2.5], so P99 = 1 + 1.5 × (9.9 − 2) / 8.
    const lat = d.charts.find((c) => c.id === 'latency')!.lines[0];
    assert.equal(lat.label, 'e2e P99');
    assert.ok(Math.abs(lat.max[lat.max.length - 1] - (1 + (1.5 * 7.9) / 8)) < 1e-9);

    // KV summary from the samples written.
    const kvs = Array.from({ length: POINTS }, (_, i) => kvAt(i));
    assert.equal(d.kv.usage.length, 1);
    assert.equal(d.kv.usage[0].label, 'engine=0 model=llama');
    assert.equal(d.kv.usage[0].peak, Math.max(...kvs));
    assert.ok(Math.abs(d.kv.usage[0].mean - kvs.reduce((a, x) => a + x, 0) / POINTS) < 1e-12);
    assert.equal(d.kv.usage[0].near_full, kvs.filter((x) => x >= 0.95).length / POINTS);
    assert.equal(d.kv.preemptions, 2 * (POINTS - 72));
    assert.equal(d.kv.peak_preemption_rate, 2 / 5);
    assert.equal(d.kv.prefix_hit_rate, null);

    assert.deepEqual(d.gpu_memory, [
      { gpu: '0', peak_used: 72 * GIB, capacity: 80 * GIB },
      { gpu: '1', peak_used: 71 * GIB, capacity: 80 * GIB },
    ]);

    // Leak sites fall back to the live allocations, largest first; the freed one is gone.
    assert.equal(d.leak_sites_from, 'allocations');
    assert.deepEqual(d.leak_sites.map((s) => [s.frames[0], s.live_bytes, s.allocs]), [
      ['model.py:88 forward', 4 * 256 * 2 ** 20, 4],
      ['attn.py:5 attention', 64 * 2 ** 20, 1],
    ]);

    // Warnings and errors, the cited one marked; info lines left out.
    assert.deepEqual(d.logs.lines.map((l) => [l.severity, l.evidence]), [['warning', false], ['error', true]]);
    assert.equal(d.logs.lines[1].id, b.errorEventId);
    assert.equal(d.logs.matching, 2);

    assert.deepEqual(d.alert_bands.map((a) => a.family), ['resources', 'latency']);
    assert.equal(d.alert_bands[0].end_ms, d.span.end_ms, 'an unresolved alert runs to the end of the data');
    assert.deepEqual(d.annotations.map((a) => a.start_ms), [T0 + 5 * 60_000, T0 + 8 * 60_000]);
    assert.equal(d.thresholds.latency_ms, 150);
  } finally {
    ts.dispose();
  }
});

test('gatherReportData names a missing incident', () => {
  const ts = reportStore();
  try {
    const b = buildIncident(ts.store);
    assert.throws(() => gatherReportData(ts.store, 99, b.diagnosis, 0), /incident 99 does not exist/);
  } finally {
    ts.dispose();
  }
});

test('quadrantPath folds consecutive windows of one quadrant', () => {
  const w = (t_ms: number, quadrant: 'healthy' | 'saturated' | 'exhausted') => ({ t_ms, R: 0, S: 0, quadrant, scores: { gpu_mem: 0, kv: 0, tokens: 0, queue: 0 } });
  const d = { windows: [w(20, 'saturated'), w(0, 'healthy'), w(10, 'healthy'), w(30, 'exhausted')] };
  assert.deepEqual(quadrantPath(d as never), [
    { quadrant: 'healthy', start_ms: 0, end_ms: 20, windows: 2 },
    { quadrant: 'saturated', start_ms: 20, end_ms: 30, windows: 1 },
    { quadrant: 'exhausted', start_ms: 30, end_ms: 30, windows: 1 },
  ]);
});

test('intervalQuantile interpolates inside the bucket of the rank and ignores empty intervals', () => {
  const a = { le: [1, 2, Infinity], counts: [0, 0, 0] };
  const b = { le: [1, 2, Infinity], counts: [5, 10, 10] };
  assert.equal(intervalQuantile(a, b, 0.5), 1);
  assert.equal(intervalQuantile(a, b, 0.75), 1.5);
  assert.equal(intervalQuantile(b, b, 0.5), null);
});

test('bucket keeps min and max per slice and never more points than asked', () => {
  const t = Array.from({ length: 100 }, (_, i) => i);
  const v = t.map((i) => (i % 10 === 3 ? 50 : i % 7));
  const out = bucket(t, v, { start_ms: 0, end_ms: 100 }, 10);
  assert.equal(out.t.length, 10);
  assert.deepEqual(out.max, Array(10).fill(50));
  assert.equal(out.min[0], 0);
});

test('compareNatural orders digit runs as numbers, independent of locale', () => {
  assert.deepEqual(['gpu 10', 'gpu 2', 'b', 'a', 'gpu 1'].sort(compareNatural), ['a', 'b', 'gpu 1', 'gpu 2', 'gpu 10']);
});
