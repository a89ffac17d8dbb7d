import { test } from 'node:test';
import assert from 'node:assert/strict';
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

    // The workstation's canonical charts that the catalog marks for the report, those with data, in the
    // timeline's order, with the timeline's titles and legend text.
    assert.deepEqual(d.charts.map((c) => c.id), ['latency-e2e', 'requests', 'tokens', 'queue', 'kv', 'preemptions', 'gpu-mem']);
    assert.equal(d.charts[0].title, 'E2E latency P50 / P95 / P99');
    const mem = d.charts.find((c) => c.id === 'gpu-mem')!;
    assert.deepEqual(mem.lines.map((l) => l.label), ['gpu=0', 'gpu=1']);
    assert.deepEqual(mem.refs, [{ value: 80 * GIB, label: 'capacity' }]);
    assert.deepEqual(d.charts.find((c) => c.id === 'kv')!.refs, [{ value: 0.95, label: '95% (exhaustion level)' }]);
    assert.deepEqual(d.charts.find((c) => c.id === 'queue')!.lines.map((l) => l.label), ['running', 'waiting']);

    // Counter → rate: 2000 tokens per 5 s after sample 72, 5000 before.
    const tokens = d.charts.find((c) => c.id === 'tokens')!.lines[0];
    assert.equal(tokens.t.length, POINTS - 1);
    assert.equal(tokens.max[0], 1000);
    assert.equal(tokens.max[tokens.max.length - 1], 400);

    // Histogram → quantiles per window of two scrape intervals: after onset 16 of 20 requests land in
    // (1, 2.5], so P99 = 1 + 1.5 × (19.8 − 4) / 16.
    const lat = d.charts.find((c) => c.id === 'latency-e2e')!;
    assert.deepEqual(lat.lines.map((l) => l.label), ['P50', 'P95', 'P99']);
    const p99 = lat.lines[2];
    assert.ok(Math.abs(p99.max[p99.max.length - 1] - (1 + (1.5 * 15.8) / 16)) < 1e-9, String(p99.max.at(-1)));

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

test('compareNatural orders digit runs as numbers, independent of locale', () => {
  assert.deepEqual(['gpu 10', 'gpu 2', 'b', 'a', 'gpu 1'].sort(compareNatural), ['a', 'b', 'gpu 1', 'gpu 2', 'gpu 10']);
});
