// The live recorder: rows stay invisible until a batch commits as one source; a series keeps one id
// across batches; a busy writer defers the batch instead of failing it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tempLiveStore as tempStore } from './temp-store';
import { LiveRecorder } from '../../../node/engine/live/recorder';

test('each flush commits one batch into the stream\'s one source; series keep their id across batches', () => {
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
      ['live:nvml', 'live-nvml', 5, ['GPU 0: nvmlDeviceGetPowerUsage: Insufficient Permissions (NVML_ERROR_NO_PERMISSION)']],
    ]);
    assert.equal(rec.rows(), 5);
    assert.deepEqual(rec.stats(), [{ path: 'live:nvml', batches: 2, rows: 5, pending: 0, dropped: 0, last_error: null, series: 2, over_cap: 0, warning: null }]);
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

test('an endpoint minting series without end: capped per stream with one warning, memory and sources bounded, the span current after every flush', () => {
  const ts = tempStore();
  try {
    const incident = ts.store.createIncident('cardinality', 'live');
    const rec = new LiveRecorder(ts.store, incident, { maxSeries: 1000 });
    const s = rec.stream('live:scrape:http://x/metrics', 'live-scrape');
    // 20 scrapes of 5,000 new series each (a request id as a label), plus one steady series.
    for (let k = 0; k < 20; k++) {
      const t = 1_700_000_000_000 + k * 1000;
      s.sample(s.series({ name: 'up' }), t, 1);
      for (let i = 0; i < 5000; i++) s.sample(s.series({ name: 'req', labels: { id: `${k}-${i}` } }), t, i);
      rec.flush();
      assert.equal(ts.store.incidentSpan(incident)?.end_ms, t, 'span current after each flush');
    }
    const st = rec.stats()[0];
    assert.equal(st.series, 1000);
    assert.equal(st.over_cap, 20 * 5001 - 1000 - 19);
    assert.match(st.warning ?? '', /more than 1,000 series \(the latest: req\): new series are not recorded from here on/);
    const sources = ts.store.listSources(incident);
    assert.equal(sources.length, 1, 'one source row for the endpoint, not one per flush');
    assert.equal(sources[0].rows, 1000 + 19);
    assert.equal(sources[0].warnings.length, 1);
    assert.equal(ts.store.listSeries(incident).length, 1000);
    assert.equal(ts.store.samples(ts.store.listSeries(incident, 'up')[0].id).t.length, 20, 'a series registered before the cap keeps being recorded');
  } finally {
    ts.dispose();
  }
});
