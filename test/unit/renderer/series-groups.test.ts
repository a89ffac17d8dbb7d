// Legend names of the timeline's charts: one entry per series, the engine's own series first and the
// ones derived from spans marked as such.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SeriesInfo } from '../../../electron/contract/types';
import { groupSeries, uniqueLabels } from '../../../renderer/src/charts/series-groups';

let nextId = 1;
function series(name: string, kind: SeriesInfo['kind'], labels: Record<string, string>, points = 10): SeriesInfo {
  return { id: nextId++, name, kind, unit: name.endsWith('.count') ? '' : 'seconds', labels, points, start_ms: 0, end_ms: points * 1000 };
}

const engine = { model_name: 'llama', metric: 'vllm:e2e_request_latency_seconds' };
const spans = { from: 'spans' };

test('a latency mean derived from spans is told apart from the engine one and listed after it', () => {
  const list = [
    series('lat.e2e.sum', 'counter', spans),
    series('lat.e2e.count', 'counter', spans),
    series('lat.e2e.sum', 'counter', engine),
    series('lat.e2e.count', 'counter', engine),
    series('lat.ttft.sum', 'counter', engine),
    series('lat.ttft.count', 'counter', engine),
  ];
  const mean = groupSeries(list).find((g) => g.id === 'latency-mean');
  assert.ok(mean);
  assert.deepEqual(
    mean.series.map((s) => s.label),
    ['lat.e2e mean', 'lat.ttft mean', 'lat.e2e mean (spans)'],
  );
  assert.equal(mean.series[0].info.labels.model_name, 'llama');
});

test('the quantile chart reads the engine histogram even when the spans one has more scrapes', () => {
  const list = [
    series('lat.e2e', 'histogram', spans),
    series('lat.e2e.count', 'counter', spans, 50),
    series('lat.e2e', 'histogram', engine),
    series('lat.e2e.count', 'counter', engine, 20),
  ];
  const q = groupSeries(list).find((g) => g.id === 'latency-quantiles');
  assert.equal(q?.quantiles?.histogram.labels.from, undefined);
  assert.equal(q?.quantiles?.histogram.labels.model_name, 'llama');
});

test('engine series still alike are told apart by the labels that differ, then by a number', () => {
  const a = series('kv.usage', 'gauge', { engine: '0' });
  const b = series('kv.usage', 'gauge', { engine: '1' });
  const c = series('kv.usage', 'gauge', { engine: '1' });
  const out = uniqueLabels([a, b, c].map((info) => ({ info, label: 'kv.usage', asRate: false })));
  assert.deepEqual(
    out.map((s) => s.label),
    ['kv.usage (engine=0)', 'kv.usage (engine=1)', 'kv.usage (engine=1) #2'],
  );
});

test('every chart of a mixed incident has unique legend names', () => {
  const list = [
    series('req.running', 'gauge', { metric: 'vllm-log:Running' }),
    series('req.running', 'gauge', { metric: 'vllm:num_requests_running', model: 'q' }),
    series('req.running', 'gauge', spans),
    series('gpu.mem.total', 'gauge', { host: 'n7' }),
    series('gpu.mem.total', 'gauge', {}),
  ];
  for (const g of groupSeries(list)) {
    const names = g.series.map((s) => s.label);
    assert.equal(new Set(names).size, names.length, `${g.id}: ${names.join(' | ')}`);
  }
});
