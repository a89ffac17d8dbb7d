// Parse + import time of a memory snapshot with N device-trace entries (default 1 M: alloc /
// free_requested / free_completed cycles over reused addresses, shared frame lists as torch writes
// them), into a real SQLite store, beside what a user would run instead: memory_viz's `trace_plot` command
// (`python -m torch.cuda._memory_viz trace_plot snapshot.pickle -o plot.html`). torch is not installed here,
// but that command's Python part needs none of it: it unpickles the file, pickles it again, base64-encodes
// that into a JSON list and writes it into an HTML page (whose script, fetched from a CDN, parses the pickle
// once more in the browser: not counted). The peers are those steps in Python, and their first one alone,
// pickle.load (the floor of any Python reading). Medians of QUADSCOPE_BENCH_RUNS (3) interleaved runs,
// each in a process of its own; Quadscope's import as `quadscope import` runs it, and its parse alone.
// Run: npm run bench -- memory-snapshot [entries]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pickle, tuple, type PickleValue } from '../../fixtures/lib/pickle-writer';
import { emit, rng } from './lib';
import { medianOf, python, quadscopeImport, RUNS, type Measure } from './peers';

const N = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 1_000_000);

function snapshot(n: number): PickleValue {
  const r = rng(3);
  const stacks = Array.from({ length: 50 }, (_, s) => [
    { filename: '??', line: 0, name: 'torch::unwind::unwind()' },
    { filename: `model_${s}.py`, line: 10 + s, name: `layer_${s}` },
    { filename: 'train.py', line: 99, name: 'step' },
  ]);
  const entries: PickleValue[] = [];
  const live: number[] = [];
  let t = 1_700_000_000_000_000;
  const next = 0x7f0000000000;
  while (entries.length < n) {
    t += 3;
    if (live.length > 200 || (live.length && r() < 0.45)) {
      const addr = live.splice(Math.floor(r() * live.length), 1)[0];
      const frames = stacks[addr % 50];
      entries.push({ action: 'free_requested', addr, size: 4096, stream: 0, time_us: t, frames });
      entries.push({ action: 'free_completed', addr, size: 4096, stream: 0, time_us: t + 1, frames });
    } else {
      const addr = next + 512 * Math.floor(r() * 4096);
      if (live.includes(addr)) continue;
      live.push(addr);
      entries.push({ action: 'alloc', addr, size: 4096, stream: 0, time_us: t, frames: stacks[addr % 50] });
    }
  }
  return { segments: [{ device: 0, address: next, total_size: 2 ** 31, allocated_size: 0, active_size: 0, requested_size: 0, stream: 0, segment_type: 'large', segment_pool_id: tuple(0, 0), is_expandable: false, frames: [], blocks: [] }], device_traces: [entries.slice(0, n)] };
}

const PYTHON_LOAD = `
import json, pickle, sys, time
t = time.perf_counter()
with open(sys.argv[1], 'rb') as f:
    snap = pickle.load(f)
rows = sum(len(t) for t in snap['device_traces'])
print(json.dumps({"ms": (time.perf_counter() - t) * 1000, "rows": rows}))
`;

/** memory_viz's trace_plot command, its Python steps (the page's template reduced to its placeholder). */
const PYTHON_TRACE_PLOT = `
import base64, json, os, pickle, sys, time
t = time.perf_counter()
with open(sys.argv[1], 'rb') as f:
    snap = pickle.load(f)
rows = sum(len(t) for t in snap['device_traces'])
buf = pickle.dumps(snap)
buf += b'\\x00' * (3 - len(buf) % 3)
files = json.dumps([{"name": 'snapshot.pickle', "base64": base64.b64encode(buf).decode('utf-8')}])
page = '<script type="module">const local_files = $SNAPSHOT; add_local_files(local_files, $VIZ_KIND)</script>'
page = page.replace('$VIZ_KIND', repr('Active Memory Timeline')).replace('$SNAPSHOT', files)
with open(os.path.join(os.path.dirname(sys.argv[1]), 'plot.html'), 'w') as f:
    f.write(page)
print(json.dumps({"ms": (time.perf_counter() - t) * 1000, "rows": rows}))
`;

const bytes = pickle(snapshot(N));
const dir = mkdtempSync(join(tmpdir(), 'qs-bench-snap-'));
try {
  const file = join(dir, 'snapshot.pickle');
  writeFileSync(file, bytes);
  const runs: Record<'qs' | 'parse' | 'py' | 'viz', Measure[]> = { qs: [], parse: [], py: [], viz: [] };
  for (let k = 0; k < RUNS; k++) {
    runs.qs.push(quadscopeImport('torch-memory-snapshot', file));
    runs.parse.push(quadscopeImport('torch-memory-snapshot', file, 'parse'));
    const py = python(PYTHON_LOAD, [file]);
    if (py) runs.py.push(py);
    const viz = python(PYTHON_TRACE_PLOT, [file]);
    if (viz) runs.viz.push(viz);
  }
  const qs = medianOf(runs.qs);
  const parse = medianOf(runs.parse);
  const label = `${N} trace entries (${(bytes.length / 1e6).toFixed(0)} MB pickle, ${(qs.rows ?? 0).toLocaleString('en-US')} rows)`;
  emit({ bench: 'memory-snapshot', case: `${label}, parse + import`, value: qs.ms / 1000, unit: 's', baseline: 'its parse alone, storing nothing', baseline_value: parse.ms / 1000, peak_rss_mb: qs.rss_mb ?? undefined, target: '< 10 s', met: qs.ms < 10_000 });
  if (runs.py.length) {
    const py = medianOf(runs.py);
    emit({ bench: 'memory-snapshot', case: `${label}: Quadscope ÷ Python pickle.load of the same file, time`, value: qs.ms / 1000, unit: 's', baseline: `python3 pickle.load (memory_viz's first step; peak RSS ${py.rss_mb ?? '?'} MB)`, baseline_value: py.ms / 1000, peak_rss_mb: qs.rss_mb ?? undefined });
  }
  if (runs.viz.length) {
    const viz = medianOf(runs.viz);
    emit({ bench: 'memory-snapshot', case: `${label}: Quadscope ÷ memory_viz trace_plot's Python steps, time`, value: qs.ms / 1000, unit: 's', baseline: `python3: pickle.load, pickle.dumps, base64 into the HTML page (peak RSS ${viz.rss_mb ?? '?'} MB)`, baseline_value: viz.ms / 1000, peak_rss_mb: qs.rss_mb ?? undefined, target: '≤ 1.0× memory_viz trace_plot', met: qs.ms <= viz.ms });
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
