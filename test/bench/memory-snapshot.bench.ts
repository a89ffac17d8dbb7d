// Parse + import time of a memory snapshot with N device-trace entries (default 1 M: alloc /
// free_requested / free_completed cycles over reused addresses, shared frame lists as torch writes
// them), into a real SQLite store. Target: 1 M entries in under 10 s.
// Run: node --import tsx test/bench/memory-snapshot.bench.ts [entries]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { memorySnapshotImporter } from '../../node/engine/importers/memory-snapshot';
import { unpickle } from '../../node/engine/importers/pickle';
import { Store } from '../../node/engine/store/store';
import { pickle, tuple, type PickleValue } from '../../fixtures/lib/pickle-writer';
import { emit, rng, time } from './lib';

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

const bytes = pickle(snapshot(N));
const parse = await time(() => unpickle(bytes));
const dir = mkdtempSync(join(tmpdir(), 'qs-bench-snap-'));
try {
  const store = new Store(join(dir, 'w.db'));
  const inc = store.createIncident('bench');
  const w = store.beginSource(inc, { path: 'snap.pickle', format: 'torch-memory-snapshot', bytes: bytes.length });
  const ctx = { path: 'snap.pickle', size: bytes.length, mtimeMs: null, options: {}, signal: new AbortController().signal, progress() {}, warn() {} };
  const full = await time(() => memorySnapshotImporter.import({ stream: () => Readable.from([bytes]), file: async () => '' }, w, ctx));
  w.commit([]);
  const rows = w.rows;
  store.close();
  emit({ bench: 'memory-snapshot', case: `${N} trace entries (${(bytes.length / 1e6).toFixed(0)} MB pickle, ${rows} rows), parse + import`, value: full.ms / 1000, unit: 's', baseline: 'unpickle only', baseline_value: parse.ms / 1000, target: '< 10 s', met: full.ms < 10_000 });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
