// Grafana's panel data downloaded as CSV (grafana-csv.ts): series joined by time with Prometheus' display
// names, legends, formatted values and dashboard times, and Grafana ≤ 7's `Series;Time;Value` rows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { grafanaCsvImporter, seriesOfColumn } from '../../../node/engine/importers/grafana-csv';
import { detectImporter, HEAD_BYTES } from '../../../node/engine/importers/registry';
import { runImporter, seriesRows, values } from './run-importer';

const sample = (name: string) => fileURLToPath(new URL(`../../samples/variants/${name}`, import.meta.url));
const T0 = 1773478800000;

test('column titles: a series as Prometheus shows it, with __name__ inside, labels only, or a legend', () => {
  assert.deepEqual(seriesOfColumn('vllm:num_requests_waiting{instance="a:8000", job="vllm"}'), { name: 'vllm:num_requests_waiting', labels: { instance: 'a:8000', job: 'vllm' } });
  assert.deepEqual(seriesOfColumn('{__name__="up", instance="a:9090"}'), { name: 'up', labels: { instance: 'a:9090' } });
  assert.deepEqual(seriesOfColumn('{instance="a:8000"}'), { name: null, labels: { instance: 'a:8000' } });
  assert.deepEqual(seriesOfColumn('p99 TTFT {prod}'), { name: null, labels: { legend: 'p99 TTFT {prod}' } });
  assert.deepEqual(seriesOfColumn('DCGM_FI_DEV_GPU_UTIL'), { name: 'DCGM_FI_DEV_GPU_UTIL', labels: {} });
});

test('series joined by time: metric names mapped to canonical series, an expression named after the file, empty cells no points', async () => {
  assert.equal(detectImporter(readFileSync(sample('grafana-series-joined.csv')).subarray(0, HEAD_BYTES), 'x.csv')?.format, 'grafana-csv');
  const r = await runImporter(grafanaCsvImporter, { file: sample('grafana-series-joined.csv') });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(values(r, 'req.waiting').map((s) => [s.ts - T0, s.v]), [[0, 0], [15000, 0], [30000, 1], [45000, 4], [60000, 9], [75000, 15]]);
    assert.deepEqual(values(r, 'kv.usage').map((s) => s.v), [0.41, 0.47, 0.62, 0.88, 0.97, 0.99]);
    assert.equal(seriesRows(r).find((s) => s.name === 'kv.usage')!.labels.instance, '10.0.3.17:8000');
    assert.deepEqual(values(r, 'grafana-series-joined', { expr: 'grafana-series-joined' }).length, 6);
    assert.deepEqual(r.warnings.map((w) => w.replace(/^[^:]+: /, '')), ['columns without a metric name (an expression\'s answer) are named after the file: "grafana-series-joined"']);
  } finally {
    r.dispose();
  }
});

test("formatted data: dashboard times in the import's zone, values kept without their display unit; both warned", async () => {
  const r = await runImporter(grafanaCsvImporter, { file: sample('grafana-formatted-legend.csv'), options: { tzOffsetMinutes: 60 } });
  try {
    assert.equal(r.error, null);
    // 10:00 at UTC+1 is 09:00Z.
    assert.deepEqual(values(r, 'p99 TTFT').map((s) => [s.ts, s.v]), [[Date.UTC(2026, 2, 14, 9, 0), 120], [Date.UTC(2026, 2, 14, 9, 1), 135], [Date.UTC(2026, 2, 14, 9, 2), 410], [Date.UTC(2026, 2, 14, 9, 3), 980]]);
    assert.deepEqual(values(r, 'GPU memory used').map((s) => s.v), [71.2, 71.9, 76.4, 79.1]);
    assert.equal(r.warnings.length, 3);
    assert.match(r.warnings[0], /times without a zone \(the dashboard's\): read as UTC\+1/);
    assert.match(r.warnings[1], /display units \("Formatted data"\)/);
  } finally {
    r.dispose();
  }
});

test("Grafana ≤ 7's Series;Time;Value rows; a file of bad times fails", async () => {
  const text = 'Series;Time;Value\nvllm:num_requests_running{instance="a:8000"};2026-03-14T09:00:00+01:00;4\nvllm:num_requests_running{instance="a:8000"};2026-03-14T09:00:15+01:00;6\nlegend, with comma;2026-03-14T09:00:00+01:00;1.5\n';
  assert.equal(detectImporter(Buffer.from(text), 'export.csv')?.format, 'grafana-csv');
  const r = await runImporter(grafanaCsvImporter, { text, name: 'export.csv' });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(values(r, 'req.running').map((s) => [s.ts, s.v]), [[Date.UTC(2026, 2, 14, 8, 0), 4], [Date.UTC(2026, 2, 14, 8, 0, 15), 6]]);
    assert.deepEqual(values(r, 'legend, with comma').map((s) => s.v), [1.5]);
  } finally {
    r.dispose();
  }
  const bad = await runImporter(grafanaCsvImporter, { text: '"Time","x"\nyesterday,1\nlater,2\n', name: 'bad.csv' });
  try {
    assert.match(String(bad.error?.message), /bad\.csv \(line 3\): not Grafana CSV: 2 of 2 non-empty lines are unreadable/);
  } finally {
    bad.dispose();
  }
});

test('formatted values of a metric Quadscope knows stay under the column\'s own name and unit; text cells and impossible dates are warned with their line; a long number is linear', async () => {
  const text = [
    '"Time","vllm:gpu_cache_usage_perc{instance=""a:8000""}"',
    '2024-04-09 03:14:00,45.3%',
    '2024-04-09 03:14:15,n/a',
    '2024-02-31 03:14:30,97.0%',
    `2024-04-09 03:14:45,${'9'.repeat(100_000)}x`,
    '',
  ].join('\n');
  const t0 = performance.now();
  const r = await runImporter(grafanaCsvImporter, { text, name: 'panel.csv' });
  try {
    assert.ok(performance.now() - t0 < 5000, 'a 100 kB cell is read in linear time');
    assert.equal(r.error, null);
    assert.equal(seriesRows(r).some((s) => s.name === 'kv.usage'), false, '45.3 is no fraction of 1');
    const s = seriesRows(r).find((x) => x.name === 'vllm:gpu_cache_usage_perc')!;
    assert.equal(s.unit, '%');
    assert.equal(s.labels.display_unit, '%');
    assert.deepEqual(values(r, 'vllm:gpu_cache_usage_perc').map((x) => x.v), [45.3]);
    assert.ok(r.warnings.some((w) => /\(line 3\): column "vllm:gpu_cache_usage_perc\{instance="a:8000"\}": "n\/a" is no number, skipped/.test(w)), r.warnings.join('\n'));
    assert.ok(r.warnings.some((w) => /\(line 4\): unreadable time "2024-02-31 03:14:30"/.test(w)), r.warnings.join('\n'));
    assert.ok(r.warnings.some((w) => /\(line 5\): column .* is no number, skipped/.test(w)), r.warnings.join('\n'));
  } finally {
    r.dispose();
  }
});
