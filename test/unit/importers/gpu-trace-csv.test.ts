// GPU timelines printed as tables (gpu-trace-csv.ts): `nsys stats` trace reports as CSV or in its own column
// format, and nvprof's CSV trace with its units row. Every row lands where its relative time says, the
// capture placed to end at the mtime (warned); summaries, which hold no times, are skipped or refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { nsysStatsCsvImporter, nvprofCsvImporter } from '../../../node/engine/importers/gpu-trace-csv';
import { detectImporter, HEAD_BYTES } from '../../../node/engine/importers/registry';
import { storeSql } from '../../helpers/store-sql';
import { runImporter } from './run-importer';

const sample = (name: string) => fileURLToPath(new URL(`../../samples/variants/${name}`, import.meta.url));
const MTIME = Date.UTC(2026, 2, 14, 9, 30);
const END_NS = BigInt(MTIME) * 1_000_000n;

interface K {
  name: string;
  device: number;
  stream: number;
  start_ns: bigint;
  end_ns: bigint;
  correlation_id: number | null;
  attrs_json: string;
}

const kernels = (r: Awaited<ReturnType<typeof runImporter>>) =>
  storeSql(r.store).prepare('SELECT name, device, stream, start_ns, end_ns, correlation_id, attrs_json FROM kernels ORDER BY start_ns').safeIntegers().all() as unknown as K[];

test('nsys stats --format csv: a GPU trace, an API trace and a summary in one file; quoted names with commas; relative times end at the mtime', async () => {
  const r = await runImporter(nsysStatsCsvImporter, { file: sample('nsys-stats-traces.csv'), mtimeMs: MTIME });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(r.warnings.map((w) => w.replace(/^[^:]+: /, '')), [
      '1 summary reports skipped (they hold no times)',
      "the report's times are relative to the capture start, which it does not say; its end: placed at the file's modification time, 2026-03-14T09:30:00.000Z",
    ]);
    const ks = kernels(r);
    assert.equal(ks.length, 4);
    // The last GPU row ends at 1503711802 + 58112 ns: that is the mtime; the rest keep their distances from it.
    const last = 1503711802n + 58112n;
    assert.deepEqual(
      ks.map((k) => [k.name.slice(0, 24), k.start_ns - END_NS + last, k.end_ns - k.start_ns, Number(k.correlation_id), Number(k.stream), Number(k.device), JSON.parse(k.attrs_json).kind]),
      [
        ['[CUDA memcpy Host-to-Dev', 1503221877n, 3104n, 2211, 7, 0, 'memcpy'],
        ['void flash_fwd_splitkv_k', 1503290113n, 412896n, 2219, 7, 0, 'kernel'],
        ['[CUDA memset]', 1503703521n, 1888n, 2227, 7, 0, 'memset'],
        ['void at::native::(anonym', 1503711802n, 58112n, 2236, 7, 0, 'kernel'],
      ],
    );
    assert.equal(ks[1].name, 'void flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4, false, false, cutlass::bfloat16_t>, true, false>(Flash_fwd_params)');
    const attrs = JSON.parse(ks[1].attrs_json);
    assert.equal(attrs.grid, '(132, 1, 1)');
    assert.equal(attrs.block, '(384, 1, 1)');
    assert.equal(attrs.registers_per_thread, 168);
    assert.equal(attrs.launch_span_id, 'c2219');
    // The runtime calls: spans c<CorrID> under the process, so each launch joins its kernel.
    const spans = r.all<{ trace_id: string; span_id: string; name: string }>('SELECT trace_id, span_id, name FROM spans ORDER BY start_ns');
    assert.deepEqual(spans.map((s) => [s.trace_id, s.span_id, s.name]), [
      ['nsys:40127', 'c2211', 'cudaMemcpyAsync'],
      ['nsys:40127', 'c2219', 'cudaLaunchKernel'],
      ['nsys:40127', 'c2227', 'cudaMemsetAsync'],
      ['nsys:40127', 'c2236', 'cudaLaunchKernel'],
    ]);
  } finally {
    r.dispose();
  }
});

test("nsys stats' own column format: columns where their dashes are, thousands separators", async () => {
  const r = await runImporter(nsysStatsCsvImporter, { file: sample('nsys-stats-gpu-trace.txt'), mtimeMs: MTIME });
  try {
    assert.equal(r.error, null);
    const ks = kernels(r);
    assert.deepEqual(
      ks.map((k) => [k.name, k.end_ns - k.start_ns, Number(k.correlation_id), Number(k.stream)]),
      [
        ['[CUDA memcpy Host-to-Device]', 14336n, 119, 13],
        ['ampere_bf16_s16816gemm_bf16_128x64_ldg8_f2f_stages_64x4_tn', 1203712n, 127, 13],
        ['[CUDA memcpy Device-to-Host]', 6464n, 131, 13],
      ],
    );
    assert.equal(ks[1].start_ns - ks[0].start_ns, 912120330n - 912004517n);
  } finally {
    r.dispose();
  }
});

test("nsys' column format pasted with its header a space short of its dashes: titles read two spaces apart, not by position", async () => {
  const lines = readFileSync(sample('nsys-stats-gpu-trace.txt'), 'utf8').split('\n');
  const h = lines.findIndex((l) => l.trimStart().startsWith('Start (ns)'));
  lines[h] = lines[h].replace(/^ /, '');
  const r = await runImporter(nsysStatsCsvImporter, { text: lines.join('\n'), mtimeMs: MTIME });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(kernels(r).map((k) => [k.end_ns - k.start_ns, Number(k.correlation_id)]), [[14336n, 119], [1203712n, 127], [6464n, 131]]);
  } finally {
    r.dispose();
  }
});

test('nvprof --csv --print-gpu-trace: ==PID== lines skipped, times in the units row (Start ms, Duration us)', async () => {
  const r = await runImporter(nvprofCsvImporter, { file: sample('nvprof-gpu-trace.csv'), mtimeMs: MTIME });
  try {
    assert.equal(r.error, null);
    const ks = kernels(r);
    assert.deepEqual(
      ks.map((k) => [k.name, k.start_ns - ks[0].start_ns, k.end_ns - k.start_ns, Number(k.correlation_id), Number(k.device)]),
      [
        ['[CUDA memcpy HtoD]', 0n, 1632n, 1203, 0],
        ['volta_fp16_s884gemm_fp16_128x128_ldg8_f2f_nn', 105632n, 96415n, 1210, 0],
        ['[CUDA memset]', 206881n, 1248n, 1214, 0],
      ],
    );
    assert.equal(ks[2].end_ns, END_NS);
    assert.deepEqual([JSON.parse(ks[0].attrs_json).size, JSON.parse(ks[0].attrs_json).size_unit], [0.25, 'MB']);
  } finally {
    r.dispose();
  }
});

test("nvprof without a correlation column: the API call's id it appends to a row's name ([1105]) is taken out into the correlation id", async () => {
  const csv = [
    '==12459== Profiling result:',
    '"Start","Duration","Grid X","Grid Y","Grid Z","Block X","Block Y","Block Z","Registers Per Thread","Static SMem","Dynamic SMem","Size","Throughput","Device","Context","Stream","Name"',
    'ms,ms,,,,,,,,KB,B,MB,MB/s,,,,',
    '680.285519,42.112478,,,,,,,,,,16.000000,379.934896,"GeForce GTX 1080 Ti (0)","1","7","[CUDA memcpy HtoD]"',
    '764.700239,0.704973,4096,1,1,512,1,1,19,8.000000,0,,,"GeForce GTX 1080 Ti (0)","1","7","void sortKernel<unsigned int=1>(unsigned int*, unsigned int) [1105]"',
    '765.407132,0.042817,64,1,1,256,1,1,18,0.000000,0,,,"GeForce GTX 1080 Ti (0)","1","7","void sortKernel<unsigned int=1>(unsigned int*, unsigned int) [1114]"',
  ].join('\n');
  const r = await runImporter(nvprofCsvImporter, { text: csv, mtimeMs: MTIME });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(
      kernels(r).map((k) => [k.name, k.correlation_id === null ? null : Number(k.correlation_id)]),
      [
        ['[CUDA memcpy HtoD]', null],
        ['void sortKernel<unsigned int=1>(unsigned int*, unsigned int)', 1105],
        ['void sortKernel<unsigned int=1>(unsigned int*, unsigned int)', 1114],
      ],
    );
  } finally {
    r.dispose();
  }
});

test('summaries alone are refused with what to give instead; detection tells the tools apart and leaves ncu alone', async () => {
  const sum = 'Processing [x.sqlite] with [/opt/nsys/reports/cuda_gpu_kern_sum.py]...\nTime (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n100.0,1000,2,500.0,500.0,400,600,141.4,k\n';
  assert.equal(detectImporter(Buffer.from(sum), 'stats.csv')?.format, 'nsys-stats-csv');
  const r = await runImporter(nsysStatsCsvImporter, { text: sum, name: 'stats.csv' });
  try {
    assert.match(String(r.error?.message), /^stats\.csv \(line 1\): only summary reports, which hold no times: give `nsys stats -r cuda_gpu_trace/);
  } finally {
    r.dispose();
  }
  const nvprofSummary = '======== Profiling result:\n"Type","Time(%)","Time","Calls","Avg","Min","Max","Name"\n,%,us,,us,us,us,\n"GPU activities",100,10,1,10,10,10,"k"\n';
  assert.equal(detectImporter(Buffer.from(nvprofSummary), 'log.csv')?.format, 'nvprof-csv');
  for (const f of ['nsys-stats-traces.csv', 'nsys-stats-gpu-trace.txt', 'nvprof-gpu-trace.csv']) {
    assert.equal(detectImporter(readFileSync(sample(f)).subarray(0, HEAD_BYTES), f)?.format, f.startsWith('nvprof') ? 'nvprof-csv' : 'nsys-stats-csv');
  }
  assert.equal(detectImporter(Buffer.from('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream"\n'), 'ncu.csv')?.format, 'ncu-csv');
});

test('a start or duration no capture has is a skipped row named by its line, not a failed file', async () => {
  const text = [
    'Start (ns),Duration (ns),CorrId,Device,Ctx,Strm,Name',
    '1000,500,1,NVIDIA H100 (0),1,7,good_kernel',
    '1e300,500,2,NVIDIA H100 (0),1,7,broken_start',
    '2000,-5,3,NVIDIA H100 (0),1,7,negative_duration',
    '',
  ].join('\n');
  const r = await runImporter(nsysStatsCsvImporter, { text, name: 'trace.csv', mtimeMs: MTIME });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(kernels(r).map((k) => k.name), ['good_kernel', 'negative_duration']);
    assert.deepEqual(r.warnings.filter((w) => /row skipped/.test(w)), ['trace.csv (line 3): a start or duration no capture has (negative, or past 115 days): row skipped']);
  } finally {
    r.dispose();
  }
});
