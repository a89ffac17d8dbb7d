// End-to-end over the model: synthetic incidents written through the Store/SourceWriter API, whose
// true cause and onset are known, diagnosed from the store.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tempStore } from '../../helpers/import-file';
import { servingIncident, T0, type ServingShape } from '../../helpers/synthetic-incident';
import { analyzeIncidentDetailed } from '../../../node/engine/model/diagnose';
import { CAUSE_IDS, DEFAULT_QUADRANT_THRESHOLDS } from '../../../common/contract/diagnosis';
import { DEFAULT_CONFIG, mergeConfig } from '../../../node/engine/model/config';
import { quadrantOf } from '../../../node/engine/model/quadrants';
import { SyntheticIncident } from '../../helpers/synthetic-incident';

const ON = 600;
const ONSET_MS = T0 + ON * 1000;
const after = (s: number) => s >= ON;
const GB = 1e9;

function diagnose(shape: ServingShape, extra?: (x: SyntheticIncident) => void) {
  const ts = tempStore();
  try {
    const x = servingIncident(ts.store, 1200, shape);
    extra?.(x);
    const id = x.done();
    return analyzeIncidentDetailed(ts.store, id);
  } finally {
    ts.dispose();
  }
}

/** Within one window (W = 10 s at 1 s scrapes) of the true onset. */
const nearOnset = (ms: number | null) => ms !== null && Math.abs(ms - ONSET_MS) <= 10_000;

test('healthy traffic: no onset, no causes, every cause either judged or not assessable', () => {
  const d = analyzeAndCheck({});
  assert.equal(d.diagnosis.onset_ms, null);
  assert.deepEqual(d.diagnosis.causes, []);
  assert.equal(d.diagnosis.leak, null);
  assert.equal(d.frame.grid.W, 10_000);
  assert.equal(d.diagnosis.windows.length, d.frame.grid.n);
  const na = new Set(d.diagnosis.not_assessable.map((n) => n.id));
  assert.ok(na.has('prefix_cache_collapse') && na.has('spec_decode_degradation') && !na.has('kv_exhaustion'));
  assert.deepEqual(d.diagnosis.not_assessable.find((n) => n.id === 'prefix_cache_collapse')?.missing, ['kv.prefix_queries or kv.prefix_hit_rate']);
});

function analyzeAndCheck(shape: ServingShape, extra?: (x: SyntheticIncident) => void) {
  const d = diagnose(shape, extra);
  for (const c of d.diagnosis.causes) assert.ok((CAUSE_IDS as readonly string[]).includes(c.id));
  return d;
}

test('a traffic surge that exhausted the KV cache is the root cause, with the chain traffic_surge → kv_exhaustion', () => {
  const d = analyzeAndCheck({
    rps: (s) => (after(s) ? 5.5 : 5),
    gtok: (s) => (after(s) ? 1200 : 2000),
    ptok: (s) => (after(s) ? 9000 : 4000),
    kv: (s) => (after(s) ? Math.min(1, 0.96 + 0.04 * Math.sin(s)) : 0.4),
    running: (s) => (after(s) ? 40 + 8 * Math.sin(s / 3) : 20),
    waiting: (s) => (after(s) ? 4.5 * (s - ON) : 0),
    preemptRate: (s) => (after(s) ? 2 : 0),
    e2e: (s) => (after(s) ? [6, 14] : [2, 4]),
    itl: (s) => (after(s) ? [0.04, 0.1] : [0.02, 0.04]),
    queue: (s) => (after(s) ? [Math.min(60, 0.5 + (s - ON) * 0.5), Math.min(80, 1 + (s - ON))] : [0.005, 0.02]),
  });
  const g = d.diagnosis;
  assert.ok(nearOnset(g.onset_ms), `onset ${g.onset_ms! - T0}`);
  assert.equal(g.causes[0].id, 'traffic_surge');
  assert.deepEqual(g.causes[0].chain, ['traffic_surge', 'kv_exhaustion']);
  const kv = g.causes.find((c) => c.id === 'kv_exhaustion')!;
  assert.ok(kv.require.every((c) => c.held));
  // Preemptions are counted over the evaluation span: 2 a second for as long as it lasts.
  const spanS = (d.frame.t[d.span[1]] + d.frame.grid.W - d.frame.t[d.span[0]]) / 1000;
  const counted = Number(/preemptions (\d+)/.exec(String(kv.require[1].value))?.[1]);
  assert.ok(Math.abs(counted - 2 * spanS) <= 2 * d.frame.grid.W / 1000, `preemptions ${counted} over a ${spanS} s span`);
  assert.ok(kv.evidence.some((e) => e.kind === 'series' && e.ref === 'kv.usage'));
  assert.ok(d.path.some((p) => p.quadrant === 'exhausted'));
  assert.equal(d.kv?.growth, 'step');
  assert.ok(g.alerts.some((a) => a.family === 'resources' && a.resolved_ms === null));
});

test('gpu_memory_leak: the ramp is found with its slope and projected OOM', () => {
  const d = analyzeAndCheck({
    memUsed: (s) => (s < 300 ? 60 * GB : 60 * GB + ((s - 300) / 60) * GB),
    torchAllocated: (s) => (s < 300 ? 40 * GB : 40 * GB + ((s - 300) / 60) * GB),
  });
  const g = d.diagnosis;
  assert.equal(g.causes[0].id, 'gpu_memory_leak');
  assert.ok(Math.abs(g.causes[0].onset_ms! - (T0 + 300_000)) <= 10_000, `leak onset ${g.causes[0].onset_ms! - T0}`);
  assert.ok(g.leak);
  // 1 GB/min from 40 GB at 300 s: 55 GB at 1200 s, 80 GB capacity → 25 more minutes.
  assert.ok(Math.abs(g.leak.slope_bytes_per_min - 1e9) / 1e9 < 0.01, `slope ${g.leak.slope_bytes_per_min}`);
  assert.ok(Math.abs(g.leak.projected_oom_ms! - (T0 + 1200_000 + 25 * 60_000)) <= 30_000, `oom at ${g.leak.projected_oom_ms! - T0}`);
});

test('gpu_throttling is diagnosed; a permanent power cap is a baseline, not an incident', () => {
  const throttled = analyzeAndCheck({
    clock: (s) => (after(s) ? 1400 : 1980),
    throttle: (s) => (after(s) ? 0x20 | 0x40 : 0),
    util: () => 0.97,
    gtok: (s) => (after(s) ? 1300 : 2000),
    rps: (s) => (after(s) ? 3.3 : 5),
    itl: (s) => (after(s) ? [0.03, 0.06] : [0.02, 0.04]),
    e2e: (s) => (after(s) ? [3, 6] : [2, 4]),
  });
  assert.ok(nearOnset(throttled.diagnosis.onset_ms));
  assert.equal(throttled.diagnosis.causes[0].id, 'gpu_throttling');
  assert.ok(throttled.diagnosis.causes[0].evidence.some((e) => e.ref === 'gpu.sm_clock{gpu="0"}'));
  const capped = analyzeAndCheck({ clock: () => 1500, throttle: () => 0x4 });
  assert.equal(capped.diagnosis.onset_ms, null);
  assert.deepEqual(capped.diagnosis.causes, []);
});

const stalled: ServingShape = {
  gtok: (s) => (after(s) ? 0 : 2000),
  ptok: (s) => (after(s) ? 0 : 4000),
  rps: (s) => (after(s) ? 0 : 5),
  running: (s) => (after(s) ? 32 : 20),
  waiting: (s) => (after(s) ? Math.floor((s - ON) / 2) : 0),
  util: (s) => (after(s) ? 1 : 0.9),
};

test('engine_hang: zero tokens with requests in flight', () => {
  const g = analyzeAndCheck(stalled).diagnosis;
  assert.ok(nearOnset(g.onset_ms), `onset ${g.onset_ms}`);
  assert.equal(g.causes[0].id, 'engine_hang');
  assert.ok(nearOnset(g.causes[0].onset_ms));
  assert.ok((g.causes[0].require[0].value as number) >= 590);
  assert.ok(g.causes[0].support.find((s) => s.condition.startsWith('util pinned'))?.held);
});

test('gpu_hardware_fault: an Xid 79 outranks the hang it causes', () => {
  const d = analyzeAndCheck({ ...stalled, errRate: (s) => (after(s) ? 5 : 0) }, (x) => {
    x.event(ON, { kind: 'xid', severity: 'critical', text: 'NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.', attrs: { code: 79, class: 'hardware' } });
  });
  const g = d.diagnosis;
  assert.ok(nearOnset(g.onset_ms));
  assert.equal(g.causes[0].id, 'gpu_hardware_fault');
  assert.equal(g.causes[0].onset_ms, ONSET_MS);
  assert.equal(g.causes[0].evidence[0].kind, 'event');
  assert.ok(!g.causes.some((c) => c.id === 'engine_hang'), 'the hang is vetoed by the Xid');
  assert.ok(g.alerts.some((a) => a.family === 'errors'));
});

test('gpu_hardware_fault: a cleanup Xid 45 that names its NVLink cause (caused by previous Xid 149) and an NVSwitch fatal SXid are hardware faults; a lone Xid 45, an SXid without its verdict and a non-fatal one are not', () => {
  const cases: [string, Record<string, unknown>, string, boolean][] = [
    ['xid', { code: 45, class: 'secondary', caused_by: 149 }, 'NVRM: Xid (PCI:0000:dc:00): 45, pid=1818990, name=python3, Ch 00000001 caused by previous Xid 149', true],
    ['sxid', { code: 20034, bus_id: '0000:05:00', fatal: true }, 'nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 20034, Fatal, Link 63 LTSSM Fault Up', true],
    ['sxid', { code: 12028, bus_id: '0000:84:00', fatal: null }, 'nvidia-nvswitch1: SXid (PCI:0000:84:00.0): 12028, Data {0x000001c0}', false],
    ['sxid', { code: 10001, bus_id: '0000:84:00', fatal: false }, 'nvidia-nvswitch1: SXid (PCI:0000:84:00.0): 10001, Non-fatal, Link 2 corrected', false],
    ['xid', { code: 45, class: 'secondary' }, 'NVRM: Xid (PCI:0000:dc:00): 45, pid=1818990, name=python3, Ch 00000001', false],
  ];
  for (const [kind, attrs, text, hardware] of cases) {
    const d = analyzeAndCheck({ ...stalled, errRate: (s) => (after(s) ? 5 : 0) }, (x) => {
      x.event(ON, { kind, severity: 'warning', text, attrs });
    }).diagnosis;
    const hw = d.causes.find((c) => c.id === 'gpu_hardware_fault');
    assert.equal(d.causes[0]?.id === 'gpu_hardware_fault', hardware, `${text}: ${d.causes.map((c) => c.id).join(', ')}`);
    if (hardware) assert.equal(hw!.onset_ms, ONSET_MS);
  }
});

test("gpu_hardware_fault: the driver's call for a reset (gpu.recovery_action) and a row remap that appears are hardware faults; a remap pending from the first sample is an older error, not this incident", () => {
  const run = (name: string, v: (s: number) => number) =>
    analyzeAndCheck({ ...stalled, errRate: (s) => (after(s) ? 5 : 0) }, (x) => {
      x.gauge(name, (s) => (s % 15 === 0 ? v(s) : null), { gpu: '0' });
    }).diagnosis;
  const reset = run('gpu.recovery_action', (s) => (after(s) ? 1 : 0));
  assert.equal(reset.causes[0]?.id, 'gpu_hardware_fault', reset.causes.map((c) => c.id).join(', '));
  assert.ok(nearOnset(reset.causes[0].onset_ms), String(reset.causes[0].onset_ms));
  assert.match(reset.causes[0].evidence[0].text, /asks for a GPU reset/);
  const remap = run('gpu.row_remap_pending', (s) => (after(s) ? 1 : 0));
  assert.equal(remap.causes[0]?.id, 'gpu_hardware_fault', remap.causes.map((c) => c.id).join(', '));
  const older = run('gpu.row_remap_pending', () => 1);
  assert.equal(older.causes.some((c) => c.id === 'gpu_hardware_fault'), false, older.causes.map((c) => c.id).join(', '));
});

test('oom_crash_loop: a cleanup Xid naming a hardware cause before the OOMs vetoes the crash loop, as the hardware Xid itself does', () => {
  const run = (xid: { code: number; caused_by?: number; text: string } | null) =>
    analyzeAndCheck({ ...stalled, errRate: (s) => (after(s) ? 5 : 0) }, (x) => {
      if (xid) x.event(ON - 30, { kind: 'xid', severity: 'warning', text: xid.text, attrs: { code: xid.code, class: 'secondary', ...(xid.caused_by ? { caused_by: xid.caused_by } : {}) } });
      for (let k = 0; k < 4; k++) {
        x.event(ON + k * 120, { kind: 'oom', severity: 'error', text: 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.', attrs: { exception: 'torch.OutOfMemoryError' } });
        x.event(ON + k * 120 + 30, { kind: 'engine_restart', severity: 'warning', text: 'engine restarted', attrs: {} });
      }
    }).diagnosis.checked.find((c) => c.id === 'oom_crash_loop')!;
  const vetoed = (c: ReturnType<typeof run>) => c.verdict !== 'fired' && c.failed.some((f) => f.condition.startsWith('HW Xid before the crash'));
  assert.equal(run(null).verdict, 'fired');
  const named = run({ code: 45, caused_by: 79, text: 'NVRM: Xid (PCI:0000:3b:00): 45, pid=1, name=python3, Ch 00000001 caused by previous Xid 79' });
  assert.ok(vetoed(named), JSON.stringify(named));
  assert.equal(run({ code: 45, text: 'NVRM: Xid (PCI:0000:3b:00): 45, pid=1, name=python3, Ch 00000001' }).verdict, 'fired');
});

test("the diagnosis carries the quadrant split its windows were classified with (the config's θR, θS)", () => {
  const shape: ServingShape = { kv: (s) => (after(s) ? 0.97 : 0.4), running: (s) => (after(s) ? 40 : 20) };
  for (const cfg of [DEFAULT_CONFIG, mergeConfig({ theta_R: 0.6, theta_S: 0.3 })]) {
    const ts = tempStore();
    try {
      const d = analyzeIncidentDetailed(ts.store, servingIncident(ts.store, 1200, shape).done(), {}, cfg).diagnosis;
      assert.deepEqual(d.quadrant_thresholds, { theta_R: cfg.theta_R, theta_S: cfg.theta_S });
      for (const w of d.windows) assert.equal(w.quadrant, quadrantOf(w.R, w.S, cfg.theta_R, cfg.theta_S), `window at ${w.t_ms}`);
    } finally {
      ts.dispose();
    }
  }
  assert.deepEqual({ theta_R: DEFAULT_CONFIG.theta_R, theta_S: DEFAULT_CONFIG.theta_S }, DEFAULT_QUADRANT_THRESHOLDS);
});

/** An engine read from its periodic log lines alone (vLLM's stats line every 10 s): no completions, no latency. */
function logLinesOnly(kv: (s: number) => number, runningAfter = 256) {
  const ts = tempStore();
  try {
    const x = new SyntheticIncident(ts.store, 1800, 10);
    const log = (metric: string) => ({ metric: `vllm-log:${metric}` });
    x.gauge('tokens.prompt_rate', (s) => (s >= 1200 ? 7200 : 4000) * x.noise(0.05), log('Avg prompt throughput'));
    x.gauge('tokens.generation_rate', (s) => (s >= 1200 ? 3600 : 2000) * x.noise(0.05), log('Avg generation throughput'));
    x.gauge('req.running', (s) => (s >= 1200 ? runningAfter : Math.round(140 * x.noise(0.1))), log('Running'));
    x.gauge('req.waiting', (s) => (s >= 1200 ? 30 * ((s - 1200) / 10) : 0), log('Waiting'));
    x.gauge('kv.usage', kv, log('GPU KV cache usage'));
    return analyzeIncidentDetailed(ts.store, x.done()).diagnosis;
  } finally {
    ts.dispose();
  }
}

test('log lines only: served work up with every slot busy and the queue growing is a surge; a pool filled by requests that each hold more is left to kv_exhaustion', () => {
  const slots = logLinesOnly((s) => (s >= 1200 ? 0.3 : 0.2));
  assert.equal(slots.causes[0]?.id, 'traffic_surge', JSON.stringify(slots.checked.find((c) => c.id === 'traffic_surge')));
  assert.ok(Math.abs(slots.onset_ms! - (T0 + 1200_000)) <= 30_000, `onset ${slots.onset_ms! - T0}`);
  // More requests of the same size fill the pool too (KV per running request 0.5/140 → 0.99/256, ×1.08): still the surge.
  const more = logLinesOnly((s) => (s >= 1200 ? 0.99 : 0.5));
  assert.equal(more.causes[0]?.id, 'traffic_surge', JSON.stringify(more.checked.find((c) => c.id === 'traffic_surge')));
  // Longer requests: the pool full at 180 running (KV per request ×1.5).
  const longer = logLinesOnly((s) => (s >= 1200 ? 0.99 : 0.5), 180);
  assert.equal(longer.causes.some((c) => c.id === 'traffic_surge'), false);
  const check = longer.checked.find((c) => c.id === 'traffic_surge')!;
  assert.ok(check.failed?.some((f) => /holding more/.test(f.condition) && f.held), JSON.stringify(check));
});

test('a log whose only fault is an NCCL error (a remote rank gone, a DistBackendError) is not healthy: the error is the evidence', async () => {
  const { importFiles } = await import('../../helpers/import-file');
  const { analyzeIncident } = await import('../../../node/engine/model/diagnose');
  const { writeFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const ts = tempStore();
  try {
    const file = join(ts.dir, 'train.log');
    writeFileSync(file, [
      '[rank2]:[E318 10:00:01.000000 ProcessGroupNCCL.cpp:1234] [PG ID 0 Rank 2] NCCL communicator error: remote process exited or there was a network error',
      "[rank2]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:317, remote process exited or there was a network error, NCCL version 2.21.5",
      '[rank2]: ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.',
    ].join('\n'));
    const r = await importFiles(ts.store, [file], { options: { year: 2025 } });
    assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
    const d = analyzeIncident(ts.store, r.incident_id);
    assert.equal(d.status, 'unexplained', JSON.stringify({ status: d.status, causes: d.causes.map((c) => c.id) }));
    assert.ok(d.unexplained!.evidence.some((e) => /ncclRemoteError|DistBackendError/.test(e.text)));
  } finally {
    ts.dispose();
  }
});

test('too little data to judge: a pasted fragment of stats lines or a lone traceback is not "healthy"; ten minutes of the same lines are, and say that latency was not measured', async () => {
  const { importFiles } = await import('../../helpers/import-file');
  const { analyzeIncident } = await import('../../../node/engine/model/diagnose');
  const { verdictOf } = await import('../../../common/verdict');
  const { writeFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const stats = (n: number) =>
    Array.from({ length: n }, (_, i) => {
      const t = new Date(Date.UTC(2025, 4, 12, 10, 0, 0) + i * 10_000).toISOString();
      return `INFO ${t.slice(5, 7)}-${t.slice(8, 10)} ${t.slice(11, 19)} [loggers.py:118] Engine 000: Avg prompt throughput: ${900 + (i % 3) * 10}.0 tokens/s, Avg generation throughput: ${240 + (i % 4)}.0 tokens/s, Running: 8 reqs, Waiting: 0 reqs, GPU KV cache usage: ${40 + (i % 5)}.0%, Prefix cache hit rate: 0.0%`;
    }).join('\n');
  const analyze = async (name: string, text: string) => {
    const ts = tempStore();
    try {
      const file = join(ts.dir, name);
      writeFileSync(file, text);
      const r = await importFiles(ts.store, [file], { options: { year: 2025 } });
      assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
      return analyzeIncident(ts.store, r.incident_id);
    } finally {
      ts.dispose();
    }
  };
  const fragment = await analyze('vllm.log', stats(3));
  assert.equal(fragment.status, 'insufficient');
  assert.equal(fragment.coverage?.span_ms, 20_000);
  assert.ok(fragment.coverage!.need_ms > fragment.coverage!.span_ms);
  const fv = verdictOf(fragment);
  assert.equal(fv.status, 'insufficient');
  assert.match(fv.detail, /cover 20 s/);

  const traceback = await analyze('crash.log', ['Traceback (most recent call last):', '  File "/app/serve.py", line 12, in <module>', '    engine = build()'].join('\n'));
  assert.equal(traceback.status, 'insufficient');
  assert.equal(traceback.coverage?.span_ms, 0);
  assert.equal(traceback.coverage?.error_events, 1);
  assert.match(verdictOf(traceback).detail, /no time series.*Its logs hold 1 error line, the first: “Traceback \(most recent call last\):”/);

  const tenMinutes = await analyze('vllm.log', stats(61));
  assert.equal(tenMinutes.status, 'healthy', JSON.stringify(tenMinutes.causes.map((c) => c.id)));
  assert.deepEqual([tenMinutes.coverage?.latency, tenMinutes.coverage?.throughput], [false, true]);
  assert.match(verdictOf(tenMinutes).detail, /measures no request latency/);
});
