import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { corpusFile, skipUnlessCorpus } from '../../helpers/corpus';
import { importFiles, tempStore } from '../../helpers/import-file';
import { csvFields } from '../../../node/engine/importers/csv-fields';
import { metricValue, ncuCsvImporter } from '../../../node/engine/importers/ncu-csv';
import { storeSql } from '../../helpers/store-sql';

const importers = [ncuCsvImporter];
const REL = 'ncu_csv/superbench_cublaslt_ncu_details_sm100.log';

test('corpus details page: one kernel with its metrics and rule results', { skip: skipUnlessCorpus(REL) }, async () => {
  // The independent reading: metric rows and rule rows counted from the raw lines.
  const lines = readFileSync(corpusFile(REL)!, 'utf8').split('\n').filter((l) => l.startsWith('"0"'));
  const metricRows = lines.filter((l) => csvFields(l)[12] !== '');
  const ruleRows = lines.filter((l) => csvFields(l)[15]);
  const t = tempStore();
  try {
    const r = await importFiles(t.store, [corpusFile(REL)!], { importers });
    assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
    const ks = storeSql(t.store).prepare('SELECT name, device, stream, start_ns, end_ns, attrs_json FROM kernels').safeIntegers().all() as { name: string; device: bigint; stream: bigint; start_ns: bigint; end_ns: bigint; attrs_json: string }[];
    assert.equal(ks.length, 1);
    assert.equal(ks[0].name, 'cutlass3x_sm100_tensorop_s64x256x32gemm_f8_f8_f32_f16_f16_64x256x128_1x1x1_0_tnn_align4_1sm_bias_f16_relu_aux_scalemax');
    assert.equal(ks[0].stream, 7n);
    // "Duration","ns","406240" in the file.
    assert.equal(ks[0].end_ns - ks[0].start_ns, 406240n);
    const attrs = JSON.parse(ks[0].attrs_json);
    assert.equal(Object.keys(attrs.metrics).length, metricRows.length);
    assert.equal(attrs.metrics['DRAM Frequency'], 3995313115.4);
    assert.equal(attrs.units['DRAM Frequency'], 'hz');
    assert.equal(attrs.time_synthetic, true);
    assert.equal(attrs.rules.length, ruleRows.length);
    assert.equal(storeSql(t.store).prepare("SELECT COUNT(*) FROM events WHERE kind = 'ncu_rule'").pluck().get(), ruleRows.length);
  } finally {
    t.dispose();
  }
});

test('CSV fields: quotes, escaped quotes, ragged trailing comma; numbers with thousands separators', () => {
  assert.deepEqual(csvFields('"a","b ""q""","1,234.5",'), ['a', 'b "q"', '1,234.5']);
  assert.deepEqual(csvFields('x,,y'), ['x', '', 'y']);
  assert.equal(metricValue('1,234.5'), 1234.5);
  assert.equal(metricValue('12,345,678'), 12345678);
  assert.equal(metricValue('3.5e2'), 350);
  assert.equal(metricValue('(9, 32, 1)'), '(9, 32, 1)');
});

test('raw page: one row per kernel, units row, program output and ==PROF== lines skipped', async () => {
  const t = tempStore();
  try {
    const text = [
      'hello from the app',
      '==PROF== Connected to process 1',
      '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","gpu__time_duration.sum","dram__bytes.sum"',
      '"","","","","","","","","","","","nsecond","byte"',
      '"0","1","app","h","k_a","1","7","(128, 1, 1)","(4, 1, 1)","0","9.0","1,500","2,048",',
      '"1","1","app","h","k_b","1","7","(128, 1, 1)","(4, 1, 1)","1","9.0","2000","10"',
      '==PROF== Disconnected from process 1',
    ].join('\n');
    const file = join(t.dir, 'raw.csv');
    writeFileSync(file, text);
    const r = await importFiles(t.store, [file], { importers });
    assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
    const ks = storeSql(t.store).prepare('SELECT name, device, end_ns - start_ns AS d, attrs_json FROM kernels ORDER BY start_ns').all() as { name: string; device: number; d: number; attrs_json: string }[];
    assert.deepEqual(ks.map((k) => [k.name, k.device, k.d]), [['k_a', 0, 1500], ['k_b', 1, 2000]]);
    assert.deepEqual(JSON.parse(ks[0].attrs_json).metrics, { 'gpu__time_duration.sum': 1500, 'dram__bytes.sum': 2048 });
    assert.equal(JSON.parse(ks[0].attrs_json).units['dram__bytes.sum'], 'byte');
  } finally {
    t.dispose();
  }
});

test('older ncu with a "Kernel Time" column: each kernel starts at its own time (local, the zone option applied) or after the one before, in the same second', async () => {
  const header = '"ID","Process ID","Process Name","Host Name","Kernel Name","Kernel Time","Context","Stream","Section Name","Metric Name","Metric Unit","Metric Value"';
  const rows = [
    '"0","21524","euler3d","host","cuda_compute_step_factor","2020-Apr-07 17:01:05","1","7","GPU Speed Of Light","Duration","usecond","5.40"',
    '"1","21524","euler3d","host","cuda_compute_flux","2020-Apr-07 17:01:06","1","7","GPU Speed Of Light","Duration","usecond","20.00"',
    '"2","21524","euler3d","host","cuda_time_step","2020-Apr-07 17:01:06","1","7","GPU Speed Of Light","Duration","usecond","3.00"',
  ];
  const t = tempStore();
  try {
    const file = join(t.dir, 'ncu.csv');
    writeFileSync(file, [header, ...rows, ''].join('\n'));
    const r = await importFiles(t.store, [file], { importers, options: { tzOffsetMinutes: 120 } });
    assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
    const k = storeSql(t.store).prepare('SELECT name, start_ns, end_ns, attrs_json FROM kernels ORDER BY start_ns').safeIntegers().all() as { name: string; start_ns: bigint; end_ns: bigint; attrs_json: string }[];
    const t0 = BigInt(Date.UTC(2020, 3, 7, 15, 1, 5)) * 1_000_000n;
    assert.deepEqual(
      k.map((x) => [x.name, x.start_ns - t0, x.end_ns - x.start_ns, JSON.parse(x.attrs_json).kernel_time]),
      [
        ['cuda_compute_step_factor', 0n, 5_400n, '2020-Apr-07 17:01:05'],
        // A second later, as its Kernel Time says (laid back to back, it was 5.4 µs after the first).
        ['cuda_compute_flux', 1_000_000_000n, 20_000n, '2020-Apr-07 17:01:06'],
        ['cuda_time_step', 1_000_020_000n, 3_000n, '2020-Apr-07 17:01:06'],
      ],
    );
  } finally {
    t.dispose();
  }
});

test('the per-kernel summary (no ID): one kernel a launch shape with its invocations, averages and ranges; ncu\'s own warnings passed on', async () => {
  const header = '"Process ID","Process Name","Host Name","Kernel Name","Block Size","Grid Size","Device","CC","Invocations","Section Name","Metric Name","Metric Unit","Minimum","Maximum","Average"';
  const k = (grid: string, metric: string, unit: string, min: string, max: string, avg: string) =>
    `"4242","bench","127.0.0.1","axpy(float, const float *, float *, int)","(256, 1, 1)","${grid}","0","9.0","12","GPU Speed Of Light Throughput","${metric}","${unit}","${min}","${max}","${avg}"`;
  const lines = [
    '==PROF== Connected to process 4242',
    header,
    k('(1024, 1, 1)', 'Duration', 'us', '40.10', '95.50', '61.25'),
    k('(1024, 1, 1)', 'Elapsed Cycles', 'cycle', '30,001.00', '70,500.00', '41,200.00'),
    '==WARNING== Found outstanding GPU clock reset, trying to revert...Success.',
    k('(65536, 1, 1)', 'Duration', 'ms', '2.50', '3.10', '2.75'),
    '',
  ];
  const t = tempStore();
  try {
    const file = join(t.dir, 'summary.csv');
    writeFileSync(file, lines.join('\n'));
    const r = await importFiles(t.store, [file], { importers });
    assert.equal(r.sources[0].format, 'ncu-csv');
    assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
    const ks = storeSql(t.store).prepare('SELECT start_ns, end_ns, attrs_json FROM kernels ORDER BY start_ns').safeIntegers().all() as { start_ns: bigint; end_ns: bigint; attrs_json: string }[];
    assert.deepEqual(
      ks.map((x) => {
        const a = JSON.parse(x.attrs_json);
        return [x.end_ns - x.start_ns, a.grid, a.invocations, a.metrics['Elapsed Cycles'] ?? null, a.ranges.Duration];
      }),
      [
        [61_250n, '(1024, 1, 1)', 12, 41200, [40.1, 95.5]],
        [2_750_000n, '(65536, 1, 1)', 12, null, [2.5, 3.1]],
      ],
    );
    const warnings = JSON.parse((storeSql(t.store).prepare('SELECT warnings_json FROM sources').get() as { warnings_json: string }).warnings_json);
    assert.deepEqual(warnings, ['summary.csv (line 5): ncu warning: Found outstanding GPU clock reset, trying to revert...Success.']);
  } finally {
    t.dispose();
  }
});
