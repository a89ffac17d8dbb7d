// A wedged scheduler read from its log: the periodic stats stop with requests in flight and the engine
// dies of a fatal error 20 minutes later. Nothing reads "0 tokens/s" — the lines simply stop — so the
// stall is the silence that a fatal error ends; a silence that just ends (lost scrapes) is no hang.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from '../../../node/engine/store/store';
import { analyzeIncident } from '../../../node/engine/model/diagnose';
import { SyntheticIncident, T0 } from '../../helpers/synthetic-incident';

function logOnly(endWithCrash: boolean, extra?: (x: SyntheticIncident) => void): { store: Store; id: number; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'qs-hang-'));
  const store = new Store(join(dir, 'ws.db'));
  const x = new SyntheticIncident(store, 3600, 10, 5);
  const on = (s: number) => s < 2000 || s > 3300;
  x.gauge('tokens.generation_rate', (s) => (on(s) ? 500 * x.noise(0.1) : null));
  x.gauge('req.running', (s) => (on(s) ? Math.round(12 * x.noise(0.2)) : null));
  x.gauge('req.waiting', (s) => (on(s) ? 0 : null));
  x.gauge('kv.usage', (s) => (on(s) ? 0.3 * x.noise(0.1) : null));
  if (endWithCrash) x.event(3250, { kind: 'engine_crash', severity: 'critical', line: 1, text: 'EngineCore encountered a fatal error.', attrs: {} });
  extra?.(x);
  return { store, id: x.done(), dir };
}

test('log stats that stop with requests in flight until a fatal error are an engine hang, dated where they stopped', () => {
  const { store, id, dir } = logOnly(true);
  try {
    const d = analyzeIncident(store, id);
    assert.equal(d.causes[0]?.id, 'engine_hang', JSON.stringify(d.checked.find((c) => c.id === 'engine_hang')));
    assert.ok(Math.abs(d.onset_ms! - (T0 + 2_000_000)) <= 30_000, `onset ${(d.onset_ms! - T0) / 1000} s`);
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the same silence without a fatal error at its end is a gap in the data, not a hang', () => {
  const { store, id, dir } = logOnly(false);
  try {
    const d = analyzeIncident(store, id);
    assert.ok(!d.causes.some((c) => c.id === 'engine_hang'), JSON.stringify(d.causes.map((c) => c.id)));
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a silence that begins with a graceful stop (a rollout, an operator) and ends in a restart is no hang; the same silence without the stop is one', () => {
  for (const stopped of [false, true]) {
    const { store, id, dir } = logOnly(false, (x) => {
      if (stopped) x.event(2004, { kind: 'engine_stop', severity: 'info', line: 1, text: 'Shutting down FastAPI HTTP server.', attrs: {} });
      x.event(3290, { kind: 'engine_restart', severity: 'warning', line: 2, text: 'vLLM API server version 0.10.1.1', attrs: { version: '0.10.1.1', starts: 2 } });
    });
    try {
      const d = analyzeIncident(store, id);
      assert.equal(d.causes.some((c) => c.id === 'engine_hang'), !stopped, `${stopped ? 'stopped' : 'silent'}: ${JSON.stringify(d.checked.find((c) => c.id === 'engine_hang'))}`);
    } finally {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
});

test('a stall inside an OOM crash loop (CUDA OOMs and restarts around it) is the loop, not a hang', () => {
  const { store, id, dir } = logOnly(false, (x) => {
    const oom = (s: number) => x.event(s, { kind: 'oom', severity: 'error', line: 1, text: 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.72 GiB.', attrs: {} });
    const restart = (s: number, n: number) => x.event(s, { kind: 'engine_restart', severity: 'warning', line: 2, text: 'Args { model_id: "m" }', attrs: { starts: n } });
    oom(1500);
    restart(1560, 2);
    oom(3250);
    restart(3300, 3);
  });
  try {
    const d = analyzeIncident(store, id);
    assert.equal(d.causes.some((c) => c.id === 'engine_hang'), false, JSON.stringify(d.checked.find((c) => c.id === 'engine_hang')));
    assert.equal(d.causes[0]?.id, 'oom_crash_loop', JSON.stringify(d.causes.map((c) => c.id)));
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("log stats that stop with requests in flight for the recording's last 20 minutes, the GPU still holding its memory and pinned busy, are a hang; freed memory is not", () => {
  for (const [held, expected] of [[true, true], [false, false]] as const) {
    const dir = mkdtempSync(join(tmpdir(), 'qs-hang-'));
    const store = new Store(join(dir, 'ws.db'));
    try {
      const x = new SyntheticIncident(store, 3600, 10, 5);
      const on = (s: number) => s < 2400;
      x.gauge('tokens.generation_rate', (s) => (on(s) ? 500 * x.noise(0.1) : null));
      x.gauge('req.running', (s) => (on(s) ? Math.round(12 * x.noise(0.2)) : null));
      x.gauge('req.waiting', (s) => (on(s) ? 0 : null));
      x.gauge('kv.usage', (s) => (on(s) ? 0.3 * x.noise(0.1) : null));
      const gpu = { gpu: '0', host: 'node-1' };
      x.gauge('gpu.mem.total', () => 80e9, gpu);
      x.gauge('gpu.mem.used', (s) => (on(s) || held ? 72e9 : 0.5e9), gpu);
      x.gauge('gpu.util', (s) => (on(s) ? 0.8 * x.noise(0.05) : held ? 1 : 0), gpu);
      const d = analyzeIncident(store, x.done());
      const hang = d.causes.some((c) => c.id === 'engine_hang');
      assert.equal(hang, expected, `memory ${held ? 'held' : 'freed'}: ${JSON.stringify(d.checked.find((c) => c.id === 'engine_hang'))}`);
      // Either way the silence is no healthy incident.
      assert.notEqual(d.status, 'healthy');
    } finally {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
});

for (const dies of [false, true]) {
  test(`a stall at a few requests a second, where the baseline token rate swings past ±100% a window, still triggers and is an engine hang${dies ? ' (the engine dies at its end and the data stops)' : ''}`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'qs-hang-'));
  const store = new Store(join(dir, 'ws.db'));
  try {
    const x = new SyntheticIncident(store, dies ? 1800 : 2400, 5, 11);
    const stalled = (s: number) => s >= 1200 && s < 1800;
    if (dies) x.event(1795, { kind: 'engine_crash', severity: 'critical', line: 1, text: 'Worker proc VllmWorker-0 died unexpectedly, shutting down executor.', attrs: {} });
    // Bursty light traffic: most windows a trickle, some a burst — ΔTPS% spreads beyond ±100%.
    const burst = () => (x.noise(1) > 1.5 ? 12 : 0.6);
    x.counter('tokens.generation', (s) => (stalled(s) ? 0 : 40 * burst()));
    x.counter('req.finished', (s) => (stalled(s) ? 0 : 0.2 * burst()));
    x.gauge('req.running', (s) => (stalled(s) ? 6 : Math.max(1, Math.round(3 * x.noise(0.5)))));
    x.gauge('req.waiting', (s) => (stalled(s) ? Math.round((s - 1200) / 60) : 0));
    x.gauge('kv.usage', () => 0.1 * x.noise(0.1));
    const d = analyzeIncident(store, x.done());
    assert.equal(d.causes[0]?.id, 'engine_hang', JSON.stringify({ status: d.status, hang: d.checked.find((c) => c.id === 'engine_hang') }));
    assert.ok(Math.abs(d.onset_ms! - (T0 + 1_200_000)) <= 30_000, `onset ${(d.onset_ms! - T0) / 1000} s`);
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
  });
}

test('a stall that begins with a crash (the restart after it) or ends in a CUDA OOM is not a hang; one a watchdog ends is', () => {
  const crash = { kind: 'engine_crash', severity: 'critical', line: 1, text: 'Shard 0 crashed', attrs: {} } as const;
  const oom = { kind: 'oom', severity: 'error', line: 2, text: 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.70 GiB.', attrs: {} } as const;
  const watchdog = { kind: 'engine_crash', severity: 'critical', line: 3, text: 'Worker proc VllmWorker-0 died unexpectedly, shutting down executor.', attrs: {} } as const;
  const restart = { kind: 'engine_restart', severity: 'warning', line: 4, text: 'Args { model_id: "m" }', attrs: { starts: 2 } } as const;
  for (const [name, events, hang] of [
    ['crash at its start', [[1202, crash], [1230, restart]], false],
    ['CUDA OOM at its end', [[1795, oom]], false],
    ['watchdog kill at its end', [[1795, watchdog], [1830, restart]], true],
  ] as const) {
    const dir = mkdtempSync(join(tmpdir(), 'qs-hang-'));
    const store = new Store(join(dir, 'ws.db'));
    try {
      const x = new SyntheticIncident(store, 2400, 5, 11);
      const stalled = (s: number) => s >= 1200 && s < 1800;
      for (const [at, e] of events) x.event(at, e);
      x.counter('tokens.generation', (s) => (stalled(s) ? 0 : 400 * x.noise(0.1)));
      x.counter('req.finished', (s) => (stalled(s) ? 0 : 2 * x.noise(0.1)));
      x.gauge('req.running', (s) => (stalled(s) ? 6 : Math.max(1, Math.round(8 * x.noise(0.2)))));
      x.gauge('req.waiting', (s) => (stalled(s) ? Math.round((s - 1200) / 60) : 0));
      x.gauge('kv.usage', () => 0.1 * x.noise(0.1));
      const d = analyzeIncident(store, x.done());
      assert.equal(d.causes.some((c) => c.id === 'engine_hang'), hang, `${name}: ${JSON.stringify(d.checked.find((c) => c.id === 'engine_hang'))}`);
    } finally {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
});

/** An hour at 15 s scrapes, as `build` writes it, analysed; its store removed after. */
function analyzeHour(build: (x: SyntheticIncident) => void): ReturnType<typeof analyzeIncident> {
  const dir = mkdtempSync(join(tmpdir(), 'qs-hang-'));
  const store = new Store(join(dir, 'ws.db'));
  try {
    const x = new SyntheticIncident(store, 3600, 15, 5);
    build(x);
    return analyzeIncident(store, x.done());
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const hangCheck = (d: ReturnType<typeof analyzeIncident>) => JSON.stringify(d.checked.find((c) => c.id === 'engine_hang'));

// TGI counts generated tokens when a request completes (tgi_request_generated_tokens is observed at its
// end), so a few minutes with long requests running and none finishing read "0 tokens/s with requests in
// flight" on a healthy engine. Its forward passes (tgi_batch_forward_duration's count; vLLM's
// iteration_tokens_total, SGLang's cuda_graph_passes) go on at every step: a stepping engine is no wedge.
test('no completions for four minutes while the engine keeps stepping (tokens counted at completion) is no hang; the same with its steps stopped is one', () => {
  for (const stepping of [true, false]) {
    const d = analyzeHour((x) => {
      const quiet = (s: number) => s >= 2000 && s < 2240;
      x.counter('tokens.generation', (s) => (quiet(s) ? 0 : 60 * x.noise(0.2)));
      x.counter('req.finished', (s) => (quiet(s) ? 0 : 0.2), { reason: 'success' });
      x.gauge('req.running', () => 1 + Math.round(x.noise(0.5)));
      x.gauge('req.waiting', () => 0);
      x.histogram('lat.e2e', (s) => (quiet(s) ? 0 : 0.2), () => [20, 40]);
      x.counter('batch.forward.count', (s) => (!stepping && quiet(s) ? 0 : 25 * x.noise(0.1)), { method: 'decode' });
    });
    assert.equal(d.causes.some((c) => c.id === 'engine_hang'), !stepping, `${stepping ? 'stepping' : 'stopped'}: ${hangCheck(d)}`);
  }
});

// A pool held with nothing running is held by no request: blocks leaked (or held by reservations), so the
// scheduler cannot admit the queue. That is a KV cause upstream, not an engine stuck mid-step (a wedged engine
// keeps its running requests). Cached prefixes count as free, so an idle pool reads about 0. Independent
// generators' block leaks, nothing running while requests waited at a pool 77% and 49.8% held, read as
// hangs of an hour and of seven.
test('no tokens, nothing running, a queue, and the pool held at 0.75 or 0.45 is a pool no one can enter, not a hang; the same stall at an (about) empty pool is one', () => {
  for (const held of [0.75, 0.45, 0.02, 0]) {
    const d = analyzeHour((x) => {
      const stuck = (s: number) => s >= 2000;
      x.counter('tokens.generation', (s) => (stuck(s) ? 0 : 300));
      x.counter('req.finished', (s) => (stuck(s) ? 0 : 2), { reason: 'success' });
      x.gauge('req.running', (s) => (stuck(s) ? 0 : 6));
      x.gauge('req.waiting', (s) => (stuck(s) ? 40 : 0));
      x.gauge('kv.usage', (s) => (stuck(s) ? held : 0.3));
      x.histogram('lat.e2e', (s) => (stuck(s) ? 0 : 2), () => [2, 4]);
    });
    assert.equal(d.causes.some((c) => c.id === 'engine_hang'), held < 0.1, `held ${held}: ${hangCheck(d)}`);
  }
});
