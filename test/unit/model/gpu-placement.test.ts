// The same GPU read by two tools: dcgm-exporter names its node and the pod it serves, nvidia-smi's CSV (run
// inside each replica's container) names neither and numbers the one GPU it sees 0. Its UUID says which GPU it
// is: the CSV's reading takes the node, pod and index the exporter gave, so the frame sees one GPU per UUID on
// its machine and each replica's view holds its own GPU, not every replica's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SIG } from '../../../common/names';
import { instanceGroups, signalsFor } from '../../../node/engine/model/fleet';
import { analyzeSignals } from '../../../node/engine/model/diagnose';
import { loadSignals } from '../../../node/engine/model/signals-from-store';
import { Store } from '../../../node/engine/store/store';
import { SyntheticIncident } from '../../helpers/synthetic-incident';

test('an nvidia-smi reading that names no machine takes the node, pod and index its UUID has in dcgm-exporter', () => {
  const dir = mkdtempSync(join(tmpdir(), 'qs-gpu-place-'));
  const store = new Store(join(dir, 'w.db'));
  try {
    const inc = new SyntheticIncident(store, 600, 10);
    const replicas = [
      { instance: '10.0.0.1:8000', pod: 'vllm-a', uuid: 'GPU-aaaa', gpu: '0' },
      { instance: '10.0.0.2:8000', pod: 'vllm-b', uuid: 'GPU-bbbb', gpu: '3' },
    ];
    for (const r of replicas) {
      inc.gauge(SIG.reqRunning, () => 10, { instance: r.instance, pod: r.pod });
      inc.gauge(SIG.gpuPower, () => 300, { host: 'node-1', gpu: r.gpu, gpu_uuid: r.uuid, pod: r.pod, metric: 'DCGM_FI_DEV_POWER_USAGE' });
      // Inside its container each replica's nvidia-smi sees one GPU, index 0.
      inc.gauge(SIG.gpuPower, () => 290, { gpu: '0', gpu_uuid: r.uuid, metric: 'nvidia-smi:power.draw' });
    }
    // A GPU no other tool places keeps its labels as they are.
    inc.gauge(SIG.gpuPower, () => 100, { gpu: '5', gpu_uuid: 'GPU-cccc', metric: 'nvidia-smi:power.draw' });
    const sig = loadSignals(store, inc.done());
    const csv = sig.series.get(SIG.gpuPower)!.filter((s) => s.labels.metric === 'nvidia-smi:power.draw');
    const by = new Map(csv.map((s) => [s.labels.gpu_uuid, s.labels]));
    assert.deepEqual([by.get('GPU-aaaa')!.host, by.get('GPU-aaaa')!.pod, by.get('GPU-aaaa')!.gpu], ['node-1', 'vllm-a', '0']);
    assert.deepEqual([by.get('GPU-bbbb')!.host, by.get('GPU-bbbb')!.pod, by.get('GPU-bbbb')!.gpu], ['node-1', 'vllm-b', '3']);
    assert.deepEqual(by.get('GPU-cccc'), { gpu: '5', gpu_uuid: 'GPU-cccc', metric: 'nvidia-smi:power.draw' });
    // The frame: one GPU per UUID placed on its node (the two readings of a GPU share its key), plus the unplaced one.
    const keys = analyzeSignals(sig).frame.gpus.map((g) => g.key);
    assert.deepEqual(keys, ['5', 'node-1/0', 'node-1/3']);
    // Each replica's view: its own GPU's readings, from both tools, and the unplaced GPU no replica owns.
    const groups = instanceGroups(sig);
    for (const r of replicas) {
      const own = signalsFor(sig, groups.find((g) => g.ids.has(r.pod))!, groups);
      const uuids = new Set(own.series.get(SIG.gpuPower)!.map((s) => s.labels.gpu_uuid));
      assert.deepEqual([...uuids].sort(), [r.uuid, 'GPU-cccc'].sort(), r.pod);
    }
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
