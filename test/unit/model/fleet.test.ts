// Fleet-aware analysis on a real SQLite workspace: four replicas, one of which hangs. Summed over the
// fleet the hang is a quarter of the tokens gone; per instance it is a hang, on that instance.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from '../../../node/engine/store/store';
import { analyzeIncident, analyzeIncidentDetailed } from '../../../node/engine/model/diagnose';
import { instanceGroups, mergeFleet, sameProcessName, signalsFor } from '../../../node/engine/model/fleet';
import type { LoadedSeries, Signals } from '../../../node/engine/model/signals-from-store';
import type { CauseId, CauseResult, Diagnosis } from '../../../common/contract/diagnosis';
import type { EventRow } from '../../../common/contract/types';
import { SyntheticIncident, T0 } from '../../helpers/synthetic-incident';

function fleet(hung: string | null): { file: string; id: number; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'qs-fleet-'));
  const file = join(dir, 'ws.db');
  const store = new Store(file);
  const x = new SyntheticIncident(store, 1800, 5, 11);
  for (const instance of ['10.0.0.1:8000', '10.0.0.2:8000', '10.0.0.3:8000', '10.0.0.4:8000']) {
    const bad = instance === hung;
    const labels = { instance, pod: `vllm-${instance.slice(7, 8)}` };
    x.counter('tokens.generation', (s) => (bad && s >= 1000 ? 0 : 2000 * x.noise(0.05)), labels);
    x.counter('req.finished', (s) => (bad && s >= 1000 ? 0 : 5 * x.noise(0.05)), { ...labels, reason: 'stop' });
    x.gauge('req.running', (s) => (bad && s >= 1000 ? 24 : Math.round(20 * x.noise(0.1))), labels);
    x.gauge('req.waiting', (s) => (bad && s >= 1000 ? Math.min(40, (s - 1000) / 10) : 0), labels);
    x.gauge('kv.usage', () => 0.4 * x.noise(0.05), labels);
  }
  const id = x.done();
  store.close();
  return { file, id, dir };
}

test('one hung replica of four is found as engine_hang on that instance, with per-instance results', () => {
  const { file, id, dir } = fleet('10.0.0.3:8000');
  try {
    const store = new Store(file);
    const d = analyzeIncident(store, id);
    store.close();
    assert.equal(d.causes[0]?.id, 'engine_hang', JSON.stringify(d.causes.map((c) => c.id)));
    assert.deepEqual(d.causes[0].instances, ['10.0.0.3:8000']);
    assert.equal(d.instances?.length, 4);
    assert.deepEqual(d.instances?.filter((i) => i.causes.includes('engine_hang')).map((i) => i.instance), ['10.0.0.3:8000']);
    assert.ok(Math.abs(d.onset_ms! - (T0 + 1_000_000)) <= 60_000, `onset ${(d.onset_ms! - T0) / 1000} s`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a healthy fleet of four is healthy, instance by instance', () => {
  const { file, id, dir } = fleet(null);
  try {
    const store = new Store(file);
    const d = analyzeIncident(store, id);
    store.close();
    assert.equal(d.status, 'healthy', JSON.stringify(d.unexplained));
    assert.deepEqual(d.causes, []);
    assert.ok(d.instances?.every((i) => i.status === 'healthy'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a cause only the pooled series show ranks after the causes an instance shows on its own data, unless no instance could assess it', () => {
  const cause = (id: CauseId) => ({ id, chain: [id], confidence: 0.8, onset_ms: T0, require: [], support: [], veto: [], evidence: [] }) as unknown as CauseResult;
  const diag = (causes: CauseResult[]) => ({ causes, status: causes.length ? 'explained' : 'healthy', onset_ms: T0, unexplained: null, checked: [], windows: [] }) as unknown as Diagnosis;
  const group = (key: string) => ({ key, ids: new Set([key]) });
  // deploy_regression outranks kv_exhaustion by precedence; only the fleet's pooled series show it.
  const merged = mergeFleet(diag([cause('deploy_regression'), cause('kv_exhaustion')]), [
    { group: group('a'), d: diag([cause('kv_exhaustion')]) },
    { group: group('b'), d: diag([cause('kv_exhaustion')]) },
  ]);
  assert.deepEqual(merged.causes.map((c) => c.id), ['kv_exhaustion', 'deploy_regression']);
  // Unless no instance could assess it on its own data (series no replica owns): then precedence stands.
  const unassessable = { id: 'deploy_regression', verdict: 'not_assessable', failed: [], missing: ['engine.version'] };
  const onlyPooled = mergeFleet(diag([cause('deploy_regression'), cause('kv_exhaustion')]), [
    { group: group('a'), d: { ...diag([cause('kv_exhaustion')]), checked: [unassessable] } as unknown as Diagnosis },
    { group: group('b'), d: { ...diag([cause('kv_exhaustion')]), checked: [unassessable] } as unknown as Diagnosis },
  ]);
  assert.deepEqual(onlyPooled.causes.map((c) => c.id), ['deploy_regression', 'kv_exhaustion']);
  // With no instance showing anything, the fleet's own order stands.
  const alone = mergeFleet(diag([cause('deploy_regression'), cause('kv_exhaustion')]), [
    { group: group('a'), d: diag([]) },
    { group: group('b'), d: diag([]) },
  ]);
  assert.deepEqual(alone.causes.map((c) => c.id), ['deploy_regression', 'kv_exhaustion']);
  // A cause an instance read off its own symptom (inferred) ranks after every other, the pooled ones too.
  const inferred = { ...cause('cuda_graph_fallback'), inferred: true } as CauseResult;
  const symptomOnly = mergeFleet(diag([cause('deploy_regression')]), [
    { group: group('a'), d: diag([inferred]) },
    { group: group('b'), d: diag([]) },
  ]);
  assert.deepEqual(symptomOnly.causes.map((c) => c.id), ['deploy_regression', 'cuda_graph_fallback']);
  // Unless it drives a measured mechanism there: then it ranks by that chain, as a root.
  const driving = { ...inferred, chain: ['cuda_graph_fallback', 'kv_exhaustion'] } as CauseResult;
  const rooted = mergeFleet(diag([cause('deploy_regression')]), [
    { group: group('a'), d: diag([driving, { ...cause('kv_exhaustion'), chain: ['cuda_graph_fallback', 'kv_exhaustion'] } as CauseResult]) },
    { group: group('b'), d: diag([]) },
  ]);
  assert.equal(rooted.causes[0].id, 'cuda_graph_fallback');
  // A mechanism every instance shows with a root upstream of it is no root anywhere: a root leads, though
  // the pooled series read the mechanism alone and each root holds on one instance only.
  const graphsThenFull = { ...inferred, chain: ['cuda_graph_fallback', 'kv_exhaustion'] } as CauseResult;
  const surgeThenFull = { ...cause('traffic_surge'), chain: ['traffic_surge', 'kv_exhaustion'] } as CauseResult;
  const driven = mergeFleet(diag([cause('kv_exhaustion')]), [
    { group: group('a'), d: diag([graphsThenFull, { ...cause('kv_exhaustion'), chain: ['cuda_graph_fallback', 'kv_exhaustion'] } as CauseResult]) },
    { group: group('b'), d: diag([surgeThenFull, { ...cause('kv_exhaustion'), chain: ['traffic_surge', 'kv_exhaustion'] } as CauseResult]) },
  ]);
  assert.notEqual(driven.causes[0].id, 'kv_exhaustion', JSON.stringify(driven.causes.map((c) => c.id)));
  // Where one instance shows it with no root, the pooled reading stands.
  const rootless = mergeFleet(diag([cause('kv_exhaustion')]), [
    { group: group('a'), d: diag([graphsThenFull, { ...cause('kv_exhaustion'), chain: ['cuda_graph_fallback', 'kv_exhaustion'] } as CauseResult]) },
    { group: group('b'), d: diag([cause('kv_exhaustion')]) },
  ]);
  assert.equal(rootless.causes[0].id, 'kv_exhaustion');
});

test('a cause that drives a stronger mechanism on one instance leads, though the pooled series show neither', () => {
  const cause = (id: CauseId, chain: CauseId[] = [id], confidence = 0.8) => ({ id, chain, confidence, onset_ms: T0, require: [], support: [], veto: [], evidence: [] }) as unknown as CauseResult;
  const diag = (causes: CauseResult[]) => ({ causes, status: causes.length ? 'explained' : 'healthy', onset_ms: T0, unexplained: null, checked: [], windows: [] }) as unknown as Diagnosis;
  const group = (key: string) => ({ key, ids: new Set([key]) });
  // Both replicas fell back to eager steps; on b the slower steps filled the KV pool. The fallback on a
  // (its own chain, more confident) must not hide that on b it is the root of the exhaustion.
  const merged = mergeFleet(diag([]), [
    { group: group('a'), d: diag([cause('cuda_graph_fallback', undefined, 1)]) },
    { group: group('b'), d: diag([cause('cuda_graph_fallback', ['cuda_graph_fallback', 'kv_exhaustion']), cause('kv_exhaustion', ['cuda_graph_fallback', 'kv_exhaustion'])]) },
  ]);
  assert.deepEqual(merged.causes.map((c) => c.id), ['cuda_graph_fallback', 'kv_exhaustion']);
  assert.deepEqual(merged.causes[0].chain, ['cuda_graph_fallback', 'kv_exhaustion']);
});

test('every replica silent over one stretch, where the pooled GPU telemetry saw the engines live, is a collection gap; one replica silent is an outage', () => {
  const outage = (from: number, to: number) => ({ kind: 'series', ref: 'tokens.generation', start_ms: T0 + from * 1000, end_ms: T0 + to * 1000, text: `the engine reported nothing for ${to - from} s (outage)` });
  const diag = (evidence: ReturnType<typeof outage>[]) =>
    ({ incident: { start_ms: T0, end_ms: T0 + 3_600_000 }, causes: [], status: evidence.length ? 'unexplained' : 'healthy', onset_ms: null, unexplained: evidence.length ? { onset_ms: evidence[0].start_ms, evidence } : null, checked: [], windows: [] }) as unknown as Diagnosis;
  const group = (key: string) => ({ key, ids: new Set([key]) });
  const both = mergeFleet(diag([]), [
    { group: group('a'), d: diag([outage(2370, 2950)]) },
    { group: group('b'), d: diag([outage(2375, 2952)]) },
  ]);
  assert.equal(both.status, 'healthy', JSON.stringify(both.unexplained));
  const one = mergeFleet(diag([]), [
    { group: group('a'), d: diag([outage(2370, 2950)]) },
    { group: group('b'), d: diag([]) },
  ]);
  assert.equal(one.status, 'unexplained');
  // The pooled view itself saw the outage (its GPUs freed their memory): every replica's silence stands.
  const pooled = mergeFleet(diag([outage(2370, 2950)]), [
    { group: group('a'), d: diag([outage(2370, 2950)]) },
    { group: group('b'), d: diag([outage(2375, 2952)]) },
  ]);
  assert.equal(pooled.status, 'unexplained');
  assert.equal(pooled.unexplained?.evidence.length, 3);
  // Too little data for the pooled series is too little for the fleet: not "healthy".
  const short = mergeFleet({ ...diag([]), status: 'insufficient' }, [
    { group: group('a'), d: diag([]) },
    { group: group('b'), d: diag([]) },
  ]);
  assert.equal(short.status, 'insufficient');
});

test('replicas scraped every 60 s at their own phases, inside windows timed by 10 s log lines, sum to the fleet as PromQL sums them', () => {
  // Each replica's gauge is present in one window of three; a sum over whichever replicas reported in a
  // window swings by a whole replica's RSS (3–6 GiB) from window to window, and that reads as a host leak.
  const dir = mkdtempSync(join(tmpdir(), 'qs-fleet-phase-'));
  try {
    const store = new Store(join(dir, 'ws.db'));
    const x = new SyntheticIncident(store, 4 * 3600, 1, 13);
    const rss = [3.4e9, 5.6e9, 4.5e9, 5.1e9];
    ['10.0.0.1:80', '10.0.0.2:80', '10.0.0.3:80', '10.0.0.4:80'].forEach((instance, r) => {
      const labels = { instance };
      // Scrapes every 60 s ± 10%, from a phase of the replica's own.
      const at = new Set<number>();
      for (let t = 7 + 17 * r; t <= x.seconds; t += Math.round(60 * x.noise(0.1))) at.add(t);
      const scraped = (s: number) => at.has(s);
      x.gauge('host.rss', (s) => (scraped(s) ? rss[r] + 1e6 * x.noise(1) : null), labels);
      x.gauge('req.running', (s) => (scraped(s) ? Math.round(8 * x.noise(0.2)) : null), labels);
      x.gauge('req.waiting', (s) => (scraped(s) ? 0 : null), labels);
      x.gauge('kv.usage', (s) => (scraped(s) ? 0.3 * x.noise(0.1) : null), labels);
      // The engine's log: its stats every 10 s (this times the windows: W = 20 s).
      const log = (metric: string) => ({ ...labels, metric: `vllm-log:${metric}` });
      x.gauge('tokens.generation_rate', (s) => (s % 10 === 0 ? 400 * x.noise(0.05) : null), log('Avg generation throughput'));
      x.gauge('req.running', (s) => (s % 10 === 0 ? Math.round(8 * x.noise(0.2)) : null), log('Running'));
      x.gauge('req.waiting', (s) => (s % 10 === 0 ? 0 : null), log('Waiting'));
      x.gauge('kv.usage', (s) => (s % 10 === 0 ? 0.3 * x.noise(0.1) : null), log('GPU KV cache usage'));
    });
    const id = x.done();
    const d = analyzeIncident(store, id);
    store.close();
    assert.ok((d.window_ms ?? Infinity) <= 30_000, `windows timed by the log lines: W ${d.window_ms} ms`);
    assert.notEqual(d.checked.find((c) => c.id === 'host_memory_leak')?.verdict, 'fired', JSON.stringify(d.causes.map((c) => [c.id, c.require.map((r) => r.value)])));
    assert.equal(d.status, 'healthy', JSON.stringify({ causes: d.causes.map((c) => c.id), u: d.unexplained?.evidence.map((e) => e.text) }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('replicas whose scrapes come back one by one after a gap sum to nothing in between: a fleet sum is over every replica or unknown', () => {
  // Four replicas scraped every 60 s, their engines logging every 10 s (W = 20 s); nothing is scraped for four
  // minutes, then each comes back on its own (at 2560, 2580, 2600, 2620 s). A sum over whichever reported
  // climbed 8.0 → 12.0 → 14.5 → 16.7 GiB in a minute, steps of 15–20% that read as a host leak's climb.
  const dir = mkdtempSync(join(tmpdir(), 'qs-fleet-return-'));
  try {
    const store = new Store(join(dir, 'ws.db'));
    const x = new SyntheticIncident(store, 3600, 1, 17);
    const rss = [8.6e9, 4.3e9, 2.6e9, 2.4e9];
    const back = [2560, 2580, 2600, 2620];
    ['10.0.0.1:80', '10.0.0.2:80', '10.0.0.3:80', '10.0.0.4:80'].forEach((instance, r) => {
      const labels = { instance };
      const up = (s: number) => s < 2300 || s >= back[r];
      const scraped = (s: number) => (s + 7 * r) % 60 === 0 && up(s);
      x.gauge('host.rss', (s) => (scraped(s) ? rss[r] + 4e3 * s : null), labels);
      const logged = (s: number) => s % 10 === 0 && up(s);
      const log = (metric: string) => ({ ...labels, metric: `vllm-log:${metric}` });
      x.gauge('tokens.generation_rate', (s) => (logged(s) ? 400 * x.noise(0.05) : null), log('Avg generation throughput'));
      x.gauge('req.running', (s) => (logged(s) ? Math.round(8 * x.noise(0.2)) : null), log('Running'));
      x.gauge('req.waiting', (s) => (logged(s) ? 0 : null), log('Waiting'));
      x.gauge('kv.usage', (s) => (logged(s) ? 0.3 * x.noise(0.1) : null), log('GPU KV cache usage'));
    });
    const f = analyzeIncidentDetailed(store, x.done()).frame;
    store.close();
    assert.ok(f.grid.W <= 30_000, `windows timed by the log lines: W ${f.grid.W} ms`);
    const whole = rss.reduce((a, b) => a + b, 0);
    // From the first minute on, when every replica has been scraped once.
    const partial = [...f.rss].flatMap((v, i) => (f.t[i] >= T0 + 60_000 && Number.isFinite(v) && v < 0.95 * whole ? [`${(f.t[i] - T0) / 1000} s: ${(v / 2 ** 30).toFixed(1)} GiB`] : []));
    assert.deepEqual(partial, [], 'windows summing only the replicas that had come back');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a pod's files named with their own prefixes (vllm-<pod>.prom beside <pod>.log) are one instance: its log's events are its own", () => {
  const podA = 'vllm-llama-3-3-70b-3d4ab8271e-4rnw4';
  const podB = 'vllm-llama-3-3-70b-72c504eae3-r7j45';
  const series = (id: number, instance: string): LoadedSeries => ({ id, name: 'tokens.generation', labels: { instance }, kind: 'counter', t: new Float64Array([T0, T0 + 60_000]), v: new Float64Array([0, 100]) });
  const oom: EventRow = { id: 1, ts_ms: T0 + 30_000, kind: 'oom', severity: 'error', source_id: 3, source_path: `logs/${podA}.log`, line: 9, text: 'CUDA out of memory', attrs: {} };
  const sig: Signals = {
    incidentId: 1,
    start_ms: T0,
    end_ms: T0 + 60_000,
    // Named by file (nameInstancesByFile): the metrics files' stems and the logs' stems.
    series: new Map([['tokens.generation', [series(1, `vllm-${podA}`), series(2, `vllm-${podB}`), series(3, podA), series(4, podB)]]]),
    histograms: new Map(),
    events: [oom],
    requests: [],
    sites: [],
    meta: {},
  };
  const groups = instanceGroups(sig);
  assert.equal(groups.length, 2, JSON.stringify(groups.map((g) => [...g.ids])));
  const a = groups.find((g) => g.ids.has(podA))!;
  const b = groups.find((g) => g.ids.has(podB))!;
  assert.ok(a.ids.has(`vllm-${podA}`));
  assert.deepEqual(signalsFor(sig, a, groups).events.map((e) => e.kind), ['oom']);
  assert.deepEqual(signalsFor(sig, b, groups).events, []);
  // Names too short or without a boundary are not one process's.
  assert.equal(sameProcessName('vllm-0', 'sglang-vllm-0'), false);
  assert.equal(sameProcessName(podA, `x${podA}`), false);
  assert.equal(sameProcessName(podA, `metrics.${podA}`), true);
  // A word that says what the file holds, at the end: one replica's metrics and log.
  assert.equal(sameProcessName('vllm-0-metrics', 'vllm-0'), true);
  assert.equal(sameProcessName('vllm-0-metrics', 'vllm-1'), false);
  assert.equal(sameProcessName('vllm-0_prom', 'vllm-0-logs'), true);
});

test('a pod silent from the moment another began reporting to the end is the one a rollout replaced, not an outage; silent with no successor, or before the end, it is one', () => {
  const end = 3600;
  const outage = (from: number, to: number) => ({ kind: 'series', ref: 'tokens.generation', start_ms: T0 + from * 1000, end_ms: T0 + to * 1000, text: `the engine reported nothing for ${to - from} s (outage)` });
  const diag = (evidence: ReturnType<typeof outage>[]) =>
    ({ incident: { start_ms: T0, end_ms: T0 + end * 1000 }, window_ms: 60_000, causes: [], status: evidence.length ? 'unexplained' : 'healthy', onset_ms: null, unexplained: evidence.length ? { onset_ms: evidence[0].start_ms, evidence } : null, checked: [], windows: [] }) as unknown as Diagnosis;
  const group = (key: string) => ({ key, ids: new Set([key]) });
  const extent = (from: number, to: number): [number, number] => [T0 + from * 1000, T0 + to * 1000];
  // old reports until 1500 s, silent after; new began at 1320 s (ready before the old one was stopped) or at 1900 s
  // (started after it and loaded the model for 400 s); a third replica ran throughout.
  const merged = (newFrom: number, silence: [number, number]) =>
    mergeFleet(diag([]), [
      { group: group('old'), d: diag([outage(...silence)]), extent: extent(0, silence[0]) },
      { group: group('new'), d: diag([]), extent: extent(newFrom, end) },
      { group: group('other'), d: diag([]), extent: extent(0, end) },
    ]);
  assert.equal(merged(1320, [1500, end]).status, 'healthy', JSON.stringify(merged(1320, [1500, end]).unexplained));
  assert.equal(merged(1900, [1500, end]).status, 'healthy');
  // No successor near it (the next pod came 40 minutes later): the replica died.
  assert.equal(merged(3000, [500, end]).status, 'unexplained');
  // Silent for a stretch and back before the end: an outage, successor or not.
  assert.equal(merged(1320, [1500, 2400]).status, 'unexplained');
});
