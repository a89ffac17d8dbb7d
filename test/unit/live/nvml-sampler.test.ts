// The sampler over the real addon and the stub libnvidia-ml: canonical series and labels, Xid and
// gpu_lost events, per-field errors as source warnings, cost statistics, and the rate limits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { tempLiveStore as tempStore } from './temp-store';
import { STUB_LIBRARY, openNvml, type NvmlSession } from '../../../native/nvml/index';
import { LiveRecorder } from '../../../node/engine/live/recorder';
import { NvmlSampler } from '../../../node/engine/live/nvml-sampler';
import { kernelBusId } from '../../../node/engine/signals/canonical';

const skip = existsSync(STUB_LIBRARY) ? false : 'the NVML stub is not built (node scripts/build-native.mjs)';

function stub(lines: string[]): NvmlSession {
  process.env.QUADSCOPE_FAKE_NVML = lines.join(';');
  const n = openNvml({ libraryPath: STUB_LIBRARY });
  if (!n.available) throw new Error(n.reason);
  return n;
}

test('samples land as canonical series with gpu labels; Xid and lost GPUs become events', { skip }, () => {
  const ts = tempStore();
  const n = stub([
    'devices 2',
    'gpu 0 name NVIDIA H100 80GB HBM3',
    'gpu 0 mem_climb_per_call 1000',
    'gpu 0 util_gpu 87',
    'gpu 0 power_mw 450500',
    'gpu 0 throttle 0x4 from_call 2',
    'gpu 0 process 31337 2000000000',
    'gpu 0 xid 79 at_call 3',
    'gpu 0 error temperature 4',
    'gpu 1 lost_from_call 2',
  ]);
  try {
    const incident = ts.store.createIncident('live', 'live');
    const rec = new LiveRecorder(ts.store, incident);
    let t = 1_000_000;
    const sampler = new NvmlSampler(n, rec.stream('live:nvml', 'live-nvml'), { rate_hz: 10, now: () => (t += 100) });
    for (let i = 0; i < 4; i++) sampler.sampleOnce();
    rec.close();

    const labels0 = { gpu: '0', gpu_uuid: 'GPU-fa4e0000-0000-4000-8000-000000000000', gpu_model: 'NVIDIA H100 80GB HBM3', metric: 'nvml' };
    const values = (name: string, gpu: string) => {
      const s = ts.store.listSeries(incident, name).find((x) => x.name === name && x.labels.gpu === gpu);
      assert.ok(s, `${name} gpu ${gpu}`);
      return { unit: s.unit, kind: s.kind, labels: s.labels, ...((d) => ({ t: Array.from(d.t), v: Array.from(d.v) }))(ts.store.samples(s.id)) };
    };
    const used = values('gpu.mem.used', '0');
    assert.deepEqual(used.labels, labels0);
    assert.equal(used.unit, 'bytes');
    assert.deepEqual(used.t, [1_000_100, 1_000_200, 1_000_300, 1_000_400]);
    assert.deepEqual(used.v, [1, 2, 3, 4].map((k) => 2 ** 30 + 1000 * k));
    assert.deepEqual(values('gpu.mem.total', '0').v, [80 * 2 ** 30, 80 * 2 ** 30, 80 * 2 ** 30, 80 * 2 ** 30]);
    assert.deepEqual(values('gpu.util', '0').v, [0.87, 0.87, 0.87, 0.87]);
    assert.equal(values('gpu.util', '0').unit, 'fraction');
    assert.deepEqual(values('gpu.power', '0').v, [450.5, 450.5, 450.5, 450.5]);
    assert.deepEqual(values('gpu.throttle_reasons', '0').v, [0, 0x4, 0x4, 0x4]);
    assert.deepEqual(values('gpu.sm_clock', '0').v, [1980, 1980, 1980, 1980]);
    assert.deepEqual(values('gpu.ecc_dbe', '0').kind, 'counter');
    assert.deepEqual(values('gpu.xid', '0').v, [79]);
    assert.deepEqual(values('gpu.xid', '0').t, [1_000_300]);
    assert.deepEqual(values('proc.gpu_mem.used', '0').labels, { ...labels0, pid: '31337' });
    assert.equal(ts.store.listSeries(incident, 'gpu.temp').filter((s) => s.labels.gpu === '0').length, 0, 'a failing field records nothing');
    assert.deepEqual(values('gpu.mem.used', '1').v, [2 ** 30], 'GPU 1 sampled until it was lost');

    const events = ts.store.queryEvents({ incident_id: incident }).rows;
    assert.deepEqual(
      events.map((e) => [e.ts_ms, e.kind, e.severity, e.attrs]),
      [
        [1_000_200, 'gpu_lost', 'critical', { gpu: 1, gpu_uuid: 'GPU-fa4e0000-0000-4000-8000-000000000001', gpu_model: 'Fake NVIDIA GPU 1' }],
        [1_000_300, 'xid', 'critical', { code: 79, gpu: 0, class: 'hardware', meaning: 'GPU has fallen off the bus', gpu_uuid: labels0.gpu_uuid, bus_id: '0000:10:00' }],
      ],
    );
    assert.equal(events[1].text, 'Xid 79 on GPU 0 (NVIDIA H100 80GB HBM3, 00000000:10:00.0): GPU has fallen off the bus');
    const warnings = ts.store.listSources(incident).flatMap((s) => s.warnings);
    assert.deepEqual(warnings, ['GPU 0: nvmlDeviceGetTemperature: Insufficient Permissions (NVML_ERROR_NO_PERMISSION)']);
    assert.deepEqual(sampler.lostDevices(), [1]);

    const st = sampler.stats();
    assert.equal(st.samples, 4);
    assert.equal(st.rate_hz, 10);
    assert.ok(st.mean_us > 0 && st.native_mean_us > 0 && st.native_mean_us <= st.mean_us);
    assert.ok(st.p50_us <= st.p99_us && st.p99_us <= st.max_us);
  } finally {
    n.close();
    ts.dispose();
  }
});

test('the rate is bounded: above 0, at most 50 Hz', { skip }, () => {
  const ts = tempStore();
  const n = stub(['devices 1']);
  try {
    const out = new LiveRecorder(ts.store, ts.store.createIncident('x', 'live')).stream('live:nvml', 'live-nvml');
    assert.throws(() => new NvmlSampler(n, out, { rate_hz: 0 }), /above 0 and at most 50 Hz \(got 0\)/);
    assert.throws(() => new NvmlSampler(n, out, { rate_hz: 51 }), /\(got 51\)/);
    assert.equal(new NvmlSampler(n, out).rateHz, 1);
  } finally {
    n.close();
    ts.dispose();
  }
});

test('start/stop samples on the timer at the asked rate', { skip }, async () => {
  const ts = tempStore();
  const n = stub(['devices 4']);
  try {
    const out = new LiveRecorder(ts.store, ts.store.createIncident('x', 'live')).stream('live:nvml', 'live-nvml');
    const sampler = new NvmlSampler(n, out, { rate_hz: 50 });
    sampler.start();
    await new Promise((r) => setTimeout(r, 500));
    sampler.stop();
    const count = sampler.stats().samples;
    await new Promise((r) => setTimeout(r, 60));
    assert.equal(sampler.stats().samples, count, 'no sample after stop');
    assert.ok(count >= 15 && count <= 30, `about 25 samples in 0.5 s at 50 Hz, got ${count}`);
  } finally {
    n.close();
    ts.dispose();
  }
});

test('PCI bus ids are written the way the kernel log writes them', () => {
  assert.equal(kernelBusId('00000000:3B:00.0'), '0000:3b:00');
  assert.equal(kernelBusId('0000:3B:00.0'), '0000:3b:00');
  assert.equal(kernelBusId('0001:C1:00'), '0001:c1:00');
});
