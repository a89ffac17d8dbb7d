// The fleet view's ordering and drill-down filter: what the panel shows is computed here, so it is
// checked without a browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { InstanceDiagnosis } from '../../../common/contract/diagnosis';
import { seriesOfInstance, severity, sortInstances } from '../../../browser/renderer/src/state/fleet';

const inst = (instance: string, over: Partial<InstanceDiagnosis> = {}): InstanceDiagnosis => ({ instance, status: 'healthy', onset_ms: null, causes: [], windows: [], ...over });
const w = (q: 'healthy' | 'saturated', S = 0.1) => ({ t_ms: 0, quadrant: q, S });

test('instances sort by severity: a named cause, then something wrong, then windows off the healthy quadrant', () => {
  const list = [
    inst('a', { windows: [w('healthy'), w('saturated', 0.6)] }),
    inst('b', { status: 'explained', causes: ['gpu_memory_leak'], onset_ms: 2000, windows: [w('healthy')] }),
    inst('c', { windows: [w('healthy'), w('healthy')] }),
    inst('d', { status: 'unexplained', onset_ms: 1000, windows: [w('healthy')] }),
  ];
  assert.deepEqual(sortInstances(list, 'severity').map((i) => i.instance), ['b', 'd', 'a', 'c']);
  assert.deepEqual(sortInstances(list, 'onset').map((i) => i.instance), ['d', 'b', 'a', 'c']);
  assert.deepEqual(sortInstances(list, 'name').map((i) => i.instance), ['a', 'b', 'c', 'd']);
  assert.ok(severity(list[0]) > severity(list[2]), 'saturated windows weigh');
  assert.deepEqual(list.map((i) => i.instance), ['a', 'b', 'c', 'd'], 'the diagnosis is not reordered in place');
});

test('a series belongs to the drilled instance by any of its identity labels', () => {
  const ids = ['10.0.0.3:8000', 'vllm-3'];
  assert.equal(seriesOfInstance({ instance: '10.0.0.3:8000', gpu: '0' }, ids), true);
  assert.equal(seriesOfInstance({ pod: 'vllm-3' }, ids), true);
  assert.equal(seriesOfInstance({ instance: '10.0.0.4:8000', pod: 'vllm-4' }, ids), false);
  assert.equal(seriesOfInstance({ gpu: '0' }, ids), false, 'a series naming no instance is not this one\'s');
});
