import { test } from 'node:test';
import assert from 'node:assert/strict';
import { prometheusJsonImporter } from '../../../node/engine/importers/prometheus-json';
import { runImporter, seriesRows, values } from './run-importer';

const matrix = JSON.stringify({
  status: 'success',
  data: {
    resultType: 'matrix',
    result: [
      { metric: { __name__: 'vllm:kv_cache_usage_perc', model_name: 'm', engine: '0' }, values: [[1717000000, '0.5'], [1717000015.5, '0.97']] },
      { metric: { __name__: 'vllm:num_preemptions_total', model_name: 'm' }, values: [[1717000000, '3'], [1717000015, '1']] },
      { metric: { __name__: 'vllm:e2e_request_latency_seconds_bucket', model_name: 'm', le: '0.5' }, values: [[1717000000, '10']] },
      { metric: { __name__: 'vllm:e2e_request_latency_seconds_bucket', model_name: 'm', le: '+Inf' }, values: [[1717000000, '12']] },
      { metric: { __name__: 'vllm:e2e_request_latency_seconds_sum', model_name: 'm' }, values: [[1717000000, '4.5']] },
      { metric: { __name__: 'DCGM_FI_DEV_FB_USED', gpu: '0', Hostname: 'n1' }, values: [[1717000000, '1024'], [1717000015, 'NaN']] },
      { metric: { __name__: 'DCGM_FI_DEV_FB_FREE', gpu: '0', Hostname: 'n1' }, values: [[1717000000, '3072']] },
      { metric: { job: 'x' }, values: [[1717000000, '1'], ['bad', '2']] },
      { values: [[1, '1']] },
    ],
  },
});

test('query_range matrix: canonical names, kinds from the table, buckets by le, seconds → ms', async () => {
  const r = await runImporter(prometheusJsonImporter, { text: matrix });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(values(r, 'kv.usage'), [
      { ts: 1717000000000, v: 0.5 },
      { ts: 1717000015500, v: 0.97 },
    ]);
    assert.equal(seriesRows(r).find((s) => s.name === 'kv.preemptions')?.kind, 'counter');
    assert.deepEqual(values(r, 'kv.preemptions').map((s) => s.v), [3, 1]);
    const e2e = seriesRows(r).find((s) => s.name === 'lat.e2e')!;
    assert.equal(e2e.kind, 'histogram');
    assert.deepEqual(r.all('SELECT le, count FROM histograms WHERE series_id = ? ORDER BY le', e2e.id), [
      { le: 0.5, count: 10 },
      { le: Infinity, count: 12 },
    ]);
    assert.deepEqual(values(r, 'lat.e2e.sum').map((s) => s.v), [4.5]);
    assert.deepEqual(values(r, 'gpu.mem.total', { host: 'n1' }).map((s) => s.v), [4096 * 1024 * 1024]);
    // No __name__ (an expression's answer): named after the file, not "value".
    assert.deepEqual(values(r, 'input', { job: 'x' }).map((s) => s.v), [1]);
    assert.equal(r.warnings.length, 3);
    assert.match(r.warnings.join('\n'), /named after the file: "input"/);
    assert.match(r.warnings.join('\n'), /\(key data\.result\[7\]\): 1 malformed points/);
    assert.match(r.warnings.join('\n'), /\(key data\.result\[8\]\): result without a "metric"/);
  } finally {
    r.dispose();
  }
});

test('query vector answer, and error answers fail with the reason', async () => {
  const vector = JSON.stringify({ status: 'success', data: { resultType: 'vector', result: [{ metric: { __name__: 'sglang:num_queue_reqs' }, value: [1717000000.25, '7'] }] } });
  const r = await runImporter(prometheusJsonImporter, { text: vector });
  try {
    assert.deepEqual(values(r, 'req.waiting'), [{ ts: 1717000000250, v: 7 }]);
  } finally {
    r.dispose();
  }
  const e = await runImporter(prometheusJsonImporter, { text: '{"status":"error","errorType":"bad_data","error":"parse error"}' });
  try {
    assert.match(e.error!.message, /input\.txt \(key error\): the Prometheus answer is an error: parse error/);
  } finally {
    e.dispose();
  }
  assert.equal(prometheusJsonImporter.detect(Buffer.from(matrix), 'q.json'), 0.95);
  assert.equal(prometheusJsonImporter.detect(Buffer.from('{"resourceSpans":[]}'), 'q.json'), 0);
});

const variant = (name: string) => new URL(`../../samples/variants/${name}`, import.meta.url).pathname;

test('an answer to an expression (no __name__) is named by the file, not "value", with a warning', async () => {
  const r = await runImporter(prometheusJsonImporter, { file: variant('prometheus-api-expression.json'), name: 'answers/p99_ttft.json' });
  try {
    assert.equal(r.error, null);
    assert.equal(seriesRows(r).some((s) => s.name === 'value'), false);
    assert.deepEqual(values(r, 'p99_ttft', { model_name: 'demo' }), [
      { ts: 1737434455000, v: 0.41 },
      { ts: 1737434470000, v: 0.44 },
      { ts: 1737434485000, v: 1.92 },
    ]);
    assert.equal(seriesRows(r).find((s) => s.labels.model_name === 'other')?.labels.expr, 'p99_ttft');
    assert.equal(r.warnings.length, 1);
    assert.match(r.warnings[0], /named after the file: "p99_ttft"/);
  } finally {
    r.dispose();
  }
});

test("Grafana's query inspector download: the answer inside, named by the query it was asked with", async () => {
  const r = await runImporter(prometheusJsonImporter, { file: variant('grafana-inspector-p99.json') });
  try {
    assert.equal(r.error, null);
    const expr = 'histogram_quantile(0.99, sum by (le) (rate(vllm:time_to_first_token_seconds_bucket[1m])))';
    assert.deepEqual(values(r, expr).map((s) => s.v), [0.9, 1.1, 4.2]);
    assert.match(r.warnings[0], /named after its query/);
  } finally {
    r.dispose();
  }
});

test('a byte-order mark, keys sorted (result before resultType, past the head), the server\'s warnings, native histograms as count and sum', async () => {
  // json.dumps(sort_keys=True): "data" first, "result" before "resultType"; long enough to push resultType past 64 KiB.
  const many = Array.from({ length: 600 }, (_, i) => ({ metric: { __name__: 'vllm:num_requests_running', model_name: 'm', engine: String(i) }, values: [[1717000000, '1'], [1717000015, '2']] }));
  const sorted = JSON.stringify({ data: { result: many, resultType: 'matrix' }, status: 'success' });
  assert.ok(sorted.indexOf('resultType') > 64 * 1024);
  assert.equal(prometheusJsonImporter.detect(Buffer.from(sorted.slice(0, 64 * 1024)), 'x.json'), 0.9);
  assert.equal(prometheusJsonImporter.detect(Buffer.from('{"data": {"items": []}}'), 'x.json'), 0);

  const answer = {
    status: 'success',
    warnings: ['PromQL warning: encountered a mix of histograms and floats'],
    infos: ['PromQL info: metric might not be a counter'],
    data: {
      resultType: 'matrix',
      result: [
        { metric: { __name__: 'vllm:kv_cache_usage_perc', model_name: 'm' }, values: [[1717000000, '0.5']] },
        {
          metric: { __name__: 'vllm:time_to_first_token_seconds', model_name: 'm' },
          histograms: [
            [1717000000, { count: '8', sum: '0.4', buckets: [[0, '0.01', '0.02', '8']] }],
            [1717000015, { count: '12', sum: '0.6', buckets: [[0, '0.01', '0.02', '12']] }],
            [1717000030, 'bad'],
          ],
        },
      ],
    },
  };
  const text = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(answer))]);
  assert.equal(prometheusJsonImporter.detect(text, 'x.json'), 0.95);
  const r = await runImporter(prometheusJsonImporter, { text });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(values(r, 'kv.usage'), [{ ts: 1717000000000, v: 0.5 }]);
    assert.deepEqual(values(r, 'lat.ttft.count').map((s) => s.v), [8, 12]);
    assert.deepEqual(values(r, 'lat.ttft.sum').map((s) => s.v), [0.4, 0.6]);
    assert.equal(seriesRows(r).some((s) => s.name === 'lat.ttft'), false, 'no empty histogram series');
    assert.ok(r.warnings.some((w) => /\(key warnings\): the server's answer warns: PromQL warning/.test(w)), r.warnings.join('\n'));
    assert.ok(r.warnings.some((w) => /\(key infos\): the server's answer notes/.test(w)));
    assert.ok(r.warnings.some((w) => /1 native histogram series: their count and sum are kept/.test(w)));
    assert.ok(r.warnings.some((w) => /1 malformed native histogram points skipped/.test(w)));
  } finally {
    r.dispose();
  }
  // A BOM before broken JSON: the offset named is the file's own byte.
  const broken = await runImporter(prometheusJsonImporter, { text: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"status": "success", "data": {"resultType": "matrix", "result": [}}')]) });
  try {
    // The `}` after `[` is character 66 of the JSON, byte 69 of the file.
    assert.match(broken.error!.message, /byte 69\b/);
  } finally {
    broken.dispose();
  }
});

/** A query_range answer, 30 s steps from T, of two replicas' token counter and running gauge. */
function replicas(old: { values: number[]; running: number[] }, next: { from: number; steps: number }): string {
  const T = 1_758_000_000;
  const pts = (vals: number[], from = 0) => vals.map((v, i) => [T + (from + i) * 30, String(v)]);
  const counter = (n: number, from: number) => Array.from({ length: n }, (_, i) => 1000 + 37 * (from + i) + (i % 3));
  return JSON.stringify({
    status: 'success',
    data: {
      resultType: 'matrix',
      result: [
        { metric: { __name__: 'vllm:generation_tokens_total', instance: '10.0.0.1:8000', job: 'vllm', pod: 'vllm-a' }, values: pts(old.values) },
        { metric: { __name__: 'vllm:num_requests_running', instance: '10.0.0.1:8000', job: 'vllm', pod: 'vllm-a' }, values: pts(old.running) },
        { metric: { __name__: 'vllm:generation_tokens_total', instance: '10.0.0.2:8000', job: 'vllm', pod: 'vllm-b' }, values: pts(counter(next.steps, next.from), next.from) },
        { metric: { __name__: 'vllm:num_requests_running', instance: '10.0.0.2:8000', job: 'vllm', pod: 'vllm-b' }, values: pts(counter(next.steps, next.from).map((v) => v % 9), next.from) },
      ],
    },
  });
}

test("a target that stopped without a staleness marker: its lookback's repeats (5 min of them, then gone before the answer's end) are not read as readings", async () => {
  const T = 1_758_000_000_000;
  const live = [1000, 1040, 1075, 1110, 1150, 1190];
  const busy = [3, 5, 4, 6, 7, 7];
  // Frozen 270 s (9 steps of 30 s: the last scrape fell between two steps) after step 5, then gone; the new
  // replica lasts to the answer's end.
  const frozen = (n: number, xs: number[]) => [...xs, ...Array(n).fill(xs[xs.length - 1])];
  const cases = [
    { name: 'lookback tail', old: { values: frozen(9, live), running: frozen(9, busy) }, next: { from: 5, steps: 30 }, end: T + 5 * 30_000, warned: true },
    // Frozen 120 s, then gone: not the lookback's length (a hung engine's frozen readings, then scrapes marked stale).
    { name: 'shorter than the lookback', old: { values: frozen(4, live), running: frozen(4, busy) }, next: { from: 5, steps: 30 }, end: T + 9 * 30_000, warned: false },
    // 11 repeats (330 s) are longer than the lookback: real readings stood still before the target went.
    { name: 'longer than the lookback', old: { values: frozen(11, live), running: frozen(11, busy) }, next: { from: 5, steps: 30 }, end: T + 16 * 30_000, warned: false },
    // Frozen to the answer's end beside a replica that was there all along: a frozen reading may be a real one (a
    // hung engine's).
    { name: 'to the answer end', old: { values: frozen(4, live), running: frozen(4, busy) }, next: { from: 0, steps: 10 }, end: T + 9 * 30_000, warned: false },
    // The same, where a successor of its job began reporting at the freeze: a rollout's hand-off.
    { name: 'to the answer end, a successor at the freeze', old: { values: frozen(4, live), running: frozen(4, busy) }, next: { from: 5, steps: 5 }, end: T + 5 * 30_000, warned: true },
    // One of its series still changed at the end: the target was still scraped.
    { name: 'still changing', old: { values: frozen(8, live), running: [...busy, 1, 2, 3, 4, 5, 6, 7, 8] }, next: { from: 5, steps: 30 }, end: T + 13 * 30_000, warned: false },
  ];
  for (const c of cases) {
    const r = await runImporter(prometheusJsonImporter, { text: replicas(c.old, c.next) });
    try {
      assert.equal(r.error, null, c.name);
      for (const name of ['tokens.generation', 'req.running']) {
        const old = values(r, name, { instance: '10.0.0.1:8000' });
        assert.equal(old[old.length - 1].ts, c.end, `${c.name}: ${name}`);
        assert.equal(values(r, name, { instance: '10.0.0.2:8000' }).length, c.next.steps, `${c.name}: ${name}`);
      }
      assert.equal(r.warnings.some((w) => /10\.0\.0\.1:8000.*staleness marker/.test(w)), c.warned, `${c.name}: ${r.warnings.join('\n')}`);
    } finally {
      r.dispose();
    }
  }
});
