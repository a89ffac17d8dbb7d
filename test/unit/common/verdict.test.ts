import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Diagnosis } from '../../../common/contract/diagnosis';
import { chainText } from '../../../common/causes';
import { verdictOf } from '../../../common/verdict';

const T0 = Date.UTC(2026, 2, 14, 9, 0, 0);

function diagnosis(p: Partial<Diagnosis> = {}): Diagnosis {
  return {
    incident: { start_ms: T0, end_ms: T0 + 600_000 },
    baseline: { start_ms: T0, end_ms: T0 + 120_000 },
    preset: 'default',
    onset_ms: null,
    windows: [],
    alerts: [],
    causes: [],
    not_assessable: [],
    leak: null,
    status: 'healthy',
    checked: [],
    unexplained: null,
    ...p,
  };
}

const cause = (id: 'kv_exhaustion' | 'traffic_surge', chain: ('kv_exhaustion' | 'traffic_surge')[]) => ({ id, confidence: 0.8, onset_ms: T0 + 200_000, chain, require: [], support: [], veto: [], evidence: [] });

test('explained: the root cause first, then the chain to the mechanism', () => {
  const v = verdictOf(diagnosis({ status: 'explained', onset_ms: T0 + 180_000, causes: [cause('kv_exhaustion', ['traffic_surge', 'kv_exhaustion'])] }));
  assert.equal(v.status, 'explained');
  assert.equal(v.title, 'Traffic surge → KV-cache exhaustion');
  assert.equal(v.root, 'traffic_surge');
  assert.equal(v.top, 'kv_exhaustion');
  assert.equal(v.onset_ms, T0 + 180_000, 'the diagnosis onset, not the cause onset');
  assert.equal(chainText(cause('traffic_surge', [])), 'Traffic surge');
});

test('a crash in the logs is never healthy, whatever the diagnosis says', () => {
  const oom = { id: 7, ts_ms: T0 + 300_000, kind: 'oom', severity: 'error', text: 'torch.OutOfMemoryError: CUDA out of memory.' };
  const v = verdictOf(diagnosis({ status: 'healthy' }), [oom, { ts_ms: T0 + 310_000, kind: 'engine_restart', severity: 'warning', text: 'restart' }]);
  assert.equal(v.status, 'unexplained');
  assert.equal(v.title, 'Unexplained incident: CUDA out of memory');
  assert.match(v.detail, /CUDA out of memory at 09:05:00 UTC, then 1 engine restart/);
  assert.equal(v.onset_ms, oom.ts_ms);
});

test('unexplained from the model: its evidence and onset; an outage from gaps', () => {
  const v = verdictOf(diagnosis({ status: 'unexplained', unexplained: { onset_ms: T0 + 60_000, evidence: [{ kind: 'series', ref: 'lat.e2e', start_ms: T0 + 60_000, end_ms: T0 + 90_000, text: 'P99 ×4' }] } }));
  assert.equal(v.status, 'unexplained');
  assert.equal(v.onset_ms, T0 + 60_000);
  assert.match(v.detail, /^P99 ×4/);
  const gap = verdictOf(diagnosis({ gaps: [{ start_ms: T0 + 100_000, end_ms: T0 + 400_000 }] }));
  assert.equal(gap.title, 'Unexplained incident: outage');
  assert.match(gap.detail, /No data for 5 min 0 s/);
});

test('healthy only with no onset, alert, crash or gap', () => {
  assert.equal(verdictOf(diagnosis()).status, 'healthy');
  assert.equal(verdictOf(diagnosis({ alerts: [{ family: 'latency', first_fired_ms: T0, resolved_ms: null }] })).status, 'unexplained');
});
