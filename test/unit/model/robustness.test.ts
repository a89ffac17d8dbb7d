// The guards that keep noise from becoming an incident and double sources from doubling a signal.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kneeFit } from '../../../node/engine/model/change-point';
import { DEFAULT_CONFIG } from '../../../node/engine/model/config';
import { pickSources } from '../../../node/engine/model/frame';
import { jointTrigger } from '../../../node/engine/model/joint-trigger';

test('joint trigger: one noisy window is not an onset; a rise within the baseline spread is not either', () => {
  const th = DEFAULT_CONFIG.presets.default;
  const dP = [0, 400, 0, 400, 400, 400, 400];
  const dT = [0, -0.5, 0, -0.5, -0.5, -0.5, -0.5];
  assert.equal(jointTrigger(dP, dT, th), 1);
  assert.equal(jointTrigger(dP, dT, th, 0, undefined, { hold: 3 }), 3);
  // Baseline P99 swings by σ = 200 ms: +400 ms is 2σ, under the 3σ guard.
  assert.equal(jointTrigger(dP, dT, th, 0, undefined, { hold: 3, noise_z: 3, latency_sigma_ms: 200 }), -1);
  assert.equal(jointTrigger(dP, dT, th, 0, undefined, { hold: 3, noise_z: 3, latency_sigma_ms: 100 }), 3);
});

test('knee fit dates the start of a ramp and of a step', () => {
  const t = Array.from({ length: 40 }, (_, i) => i * 5);
  const ramp = t.map((x) => (x < 100 ? 10 : x < 160 ? 10 + (x - 100) / 6 : 20));
  const k = kneeFit(t, ramp)!;
  assert.equal(t[k.start], 100);
  assert.equal(t[k.end], 160);
  assert.ok(Math.abs(k.before - 10) < 1e-9 && Math.abs(k.after - 20) < 1e-9);
  const stepped = t.map((x) => (x < 70 ? 1 : 3));
  const s = kneeFit(t, stepped)!;
  assert.deepEqual([t[s.start], t[s.end]], [65, 70]);
});

test('one reading per signal: metrics over log lines over spans, one of the V0/V1 spellings', () => {
  const series: { labels: Record<string, string>; n: number }[] = [
    { labels: { engine: '0', metric: 'vllm-log:Running' }, n: 100 },
    { labels: { engine: '0', metric: 'vllm:num_requests_running', model: 'm' }, n: 200 },
    { labels: { engine: '1', metric: 'vllm:num_requests_running', model: 'm' }, n: 200 },
    { labels: { from: 'spans' }, n: 50 },
  ];
  assert.deepEqual(pickSources(series, (s) => s.n).map((s) => s.labels.engine), ['0', '1']);
  const kv: { labels: Record<string, string>; n: number }[] = [
    { labels: { engine: '0', metric: 'vllm:gpu_cache_usage_perc' }, n: 10 },
    { labels: { engine: '0', metric: 'vllm:kv_cache_usage_perc' }, n: 20 },
  ];
  assert.deepEqual(pickSources(kv, (s) => s.n).map((s) => s.labels.metric), ['vllm:kv_cache_usage_perc']);
  assert.deepEqual(pickSources([{ labels: { from: 'spans' } }], () => 1).length, 1);
  // Every engine's log lines rank below its metrics, SGLang's as vLLM's: summed beside the scrape, the log's
  // sampled prefill lines doubled the cached tokens and read a prefix cache hitting every token.
  const cached: { labels: Record<string, string>; n: number }[] = [
    { labels: { instance: '10.0.0.1:30000', metric: 'sglang:cached_tokens_total' }, n: 98 },
    { labels: { tp: 'TP0', instance: 'sglang-65aa', metric: 'sglang-log:#cached-token (summed)' }, n: 195 },
  ];
  assert.deepEqual(pickSources(cached, (s) => s.n).map((s) => s.labels.metric), ['sglang:cached_tokens_total']);
});
