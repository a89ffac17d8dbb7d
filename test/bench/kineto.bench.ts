// Throughput and peak RSS of the streaming Kineto importer on a generated trace (default ~100 MB of
// JSON: CPU ops, runtime calls, kernels with launch args, ac2g flows, [memory] events), produced
// chunk by chunk so the input itself is never held in memory. Cases: into a real SQLite store as the
// pipeline runs it (a worker thread parses, this thread writes) and on one thread, and into a sink that
// stores nothing (parsing alone); baselines: the byte scanner alone, and the scanner + JSON.parse.
// Run: node --import tsx test/bench/kineto.bench.ts   (QUADSCOPE_BENCH_SIZES=100MB,1GB)
import { closeSync, createReadStream, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importInWorker } from '../../node/engine/import/parallel-import';
import { kinetoImporter } from '../../node/engine/importers/kineto';
import { scanChromeTrace } from '../../node/engine/importers/json-event-scanner';
import type { ImportContext, Sink } from '../../node/engine/importers/types';
import { Store } from '../../node/engine/store/store';
import { benchSizes, emit, peakRssMb, rng, time } from './lib';

const T0 = 1_700_000_000_000_000; // epoch µs

/** Yields ~`bytes` of Kineto JSON in 64 KiB-ish chunks, seeded. */
function* trace(bytes: number): Generator<Buffer> {
  const r = rng(7);
  const head = '{"schemaVersion":1,"deviceProperties":[{"id":0,"name":"NVIDIA H100","totalGlobalMem":85520809984}],"distributedInfo":{"rank":0},"traceEvents":[\n';
  let out = head;
  let total = 0;
  let i = 0;
  let ts = T0;
  let addr = 0x7f0000000000;
  while (total < bytes) {
    const corr = i + 1;
    ts += 5 + r() * 10;
    const t = ts.toFixed(3);
    out +=
      `{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":100,"tid":100,"ts":${t},"dur":${(20 + r() * 30).toFixed(3)},"args":{"External id":${corr},"Sequence number":${i},"Fwd thread id":0,"Record function id":0,"Ev Idx":${i}}},\n` +
      `{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":100,"tid":100,"ts":${(ts + 2).toFixed(3)},"dur":4.5,"args":{"External id":${corr},"cbid":211,"correlation":${corr}}},\n` +
      `{"ph":"s","id":${corr},"pid":100,"tid":100,"ts":${(ts + 2).toFixed(3)},"cat":"ac2g","name":"ac2g"},\n` +
      `{"ph":"X","cat":"kernel","name":"void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>(Params)","pid":0,"tid":7,"ts":${(ts + 8).toFixed(3)},"dur":${(10 + r() * 100).toFixed(3)},"args":{"External id":${corr},"queued":0,"device":0,"context":1,"stream":7,"correlation":${corr},"registers per thread":128,"shared memory":49152,"blocks per SM":1.5,"warps per SM":6.0,"grid":[264,1,1],"block":[128,1,1],"est. achieved occupancy %":12}},\n` +
      `{"ph":"f","id":${corr},"pid":0,"tid":7,"ts":${(ts + 8).toFixed(3)},"cat":"ac2g","name":"ac2g","bp":"e"},\n`;
    if (i % 4 === 0) {
      addr += 0x200000;
      const free = i % 8 === 4;
      out += `{"ph":"i","cat":"cpu_instant_event","s":"t","name":"[memory]","pid":100,"tid":100,"ts":${(ts + 1).toFixed(3)},"args":{"Device Type":1,"Device Id":0,"Addr":${free ? addr - 0x200000 : addr},"Bytes":${free ? -2097152 : 2097152},"Total Allocated":${1e9 + (i % 1000) * 2097152},"Total Reserved":${2e9}}},\n`;
    }
    i++;
    if (out.length > 65536) {
      const b = Buffer.from(out);
      total += b.length;
      yield b;
      out = '';
    }
  }
  out += `{"ph":"X","cat":"Trace","name":"PyTorch Profiler","pid":"Spans","tid":"PyTorch Profiler","ts":${T0},"dur":1}\n],"traceName":"bench"}`;
  yield Buffer.from(out);
}

/** Writes the trace to a temporary file (streamed back from disk, as a real import reads it). */
function writeTrace(file: string, bytes: number): number {
  const fd = openSync(file, 'w');
  let n = 0;
  for (const b of trace(bytes)) {
    writeSync(fd, b);
    n += b.length;
  }
  closeSync(fd);
  return n;
}

function countingSink(): Sink {
  let id = 0;
  const nop = () => {};
  return { rows: 0, series: () => ++id, sample: nop, histogram: nop, event: nop, span: nop, kernel: nop, stack: () => 0, allocation: nop, attached: () => { throw new Error('none'); }, incidentId: 1, sourceId: 1 };
}

const ctx = (): ImportContext => ({ path: 'bench.json', size: null, mtimeMs: null, options: {}, signal: new AbortController().signal, progress() {}, warn() {} });
const input = (file: string) => ({ stream: () => createReadStream(file, { highWaterMark: 1 << 16 }) as AsyncIterable<Buffer>, file: async () => file });

for (const bytes of benchSizes('100MB')) {
  const dir = mkdtempSync(join(tmpdir(), 'qs-bench-kineto-'));
  const src = join(dir, 'trace.json');
  const actual = writeTrace(src, bytes);
  const mb = actual / 1e6;
  const label = `${Math.round(mb)} MB trace`;

  const scan = await time(async () => {
    let n = 0;
    for await (const it of scanChromeTrace(input(src).stream(), { skipEvents: true })) if (it.kind === 'events') n++;
    return n;
  });
  // What V8 alone costs: the scanner cutting events and JSON.parse-ing them, nothing done with them.
  const jsonParse = await time(async () => {
    let n = 0;
    for await (const it of scanChromeTrace(input(src).stream())) if (it.kind === 'events') n += it.events.length;
    return n;
  });
  const parse = await time(() => kinetoImporter.import(input(src), countingSink(), ctx()));
  emit({ bench: 'kineto', case: `${label}, parse only`, value: mb / (parse.ms / 1000), unit: 'MB/s', baseline: 'byte scan only', baseline_value: mb / (scan.ms / 1000) });
  emit({ bench: 'kineto', case: `${label}, byte scan + JSON.parse of the events only`, value: mb / (jsonParse.ms / 1000), unit: 'MB/s' });

  try {
    for (const mode of ['worker', 'inline'] as const) {
      const store = new Store(join(dir, `${mode}.db`));
      const inc = store.createIncident('bench');
      const w = store.beginSource(inc, { path: 'bench.json', format: 'kineto-json', bytes: actual });
      const full = await time(() => (mode === 'worker' ? importInWorker(kinetoImporter, input(src), w, ctx()) : kinetoImporter.import(input(src), w, ctx())));
      w.commit([]);
      const rows = w.rows;
      await store.checkpointsSettled();
      store.close();
      const rate = mb / (full.ms / 1000);
      emit({
        bench: 'kineto',
        case: mode === 'worker' ? `${label} into SQLite, parsed on a worker thread (${rows} rows)` : `${label} into SQLite, one thread`,
        value: rate,
        unit: 'MB/s',
        baseline: 'byte scan + JSON.parse only',
        baseline_value: mb / (jsonParse.ms / 1000),
        peak_rss_mb: peakRssMb(),
        target: '≥ 100 MB/s, RSS < 400 MB',
        met: rate >= 100 && peakRssMb() < 400,
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
