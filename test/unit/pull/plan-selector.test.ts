// The pure parts of a pull: selectors parsed and re-joined with a metric name, the range put on the
// step grid and split under the per-series limit with no point twice, and the caps' messages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TooWideError, understood } from '../../../node/engine/pull/discover';
import { alignRange, planPull, pointsPerRequest, splitRange } from '../../../node/engine/pull/plan';
import { parseSelector, selectorFor, SelectorError, unquote } from '../../../node/engine/pull/selector';

test('selectors: a name, matchers of every kind, quotes and escapes kept as written', () => {
  const s = parseSelector(' vllm:num_requests_running{ pod=~"vllm-.*", namespace != \'dev\', model_name="a\\"b", } ');
  assert.equal(s.name, 'vllm:num_requests_running');
  assert.deepEqual(s.matchers, [
    { label: 'pod', op: '=~', raw: '"vllm-.*"' },
    { label: 'namespace', op: '!=', raw: "'dev'" },
    { label: 'model_name', op: '=', raw: '"a\\"b"' },
  ]);
  assert.equal(unquote('"a\\"b\\n"'), 'a"b\n');
  assert.equal(selectorFor(['DCGM_FI_DEV_FB_USED'], s), `DCGM_FI_DEV_FB_USED{pod=~"vllm-.*",namespace!='dev',model_name="a\\"b"}`);
  assert.equal(selectorFor(['x_bucket', 'x_sum'], s), `{__name__=~"x_bucket|x_sum",pod=~"vllm-.*",namespace!='dev',model_name="a\\"b"}`);
  // An exact __name__ matcher is the name; a regex one chose the names and is not repeated.
  assert.equal(parseSelector('{__name__="up", job="x"}').name, 'up');
  assert.equal(selectorFor(['DCGM_FI_DEV_GPU_UTIL'], parseSelector('{__name__=~"DCGM_.*", job="x"}')), 'DCGM_FI_DEV_GPU_UTIL{job="x"}');
  assert.equal(selectorFor(['up'], null), 'up');
});

test('selectors: what is not one is refused with the place and an example', () => {
  const bad: [string, RegExp][] = [
    ['', /empty: name a metric or give at least one matcher/],
    ['{}', /empty/],
    ['{pod=~".*"}', /every matcher also matches the empty label/],
    ['{pod="a"', /"," or "}" at character 9/],
    ['{pod="a}', /an unterminated string/],
    ['{pod~"a"}', /an operator \(=, !=, =~ or !~\) after "pod"/],
    ['sum(up)', /unexpected "\(up\)" \(a selector, not a PromQL expression/],
    ['up[5m]', /unexpected "\[5m\]"/],
  ];
  for (const [text, re] of bad) assert.throws(() => parseSelector(text), (e: unknown) => e instanceof SelectorError && re.test(e.message), text);
});

test('understood: what the canonical mapping knows, histogram parts included; _created never', () => {
  for (const n of ['vllm:kv_cache_usage_perc', 'vllm:prompt_tokens_total', 'vllm:e2e_request_latency_seconds_bucket', 'vllm:e2e_request_latency_seconds_sum', 'vllm:iteration_tokens_total_bucket', 'DCGM_FI_DEV_FB_USED', 'sglang:num_running_reqs', 'tgi_request_duration_count']) {
    assert.ok(understood(n), n);
  }
  for (const n of ['vllm:prompt_tokens_created', 'go_goroutines', 'node_cpu_seconds_total', 'vllm:request_params_n_bucket']) assert.ok(!understood(n), n);
});

test('the range goes on the step grid and splits with no point twice and none lost', () => {
  assert.deepEqual(alignRange(1_007, 60_001, 15_000), { startMs: 15_000, endMs: 60_000 });
  assert.equal(alignRange(1_000, 2_000, 15_000), null);
  const pieces = splitRange(0, 15_000 * 25_000, 15_000, 11_000);
  assert.deepEqual(pieces.map((p) => p.points), [11_000, 11_000, 3_001]);
  assert.equal(pieces[1].startMs, pieces[0].endMs + 15_000);
  assert.equal(pieces.at(-1)!.endMs, 15_000 * 25_000);
  assert.equal(pointsPerRequest(1), 11_000);
  assert.equal(pointsPerRequest(512), 1953, 'a wide group reads shorter pieces: ~1 M values an answer');
  assert.equal(pointsPerRequest(5_000_000), 1);
});

test('the samples cap says what would fit', () => {
  const groups = [{ names: ['a'], expr: 'a', matchers: ['a'], series: 1000 }];
  assert.throws(
    () => planPull(groups, 0, 24 * 3600_000, 15_000, { maxSamples: 1_000_000 }),
    (e: unknown) => e instanceof TooWideError && /1,000 series × 5,761 points \(a 15 s step\) = 5,761,000 samples, over the cap of 1,000,000\. .*use --step 87s or more/.test(e.message),
  );
  const plan = planPull(groups, 0, 24 * 3600_000, 15_000, { maxSamples: 10_000_000 });
  assert.equal(plan.requests.length, 6);
  assert.equal(plan.requests.reduce((n, r) => n + r.points, 0), 5_761);
});
