// The first zoom after opening an incident (issue 20): opening asks for the diagnosis, and a zoom made
// while it runs must not wait behind it. The bridge runs in its own process (bridge-child.ts), as in
// browser mode; this process is the page: it sends `analyze`, then 100 ms later a zoom (`querySeries` of
// the 30 series a timeline shows, over 2 h, at chart width) and times the zoom's answer. Baseline in the
// same run: the same zoom once the diagnosis is done ("as fast as any other"). Two incidents of 24 h:
// 30 series at 5 s, and 10 replicas × 30 series at 15 s (300). Medians of QUADSCOPE_BENCH_RUNS (3).
//   node --import tsx test/bench/first-zoom.bench.ts
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { Store } from '../../node/engine/store/store';
import { emit, rng } from './lib';

const HOURS = Number(process.env.QUADSCOPE_BENCH_HOURS ?? 24);
const RUNS = Math.max(1, Number(process.env.QUADSCOPE_BENCH_RUNS ?? 3));
const ZOOM_DELAY_MS = 100;
const T0 = Date.parse('2026-03-14T00:00:00Z');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

/** One replica's 30 series, as the UI bench's incident: 8 GPUs × (mem, util, power) and the engine's six. */
function replicaSeries(instance: string | null) {
  const inst: Record<string, string> = instance ? { instance } : {};
  const out: { name: string; labels: Record<string, string>; unit: string; kind: 'gauge' | 'counter' }[] = [];
  for (let g = 0; g < 8; g++) {
    out.push({ name: 'gpu.mem.used', labels: { ...inst, gpu: String(g) }, unit: 'bytes', kind: 'gauge' });
    out.push({ name: 'gpu.util', labels: { ...inst, gpu: String(g) }, unit: 'fraction', kind: 'gauge' });
    out.push({ name: 'gpu.power', labels: { ...inst, gpu: String(g) }, unit: 'W', kind: 'gauge' });
  }
  for (const [name, unit, kind] of [['kv.usage', 'fraction', 'gauge'], ['req.running', 'count', 'gauge'], ['req.waiting', 'count', 'gauge'], ['tokens.generation', 'tokens', 'counter'], ['tokens.prompt', 'tokens', 'counter'], ['kv.preemptions', 'count', 'counter']] as const) {
    out.push({ name, labels: inst, unit, kind });
  }
  return out;
}

function makeIncident(store: Store, replicas: number, stepMs: number): { id: number; zoomIds: number[]; series: number } {
  const defs = replicas === 1 ? replicaSeries(null) : Array.from({ length: replicas }, (_, r) => replicaSeries(`replica-${r}`)).flat();
  const id = store.createIncident(`bench ${HOURS} h × ${defs.length} series`);
  const w = store.beginSource(id, { path: 'bench.prom', format: 'prometheus-text', bytes: 0 });
  const ids = defs.map((d) => w.series(d));
  const r = rng(7);
  const counters = defs.map(() => 0);
  const n = Math.round((HOURS * 3600_000) / stepMs);
  for (let k = 0; k < n; k++) {
    const ts = T0 + k * stepMs;
    const late = k / n > 0.7;
    defs.forEach((d, i) => {
      let v: number;
      if (d.kind === 'counter') v = counters[i] += (stepMs / 1000) * 200 * (1 + r()) * (late ? 0.5 : 1);
      else if (d.unit === 'bytes') v = 60e9 + (k / n) * 15e9 + r() * 1e8;
      else if (d.unit === 'fraction') v = Math.min(1, 0.4 + (late ? 0.55 : 0) + r() * 0.05);
      else v = 10 + r() * 5 + (late ? 20 : 0);
      w.sample(ids[i], ts, v);
    });
  }
  w.commit([]);
  store.refreshIncidentSpan(id);
  return { id, zoomIds: ids.slice(0, 30), series: defs.length };
}

interface Client {
  call(method: string, payload: unknown): Promise<unknown>;
  close(): void;
}

function connect(url: string): Promise<Client> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    const waiting = new Map<number, { ok: (v: unknown) => void; fail: (e: Error) => void }>();
    let next = 1;
    ws.on('message', (data) => {
      const m = JSON.parse(data.toString()) as { kind: string; id: number; ok: boolean; value?: unknown; error?: { code: string; message: string } };
      if (m.kind !== 'result') return;
      const w = waiting.get(m.id);
      waiting.delete(m.id);
      if (m.ok) w?.ok(m.value);
      else w?.fail(new Error(`${m.error?.code}: ${m.error?.message}`));
    });
    ws.once('open', () =>
      resolve({
        call: (method, payload) =>
          new Promise((ok, fail) => {
            const id = next++;
            waiting.set(id, { ok, fail });
            ws.send(JSON.stringify({ kind: 'call', id, method, payload }));
          }),
        close: () => ws.close(),
      }),
    );
    ws.once('error', reject);
  });
}

const dir = mkdtempSync(join(tmpdir(), 'qs-bench-zoom-'));
const renderer = join(dir, 'renderer');
mkdirSync(renderer);
writeFileSync(join(renderer, 'index.html'), '<!doctype html><title>bench</title>');
const dbFile = join(dir, 'zoom.db');
const store = new Store(dbFile);
const cases = [makeIncident(store, 1, 5000), makeIncident(store, 10, 15000)];
await store.checkpointsSettled();
store.close();

const root = fileURLToPath(new URL('../..', import.meta.url));
const server = spawn(process.execPath, ['--import', 'tsx', join(root, 'test', 'bench', 'bridge-child.ts'), dbFile, renderer], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
try {
  const url = await new Promise<string>((resolve, reject) => {
    let buf = '';
    server.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      const m = /READY (\S+)/.exec(buf);
      if (m) resolve(m[1]);
    });
    server.once('exit', (code) => reject(new Error(`bridge-child exited (${code}) before listening`)));
  });
  const client = await connect(url);
  for (const c of cases) {
    const zoom = { series_ids: c.zoomIds, start_ms: T0 + HOURS * 3600_000 * 0.6, end_ms: T0 + HOURS * 3600_000 * 0.6 + 2 * 3600_000, points: 1200 };
    const timedZoom = async () => {
      const t = performance.now();
      await client.call('querySeries', zoom);
      return performance.now() - t;
    };
    // Warm-up: the model's modules loaded, the pages read once, as after opening the demo incident.
    const t = performance.now();
    await client.call('analyze', { incident_id: c.id });
    const analyzeMs = performance.now() - t;
    await timedZoom();
    const first: number[] = [];
    const idle: number[] = [];
    for (let k = 0; k < RUNS; k++) {
      const diagnosis = client.call('analyze', { incident_id: c.id });
      await new Promise((r) => setTimeout(r, ZOOM_DELAY_MS));
      first.push(await timedZoom());
      await diagnosis;
      idle.push(await timedZoom());
    }
    const f = median(first);
    emit({
      bench: 'first-zoom',
      case: `zoom ${ZOOM_DELAY_MS} ms after opening (${HOURS} h, ${c.series} series; the diagnosis takes ${Math.round(analyzeMs)} ms)`,
      value: f,
      unit: 'ms',
      baseline: 'the same zoom once the diagnosis is done',
      baseline_value: median(idle),
      target: '< 100 ms',
      met: f < 100,
    });
  }
  client.close();
} finally {
  server.kill('SIGTERM');
  await new Promise((r) => server.once('exit', r));
  rmSync(dir, { recursive: true, force: true });
}
