// A small KV-exhaustion incident written through the real Store and SourceWriter, and a hand-written
// Diagnosis for it, so the report tests depend on neither the importers nor the model.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Diagnosis, WindowScore } from '../../../common/contract/diagnosis';
import { Store } from '../../../node/engine/store/store';

/** A fresh workspace on a real SQLite file (not test/helpers' tempStore: that pulls in the import pipeline). */
export function reportStore(): { store: Store; dir: string; dispose(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'qs-report-test-'));
  const store = new Store(join(dir, 'workspace.db'));
  return { store, dir, dispose: () => { store.close(); rmSync(dir, { recursive: true, force: true }); } };
}

export const T0 = Date.UTC(2026, 2, 14, 9, 0, 0);
export const STEP_MS = 5_000;
export const POINTS = 121; // 10 minutes at 5 s
export const ONSET_MS = T0 + 6 * 60_000;
export const GIB = 2 ** 30;
export const HOSTILE = '<script>alert("owned")</script> & | `tick` *bold* [x](y)';

export interface Built {
  incidentId: number;
  errorEventId: number;
  diagnosis: Diagnosis;
}

/** KV usage at sample i: 0.40 until 4 min, then a ramp to 0.99 held from 6 min. */
export const kvAt = (i: number) => (i < 48 ? 0.4 : Math.min(0.99, 0.4 + (i - 48) * 0.025));

export function buildIncident(store: Store): Built {
  const incidentId = store.createIncident('vllm-prod-a & friends');

  const m = store.beginSource(incidentId, { path: 'metrics/vllm.prom', format: 'prometheus-text', bytes: 123_456 });
  const kv = m.series({ name: 'kv.usage', labels: { engine: '0', model: 'llama' }, unit: 'ratio', kind: 'gauge' });
  const run = m.series({ name: 'req.running', unit: 'count', kind: 'gauge' });
  const wait = m.series({ name: 'req.waiting', unit: 'count', kind: 'gauge' });
  const pre = m.series({ name: 'kv.preemptions', unit: 'count', kind: 'counter' });
  const gen = m.series({ name: 'tokens.generation', unit: 'tokens', kind: 'counter' });
  const e2e = m.series({ name: 'lat.e2e', unit: 's', kind: 'histogram' });
  // Its companions, as every histogram import writes them: the count decides the scrapes.
  const e2eCount = m.series({ name: 'lat.e2e.count', unit: '', kind: 'counter' });
  const e2eSum = m.series({ name: 'lat.e2e.sum', unit: 's', kind: 'counter' });
  const mem = [0, 1].map((g) => m.series({ name: 'gpu.mem.used', labels: { gpu: String(g) }, unit: 'bytes', kind: 'gauge' }));
  const tot = [0, 1].map((g) => m.series({ name: 'gpu.mem.total', labels: { gpu: String(g) }, unit: 'bytes', kind: 'gauge' }));
  let preCount = 0;
  let genCount = 0;
  const les = [0.1, 0.5, 1, 2.5, Infinity];
  const cum = [0, 0, 0, 0, 0];
  for (let i = 0; i < POINTS; i++) {
    const t = T0 + i * STEP_MS;
    const hot = i >= 72;
    m.sample(kv, t, kvAt(i));
    m.sample(run, t, hot ? 40 : 24);
    m.sample(wait, t, hot ? 12 + (i % 3) : 0);
    if (hot) preCount += 2; // two preemptions per 5 s after onset
    m.sample(pre, t, preCount);
    genCount += hot ? 2_000 : 5_000; // 1000 tok/s → 400 tok/s
    m.sample(gen, t, genCount);
    // 10 requests per interval; after onset most land in the 1–2.5 s bucket.
    const add = hot ? [1, 1, 0, 8, 0] : [6, 4, 0, 0, 0];
    let c = 0;
    for (let b = 0; b < les.length; b++) {
      c += add[b];
      cum[b] += c;
      m.histogram(e2e, t, les[b], cum[b]);
    }
    m.sample(e2eCount, t, cum[les.length - 1]);
    m.sample(e2eSum, t, cum[les.length - 1] * 0.5);
    m.sample(mem[0], t, 70 * GIB + (i < 60 ? 0 : 2 * GIB));
    m.sample(mem[1], t, 71 * GIB);
    m.sample(tot[0], t, 80 * GIB);
    m.sample(tot[1], t, 80 * GIB);
  }
  m.commit(['metrics/vllm.prom:17: malformed sample line skipped']);

  const l = store.beginSource(incidentId, { path: 'logs/vllm.log', format: 'vllm-log', bytes: 4_096 });
  l.event({ ts_ms: T0 + 1_000, kind: 'log', severity: 'info', line: 1, text: 'INFO Starting vLLM engine' });
  l.event({ ts_ms: T0 + 5 * 60_000, kind: 'log', severity: 'warning', line: 40, text: 'WARNING Sequence group 7 is preempted by PreemptionMode.RECOMPUTE' });
  l.event({ ts_ms: ONSET_MS + 30_000, kind: 'log', severity: 'error', line: 41, text: `ERROR request failed ${HOSTILE}` });
  l.commit([]);
  const errorEventId = store.queryEvents({ incident_id: incidentId, severities: ['error'] }).rows[0].id;

  const a = store.beginSource(incidentId, { path: 'profiles/snapshot.pickle', format: 'torch-memory-snapshot', bytes: 900 });
  const leaky = a.stack(['model.py:88 forward', 'cache.py:12 append']);
  const fine = a.stack(['attn.py:5 attention']);
  for (let k = 0; k < 4; k++) a.allocation({ device: 0, addr: `0x${(0x1000 + k).toString(16)}`, size: 256 * 2 ** 20, alloc_ns: (T0 + k * 60_000) * 1e6, free_ns: null, stack_id: leaky, source: 'snapshot' });
  a.allocation({ device: 0, addr: '0x9000', size: 64 * 2 ** 20, alloc_ns: T0 * 1e6, free_ns: null, stack_id: fine, source: 'snapshot' });
  a.allocation({ device: 0, addr: '0x9100', size: 512 * 2 ** 20, alloc_ns: T0 * 1e6, free_ns: (T0 + 1000) * 1e6, stack_id: fine, source: 'snapshot' });
  a.commit([]);

  store.recordSource(incidentId, { path: 'traces/broken.json', format: 'otlp-json', bytes: 10, status: 'failed', error: 'traces/broken.json:3: unexpected end of JSON' });
  store.refreshIncidentSpan(incidentId);

  store.addAnnotation({ incident_id: incidentId, start_ms: T0 + 5 * 60_000, end_ms: T0 + 7 * 60_000, panel: 'timeline', text: `traffic from batch job ${HOSTILE}`, author: 'oncall' });
  store.addAnnotation({ incident_id: incidentId, start_ms: T0 + 8 * 60_000, end_ms: T0 + 8 * 60_000, panel: 'kv', text: 'scaled out replica 2', author: '' });

  return { incidentId, errorEventId, diagnosis: diagnosisFor(errorEventId) };
}

export function diagnosisFor(errorEventId: number): Diagnosis {
  const windows: WindowScore[] = [];
  for (let t = T0; t <= T0 + 10 * 60_000; t += 10_000) {
    const i = (t - T0) / STEP_MS;
    const R = kvAt(i);
    const S = t >= ONSET_MS ? 0.7 : 0.1;
    const quadrant = R >= 0.85 ? (S >= 0.5 ? 'exhausted' : 'saturated') : S >= 0.5 ? 'contended' : 'healthy';
    windows.push({ t_ms: t, R, S, quadrant, scores: { gpu_mem: 0.1, kv: R, tokens: 0.5, queue: 1 - S } });
  }
  return {
    incident: { start_ms: T0, end_ms: T0 + 10 * 60_000 },
    baseline: { start_ms: T0, end_ms: T0 + 2 * 60_000 },
    preset: 'default',
    onset_ms: ONSET_MS,
    windows,
    alerts: [
      { family: 'resources', first_fired_ms: T0 + 5 * 60_000 + 30_000, resolved_ms: null },
      { family: 'latency', first_fired_ms: ONSET_MS + 10_000, resolved_ms: T0 + 9 * 60_000 },
    ],
    causes: [
      {
        id: 'kv_exhaustion',
        confidence: 0.87,
        onset_ms: ONSET_MS,
        chain: ['traffic_surge', 'kv_exhaustion'],
        require: [
          { condition: 'frac(kv >= 0.95, W) >= 0.5', value: 0.75, held: true },
          { condition: 'preempt > 0', value: 24, held: true },
          { condition: 'r(e2e99) >= 1.5', value: 4.2, held: true },
        ],
        support: [{ condition: 'run/wait see-saw', value: true, held: true }],
        veto: [{ condition: 'max kv < 0.85', value: 0.99, held: false }],
        evidence: [
          { kind: 'series', ref: 'kv.usage{engine="0"}', start_ms: ONSET_MS, end_ms: T0 + 10 * 60_000, text: 'KV usage held at 0.99' },
          { kind: 'event', ref: String(errorEventId), start_ms: ONSET_MS + 30_000, end_ms: ONSET_MS + 30_000, text: 'request failure during preemption storm' },
        ],
      },
      {
        id: 'traffic_surge',
        confidence: 0.41,
        onset_ms: T0 + 5 * 60_000,
        chain: ['traffic_surge'],
        require: [{ condition: 'r(lam_in) >= 1.3', value: 1.6, held: true }],
        support: [],
        veto: [],
        evidence: [],
      },
    ],
    not_assessable: [{ id: 'gpu_throttling', missing: ['gpu.sm_clock', 'gpu.throttle_reasons'] }],
    leak: null,
    status: 'explained',
    checked: [{ id: 'gpu_throttling', verdict: 'not_assessable', failed: [], missing: ['gpu.sm_clock', 'gpu.throttle_reasons'] }],
    unexplained: null,
  };
}
