// Which charts the timeline stacks: the canonical views of LLM serving from the best source of each
// signal, errors that are errors, everything else folded behind the filter; legend names unique.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SeriesInfo } from '../../../common/contract/types';
import { CHART_CATALOG } from '../../../common/charts/catalog';
import { groupSeries, matchGroups, uniqueLabels } from '../../../common/charts/series-groups';

let nextId = 1;
function series(name: string, kind: SeriesInfo['kind'], labels: Record<string, string>, points = 10, unit = name.startsWith('lat.') && !name.endsWith('.count') ? 'seconds' : ''): SeriesInfo {
  return { id: nextId++, name, kind, unit, labels, points, start_ms: 0, end_ms: points * 1000 };
}

const engine = { model_name: 'llama', metric: 'vllm:e2e_request_latency_seconds' };
const spans = { from: 'spans' };
const log = { metric: 'vllm-log:Running' };

/** A vLLM + DCGM incident as the demo holds it, with duplicates from logs and spans. */
function rich(): SeriesInfo[] {
  const hist = (n: string, labels: Record<string, string>) => [series(n, 'histogram', labels, 0), series(`${n}.count`, 'counter', labels, 50), series(`${n}.sum`, 'counter', labels, 50)];
  const gpu = (g: string) => ({ gpu: g, metric: 'DCGM_FI_DEV_FB_USED', host: 'n7' });
  return [
    ...['lat.e2e', 'lat.ttft', 'lat.itl', 'lat.queue', 'lat.prefill', 'lat.decode', 'req.prompt_len', 'req.gen_len'].flatMap((n) => hist(n, { metric: `vllm:${n}` })),
    ...hist('lat.e2e', spans),
    ...['stop', 'length', 'abort'].map((reason) => series('req.finished', 'counter', { metric: 'vllm:request_success_total', reason })),
    series('req.finished', 'counter', spans),
    series('req.errors', 'counter', spans),
    series('req.running', 'gauge', { metric: 'vllm:num_requests_running' }),
    series('req.running', 'gauge', log),
    series('req.waiting', 'gauge', { metric: 'vllm:num_requests_waiting' }),
    series('tokens.prompt', 'counter', { metric: 'vllm:prompt_tokens_total' }),
    series('tokens.generation', 'counter', { metric: 'vllm:generation_tokens_total' }),
    series('tokens.generation_rate', 'gauge', { metric: 'vllm-log:Avg generation throughput' }),
    series('kv.usage', 'gauge', { metric: 'vllm:kv_cache_usage_perc' }),
    series('kv.usage', 'gauge', { metric: 'vllm-log:GPU KV cache usage' }),
    series('kv.preemptions', 'counter', { metric: 'vllm:num_preemptions_total' }),
    series('kv.prefix_hits', 'counter', { metric: 'vllm:prefix_cache_hits_total' }),
    series('kv.prefix_queries', 'counter', { metric: 'vllm:prefix_cache_queries_total' }),
    ...['0', '1'].flatMap((g) => ['gpu.mem.used', 'gpu.mem.total', 'gpu.mem.free', 'gpu.util', 'gpu.sm_active', 'gpu.sm_clock', 'gpu.power', 'gpu.temp', 'gpu.xid'].map((n) => series(n, 'gauge', gpu(g)))),
    series('torch.allocated', 'gauge', { gpu: '0' }),
    series('torch.reserved', 'gauge', { gpu: '0' }),
    ...Array.from({ length: 15 }, (_, i) => series(`vllm:metric_${i}_created`, 'gauge', {})),
  ];
}

test('the default timeline is the canonical LLM-serving views, at most 20 charts, everything else folded', () => {
  const groups = groupSeries(rich());
  const canonical = groups.filter((g) => g.canonical).map((g) => g.id);
  assert.deepEqual(canonical, [
    'latency-e2e', 'latency-ttft', 'latency-itl', 'latency-queue', 'requests', 'tokens', 'queue', 'kv', 'kv-per-request', 'lengths',
    'preemptions', 'errors', 'prefix', 'gpu-mem', 'torch-mem', 'gpu-util', 'gpu-clock', 'gpu-power', 'gpu-temp',
  ]);
  assert.ok(canonical.length <= 20);
  assert.deepEqual(canonical, CHART_CATALOG.map((c) => c.id), 'the catalog is the timeline: every chart, in its order');
  const others = groups.filter((g) => !g.canonical);
  assert.ok(others.some((g) => g.title.includes('_created')), 'the *_created gauges wait behind the filter');
  assert.equal(matchGroups(others, 'created').length, 15);
  assert.ok(matchGroups(others, 'gpu=1 free').every((g) => g.search.includes('gpu.mem.free')));
});

test('each canonical view reads the best source: engine metrics before log lines before spans', () => {
  const groups = groupSeries(rich());
  const q = groups.find((g) => g.id === 'latency-e2e')!;
  assert.equal(q.quantiles?.histogram.labels.from, undefined);
  const running = groups.find((g) => g.id === 'queue')!.series.map((s) => s.info.labels.metric);
  assert.deepEqual(running, ['vllm:num_requests_running', 'vllm:num_requests_waiting']);
  assert.deepEqual(groups.find((g) => g.id === 'kv')!.series.map((s) => s.info.labels.metric), ['vllm:kv_cache_usage_perc']);
  const gpuMem = groups.find((g) => g.id === 'gpu-mem')!;
  assert.deepEqual(gpuMem.series.map((s) => s.label), ['gpu=0', 'gpu=1'], 'per GPU');
});

test('errors are errors: the error counter and aborted requests, never successful finishes', () => {
  const errors = groupSeries(rich()).find((g) => g.id === 'errors')!;
  assert.deepEqual(errors.series.map((s) => s.label), ['errors', 'finished: abort']);
  assert.ok(!errors.series.some((s) => s.info.name === 'req.finished' && s.info.labels.reason === 'stop'));
  const requests = groupSeries(rich()).find((g) => g.id === 'requests')!;
  assert.deepEqual(requests.series.map((s) => s.derive?.kind), ['arrivals', 'sum-rate']);
});

test('a latency mean derived from spans is told apart from the engine one and listed after it', () => {
  const list = [series('lat.prefill.sum', 'counter', spans), series('lat.prefill.count', 'counter', spans), series('lat.prefill.sum', 'counter', engine), series('lat.prefill.count', 'counter', engine)];
  const mean = groupSeries(list).find((g) => g.id.startsWith('means-'));
  assert.ok(mean);
  assert.deepEqual(mean.series.map((s) => s.label), ['lat.prefill mean', 'lat.prefill mean (spans)']);
});

test('engine series still alike are told apart by the labels that differ, then by a number', () => {
  const a = series('kv.usage', 'gauge', { engine: '0' });
  const b = series('kv.usage', 'gauge', { engine: '1' });
  const c = series('kv.usage', 'gauge', { engine: '1' });
  const out = uniqueLabels([a, b, c].map((info) => ({ info, label: 'kv.usage', asRate: false })));
  assert.deepEqual(out.map((s) => s.label), ['kv.usage (engine=0)', 'kv.usage (engine=1)', 'kv.usage (engine=1) #2']);
});

test('every chart of a rich incident has unique legend names', () => {
  for (const g of groupSeries(rich())) {
    const names = g.series.map((s) => s.label);
    assert.equal(new Set(names).size, names.length, `${g.id}: ${names.join(' | ')}`);
  }
});
