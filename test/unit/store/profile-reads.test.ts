// The profiler reads behind the Kernels and Memory views and the Perfetto export, on a real SQLite file
// with a Kineto trace written by the fixture generator (CPU ops, cudaLaunchKernel calls, their kernels
// and `[memory]` events): every kernel's flow found through its correlation id, a launch that is not in
// the trace counted as unmatched, the stacked memory timeline adding up to the total with nothing
// dropped, and the Chrome trace JSON in the shape Perfetto reads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { kinetoTrace } from '../../../fixtures/lib/kineto-writer';
import { Rng } from '../../../fixtures/lib/rng';
import { exportChromeTrace, traceFileName } from '../../../node/engine/report/chrome-trace';
import { importFiles, tempStore } from '../../helpers/import-file';

const START_US = Date.UTC(2026, 2, 14, 9, 5, 0) * 1000;
const MiB = 2 ** 20;
const STEPS = 12;
const LAYERS = 10;

function trace(drop?: (e: Record<string, unknown>) => boolean): string {
  const text = kinetoTrace({ rng: new Rng(7), startUs: START_US, steps: STEPS, layersPerStep: LAYERS, allocatedBytes: 4 * 2 ** 30, reservedBytes: 6 * 2 ** 30, leakBytesPerStep: 64 * MiB, reservedGrowthPerStep: 0, pid: 4242 });
  if (!drop) return text;
  const j = JSON.parse(text) as { traceEvents: Record<string, unknown>[] };
  j.traceEvents = j.traceEvents.filter((e) => !drop(e));
  return JSON.stringify(j);
}

async function imported(text: string) {
  const t = tempStore();
  const file = join(t.dir, 'rank0.pt.trace.json');
  writeFileSync(file, text);
  const r = await importFiles(t.store, [file]);
  assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
  return { t, id: r.incident_id };
}

test('every kernel is joined to the call that launched it and to that call\'s CPU op', async () => {
  const { t, id } = await imported(trace());
  try {
    const all = t.store.queryKernels(id, 0, 1e16, 10_000);
    assert.equal(all.length, STEPS * LAYERS);
    const f = t.store.kernelFlows(id, 0, 1e16);
    assert.equal(f.flows.length, all.length);
    assert.equal(f.unmatched, 0);
    assert.equal(f.truncated, false);
    for (const x of f.flows) {
      assert.equal(x.thread, 'pid 4242 · tid 4242');
      assert.equal(x.launch_name, 'cudaLaunchKernel');
      assert.ok(x.launch_start_ms <= x.kernel_start_ms, 'a launch precedes its kernel');
      assert.ok(x.op_name && ['_C::rms_norm', 'aten::mm', 'vllm::unified_attention_with_output', '_C::silu_and_mul'].includes(x.op_name), String(x.op_name));
      assert.ok(x.op_start_ms! <= x.launch_start_ms && x.op_end_ms! >= x.launch_end_ms, 'the op encloses its launch');
    }
    // Bounded: the first `limit` kernels by start, and the count of all of them.
    const few = t.store.kernelFlows(id, 0, 1e16, 7);
    assert.equal(few.flows.length, 7);
    assert.equal(few.truncated, true);
    assert.equal(few.kernels, all.length);
    assert.deepEqual(few.flows.map((x) => x.kernel_start_ms), all.slice(0, 7).map((k) => k.start_ms));
  } finally {
    t.dispose();
  }
});

test('a kernel whose launching call is not in the trace is counted unmatched, not drawn', async () => {
  let dropped = 0;
  const { t, id } = await imported(trace((e) => e.name === 'cudaLaunchKernel' && (e.args as { correlation: number }).correlation === 4215 && ++dropped > 0));
  try {
    assert.equal(dropped, 1);
    const f = t.store.kernelFlows(id, 0, 1e16);
    assert.equal(f.unmatched, 1);
    assert.equal(f.flows.length, STEPS * LAYERS - 1);
    assert.ok(!f.flows.some((x) => x.correlation_id === 4215));
  } finally {
    t.dispose();
  }
});

test('the stacked memory timeline reads every record: top sites and "other" add up to the total', async () => {
  const { t, id } = await imported(trace());
  try {
    const all = t.store.memoryBySite(id, { points: 40, top: 30 });
    const one = t.store.memoryBySite(id, { points: 40, top: 1 });
    const records = t.store.getIncident(id)!.counts.allocations;
    assert.equal(one.records, records);
    assert.equal(one.t.length, 40);
    assert.equal(one.sites.length, 1);
    assert.ok(one.other.sites >= 1, 'the rest is one band, not dropped');
    for (let i = 0; i < one.t.length; i++) {
      assert.equal(one.sites[0].bytes[i] + one.other.bytes[i], one.total[i]);
      assert.equal(all.sites.reduce((a, s) => a + s.bytes[i], 0) + all.other.bytes[i], all.total[i]);
    }
    assert.deepEqual(one.total, all.total, 'how many sites are named does not change the total');
    // The leak: 64 MiB a step, never freed, is the largest site at the end.
    const leak = one.sites[0];
    assert.equal(leak.peak_bytes, STEPS * 64 * MiB);
    assert.equal(leak.bytes[leak.bytes.length - 1], STEPS * 64 * MiB);
    assert.ok(one.total.every((v) => v >= 0));
  } finally {
    t.dispose();
  }
});

test('the range exports as Chrome trace JSON: kernels on GPU lanes, CPU events, and ac2g flows that land inside both', async () => {
  const { t, id } = await imported(trace());
  try {
    const kernels = t.store.queryKernels(id, 0, 1e16, 10_000);
    const from = kernels[0].start_ms - 1;
    const to = kernels[kernels.length - 1].end_ms + 1;
    const x = exportChromeTrace(t.store, id, from, to);
    assert.equal(x.truncated, false);
    assert.equal(x.file_name, traceFileName(t.store.getIncident(id)!.name, from, to));
    assert.match(x.file_name, /^quadscope-rank0\.pt\.trace\.json-2026-03-14-\d{6}\.\d{3}-to-\d{6}\.\d{3}\.trace\.json$/);
    const j = JSON.parse(x.content) as { traceEvents: { ph: string; name: string; pid: number; tid: number; ts: number; dur?: number; id?: number; bp?: string; args?: Record<string, unknown> }[] };
    const ev = j.traceEvents;
    assert.equal(x.events, ev.filter((e) => e.ph !== 'M').length);
    const gpu = ev.filter((e) => e.ph === 'X' && e.pid === 1_000_000);
    assert.equal(gpu.length, kernels.length);
    assert.equal(gpu[0].ts, Math.round(kernels[0].start_ms * 1e6) / 1e3, 'ts in µs');
    assert.ok(ev.some((e) => e.ph === 'M' && e.name === 'process_name' && e.args?.name === 'GPU 0'));
    const cpu = ev.filter((e) => e.ph === 'X' && e.pid === 4242);
    assert.ok(cpu.some((e) => e.name === 'aten::mm') && cpu.some((e) => e.name === 'cudaLaunchKernel'));
    const starts = ev.filter((e) => e.ph === 's');
    const ends = ev.filter((e) => e.ph === 'f');
    assert.equal(starts.length, kernels.length);
    assert.deepEqual(new Set(starts.map((e) => e.id)), new Set(ends.map((e) => e.id)));
    const inside = (p: { pid: number; tid: number; ts: number }, list: typeof ev) => list.some((e) => e.pid === p.pid && e.tid === p.tid && e.ts <= p.ts && e.ts + (e.dur ?? 0) >= p.ts);
    for (const s of starts) assert.ok(inside(s, cpu), `flow ${s.id} starts inside a CPU slice`);
    for (const f of ends) {
      assert.equal(f.bp, 'e');
      assert.ok(gpu.some((k) => k.ts === f.ts && k.tid === f.tid), `flow ${f.id} ends at a kernel`);
    }
    // Bounded: the earliest events within the limits, and the answer says so.
    const small = exportChromeTrace(t.store, id, from, to, { maxEvents: 50 });
    assert.equal(small.truncated, true);
    assert.equal(small.events, 50);
    const tiny = exportChromeTrace(t.store, id, from, to, { maxBytes: 20_000 });
    assert.equal(tiny.truncated, true);
    assert.ok(tiny.content.length <= 20_000, `${tiny.content.length} bytes`);
    JSON.parse(tiny.content);
  } finally {
    t.dispose();
  }
});
