// Throughput and peak RSS of the streaming Kineto importer on a generated trace (default ~100 MB of
// JSON: CPU ops, runtime calls, kernels with launch args, ac2g flows, [memory] events), produced chunk by
// chunk so the input itself is never held in memory, in two layouts: one event a line (`lines`), and
// the layout Kineto itself writes (`kineto`: each event over several indented lines, args one or a few
// a line). Beside it, in the same run: the whole file read and JSON.parse'd at once (what a Python or
// Node script does, and the floor of any JSON reading; it cannot hold a trace past V8's 512 MiB string).
// Cases, medians of QUADSCOPE_BENCH_RUNS (3) interleaved runs, each in a process of its own: the import
// as `quadscope import` runs it (one thread on fewer than 4 CPUs), the same with the worker thread
// forced, the importer's parse alone, and its rows alone stored by SQLite with no parsing (the floor that
// storing puts under any import of them).
// Run: npm run bench -- kineto   (QUADSCOPE_BENCH_SIZES=100MB,1GB; QUADSCOPE_BENCH_KINETO_LAYOUTS=lines,kineto)
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchSizes, emit, rng } from './lib';
import { medianOf, quadscopeImport, RUNS, timedCommand, type Measure } from './peers';

const T0 = 1_700_000_000_000_000; // epoch µs

type Layout = 'lines' | 'kineto';

/** One event as written in `layout`: `top` is its top-level fields (JSON members, no braces), `args` its args' members. */
function event(layout: Layout, top: string[], args: string[] | null): string {
  if (layout === 'lines') return `{${top.join(',')}${args ? `,"args":{${args.join(',')}}` : ''}},\n`;
  // Kineto's own writer (libkineto output_json.cpp): fields a few a line, args one or a few a line.
  const head = `  {\n    ${top.slice(0, 5).join(', ')}${top.length > 5 ? `,\n    ${top.slice(5).join(', ')}` : ''}`;
  return `${head}${args ? `,\n    "args": {\n      ${args.join(',\n      ')}\n    }` : ''}\n  },\n`;
}

/** Yields ~`bytes` of Kineto JSON in 64 KiB-ish chunks, seeded. */
function* trace(bytes: number, layout: Layout): Generator<Buffer> {
  const r = rng(7);
  const sp = layout === 'lines' ? '' : ' ';
  const head = `{"schemaVersion":${sp}1,${sp}"deviceProperties":${sp}[{"id":${sp}0,${sp}"name":${sp}"NVIDIA H100",${sp}"totalGlobalMem":${sp}85520809984}],${sp}"distributedInfo":${sp}{"rank":${sp}0},${sp}"traceEvents":${sp}[\n`;
  let out = head;
  let total = 0;
  let i = 0;
  let ts = T0;
  let addr = 0x7f0000000000;
  const kv = (k: string, v: string | number) => `"${k}":${sp}${typeof v === 'string' ? `"${v}"` : v}`;
  const raw = (k: string, v: string) => `"${k}":${sp}${v}`;
  while (total < bytes) {
    const corr = i + 1;
    ts += 5 + r() * 10;
    const t = ts.toFixed(3);
    out +=
      event(layout, [kv('ph', 'X'), kv('cat', 'cpu_op'), kv('name', 'aten::mm'), kv('pid', 100), kv('tid', 100), raw('ts', t), raw('dur', (20 + r() * 30).toFixed(3))], [raw('External id', String(corr)), raw('Sequence number', String(i)), raw('Fwd thread id', '0'), raw('Record function id', '0'), raw('Ev Idx', String(i))]) +
      event(layout, [kv('ph', 'X'), kv('cat', 'cuda_runtime'), kv('name', 'cudaLaunchKernel'), kv('pid', 100), kv('tid', 100), raw('ts', (ts + 2).toFixed(3)), raw('dur', '4.5')], [raw('External id', String(corr)), raw('cbid', '211'), raw('correlation', String(corr))]) +
      event(layout, [kv('ph', 's'), raw('id', String(corr)), kv('pid', 100), kv('tid', 100), raw('ts', (ts + 2).toFixed(3)), kv('cat', 'ac2g'), kv('name', 'ac2g')], null) +
      event(
        layout,
        [kv('ph', 'X'), kv('cat', 'kernel'), kv('name', 'void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>(Params)'), kv('pid', 0), kv('tid', 7), raw('ts', (ts + 8).toFixed(3)), raw('dur', (10 + r() * 100).toFixed(3))],
        [
          raw('External id', String(corr)),
          raw('queued', '0'),
          raw('device', '0'),
          raw('context', '1'),
          raw('stream', '7'),
          raw('correlation', String(corr)),
          raw('registers per thread', '128'),
          raw('shared memory', '49152'),
          raw('blocks per SM', '1.5'),
          raw('warps per SM', '6.0'),
          raw('grid', `[264,${sp}1,${sp}1]`),
          raw('block', `[128,${sp}1,${sp}1]`),
          raw('est. achieved occupancy %', '12'),
        ],
      ) +
      event(layout, [kv('ph', 'f'), raw('id', String(corr)), kv('pid', 0), kv('tid', 7), raw('ts', (ts + 8).toFixed(3)), kv('cat', 'ac2g'), kv('name', 'ac2g'), kv('bp', 'e')], null);
    if (i % 4 === 0) {
      addr += 0x200000;
      const free = i % 8 === 4;
      out += event(
        layout,
        [kv('ph', 'i'), kv('cat', 'cpu_instant_event'), kv('s', 't'), kv('name', '[memory]'), kv('pid', 100), kv('tid', 100), raw('ts', (ts + 1).toFixed(3))],
        [raw('Device Type', '1'), raw('Device Id', '0'), raw('Addr', String(free ? addr - 0x200000 : addr)), raw('Bytes', String(free ? -2097152 : 2097152)), raw('Total Allocated', String(1e9 + (i % 1000) * 2097152)), raw('Total Reserved', String(2e9))],
      );
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
function writeTrace(file: string, bytes: number, layout: Layout): number {
  const fd = openSync(file, 'w');
  let n = 0;
  for (const b of trace(bytes, layout)) n += writeSync(fd, b);
  closeSync(fd);
  return n;
}

/** The whole file read and JSON.parse'd at once, in a process of its own. */
function wholeParse(file: string): Measure {
  const script = `const { readFileSync } = require('node:fs'); const t = performance.now(); const doc = JSON.parse(readFileSync(process.argv[1], 'utf8')); console.log(JSON.stringify({ ms: performance.now() - t, rows: doc.traceEvents.length }));`;
  const r = timedCommand(process.execPath, ['-e', script, file]);
  const j = JSON.parse(r.stdout.trim()) as { ms: number; rows: number };
  return { ms: j.ms, rows: j.rows, rss_mb: r.rss_mb };
}

const layouts = (process.env.QUADSCOPE_BENCH_KINETO_LAYOUTS ?? 'lines,kineto').split(',').map((l) => l.trim()) as Layout[];
for (const layout of layouts) {
  if (layout !== 'lines' && layout !== 'kineto') throw new Error(`QUADSCOPE_BENCH_KINETO_LAYOUTS: unknown layout ${layout} (lines, kineto)`);
  for (const bytes of benchSizes('100MB')) {
    const dir = mkdtempSync(join(tmpdir(), 'qs-bench-kineto-'));
    try {
      const src = join(dir, 'trace.json');
      const actual = writeTrace(src, bytes, layout);
      const mb = actual / 1e6;
      const label = `${Math.round(mb)} MB trace (${layout === 'lines' ? 'one event a line' : "Kineto's own layout"})`;
      // V8 cannot make a string past 512 MiB: there the whole-file parse is no peer.
      const parseable = actual < 2 ** 29;
      const runs: Record<'qs' | 'worker' | 'parse' | 'floor' | 'json', Measure[]> = { qs: [], worker: [], parse: [], floor: [], json: [] };
      for (let k = 0; k < RUNS; k++) {
        runs.qs.push(quadscopeImport('kineto-json', src));
        runs.worker.push(quadscopeImport('kineto-json', src, 'pipeline', { QUADSCOPE_IMPORT_WORKER: 'always' }));
        runs.parse.push(quadscopeImport('kineto-json', src, 'parse'));
        runs.floor.push(quadscopeImport('kineto-json', src, 'floor'));
        if (parseable) runs.json.push(wholeParse(src));
      }
      const qs = medianOf(runs.qs);
      const worker = medianOf(runs.worker);
      const parse = medianOf(runs.parse);
      const floorRows = medianOf(runs.floor);
      const json = runs.json.length ? medianOf(runs.json) : null;
      const floor = json ? { baseline: `whole file read + JSON.parse (peak RSS ${json.rss_mb ?? '?'} MB)`, baseline_value: mb / (json.ms / 1000) } : {};
      const rss = (m: Measure) => m.rss_mb ?? undefined;
      const met = (m: Measure) => (json ? mb / (m.ms / 1000) >= 0.8 * (mb / (json.ms / 1000)) : true) && (m.rss_mb ?? 0) < 400;
      emit({ bench: 'kineto', case: `${label} into SQLite (${(qs.rows ?? 0).toLocaleString('en-US')} rows), as quadscope import runs it`, value: mb / (qs.ms / 1000), unit: 'MB/s', ...floor, peak_rss_mb: rss(qs), target: '≥ 0.8× JSON.parse, RSS < 400 MB', met: met(qs) });
      emit({ bench: 'kineto', case: `${label} into SQLite, parsed on a worker thread`, value: mb / (worker.ms / 1000), unit: 'MB/s', ...floor, peak_rss_mb: rss(worker), target: '≥ 0.8× JSON.parse, RSS < 400 MB', met: met(worker) });
      emit({ bench: 'kineto', case: `${label}, the importer's parse alone`, value: mb / (parse.ms / 1000), unit: 'MB/s', ...floor, peak_rss_mb: rss(parse) });
      // What SQLite alone costs for these rows: the target's room for reading and parsing is what it leaves.
      emit({ bench: 'kineto', case: `${label}: its ${(floorRows.rows ?? 0).toLocaleString('en-US')} rows alone, already in memory, into SQLite (64-row INSERTs, one transaction, commit included; no reading, no parsing), as MB of trace per s`, value: mb / (floorRows.ms / 1000), unit: 'MB/s', ...floor, peak_rss_mb: rss(floorRows) });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}
