// Mechanisms the model reads from signals it used to ignore or cut short: the engine's own arrivals
// counter, the serving process's CPU, a GPU's life after a clean restart and up to an exit, what grew the batch past an
// inferred CUDA-graph capture size. Each builds a small synthetic incident (real SQLite) and checks the
// reading the rule depends on, not one bundle's answer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tempStore } from '../../helpers/import-file';
import { GB, servingIncident, SyntheticIncident, T0, type ServingShape } from '../../helpers/synthetic-incident';
import { analyzeIncidentDetailed } from '../../../node/engine/model/diagnose';
import type { Diagnosis } from '../../../common/contract/diagnosis';
import { departureOnset, type CauseContext } from '../../../node/engine/model/causes/context';
import { crossingNear } from '../../../node/engine/model/causes/cuda-graph-fallback';
import { parseOom } from '../../../node/engine/importers/oom-text';

const after = (s: number) => s >= 1200;

function analyze(shape: ServingShape, more?: (x: ReturnType<typeof servingIncident>) => void, seconds = 2400): Diagnosis {
  const ts = tempStore();
  try {
    const x = servingIncident(ts.store, seconds, shape);
    more?.(x);
    return analyzeIncidentDetailed(ts.store, x.done()).diagnosis;
  } finally {
    ts.dispose();
  }
}

const conditionsOf = (d: Diagnosis, id: string) => {
  const fired = d.causes.find((c) => c.id === id);
  if (fired) return [...fired.require, ...fired.veto];
  return d.checked.find((c) => c.id === id)?.failed ?? [];
};

test("arrivals come from the engine's own counter where it has one: clients that gave up in the queue are in neither the finished count nor the occupancy", () => {
  // The engine serves 5 req/s flat at its limit; 9 req/s arrive after 1200 s and the excess times out in the queue.
  const d = analyze({ running: (s) => (after(s) ? 64 : 20), waiting: (s) => (after(s) ? 40 : 0) }, (x) => x.counter('req.arrivals', (s) => (after(s) ? 9 : 5)));
  const lam = conditionsOf(d, 'traffic_surge').find((c) => /^r\(lam_in\) ≥/.test(c.condition));
  // Fired: the condition is listed with its value; not fired: it must not be among the failed ones.
  if (d.causes.some((c) => c.id === 'traffic_surge')) assert.ok(Number(lam?.value) >= 1.6, JSON.stringify(lam));
  else assert.equal(lam, undefined, JSON.stringify(d.checked.find((c) => c.id === 'traffic_surge')));
});

test('a serving process pinned at one CPU core, the GPU as busy as before and decode slower, is a CPU-bound frontend, not a CUDA-graph fallback', () => {
  const d = analyze(
    {
      itl: (s) => (after(s) ? [0.09, 0.14] : [0.02, 0.04]),
      e2e: (s) => (after(s) ? [8, 14] : [2, 4]),
      running: (s) => (after(s) ? 70 : 20),
      gtok: (s) => (after(s) ? 1500 : 2000),
    },
    (x) => x.counter('host.cpu_seconds', (s) => (after(s) ? 0.99 : 0.45)),
  );
  assert.equal(d.causes[0]?.id, 'cpu_frontend_bottleneck', JSON.stringify(d.checked.find((c) => c.id === 'cpu_frontend_bottleneck')));
  assert.ok(!d.causes.some((c) => c.id === 'cuda_graph_fallback'), JSON.stringify(d.causes.map((c) => c.id)));
});

test('a GPU memory leak into a CUDA OOM is read over the life that ran into it, past a clean restart an hour before', () => {
  // 60 GB plateau; a clean restart at 900 s (memory freed, then reloaded); from 2400 s +40 MB/s until the OOM at 2900 s.
  const used = (s: number) => (s >= 900 && s < 960 ? 0 : s < 2400 ? 60 * GB : s < 2900 ? 60 * GB + (s - 2400) * 0.04 * GB : 0);
  const d = analyze({ memUsed: used }, (x) => {
    x.event(900, { kind: 'engine_restart', severity: 'warning', line: 1, text: 'Shutting down; restarting', attrs: {} });
    x.event(2900, { kind: 'oom', severity: 'critical', line: 2, text: 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB.', attrs: {} });
  }, 3600);
  const leak = d.causes.find((c) => c.id === 'gpu_memory_leak');
  assert.ok(leak, JSON.stringify(d.checked.find((c) => c.id === 'gpu_memory_leak')));
  assert.ok(Math.abs(leak.onset_ms! - (T0 + 2400_000)) <= 60_000, `leak onset ${(leak.onset_ms! - T0) / 1000} s`);
});

test('a GPU memory leak that ends in a process exit with no log is read up to the exit, not through the windows that average in the emptied GPU', () => {
  // 60 GB plateau; from 1200 s +10 MB/s to 75 GB, the process exits (no log: memory freed), reloads after
  // 90 s and leaks again. The windows overlap by half, so one or two of them hold both the full and the
  // empty GPU, wherever in a window the exit falls: every offset must read the ramp.
  for (const exitAt of [2700, 2703, 2706]) {
    const used = (s: number) => (s < 1200 ? 60 * GB : s < exitAt ? Math.min(75 * GB, 60 * GB + (s - 1200) * 0.01 * GB) : s < exitAt + 90 ? 0 : Math.min(75 * GB, 60 * GB + (s - exitAt - 90) * 0.01 * GB));
    const d = analyze({ memUsed: used }, undefined, 3600);
    const leak = d.causes.find((c) => c.id === 'gpu_memory_leak');
    assert.ok(leak, `exit at ${exitAt} s: ${JSON.stringify(d.checked.find((c) => c.id === 'gpu_memory_leak'))}`);
    assert.ok(Math.abs(leak.onset_ms! - (T0 + 1200_000)) <= 60_000, `exit at ${exitAt} s: leak onset ${(leak.onset_ms! - T0) / 1000} s`);
  }
});

test('a GPU memory leak that ends in an exit with no log is read over its own life, past a quick clean restart before it and the reload after it', () => {
  // 60 GB plateau; a clean restart at 900 s that reloads within half a minute (its windows never fall by
  // half); from 2400 s +25 MB/s to an exit at 2900 s (no log), 15 s empty, reloaded to the plateau.
  const life = (s: number, down: number) => (s < down + 15 ? 0 : Math.min(60 * GB, ((s - down - 15) / 15) * 60 * GB));
  const used = (s: number) => (s >= 900 && s < 930 ? life(s, 900) : s < 2400 ? 60 * GB : s < 2900 ? 60 * GB + (s - 2400) * 0.025 * GB : life(s, 2900));
  const d = analyze({ memUsed: used }, undefined, 3600);
  const leak = d.causes.find((c) => c.id === 'gpu_memory_leak');
  assert.ok(leak, JSON.stringify(d.checked.find((c) => c.id === 'gpu_memory_leak')));
  assert.ok(Math.abs(leak.onset_ms! - (T0 + 2400_000)) <= 60_000, `leak onset ${(leak.onset_ms! - T0) / 1000} s`);
});

test('a prefix-cache hit rate falling from 0.8 to 0.55 prefills 2.25x the tokens: a collapse; 0.8 to 0.75 is not', () => {
  const run = (hitAfter: number) =>
    analyze({ ttft: (s) => (after(s) ? [0.25, 0.6] : [0.08, 0.2]) }, (x) => {
      x.counter('kv.prefix_queries', () => 4000);
      x.counter('kv.prefix_hits', (s) => 4000 * (after(s) ? hitAfter : 0.8));
    });
  const collapsed = run(0.55);
  assert.equal(collapsed.causes[0]?.id, 'prefix_cache_collapse', JSON.stringify(conditionsOf(collapsed, 'prefix_cache_collapse')));
  assert.ok(Math.abs(collapsed.causes[0].onset_ms! - (T0 + 1200_000)) <= 60_000, `onset ${(collapsed.causes[0].onset_ms! - T0) / 1000} s`);
  const dipped = run(0.75);
  assert.ok(!dipped.causes.some((c) => c.id === 'prefix_cache_collapse'), JSON.stringify(dipped.causes.map((c) => c.id)));
});

test('one tensor-parallel rank clocked down while the evening traffic falls is a straggler; fewer arrivals do not explain a slower step', () => {
  const shape = (arrivals: number): Diagnosis =>
    analyze({
      itl: (s) => (after(s) ? [0.03, 0.06] : [0.02, 0.04]),
      rps: (s) => (after(s) ? arrivals : 5),
      ptok: (s) => 800 * (after(s) ? arrivals : 5),
      gtok: (s) => 400 * (after(s) ? arrivals : 5),
    }, (x) => {
      x.counter('req.arrivals', (s) => (after(s) ? arrivals : 5));
      const rank1 = { gpu: '1' };
      x.gauge('gpu.sm_clock', (s) => (after(s) ? 1250 : 1980), rank1);
      x.gauge('gpu.temp', () => 65, rank1);
      x.gauge('gpu.power', () => 550, rank1);
    });
  for (const arrivals of [5, 3.5]) {
    const d = shape(arrivals);
    assert.equal(d.causes[0]?.id, 'tp_straggler', `arrivals ${arrivals}/s: ${JSON.stringify(conditionsOf(d, 'tp_straggler'))}`);
  }
});

test("one rank clocked down while the day's traffic grows x1.3 is a straggler where the step slowed more than the arrivals grew (ITL x1.5), not where it slowed less (x1.2)", () => {
  for (const [itl, expected] of [[1.5, true], [1.2, false]] as const) {
    const d = analyze({
      itl: (s) => (after(s) ? [0.02 * itl, 0.04 * itl] : [0.02, 0.04]),
      rps: (s) => (after(s) ? 6.5 : 5),
      ptok: (s) => 800 * (after(s) ? 6.5 : 5),
      gtok: (s) => 400 * (after(s) ? 6.5 : 5),
    }, (x) => {
      x.counter('req.arrivals', (s) => (after(s) ? 6.5 : 5));
      const rank1 = { gpu: '1' };
      x.gauge('gpu.sm_clock', (s) => (after(s) ? 1250 : 1980), rank1);
      x.gauge('gpu.temp', () => 65, rank1);
      x.gauge('gpu.power', () => 550, rank1);
    });
    const fired = d.causes.some((c) => c.id === 'tp_straggler');
    assert.equal(fired, expected, `ITL x${itl}: ${JSON.stringify(conditionsOf(d, 'tp_straggler'))}`);
  }
});

/**
 * An engine serving `arrivals(s)` up to `cap(s)` requests/s; the excess waits. Latency grows with the queue.
 */
function queueing(arrivals: (s: number) => number, cap: (s: number) => number, seconds: number, queueTime = true): Diagnosis {
  let queue = 0;
  const waiting: number[] = [];
  for (let s = 0; s <= seconds; s++) {
    queue = Math.max(0, queue + arrivals(s) - cap(s));
    waiting.push(queue);
  }
  const served = (s: number) => (waiting[s] > 0 ? cap(s) : Math.min(arrivals(s), cap(s)));
  const delay = (s: number) => waiting[s] / cap(s);
  return analyze(
    {
      rps: served,
      running: (s) => Math.round(Math.min(24, 4 * served(s))),
      waiting: (s) => Math.round(waiting[s]),
      queue: queueTime ? (s) => [0.005 + delay(s) / 2, 0.02 + delay(s)] : null,
      ttft: (s) => [0.08 + delay(s) / 2, 0.2 + delay(s)],
      e2e: (s) => [2 + delay(s) / 2, 4 + delay(s)],
      ptok: (s) => 800 * served(s),
      gtok: (s) => 400 * served(s),
    },
    (x) => x.counter('req.arrivals', arrivals),
    seconds,
  );
}

test('arrivals that crept up for hours and were served, then a queue at the same arrivals, are a capacity loss; a jump in arrivals is a surge', () => {
  const at = 9000;
  const crept = queueing((s) => 5 + (2 * Math.min(s, at)) / at, (s) => (s < at ? 8 : 6.2), 10_800);
  const surge = conditionsOf(crept, 'traffic_surge');
  assert.ok(!crept.causes.some((c) => c.id === 'traffic_surge'), JSON.stringify(surge));
  const jumped = queueing((s) => (s < at ? 5 : 7.5), () => 6.2, 10_800);
  assert.equal(jumped.causes[0]?.id, 'traffic_surge', JSON.stringify(conditionsOf(jumped, 'traffic_surge')));
  // An engine that exports no queue time (vLLM V0): the wait is read off TTFT, which contains it.
  const noQueueTime = queueing((s) => (s < at ? 5 : 7.5), () => 6.2, 10_800, false);
  assert.equal(noQueueTime.causes[0]?.id, 'traffic_surge', JSON.stringify(conditionsOf(noQueueTime, 'traffic_surge')));
});

test("a proxy adding 0.7 s while the server's own latency drifts up x1.15 with the day's traffic is network or client slowness; the server twice as slow is not", () => {
  for (const [rise, expected] of [[1.15, true], [2, false]] as const) {
    const d = analyze({ ttft: (s) => (after(s) ? [0.08 * rise, 0.2 * rise] : [0.08, 0.2]), e2e: (s) => (after(s) ? [2 * rise, 4 * rise] : [2, 4]) }, (x) => {
      for (let s = 10, k = 0; s < 2390; s += 4, k++) {
        const server = after(s) ? 0.12 * rise : 0.12;
        const client = server + (after(s) ? 0.7 : 0.01);
        x.span(s, 2 + client, { 'request.side': 'client', 'request.id': `r${k}`, 'request.ttft_s': client });
        x.span(s + 0.005, 2 + server, { 'request.side': 'server', 'request.id': `r${k}`, 'request.ttft_s': server });
      }
    });
    const fired = d.causes.some((c) => c.id === 'network_client_slowness');
    assert.equal(fired, expected, `server x${rise}: ${JSON.stringify(conditionsOf(d, 'network_client_slowness'))}`);
  }
});

test('a proxy adding 0.7 s before the first token while the server itself got faster is network or client slowness', () => {
  const d = analyze({ ttft: (s) => (after(s) ? [0.05, 0.12] : [0.08, 0.2]), e2e: (s) => (after(s) ? [1.6, 3.2] : [2, 4]) }, (x) => {
    for (let s = 10, k = 0; s < 2390; s += 4, k++) {
      const server = after(s) ? 0.08 : 0.12;
      const client = server + (after(s) ? 0.7 : 0.01);
      x.span(s, 2 + client, { 'request.side': 'client', 'request.id': `r${k}`, 'request.ttft_s': client });
      x.span(s + 0.005, 2 + server, { 'request.side': 'server', 'request.id': `r${k}`, 'request.ttft_s': server });
    }
  });
  assert.equal(d.causes[0]?.id, 'network_client_slowness', JSON.stringify(conditionsOf(d, 'network_client_slowness')));
});

test('a slow path to one replica of three (0.7 s more before the first token) is read on the calls to it; with no address on the calls it is lost in the pool', () => {
  const run = (addressed: boolean) =>
    analyze({}, (x) => {
      for (let s = 10, k = 0; s < 2390; s += 1, k++) {
        const peer = `vllm-${k % 3}.inference.svc`;
        const server = 0.12;
        const client = server + (after(s) && k % 3 === 2 ? 0.7 : 0.01);
        x.span(s, 2 + client, { 'request.side': 'client', 'request.id': `r${k}`, 'request.ttft_s': client, ...(addressed ? { 'server.address': peer } : {}) });
        x.span(s + 0.005, 2 + server, { 'request.side': 'server', 'request.id': `r${k}`, 'request.ttft_s': server });
      }
    });
  const one = run(true);
  const fired = one.causes.find((c) => c.id === 'network_client_slowness');
  assert.ok(fired, JSON.stringify(conditionsOf(one, 'network_client_slowness')));
  assert.match(fired.require[0].condition, /calls to vllm-2\.inference\.svc/);
  const pooled = run(false);
  assert.ok(!pooled.causes.some((c) => c.id === 'network_client_slowness'), JSON.stringify(conditionsOf(pooled, 'network_client_slowness')));
});

test("a proxy adding 0.7 s, read off client calls that carry no request id, joined to the server's spans by their trace", () => {
  const d = analyze({ ttft: (s) => (after(s) ? [0.05, 0.12] : [0.08, 0.2]), e2e: (s) => (after(s) ? [1.6, 3.2] : [2, 4]) }, (x) => {
    for (let s = 10, k = 0; s < 2390; s += 4, k++) {
      const server = after(s) ? 1.6 : 2;
      const gap = after(s) ? 0.7 : 0.01;
      x.tracedCall(s, { durS: server + gap, attrs: { 'gen_ai.usage.input_tokens': 300 } }, { delayS: 0.005, durS: server, attrs: { 'gen_ai.request.id': `r${k}`, 'gen_ai.latency.e2e': server } });
    }
  });
  assert.equal(d.causes[0]?.id, 'network_client_slowness', JSON.stringify(conditionsOf(d, 'network_client_slowness')));
});

test('a surge whose queue filled in twelve minutes and then held, clients giving up as fast as new ones came, is a surge though its peak came hours later', () => {
  // 4 h; from 1200 s the engine serves 5.5 req/s at its limit and the queue fills to 3000 by 1920 s (arrivals
  // ~×1.9 meanwhile, read off served + the occupancy's growth), then holds, creeping to 3200 by the end.
  const fill = (s: number) => Math.min(1, Math.max(0, (s - 1200) / 720));
  const waiting = (s: number) => (after(s) ? Math.round(3000 * fill(s) + Math.max(0, (200 * (s - 1920)) / 12480)) : 0);
  const slow = (s: number, b: [number, number]): [number, number] => (after(s) ? [b[0] + 300 * fill(s), b[1] + 400 * fill(s)] : b);
  const d = analyze(
    {
      rps: (s) => (after(s) ? 5.5 : 5),
      running: (s) => (after(s) ? 32 : 20),
      waiting,
      queue: (s) => slow(s, [0.005, 0.02]),
      ttft: (s) => slow(s, [0.08, 0.2]),
      e2e: (s) => slow(s, [2, 4]),
    },
    undefined,
    14400,
  );
  assert.equal(d.causes[0]?.id, 'traffic_surge', JSON.stringify(conditionsOf(d, 'traffic_surge')));
});

test("a surge on top of a day's creeping traffic is dated where the surge began, not where the creep passed 1.3x the morning's arrivals", () => {
  // 4 h: arrivals creep from 3 to 4.5/s (served, no queue), then ×2.4 at 12000 s for good; the queue builds from there.
  const surge = (s: number) => s >= 12_000;
  const d = analyze(
    {
      running: (s) => (surge(s) ? 64 : 20),
      waiting: (s) => (surge(s) ? Math.min(400, (s - 12_000) / 2) : 0),
      queue: (s) => (surge(s) ? [20, 60] : [0.005, 0.02]),
      ttft: (s) => (surge(s) ? [20, 60] : [0.08, 0.2]),
      e2e: (s) => (surge(s) ? [25, 70] : [2, 4]),
    },
    (x) => x.counter('req.arrivals', (s) => (surge(s) ? 10.8 : 3 + (1.5 * s) / 12_000)),
    14_400,
  );
  const fired = d.causes.find((c) => c.id === 'traffic_surge');
  assert.ok(fired, JSON.stringify(conditionsOf(d, 'traffic_surge')));
  assert.ok(Math.abs(fired.onset_ms! - (T0 + 12_000_000)) <= 120_000, `onset ${(fired.onset_ms! - T0) / 1000} s`);
});

test('a pool that reserves each request its whole budget turns the next away at 0.68 full: KV bloat, read off the requests waiting and the batch that fell', () => {
  // From 1200 s requests ask n=8 with a large max_tokens: four run, each holding ~9× the KV its tokens need, and
  // the rest wait. The pool's size is stated (3600 blocks of 16 tokens).
  const d = analyze(
    {
      kv: (s) => (after(s) ? 0.68 : 0.44),
      running: (s) => (after(s) ? 4 : 23),
      waiting: (s) => (after(s) ? 500 : 0),
      gtok: (s) => (after(s) ? 600 : 2000),
      e2e: (s) => (after(s) ? [30, 80] : [2, 4]),
      queue: (s) => (after(s) ? [25, 70] : [0.005, 0.02]),
    },
    (x) => {
      x.gauge('engine.cache_config', () => 1, { num_gpu_blocks: '3600', block_size: '16' });
      x.histogram('req.prompt_len', () => 5, () => [800, 3000], TOKEN_BUCKETS);
      x.histogram('req.gen_len', () => 5, () => [300, 1200], TOKEN_BUCKETS);
    },
  );
  const fired = d.causes.find((c) => c.id === 'kv_bloat');
  assert.ok(fired, JSON.stringify(conditionsOf(d, 'kv_bloat')));
});

test('an Xid an hour after a latency alert resolved is read where it happened: the rules see the fault in a span of its own', () => {
  // Slow answers for 10 minutes from 1200 s (resolved, nothing explaining them), then an Xid 94 at 6000 s and the engine down for 5 minutes.
  const down = (s: number) => s >= 6000 && s < 6300;
  const d = analyze(
    {
      e2e: (s) => (s >= 1200 && s < 1800 ? [4, 9] : [2, 4]),
      gtok: (s) => (down(s) ? 0 : 2000),
      rps: (s) => (down(s) ? 0 : 5),
      running: (s) => (down(s) ? 0 : 20),
    },
    (x) => x.event(6000, { kind: 'xid', severity: 'critical', line: 1, text: 'NVRM: Xid (PCI:0000:18:00): 94, pid=501, name=python3, Contained ECC error', attrs: { code: 94, gpu: '0' } }),
    7200,
  );
  assert.equal(d.causes[0]?.id, "gpu_hardware_fault", JSON.stringify({ status: d.status, causes: d.causes.map((c) => c.id), u: d.unexplained?.evidence.map((e) => e.text), c: conditionsOf(d, "gpu_hardware_fault") }));
});

test('prompt tokens/s tripled at steady arrivals while the prompt-length histogram did not move: prompts prefilled again, not long prompts', () => {
  // From 1200 s the engine counts three times the prompt tokens (preempted requests recomputed) while the
  // requests' own prompts stay as long as before (the histogram's exact mean); TTFT rises. With one prompt in
  // five a long document (the mean ×2.8), the same counters are long-prompt interference.
  const run = (longer: boolean) =>
    analyze({ ptok: (s) => (after(s) ? 12_000 : 4000), ttft: (s) => (after(s) ? [2, 6] : [0.08, 0.2]) }, (x) => {
      x.histogramOf('req.prompt_len', () => 5, (s, u) => (longer && after(s) && u > 0.8 ? 8000 : 400 + 800 * u), TOKEN_BUCKETS);
      x.histogramOf('req.gen_len', () => 5, (_s, u) => 200 + 400 * u, TOKEN_BUCKETS);
    });
  const recomputed = run(false);
  assert.equal(recomputed.causes.find((c) => c.id === 'long_prompt_interference'), undefined, JSON.stringify(conditionsOf(recomputed, 'long_prompt_interference')));
  const longer = run(true);
  assert.ok(longer.causes.some((c) => c.id === 'long_prompt_interference'), JSON.stringify(conditionsOf(longer, 'long_prompt_interference')));
});

test('long prompts that each hold just their tokens leave a half-full pool and a queue behind prefill: long-prompt interference, not KV bloat', () => {
  // From 1200 s one prompt in five carries a 25k-token document: the batch falls from 23 to 5 and 2,000 wait at
  // KV 0.55, but each running request holds about the KV its tokens need (pool 3600 blocks of 16 tokens), so the
  // pool has room for the next; what holds the queue is the prefills.
  const d = analyze(
    {
      kv: (s) => (after(s) ? 0.55 : 0.44),
      running: (s) => (after(s) ? 5 : 23),
      waiting: (s) => (after(s) ? 2000 : 0),
      ptok: (s) => (after(s) ? 29_000 : 4000),
      ttft: (s) => (after(s) ? [20, 60] : [0.08, 0.2]),
      queue: (s) => (after(s) ? [15, 50] : [0.005, 0.02]),
      e2e: (s) => (after(s) ? [30, 90] : [2, 4]),
    },
    (x) => {
      x.gauge('engine.cache_config', () => 1, { num_gpu_blocks: '3600', block_size: '16' });
      x.histogramOf('req.prompt_len', () => 5, (s, u) => (after(s) && u > 0.8 ? 25_000 : 800), TOKEN_BUCKETS);
      x.histogram('req.gen_len', () => 5, () => [300, 1200], TOKEN_BUCKETS);
    },
  );
  assert.equal(d.causes.find((c) => c.id === 'kv_bloat'), undefined, JSON.stringify(conditionsOf(d, 'kv_bloat')));
  assert.equal(d.causes[0]?.id, 'long_prompt_interference', JSON.stringify(d.causes.map((c) => c.id)));
});

test('a KV pool that longer conversations filled over 16 minutes, full for the last 4 when the recording ends, is exhausted', () => {
  const full = 2160;
  const kv = (s: number) => (s < 1200 ? 0.3 : Math.min(1, 0.3 + (0.7 * (s - 1200)) / (full - 1200)));
  const d = analyze({
    kv,
    itl: (s) => [0.02 * (1 + 2 * (kv(s) - 0.3)), 0.04 * (1 + 2 * (kv(s) - 0.3))],
    // Longer prompts and answers: every request takes twice as long from the start of the growth.
    e2e: (s) => (s < 1200 ? [2, 4] : [4 * (1 + kv(s) - 0.3), 8 * (1 + kv(s) - 0.3)]),
    running: (s) => Math.round(20 * (kv(s) / 0.3)),
    gtok: (s) => (s < 1200 ? 2000 : 1300),
    waiting: (s) => (s >= full ? 10 + (s - full) / 10 : 0),
    preemptRate: (s) => (s >= full ? 0.5 : 0),
  });
  assert.equal(d.causes[0]?.id, 'kv_exhaustion', JSON.stringify(conditionsOf(d, 'kv_exhaustion')));
});

test('a two-minute burst of arrivals queued and served slowly for minutes is healthy traffic; the same slow minutes without a burst are not', () => {
  const burst = queueing((s) => (s >= 1800 && s < 1920 ? 9 : 5), () => 5.6, 3600);
  assert.equal(burst.status, 'healthy', JSON.stringify({ causes: burst.causes.map((c) => c.id), u: burst.unexplained?.evidence.map((e) => e.text) }));
  const slower = queueing(() => 5, (s) => (s >= 1800 && s < 2280 ? 4.2 : 5.6), 3600);
  assert.notEqual(slower.status, 'healthy', JSON.stringify(slower.alerts));
});

test('a restart whose TTFT P99 moved inside the tail with the mean unmoved is no deploy regression; one that slowed every prefill is', () => {
  const run = (ttft: (s: number) => [number, number]) =>
    analyze({ ttft }, (x) => x.event(1200, { kind: 'version', severity: 'info', line: 1, text: 'vLLM API server version 0.9.2', attrs: { version: '0.9.2' } }), 3000);
  // P99 ×1.6 on a heavier tail, the body a touch faster: the mean moves 6%.
  const tail = run((s) => (after(s) ? [0.075, 0.4] : [0.08, 0.25]));
  assert.ok(!tail.causes.some((c) => c.id === 'deploy_regression'), JSON.stringify(conditionsOf(tail, 'deploy_regression')));
  // Every prefill 1.6× slower: P99 and mean alike.
  const slower = run((s) => (after(s) ? [0.128, 0.4] : [0.08, 0.25]));
  assert.ok(slower.causes.some((c) => c.id === 'deploy_regression'), JSON.stringify(conditionsOf(slower, 'deploy_regression')));
});

test('every prefill slower from 1200 s and a restart logged two minutes later, the engine serving throughout, is no deploy regression; the same restart at 1200 s is', () => {
  const run = (restartS: number) =>
    analyze({ ttft: (s) => (after(s) ? [0.128, 0.4] : [0.08, 0.25]) }, (x) => x.event(restartS, { kind: 'version', severity: 'info', line: 1, text: 'vLLM API server version 0.9.2', attrs: { version: '0.9.2' } }), 3000);
  const later = run(1320);
  assert.ok(!later.causes.some((c) => c.id === 'deploy_regression'), JSON.stringify(conditionsOf(later, 'deploy_regression')));
  const atOnce = run(1200);
  assert.ok(atOnce.causes.some((c) => c.id === 'deploy_regression'), JSON.stringify(conditionsOf(atOnce, 'deploy_regression')));
});

test('a rollout that slowed every prefill while TTFT P99 stayed inside its bucket is read off the exact TTFT mean', () => {
  // The body of TTFT 1.6× slower, its P99 up 12% (the tail sat in one bucket): the mean steps, the quantile hardly.
  const d = analyze({ ttft: (s) => (after(s) ? [0.128, 0.28] : [0.08, 0.25]) }, (x) => x.event(1200, { kind: 'version', severity: 'info', line: 1, text: 'vLLM API server version 0.9.2', attrs: { version: '0.9.2' } }), 3000);
  const fired = d.causes.find((c) => c.id === 'deploy_regression');
  assert.ok(fired, JSON.stringify(conditionsOf(d, 'deploy_regression')));
  assert.match(JSON.stringify(fired.evidence), /ttft mean changed/);
});

test('more requests running at the same tokens/s and the same exact ITL after a restart is no deploy regression; ITL up with it is', () => {
  const run = (itl: (s: number) => [number, number]) =>
    analyze({ running: (s) => (after(s) ? 30 : 20), itl }, (x) => x.event(1200, { kind: 'version', severity: 'info', line: 1, text: 'vLLM API server version 0.9.2', attrs: { version: '0.9.2' } }), 3000);
  const same = run(() => [0.02, 0.04]);
  assert.ok(!same.causes.some((c) => c.id === 'deploy_regression'), JSON.stringify(conditionsOf(same, 'deploy_regression')));
  const slower = run((s) => (after(s) ? [0.03, 0.06] : [0.02, 0.04]));
  assert.ok(slower.causes.some((c) => c.id === 'deploy_regression'), JSON.stringify(conditionsOf(slower, 'deploy_regression')));
});

test('a restart whose backlog slowed decode for eight minutes, then back to its old pace at the same load, is no deploy regression; a slowdown that stays is', () => {
  // One banner at 1200 s (the version before it is not in the bundle). The queue left by the downtime
  // doubles the batch and the ITL until 1680 s; from then the engine runs as before, at the same arrivals.
  const backlog = (s: number) => s >= 1200 && s < 1680;
  const run = (itl: (s: number) => [number, number]) =>
    analyze({ running: (s) => (backlog(s) ? 45 : 20), itl }, (x) => x.event(1200, { kind: 'version', severity: 'info', line: 1, text: 'vLLM API server version 0.9.2', attrs: { version: '0.9.2' } }), 3600);
  const passing = run((s) => (backlog(s) ? [0.04, 0.08] : [0.02, 0.04]));
  assert.ok(!passing.causes.some((c) => c.id === 'deploy_regression'), JSON.stringify(conditionsOf(passing, 'deploy_regression')));
  const lasting = run((s) => (backlog(s) ? [0.04, 0.08] : after(s) ? [0.03, 0.06] : [0.02, 0.04]));
  assert.ok(lasting.causes.some((c) => c.id === 'deploy_regression'), JSON.stringify(conditionsOf(lasting, 'deploy_regression')));
});

test('answers 1.8x longer on average, their p90 held by max_tokens inside one bucket, are a workload drift', () => {
  // Output lengths uniform over 80-780 tokens, then over 80-1880 capped at max_tokens = 1000: the mean
  // moves 1.8x, the p90 read off vLLM's 1-2-5 buckets stays inside (500, 1000] (1.07x).
  const d = analyze({ gtok: (s) => (after(s) ? 3600 : 2000), running: (s) => (after(s) ? 36 : 20), e2e: (s) => (after(s) ? [3.6, 7.2] : [2, 4]) }, (x) =>
    x.histogramOf('req.gen_len', () => 5, (s, u) => Math.min(1000, 80 + (after(s) ? 1800 : 700) * u), [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, Infinity]),
  );
  assert.equal(d.causes[0]?.id, 'workload_drift', JSON.stringify(conditionsOf(d, 'workload_drift')));
});

test("TGI scraped without its generated-tokens histogram: answers 3x longer are read off its inference time over its time per token (its router's own quotient)", () => {
  // TGI observes time per token as a request's inference time divided by its generated tokens: inference
  // x3 at the same time per token is three times the tokens.
  const d = analyze({ noTokenCounter: true, kv: null, ttft: null, running: (s) => (after(s) ? 36 : 20), e2e: (s) => (after(s) ? [6.2, 12.4] : [2.2, 4.4]) }, (x) =>
    x.histogram('lat.inference', () => 5, (s) => (after(s) ? [6, 12] : [2, 4])),
  );
  assert.equal(d.causes[0]?.id, 'workload_drift', JSON.stringify({ top: d.causes.map((c) => c.id), status: d.status, drift: conditionsOf(d, 'workload_drift') }));
  // The same times with no more requests in flight: answers three times as long at the same arrivals would
  // have held three times the requests (Little's law), so the inference time rose for another reason.
  const flat = analyze({ noTokenCounter: true, kv: null, ttft: null, running: () => 20, e2e: (s) => (after(s) ? [6.2, 12.4] : [2.2, 4.4]) }, (x) =>
    x.histogram('lat.inference', () => 5, (s) => (after(s) ? [6, 12] : [2, 4])),
  );
  assert.notEqual(flat.causes[0]?.id, 'workload_drift', JSON.stringify(conditionsOf(flat, 'workload_drift')));
});

test('latency up and tokens down together for 90 s is no incident by itself; for 10 minutes it is', () => {
  const run = (seconds: number) => {
    const hit = (s: number) => s >= 1500 && s < 1500 + seconds;
    return analyze({ gtok: (s) => (hit(s) ? 900 : 2000), rps: (s) => (hit(s) ? 2 : 5), e2e: (s) => (hit(s) ? [6, 12] : [2, 4]) }, undefined, 3000);
  };
  const blip = run(90);
  assert.equal(blip.status, 'healthy', JSON.stringify(blip.unexplained ?? blip.causes.map((c) => c.id)));
  const sustained = run(600);
  assert.notEqual(sustained.status, 'healthy');
});

test('an engine that exports no KV usage (TGI) is read for a starved frontend by its GPU: util halved while requests wait is one; a front gap beside a busy GPU is one only where the pool is known to have room', () => {
  const run = (utilAfter: number, kv: ((s: number) => number) | null, ttft: [number, number]) =>
    analyze({
      kv,
      util: (s) => (after(s) ? utilAfter : 0.9),
      waiting: (s) => (after(s) ? 30 : 0),
      e2e: (s) => (after(s) ? [5, 10] : [2, 4]),
      queue: () => [0.075, 0.19],
      ttft: (s) => (after(s) ? ttft : [0.08, 0.2]),
    });
  const starved = run(0.45, null, [0.08, 0.2]);
  assert.ok(starved.causes.some((c) => c.id === 'cpu_frontend_bottleneck'), JSON.stringify(conditionsOf(starved, 'cpu_frontend_bottleneck')));
  const gapUnknownPool = run(0.9, null, [0.5, 1.2]);
  assert.ok(!gapUnknownPool.causes.some((c) => c.id === 'cpu_frontend_bottleneck'), JSON.stringify(conditionsOf(gapUnknownPool, 'cpu_frontend_bottleneck')));
  const gapRoomyPool = run(0.9, () => 0.4, [0.5, 1.2]);
  assert.ok(gapRoomyPool.causes.some((c) => c.id === 'cpu_frontend_bottleneck'), JSON.stringify(conditionsOf(gapRoomyPool, 'cpu_frontend_bottleneck')));
});

test("TGI (no KV usage, never preempts): a front gap beyond its queue time carrying TTFT's rise beside a busy GPU is a starved frontend; the same gap where the engine may preempt is not assumed", () => {
  const run = (tgi: boolean) =>
    analyze(
      { kv: null, util: () => 0.9, waiting: () => 0, e2e: (s) => (after(s) ? [5, 10] : [2, 4]), queue: () => [0.075, 0.19], ttft: (s) => (after(s) ? [2.5, 6] : [0.08, 0.2]) },
      (x) => x.gauge('batch.max_tokens', () => 16_000, { metric: tgi ? 'tgi_batch_current_max_tokens' : 'vllm:max_num_batched_tokens' }),
    );
  const tgi = run(true);
  assert.equal(tgi.causes[0]?.id, 'cpu_frontend_bottleneck', JSON.stringify({ causes: tgi.causes.map((c) => c.id), frontend: conditionsOf(tgi, 'cpu_frontend_bottleneck') }));
  assert.ok(!run(false).causes.some((c) => c.id === 'cpu_frontend_bottleneck'));
});

test("TGI (no TTFT, no KV usage): the router's validation time carrying the e2e rise is a starved frontend beside a busy GPU; e2e up with validation flat is not", () => {
  const run = (validationAfter: [number, number]) =>
    analyze({
      kv: null,
      ttft: null,
      util: () => 0.9,
      waiting: () => 0,
      validation: (s) => (after(s) ? validationAfter : [0.002, 0.005]),
      e2e: (s) => (after(s) ? [5, 9] : [2, 4]),
      queue: () => [0.005, 0.02],
    });
  const tokenizer = run([2.5, 4]);
  assert.ok(tokenizer.causes.some((c) => c.id === 'cpu_frontend_bottleneck'), JSON.stringify(conditionsOf(tokenizer, 'cpu_frontend_bottleneck')));
  const flat = run([0.002, 0.005]);
  assert.ok(!flat.causes.some((c) => c.id === 'cpu_frontend_bottleneck'), JSON.stringify(conditionsOf(flat, 'cpu_frontend_bottleneck')));
});

test('a front gap (TTFT - queue) grown from 5 to 20 ms is no starved frontend; grown to 400 ms it is', () => {
  // Queue time carries almost all of TTFT; e2e rises 1.6x for a reason of its own.
  const run = (ttftAfter: [number, number]) =>
    analyze({ queue: () => [0.075, 0.19], ttft: (s) => (after(s) ? ttftAfter : [0.08, 0.2]), e2e: (s) => (after(s) ? [3.2, 6.4] : [2, 4]) });
  const jitter = run([0.095, 0.22]);
  assert.ok(!jitter.causes.some((c) => c.id === 'cpu_frontend_bottleneck'), JSON.stringify(conditionsOf(jitter, 'cpu_frontend_bottleneck')));
  const starved = run([0.5, 1.2]);
  assert.ok(starved.causes.some((c) => c.id === 'cpu_frontend_bottleneck'), JSON.stringify(conditionsOf(starved, 'cpu_frontend_bottleneck')));
});

test('with no queue-time histogram, TTFT up while requests wait in the engine is no front gap; the same rise with nothing waiting is one', () => {
  // SGLang without its queue histogram: TTFT 0.08 -> 0.5 s from 1200 s.
  const run = (waiting: number) =>
    analyze({ queue: null, waiting: (s) => (after(s) ? waiting : 0), ttft: (s) => (after(s) ? [0.5, 1.2] : [0.08, 0.2]), e2e: (s) => (after(s) ? [3.2, 6.4] : [2, 4]) });
  const queued = run(40);
  assert.ok(!queued.causes.some((c) => c.id === 'cpu_frontend_bottleneck'), JSON.stringify(conditionsOf(queued, 'cpu_frontend_bottleneck')));
  const starved = run(0);
  assert.ok(starved.causes.some((c) => c.id === 'cpu_frontend_bottleneck'), JSON.stringify(conditionsOf(starved, 'cpu_frontend_bottleneck')));
});

test('a front gap beside a GPU busier for no more tokens is the engine slowing (a slower prefill inside TTFT), not a starved frontend', () => {
  const run = (smAfter: number) =>
    analyze({ queue: () => [0.075, 0.19], ttft: (s) => (after(s) ? [0.5, 1.2] : [0.08, 0.2]), e2e: (s) => (after(s) ? [3.2, 6.4] : [2, 4]) }, (x) =>
      x.gauge('gpu.sm_active', (s) => (after(s) ? smAfter : 0.3) * x.noise(0.03), { gpu: '0' }),
    );
  const busier = run(0.45);
  assert.ok(!busier.causes.some((c) => c.id === 'cpu_frontend_bottleneck'), JSON.stringify(conditionsOf(busier, 'cpu_frontend_bottleneck')));
  const same = run(0.3);
  assert.ok(same.causes.some((c) => c.id === 'cpu_frontend_bottleneck'), JSON.stringify(conditionsOf(same, 'cpu_frontend_bottleneck')));
});

test('a KV block leak whose baseline had no idle window climbs from the first idle floor, not from an empty pool', () => {
  // Busy for the first 700 s; then idle for 40 s every 400 s. The idle pool holds 11% (cached prompts)
  // until blocks start leaking at 1600 s; from then each idle floor is 3 points higher.
  const idle = (s: number) => s >= 700 && (s - 700) % 400 < 40;
  const floor = (s: number) => 0.11 + (s >= 1600 ? 0.03 * (1 + Math.floor((s - 1600) / 400)) : 0);
  const d = analyze(
    {
      running: (s) => (idle(s) ? 0 : 20),
      waiting: () => 0,
      kv: (s) => (idle(s) ? floor(s) : 0.4 + floor(s)),
    },
    undefined,
    4000,
  );
  const leak = d.causes.find((c) => c.id === 'kv_block_leak');
  assert.ok(leak, JSON.stringify(d.checked.find((c) => c.id === 'kv_block_leak')));
  // The blocks were lost in the busy stretch 1540–1900 s: dated at its start, not at the first idle window (700 s).
  assert.ok(Math.abs(leak.onset_ms! - (T0 + 1600_000)) <= 120_000, `leak onset ${(leak.onset_ms! - T0) / 1000} s`);
});

test('a KV block leak that began three hours into a day of idle gaps is read on its own staircase, not on the empty idle pool of the hours before', () => {
  // Idle for 40 s every 400 s all day; the idle pool is empty until blocks start leaking at 10 800 s, then
  // each idle floor is 4 points higher.
  const idle = (s: number) => s % 400 < 40;
  const floor = (s: number) => 0.01 + (s >= 10_800 ? 0.04 * (1 + Math.floor((s - 10_800) / 400)) : 0);
  const d = analyze({ running: (s) => (idle(s) ? 0 : 20), waiting: () => 0, kv: (s) => (idle(s) ? floor(s) : 0.4 + floor(s)) }, undefined, 14_400);
  assert.ok(
    d.causes.some((c) => c.id === 'kv_block_leak'),
    JSON.stringify(d.checked.find((c) => c.id === 'kv_block_leak') ?? d.causes.map((c) => c.id)),
  );
});

test('a KV block leak whose engine was restarted before the data ended is read over the life that leaked, not the empty pool after the restart', () => {
  // Idle for 40 s every 400 s; blocks leak from 3600 s, 4 points of the pool per gap; the process restarts at
  // 9600 s (a new process_start_time_seconds) and its pool starts empty again.
  const idle = (s: number) => s % 400 < 40;
  const restart = 9600;
  const floor = (s: number) => (s >= restart ? 0 : 0.01 + (s >= 3600 ? 0.04 * (1 + Math.floor((s - 3600) / 400)) : 0));
  const d = analyze(
    { running: (s) => (idle(s) ? 0 : 20), waiting: () => 0, kv: (s) => (idle(s) ? floor(s) : 0.4 + floor(s)) },
    (x) => x.gauge('process_start_time_seconds', (s) => (T0 + (s >= restart ? restart * 1000 : -3_600_000)) / 1000),
    10_800,
  );
  assert.ok(d.causes.some((c) => c.id === 'kv_block_leak'), JSON.stringify(d.checked.find((c) => c.id === 'kv_block_leak') ?? d.causes.map((c) => c.id)));
});

test('an engine with no token counter that completes no request for ten minutes with twenty in flight is hung; the same minutes with none in flight are idle', () => {
  // TGI scraped without its generated-tokens histogram: completions are the output. Hung from 1200 to 1800 s.
  const hung = (s: number) => s >= 1200 && s < 1800;
  const run = (running: number) =>
    analyze({ noTokenCounter: true, rps: (s) => (hung(s) ? 0 : 5), running: (s) => (hung(s) ? running : 20), waiting: (s) => (hung(s) && running > 0 ? Math.round((s - 1200) / 10) : 0) });
  const d = run(20);
  assert.equal(d.causes[0]?.id, 'engine_hang', JSON.stringify({ causes: d.causes.map((c) => c.id), hang: d.checked.find((c) => c.id === 'engine_hang') }));
  assert.ok(!run(0).causes.some((c) => c.id === 'engine_hang'));
});

test('with no token counter, a surge whose queue grew to thousands beside a batch at its level while more requests finished is a traffic surge', () => {
  // Arrivals ×2.5 from 1200 s; the engine finishes ×1.3 as many requests, the rest wait (TGI: no token counters, no KV usage).
  const on = (s: number) => s >= 1200;
  const d = analyze({
    noTokenCounter: true,
    kv: null,
    rps: (s) => (on(s) ? 6.5 : 5),
    // TGI's batch is bounded by tokens, not sequences: its size swings with the requests' lengths (a burst of short ones ran 40).
    running: (s) => (on(s) ? 26 : s >= 600 && s < 630 ? 40 : 20),
    waiting: (s) => (on(s) ? Math.round(6 * (s - 1200)) : 0),
    queue: (s) => (on(s) ? [Math.max(0.01, (s - 1200) / 4), Math.max(0.02, (s - 1200) / 2)] : [0.005, 0.02]),
    e2e: (s) => (on(s) ? [2 + (s - 1200) / 4, 4 + (s - 1200) / 2] : [2, 4]),
  });
  assert.equal(d.causes[0]?.id, 'traffic_surge', JSON.stringify({ causes: d.causes.map((c) => c.id), surge: conditionsOf(d, 'traffic_surge') }));
});

test('a KV block leak between two idle gaps ten minutes apart is dated where its climb leaves the idle level, not at the earlier gap', () => {
  // Idle for 40 s every 600 s; blocks leak from 2150 s at a steady pace (aborted requests), 1% of the pool a minute.
  const idle = (s: number) => s % 600 < 40;
  const floor = (s: number) => 0.02 + (s >= 2150 ? (0.01 * (s - 2150)) / 60 : 0);
  const d = analyze({ running: (s) => (idle(s) ? 0 : 20), waiting: () => 0, kv: (s) => (idle(s) ? floor(s) : 0.4 + floor(s)) }, undefined, 7200);
  const leak = d.causes.find((c) => c.id === 'kv_block_leak');
  assert.ok(leak, JSON.stringify(d.checked.find((c) => c.id === 'kv_block_leak')));
  assert.ok(Math.abs(leak.onset_ms! - (T0 + 2150_000)) <= 90_000, `leak onset ${(leak.onset_ms! - T0) / 1000} s`);
});

test('a KV block leak that fills the pool within half an hour: nothing runs while everyone waits at a full pool, and that floor is the leak, not KV exhaustion', () => {
  // Idle for 60 s every 600 s; blocks leak (while busy) from 2000 s, the pool full (0.98) by 3000 s: from then
  // nothing is admitted, none runs, the queue grows, tokens stop. Each idle stretch reads one level (an idle pool
  // reads the same blocks every scrape): 0.01 × 4, 0.4 at 2400 s, then the full pool to the end.
  const full = (s: number) => s >= 3000;
  const idle = (s: number) => !full(s) && s % 600 < 60;
  const floor = (s: number) => (full(s) ? 0.98 : s < 2400 ? 0.01 : 0.4);
  const d = analyze(
    {
      running: (s) => (full(s) || idle(s) ? 0 : 20),
      waiting: (s) => (full(s) ? (s - 3000) * 0.5 : 0),
      kv: (s) => (full(s) ? 0.98 : idle(s) ? floor(s) : Math.min(0.99, 0.3 + floor(s))),
      gtok: (s) => (full(s) ? 0 : idle(s) ? 0 : 2000),
      e2e: (s) => (full(s) ? [60, 120] : [2, 4]),
      preemptRate: (s) => (s >= 2900 && s < 3000 ? 1 : 0),
    },
    undefined,
    5400,
  );
  assert.equal(d.causes[0]?.id, 'kv_block_leak', JSON.stringify({ causes: d.causes.map((c) => c.id), leak: d.checked.find((c) => c.id === 'kv_block_leak') }));
});

test('a KV block leak under traffic that never pauses is read off the KV the running requests do not hold; the same climb carried by longer requests, or a step, is not a leak', () => {
  // Four hours, 20 running all along, never idle. From 3600 s blocks leak: KV climbs 0.3 → 0.8 with the batch
  // and the requests' lengths flat. In the counterpart the prompts grow with the KV (the pool holds their tokens).
  const climb = (s: number) => 0.3 + (s >= 3600 ? (0.5 * (s - 3600)) / 10_800 : 0);
  const run = (longer: boolean, kv = climb) =>
    analyze(
      { kv, running: () => 20, waiting: () => 0 },
      (x) => {
        x.histogramOf('req.prompt_len', () => 5, (s) => (longer ? (1100 * climb(s)) / 0.3 - 300 : 800), TOKEN_BUCKETS);
        x.histogramOf('req.gen_len', () => 5, () => 300, TOKEN_BUCKETS);
      },
      14_400,
    );
  const leaking = run(false);
  const leak = leaking.causes.find((c) => c.id === 'kv_block_leak');
  assert.ok(leak, JSON.stringify(leaking.checked.find((c) => c.id === 'kv_block_leak')));
  assert.ok(Math.abs(leak.onset_ms! - (T0 + 3600_000)) <= 900_000, `leak onset ${(leak.onset_ms! - T0) / 1000} s`);
  const longer = run(true);
  assert.equal(longer.causes.find((c) => c.id === 'kv_block_leak'), undefined, JSON.stringify(conditionsOf(longer, 'kv_block_leak')));
  // Each request holding more from one moment on (reservations, a prefix no longer shared) is a step, not a climb,
  // even where the pool then creeps up a little.
  const step = run(false, (s) => (s >= 3600 ? 0.78 + (0.02 * (s - 3600)) / 10_800 : 0.3));
  assert.equal(step.causes.find((c) => c.id === 'kv_block_leak'), undefined, JSON.stringify(conditionsOf(step, 'kv_block_leak')));
});

test('a KV block leak whose traffic stopped an hour in: one idle stretch at a floor the busy hours never had is the top of the climb', () => {
  // Busy (20 running) until 9000 s, then idle to 14 400 s. Blocks leak from 5400 s; the idle pool keeps 0.08.
  const leaked = (s: number) => (s >= 5400 ? Math.min(0.08, (0.08 * (s - 5400)) / 3600) : 0);
  const busy = (s: number) => s < 9000;
  const d = analyze(
    { kv: (s) => (busy(s) ? 0.3 + leaked(s) : leaked(s)), running: (s) => (busy(s) ? 20 : 0), waiting: () => 0, rps: (s) => (busy(s) ? 5 : 0), gtok: (s) => (busy(s) ? 2000 : 0) },
    (x) => {
      x.histogramOf('req.prompt_len', (s) => (busy(s) ? 5 : 0), () => 800, TOKEN_BUCKETS);
      x.histogramOf('req.gen_len', (s) => (busy(s) ? 5 : 0), () => 300, TOKEN_BUCKETS);
    },
    14_400,
  );
  assert.equal(d.causes[0]?.id, 'kv_block_leak', JSON.stringify({ causes: d.causes.map((c) => c.id), leak: conditionsOf(d, 'kv_block_leak') }));
});

test('GPU memory climbing into an OOM that refused what its stranded reserve would have served is fragmentation, not a leak; an OOM with nothing stranded ends a leak', () => {
  // Used memory (no allocator series) 70 -> 78 GB from 1200 s, an OOM at 2300 s.
  const oom = (tried: string, unalloc: string) =>
    `torch.OutOfMemoryError: CUDA out of memory. Tried to allocate ${tried}. GPU 0 has a total capacity of 79.19 GiB of which 150.00 MiB is free. Including non-PyTorch memory, this process has 79.03 GiB memory in use. Of the allocated memory 75.20 GiB is allocated by PyTorch, and ${unalloc} is reserved by PyTorch but unallocated.`;
  const run = (text: string) =>
    analyze({ memUsed: (s) => (s < 1200 ? 70 * GB : 70 * GB + (8 * GB * (s - 1200)) / 1100) }, (x) => x.event(2300, { kind: 'oom', severity: 'error', text, attrs: { ...parseOom(text) } }));
  const stranded = run(oom('1.69 GiB', '1.73 GiB'));
  assert.equal(stranded.causes[0]?.id, 'allocator_fragmentation', JSON.stringify({ causes: stranded.causes.map((c) => c.id), leak: conditionsOf(stranded, 'gpu_memory_leak') }));
  assert.ok(!stranded.causes.some((c) => c.id === 'gpu_memory_leak'));
  const leak = run(oom('2.00 MiB', '20.00 MiB'));
  assert.equal(leak.causes[0]?.id, 'gpu_memory_leak', JSON.stringify({ causes: leak.causes.map((c) => c.id), leak: conditionsOf(leak, 'gpu_memory_leak') }));
});

test('allocated creeping up 2 GB while an OOM strands 15.8 GiB beside a 2.25 GiB request is fragmentation; an OOM that strands less than allocated grew ends a leak', () => {
  // The allocator's series (a snapshot's trace) from 1200 s: allocated 6.4 -> 8.5 GB, reserved 6.5 -> 13 GB, an OOM at 2300 s.
  const oom = (unalloc: string) =>
    `torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.25 GiB. GPU 0 has a total capacity of 44.70 GiB of which 190.42 MiB is free. Process 196784 has 44.74 GiB memory in use. Of the allocated memory 28.28 GiB is allocated by PyTorch, and ${unalloc} is reserved by PyTorch but unallocated.`;
  const grow = (from: number, by: number) => (s: number) => (s < 1200 ? from : from + (by * (s - 1200)) / 1100);
  const run = (text: string) =>
    analyze({ torchAllocated: grow(6.4 * GB, 2.1 * GB), torchReserved: grow(6.5 * GB, 6.5 * GB) }, (x) => x.event(2300, { kind: 'oom', severity: 'error', text, attrs: { ...parseOom(text) } }));
  const stranded = run(oom('15.84 GiB'));
  assert.equal(stranded.causes[0]?.id, 'allocator_fragmentation', JSON.stringify({ causes: stranded.causes.map((c) => c.id), frag: conditionsOf(stranded, 'allocator_fragmentation') }));
  assert.ok(!stranded.causes.some((c) => c.id === 'gpu_memory_leak'));
  const leak = run(oom('1.50 GiB'));
  assert.equal(leak.causes[0]?.id, 'gpu_memory_leak', JSON.stringify({ causes: leak.causes.map((c) => c.id), leak: conditionsOf(leak, 'gpu_memory_leak') }));
});

test("allocator_fragmentation from the OOM text: this process's own memory outside the allocator (CUDA context, NCCL, graphs) is no look-alike; another process holding more than the stranded reserve is", () => {
  const own =
    'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 683.53 MiB. GPU 0 has a total capacity of 80.00 GiB of which 191.53 MiB is free. Including non-PyTorch memory, this process has 79.32 GiB memory in use. Of the allocated memory 65.83 GiB is allocated by PyTorch, and 7.24 GiB is reserved by PyTorch but unallocated.';
  const shared =
    'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 683.53 MiB. GPU 0 has a total capacity of 80.00 GiB of which 191.53 MiB is free. Process 4242 has 20.00 GiB memory in use. Including non-PyTorch memory, this process has 59.32 GiB memory in use. Of the allocated memory 50.83 GiB is allocated by PyTorch, and 7.24 GiB is reserved by PyTorch but unallocated.';
  const run = (text: string) =>
    analyze({ gtok: (s) => (s >= 1800 ? 0 : 2000) }, (x) => {
      x.event(1800, { kind: 'oom', severity: 'error', text, attrs: { ...parseOom(text) } });
    }).checked.find((c) => c.id === 'allocator_fragmentation')!;
  const a = run(own);
  assert.equal(a.verdict, 'fired', JSON.stringify(a));
  const b = run(shared);
  assert.notEqual(b.verdict, 'fired');
  assert.ok(b.failed.some((f) => /other processes hold/.test(f.condition) && f.held), JSON.stringify(b));
});

const TOKEN_BUCKETS = Array.from({ length: 60 }, (_, i) => Math.round(10 * 1.2 ** i));

/**
 * Prompt lengths: the usual body (median 800, P99 3000 tokens, 5 requests/s) and, after 1200 s, either a
 * share `docs` of requests carrying ~25k-token documents (a second mode) or the body grown by `body`/`tail`.
 * TTFT triples after 1200 s; prompt tokens/s follow the mean.
 */
function prompts(o: { docs?: number; body?: number; tail?: number; buckets?: number[]; fullPool?: boolean }): Diagnosis {
  const docs = o.docs ?? 0;
  const meanMul = docs ? 1 + (docs * 25000) / 1000 : (o.body ?? 1);
  const full = o.fullPool ? { kv: (s: number) => (after(s) ? 0.98 : 0.4), preemptRate: (s: number) => (after(s) ? 0.5 : 0), waiting: (s: number) => (after(s) ? 20 : 0) } : {};
  return analyze({ ttft: (s) => (after(s) ? [0.3, 0.9] : [0.08, 0.2]), ptok: (s) => (after(s) ? 4000 * meanMul : 4000), ...full }, (x) => {
    // Two engines' histograms of one layout add up: the mixture is the frame's own reading.
    x.histogram('req.prompt_len', () => 5 * (1 - docs), (s) => (after(s) ? [800 * (o.body ?? 1), 3000 * (o.tail ?? 1)] : [800, 3000]), o.buckets ?? TOKEN_BUCKETS, { engine: '0' });
    if (docs) x.histogram('req.prompt_len', (s) => (after(s) ? 5 * docs : 0), () => [25000, 30000], TOKEN_BUCKETS, { engine: '1' });
  });
}

test('a few requests carrying long documents (a new tail, the body unmoved) are long-prompt interference; conversations that grew alike are not where they filled the pool', () => {
  const tail = prompts({ docs: 0.03 });
  assert.equal(tail.causes[0]?.id, 'long_prompt_interference', JSON.stringify(tail.checked.find((c) => c.id === 'long_prompt_interference')));
  const body = prompts({ body: 1.5, tail: 2.2 });
  assert.ok(!body.causes.some((c) => c.id === 'long_prompt_interference'), JSON.stringify(body.causes.find((c) => c.id === 'long_prompt_interference')?.require[0]));
  // Every prompt ×2.2: prompt tokens per arrival double, and so does the body's low end (P10) with the mean.
  // Where the pool ran out, that is the exhaustion's reading (conversations that grew filled it); where it did
  // not, the longer prefills are what TTFT waits on, and nothing else names them.
  const doubledFull = prompts({ body: 2.2, tail: 2.2, fullPool: true });
  assert.ok(doubledFull.causes.some((c) => c.id === 'kv_exhaustion'), JSON.stringify(doubledFull.causes.map((c) => c.id)));
  assert.ok(!doubledFull.causes.some((c) => c.id === 'long_prompt_interference'), JSON.stringify(doubledFull.causes.find((c) => c.id === 'long_prompt_interference')?.require[0]));
  const doubled = prompts({ body: 2.2, tail: 2.2 });
  assert.equal(doubled.causes[0]?.id, 'long_prompt_interference', JSON.stringify(doubled.checked.find((c) => c.id === 'long_prompt_interference')));
  // Every prompt ×1.9 read off vLLM's 1-2-5 buckets: the interpolated P90 crosses ×2, the exact mean does not.
  const coarse = prompts({ body: 1.9, tail: 1.9, buckets: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000] });
  assert.ok(!coarse.causes.some((c) => c.id === 'long_prompt_interference'), JSON.stringify(coarse.causes.find((c) => c.id === 'long_prompt_interference')?.require[0]));
});

/**
 * An engine read from its gauges with a 900 s hole in them (1200–2100 s); the GPU's telemetry goes on, where
 * given, and so does its generated-token counter (900 tokens/s) where `tokensAfter` gives its total after the hole.
 */
function metricsGap(gpuDuringGap: { memGB: number; util: (s: number) => number } | null, tokensAfter?: (s: number) => number): Diagnosis {
  const ts = tempStore();
  try {
    const x = new SyntheticIncident(ts.store, 3000, 7, 3);
    const up = (s: number) => s < 1200 || s >= 2100;
    x.gauge('tokens.generation_rate', (s) => (up(s) ? 900 * x.noise(0.1) : null));
    x.gauge('req.running', (s) => (up(s) ? Math.round(10 * x.noise(0.2)) : null));
    x.gauge('req.waiting', (s) => (up(s) ? 0 : null));
    x.gauge('kv.usage', (s) => (up(s) ? 0.3 * x.noise(0.1) : null));
    if (tokensAfter) x.counterReadings('tokens.generation', (s) => (s < 1200 ? 900 * s : up(s) ? tokensAfter(s) : null));
    if (gpuDuringGap) {
      const gpu = { gpu: '0' };
      x.gauge('gpu.mem.used', (s) => (up(s) ? 70 * GB : gpuDuringGap.memGB * GB), gpu);
      x.gauge('gpu.util', (s) => (up(s) ? 0.3 + 0.3 * Math.sin(s / 60) : gpuDuringGap.util(s)), gpu);
    }
    return analyzeIncidentDetailed(ts.store, x.done()).diagnosis;
  } finally {
    ts.dispose();
  }
}

const outageText = (d: Diagnosis) => JSON.stringify(d.unexplained ?? null).includes('(outage)');

test("lost scrapes while the GPU holds its loaded memory and keeps the traffic's rhythm are a gap in the metrics, not an outage; freed memory is one", () => {
  const gap = metricsGap({ memGB: 70, util: (s) => 0.3 + 0.3 * Math.sin(s / 60) });
  assert.equal(outageText(gap), false, JSON.stringify(gap.unexplained));
  const died = metricsGap({ memGB: 0.5, util: () => 0 });
  assert.equal(outageText(died), true, JSON.stringify({ status: died.status, unexplained: died.unexplained, gaps: died.gaps, n: died.windows.length }));
  // A rank spinning in a hung collective holds its memory too, pinned busy: still no reading from the engine.
  const pinned = metricsGap({ memGB: 70, util: () => 1 });
  assert.equal(outageText(pinned), true, JSON.stringify({ status: pinned.status, unexplained: pinned.unexplained }));
});

test('a hole in the scrapes across which the token counter kept its pace is a gap in the metrics; a counter that restarted or stood still marks an outage', () => {
  // No GPU telemetry: the counter alone tells. It counted on at 900 tokens/s through the hole (the scraper's gap)…
  const counted = metricsGap(null, (s) => 900 * s);
  assert.equal(outageText(counted), false, JSON.stringify(counted.unexplained));
  // …restarted from zero after it (the engine was down and came back)…
  const restarted = metricsGap(null, (s) => 900 * (s - 2100));
  assert.equal(outageText(restarted), true, JSON.stringify({ status: restarted.status, unexplained: restarted.unexplained }));
  // …or gained a tenth of its pace across it (a hung engine that came back).
  const stood = metricsGap(null, (s) => 900 * 1200 + 90 * 900 + 900 * (s - 2100));
  assert.equal(outageText(stood), true, JSON.stringify({ status: stood.status, unexplained: stood.unexplained }));
});

test('speculative decoding that accepts fewer drafts is read from end-to-end latency where the per-token figures stay flat', () => {
  // Acceptance 2.8 → 2.05 tokens a step; ITL (timed per step) and tokens per running sequence unchanged,
  // every answer takes ~1.4× longer end to end.
  const d = analyze({ e2e: (s) => (after(s) ? [3, 5.6] : [2, 4]) }, (x) => x.gauge('spec.accept_len', (s) => (after(s) ? 2.05 : 2.8)));
  const slower = conditionsOf(d, 'spec_decode_degradation').find((c) => /^r\(itl\)/.test(c.condition));
  assert.ok(d.causes.some((c) => c.id === 'spec_decode_degradation'), JSON.stringify(d.checked.find((c) => c.id === 'spec_decode_degradation')));
  // Held by e2e alone: ITL and the per-sequence rate read flat.
  assert.match(String(slower?.value), /^itl ×(0\.9\d*|1(\.0\d*)?), per sequence ×(0\.9\d*|1(\.0\d*)?), e2e ×1\.[3-6]/);
});

test('where nothing explains the episode as a whole, each sustained symptom is read on its own: a 20-minute surge hours after an unexplained slowdown', () => {
  // 5 req/s served at up to 6.2. At 1 h the engine serves 4.5 for 15 min (no cause the data shows); at
  // 2.5 h arrivals jump to 9 for 20 min, then fall to 2 while the queue drains. Read from 1 h to the end,
  // the surge is a sixth of the episode and its arrivals' median ×1.
  const arrivals = (s: number) => (s >= 9000 && s < 10_200 ? 9 : s >= 10_200 && s < 12_000 ? 2 : 5);
  const d = queueing(arrivals, (s) => (s >= 3600 && s < 4500 ? 4.5 : 6.2), 14_400);
  assert.equal(d.status, 'explained', JSON.stringify(d.unexplained));
  assert.equal(d.causes[0]?.id, 'traffic_surge', JSON.stringify(d.checked.find((c) => c.id === 'traffic_surge')));
  assert.ok(Math.abs((d.onset_ms ?? 0) - (T0 + 9000 * 1000)) <= 120_000, `onset ${((d.onset_ms ?? 0) - T0) / 1000} s`);
});

test('a CPU-bound frontend whose slower steps kept requests, and their KV blocks, longer is still read as the frontend; a pool that outgrew the batch is not', () => {
  const frontend = (kvAfter: number, runAfter: number, ttftAfter?: [number, number]) =>
    analyze(
      {
        ...(ttftAfter ? { ttft: (s: number): [number, number] => (after(s) ? ttftAfter : [0.08, 0.2]) } : {}),
        itl: (s) => (after(s) ? [0.09, 0.14] : [0.02, 0.04]),
        e2e: (s) => (after(s) ? [8, 14] : [2, 4]),
        running: (s) => (after(s) ? runAfter : 26),
        kv: (s) => (after(s) ? kvAfter : 0.63),
        gtok: (s) => (after(s) ? 1500 : 2000),
      },
      (x) => x.counter('host.cpu_seconds', (s) => (after(s) ? 0.99 : 0.45)),
    );
  // Batch ×1.46, pool 0.63 → 0.86 (×1.37): the pool filled as far as the batch grew.
  const d = frontend(0.86, 38);
  assert.equal(d.causes[0]?.id, 'cpu_frontend_bottleneck', JSON.stringify(d.checked.find((c) => c.id === 'cpu_frontend_bottleneck')));
  // The same pool at a batch that grew ×1.08: each request holds more (not the frontend's doing).
  const bigger = frontend(0.86, 28);
  const kv = conditionsOf(bigger, 'cpu_frontend_bottleneck').find((c) => c.condition.startsWith('kv ≤'));
  assert.ok(!bigger.causes.some((c) => c.id === 'cpu_frontend_bottleneck') && kv?.held === false, JSON.stringify(kv));
  // A pool filled to 0.98 where the frontend shows in both of its own readings (its CPU pinned, the first
  // token seconds later than queue and prefill explain): the full pool is its consequence.
  const full = frontend(0.98, 38, [2, 6]);
  assert.equal(full.causes[0]?.id, 'cpu_frontend_bottleneck', JSON.stringify(conditionsOf(full, 'cpu_frontend_bottleneck')));
});

test("a CPU-bound frontend is dated by the earlier of its readings: first tokens held back from 1200 s, the GPU's util down only from 1800 s", () => {
  const d = analyze(
    {
      ttft: (s) => (after(s) ? [1.5, 4] : [0.08, 0.2]),
      e2e: (s) => (after(s) ? [4, 9] : [2, 4]),
      util: (s) => (s >= 1800 ? 0.45 : 0.9),
      gtok: (s) => (after(s) ? 1600 : 2000),
      waiting: (s) => (after(s) ? 3 : 0),
    },
    (x) => x.counter('host.cpu_seconds', (s) => (after(s) ? 0.99 : 0.45)),
    3000,
  );
  const fired = d.causes.find((c) => c.id === 'cpu_frontend_bottleneck');
  assert.ok(fired, JSON.stringify(conditionsOf(d, 'cpu_frontend_bottleneck')));
  assert.ok(Math.abs(fired.onset_ms! - (T0 + 1200_000)) <= 90_000, `onset ${(fired.onset_ms! - T0) / 1000} s`);
});

test('a surge whose backlog drains for longer than it lasted is read by the arrivals that filled the queue', () => {
  // 5 req/s served at up to 6.2; 9 arrive for 15 minutes from 1 h, and the queue then drains for ~35 minutes at
  // the old arrivals: over the episode, arrivals' median is the baseline's.
  const d = queueing((s) => (s >= 3600 && s < 4500 ? 9 : 5), () => 6.2, 9000);
  assert.equal(d.causes[0]?.id, 'traffic_surge', JSON.stringify(d.checked.find((c) => c.id === 'traffic_surge')));
  const lam = d.causes[0].require.find((c) => /^r\(lam_in\) ≥/.test(c.condition));
  assert.ok(Number(lam?.value) >= 1.6, JSON.stringify(lam));
});

test('a surge that fills its queue for most of an hour and drains it for another is read by the arrivals that filled it', () => {
  // 5 req/s served at up to 6.2; 7.5 arrive for 55 minutes from 1 h: the queue grows for 55 minutes and drains for an
  // hour at the old arrivals, so the episode's median arrivals sit near the baseline's.
  const d = queueing((s) => (s >= 3600 && s < 6900 ? 7.5 : 5), () => 6.2, 14_400);
  assert.equal(d.causes[0]?.id, 'traffic_surge', JSON.stringify(d.checked.find((c) => c.id === 'traffic_surge')));
  const lam = d.causes[0].require.find((c) => /^r\(lam_in\) ≥/.test(c.condition));
  assert.ok(Number(lam?.value) >= 1.4, JSON.stringify(lam));
});

test('arrivals ×1.35 that tipped the engine into eager steps, its batch running away ×18 with no queue, are a CUDA-graph fallback; the same arrivals growing the batch as far as they do are not', () => {
  const tipped = (runAfter: number, itlAfter: number) =>
    analyze(
      {
        rps: (s) => (after(s) ? 6.75 : 5),
        gtok: (s) => (after(s) ? 2700 : 2000),
        running: (s) => (after(s) ? runAfter : 21),
        itl: (s) => (after(s) ? [itlAfter, itlAfter * 1.4] : [0.029, 0.04]),
        e2e: (s) => (after(s) ? [2 * (itlAfter / 0.029), 4 * (itlAfter / 0.029)] : [2, 4]),
      },
      (x) => x.counter('req.arrivals', (s) => (after(s) ? 6.75 : 5)),
    );
  const runaway = tipped(380, 0.27);
  assert.ok(runaway.causes.some((c) => c.id === 'cuda_graph_fallback'), JSON.stringify(runaway.checked.find((c) => c.id === 'cuda_graph_fallback')));
  // The batch ×1.5 on demand ×1.35: the arrivals grew it, and the ITL that rose with it is read as load.
  const loaded = tipped(32, 0.045);
  assert.ok(!loaded.causes.some((c) => c.id === 'cuda_graph_fallback'), JSON.stringify(loaded.causes.map((c) => c.id)));
});

test("arrivals ×2.5 that the batch took in at its cap, every token ×2.6 slower and only a few requests waiting now and then, are a surge; decode ×6.5 at arrivals ×1.36 is not the load's doing", () => {
  const absorbed = (lamAfter: number, itlAfter: number) =>
    analyze(
      {
        rps: (s) => (after(s) ? lamAfter : 1.4),
        gtok: (s) => (after(s) ? 140 * lamAfter : 196),
        running: (s) => (after(s) ? 60 : 6),
        // Under a quarter of those running, and only a minute in five: the step takes them in.
        waiting: (s) => (after(s) && s % 300 < 60 ? 8 : 0),
        itl: (s) => (after(s) ? [itlAfter, itlAfter * 1.4] : [0.05, 0.07]),
        ttft: (s) => (after(s) ? [0.8, 4] : [0.3, 0.4]),
        queue: (s) => (after(s) ? [0.2, 1] : [0.005, 0.02]),
        e2e: (s) => (after(s) ? [10 * (itlAfter / 0.05), 14 * (itlAfter / 0.05)] : [10, 14]),
      },
      (x) => x.counter('req.arrivals', (s) => (after(s) ? lamAfter : 1.4)),
    );
  const surge = absorbed(3.5, 0.13);
  assert.equal(surge.causes[0]?.id, 'traffic_surge', JSON.stringify(conditionsOf(surge, 'traffic_surge')));
  const slowed = absorbed(1.9, 0.325);
  assert.ok(!slowed.causes.some((c) => c.id === 'traffic_surge'), JSON.stringify(slowed.causes.map((c) => c.id)));
});

test('arrivals x1.75 that an engine bound by its prefill compute serves at its rate, slots and KV to spare, the queue in thousands: a surge where it served more, not where it served the same', () => {
  const grown = (tokensAfter: number) => {
    // Served at most 18/s from 1200 s; 26/s arrive: the queue grows by 8 a second.
    const waiting = (s: number) => (after(s) ? 8 * (s - 1200) : 0);
    return analyze(
      {
        rps: (s) => (after(s) ? 18 : 15),
        gtok: (s) => (after(s) ? tokensAfter : 1850),
        // A peak of 108 an hour before: 90 running is no cap.
        running: (s) => (s >= 600 && s < 630 ? 108 : after(s) ? 90 : 65),
        kv: (s) => (after(s) ? 0.45 : 0.3),
        waiting,
        queue: (s) => (after(s) ? [waiting(s) / 36, waiting(s) / 18] : [0.005, 0.02]),
        ttft: (s) => (after(s) ? [0.4 + waiting(s) / 36, 0.5 + waiting(s) / 18] : [0.3, 0.45]),
        e2e: (s) => (after(s) ? [4 + waiting(s) / 36, 8 + waiting(s) / 18] : [4, 8]),
      },
      (x) => x.counter('req.arrivals', (s) => (after(s) ? 26 : 15)),
    );
  };
  const surge = grown(2300);
  assert.equal(surge.causes[0]?.id, 'traffic_surge', JSON.stringify(conditionsOf(surge, 'traffic_surge')));
  const same = grown(1850);
  assert.ok(!same.causes.some((c) => c.id === 'traffic_surge'), JSON.stringify(same.causes.map((c) => c.id)));
});

test("where SGLang counts its decode passes, whether they went eager decides the CUDA-graph fallback over any inferred cap", () => {
  // The runaway of the test above (arrivals x1.35, the batch x18, ITL x9), now with SGLang's pass counter: every
  // decode pass eager from 1200 s is the fallback; every pass still a graph replay is some other slowdown.
  const withPasses = (eagerAfter: number) =>
    analyze(
      {
        rps: (s) => (after(s) ? 6.75 : 5),
        gtok: (s) => (after(s) ? 2700 : 2000),
        running: (s) => (after(s) ? 380 : 21),
        itl: (s) => (after(s) ? [0.27, 0.38] : [0.029, 0.04]),
        e2e: (s) => (after(s) ? [18, 37] : [2, 4]),
      },
      (x) => {
        x.counter('req.arrivals', (s) => (after(s) ? 6.75 : 5));
        x.counter('engine.graph_passes', (s) => 20 * (after(s) ? eagerAfter : 0), { mode: 'decode_none' });
        x.counter('engine.graph_passes', (s) => 20 * (after(s) ? 1 - eagerAfter : 1), { mode: 'decode_cuda_graph' });
      },
    );
  const eager = withPasses(1);
  const graph = conditionsOf(eager, 'cuda_graph_fallback').find((c) => c.condition.startsWith('where the engine counts'));
  assert.ok(eager.causes.some((c) => c.id === 'cuda_graph_fallback'), JSON.stringify(graph));
  assert.match(String(graph?.value), /^eager decode passes 1 \(baseline 0\)/);
  const replayed = withPasses(0);
  assert.ok(!replayed.causes.some((c) => c.id === 'cuda_graph_fallback'), JSON.stringify(conditionsOf(replayed, 'cuda_graph_fallback')));
});

test('an ITL step at a running level where every request also carries twice the context is no inferred CUDA-graph cap: longer contexts make each decode step heavier', () => {
  for (const [promptAfter, expected] of [[1000, true], [1950, false]] as const) {
    const d = analyze(
      {
        rps: (s) => (after(s) ? 6.75 : 5),
        gtok: (s) => (after(s) ? 2700 : 2000),
        ptok: (s) => (after(s) ? 6.75 * promptAfter : 5000),
        running: (s) => (after(s) ? 380 : 21),
        itl: (s) => (after(s) ? [0.27, 0.38] : [0.029, 0.04]),
        e2e: (s) => (after(s) ? [18, 37] : [2, 4]),
      },
      (x) => {
        x.counter('req.arrivals', (s) => (after(s) ? 6.75 : 5));
        x.histogram('req.prompt_len', (s) => (after(s) ? 6.75 : 5), (s) => (after(s) ? [promptAfter, promptAfter * 2] : [1000, 2000]), [250, 500, 1000, 2000, 4000, 8000, 16000]);
      },
    );
    const fired = d.causes.some((c) => c.id === 'cuda_graph_fallback');
    assert.equal(fired, expected, `prompts ${promptAfter}: ${JSON.stringify(conditionsOf(d, 'cuda_graph_fallback'))}`);
  }
});

test('prompts ×3 at the same arrivals read as long-prompt interference where only end-to-end latency shows the harm', () => {
  // TTFT flat (coarse buckets, or a TGI with none), ITL P99 ×1.4, e2e ×1.5: below the TTFT and ITL ratios.
  const d = analyze({
    ptok: (s) => (after(s) ? 12_000 : 4000),
    itl: (s) => (after(s) ? [0.02, 0.056] : [0.02, 0.04]),
    e2e: (s) => (after(s) ? [3, 6] : [2, 4]),
  });
  const symptom = conditionsOf(d, 'long_prompt_interference').find((c) => c.condition.startsWith('r(ttft)'));
  assert.equal(d.causes[0]?.id, 'long_prompt_interference', JSON.stringify(d.checked.find((c) => c.id === 'long_prompt_interference')));
  assert.match(String(symptom?.value), /itl99 1\.[0-5]\d*, e2e 1\.[4-6]/);
});

test('prompt tokens ×5.4 while arrivals read ×1.35 are long prompts (they grew far more than the arrivals); prompt tokens that grew with arrivals ×1.6 are not', () => {
  for (const [lam, ptok, expected] of [[1.35, 5.4, true], [1.6, 1.8, false]] as const) {
    const d = analyze(
      { ptok: (s) => (after(s) ? 4000 * ptok : 4000), ttft: (s) => (after(s) ? [0.2, 2] : [0.1, 0.5]), e2e: (s) => (after(s) ? [4, 9] : [2, 4]) },
      (x) => x.counter('req.arrivals', (s) => (after(s) ? 5 * lam : 5)),
    );
    const fired = d.causes.some((c) => c.id === 'long_prompt_interference');
    assert.equal(fired, expected, `arrivals x${lam}, prompt tokens x${ptok}: ${JSON.stringify(conditionsOf(d, 'long_prompt_interference'))}`);
  }
});

test('GPU util falling with the batch as traffic thins, nothing waiting, is no starved GPU where only the TTFT tail moved; every first token later at the same thinning is', () => {
  // A thin engine's P99 is its slowest request or two: at 0.5 req/s the TTFT P99 read ×1.8 with the mean flat.
  for (const [ttftMean, expected] of [[0.08, false], [0.13, true]] as const) {
    const d = analyze({
      rps: (s) => (after(s) ? 2.75 : 5),
      gtok: (s) => (after(s) ? 1100 : 2000),
      ptok: (s) => (after(s) ? 2200 : 4000),
      running: (s) => (after(s) ? 11 : 20),
      util: (s) => (after(s) ? 0.5 : 0.9),
      ttft: (s) => (after(s) ? [ttftMean, 0.36] : [0.08, 0.2]),
    });
    const fired = d.causes.some((c) => c.id === 'cpu_frontend_bottleneck');
    assert.equal(fired, expected, `TTFT mean ${ttftMean}: ${JSON.stringify(conditionsOf(d, 'cpu_frontend_bottleneck'))}`);
  }
});

test('at 1 request/s a TTFT P99 that one slow request a window lifts is no latency alert; the same P99 with every first token slower is', () => {
  // Ten requests a window: the P99 is the slowest of them. 20 minutes of a tail ×7.5; the body (P50) flat or ×1.5.
  const tail = (s: number) => s >= 3000 && s < 4200;
  const run = (p50: number) => analyze({ rps: () => 1, gtok: () => 400, ttft: (s) => (tail(s) ? [p50, 1.5] : [0.08, 0.2]) }, undefined, 7200);
  const lone = run(0.08);
  assert.deepEqual([lone.status, lone.alerts.filter((a) => a.family === 'latency').length], ['healthy', 0], JSON.stringify(lone.alerts));
  const body = run(0.12);
  assert.ok(body.alerts.some((a) => a.family === 'latency'), JSON.stringify(body.alerts));
});

test("a healthy day whose e2e P99 jumps a histogram bucket on one slow request a window sits in the healthy quadrant; every request slower leaves it", () => {
  // 1.8 requests/s: a window's P99 is the slowest of a few dozen requests, read between the 10 and 20 s buckets.
  const healthyShare = (ws: Diagnosis['windows'], from: number) => {
    const after = ws.filter((w) => w.t_ms >= T0 + from * 1000);
    return after.filter((w) => w.quadrant === 'healthy').length / after.length;
  };
  const steady = analyze({ rps: () => 1.8, gtok: () => 720, e2e: () => [3.5, 12] }, undefined, 7200).windows;
  assert.ok(healthyShare(steady, 0) >= 0.95, `healthy share ${healthyShare(steady, 0)}`);
  // The same request count a window, every request twice as slow from 5400 s: its P99 rise is backed by the mean.
  const slower = analyze({ rps: () => 1.8, gtok: () => 720, e2e: (s) => (s >= 5400 ? [4, 8] : [2, 4]) }, undefined, 7200).windows;
  assert.ok(healthyShare(slower, 5700) <= 0.2, `healthy share after the slowdown ${healthyShare(slower, 5700)}`);
});

test('eight requests queued for three minutes at a busier hour (KV at 8%) are a burst the engine absorbed; the same queue standing for fifteen minutes is a surge', () => {
  // Arrivals ×1.4 from 7200 s, served; queue time and TTFT up for ten minutes; requests waiting for 3 or 15 min of it.
  const lam = (s: number) => (s < 7200 ? 2.5 : 3.5);
  const run = (queueEnd: number) => {
    const q = (s: number) => s >= 7200 && s < queueEnd;
    const slow = (s: number) => s >= 7200 && s < 7800;
    return analyze(
      {
        rps: lam,
        gtok: (s) => 170 * lam(s),
        kv: () => 0.08,
        running: (s) => (q(s) ? 14 : 10),
        waiting: (s) => (q(s) ? 8 : 0),
        queue: (s) => (slow(s) ? [0.5, 2] : [0.005, 0.02]),
        ttft: (s) => (slow(s) ? [0.6, 2.2] : [0.08, 0.2]),
        e2e: () => [3.5, 9.5],
      },
      (x) => x.counter('req.arrivals', lam),
      14_400,
    );
  };
  const burst = run(7380);
  assert.ok(!burst.causes.some((c) => c.id === 'traffic_surge'), JSON.stringify(conditionsOf(burst, 'traffic_surge')));
  const held = run(8100);
  assert.equal(held.causes[0]?.id, 'traffic_surge', JSON.stringify(conditionsOf(held, 'traffic_surge')));
});

test('GPU util down x0.65 while SM activity holds is no starved GPU; SM activity down with it is', () => {
  // Every request twice as slow from 1200 s (its first token not: no front gap), requests waiting; util falls either way (on bursty traffic its
  // median jumps between the on and off windows), SM activity — the finer reading — only in the second run.
  for (const [smAfter, expected] of [[0.24, false], [0.14, true]] as const) {
    const d = analyze(
      {
        util: (s) => (after(s) ? 0.55 : 0.85),
        waiting: (s) => (after(s) ? 4 : 0),
        e2e: (s) => (after(s) ? [4, 8] : [2, 4]),
      },
      (x) => x.gauge('gpu.sm_active', (s) => (after(s) ? smAfter : 0.25), { gpu: '0' }),
    );
    const starved = conditionsOf(d, 'cpu_frontend_bottleneck').find((c) => c.condition.startsWith('GPU starved'));
    assert.equal(d.causes.some((c) => c.id === 'cpu_frontend_bottleneck'), expected, `SM active ${smAfter}: ${JSON.stringify(starved ?? conditionsOf(d, 'cpu_frontend_bottleneck'))}`);
  }
});

/** Four hours: traffic climbs from the morning's level to x`rise` and back (peak 0..1), the occasional request queuing at the peak. */
const peakOf = (s: number) => (s < 3600 || s > 10800 ? 0 : Math.sin(((s - 3600) / 7200) * Math.PI));
function peakDay(rise: number, more: (peak: (s: number) => number) => ServingShape = () => ({})): Diagnosis {
  const load = (s: number) => 1 + rise * peakOf(s);
  return analyze(
    {
      rps: (s) => 5 * load(s),
      gtok: (s) => 2000 * load(s),
      ptok: (s) => 4000 * load(s),
      running: (s) => Math.round(20 * load(s)),
      ttft: (s) => [0.08 + 0.02 * peakOf(s), 0.2 + 0.8 * peakOf(s)],
      queue: (s) => [0.005 + 0.01 * peakOf(s), 0.02 + 0.8 * peakOf(s)],
      ...more(peakOf),
    },
    undefined,
    14400,
  );
}

const healthyOrWhy = (d: Diagnosis) => JSON.stringify({ causes: d.causes.map((c) => c.id), u: d.unexplained?.evidence.map((e) => e.text) });

test("the day's peak served in step (arrivals x1.5, tokens/s with them, nothing waiting) with the TTFT tail up is healthy; the same tail at flat traffic is not", () => {
  const day = peakDay(0.5);
  assert.equal(day.status, 'healthy', healthyOrWhy(day));
  const flat = peakDay(0);
  assert.notEqual(flat.status, 'healthy', JSON.stringify(flat.alerts));
});

test("the day's peak served in step with two requests waiting beside thirty running is healthy; a backlog as large as the batch is not", () => {
  // The peak's arrivals x1.5 served, with requests waiting at the peak: a few that the next steps take in, or a pile.
  const run = (waitingAtPeak: number) => peakDay(0.5, (peak) => ({ waiting: (s) => Math.round(waitingAtPeak * peak(s)) }));
  const few = run(2);
  assert.equal(few.status, 'healthy', healthyOrWhy(few));
  const pile = run(30);
  assert.notEqual(pile.status, 'healthy', JSON.stringify(pile.alerts));
});

test("the day's peak served in step with every token twice as slow at the median is a slower engine, not a busier one", () => {
  // Arrivals x1.5 served with nothing waiting; decode (ITL) rises with the peak to 1 + `itlRise` at its top, e2e with it.
  const run = (itlRise: number) =>
    peakDay(0.5, (peak) => {
      const slow = (s: number) => 1 + itlRise * peak(s);
      return { running: (s) => Math.round(20 * (1 + 0.5 * peak(s)) * slow(s)), itl: (s) => [0.02 * slow(s), 0.04 * slow(s)], e2e: (s) => [2 * slow(s), 4 * slow(s)] };
    });
  const busier = run(0.2);
  assert.equal(busier.status, 'healthy', healthyOrWhy(busier));
  const slower = run(1.5);
  assert.notEqual(slower.status, 'healthy', JSON.stringify(slower.alerts));
});

test("an evening peak of arrivals x5 that decodes twice as slow at its top is the load's: a memory-bound step slows by less than its batch grew", () => {
  const run = (rise: number) =>
    peakDay(rise, (peak) => {
      const slow = (s: number) => 1 + peak(s);
      return { running: (s) => Math.round(20 * (1 + rise * peak(s)) * slow(s)), itl: (s) => [0.02 * slow(s), 0.04 * slow(s)], e2e: (s) => [2 * slow(s), 4 * slow(s)] };
    });
  const evening = run(4);
  assert.equal(evening.status, 'healthy', healthyOrWhy(evening));
  // The same slowdown at arrivals x1.05: no load to explain it.
  const flat = run(0.05);
  assert.notEqual(flat.status, 'healthy', JSON.stringify(flat.alerts));
});

test("a server leaking into its host's memory, read off node_exporter where the server exports no RSS: MemTotal − MemAvailable climbing is the leak; the same host steady is not", () => {
  const GiB = 2 ** 30;
  for (const leaking of [true, false]) {
    const d = analyze({}, (x) => {
      // 64 GiB host, 12 GiB in use; from 1200 s the server grows 200 MiB a minute (~3.9 GiB by the end: more than a
      // quarter of what the host held, the floor a process's own RSS is held to).
      const used = (s: number) => 12 * GiB + (leaking && after(s) ? ((s - 1200) / 60) * 200 * 2 ** 20 : 0);
      x.gauge('host.mem_total', () => 64 * GiB, { instance: 'gpu-1:9100' });
      x.gauge('host.mem_available_bytes', (s) => 64 * GiB - used(s), { instance: 'gpu-1:9100' });
    });
    const leak = conditionsOf(d, 'host_memory_leak').find((c) => c.condition.startsWith('slope(rss)'));
    assert.equal(leak?.held ?? false, leaking, `${leaking ? 'leaking' : 'steady'}: ${JSON.stringify(conditionsOf(d, 'host_memory_leak'))}`);
  }
});

test('host RSS that grew 2 GiB to its limit, killed and reloaded a quarter lower (no jump by itself), is read over the life that grew where the restart is known', () => {
  // 6 GiB; from 700 s +125 MiB/min to 8 GiB at 1680 s; the process is killed and a new one starts at 1800 s at 6 GiB.
  const GiB = 2 ** 30;
  const rss = (s: number) => (s < 700 ? 6 * GiB : s < 1680 ? 6 * GiB + ((s - 700) / 60) * 125 * 2 ** 20 : s < 1800 ? null : 6 * GiB + ((s - 1800) / 60) * 2 ** 20);
  for (const known of [true, false]) {
    const d = analyze({}, (x) => {
      x.gauge('host.rss', rss);
      if (known) x.event(1800, { kind: 'engine_start', severity: 'info', line: 1, text: 'vLLM API server version 0.10.1', attrs: {} });
    });
    const leak = conditionsOf(d, 'host_memory_leak').find((c) => c.condition.startsWith('slope(rss)'));
    assert.equal(leak?.held ?? false, known, `restart ${known ? 'known' : 'unknown'}: ${JSON.stringify(leak)}`);
  }
});

test('an ITL step a minute before the batch settles past a logged CUDA-graph cap lines up with it; one ten minutes before does not', () => {
  // A capture max of 48 in the engine's log; running steps from 30 to 60 at 1300 s; ITL ×1.8 from `stepAt`.
  const fallback = (stepAt: number) =>
    analyze(
      {
        running: (s) => (s >= 1300 ? 60 : 30),
        itl: (s) => (s >= stepAt ? [0.036, 0.072] : [0.02, 0.04]),
        e2e: (s) => (s >= stepAt ? [3.6, 7.2] : [2, 4]),
      },
      (x) => x.gauge('engine.cuda_graph_max', () => 48),
    );
  const near = fallback(1240);
  assert.equal(near.causes[0]?.id, 'cuda_graph_fallback', JSON.stringify(conditionsOf(near, 'cuda_graph_fallback')));
  const far = fallback(700);
  assert.ok(!far.causes.some((c) => c.id === 'cuda_graph_fallback'), JSON.stringify(far.causes.map((c) => c.id)));
});

test('the crossing of a CUDA-graph cap read is the one the ITL step lines up with, not a brush of the cap an hour before it', () => {
  // Windows a minute apart: running brushes a cap of 64 at minute 2, crosses for good at minute 7.
  const runMax = Float64Array.from([40, 48, 70, 48, 45, 50, 52, 120, 130, 125]);
  const t = Float64Array.from(runMax, (_, i) => T0 + i * 60_000);
  const c = { span: [0, runMax.length - 1], f: { runMax, t } } as unknown as CauseContext;
  assert.equal(crossingNear(c, 64, T0 + 7 * 60_000), T0 + 7 * 60_000);
  assert.equal(crossingNear(c, 64, null), T0 + 2 * 60_000);
});

test("a pool filled by prompts x1.9 as arrivals stepped x1.28 is no surge, though the day's traffic doubled over the hours after", () => {
  const step = (s: number) => s >= 2400;
  const day = (s: number) => 1 + s / 14400;
  const rps = (s: number) => 5 * day(s) * (step(s) ? 1.28 : 1);
  const prompt = (s: number) => (step(s) ? 780 : 410);
  const d = analyze(
    {
      rps,
      gtok: (s) => rps(s) * 400,
      ptok: (s) => rps(s) * prompt(s),
      kv: (s) => (step(s) ? 0.99 : 0.2),
      running: (s) => (step(s) ? 256 : 40),
      waiting: (s) => (step(s) ? Math.min(2000, (s - 2400) / 2) : 0),
      queue: (s) => (step(s) ? [20, 60] : [0.005, 0.02]),
      e2e: (s) => (step(s) ? [40, 120] : [2, 4]),
      ttft: (s) => (step(s) ? [20, 60] : [0.08, 0.2]),
      preemptRate: (s) => (step(s) ? 2 : 0),
    },
    (x) => x.counter('req.arrivals', rps),
    14400,
  );
  const veto = conditionsOf(d, 'traffic_surge').find((c) => c.condition.startsWith('KV full with requests grown'));
  assert.ok(!d.causes.some((c) => c.id === 'traffic_surge') || veto?.held, JSON.stringify(conditionsOf(d, 'traffic_surge')));
  assert.notEqual(d.causes[0]?.id, 'traffic_surge', JSON.stringify(d.causes.map((c) => c.id)));
});

test('a prefix-cache hit rate falling from 0.55 to 0.08 is a collapse though the saturated engine prefills prompts at 0.73x the rate: each request computes twice its tokens', () => {
  const d = analyze(
    { ttft: (s) => (after(s) ? [0.5, 2] : [0.08, 0.2]), rps: (s) => (after(s) ? 3.65 : 5), ptok: (s) => (after(s) ? 2920 : 4000) },
    (x) => {
      x.counter('kv.prefix_queries', (s) => (after(s) ? 2920 : 4000));
      x.counter('kv.prefix_hits', (s) => (after(s) ? 2920 * 0.08 : 4000 * 0.55));
    },
  );
  assert.ok(d.causes.some((c) => c.id === 'prefix_cache_collapse'), JSON.stringify(conditionsOf(d, 'prefix_cache_collapse')));
});

test('a step read off windows that overlap by half is dated where it happened, not half a window before', () => {
  // Two-minute windows a minute apart, each the mean of [t, t + W); the level steps from 0.3 to 1 at 1830 s.
  const W = 120_000;
  const step = 60_000;
  const n = 60;
  const at = 1_830_000;
  const t = Float64Array.from({ length: n }, (_, i) => i * step);
  const x = Float64Array.from(t, (ti) => 0.3 + 0.7 * Math.min(1, Math.max(0, (ti + W - at) / W)));
  const c = { f: { t, grid: { t0: 0, W, step, n } }, base: [0, 9], span: [10, n - 1] } as unknown as CauseContext;
  const onset = departureOnset(c, x, 1, (i) => x[i] >= 0.9)!;
  assert.ok(Math.abs(onset - at) <= W / 4, `dated ${(onset - at) / 1000} s from the step`);
});

test("a KV block leak whose first idle step is a tenth of a percent of the pool is dated at that step, not at the next idle gap's larger one", () => {
  // Idle for 40 s every 600 s; from 2350 s a few aborts leak 0.14% of the pool, then 1.3% a gap from 2700 s on.
  const idle = (s: number) => s % 600 < 40;
  const floor = (s: number) => 0.0145 + (s >= 2350 ? 0.0014 : 0) + (s >= 2700 ? (0.013 * (s - 2700)) / 600 : 0);
  const d = analyze({ running: (s) => (idle(s) ? 0 : 20), waiting: () => 0, kv: (s) => (idle(s) ? floor(s) : 0.4 + floor(s)) }, undefined, 7200);
  const leak = d.causes.find((c) => c.id === 'kv_block_leak');
  assert.ok(leak, JSON.stringify(d.checked.find((c) => c.id === 'kv_block_leak')));
  assert.ok(leak.onset_ms! <= T0 + 2450_000, `leak onset ${(leak.onset_ms! - T0) / 1000} s`);
});

test("host RSS summed over pods while a rollout overlaps an old pod with a new one rises a quarter in one reading: a step, not a leak", () => {
  // 30 s scrapes of 11.43 GB (±2 MB; 11.38-11.44 GB between the two starts); new pods start at 1790 and 1915 s; the reading at 1890 s holds an old pod
  // beside the new one (14.29 GB: a quarter above the life's first reading, just under the cut a jump makes), the next ones the fleet as before.
  const level = (s: number) => ({ 1800: 11.38e9, 1830: 11.4e9, 1860: 11.44e9, 1890: 14.29e9 })[s] ?? 11.43e9 + ((s / 30) % 5) * 5e5;
  const d = analyze({}, (x) => {
    x.gauge('host.rss', (s) => (s % 30 === 0 ? level(s) : null));
    for (const at of [1790, 1915]) x.event(at, { kind: 'engine_start', severity: 'info', line: 1, text: 'vLLM API server version 0.11.2', attrs: {} });
  });
  const leak = conditionsOf(d, 'host_memory_leak').find((c) => c.condition.startsWith('slope(rss)'));
  assert.equal(leak?.held ?? false, false, JSON.stringify(leak));
});

test('a rollout scraped every 5 minutes is a deploy: ten minutes of data before it are the two windows there are, not the start of the recording', () => {
  // 12 h at 300 s scrapes; a new version starts at 6 h and decodes 1.5x slower at the same load (more requests in flight).
  const ts = tempStore();
  try {
    const slow = (s: number) => (s >= 21_600 ? 1.5 : 1);
    const x = servingIncident(ts.store, 43_200, { itl: (s) => [0.02 * slow(s), 0.04 * slow(s)], e2e: (s) => [2 * slow(s), 4 * slow(s)], running: (s) => 20 * slow(s) }, 7, 300);
    x.event(21_590, { kind: 'engine_start', severity: 'info', line: 1, text: 'vLLM API server version 0.11.0', attrs: { version: '0.11.0' } });
    x.event(21_590, { kind: 'version', severity: 'info', line: 1, text: 'vLLM API server version 0.11.0', attrs: { version: '0.11.0' } });
    const d = analyzeIncidentDetailed(ts.store, x.done()).diagnosis;
    assert.ok(d.causes.some((c) => c.id === 'deploy_regression'), JSON.stringify(conditionsOf(d, 'deploy_regression')));
  } finally {
    ts.dispose();
  }
});

test('a deploy after which requests wait in the queue at the same load, decode no slower, is a regression: queue time is one of its KPIs', () => {
  // A new version at 1200 s admits fewer requests at once: queue P50/P99 0.005/0.02 s -> 0.4/1.6 s; ITL, arrivals and
  // lengths as before; long answers (e2e 20-40 s) hide the wait in e2e (+10%), and no TTFT is exported (TGI).
  const d = analyze({ queue: (s) => (after(s) ? [0.4, 1.6] : [0.005, 0.02]), e2e: (s) => (after(s) ? [21, 44] : [20, 40]), ttft: null, waiting: (s) => (after(s) ? 3 : 0) }, (x) => {
    x.event(1190, { kind: 'engine_start', severity: 'info', line: 1, text: 'vLLM API server version 0.11.0', attrs: { version: '0.11.0' } });
    x.event(1190, { kind: 'version', severity: 'info', line: 1, text: 'vLLM API server version 0.11.0', attrs: { version: '0.11.0' } });
  });
  const kpi = conditionsOf(d, 'deploy_regression').find((c) => c.condition.startsWith('≥ 20% change-point'));
  assert.ok(d.causes.some((c) => c.id === 'deploy_regression'), JSON.stringify(conditionsOf(d, 'deploy_regression')));
  assert.ok(kpi === undefined || /q99/.test(String(kpi.value)), JSON.stringify(kpi));
});

test('a new version that takes fewer requests at once shows at the next peak: requests wait at a batch below the one served with no queue before the change, at the same load', () => {
  // 5 req/s (20 running); a peak at 7.5 req/s before the change ran 30 at once with no queue; 0.11.0 at 1800 s takes
  // at most 24, so the same peak from 3500 s leaves 10 waiting. Lengths unchanged; decode no slower.
  const peak = (s: number) => (s >= 700 && s < 1000) || s >= 3500;
  const rps = (s: number) => (peak(s) ? 7.5 : 5);
  const run = (version: string) => {
    const ts = tempStore();
    try {
      const capped = (s: number) => s >= 1800;
      const x = servingIncident(ts.store, 4400, {
        rps,
        gtok: (s) => rps(s) * 400,
        ptok: (s) => rps(s) * 800,
        running: (s) => (peak(s) ? (capped(s) ? 24 : 30) : 20),
        waiting: (s) => (peak(s) && capped(s) ? 10 : 0),
        queue: (s) => (peak(s) && capped(s) ? [1, 3] : [0.005, 0.02]),
        e2e: (s) => (peak(s) && capped(s) ? [3, 7] : [2, 4]),
        ttft: (s) => (peak(s) && capped(s) ? [1.1, 3.2] : [0.08, 0.2]),
      }, 7, 5);
      for (const [at, v] of [[5, '0.10.1'], [1800, version]] as const) {
        x.event(at, { kind: 'engine_start', severity: 'info', line: 1, text: `vLLM API server version ${v}`, attrs: { version: v } });
        x.event(at, { kind: 'version', severity: 'info', line: 1, text: `vLLM API server version ${v}`, attrs: { version: v } });
      }
      return analyzeIncidentDetailed(ts.store, x.done()).diagnosis;
    } finally {
      ts.dispose();
    }
  };
  const d = run('0.11.0');
  const kpi = conditionsOf(d, 'deploy_regression').find((c) => c.condition.startsWith('≥ 20% change-point'));
  assert.ok(d.causes.some((c) => c.id === 'deploy_regression'), JSON.stringify(conditionsOf(d, 'deploy_regression')));
  assert.match(String(kpi?.value), /^batch ceiling \(running 30 → 24/);
  // The same ceiling after a restart with the version it had: that restart changed nothing, the ceiling is not its doing.
  const same = run('0.10.1');
  assert.ok(!same.causes.some((c) => c.id === 'deploy_regression'), JSON.stringify(conditionsOf(same, 'deploy_regression')));
});

test("a host's memory in use climbing 3 GiB (a tenth of what it held) into an OOM kill of the server is a leak; the same climb with no kill is the drift a big host shows", () => {
  // 50 GiB host, 36 GiB in use (weights staged, page cache); from 1200 s the server grows 150 MiB a minute to ~3 GiB
  // by 2400 s, short of the quarter of the host's use that an unproven climb must reach; a container's OOM killer
  // kills it at 2380 s, with the host's own memory still 20% free (a cgroup limit, not the host running dry).
  const GiB = 2 ** 30;
  for (const killed of [true, false]) {
    const d = analyze({}, (x) => {
      const used = (s: number) => 36 * GiB + (after(s) ? ((s - 1200) / 60) * 150 * 2 ** 20 : 0);
      x.gauge('host.mem_total', () => 50 * GiB, { instance: 'gpu-1:9100' });
      x.gauge('host.mem_available_bytes', (s) => 50 * GiB - used(s), { instance: 'gpu-1:9100' });
      if (killed) x.event(2380, { kind: 'host_oom_kill', severity: 'critical', line: 1, text: 'Out of memory: Killed process 18822 (python3) total-vm:14870636kB, anon-rss:7081255kB', attrs: {} });
    });
    const leak = conditionsOf(d, 'host_memory_leak').find((c) => c.condition.startsWith('slope(rss)'));
    assert.equal(leak?.held ?? false, killed, `${killed ? 'killed' : 'no kill'}: ${JSON.stringify(conditionsOf(d, 'host_memory_leak'))}`);
  }
});

test("a gateway holding each served request 1.2 s longer than its engine took (request_time − upstream_response_time), the engine's latency flat, is network/client slowness; the same gateway at its 15 ms is not", () => {
  // The gateway's per-second mean extra time: ~15 ms, then from 1200 s ~1.2 s (a cross-region client, a connection pool
  // at its cap); the engine serves as before. No client spans: the gateway's log is the only view from outside.
  for (const slow of [true, false]) {
    const d = analyze({}, (x) => x.gauge('gateway.extra', (s) => (slow && after(s) ? 1.2 : 0.015) * x.noise(0.2), { metric: 'access-log' }));
    assert.equal(d.causes.some((c) => c.id === 'network_client_slowness'), slow, `${slow ? 'slow' : 'steady'}: ${JSON.stringify(d.checked.find((c) => c.id === 'network_client_slowness'))}`);
  }
});

test("the day's peak served in step whose prompts grew half again (the TTFT tail up with them) is a changed workload, not a busier engine", () => {
  // Arrivals x1.5 at the peak, served, nothing waiting; prompt tokens per request from ×1 to ×`longer` with the peak.
  const run = (longer: number) => peakDay(0.5, (peak) => ({ ptok: (s) => 4000 * (1 + 0.5 * peak(s)) * (1 + (longer - 1) * peak(s)) }));
  const same = run(1.05);
  assert.equal(same.status, 'healthy', healthyOrWhy(same));
  const grown = run(1.5);
  assert.notEqual(grown.status, 'healthy', JSON.stringify(grown.alerts));
});

test('decode ×1.25 beside two ranks whose temperatures part ×1.16–1.2 is a straggler where they were even before, not where they already parted ×1.14 in the baseline', () => {
  // The engine's GPU 0 runs at 65 °C (servingIncident); rank 1 at 65 °C × `before`, then × `after` from 1200 s on.
  for (const [before, afterSpread, expected] of [[1.0, 1.2, true], [1.14, 1.16, false]] as const) {
    const d = analyze({ itl: (s) => (after(s) ? [0.025, 0.05] : [0.02, 0.04]) }, (x) => {
      const rank1 = { gpu: '1' };
      x.gauge('gpu.temp', (s) => 65 * (after(s) ? afterSpread : before), rank1);
      x.gauge('gpu.sm_clock', () => 1980, rank1);
      x.gauge('gpu.power', () => 550, rank1);
    });
    assert.equal(d.causes.some((c) => c.id === 'tp_straggler'), expected, `${before} → ${afterSpread}: ${JSON.stringify(conditionsOf(d, 'tp_straggler'))}`);
  }
});

test("two replicas' pairs of GPUs on one node that part (one pair's load falls) are no straggler; one rank parting from the three others is", () => {
  // GPU 0 runs at 65 °C (servingIncident), GPU 1 beside it; GPUs 2 and 3 at 65 °C, then × 0.8 from 1200 s on: both
  // (another replica's pair, its load fallen) or GPU 3 alone (one rank). Decode ×1.25 either way.
  for (const [parted, expected] of [[['2', '3'], false], [['3'], true]] as const) {
    const d = analyze({ itl: (s) => (after(s) ? [0.025, 0.05] : [0.02, 0.04]) }, (x) => {
      for (const gpu of ['1', '2', '3']) {
        const moves = (parted as readonly string[]).includes(gpu);
        x.gauge('gpu.temp', (s) => 65 * (moves && after(s) ? 0.8 : 1), { gpu });
        x.gauge('gpu.sm_clock', () => 1980, { gpu });
        x.gauge('gpu.power', () => 550, { gpu });
      }
    });
    assert.equal(d.causes.some((c) => c.id === 'tp_straggler'), expected, `GPUs ${parted.join(', ')} parted: ${JSON.stringify(conditionsOf(d, 'tp_straggler'))}`);
  }
});

test('prompts and answers ×1.7 at the same arrivals fill the pool with bigger requests: kv_bloat, not a drift; lengths ×1.3 with arrivals ×1.2 fill it with more requests: kv_exhaustion; both at once are no bloat', () => {
  // Each running request holds KV in proportion to its tokens: KV per running request moves with the lengths.
  const run = (longer: number, arrivals: number, kvBefore: number, running: number): Diagnosis =>
    analyze({
      rps: (s) => 5 * (after(s) ? arrivals : 1),
      ptok: (s) => 4000 * (after(s) ? arrivals * longer : 1),
      gtok: (s) => 2000 * (after(s) ? arrivals * longer : 1),
      kv: (s) => (after(s) ? 0.96 : kvBefore),
      running: (s) => (after(s) ? running : 20),
      waiting: (s) => (after(s) ? 30 : 0),
      preemptRate: (s) => (after(s) ? 0.5 : 0),
      itl: (s) => (after(s) ? [0.03, 0.06] : [0.02, 0.04]),
      e2e: (s) => (after(s) ? [8, 20] : [2, 4]),
    });
  const bigger = run(1.7, 1, 0.3, 34);
  assert.equal(bigger.causes[0]?.id, 'kv_bloat', JSON.stringify([bigger.causes.map((c) => c.chain), conditionsOf(bigger, 'kv_bloat'), conditionsOf(bigger, 'workload_drift')]));
  const more = run(1.3, 1.2, 0.6, 32);
  assert.equal(more.causes[0]?.id, 'kv_exhaustion', JSON.stringify(more.causes.map((c) => c.chain)));
  assert.ok(!more.causes.some((c) => c.id === 'kv_bloat'), JSON.stringify(conditionsOf(more, 'kv_bloat')));
  // Bigger and more: prompts ×1.7 with arrivals ×1.3 hold the same larger share each, but the pool ran out under both.
  const both = run(1.7, 1.3, 0.3, 44);
  assert.ok(!both.causes.some((c) => c.id === 'kv_bloat'), JSON.stringify(conditionsOf(both, 'kv_bloat')));
});

test("GPUs that dcgm-exporter attributes to different pods are different replicas, not ranks: one parting is no straggler; within one pod it is", () => {
  // GPUs 1–3 on one node; GPU 3's temperature parts × 0.8 from 1200 s on, decode ×1.25. Each in its own pod
  // (tensor-parallel size 1 per replica), or all three in one pod (its ranks).
  for (const [pods, expected] of [[['a', 'b', 'c'], false], [['a', 'a', 'a'], true]] as const) {
    const d = analyze({ itl: (s) => (after(s) ? [0.025, 0.05] : [0.02, 0.04]) }, (x) => {
      ['1', '2', '3'].forEach((gpu, k) => {
        const labels = { gpu, Hostname: 'node-a', pod: `serve-${pods[k]}` };
        x.gauge('gpu.temp', (s) => 65 * (gpu === '3' && after(s) ? 0.8 : 1), labels);
        x.gauge('gpu.sm_clock', () => 1980, labels);
        x.gauge('gpu.power', () => 550, labels);
      });
    });
    assert.equal(d.causes.some((c) => c.id === 'tp_straggler'), expected, `pods ${pods.join(', ')}: ${JSON.stringify(conditionsOf(d, 'tp_straggler'))}`);
  }
});

test("a new client's documents riding a fifth more requests double prompt tokens/s (×1.75 per arrival): long prompts; the same arrivals with prompts ×1.5 per arrival are not", () => {
  // The long prompts are the added requests: arrivals ×1.2, prompt tokens/s ×2.1 (the design's r(ptok) ≥ 2 at
  // arrivals ≤ 1.3) — or ×1.8, every prompt a half longer, which is no interference.
  for (const [ptok, expected] of [[2.1, true], [1.8, false]] as const) {
    const d = analyze(
      { ptok: (s) => (after(s) ? 4000 * ptok : 4000), ttft: (s) => (after(s) ? [0.3, 1.5] : [0.1, 0.5]), e2e: (s) => (after(s) ? [4, 9] : [2, 4]) },
      (x) => x.counter('req.arrivals', (s) => (after(s) ? 6 : 5)),
    );
    const fired = d.causes.some((c) => c.id === 'long_prompt_interference');
    assert.equal(fired, expected, `prompt tokens x${ptok}: ${JSON.stringify(conditionsOf(d, 'long_prompt_interference'))}`);
  }
});
