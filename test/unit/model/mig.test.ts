// MIG instances are GPUs of their own to the model (dcgm-exporter's GPU_I_ID): a slice near full is memory
// pressure even beside an idle one on the same physical GPU, and a slice's graphics-engine activity stands in
// for the utilisation DCGM does not give it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tempStore } from '../../helpers/import-file';
import { SyntheticIncident } from '../../helpers/synthetic-incident';
import { analyzeIncidentDetailed } from '../../../node/engine/model/diagnose';

const MIB = 2 ** 20;

function migIncident(extra?: (x: SyntheticIncident) => void) {
  const ts = tempStore();
  try {
    const x = new SyntheticIncident(ts.store, 600, 5);
    // Instance 8 of GPU 0 is 90% full; instance 7 idles. Each is read as DCGM gives it: its own total.
    const inst = (id: string, usedMiB: number) => {
      const l = { gpu: '0', GPU_I_ID: id, GPU_I_PROFILE: '1g.5gb', host: 'node-1' };
      x.gauge('gpu.mem.used', () => usedMiB * MIB, l);
      x.gauge('gpu.mem.total', () => 4864 * MIB, l);
    };
    inst('8', 4384);
    inst('7', 6);
    extra?.(x);
    return analyzeIncidentDetailed(ts.store, x.done());
  } finally {
    ts.dispose();
  }
}

test('a MIG slice 90% full is seen beside an idle slice of the same GPU (the last read had stood for both)', () => {
  const d = migIncident();
  assert.equal(d.frame.gpus.length, 2);
  const mem = d.diagnosis.windows.map((w) => w.scores.gpu_mem);
  assert.ok(Math.min(...mem) > 0.85, `gpu_mem ${Math.min(...mem)}`);
});

test("a slice's PROF_GR_ENGINE_ACTIVE is its utilisation: the throttling rule is no longer missing it", () => {
  const without = migIncident();
  const missing = (d: typeof without) => d.diagnosis.not_assessable.find((n) => n.id === 'gpu_throttling')?.missing ?? [];
  assert.ok(missing(without).some((m) => m.includes('gpu.util')));
  const d = migIncident((x) => x.gauge('gpu.gr_active', () => 0.97, { gpu: '0', GPU_I_ID: '8', host: 'node-1' }));
  assert.equal(missing(d).some((m) => m.includes('gpu.util')), false, missing(d).join(', '));
  const slice = d.frame.gpus.find((g) => g.key.endsWith('/mig8'))!;
  assert.ok(slice.util.some((u) => Math.abs(u - 0.97) < 1e-9));
});
