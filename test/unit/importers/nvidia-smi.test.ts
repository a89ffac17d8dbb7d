import { test } from 'node:test';
import assert from 'node:assert/strict';
import { corpusFile, skipUnlessCorpus } from '../../helpers/corpus';
import { readFileSync } from 'node:fs';
import { cellNumber, detectDmon, detectPmon, nvidiaSmiAppsCsvImporter, nvidiaSmiCsvImporter, nvidiaSmiDmonImporter, nvidiaSmiPmonImporter } from '../../../node/engine/importers/nvidia-smi';
import { detectImporter } from '../../../node/engine/importers/registry';
import { MIB } from '../../../node/engine/signals/canonical';
import { runImporter, seriesRows, values } from './run-importer';

const FULL = 'nvidia_smi/h200_load_query-gpu_full.csv';
const APPS = 'nvidia_smi/h200_load_query-compute-apps.csv';
const DMON = 'nvidia_smi/h200_load_dmon.txt';
const TESTDATA = 'nvidia_smi/nvgpuexp_testdata_query.csv';
const CAPTURE = 'nvidia_smi/nvgpuexp_capture_linux-x86_64__nvidia-h200__590.48.01.txt';
const T_LOAD = Date.UTC(2026, 6, 3, 22, 11, 9, 763);

test('--query-gpu CSV with units (H200 under load): canonical values, local time read as UTC', { skip: skipUnlessCorpus(FULL) }, async () => {
  const r = await runImporter(nvidiaSmiCsvImporter, { file: corpusFile(FULL)! });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(r.warnings, []);
    assert.deepEqual(values(r, 'gpu.mem.used'), [{ ts: T_LOAD, v: 32362 * MIB }]);
    assert.deepEqual(values(r, 'gpu.mem.total').map((s) => s.v), [143771 * MIB]);
    assert.deepEqual(values(r, 'gpu.util').map((s) => s.v), [1]);
    assert.deepEqual(values(r, 'gpu.power').map((s) => s.v), [627.4]);
    assert.deepEqual(values(r, 'gpu.sm_clock').map((s) => s.v), [1980]);
    assert.deepEqual(values(r, 'gpu.temp').map((s) => s.v), [52]);
    assert.deepEqual(values(r, 'gpu.throttle_reasons').map((s) => s.v), [0]);
    assert.deepEqual(values(r, 'gpu.throttle_time', { reason: 'sw_power_cap' }).map((s) => s.v), [0]);
    const used = seriesRows(r).find((s) => s.name === 'gpu.mem.used')!;
    assert.deepEqual(used.labels, { gpu: '0', gpu_model: 'NVIDIA H200', gpu_uuid: 'GPU-00000000-0000-0000-0000-000000000000', bus_id: '00000000:83:00.0', metric: 'nvidia-smi:memory.used' });
    assert.equal(seriesRows(r).some((s) => s.name === 'driver_version' || s.name === 'serial'), false);
  } finally {
    r.dispose();
  }
});

test('the same CSV in another zone shifts by the offset', { skip: skipUnlessCorpus(FULL) }, async () => {
  const r = await runImporter(nvidiaSmiCsvImporter, { file: corpusFile(FULL)!, options: { tzOffsetMinutes: 120 } });
  try {
    assert.deepEqual(values(r, 'gpu.temp').map((s) => s.ts), [T_LOAD - 2 * 3600_000]);
  } finally {
    r.dispose();
  }
});

test('--query-gpu CSV without timestamp: two GPUs by index, [N/A] skipped, mtime as time', { skip: skipUnlessCorpus(TESTDATA) }, async () => {
  const r = await runImporter(nvidiaSmiCsvImporter, { file: corpusFile(TESTDATA)!, mtimeMs: 1.7e12 });
  try {
    assert.deepEqual(values(r, 'gpu.mem.used', { gpu: '0' }), [{ ts: 1.7e12, v: 575 * MIB }]);
    assert.deepEqual(values(r, 'gpu.mem.used', { gpu: '1' }).map((s) => s.v), [1234 * MIB]);
    assert.deepEqual(values(r, 'gpu.fan', { gpu: '1' }).map((s) => s.v), [0.5]);
  } finally {
    r.dispose();
  }
});

test("a script's seconds column instead of nvidia-smi's timestamp: relative seconds end at the file's time, epoch seconds are read as such; rows with no time at all say what they lose", async () => {
  // A benchmark's CSV: its own `time [s]` from the run's start, then --query-gpu fields.
  const rel = ['time [s],uuid, memory.used [MiB], utilization.gpu [%]', '0.15,GPU-1, 100 MiB, 0 %', '1.35,GPU-1, 200 MiB, 41 %', '2.35,GPU-1, 300 MiB, 98 %'].join('\n');
  const r = await runImporter(nvidiaSmiCsvImporter, { text: rel, mtimeMs: 1.7e12 });
  try {
    assert.deepEqual(values(r, 'gpu.mem.used').map((x) => [x.ts, x.v]), [[1.7e12 - 2200, 100 * MIB], [1.7e12 - 1000, 200 * MIB], [1.7e12, 300 * MIB]]);
    assert.equal(seriesRows(r).some((x) => x.name === 'time'), false, 'the time column is no series');
    assert.ok(r.warnings.some((w) => /seconds since the run began/.test(w)), r.warnings.join('\n'));
  } finally {
    r.dispose();
  }
  const epoch = ['epoch, index, memory.used [MiB]', '1700000000, 0, 100', '1700000001.5, 0, 200'].join('\n');
  const e = await runImporter(nvidiaSmiCsvImporter, { text: epoch, mtimeMs: 1.8e12 });
  try {
    assert.deepEqual(values(e, 'gpu.mem.used').map((x) => x.ts), [1.7e12, 1.7e12 + 1500]);
  } finally {
    e.dispose();
  }
  const untimed = ['index, memory.used [MiB]', '0, 100', '0, 200', '0, 300'].join('\n');
  const u = await runImporter(nvidiaSmiCsvImporter, { text: untimed, mtimeMs: 1.7e12 });
  try {
    assert.deepEqual(values(u, 'gpu.mem.used').map((x) => x.v), [300 * MIB]);
    assert.ok(u.warnings.some((w) => /3 rows without a time.*only its last row is kept/.test(w)), u.warnings.join('\n'));
  } finally {
    u.dispose();
  }
});

test('nounits, throttle bits from Active columns, and a header-less CSV under its command line', async () => {
  const text = [
    'timestamp, index, memory.used [MiB], utilization.gpu [%], clocks_throttle_reasons.hw_slowdown, clocks_throttle_reasons.sw_thermal_slowdown, power.draw [W]',
    '2026/07/03 22:11:09.763, 0, 1000, 50, Active, Active, [Not Supported]',
    '2026/07/03 22:11:10.763, 0, 1001, 51, Not Active, Active, N/A',
  ].join('\n');
  const r = await runImporter(nvidiaSmiCsvImporter, { text });
  try {
    assert.deepEqual(values(r, 'gpu.mem.used').map((s) => s.v), [1000 * MIB, 1001 * MIB]);
    assert.deepEqual(values(r, 'gpu.util').map((s) => s.v), [0.5, 0.51]);
    assert.deepEqual(values(r, 'gpu.throttle_reasons').map((s) => s.v), [0x28, 0x20]);
    assert.equal(seriesRows(r).some((s) => s.name === 'gpu.power'), false);
  } finally {
    r.dispose();
  }
  const headerless = '# $ nvidia-smi --query-gpu=timestamp,index,temperature.gpu --format=csv,noheader,nounits\n2026/07/03 22:11:09.763, 3, 61\n';
  const h = await runImporter(nvidiaSmiCsvImporter, { text: headerless });
  try {
    assert.deepEqual(values(h, 'gpu.temp', { gpu: '3' }), [{ ts: T_LOAD, v: 61 }]);
  } finally {
    h.dispose();
  }
  const bare = await runImporter(nvidiaSmiCsvImporter, { text: '2026/07/03 22:11:09.763, 3, 61\n' });
  try {
    assert.match(bare.error!.message, /input\.txt \(line 1\): CSV without a header/);
  } finally {
    bare.dispose();
  }
});

test('a header without units (a collector or a script that stripped them) reads its values in the units nvidia-smi prints', async () => {
  // A memory.used of 32002 was 32 kB, not 31 GiB; utilization 96 a utilisation of 96 (×100).
  const text = [
    'timestamp, index, memory.total, memory.used, utilization.gpu, power.draw, clocks.sm, temperature.gpu',
    '2025/02/03 08:52:34.341, 0, 46068, 32002, 96, 218.11, 2520, 54',
  ].join('\n');
  const r = await runImporter(nvidiaSmiCsvImporter, { text });
  try {
    assert.deepEqual(values(r, 'gpu.mem.used').map((s) => s.v), [32002 * MIB]);
    assert.deepEqual(values(r, 'gpu.mem.total').map((s) => s.v), [46068 * MIB]);
    assert.deepEqual(values(r, 'gpu.util').map((s) => s.v), [0.96]);
    assert.deepEqual(values(r, 'gpu.power').map((s) => s.v), [218.11]);
    assert.deepEqual(values(r, 'gpu.sm_clock').map((s) => s.v), [2520]);
    assert.deepEqual(values(r, 'gpu.temp').map((s) => s.v), [54]);
  } finally {
    r.dispose();
  }
});

test('--query-compute-apps CSV: memory per process', { skip: skipUnlessCorpus(APPS) }, async () => {
  const r = await runImporter(nvidiaSmiAppsCsvImporter, { file: corpusFile(APPS)! });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(values(r, 'proc.gpu_mem.used', { pid: '10309' }), [{ ts: Date.UTC(2026, 6, 3, 22, 11, 9, 916), v: 28234 * MIB }]);
    assert.equal(seriesRows(r).filter((s) => s.name === 'proc.gpu_mem.used').length, 3);
    assert.equal(seriesRows(r).find((s) => s.labels.pid === '10291')?.labels.process, '/root/tools/memhog');
  } finally {
    r.dispose();
  }
});

test('dmon without times: one row per second ending at the mtime', { skip: skipUnlessCorpus(DMON) }, async () => {
  const r = await runImporter(nvidiaSmiDmonImporter, { file: corpusFile(DMON)!, mtimeMs: 1_800_000_000_000 });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(values(r, 'gpu.power'), [630, 628, 629, 632, 630].map((v, i) => ({ ts: 1_800_000_000_000 - (4 - i) * 1000, v })));
    assert.deepEqual(values(r, 'gpu.util').map((s) => s.v), [1, 1, 1, 1, 1]);
    assert.deepEqual(values(r, 'gpu.sm_clock').map((s) => s.v), [1980, 1980, 1980, 1980, 1980]);
    assert.deepEqual(values(r, 'gpu.mem_temp').map((s) => s.v), [41, 42, 42, 42, 42]);
  } finally {
    r.dispose();
  }
});

test('dmon -o DT with two GPUs and missing values', async () => {
  const text = ['#Date       Time        gpu    pwr  gtemp     sm', '#YYYYMMDD   HH:MM:SS    Idx      W      C      %', ' 20260703   22:11:09      0    630     53    100', ' 20260703   22:11:09      1      -     50     90', ' 20260703   22:11'].join('\n');
  const r = await runImporter(nvidiaSmiDmonImporter, { text });
  try {
    assert.deepEqual(values(r, 'gpu.power', { gpu: '0' }), [{ ts: Date.UTC(2026, 6, 3, 22, 11, 9), v: 630 }]);
    assert.equal(seriesRows(r).some((x) => x.name === 'gpu.power' && x.labels.gpu === '1'), false);
    assert.deepEqual(values(r, 'gpu.util', { gpu: '1' }).map((s) => s.v), [0.9]);
    assert.equal(r.warnings.length, 1);
    assert.match(r.warnings[0], /\(line 5\): expected 6 columns, found 2/);
  } finally {
    r.dispose();
  }
});

test('a full nvidia_gpu_exporter capture: its idle and load query-gpu and compute-apps sections', { skip: skipUnlessCorpus(CAPTURE) }, async () => {
  const r = await runImporter(nvidiaSmiCsvImporter, { file: corpusFile(CAPTURE)! });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(values(r, 'gpu.mem.used'), [
      { ts: Date.UTC(2026, 6, 3, 22, 10, 46, 109), v: 0 },
      { ts: T_LOAD, v: 32362 * MIB },
    ]);
    assert.equal(seriesRows(r).filter((s) => s.name === 'proc.gpu_mem.used').length, 3);
  } finally {
    r.dispose();
  }
});

test('cells: units, sentinels, states', () => {
  assert.equal(cellNumber('32362 MiB', ''), 32362 * MIB);
  assert.equal(cellNumber('32362', 'MiB'), 32362 * MIB);
  assert.equal(cellNumber('100 %', ''), 1);
  assert.equal(cellNumber('[N/A]', ''), null);
  assert.equal(cellNumber('[Not Supported]', 'W'), null);
  assert.equal(cellNumber('N/A', ''), null);
  assert.equal(cellNumber('P8', ''), 8);
  assert.equal(cellNumber('Yes', ''), 1);
  assert.equal(cellNumber('Enabled', ''), null);
});

const sample = (name: string) => new URL(`../../samples/variants/${name}`, import.meta.url).pathname;

test('pmon is told from dmon by its pid column (it was read as dmon: SM% of a process as the GPU utilisation)', () => {
  for (const f of ['nvidia-smi-pmon-su.txt', 'nvidia-smi-pmon-dt.txt']) {
    const head = readFileSync(sample(f));
    assert.equal(detectPmon(head), 0.9, f);
    assert.equal(detectDmon(head), 0, f);
    assert.equal(detectImporter(head, f)?.format, 'nvidia-smi-pmon', f);
  }
  const dmon = Buffer.from('# gpu    pwr  gtemp  mtemp     sm    mem\n# Idx      W      C      C      %      %\n    0     71     40     38     12      3\n');
  assert.equal(detectImporter(dmon, 'dmon.txt')?.format, 'nvidia-smi-dmon');
});

test('pmon -s um without times: per-process series, one interval a second ending at the mtime (warned)', async () => {
  const r = await runImporter(nvidiaSmiPmonImporter, { file: sample('nvidia-smi-pmon-su.txt'), mtimeMs: 1_800_000_000_000 });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(values(r, 'proc.sm_util', { gpu: '0', pid: '41234' }), [
      { ts: 1_800_000_000_000 - 1000, v: 0.87 },
      { ts: 1_800_000_000_000, v: 0.9 },
    ]);
    assert.deepEqual(values(r, 'proc.sm_util', { gpu: '1', pid: '41235' }).map((x) => x.v), [0.85, 0.12]);
    assert.deepEqual(values(r, 'proc.mem_util', { pid: '41235' }).map((x) => x.v), [0.39, 0.03]);
    assert.deepEqual(values(r, 'proc.gpu_mem.used', { pid: '41234' }).map((x) => x.v), [70112 * MIB, 70112 * MIB]);
    const sm = seriesRows(r).find((x) => x.name === 'proc.sm_util' && x.labels.pid === '41234')!;
    assert.deepEqual(sm.labels, { gpu: '0', pid: '41234', process: 'python3', metric: 'nvidia-smi-pmon:sm' });
    assert.equal(sm.unit, 'fraction');
    // Nothing lands on the GPU's own series, and no pid becomes a gauge.
    assert.equal(seriesRows(r).some((x) => x.name.startsWith('gpu.') || x.name.includes('pid')), false);
    assert.equal(seriesRows(r).some((x) => x.name === 'proc.enc_util'), false);
    assert.equal(r.warnings.length, 1);
    assert.match(r.warnings[0], /no Time column \(nvidia-smi pmon without -o DT\).*used the file's modification time/);
  } finally {
    r.dispose();
  }
});

test('pmon -o DT (jpg/ofa/fb/ccpm columns): its own times, idle-GPU rows skipped, graphics processes kept', async () => {
  const r = await runImporter(nvidiaSmiPmonImporter, { file: sample('nvidia-smi-pmon-dt.txt') });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(r.warnings, []);
    const t = Date.UTC(2025, 0, 21, 4, 40, 55);
    assert.deepEqual(values(r, 'proc.sm_util', { pid: '9912' }), [
      { ts: t, v: 0.71 },
      { ts: t + 1000, v: 0.73 },
    ]);
    assert.deepEqual(values(r, 'proc.gpu_mem.used', { pid: '9950', process: 'Xorg' }).map((x) => x.v), [12 * MIB, 12 * MIB]);
    assert.deepEqual(values(r, 'proc.gpu_mem.ccpm', { pid: '9912' }).map((x) => x.v), [0, 0]);
    assert.equal(seriesRows(r).some((x) => x.labels.gpu === '1'), false);
  } finally {
    r.dispose();
  }
});

test('dmon -o T (a time of day, no date): the bundle\'s date, midnight passed forward, warned', async () => {
  const text = ['#Time        gpu    pwr', '#HH:MM:SS    Idx      W', ' 23:59:59      0    300', ' 00:00:00      0    301', ''].join('\n');
  const r = await runImporter(nvidiaSmiDmonImporter, { text, mtimeMs: Date.UTC(2025, 0, 22, 0, 0, 30) });
  try {
    assert.deepEqual(values(r, 'gpu.power'), [
      { ts: Date.UTC(2025, 0, 21, 23, 59, 59), v: 300 },
      { ts: Date.UTC(2025, 0, 22, 0, 0, 0), v: 301 },
    ]);
    assert.equal(r.warnings.length, 1);
    assert.match(r.warnings[0], /times of day without a date: placed at the file's modification time/);
  } finally {
    r.dispose();
  }
});

test('a CSV whose header repeats before every row (-l 1 >> file): every row read, one warning (it was one a row)', async () => {
  const r = await runImporter(nvidiaSmiCsvImporter, { file: sample('nvidia-smi-query-repeated-header.csv') });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(values(r, 'gpu.mem.used').map((x) => x.v), [65010 * MIB, 65012 * MIB, 65020 * MIB]);
    assert.deepEqual(values(r, 'gpu.util').map((x) => x.ts), [Date.UTC(2025, 0, 21, 4, 40, 55, 101), Date.UTC(2025, 0, 21, 4, 40, 56, 104), Date.UTC(2025, 0, 21, 4, 40, 57, 99)]);
    assert.equal(r.warnings.length, 1);
    assert.match(r.warnings[0], /the CSV header is repeated 2 times/);
  } finally {
    r.dispose();
  }
});

test('per-cell series cache: GPUs told apart by index, uuid or (without either) their place in a timestamp', async () => {
  const text = ['timestamp, memory.used [MiB]', '2025/01/21 04:40:55.101, 1 MiB', '2025/01/21 04:40:55.101, 2 MiB', '2025/01/21 04:40:56.101, 3 MiB', '2025/01/21 04:40:56.101, 4 MiB', ''].join('\n');
  const r = await runImporter(nvidiaSmiCsvImporter, { text });
  try {
    assert.deepEqual(values(r, 'gpu.mem.used', { gpu: '0' }).map((x) => x.v), [1 * MIB, 3 * MIB]);
    assert.deepEqual(values(r, 'gpu.mem.used', { gpu: '1' }).map((x) => x.v), [2 * MIB, 4 * MIB]);
  } finally {
    r.dispose();
  }
});

test('the command line as people paste or trace it (`$ `, `+ `, quoted fields): noheader,nounits rows in the units nvidia-smi prints', async () => {
  const fields = 'timestamp,index,utilization.gpu,memory.used,memory.total,power.draw,temperature.gpu,clocks.sm,fan.speed';
  const rows = ['2024/01/15 10:00:00.123, 0, 87, 61440, 81920, 312.5, 41, 1410, 30', '2024/01/15 10:00:01.124, 0, 90, 61442, 81920, 320.1, 42, 1410, 31'];
  const t0 = Date.UTC(2024, 0, 15, 10, 0, 0, 123);
  for (const command of [
    `$ nvidia-smi --query-gpu=${fields} --format=csv,noheader,nounits -l 1`,
    `+ nvidia-smi --query-gpu=${fields} --format=csv,noheader,nounits`,
    `# sudo /usr/bin/nvidia-smi --query-gpu="${fields}" --format=csv,noheader,nounits`,
    `nvidia-smi --query-gpu '${fields}' --format=csv,noheader,nounits`,
  ]) {
    const text = `${command}\n${rows.join('\n')}\n`;
    assert.equal(detectImporter(Buffer.from(text), 'gpu.csv')?.format, 'nvidia-smi-csv', command);
    const r = await runImporter(nvidiaSmiCsvImporter, { text });
    try {
      assert.equal(r.error, null, command);
      assert.deepEqual(values(r, 'gpu.util'), [
        { ts: t0, v: 0.87 },
        { ts: t0 + 1001, v: 0.9 },
      ]);
      assert.deepEqual(values(r, 'gpu.mem.used').map((s) => s.v), [61440 * MIB, 61442 * MIB]);
      assert.deepEqual(values(r, 'gpu.power').map((s) => s.v), [312.5, 320.1]);
      assert.deepEqual(values(r, 'gpu.fan').map((s) => s.v), [0.3, 0.31]);
      assert.deepEqual(values(r, 'gpu.sm_clock').map((s) => s.v), [1410, 1410]);
    } finally {
      r.dispose();
    }
  }
  // With units left in the cells (noheader alone), the cell's unit is read, not added to.
  const withUnits = `$ nvidia-smi --query-gpu=timestamp,index,utilization.gpu,memory.used --format=csv,noheader\n2024/01/15 10:00:00.123, 0, 87 %, 61440 MiB\n`;
  const u = await runImporter(nvidiaSmiCsvImporter, { text: withUnits });
  try {
    assert.deepEqual(values(u, 'gpu.util').map((s) => s.v), [0.87]);
    assert.deepEqual(values(u, 'gpu.mem.used').map((s) => s.v), [61440 * MIB]);
  } finally {
    u.dispose();
  }
  // Headerless rows with nvidia-smi's time and no field list anywhere: claimed, and the import says why it cannot read them.
  assert.equal(detectImporter(Buffer.from(`${rows.join('\n')}\n`), 'gpu.csv')?.format, 'nvidia-smi-csv');
  // The compute-apps table under its command line, without a header.
  const apps = '$ nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits\n1234, 2048\n5678, 512\n';
  assert.equal(detectImporter(Buffer.from(apps), 'apps.csv')?.format, 'nvidia-smi-apps-csv');
  const a = await runImporter(nvidiaSmiAppsCsvImporter, { text: apps, mtimeMs: 1 });
  try {
    assert.deepEqual(values(a, 'proc.gpu_mem.used', { pid: '1234' }).map((s) => s.v), [2048 * MIB]);
  } finally {
    a.dispose();
  }
});

test('a GPU nvidia-smi cannot reach (rows of [Unknown Error] / [GPU requires reset], its own "Unable to determine the device handle" line) is a gpu_lost event, not [N/A]', async () => {
  const text = [
    'timestamp, index, pci.bus_id, utilization.gpu [%], memory.used [MiB], power.draw [W], temperature.gpu',
    '2023/02/07 06:28:24.512, 0, 00000000:31:00.0, 10 %, 39 MiB, 42.11 W, 31',
    '2023/02/07 06:28:24.515, 1, 00000000:B1:00.0, [N/A], 39 MiB, 45.02 W, 39',
    'Unable to determine the device handle for GPU0000:B1:00.0: Unknown Error',
    '2023/02/07 06:28:25.512, 0, 00000000:31:00.0, 11 %, 39 MiB, 42.40 W, 31',
    '2023/02/07 06:28:25.515, 1, 00000000:B1:00.0, [Unknown Error], [Unknown Error], [GPU requires reset], [Unknown Error]',
    '2023/02/07 06:28:26.515, 1, 00000000:B1:00.0, [Unknown Error], [Unknown Error], [GPU requires reset], [Unknown Error]',
  ].join('\n');
  const r = await runImporter(nvidiaSmiCsvImporter, { text });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(r.warnings, []);
    const lost = r.all<{ ts_ms: number; severity: string; attrs_json: string }>("SELECT ts_ms, severity, attrs_json FROM events WHERE kind = 'gpu_lost' ORDER BY ts_ms");
    assert.deepEqual(
      lost.map((e) => [e.ts_ms, e.severity, JSON.parse(e.attrs_json).bus_id]),
      // The line first, then rows that say the same loss: one event, the bus spelled as the kernel log does.
      [[Date.UTC(2023, 1, 7, 6, 28, 24, 515), 'critical', '0000:b1:00']],
    );
    // [N/A] alone is a missing reading, not a lost GPU; GPU 0 reads on.
    assert.deepEqual(values(r, 'gpu.util', { gpu: '0' }).map((s) => s.v), [0.1, 0.11]);
  } finally {
    r.dispose();
  }
});

test("review: nvidia-smi's lost-GPU line at every poll is one gpu_lost until the GPU reads again, its bus in the kernel log's spelling", async () => {
  const row = (s: number, gpu1: string) => [`2023/02/07 06:28:${s}.512, 0, 00000000:31:00.0, 10 %`, gpu1 ? `2023/02/07 06:28:${s}.515, 1, 00000000:B1:00.0, ${gpu1}` : ''].filter(Boolean);
  const text = [
    'timestamp, index, pci.bus_id, utilization.gpu [%]',
    ...row(20, '5 %'),
    ...row(21, ''),
    'Unable to determine the device handle for GPU0000:B1:00.0: Unknown Error',
    ...row(22, ''),
    'Unable to determine the device handle for GPU0000:B1:00.0: Unknown Error',
    ...row(23, '[Unknown Error]'),
    ...row(24, '7 %'),
    ...row(25, ''),
    'Unable to determine the device handle for GPU0000:B1:00.0: Unknown Error',
  ].join('\n');
  const r = await runImporter(nvidiaSmiCsvImporter, { text });
  try {
    const lost = r.all<{ ts_ms: number; attrs_json: string }>("SELECT ts_ms, attrs_json FROM events WHERE kind = 'gpu_lost' ORDER BY ts_ms");
    assert.deepEqual(
      lost.map((e) => [new Date(e.ts_ms).getUTCSeconds(), JSON.parse(e.attrs_json).bus_id]),
      [
        [21, '0000:b1:00'],
        [25, '0000:b1:00'],
      ],
    );
  } finally {
    r.dispose();
  }
});

test('dmon -s pucvmet of older drivers: `temp` is the GPU temperature, tviol a flag, enc/dec percentages', async () => {
  const text = [
    '# gpu   pwr  temp    sm   mem   enc   dec  mclk  pclk pviol tviol    fb  bar1',
    '# Idx     W     C     %     %     %     %   MHz   MHz     %  bool    MB    MB',
    '    0   111    83    25     7    12     3  4513  1683    40     1 11651     2',
  ].join('\n');
  const r = await runImporter(nvidiaSmiDmonImporter, { text, mtimeMs: Date.UTC(2025, 0, 1) });
  try {
    assert.deepEqual(values(r, 'gpu.temp').map((s) => s.v), [83]);
    assert.deepEqual(values(r, 'gpu.thermal_violation').map((s) => s.v), [1]);
    assert.deepEqual(values(r, 'gpu.power_violation').map((s) => s.v), [0.4]);
    assert.deepEqual(values(r, 'gpu.enc_util').map((s) => s.v), [0.12]);
    assert.equal(seriesRows(r).some((x) => x.name.startsWith('dmon.')), false);
  } finally {
    r.dispose();
  }
});

test('power.limit is the cap where the query has no enforced.power.limit; beside it, it keeps its own name', async () => {
  const alone = await runImporter(nvidiaSmiCsvImporter, { text: 'timestamp, index, power.draw [W], power.limit [W]\n2026/07/03 22:11:09.763, 0, 280.5, 300.00\n' });
  try {
    assert.deepEqual(values(alone, 'gpu.power_limit'), [{ ts: T_LOAD, v: 300 }]);
    assert.equal(seriesRows(alone).find((s) => s.name === 'gpu.power_limit')?.labels.metric, 'nvidia-smi:power.limit');
  } finally {
    alone.dispose();
  }
  const both = await runImporter(nvidiaSmiCsvImporter, { text: 'timestamp, index, power.limit [W], enforced.power.limit [W]\n2026/07/03 22:11:09.763, 0, 300.00, 250.00\n' });
  try {
    assert.deepEqual(values(both, 'gpu.power_limit'), [{ ts: T_LOAD, v: 250 }]);
    assert.deepEqual(values(both, 'power.limit'), [{ ts: T_LOAD, v: 300 }]);
  } finally {
    both.dispose();
  }
});

test('power.draw.average is gpu.power where the query has no power.draw (R550+ queries ask for average and instant); beside it, it keeps its own series', async () => {
  const alone = await runImporter(nvidiaSmiCsvImporter, { text: 'timestamp, index, power.draw.average [W], power.draw.instant [W]\n2026/07/03 22:11:09.763, 0, 650.12, 699.80\n' });
  try {
    assert.deepEqual(values(alone, 'gpu.power'), [{ ts: T_LOAD, v: 650.12 }]);
    assert.deepEqual(values(alone, 'gpu.power_instant'), [{ ts: T_LOAD, v: 699.8 }]);
    assert.equal(seriesRows(alone).some((s) => s.name === 'gpu.power_avg'), false);
  } finally {
    alone.dispose();
  }
  const both = await runImporter(nvidiaSmiCsvImporter, { text: 'timestamp, index, power.draw [W], power.draw.average [W]\n2026/07/03 22:11:09.763, 0, 640.00, 650.12\n' });
  try {
    assert.deepEqual(values(both, 'gpu.power'), [{ ts: T_LOAD, v: 640 }]);
    assert.deepEqual(values(both, 'gpu.power_avg'), [{ ts: T_LOAD, v: 650.12 }]);
  } finally {
    both.dispose();
  }
});

test("reset_status.reset_required and drain_and_reset_recommended: Yes is the driver's call for a reset (gpu.recovery_action 1), No is 0, [N/A] no reading", async () => {
  const text = [
    'timestamp, index, reset_status.reset_required, reset_status.drain_and_reset_recommended',
    '2026/07/03 22:11:09.763, 0, No, [N/A]',
    '2026/07/03 22:11:10.763, 0, Yes, No',
  ].join('\n');
  const r = await runImporter(nvidiaSmiCsvImporter, { text });
  try {
    assert.equal(r.error, null, r.error?.message);
    assert.deepEqual(values(r, 'gpu.recovery_action', { metric: 'nvidia-smi:reset_status.reset_required' }).map((s) => s.v), [0, 1]);
    assert.deepEqual(values(r, 'gpu.recovery_action', { metric: 'nvidia-smi:reset_status.drain_and_reset_recommended' }).map((s) => s.v), [0]);
  } finally {
    r.dispose();
  }
});
