// The live recorder: rows stay invisible until a batch commits as one source; a series keeps one id
// across batches; a busy writer defers the batch instead of failing it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tempLiveStore as tempStore } from './temp-store';
import { LiveRecorder } from '../../../electron/engine/live/recorder';

test('each flush commits one source; series keep their id across batches', () => {
  const ts = tempStore();
  try {
    const incident = ts.store.createIncident('live test', 'live');
    const rec = new LiveRecorder(ts.store, incident);
    const s = rec.stream('live:nvml', 'live-nvml');
    const used = s.series({ name: 'gpu.mem.used', unit: 'bytes', labels: { gpu: '0' } });
    assert.equal(s.series({ name: 'gpu.mem.used', unit: 'bytes', labels: { gpu: '0' } }), used);
    s.sample(used, 1000, 10);
    s.sample(used, 2000, 20);
    s.event({ ts_ms: 1500, kind: 'xid', severity: 'critical', text: 'Xid 79', attrs: { code: 79 } });
    assert.equal(ts.store.getIncident(incident)!.counts.samples, 0, 'pending rows are not visible');
    assert.equal(rec.flush(), 3);
    assert.deepEqual(ts.store.getIncident(incident)!.counts, { series: 1, samples: 2, events: 1, spans: 0, kernels: 0, allocations: 0 });

    const temp = s.series({ name: 'gpu.temp', unit: 'C', labels: { gpu: '0' } });
    s.sample(used, 3000, 30);
    s.sample(temp, 3000, 61);
    s.warn('GPU 0: nvmlDeviceGetPowerUsage: Insufficient Permissions (NVML_ERROR_NO_PERMISSION)');
    assert.equal(rec.flush(), 2);
    assert.equal(rec.flush(), 0, 'nothing pending: no empty source');

    const series = ts.store.listSeries(incident);
    assert.deepEqual(series.map((x) => [x.name, x.points]), [['gpu.mem.used', 3], ['gpu.temp', 1]]);
    const mem = ts.store.samples(series[0].id);
    assert.deepEqual(Array.from(mem.v), [10, 20, 30]);
    const sources = ts.store.listSources(incident);
    assert.deepEqual(sources.map((x) => [x.path, x.format, x.rows, x.warnings]), [
      ['live:nvml', 'live-nvml', 3, []],
      ['live:nvml', 'live-nvml', 2, ['GPU 0: nvmlDeviceGetPowerUsage: Insufficient Permissions (NVML_ERROR_NO_PERMISSION)']],
    ]);
    assert.equal(rec.rows(), 5);
    assert.deepEqual(rec.stats(), [{ path: 'live:nvml', batches: 2, rows: 5, pending: 0, dropped: 0, last_error: null }]);
    rec.close();
    const inc = ts.store.getIncident(incident)!;
    assert.equal(inc.start_ms, 1000);
    assert.equal(inc.end_ms, 3000);
  } finally {
    ts.dispose();
  }
});

test('while the writer is inside another transaction the batch waits for the next flush', () => {
  const ts = tempStore();
  try {
    const incident = ts.store.createIncident('live test', 'live');
    const rec = new LiveRecorder(ts.store, incident);
    const s = rec.stream('live:nvml', 'live-nvml');
    s.sample(s.series({ name: 'gpu.util' }), 1000, 0.5);
    const importInProgress = ts.store.beginSource(incident, { path: 'other.prom', format: 'prometheus-text', bytes: 0 });
    assert.equal(rec.flush(), 0);
    assert.equal(rec.pending(), 1);
    importInProgress.commit([]);
    assert.equal(rec.flush(), 1);
    assert.equal(rec.pending(), 0);
  } finally {
    ts.dispose();
  }
});

test('mark/reset drops what a failed producer wrote after the mark', () => {
  const ts = tempStore();
  try {
    const rec = new LiveRecorder(ts.store, ts.store.createIncident('x', 'live'));
    const s = rec.stream('live:scrape:u', 'live-scrape');
    const id = s.series({ name: 'up' });
    s.sample(id, 1, 1);
    const m = s.mark();
    s.sample(id, 2, 1);
    s.event({ ts_ms: 2, kind: 'k', text: 't' });
    s.reset(m);
    assert.equal(s.pending, 1);
    assert.throws(() => s.span({ trace_id: 'a', span_id: 'b', name: 'n', start_ns: 0, end_ns: 1 }), /live recording does not take spans/);
  } finally {
    ts.dispose();
  }
});
