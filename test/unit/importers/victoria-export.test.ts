// VictoriaMetrics' JSON-lines export (victoria-export.ts): the shapes its /api/v1/export writes that a
// plain JSON reader would get wrong — bare infinities, a histogram's `_sum`/`_count` before its buckets, a
// series over several lines, keys sorted by a re-formatter. The real server's own export is read in
// test/integration/pull.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { detectImporter, HEAD_BYTES } from '../../../node/engine/importers/registry';
import { victoriaExportImporter } from '../../../node/engine/importers/victoria-export';
import { runImporter, seriesRows, values } from './run-importer';

const T = 1773478805000;
const line = (metric: Record<string, string>, values: (number | string)[], step = 15_000, t0 = T) =>
  JSON.stringify({ metric, values, timestamps: values.map((_, i) => t0 + i * step) });

test('detected from its first line, keys in either order; a Prometheus answer is not', () => {
  const a = Buffer.from(line({ __name__: 'up', job: 'x' }, [1]) + '\n');
  assert.equal(detectImporter(a.subarray(0, HEAD_BYTES), 'export.jsonl')?.format, 'victoriametrics-jsonl');
  const sorted = Buffer.from('{"metric":{"__name__":"up"},"timestamps":[1],"values":[1]}\n');
  assert.equal(detectImporter(sorted, 'x.json')?.format, 'victoriametrics-jsonl');
  const answer = Buffer.from('{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"up"},"values":[[1,"1"]]}]}}');
  assert.equal(detectImporter(answer, 'x.json')?.format, 'prometheus-json');
  // A query_range answer's result lines (`jq -c '.data.result[]'`): [t, "v"] pairs, not VictoriaMetrics' arrays.
  const resultLines = Buffer.from('{"metric":{"__name__":"up"},"values":[[1773478805,"1"],[1773478820,"1"]]}\n');
  assert.notEqual(detectImporter(resultLines, 'x.jsonl')?.format, 'victoriametrics-jsonl');
});

test('a histogram whose _sum and _count come before its buckets; bare +Inf; a series over two lines', async () => {
  const eng = { engine: '0', model_name: 'm' };
  const text = [
    line({ __name__: 'vllm:e2e_request_latency_seconds_sum', ...eng }, [1.5, 4.5]),
    line({ __name__: 'vllm:e2e_request_latency_seconds_count', ...eng }, [2, 5]),
    line({ __name__: 'vllm:num_requests_waiting', ...eng }, [0, 3]),
    line({ __name__: 'vllm:e2e_request_latency_seconds_bucket', ...eng, le: '1.0' }, [1, 2]),
    line({ __name__: 'vllm:e2e_request_latency_seconds_bucket', ...eng, le: '+Inf' }, [2, 5]),
    // VictoriaMetrics writes infinities unquoted.
    `{"metric":{"__name__":"odd_gauge","a":"1"},"values":[1,+Inf,-Inf,2],"timestamps":[${T},${T + 1000},${T + 2000},${T + 3000}]}`,
    // max_rows_per_line: one series, two lines.
    line({ __name__: 'vllm:num_requests_waiting', ...eng }, [7, 8], 15_000, T + 30_000),
  ].join('\n');
  const r = await runImporter(victoriaExportImporter, { text, name: 'export.jsonl' });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(r.warnings, []);
    const e2e = seriesRows(r).find((s) => s.name === 'lat.e2e')!;
    assert.equal(e2e.kind, 'histogram');
    assert.deepEqual(values(r, 'lat.e2e.sum').map((s) => s.v), [1.5, 4.5]);
    assert.deepEqual(values(r, 'lat.e2e.count').map((s) => s.v), [2, 5]);
    assert.equal(seriesRows(r).some((s) => s.name.endsWith('_sum') || s.name.endsWith('_count')), false, 'no part left under its raw name');
    assert.deepEqual(r.all('SELECT ts_ms, le, count FROM histograms ORDER BY ts_ms, le'), [
      { ts_ms: T, le: 1, count: 1 },
      { ts_ms: T, le: Infinity, count: 2 },
      { ts_ms: T + 15_000, le: 1, count: 2 },
      { ts_ms: T + 15_000, le: Infinity, count: 5 },
    ]);
    assert.deepEqual(values(r, 'req.waiting'), [
      { ts: T, v: 0 },
      { ts: T + 15_000, v: 3 },
      { ts: T + 30_000, v: 7 },
      { ts: T + 45_000, v: 8 },
    ]);
    assert.equal(seriesRows(r).filter((s) => s.name === 'req.waiting').length, 1);
    // ±Inf samples are left out, as in every Prometheus format; the finite ones stay.
    assert.deepEqual(values(r, 'odd_gauge').map((s) => s.v), [1, 2]);
  } finally {
    r.dispose();
  }
});

test('a summary keeps its _sum and _count as counters of its own name; seconds become ms', async () => {
  const text = [
    line({ __name__: 'rpc_duration_seconds_sum', job: 'x' }, [1, 2], 15, 1773478805),
    line({ __name__: 'rpc_duration_seconds_count', job: 'x' }, [3, 4], 15, 1773478805),
  ].join('\n');
  const r = await runImporter(victoriaExportImporter, { text, name: 'export.jsonl' });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(values(r, 'rpc_duration_seconds_sum'), [
      { ts: T, v: 1 },
      { ts: T + 15_000, v: 2 },
    ]);
    assert.deepEqual(values(r, 'rpc_duration_seconds_count').map((s) => s.v), [3, 4]);
  } finally {
    r.dispose();
  }
});

test('bad lines are warned with their line and skipped; a file of them fails', async () => {
  const good = line({ __name__: 'up', job: 'x' }, [1, 1]);
  const text = [good, '{"metric":{"__name__":"up"},"values":[1,2],"timestamps":[1]}', '{"metric":', line({ job: 'x' }, [1]), good].join('\n');
  const r = await runImporter(victoriaExportImporter, { text, name: 'export.jsonl' });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(r.warnings, [
      'export.jsonl (line 2): 2 values for 1 timestamps',
      'export.jsonl (line 3): not JSON',
      'export.jsonl: 1 series without "__name__" skipped',
    ]);
    assert.equal(values(r, 'up').length, 2);
  } finally {
    r.dispose();
  }
  const bad = await runImporter(victoriaExportImporter, { text: '{"metric":{}}\nnot json\n', name: 'export.jsonl' });
  try {
    assert.match(String(bad.error?.message), /not a VictoriaMetrics export: 2 of 2 non-empty lines are unreadable/);
  } finally {
    bad.dispose();
  }
});
