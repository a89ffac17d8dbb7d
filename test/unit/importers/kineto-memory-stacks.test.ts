// Kineto [memory] allocations carry the stack of CPU ops they happened in, read back from a real store.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { corpusFile, skipUnlessCorpus } from '../../helpers/corpus';
import { importFiles, tempStore } from '../../helpers/import-file';
import { kinetoImporter, usToNs } from '../../../node/engine/importers/kineto';
import { runImporter } from './run-importer';
import { storeSql } from '../../helpers/store-sql';

const T = 1_700_000_000_000_000; // epoch µs

const mem = (tid: number, dt: number, addr: number, bytes: number) => ({ ph: 'i', cat: 'cpu_instant_event', s: 't', name: '[memory]', pid: 1, tid, ts: T + dt, args: { 'Device Type': 1, 'Device Id': 0, Addr: addr, Bytes: bytes, 'Total Allocated': 0, 'Total Reserved': 0 } });
const op = (cat: string, name: string, tid: number, dt: number, dur: number) => ({ ph: 'X', cat, name, pid: 1, tid, ts: T + dt, dur, args: {} });

interface Row { addr: string; alloc_ns: bigint | null; free_ns: bigint | null; frames: string | null }

test('allocations get the CPU ops enclosing them on their thread, innermost first, whatever the file order', async () => {
  const trace = {
    schemaVersion: 1,
    traceEvents: [
      // The memory events come first, as in every corpus trace that has them.
      mem(10, 15, 0x1000, 1024), // in aten::addmm, in aten::linear
      mem(10, 500, 0x2000, 2048), // in no op
      mem(11, 15, 0x3000, 4096), // the other thread: its own annotation and Python frame
      mem(10, 30, 0x1000, -1024), // frees the first: it keeps its alloc's stack
      mem(10, 45, 0x4000, -512), // a free whose alloc is not in the trace: the free's own stack
      op('cpu_op', 'aten::linear', 10, 10, 40),
      op('cpu_op', 'aten::addmm', 10, 12, 10),
      // Not stack frames: a runtime call, a kernel, the profiler's whole-trace span.
      op('cuda_runtime', 'cudaMalloc', 10, 14, 2),
      { ph: 'X', cat: 'kernel', name: 'k', pid: 0, tid: 7, ts: T, dur: 1000, args: { device: 0, stream: 7, correlation: 1 } },
      { ph: 'X', cat: 'Trace', name: 'PyTorch Profiler (0)', pid: 'Spans', tid: 'PyTorch Profiler', ts: T, dur: 1000 },
      op('python_function', 'model.py(7): forward', 11, 5, 45),
      op('user_annotation', '## fwd ##', 11, 0, 100),
    ],
  };
  const r = await runImporter(kinetoImporter, { text: JSON.stringify(trace), name: 'trace.json', chunk: 97 });
  try {
    assert.equal(r.error, null, String(r.error));
    const db = storeSql(r.store);
    const rows = db.prepare('SELECT a.addr, a.alloc_ns, a.free_ns, s.frames_json AS frames FROM allocations a LEFT JOIN stacks s ON s.id = a.stack_id ORDER BY a.addr').safeIntegers().all() as Row[];
    const ns = (dt: number) => usToNs(T + dt);
    assert.deepEqual(rows, [
      { addr: '0x1000', alloc_ns: ns(15), free_ns: ns(30), frames: '["aten::addmm","aten::linear"]' },
      { addr: '0x2000', alloc_ns: ns(500), free_ns: null, frames: null },
      { addr: '0x3000', alloc_ns: ns(15), free_ns: null, frames: '["model.py:7 forward","## fwd ##"]' },
      { addr: '0x4000', alloc_ns: null, free_ns: ns(45), frames: '["aten::linear"]' },
    ]);
    assert.equal(db.prepare('SELECT COUNT(*) FROM stacks').pluck().get(), 3);
    // The allocation view's own query: alive 20 µs in, largest first.
    const sites = r.store.allocationSites(r.incidentId, (T + 20) / 1000).map((s) => [s.live_bytes, s.frames]);
    assert.deepEqual(sites, [
      [4096, ['model.py:7 forward', '## fwd ##']],
      [1024, ['aten::addmm', 'aten::linear']],
      [512, ['aten::linear']],
    ]);
  } finally {
    r.dispose();
  }
});

const MEM = 'kineto_trace/hta_df_index_resolver_v100_profile_memory_WINDOW30ms.json.gz';

test('corpus [memory] allocations carry their enclosing CPU ops', { skip: skipUnlessCorpus(MEM) }, async () => {
  // Expected values from a brute-force python3 reading of the gunzipped JSON (json.load): each CUDA
  // [memory] alloc paired by (Device Id, Addr) with its free; its frames are the cpu_op/user_annotation/
  // python_function X events on its pid+tid with ts <= alloc ts <= ts+dur, sorted by (ts, -end, file
  // index) and reversed. 144 allocations (all 119 frees paired), every one under some op, 17 distinct
  // stacks; the ops all precede the memory events in the file.
  const t = tempStore();
  try {
    const r = await importFiles(t.store, [corpusFile(MEM)!], { importers: [kinetoImporter] });
    assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
    const db = storeSql(t.store);
    assert.equal(db.prepare("SELECT COUNT(*) FROM allocations WHERE source = 'kineto'").pluck().get(), 144);
    assert.equal(db.prepare('SELECT COUNT(*) FROM allocations WHERE stack_id IS NULL').pluck().get(), 0);
    assert.equal(db.prepare('SELECT COUNT(DISTINCT stack_id) FROM allocations').pluck().get(), 17);
    // The first allocation (ts 1669783687404093 µs, 24 MiB).
    const first = db.prepare("SELECT a.size, s.frames_json FROM allocations a JOIN stacks s ON s.id = a.stack_id WHERE a.addr = '0x7f41c2000000' AND a.alloc_ns = ?").get(usToNs(1669783687404093)) as { size: number; frames_json: string };
    assert.deepEqual(first, { size: 25165824, frames_json: JSON.stringify(['aten::empty_strided', 'aten::empty_like', 'aten::clone', 'CompiledFunction', 'ProfilerStep#2']) });
    // The most common stack: 21 allocations.
    const common = db.prepare('SELECT s.frames_json, COUNT(*) AS n FROM allocations a JOIN stacks s ON s.id = a.stack_id GROUP BY a.stack_id ORDER BY n DESC LIMIT 1').get();
    assert.deepEqual(common, { frames_json: JSON.stringify(['aten::mul', 'CompiledFunction', 'ProfilerStep#2']), n: 21 });
    // What the allocation view shows at the end: the largest site still alive, 30752768 bytes in 7 allocations.
    const [top] = t.store.allocationSites(r.incident_id);
    assert.deepEqual([top.frames, top.live_bytes, top.allocs], [['aten::sigmoid', 'CompiledFunction', 'ProfilerStep#2'], 30752768, 7]);
  } finally {
    t.dispose();
  }
});
