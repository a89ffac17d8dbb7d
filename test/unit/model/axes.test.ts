import { test } from 'node:test';
import assert from 'node:assert/strict';
import { memoryPressure, clamp01 } from '../../../node/engine/model/normalize';
import { quadrantOf, quadrantPath } from '../../../node/engine/model/quadrants';
import { jointTrigger } from '../../../node/engine/model/joint-trigger';
import { alertLifecycle, evaluateAlerts, foldAlerts, sustainedSymptoms } from '../../../node/engine/model/alerts';
import { DEFAULT_CONFIG, mergeConfig } from '../../../node/engine/model/config';
import { chainOf, confidence, rankCauses } from '../../../node/engine/model/causes/rank';
import { fires, type RuleResult } from '../../../node/engine/model/causes/context';
import type { CauseId } from '../../../common/contract/diagnosis';

const GB = 1e9;

test('memory pressure is the share of the baseline headroom consumed, absolute once nearly full', () => {
  const cfg = DEFAULT_CONFIG;
  // vLLM preallocated 72 of 80 GB: flat use is no pressure; half the 8 GB headroom gone is 0.5.
  assert.equal(memoryPressure(72 * GB, 80 * GB, 72 * GB, cfg), 0);
  assert.equal(memoryPressure(76 * GB, 80 * GB, 72 * GB, cfg), 0.5);
  // 78.4/80 = 0.98 > 0.97: pressure rises to max(headroom share 0.8, 0.98).
  assert.equal(memoryPressure(78.4 * GB, 80 * GB, 72 * GB, cfg), 0.98);
  assert.equal(clamp01(Infinity), 1);
});

test('quadrants and the path through them', () => {
  assert.equal(quadrantOf(0.2, 0.1, 0.85, 0.5), 'healthy');
  assert.equal(quadrantOf(0.9, 0.1, 0.85, 0.5), 'saturated');
  assert.equal(quadrantOf(0.9, 0.5, 0.85, 0.5), 'exhausted');
  assert.equal(quadrantOf(0.1, 0.7, 0.85, 0.5), 'contended');
  assert.deepEqual(quadrantPath([0, 5, 10, 15], ['healthy', 'healthy', 'saturated', 'exhausted']), [
    { quadrant: 'healthy', from_ms: 0 },
    { quadrant: 'saturated', from_ms: 10 },
    { quadrant: 'exhausted', from_ms: 15 },
  ]);
});

test('joint trigger needs both the latency rise and the throughput fall, per preset', () => {
  const dP = [0, 200, 200, 200, 130];
  const dT = [0, -0.1, -0.35, -0.35, -0.5];
  assert.equal(jointTrigger(dP, dT, DEFAULT_CONFIG.presets.default), 2);
  assert.equal(jointTrigger(dP, dT, DEFAULT_CONFIG.presets['high-qps']), 2);
  assert.equal(jointTrigger(dP, dT, DEFAULT_CONFIG.presets['long-context']), -1);
  assert.equal(jointTrigger(dP, dT, DEFAULT_CONFIG.presets.default, 0, (i) => i === 2), 3);
});

test('alerts fire after `for` windows, resolve, and fold when they overlap', () => {
  const t = [0, 5, 10, 15, 20, 25, 30];
  assert.deepEqual(alertLifecycle('latency', t, [false, true, true, true, false, true, true], 2), [
    { family: 'latency', first_fired_ms: 10, resolved_ms: 20 },
    { family: 'latency', first_fired_ms: 30, resolved_ms: null },
  ]);
  // A window without data (null) neither extends a streak nor resolves: an alert that holds on both sides
  // of a gap spans it (the gap counted as unobserved), and one found resolved after a gap ended where the gap began.
  assert.deepEqual(alertLifecycle('latency', t, [true, true, null, null, true, false, false], 2), [{ family: 'latency', first_fired_ms: 5, resolved_ms: 25, unobserved_ms: 10 }]);
  assert.deepEqual(alertLifecycle('latency', t, [true, true, true, null, null, false, true], 2), [{ family: 'latency', first_fired_ms: 5, resolved_ms: 15 }]);
  assert.deepEqual(alertLifecycle('latency', t, [true, null, true, false, false, false, false], 2), [{ family: 'latency', first_fired_ms: 10, resolved_ms: 15 }]);
  const alerts = evaluateAlerts(
    { t, latencyHigh: [false, true, true, true, false, false, false], errFrac: [0, 0, 0.1, 0.1, 0.1, 0, 0], throughputTerm: t.map(() => 0), R: t.map(() => 0.9) },
    { error_rate: 0.05, theta_R: 0.85, for_windows: 2 },
  );
  assert.deepEqual(alerts.map((a) => [a.family, a.first_fired_ms, a.resolved_ms]), [['resources', 5, null], ['latency', 10, 20], ['errors', 15, 25]]);
  assert.deepEqual(foldAlerts(alerts.slice(1), 30), { start_ms: 10, end_ms: 25 });
});

test('a symptom is sustained by the time it was seen to hold, not by a span across an idle stretch', () => {
  // 30 s windows; the alert fires on its second held window. Light on/off traffic: held 2.5 min, 3 min with no
  // request to time, held 2 min more — 7.5 min from firing to resolution, 4.5 min of it seen.
  const t = Array.from({ length: 40 }, (_, i) => i * 30_000);
  const run = (...parts: [boolean | null, number][]) => parts.flatMap(([h, k]) => Array<boolean | null>(k).fill(h));
  const idle = alertLifecycle('latency', t, run([false, 2], [true, 6], [null, 6], [true, 4], [false, 22]), 2);
  assert.equal(idle.length, 1);
  assert.equal(idle[0].resolved_ms! - idle[0].first_fired_ms, 450_000);
  assert.equal(idle[0].unobserved_ms, 180_000);
  assert.deepEqual(sustainedSymptoms(idle, 1_200_000, 300_000), []);
  // The same stretch held throughout is sustained.
  const held = alertLifecycle('latency', t, run([false, 2], [true, 16], [false, 22]), 2);
  assert.deepEqual(sustainedSymptoms(held, 1_200_000, 300_000), held);
  // Still on where the data ends: windows without data after the last that held stay in the span (the engine
  // went quiet slow, not well), so 1.5 min held and 5 min of nothing to the end is sustained.
  const quiet = alertLifecycle('latency', t, run([false, 27], [true, 3], [null, 10]), 2);
  assert.equal(quiet[0].unobserved_ms, undefined);
  assert.deepEqual(sustainedSymptoms(quiet, 1_200_000, 300_000), quiet);
});

test('config overrides merge by key and reject typos and wrong types', () => {
  const c = mergeConfig({ theta_R: 0.9, presets: { default: { latency_ms: 200 } }, causes: { cuda_graph_max_batch: 256 } });
  assert.equal(c.theta_R, 0.9);
  assert.equal(c.presets.default.latency_ms, 200);
  assert.equal(c.presets.default.throughput_drop, 0.3);
  assert.equal(c.causes.cuda_graph_max_batch, 256);
  assert.equal(DEFAULT_CONFIG.theta_R, 0.85);
  assert.throws(() => mergeConfig({ theta_r: 1 }, DEFAULT_CONFIG, 'my.json'), /my\.json\.theta_r: unknown setting/);
  assert.throws(() => mergeConfig({ window_ms: '10s' }), /config\.window_ms: expected a number/);
});

const rule = (id: CauseId, held: boolean, extra: Partial<RuleResult> = {}): RuleResult => ({
  id, missing: [], require: [{ condition: 'x', value: 1, held }], support: [], veto: [], evidence: [], onset_ms: 1000, ...extra,
});

test('ranking: precedence, chains, vetoes and the confidence formula', () => {
  const results = [
    rule('traffic_surge', true, { onset_ms: 500 }),
    rule('kv_exhaustion', true, { support: [{ condition: 's', value: 1, held: true }, { condition: 't', value: 0, held: false }] }),
    rule('engine_hang', true, { veto: [{ condition: 'xid', value: 1, held: true }] }),
    rule('kv_bloat', false),
    { ...rule('lora_thrash', true), missing: ['spans'] },
  ];
  assert.deepEqual(results.map(fires), [true, true, false, false, false]);
  const ranked = rankCauses(results, null);
  // The root cause comes first, carrying the chain to the mechanism it drove, at that mechanism's precedence.
  assert.deepEqual(ranked.map((c) => c.id), ['traffic_surge', 'kv_exhaustion']);
  assert.deepEqual(ranked[0].chain, ['traffic_surge', 'kv_exhaustion']);
  assert.deepEqual(ranked[1].chain, ['traffic_surge', 'kv_exhaustion']);
  assert.equal(ranked[0].confidence, 0.85);
  assert.equal(ranked[1].confidence, 0.8);
  // A cause that began after another cannot have driven it.
  const late = rankCauses([rule('traffic_surge', true, { onset_ms: 900_000 }), rule('kv_exhaustion', true, { onset_ms: 500_000 })], null);
  assert.deepEqual(late.map((c) => [c.id, c.chain]), [['kv_exhaustion', ['kv_exhaustion']], ['traffic_surge', ['traffic_surge']]]);
  // One that began after the drift was dated but before the pool first stayed full can have driven it.
  const drift = rule('kv_exhaustion', true, { onset_ms: 500_000, manifest_ms: 950_000 });
  assert.deepEqual(rankCauses([rule('traffic_surge', true, { onset_ms: 900_000 }), drift], null).map((c) => [c.id, c.chain]), [
    ['traffic_surge', ['traffic_surge', 'kv_exhaustion']],
    ['kv_exhaustion', ['traffic_surge', 'kv_exhaustion']],
  ]);
  assert.deepEqual(chainOf('kv_exhaustion', new Map([['kv_exhaustion', { ...drift, manifest_ms: 850_000 }], ['traffic_surge', rule('traffic_surge', true, { onset_ms: 900_000 })]])), ['kv_exhaustion']);
  assert.equal(confidence(rule('kv_bloat', true, { support: [{ condition: 's', value: 1, held: true }] }), false), 1);
  const leak = rule('gpu_memory_leak', true, { endsInOom: true });
  assert.deepEqual(rankCauses([rule('kv_exhaustion', true), leak], null).map((c) => c.id), ['gpu_memory_leak', 'kv_exhaustion']);
  assert.deepEqual(rankCauses([rule('kv_exhaustion', true), { ...leak, endsInOom: false }], null).map((c) => c.id), ['kv_exhaustion', 'gpu_memory_leak']);
  assert.deepEqual(chainOf('oom_crash_loop', new Map([['oom_crash_loop', rule('oom_crash_loop', true)], ['gpu_memory_leak', leak]])), ['gpu_memory_leak', 'oom_crash_loop']);
  // A CUDA-graph cap read off the ITL step itself ranks after a cause read from its own signals.
  const graphs = rule('cuda_graph_fallback', true, { inferred: true });
  const ranked2 = rankCauses([graphs, rule('long_prompt_interference', true)], null);
  assert.deepEqual(ranked2.map((c) => c.id), ['long_prompt_interference', 'cuda_graph_fallback']);
  assert.equal(ranked2[1].inferred, true);
  assert.deepEqual(rankCauses([{ ...graphs, inferred: false }, rule('long_prompt_interference', true)], null).map((c) => c.id), ['cuda_graph_fallback', 'long_prompt_interference']);
  // Such a cause drives a mechanism only where its symptom came before the mechanism manifested (the pool
  // full from its longest full stretch on); after it, the symptom may be the mechanism's own.
  const full = rule('kv_exhaustion', true, { onset_ms: 500_000, manifest_ms: 950_000 });
  const chainWith = (graphsAt: number) => chainOf('kv_exhaustion', new Map([['kv_exhaustion', full], ['cuda_graph_fallback', { ...graphs, onset_ms: graphsAt }]]));
  assert.deepEqual(chainWith(700_000), ['cuda_graph_fallback', 'kv_exhaustion']);
  assert.deepEqual(chainWith(960_000), ['kv_exhaustion']);
  assert.deepEqual(chainOf('kv_exhaustion', new Map([['kv_exhaustion', { ...full, manifest_ms: undefined }], ['cuda_graph_fallback', { ...graphs, onset_ms: 100_000 }]])), ['kv_exhaustion']);
});

test("an API server killed at its memory limit drives the pool that its backlog filled after the restart: host_memory_leak is the root", () => {
  const ranked = rankCauses([rule('host_memory_leak', true, { onset_ms: 2_100_000 }), rule('kv_exhaustion', true, { onset_ms: 8_745_000 })], null);
  assert.deepEqual(ranked.map((c) => [c.id, c.chain]), [
    ['host_memory_leak', ['host_memory_leak', 'kv_exhaustion']],
    ['kv_exhaustion', ['host_memory_leak', 'kv_exhaustion']],
  ]);
  // A pool that filled before the leak began is none of its doing.
  const before = rankCauses([rule('host_memory_leak', true, { onset_ms: 8_000_000 }), rule('kv_exhaustion', true, { onset_ms: 2_000_000 })], null);
  assert.equal(before[0].id, 'kv_exhaustion');
});
