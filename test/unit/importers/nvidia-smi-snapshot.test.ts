// nvidia-smi's snapshots: the default table and `-q` query (nvidia-smi-text.ts), `-q -x` XML
// (nvidia-smi-xml.ts): the values each layout gives, the GPU a table and a query in one file share, lost
// GPUs, and detection beside the other nvidia-smi formats.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { detectImporter, HEAD_BYTES } from '../../../node/engine/importers/registry';
import { nvidiaSmiTextImporter } from '../../../node/engine/importers/nvidia-smi-text';
import { nvidiaSmiXmlImporter } from '../../../node/engine/importers/nvidia-smi-xml';
import { corpusFile, skipUnlessCorpus } from '../../helpers/corpus';
import { runImporter, type Run } from './run-importer';

const sample = (name: string) => fileURLToPath(new URL(`../../samples/variants/${name}`, import.meta.url));
const MIB = 1024 * 1024;
const at = (iso: string) => Date.parse(iso);

function values(r: Run, name: string, gpu?: string): { ts: number; v: number; pid: string | null }[] {
  return r.all<{ ts: number; v: number; pid: string | null }>(
    `SELECT ts_ms ts, value v, json_extract(s.labels_json, '$.pid') pid FROM samples JOIN series s ON s.id = series_id
     WHERE s.name = ? AND (? IS NULL OR json_extract(s.labels_json, '$.gpu') = ?) ORDER BY ts_ms, pid`,
    name,
    gpu ?? null,
    gpu ?? null,
  );
}

test('default table (driver 470, -l): every GPU per snapshot at its date line, processes, a GPU gone ERR! is one gpu_lost event and no readings', async () => {
  const r = await runImporter(nvidiaSmiTextImporter, { file: sample('nvidia-smi-table-r470.txt') });
  try {
    assert.equal(r.error, null, r.error?.message);
    const t1 = at('2022-11-22T10:50:33Z');
    const t2 = at('2022-11-22T10:50:38Z');
    assert.deepEqual(values(r, 'gpu.mem.used', '0').map((x) => [x.ts, x.v]), [[t1, 38211 * MIB], [t2, 38211 * MIB]]);
    assert.deepEqual(values(r, 'gpu.mem.total', '1').map((x) => [x.ts, x.v]), [[t1, 40536 * MIB]]);
    assert.deepEqual(values(r, 'gpu.util', '0').map((x) => x.v), [0.97, 0.98]);
    assert.deepEqual(values(r, 'gpu.temp', '1').map((x) => x.v), [36]);
    assert.deepEqual(values(r, 'gpu.power', '0').map((x) => x.v), [61, 64]);
    assert.deepEqual(values(r, 'gpu.power_limit', '0').map((x) => x.v), [400, 400]);
    assert.deepEqual(values(r, 'proc.gpu_mem.used').map((x) => [x.ts, x.pid, x.v]), [[t1, '41822', 38200 * MIB], [t1, '41823', 38180 * MIB], [t2, '41822', 38200 * MIB]]);
    const labels = JSON.parse(r.all<{ l: string }>("SELECT labels_json l FROM series WHERE name = 'gpu.mem.used' ORDER BY id")[0].l);
    // The table cuts the name ("NVIDIA A100-SXM..."): no gpu_model rather than a wrong one.
    assert.deepEqual(labels, { gpu: '0', bus_id: '00000000:07:00.0', metric: 'nvidia-smi:memory.used' });
    const lost = r.all<{ ts_ms: number; kind: string; severity: string; attrs_json: string }>('SELECT ts_ms, kind, severity, attrs_json FROM events');
    assert.equal(lost.length, 1);
    assert.equal(lost[0].kind, 'gpu_lost');
    assert.equal(lost[0].ts_ms, t2);
    assert.equal(JSON.parse(lost[0].attrs_json).bus_id, '0000:0f:00');
    assert.deepEqual(r.warnings, []);
  } finally {
    r.dispose();
  }
});

test('table before driver 450 (no MIG line, processes without GI/CI) and without its date line: read at the mtime, warned', async () => {
  const r = await runImporter(nvidiaSmiTextImporter, { file: sample('nvidia-smi-table-r418-undated.txt'), mtimeMs: at('2025-06-01T00:00:00Z') });
  try {
    assert.equal(r.error, null, r.error?.message);
    assert.deepEqual(values(r, 'gpu.mem.used').map((x) => [x.ts, x.v]), [[at('2025-06-01T00:00:00Z'), 15911 * MIB]]);
    assert.deepEqual(values(r, 'gpu.ecc_dbe').map((x) => x.v), [2]);
    assert.deepEqual(values(r, 'proc.gpu_mem.used').map((x) => [x.pid, x.v]), [['7781', 15899 * MIB]]);
    assert.equal(r.warnings.length, 1);
    assert.match(r.warnings[0], /without its date line: used the file's modification time/);
  } finally {
    r.dispose();
  }
});

test('-q (driver 470): memory, utilisation, power, clocks, throttle bitmask, volatile ECC in both layouts, remapped rows, processes', async () => {
  const r = await runImporter(nvidiaSmiTextImporter, { file: sample('nvidia-smi-q-r470.txt') });
  try {
    assert.equal(r.error, null, r.error?.message);
    const a = '00000000:07:00.0';
    const b = '00000000:0F:00.0';
    const one = (name: string, gpu: string) => values(r, name, gpu).map((x) => x.v);
    assert.deepEqual(values(r, 'gpu.mem.used', a).map((x) => [x.ts, x.v]), [[at('2022-11-22T10:51:02Z'), 38211 * MIB]]);
    assert.deepEqual(one('gpu.mem.free', a), [2325 * MIB]);
    assert.deepEqual(one('gpu.util', a), [0.97]);
    assert.deepEqual(one('gpu.power', a), [391.2]);
    // "Enforced Power Limit", not "Power Limit" nor "Default Power Limit".
    assert.deepEqual(one('gpu.power_limit', a), [400]);
    assert.deepEqual(one('gpu.sm_clock', a), [1095]);
    assert.deepEqual(one('gpu.temp', a), [84]);
    // SW power cap | HW slowdown | HW thermal slowdown.
    assert.deepEqual(one('gpu.throttle_reasons', a), [0x4 | 0x8 | 0x40]);
    assert.deepEqual(one('gpu.throttle_reasons', b), [0]);
    // Volatile only: SRAM + DRAM on the A100, Single/Double Bit totals on the V100.
    assert.deepEqual([one('gpu.ecc_sbe', a), one('gpu.ecc_dbe', a)], [[5], [2]]);
    assert.deepEqual([one('gpu.ecc_sbe', b), one('gpu.ecc_dbe', b)], [[5], [1]]);
    assert.deepEqual(one('gpu.row_remap_pending', a), [1]);
    assert.deepEqual(one('gpu.pcie_replays', a), [3]);
    assert.deepEqual(values(r, 'proc.gpu_mem.used').map((x) => [x.pid, x.v]), [['41822', 38200 * MIB]]);
    const labels = JSON.parse(r.all<{ l: string }>("SELECT labels_json l FROM series WHERE name = 'gpu.mem.used' ORDER BY id")[1].l);
    assert.deepEqual(labels, { gpu: b, bus_id: b, gpu_model: 'Tesla V100-SXM2-16GB', gpu_uuid: 'GPU-9f8e7d6c-0000-1111-2222-333344445555', metric: 'nvidia-smi:memory.used' });
    assert.deepEqual(r.warnings, []);
  } finally {
    r.dispose();
  }
});

test('a table then a query in one file (`nvidia-smi; nvidia-smi -q`, under watch): the query names each GPU by the index the table gave its bus; a GPU the query cannot reach is lost', async () => {
  const table = readFileSync(sample('nvidia-smi-table-r470.txt'), 'utf8').split('\n').slice(0, 24).join('\n');
  const text = [
    'Every 5.0s: nvidia-smi; nvidia-smi -q          gpu-node-3: Tue Nov 22 10:50:33 2022',
    '',
    table,
    '',
    '==============NVSMI LOG==============',
    '',
    'Timestamp                                 : Tue Nov 22 10:50:34 2022',
    'Attached GPUs                             : 2',
    'GPU 00000000:07:00.0',
    '    FB Memory Usage',
    '        Used                              : 38211 MiB',
    'Unable to determine the device handle for gpu 0000:0F:00.0: Unknown Error',
    '',
  ].join('\n');
  const r = await runImporter(nvidiaSmiTextImporter, { text, name: 'gpu-state.txt' });
  try {
    assert.equal(r.error, null, r.error?.message);
    const labels = r.all<{ l: string }>("SELECT labels_json l FROM series WHERE name = 'gpu.mem.used' ORDER BY id").map((x) => JSON.parse(x.l).gpu);
    // The query's GPU is the table's: one series (the same labels and reading), its sample a second later.
    assert.deepEqual(labels, ['0', '1']);
    assert.deepEqual(values(r, 'gpu.mem.used', '0').map((x) => x.ts), [at('2022-11-22T10:50:33Z'), at('2022-11-22T10:50:34Z')]);
    const events = r.all<{ kind: string; ts_ms: number; text: string }>('SELECT kind, ts_ms, text FROM events');
    assert.deepEqual(events.map((e) => [e.kind, e.ts_ms]), [['gpu_lost', at('2022-11-22T10:50:34Z')]]);
    assert.match(events[0].text, /Unable to determine the device handle for gpu 0000:0F:00.0/);
  } finally {
    r.dispose();
  }
});

test("detection: the table, the query and nvidia-smi's 'no devices' message are nvidia-smi-text; a capture stays the CSV importer's", { skip: skipUnlessCorpus('nvidia_smi/nvgpuexp_capture_linux-x86_64__nvidia-h200__590.48.01.txt') }, () => {
  for (const f of ['nvidia-smi-table-r470.txt', 'nvidia-smi-table-r418-undated.txt', 'nvidia-smi-q-r470.txt', 'nvidia-smi-no-devices.txt']) {
    assert.equal(detectImporter(readFileSync(sample(f)).subarray(0, HEAD_BYTES), f)?.format, 'nvidia-smi-text', f);
  }
  assert.equal(detectImporter(readFileSync(sample('nvidia-smi-q-x-r535.xml')).subarray(0, HEAD_BYTES), 'x.xml')?.format, 'nvidia-smi-xml');
  const capture = corpusFile('nvidia_smi/nvgpuexp_capture_linux-x86_64__nvidia-h200__590.48.01.txt')!;
  assert.equal(detectImporter(readFileSync(capture).subarray(0, HEAD_BYTES), 'capture.txt')?.format, 'nvidia-smi-csv');
});

test('corpus: the default table and -q of a real H200 under load (cut from its capture) give the readings its CSV gives', { skip: skipUnlessCorpus('nvidia_smi/nvgpuexp_capture_linux-x86_64__nvidia-h200__590.48.01.txt') }, async () => {
  const capture = readFileSync(corpusFile('nvidia_smi/nvgpuexp_capture_linux-x86_64__nvidia-h200__590.48.01.txt')!, 'utf8').split('\n');
  // The sections "# load :: nvidia-smi (default table)" and "# load :: query (-q)", without the capture's own lines.
  const keep: string[] = [];
  let on = false;
  for (const l of capture) {
    if (l.startsWith('# ')) on = l === '# load :: nvidia-smi (default table)' || l === '# load :: query (-q)' ? true : l.startsWith('# $') ? on : false;
    else if (on && !l.startsWith('####')) keep.push(l);
  }
  const r = await runImporter(nvidiaSmiTextImporter, { text: keep.join('\n'), name: 'nvidia-smi.txt' });
  try {
    assert.equal(r.error, null, r.error?.message);
    // The capture's CSV row of the same moment: memory.used 32362 MiB, utilization 100 %, power limit 700 W. The
    // table and the query are one GPU, one set of series (named as the table, first, named it), at one time.
    assert.deepEqual(values(r, 'gpu.mem.used').map((x) => x.v), [32362 * MIB]);
    assert.deepEqual(values(r, 'gpu.util').map((x) => x.v), [1]);
    assert.deepEqual(values(r, 'gpu.power_limit').map((x) => x.v), [700]);
    assert.deepEqual(r.all<{ g: string }>("SELECT DISTINCT json_extract(labels_json, '$.gpu') g FROM series").map((x) => x.g), ['0']);
    // Driver 590's query prints the average draw only: it is gpu.power.
    assert.deepEqual(values(r, 'gpu.power').map((x) => x.v > 600), [true]);
    // The table's and the query's process rows are one series each (same GPU, pid, process), at one time.
    assert.deepEqual(values(r, 'proc.gpu_mem.used').map((x) => x.v), [2566 * MIB, 1542 * MIB, 28234 * MIB]);
    assert.deepEqual(r.warnings, []);
  } finally {
    r.dispose();
  }
});

test('-q -x (DTD v12, -l): each document at its <timestamp>; current clocks, not max_clocks; volatile ECC, not aggregate; event reasons; escaped process names', async () => {
  // Tags cut across chunks of 7 bytes: the reader keeps an unfinished tag and a leaf's text across them.
  const r = await runImporter(nvidiaSmiXmlImporter, { file: sample('nvidia-smi-q-x-r535.xml'), chunk: 7 });
  try {
    assert.equal(r.error, null, r.error?.message);
    const a = '00000000:18:00.0';
    const b = '00000000:2A:00.0';
    const t1 = at('2025-03-10T14:02:11Z');
    const t2 = at('2025-03-10T14:02:16Z');
    assert.deepEqual(values(r, 'gpu.mem.used', a).map((x) => [x.ts, x.v]), [[t1, 76012 * MIB], [t2, 76100 * MIB]]);
    assert.deepEqual(values(r, 'gpu.sm_clock', a).map((x) => x.v), [1980, 1980]);
    assert.deepEqual(values(r, 'gpu.power_limit', b).map((x) => x.v), [700]);
    assert.deepEqual(values(r, 'gpu.throttle_reasons', b).map((x) => x.v), [0x4 | 0x8 | 0x40]);
    // <clocks_event_reason_display_clocks_setting> (the XML's spelling) is the display clock bit.
    assert.deepEqual(values(r, 'gpu.throttle_reasons', a).map((x) => x.v), [0x4, 0x100]);
    assert.deepEqual([values(r, 'gpu.ecc_sbe', b).map((x) => x.v), values(r, 'gpu.ecc_dbe', b).map((x) => x.v)], [[3], [3]]);
    const procs = r.all<{ p: string }>("SELECT DISTINCT json_extract(labels_json, '$.process') p FROM series WHERE name = 'proc.gpu_mem.used' ORDER BY p");
    assert.deepEqual(procs.map((x) => x.p), ['python3', 'python3 -m vllm.entrypoints.openai.api_server --model a&b']);
    assert.deepEqual(r.warnings, []);
  } finally {
    r.dispose();
  }
});

test('-q -x: SRAM uncorrectable split into parity and SEC-DED (DTD v13) is not added to a whole count; a GPU nvidia-smi cannot reach between documents is lost; no <nvidia_smi_log> fails', async () => {
  const doc = (ts: string, ecc: string) =>
    `<?xml version="1.0" ?>\n<nvidia_smi_log>\n<timestamp>${ts}</timestamp>\n<gpu id="00000000:18:00.0">\n<ecc_errors><volatile>${ecc}</volatile></ecc_errors>\n</gpu>\n</nvidia_smi_log>\n`;
  const text =
    doc('Mon Mar 10 14:02:11 2025', '<sram_uncorrectable_parity>2</sram_uncorrectable_parity><sram_uncorrectable_secded>1</sram_uncorrectable_secded><dram_uncorrectable>4</dram_uncorrectable>') +
    'Unable to determine the device handle for GPU0000:2A:00.0: Unknown Error\n' +
    doc('Mon Mar 10 14:02:16 2025', '<sram_uncorrectable>5</sram_uncorrectable><dram_uncorrectable>4</dram_uncorrectable>');
  const r = await runImporter(nvidiaSmiXmlImporter, { text, name: 'smi.xml' });
  try {
    assert.equal(r.error, null, r.error?.message);
    assert.deepEqual(values(r, 'gpu.ecc_dbe').map((x) => x.v), [7, 9]);
    const lost = r.all<{ ts_ms: number; attrs_json: string }>('SELECT ts_ms, attrs_json FROM events');
    // nvidia-smi writes the line (stderr) before the document it goes with: that document's time.
    assert.deepEqual(lost.map((e) => [e.ts_ms, JSON.parse(e.attrs_json).bus_id]), [[at('2025-03-10T14:02:16Z'), '0000:2a:00']]);
  } finally {
    r.dispose();
  }
  const bad = await runImporter(nvidiaSmiXmlImporter, { text: '<?xml version="1.0" ?>\n<other/>\n', name: 'smi.xml' });
  try {
    assert.match(bad.error?.message ?? '', /smi\.xml \(line 1\): not nvidia-smi XML: no <nvidia_smi_log> element/);
  } finally {
    bad.dispose();
  }
});

test("real-world shapes: one ERR! sensor is not a lost GPU; 'GPU1: 0000:34:00.0' lost lines take the next table's time, one event each; a date after a shell prompt; MIG slices in -q are not the GPU's", async () => {
  const table = readFileSync(sample('nvidia-smi-table-r470.txt'), 'utf8').split('\n');
  // GPU 1's fan sensor reads ERR! (its other readings are there); then a session with two GPUs gone.
  const fanErr = table.slice(0, 24).map((l) => (l.startsWith('| N/A   36C') ? l.replace('N/A ', 'ERR!') : l));
  const text = [
    ...fanErr.slice(0, 1).map((l) => `root@gpu-node-3:~# ${l}`),
    ...fanErr.slice(1),
    'Unable to determine the device handle for GPU1: 0000:34:00.0: Unknown Error',
    'Unable to determine the device handle for GPU3: 0000:CA:00.0: Unknown Error',
    ...table.slice(24, 48),
  ].join('\n');
  const r = await runImporter(nvidiaSmiTextImporter, { text, name: 'nvidia-smi.txt', mtimeMs: at('2030-01-01T00:00:00Z') });
  try {
    assert.equal(r.error, null, r.error?.message);
    assert.deepEqual(values(r, 'gpu.temp', '1').map((x) => [x.ts, x.v]), [[at('2022-11-22T10:50:33Z'), 36]]);
    assert.deepEqual(values(r, 'gpu.fan', '1'), []);
    const lost = r.all<{ ts_ms: number; bus: string }>("SELECT ts_ms, json_extract(attrs_json, '$.bus_id') bus FROM events ORDER BY bus");
    // Both lost lines at the second table's time (its date line comes after them), and GPU 1 of that table (ERR!).
    assert.deepEqual(
      lost.map((e) => [e.ts_ms, e.bus]),
      [
        [at('2022-11-22T10:50:38Z'), '0000:0f:00'],
        [at('2022-11-22T10:50:38Z'), '0000:34:00'],
        [at('2022-11-22T10:50:38Z'), '0000:ca:00'],
      ],
    );
    assert.deepEqual(r.warnings, []);
  } finally {
    r.dispose();
  }
  const mig = [
    '==============NVSMI LOG==============',
    'Timestamp                                 : Mon Jan 20 01:40:12 2025',
    'GPU 00000000:00:05.0',
    '    Product Name                          : NVIDIA A100-SXM4-80GB',
    '    MIG Mode',
    '        Current                           : Enabled',
    '    MIG Devices',
    '        MIG Device',
    '            Index                         : 0',
    '            ECC Errors',
    '                Volatile',
    '                    SRAM Uncorrectable    : 2',
    '            FB Memory Usage',
    '                Total                     : 19968 MiB',
    '                Used                      : 14366 MiB',
    '    GPU UUID                              : GPU-00000000-1111-2222-3333-444444444444',
    '    FB Memory Usage',
    '        Total                             : 81920 MiB',
    '        Used                              : 14400 MiB',
    '    ECC Errors',
    '        Volatile',
    '            SRAM Uncorrectable            : 2',
  ].join('\n');
  const q = await runImporter(nvidiaSmiTextImporter, { text: mig, name: 'q.txt' });
  try {
    assert.equal(q.error, null, q.error?.message);
    assert.deepEqual(values(q, 'gpu.mem.total').map((x) => x.v), [81920 * MIB]);
    assert.deepEqual(values(q, 'gpu.ecc_dbe').map((x) => x.v), [2]);
    assert.equal(JSON.parse(q.all<{ l: string }>("SELECT labels_json l FROM series WHERE name = 'gpu.mem.total'")[0].l).gpu_uuid, 'GPU-00000000-1111-2222-3333-444444444444');
  } finally {
    q.dispose();
  }
});

test('a query before a table in one session: the GPU keeps the labels it was first given, one series per reading', async () => {
  const table = readFileSync(sample('nvidia-smi-table-r470.txt'), 'utf8').split('\n').slice(0, 24).join('\n');
  const text = ['==============NVSMI LOG==============', 'Timestamp                                 : Tue Nov 22 10:50:30 2022', 'GPU 00000000:07:00.0', '    FB Memory Usage', '        Used                              : 38000 MiB', '', table].join('\n');
  const r = await runImporter(nvidiaSmiTextImporter, { text, name: 'session.txt' });
  try {
    assert.equal(r.error, null, r.error?.message);
    const used = r.all<{ l: string; n: number }>("SELECT labels_json l, (SELECT COUNT(*) FROM samples WHERE series_id = s.id) n FROM series s WHERE name = 'gpu.mem.used' ORDER BY id");
    assert.deepEqual(used.map((x) => [JSON.parse(x.l).gpu, x.n]), [['00000000:07:00.0', 2], ['1', 1]]);
    // The table's process rows name GPU 0 by index: the same GPU, as first named.
    assert.deepEqual(r.all<{ g: string }>("SELECT DISTINCT json_extract(labels_json, '$.gpu') g FROM series WHERE name = 'proc.gpu_mem.used' ORDER BY g").map((x) => x.g), ['00000000:07:00.0', '1']);
  } finally {
    r.dispose();
  }
});

test('detection: a short engine log around a pasted table is the log', () => {
  const table = readFileSync(sample('nvidia-smi-table-r470.txt'), 'utf8').split('\n').slice(0, 24);
  const log = [
    '+ nvidia-smi',
    ...table,
    '+ vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 2',
    'INFO 02-04 22:24:10 [__init__.py:239] Automatically detected platform cuda.',
    'INFO 02-04 22:24:12 [api_server.py:1043] vLLM API server version 0.8.5',
    "INFO 02-04 22:24:20 [config.py:717] This model supports multiple tasks: {'generate'}. Defaulting to 'generate'.",
    'INFO 02-04 22:24:25 [core.py:58] Initializing a V1 LLM engine (v0.8.5) with config: model=meta-llama/Llama-3.1-8B-Instruct',
    'ERROR 02-04 22:24:41 [core.py:396] EngineCore failed to start.',
    'ERROR 02-04 22:24:41 [core.py:396] Traceback (most recent call last):',
    'ERROR 02-04 22:24:41 [core.py:396]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 387, in run_engine_core',
    'ERROR 02-04 22:24:41 [core.py:396] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 448.00 MiB. GPU 0 has a total capacity of 23.55 GiB of which 21.06 MiB is free.',
  ].join('\n');
  assert.equal(detectImporter(Buffer.from(log), 'server.log')?.format, 'vllm-log');
});

test("a table indented as a whole (a notebook's `!nvidia-smi` exported as a code block) is read; 'Failed to initialize NVML' is a lost GPU", async () => {
  const table = readFileSync(sample('nvidia-smi-table-r470.txt'), 'utf8').split('\n').slice(0, 24).map((l) => `    ${l}`).join('\n');
  assert.equal(detectImporter(Buffer.from(table), 'notebook.txt')?.format, 'nvidia-smi-text');
  const r = await runImporter(nvidiaSmiTextImporter, { text: table, name: 'notebook.txt' });
  try {
    assert.equal(r.error, null, r.error?.message);
    assert.deepEqual(values(r, 'gpu.mem.used', '0').map((x) => [x.ts, x.v]), [[at('2022-11-22T10:50:33Z'), 38211 * MIB]]);
    assert.deepEqual(r.warnings, []);
  } finally {
    r.dispose();
  }
  const nvml = 'Failed to initialize NVML: Driver/library version mismatch\nNVML library version: 535.183\n';
  assert.equal(detectImporter(Buffer.from(nvml), 'nvidia-smi.txt')?.format, 'nvidia-smi-text');
  const m = await runImporter(nvidiaSmiTextImporter, { text: nvml, name: 'nvidia-smi.txt', mtimeMs: at('2025-06-01T00:00:00Z') });
  try {
    assert.deepEqual(m.all<{ kind: string; text: string }>('SELECT kind, text FROM events'), [{ kind: 'gpu_lost', text: 'nvidia-smi: Failed to initialize NVML: Driver/library version mismatch' }]);
  } finally {
    m.dispose();
  }
});

test("an init script's nvidia-smi in a pod's log (`kubectl logs --timestamps`, CRI): read through the container's wrapping", async () => {
  const table = readFileSync(sample('nvidia-smi-table-r470.txt'), 'utf8').split('\n').slice(0, 24);
  const text = table.map((l, i) => (i % 2 ? `2022-11-22T10:50:40.${String(i).padStart(9, '0')}Z ${l}` : `2022-11-22T10:50:40.${String(i).padStart(9, '0')}Z stdout F ${l}`)).join('\n');
  assert.equal(detectImporter(Buffer.from(text), 'pod.log')?.format, 'nvidia-smi-text');
  const r = await runImporter(nvidiaSmiTextImporter, { text, name: 'pod.log' });
  try {
    assert.equal(r.error, null, r.error?.message);
    assert.deepEqual(values(r, 'gpu.mem.used').map((x) => [x.ts, x.v]), [[at('2022-11-22T10:50:33Z'), 38211 * MIB], [at('2022-11-22T10:50:33Z'), 38190 * MIB]]);
  } finally {
    r.dispose();
  }
});

test("a table without its date line in a log behind the runtime's times (`docker logs -t`) is dated by its banner's line, not the file's mtime", async () => {
  const table = readFileSync(sample('nvidia-smi-table-r418-undated.txt'), 'utf8').split('\n').filter((l) => l.trim());
  const text = table.map((l, i) => `2024-06-25T18:45:27.${String(95437505 + i * 1000).padStart(9, '0')}Z ${l}`).join('\n');
  const r = await runImporter(nvidiaSmiTextImporter, { text, name: 'pod.log', mtimeMs: at('2026-01-01T00:00:00Z') });
  try {
    assert.equal(r.error, null, r.error?.message);
    const times = new Set(values(r, 'gpu.mem.used').map((x) => x.ts));
    // The banner is the table's second line: the runtime stamped it 1 µs after the first.
    assert.deepEqual([...times], [at('2024-06-25T18:45:27.095Z')]);
    assert.ok(!r.warnings.some((w) => /modification time/.test(w)), r.warnings.join('\n'));
  } finally {
    r.dispose();
  }
});

test('a table with no reading Quadscope reads (a vGPU host\'s `nvidia-smi vgpu` table) says so instead of an ok with no rows', async () => {
  const text = [
    'Tue Nov  1 12:06:50 2025',
    '+-----------------------------------------------------------------------------+',
    '| NVIDIA-SMI 525.147.01             Driver Version: 525.147.01                |',
    '|---------------------------------+------------------------------+------------+',
    '| GPU  Name                       | Bus-Id                       | GPU-Util   |',
    '|      vGPU ID     Name           | VM ID     VM Name            | vGPU-Util  |',
    '|=================================+==============================+============|',
    '|   0  NVIDIA L40S                 | 00000000:01:00.0             |   0%       |',
    '+---------------------------------+------------------------------+------------+',
  ].join('\n');
  const r = await runImporter(nvidiaSmiTextImporter, { text });
  try {
    assert.equal(r.error, null, r.error?.message);
    assert.ok(r.warnings.some((w) => /1 nvidia-smi snapshot but no GPU readings/.test(w)), r.warnings.join('\n'));
  } finally {
    r.dispose();
  }
});

test("the driver's call for a reset after an uncorrectable error: R550–565's Reset Status (Yes/No), R570+'s GPU Recovery Action (the word as NVML's code), the deprecated lines no reading, in -q and -q -x", async () => {
  const query = (ts: string, reset: string, drain: string, action: string | null) =>
    [
      '==============NVSMI LOG==============',
      '',
      `Timestamp                                 : ${ts}`,
      'Driver Version                            : 570.124.06',
      'Attached GPUs                             : 1',
      'GPU 00000000:18:00.0',
      '    Product Name                          : NVIDIA H100 80GB HBM3',
      '    GPU Reset Status',
      `        Reset Required                    : ${reset}`,
      `        Drain and Reset Recommended       : ${drain}`,
      ...(action === null ? [] : [`    GPU Recovery Action                   : ${action}`]),
      '    FB Memory Usage',
      '        Total                             : 81559 MiB',
      '        Used                              : 1 MiB',
      '',
    ].join('\n');
  const old = await runImporter(nvidiaSmiTextImporter, { text: query('Tue Mar  4 12:00:00 2025', 'No', 'N/A', null) + query('Tue Mar  4 12:01:00 2025', 'Yes', 'No', null) });
  try {
    assert.equal(old.error, null, old.error?.message);
    assert.deepEqual(values(old, 'gpu.recovery_action').map((x) => [x.ts, x.v]), [[at('2025-03-04T12:00:00Z'), 0], [at('2025-03-04T12:01:00Z'), 1], [at('2025-03-04T12:01:00Z'), 0]]);
  } finally {
    old.dispose();
  }
  const dep = 'Requested functionality has been deprecated';
  const r570 = await runImporter(nvidiaSmiTextImporter, { text: query('Tue Mar  4 12:00:00 2025', dep, dep, 'None') + query('Tue Mar  4 12:01:00 2025', dep, dep, 'Reset') + query('Tue Mar  4 12:02:00 2025', dep, dep, 'GPU_RESET') + query('Tue Mar  4 12:03:00 2025', dep, dep, 'Drain and Reset') + query('Tue Mar  4 12:04:00 2025', dep, dep, 'Something New') });
  try {
    assert.equal(r570.error, null, r570.error?.message);
    assert.deepEqual(values(r570, 'gpu.recovery_action').map((x) => x.v), [0, 1, 1, 4]);
  } finally {
    r570.dispose();
  }
  const xml = [
    '<?xml version="1.0" ?>',
    '<nvidia_smi_log>',
    '\t<timestamp>Tue Mar  4 12:05:00 2025</timestamp>',
    '\t<driver_version>575.51.02</driver_version>',
    '\t<attached_gpus>1</attached_gpus>',
    '\t<gpu id="00000000:18:00.0">',
    '\t\t<product_name>NVIDIA H100 80GB HBM3</product_name>',
    '\t\t<gpu_reset_status>',
    `\t\t\t<reset_required>${dep}</reset_required>`,
    `\t\t\t<drain_and_reset_recommended>${dep}</drain_and_reset_recommended>`,
    '\t\t</gpu_reset_status>',
    '\t\t<gpu_recovery_action>Reboot</gpu_recovery_action>',
    '\t\t<fb_memory_usage><total>81559 MiB</total><used>1 MiB</used></fb_memory_usage>',
    '\t</gpu>',
    '</nvidia_smi_log>',
    '',
  ].join('\n');
  const x = await runImporter(nvidiaSmiXmlImporter, { text: xml, name: 'smi.xml' });
  try {
    assert.equal(x.error, null, x.error?.message);
    assert.deepEqual(values(x, 'gpu.recovery_action').map((v) => v.v), [2]);
  } finally {
    x.dispose();
  }
});
