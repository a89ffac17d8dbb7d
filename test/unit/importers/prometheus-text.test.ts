import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { corpusFile, skipUnlessCorpus } from '../../helpers/corpus';
import { parseLabels, parseScrapeHeader, prometheusTextImporter, scrapeHeader } from '../../../node/engine/importers/prometheus-text';
import { MIB } from '../../../node/engine/signals/canonical';
import { runImporter, seriesRows, values } from './run-importer';

const VLLM = 'vllm_prometheus/datadog_vllm_metrics_fixture.txt';
const SGLANG = 'tgi_sglang_prometheus/sglang_docs_production_metrics_example.prom';
const DCGM = 'dcgm_exporter/datadog_dcgm_metrics_fixture.txt';

const dataLines = (file: string) => readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() && !l.startsWith('#'));

test('vLLM exposition (V0+V1 names): every sample and bucket, canonical names, mtime as time', { skip: skipUnlessCorpus(VLLM) }, async () => {
  const file = corpusFile(VLLM)!;
  const r = await runImporter(prometheusTextImporter, { file, mtimeMs: 1718140600000 });
  try {
    assert.equal(r.error, null);
    // The time is the file's mtime, a guess: said once.
    assert.equal(r.warnings.length, 1);
    assert.match(r.warnings[0], /no timestamps in the file: used the file's modification time \(2024-06-11T21:16:40\.000Z\)/);
    const lines = dataLines(file);
    const buckets = lines.filter((l) => l.includes('_bucket{'));
    assert.equal(r.all<{ n: number }>('SELECT COUNT(*) n FROM histograms')[0].n, buckets.length);
    assert.equal(r.all<{ n: number }>('SELECT COUNT(*) n FROM samples')[0].n, lines.length - buckets.length);
    assert.equal(seriesRows(r).length, 94);
    assert.deepEqual(r.all('SELECT DISTINCT ts_ms FROM samples'), [{ ts_ms: 1718140600000 }]);

    assert.deepEqual(values(r, 'kv.prefix_queries'), [{ ts: 1718140600000, v: 117 }]);
    assert.deepEqual(values(r, 'kv.prefix_hits'), [{ ts: 1718140600000, v: 64 }]);
    assert.deepEqual(values(r, 'tokens.prompt').map((s) => s.v), [5]);
    assert.deepEqual(values(r, 'req.finished', { reason: 'length', model: 'facebook/opt-125m' }).map((s) => s.v), [1]);
    assert.deepEqual(values(r, 'host.rss').map((s) => s.v), [5106151424]);
    // Both KV spellings are there, told apart by `metric`.
    assert.equal(values(r, 'kv.usage', { metric: 'vllm:kv_cache_usage_perc' }).length, 1);
    assert.equal(values(r, 'kv.usage', { metric: 'vllm:gpu_cache_usage_perc' }).length, 1);

    // iteration_tokens_total is a histogram by # TYPE despite its suffix; _count came before _sum.
    const it = seriesRows(r).find((s) => s.name === 'batch.tokens')!;
    assert.equal(it.kind, 'histogram');
    assert.deepEqual(values(r, 'batch.tokens.count').map((s) => s.v), [71]);
    assert.deepEqual(values(r, 'batch.tokens.sum').map((s) => s.v), [267]);

    const ttft = seriesRows(r).find((s) => s.name === 'lat.ttft')!;
    assert.equal(ttft.unit, 'seconds');
    const b = r.all<{ le: number; count: number }>('SELECT le, count FROM histograms WHERE series_id = ? ORDER BY le', ttft.id);
    assert.equal(b.length, 17);
    assert.deepEqual(b.at(-1), { le: Infinity, count: 1 });
    assert.deepEqual(values(r, 'lat.ttft.sum').map((s) => s.v), [0.31326723098754883]);
    // Unknown metrics keep their own names and labels.
    assert.deepEqual(seriesRows(r).find((s) => s.name === 'vllm:request_params_n_count')?.labels, { model_name: 'facebook/opt-125m' });
    const info = seriesRows(r).find((s) => s.name === 'engine.cache_config')!;
    assert.equal(info.kind, 'info');
    assert.equal(info.labels.num_gpu_blocks, '7281');
  } finally {
    r.dispose();
  }
});

test('SGLang exposition with _sum printed before _bucket', { skip: skipUnlessCorpus(SGLANG) }, async () => {
  const r = await runImporter(prometheusTextImporter, { file: corpusFile(SGLANG)!, mtimeMs: 1e12 });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(values(r, 'req.waiting').map((s) => s.v), [2826]);
    assert.deepEqual(values(r, 'req.running').map((s) => s.v), [162]);
    assert.deepEqual(values(r, 'kv.usage').map((s) => s.v), [0.28]);
    assert.deepEqual(values(r, 'tokens.prompt').map((s) => s.v), [8128902]);
    assert.deepEqual(values(r, 'lat.ttft.sum').map((s) => s.v), [2351897.9474117756]);
    assert.deepEqual(values(r, 'lat.ttft.count').map((s) => s.v), [11008]);
    const ttft = seriesRows(r).find((s) => s.name === 'lat.ttft')!;
    const b = r.all<{ le: number; count: number }>('SELECT le, count FROM histograms WHERE series_id = ? ORDER BY le', ttft.id);
    assert.deepEqual(b.find((x) => x.le === 1), { le: 1, count: 27 });
    assert.equal(b.at(-1)!.count, 11008);
  } finally {
    r.dispose();
  }
});

test('DCGM exposition: units normalised, labels renamed, total memory derived per GPU', { skip: skipUnlessCorpus(DCGM) }, async () => {
  const file = corpusFile(DCGM)!;
  const r = await runImporter(prometheusTextImporter, { file, mtimeMs: 1e12 });
  try {
    assert.equal(r.error, null);
    const gpu = { gpu_uuid: 'GPU-20c56d28-0da5-6d26-a36a-e7af1ce2586e' };
    assert.equal(r.all<{ n: number }>('SELECT COUNT(*) n FROM samples')[0].n, dataLines(file).length + 1);
    assert.deepEqual(values(r, 'gpu.mem.free', gpu).map((s) => s.v), [15109 * MIB]);
    assert.deepEqual(values(r, 'gpu.mem.total', { ...gpu, metric: 'DCGM_FI_DEV_FB_USED+FB_FREE+FB_RESERVED' }).map((s) => s.v), [15109 * MIB]);
    assert.deepEqual(values(r, 'gpu.sm_clock', gpu).map((s) => s.v), [300]);
    assert.deepEqual(values(r, 'gpu.power', gpu).map((s) => s.v), [8.969]);
    assert.deepEqual(values(r, 'gpu.util', gpu).map((s) => s.v), [0]);
    assert.deepEqual(values(r, 'gpu.throttle_reasons').map((s) => s.v), [1]);
    assert.deepEqual(values(r, 'gpu.dram_active').map((s) => s.v), [0.000003]);
    const sm = seriesRows(r).find((s) => s.name === 'gpu.sm_clock')!;
    assert.deepEqual(sm.labels, { gpu: '0', ...gpu, device: 'nvidia0', gpu_model: 'Tesla T4', host: '424773df46e0', metric: 'DCGM_FI_DEV_SM_CLOCK' });
  } finally {
    r.dispose();
  }
});

const SERIES = [
  '# HELP vllm:num_preemptions Cumulative number of preemption from the engine.',
  '# TYPE vllm:num_preemptions counter',
  '# TYPE vllm:e2e_request_latency_seconds histogram',
  '# TYPE rpc_seconds summary',
  '# TYPE DCGM_FI_DEV_SM_CLOCK gauge',
  scrapeHeader(1717000000000).trim(),
  'vllm:num_preemptions_total{engine="0",model_name="m"} 5',
  'vllm:num_preemptions_created{engine="0",model_name="m"} 1.717e9',
  'vllm:e2e_request_latency_seconds_sum{model_name="m"} 3.5',
  'vllm:e2e_request_latency_seconds_count{model_name="m"} 4',
  'vllm:e2e_request_latency_seconds_bucket{model_name="m",le="1.0"} 3',
  'vllm:e2e_request_latency_seconds_bucket{model_name="m",le="+Inf"} 4',
  'rpc_seconds{quantile="0.99"} 0.25',
  'rpc_seconds_sum 10',
  'DCGM_FI_DEV_SM_CLOCK{gpu="0"} 1980',
  'odd{path="C:\\\\dir",q="say \\"hi\\"",nl="a\\nb"} NaN',
  '# time: 2024-05-30T16:26:50Z',
  'vllm:num_preemptions_total{engine="0",model_name="m"} 2',
  'DCGM_FI_DEV_SM_CLOCK{gpu="0"} 9223372036854775794',
  'DCGM_FI_DEV_SM_CLOCK{gpu="1"} +Inf',
  'this is not a sample',
  'own_ts 7 1717000005000',
  'om_ts 8 1717000006.5',
  '# EOF',
].join('\n');

test('a series of scrapes: headers in both forms, counter reset kept, _created skipped, order-free histogram parts', async () => {
  const r = await runImporter(prometheusTextImporter, { text: SERIES, chunk: 7, mtimeMs: 1 });
  try {
    assert.equal(r.error, null);
    const t2 = Date.UTC(2024, 4, 30, 16, 26, 50);
    assert.deepEqual(values(r, 'kv.preemptions'), [
      { ts: 1717000000000, v: 5 },
      { ts: t2, v: 2 },
    ]);
    assert.equal(seriesRows(r).some((s) => s.name.includes('created')), false);
    assert.deepEqual(values(r, 'lat.e2e.sum'), [{ ts: 1717000000000, v: 3.5 }]);
    assert.deepEqual(values(r, 'lat.e2e.count'), [{ ts: 1717000000000, v: 4 }]);
    const e2e = seriesRows(r).find((s) => s.name === 'lat.e2e')!;
    assert.deepEqual(r.all('SELECT ts_ms, le, count FROM histograms WHERE series_id = ? ORDER BY le', e2e.id), [
      { ts_ms: 1717000000000, le: 1, count: 3 },
      { ts_ms: 1717000000000, le: Infinity, count: 4 },
    ]);
    const q = seriesRows(r).find((s) => s.name === 'rpc_seconds')!;
    assert.equal(q.kind, 'summary');
    assert.equal(q.labels.quantile, '0.99');
    assert.deepEqual(values(r, 'rpc_seconds_sum').map((s) => s.v), [10]);
    // The blank sentinel and +Inf are not readings: only the first scrape's clock remains.
    assert.deepEqual(values(r, 'gpu.sm_clock', { gpu: '0' }), [{ ts: 1717000000000, v: 1980 }]);
    assert.deepEqual(values(r, 'gpu.sm_clock', { gpu: '1' }), []);
    // Escaped label values come back unescaped; NaN is not stored.
    assert.deepEqual(seriesRows(r).find((s) => s.name === 'odd')?.labels, { path: 'C:\\dir', q: 'say "hi"', nl: 'a\nb' });
    assert.deepEqual(values(r, 'odd'), []);
    assert.deepEqual(values(r, 'own_ts'), [{ ts: 1717000005000, v: 7 }]);
    assert.deepEqual(values(r, 'om_ts'), [{ ts: 1717000006500, v: 8 }]);
    assert.equal(r.warnings.length, 1);
    assert.match(r.warnings[0], /input\.txt \(line 21\): malformed sample line/);
  } finally {
    r.dispose();
  }
});

test('a single scrape without times and without mtime takes the import time, with a warning', async () => {
  const before = Date.now();
  const r = await runImporter(prometheusTextImporter, { text: '# TYPE up gauge\nup 1\n', mtimeMs: null });
  try {
    const [s] = values(r, 'up');
    assert.ok(s.ts >= before && s.ts <= Date.now());
    assert.equal(r.warnings.length, 1);
    assert.match(r.warnings[0], /import time/);
  } finally {
    r.dispose();
  }
});

test('a file that is mostly garbage fails alone with the place named', async () => {
  const text = ['# TYPE up gauge', 'up 1', ...Array.from({ length: 1200 }, (_, i) => `garbage line ${i}`)].join('\n');
  const r = await runImporter(prometheusTextImporter, { text, mtimeMs: 1 });
  try {
    assert.ok(r.error);
    assert.match(r.error!.message, /input\.txt \(line \d+\): not Prometheus text exposition/);
    assert.equal(r.all<{ n: number }>('SELECT COUNT(*) n FROM samples')[0].n, 0);
  } finally {
    r.dispose();
  }
});

test('scrape header writer and reader agree; label parser handles escapes', () => {
  assert.equal(scrapeHeader(1717000000000.4), '# scrape_ts_ms=1717000000000\n');
  assert.equal(parseScrapeHeader(scrapeHeader(42).trim()), 42);
  assert.equal(parseScrapeHeader('# time: 2024-05-30T16:26:50.250+02:00'), Date.UTC(2024, 4, 30, 14, 26, 50, 250));
  assert.equal(parseScrapeHeader('# HELP x y'), null);
  const s = 'x{a="1,2",b="}{"}';
  assert.deepEqual(parseLabels(s, 1, s.length), { a: '1,2', b: '}{' });
});

test('detection: exposition text scores high, logs and CSV do not', () => {
  assert.equal(prometheusTextImporter.detect(Buffer.from(SERIES), 'x'), 0.9);
  assert.equal(prometheusTextImporter.detect(Buffer.from('INFO 05-19 10:13:11 [loggers.py:271] hello\n'), 'x'), 0);
  assert.equal(prometheusTextImporter.detect(Buffer.from('timestamp, name\n2026/07/03 22:11:09.763, H200\n'), 'x'), 0);
});

/** The samples of the one series with exactly these labels (besides `metric`, which the importer adds). */
function exact(r: Awaited<ReturnType<typeof runImporter>>, name: string, labels: Record<string, string>): { ts: number; v: number }[] {
  const own = (l: Record<string, string>) => JSON.stringify(Object.entries(l).filter(([k]) => k !== 'metric').sort());
  const m = seriesRows(r).filter((s) => s.name === name && own(s.labels) === own(labels));
  if (m.length !== 1) throw new Error(`${m.length} series ${name} ${JSON.stringify(labels)}: ${JSON.stringify(seriesRows(r).map((s) => [s.name, s.labels]))}`);
  return r.all<{ ts: number; v: number }>('SELECT ts_ms AS ts, value AS v FROM samples WHERE series_id = ? ORDER BY ts_ms', m[0].id);
}

test('scrapes whose lines change order, appear, vanish or share a prefix with the last scrape\'s keys land in the right series', async () => {
  const T = 1_767_225_600_000;
  const text = [
    scrapeHeader(T),
    '# TYPE foo gauge',
    'foo 1',
    'foo{a="1"} 10',
    'bar{gpu="0",model="H100 80GB"} 100',
    scrapeHeader(T + 1000),
    '# TYPE foo_bar gauge',
    'foo_bar 2', // where `foo` was: a longer name with the same prefix
    'foo{a="1",b="2"} 20', // where `foo{a="1"}` was: a longer label set
    'foo 3',
    scrapeHeader(T + 2000),
    'foo 4',
    'foo{a="1"}\t40',
    'bar{gpu="0",model="H100 80GB"} 400',
    '',
  ].join('\n');
  const r = await runImporter(prometheusTextImporter, { text, name: 'scrapes.prom' });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(exact(r, 'foo', {}), [{ ts: T, v: 1 }, { ts: T + 1000, v: 3 }, { ts: T + 2000, v: 4 }]);
    assert.deepEqual(exact(r, 'foo', { a: '1' }), [{ ts: T, v: 10 }, { ts: T + 2000, v: 40 }]);
    assert.deepEqual(exact(r, 'foo', { a: '1', b: '2' }), [{ ts: T + 1000, v: 20 }]);
    assert.deepEqual(exact(r, 'foo_bar', {}), [{ ts: T + 1000, v: 2 }]);
    assert.deepEqual(exact(r, 'bar', { gpu: '0', model: 'H100 80GB' }), [{ ts: T, v: 100 }, { ts: T + 2000, v: 400 }]);
  } finally {
    r.dispose();
  }
});

test('OpenMetrics exemplars: the value before the exemplar is read, not the exemplar\'s own; a "#" or "}" inside a label value is kept', async () => {
  const text = [
    '# TYPE req counter',
    'req_total{path="/a"} 7 # {trace_id="abc"} 1 1767225600.5',
    'req_total{path="/b#x}y"} 8',
    'req_total{path="/c"} 9 1767225601.000 # {trace_id="def"} 2',
    '# EOF',
    '',
  ].join('\n');
  const r = await runImporter(prometheusTextImporter, { text, name: 'om.txt', mtimeMs: 1_767_225_600_000 });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(exact(r, 'req_total', { path: '/a' }).map((s) => s.v), [7]);
    assert.deepEqual(exact(r, 'req_total', { path: '/b#x}y' }).map((s) => s.v), [8]);
    assert.deepEqual(exact(r, 'req_total', { path: '/c' }), [{ ts: 1_767_225_601_000, v: 9 }]);
  } finally {
    r.dispose();
  }
});

const variant = (name: string) => new URL(`../../samples/variants/${name}`, import.meta.url).pathname;

test('prometheus_client `_created` series under their own `# TYPE … gauge` are skipped (they were plotted as gauges)', async () => {
  const r = await runImporter(prometheusTextImporter, { file: variant('prometheus-created-gauges.prom'), mtimeMs: 1737451300000 });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(seriesRows(r).filter((s) => s.name.includes('created') || s.labels.metric?.includes('created')), []);
    assert.deepEqual(values(r, 'kv.preemptions').map((s) => s.v), [3]);
    assert.deepEqual(values(r, 'req.running').map((s) => s.v), [4]);
    assert.equal(r.all<{ n: number }>('SELECT COUNT(*) n FROM histograms')[0].n, 2);
    assert.deepEqual(seriesRows(r).map((s) => s.name).sort(), ['kv.preemptions', 'lat.e2e', 'lat.e2e.count', 'lat.e2e.sum', 'req.running']);
  } finally {
    r.dispose();
  }
});

test('Ray Serve LLM `ray_vllm:` metrics map to the same canonical signals, counters kept counters', async () => {
  const r = await runImporter(prometheusTextImporter, { file: variant('ray-serve-llm-metrics.prom'), mtimeMs: 1737451300000 });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(values(r, 'req.running').map((s) => s.v), [7]);
    assert.deepEqual(values(r, 'req.waiting').map((s) => s.v), [2]);
    assert.deepEqual(values(r, 'kv.usage').map((s) => s.v), [0.83]);
    const pre = seriesRows(r).find((s) => s.name === 'kv.preemptions')!;
    assert.equal(pre.kind, 'counter');
    assert.equal(pre.labels.metric, 'ray_vllm:num_preemptions');
    assert.equal(pre.labels.model, 'llama-8b');
    assert.deepEqual(values(r, 'lat.ttft.count').map((s) => s.v), [12]);
    assert.equal(seriesRows(r).some((s) => s.name.startsWith('ray_')), false);
  } finally {
    r.dispose();
  }
});

test('vllm:lora_requests_info: every label set since start-up is listed; only the recent ones count, pooled per scrape, one series per adapter', async () => {
  // vLLM sets a new label set to the current time whenever its adapters change and never removes one.
  const T = 1717000000;
  const info = (running: string, waiting: string, setAt: number, scrape: number) =>
    `vllm:lora_requests_info{instance="h:8000",max_lora="2",running_lora_adapters="${running}",waiting_lora_adapters="${waiting}"} ${setAt} ${scrape * 1000}`;
  const text = [
    '# TYPE vllm:lora_requests_info gauge',
    info('a,b', '', T - 1000, T), // history: set 1000 s before the scrape
    info('c', 'd', T - 5, T),
    info('a,b', '', T - 1000, T + 30),
    info('c', 'd', T - 5, T + 30), // 35 s old: still the present (set within the minute)
    info('a', '', T + 29, T + 30),
    info('', '', T + 55, T + 60),
  ].join('\n');
  const r = await runImporter(prometheusTextImporter, { text, mtimeMs: 1 });
  try {
    assert.equal(r.error, null);
    // One series per engine: the adapter lists are not labels of lora.active.
    assert.deepEqual(values(r, 'lora.active', { instance: 'h:8000' }), [
      { ts: T * 1000, v: 2 },
      { ts: (T + 30) * 1000, v: 3 },
      { ts: (T + 60) * 1000, v: 0 },
    ]);
    assert.deepEqual(values(r, 'lora.adapter', { adapter: 'a' }), [{ ts: (T + 30) * 1000, v: 1 }]);
    assert.deepEqual(values(r, 'lora.adapter', { adapter: 'd' }).map((s) => s.ts), [T * 1000, (T + 30) * 1000]);
    assert.equal(seriesRows(r).find((s) => s.name === 'lora.adapter' && s.labels.adapter === 'c')?.labels.max_lora, '2');
  } finally {
    r.dispose();
  }
});

test('federation: histograms typed untyped per sample name (or not typed) keep their buckets, sum and count', async () => {
  const scrape = (t: number, inf: number) =>
    [
      '# TYPE vllm:e2e_request_latency_seconds_bucket untyped',
      `vllm:e2e_request_latency_seconds_bucket{instance="a",le="0.5",model_name="m"} 3 ${t}`,
      `vllm:e2e_request_latency_seconds_bucket{instance="a",le="+Inf",model_name="m"} ${inf} ${t}`,
      '# TYPE vllm:e2e_request_latency_seconds_count untyped',
      `vllm:e2e_request_latency_seconds_count{instance="a",model_name="m"} ${inf} ${t}`,
      '# TYPE vllm:e2e_request_latency_seconds_sum untyped',
      `vllm:e2e_request_latency_seconds_sum{instance="a",model_name="m"} ${inf / 2} ${t}`,
      '# TYPE vllm:num_requests_running untyped',
      `vllm:num_requests_running{instance="a",model_name="m"} 2 ${t}`,
    ].join('\n');
  const typed = [scrape(1717000000000, 6), scrape(1717000015000, 8)].join('\n');
  // VictoriaMetrics' /federate: no TYPE lines at all.
  const bare = typed.split('\n').filter((l) => !l.startsWith('#')).join('\n');
  for (const text of [typed, bare]) {
    const r = await runImporter(prometheusTextImporter, { text, mtimeMs: 1 });
    try {
      assert.equal(r.error, null);
      const e2e = seriesRows(r).find((s) => s.name === 'lat.e2e')!;
      assert.equal(e2e.kind, 'histogram');
      assert.deepEqual(
        r.all('SELECT ts_ms, le, count FROM histograms WHERE series_id = ? ORDER BY ts_ms, le', e2e.id).map((x) => Object.values(x)),
        [[1717000000000, 0.5, 3], [1717000000000, Infinity, 6], [1717000015000, 0.5, 3], [1717000015000, Infinity, 8]],
      );
      assert.deepEqual(values(r, 'lat.e2e.count').map((s) => s.v), [6, 8]);
      assert.deepEqual(values(r, 'lat.e2e.sum').map((s) => s.v), [3, 4]);
      assert.equal(seriesRows(r).some((s) => s.name.includes('_bucket') || s.name.includes('_count')), false);
      assert.deepEqual(values(r, 'req.running').map((s) => s.v), [2, 2]);
    } finally {
      r.dispose();
    }
  }
});

test('separators, names inside the label set, byte-order mark and native histogram values', async () => {
  const text = Buffer.concat([
    Buffer.from([0xef, 0xbb, 0xbf]),
    Buffer.from(
      [
        'tab_sep{a="x"}\t4\t1717000000000',
        'spaced{ a = "x" ,\tb="y" }  5   1717000000000',
        // promtool tsdb dump
        '{__name__="vllm:num_requests_waiting", model_name="m"} 7 1717000000000',
        // Prometheus 3 UTF-8 names
        '{"my.dotted.metric", "error.message"="Not Found"} 1 1717000000000',
        '# TYPE vllm:time_to_first_token_seconds histogram',
        'vllm:time_to_first_token_seconds{model_name="m"} {count:59,sum:120.0,schema:3,zero_threshold:1e-4,zero_count:2,positive_spans:[0:3],positive_buckets:[10,15,12]} 1717000000',
        'nativehistogram {count:24,sum:100,schema:0} 1717000000',
        '',
      ].join('\r\n'),
    ),
  ]);
  assert.equal(prometheusTextImporter.detect(text, 'x'), 0.9);
  const r = await runImporter(prometheusTextImporter, { text, mtimeMs: 1 });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(values(r, 'tab_sep'), [{ ts: 1717000000000, v: 4 }]);
    assert.deepEqual(seriesRows(r).find((s) => s.name === 'spaced')?.labels, { a: 'x', b: 'y' });
    assert.deepEqual(values(r, 'spaced'), [{ ts: 1717000000000, v: 5 }]);
    assert.deepEqual(values(r, 'req.waiting'), [{ ts: 1717000000000, v: 7 }]);
    assert.deepEqual(seriesRows(r).find((s) => s.name === 'my.dotted.metric')?.labels, { 'error.message': 'Not Found' });
    // A native histogram's `{…}` is never read as a label set or a value: no series, no bogus number.
    assert.equal(seriesRows(r).some((s) => s.name === 'lat.ttft' || s.name === 'nativehistogram'), false);
    assert.equal(r.warnings.length, 1, r.warnings.join('\n'));
    assert.match(r.warnings[0], /2 native histogram samples \(\{count:…\} values\) are not read/);
  } finally {
    r.dispose();
  }
  // Only a promtool dump: detected all the same.
  assert.equal(prometheusTextImporter.detect(Buffer.from('{__name__="up", job="a"} 1 1717000000000\n{__name__="up", job="b"} 0 1717000000000\n{__name__="up", job="c"} 1 1717000000000\n'), 'x'), 0.7);
});

test('scrapes appended with no time: a bare RFC 3339 line heads a scrape; without one, the repeats are said, not silently collapsed', async () => {
  const scrape = (n: number) => `# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{model_name="m"} ${n}\nvllm:num_requests_waiting{model_name="m"} ${n * 10}\n`;
  const dated = `2025-01-15T10:00:00Z\n${scrape(1)}2025-01-15T10:00:15+00:00\n${scrape(2)}2025-01-15T10:00:30Z\n${scrape(3)}`;
  const r = await runImporter(prometheusTextImporter, { text: dated, mtimeMs: 1 });
  try {
    assert.equal(r.error, null);
    const t0 = Date.UTC(2025, 0, 15, 10, 0, 0);
    assert.deepEqual(values(r, 'req.running'), [
      { ts: t0, v: 1 },
      { ts: t0 + 15000, v: 2 },
      { ts: t0 + 30000, v: 3 },
    ]);
    assert.deepEqual(r.warnings, []);
  } finally {
    r.dispose();
  }
  const bare = await runImporter(prometheusTextImporter, { text: scrape(1) + scrape(2) + scrape(3), mtimeMs: 1717000000000 });
  try {
    assert.deepEqual(values(bare, 'req.running'), [{ ts: 1717000000000, v: 3 }]);
    assert.ok(bare.warnings.some((w) => /the same scrape comes 3 times with no time of its own/.test(w)), bare.warnings.join('\n'));
  } finally {
    bare.dispose();
  }
});

test('`curl -i … >> file` in a loop: the HTTP headers are skipped and each response\'s Date is its scrape\'s time', async () => {
  const response = (date: string, n: number) =>
    ['HTTP/1.1 200 OK', `date: ${date}`, 'server: uvicorn', 'content-type: text/plain; version=0.0.4; charset=utf-8', '', '# TYPE vllm:num_requests_running gauge', `vllm:num_requests_running{model_name="m"} ${n}`, ''].join('\r\n');
  const text = response('Sun, 01 Dec 2024 10:00:00 GMT', 3) + response('Sun, 01 Dec 2024 10:00:15 GMT', 4);
  assert.ok(prometheusTextImporter.detect(Buffer.from(text), 'x') > 0);
  const r = await runImporter(prometheusTextImporter, { text, mtimeMs: 1 });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(r.warnings, []);
    assert.deepEqual(values(r, 'req.running'), [
      { ts: Date.UTC(2024, 11, 1, 10), v: 3 },
      { ts: Date.UTC(2024, 11, 1, 10, 0, 15), v: 4 },
    ]);
    assert.deepEqual(seriesRows(r).map((s) => s.name), ['req.running']);
  } finally {
    r.dispose();
  }
});

test("SGLang ~0.3's metric names land on the same signals as today's", async () => {
  const text = [
    '# TYPE sglang:num_requests_running gauge',
    'sglang:num_requests_running{name="google/gemma-2-9b-it"} 5',
    '# TYPE sglang:num_requests_waiting gauge',
    'sglang:num_requests_waiting{name="google/gemma-2-9b-it"} 2',
    '# TYPE sglang:waiting_request_latency_seconds histogram',
    'sglang:waiting_request_latency_seconds_bucket{name="google/gemma-2-9b-it",le="0.5"} 3',
    'sglang:waiting_request_latency_seconds_bucket{name="google/gemma-2-9b-it",le="+Inf"} 4',
    'sglang:waiting_request_latency_seconds_sum{name="google/gemma-2-9b-it"} 1.5',
    'sglang:waiting_request_latency_seconds_count{name="google/gemma-2-9b-it"} 4',
  ].join('\n');
  const r = await runImporter(prometheusTextImporter, { text, mtimeMs: 1717000000000 });
  try {
    assert.deepEqual(values(r, 'req.running').map((s) => s.v), [5]);
    assert.deepEqual(values(r, 'req.waiting').map((s) => s.v), [2]);
    assert.deepEqual(values(r, 'lat.queue.count').map((s) => s.v), [4]);
  } finally {
    r.dispose();
  }
});

test('review: untimed scrapes apart by `curl -i` status lines without a Date, or by # EOF, are said to collapse', async () => {
  const scrape = (n: number) => `# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{model_name="m"} ${n}\n`;
  for (const text of [`HTTP/1.1 200 OK\nserver: uvicorn\n\n${scrape(1)}HTTP/1.1 200 OK\nserver: uvicorn\n\n${scrape(2)}`, `${scrape(1)}# EOF\n${scrape(2)}# EOF\n`]) {
    const r = await runImporter(prometheusTextImporter, { text, mtimeMs: 1717000000000 });
    try {
      assert.deepEqual(values(r, 'req.running'), [{ ts: 1717000000000, v: 2 }]);
      assert.ok(r.warnings.some((w) => /the same scrape comes 2 times with no time of its own/.test(w)), r.warnings.join('\n'));
    } finally {
      r.dispose();
    }
  }
});

test('OpenMetrics `_created` lines without a timestamp do not make a timed file warn that it has none', async () => {
  const text = ['# TYPE requests counter', 'requests_total 5 1717000000', 'requests_created 1716990000', '# EOF', ''].join('\n');
  const r = await runImporter(prometheusTextImporter, { text, mtimeMs: 1 });
  try {
    assert.deepEqual(values(r, 'requests_total'), [{ ts: 1717000000000, v: 5 }]);
    assert.deepEqual(r.warnings, []);
  } finally {
    r.dispose();
  }
});

test('an unknown counter is named as its samples are, `foo_total`, whether the exposition typed `foo` (OpenMetrics) or `foo_total` (0.0.4)', async () => {
  const om = await runImporter(prometheusTextImporter, { text: '# TYPE jobs counter\njobs_total{q="a"} 3 1717000000\n# EOF\n' });
  const text004 = await runImporter(prometheusTextImporter, { text: '# TYPE jobs_total counter\njobs_total{q="a"} 3 1717000000000\n' });
  try {
    for (const r of [om, text004]) assert.deepEqual(seriesRows(r).map((s) => [s.name, s.kind]), [['jobs_total', 'counter']]);
  } finally {
    om.dispose();
    text004.dispose();
  }
});

test("an OpenMetrics gaugehistogram's _gcount and _gsum are gauges (they go down), a histogram's _count and _sum counters", async () => {
  const text = ['# TYPE queue gaugehistogram', 'queue_bucket{le="1"} 2 1717000000', 'queue_bucket{le="+Inf"} 3 1717000000', 'queue_gcount 3 1717000000', 'queue_gsum 2.5 1717000000', '# TYPE lat histogram', 'lat_bucket{le="+Inf"} 1 1717000000', 'lat_count 1 1717000000', 'lat_sum 0.2 1717000000', '# EOF', ''].join('\n');
  const r = await runImporter(prometheusTextImporter, { text });
  try {
    const kinds = Object.fromEntries(seriesRows(r).map((s) => [s.name, s.kind]));
    assert.deepEqual([kinds.queue_gcount, kinds.queue_gsum, kinds.lat_count, kinds.lat_sum], ['gauge', 'gauge', 'counter', 'counter']);
  } finally {
    r.dispose();
  }
});

test('percent and millisecond scales divide, so 35 % is 0.35 and 95 % is not past 0.95', async () => {
  const text = [
    '# TYPE DCGM_FI_DEV_GPU_UTIL gauge',
    'DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-a"} 35 1700000000000',
    'DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-a"} 95 1700000015000',
    'DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-a"} 7 1700000030000',
  ].join('\n');
  const r = await runImporter(prometheusTextImporter, { text, name: 'dcgm.prom' });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(values(r, 'gpu.util').map((s) => s.v), [0.35, 0.95, 0.07]);
  } finally {
    r.dispose();
  }
});

test("dcgm-exporter's count of each Xid in its window reads as gpu.xid's code while it counts, 0 after", async () => {
  const line = (n: number, t: number) => `DCGM_EXP_XID_ERRORS_COUNT{gpu="0",UUID="GPU-a",Hostname="node-1",window_size_in_ms="300000",xid="79"} ${n} ${t}`;
  const text = ['# TYPE DCGM_EXP_XID_ERRORS_COUNT gauge', line(0, 1700000000000), line(1, 1700000015000), line(2, 1700000030000), line(0, 1700000045000)].join('\n');
  const r = await runImporter(prometheusTextImporter, { text, name: 'dcgm.prom' });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(values(r, 'gpu.xid').map((s) => s.v), [0, 79, 79, 0]);
    assert.equal(seriesRows(r).find((s) => s.name === 'gpu.xid')!.labels.xid, '79');
  } finally {
    r.dispose();
  }
});

test('an unknown metric named …_tokens_seconds is a rate in tokens/s, not a duration; …_seconds stays seconds', async () => {
  const text = ['# TYPE my_server_prompt_tokens_seconds gauge', 'my_server_prompt_tokens_seconds 140.2', '# TYPE my_server_step_seconds gauge', 'my_server_step_seconds 0.02', ''].join('\n');
  const r = await runImporter(prometheusTextImporter, { text, name: 'm.prom', mtimeMs: Date.UTC(2026, 2, 14) });
  try {
    assert.deepEqual(seriesRows(r).map((s) => [s.name, s.unit]).sort(), [
      ['my_server_prompt_tokens_seconds', 'tokens/s'],
      ['my_server_step_seconds', 'seconds'],
    ]);
  } finally {
    r.dispose();
  }
});

test("vLLM V0's prefix-cache hit rate of −1 (prefix caching off) is no reading: a share below 0 is a sentinel, not −100%", async () => {
  const text = [
    '# TYPE vllm:gpu_prefix_cache_hit_rate gauge',
    'vllm:gpu_prefix_cache_hit_rate{model_name="m"} -1.0 1717000000000',
    'vllm:gpu_prefix_cache_hit_rate{model_name="m"} 0.42 1717000010000',
    '# TYPE vllm:gpu_cache_usage_perc gauge',
    'vllm:gpu_cache_usage_perc{model_name="m"} 0.5 1717000000000',
  ].join('\n');
  const r = await runImporter(prometheusTextImporter, { text, mtimeMs: 1 });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(values(r, 'kv.prefix_hit_rate').map((s) => s.v), [0.42]);
    assert.deepEqual(values(r, 'kv.usage').map((s) => s.v), [0.5]);
  } finally {
    r.dispose();
  }
});

test("dcgm-exporter's `ERROR - FAILED TO CONVERT TO STRING` where a value goes is warned as no value from the exporter; the scrape's other samples are read", async () => {
  const text = [
    'DCGM_FI_DEV_FB_USED{gpu="0",UUID="GPU-1",Hostname="h",GPU_I_ID="3"} 10 1700000000000',
    'DCGM_FI_DEV_VGPU_PER_PROCESS_UTILIZATION{gpu="0",UUID="GPU-1",Hostname="h",GPU_I_ID="3"} ERROR - FAILED TO CONVERT TO STRING',
  ].join('\n');
  const r = await runImporter(prometheusTextImporter, { text });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(values(r, 'gpu.mem.used').map((x) => x.v), [10 * MIB]);
    assert.ok(r.warnings.some((w) => /line 2\).*no value: the exporter wrote "ERROR - FAILED TO CONVERT TO STRING"/.test(w)), r.warnings.join('\n'));
  } finally {
    r.dispose();
  }
});
