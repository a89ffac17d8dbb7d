// The typed whole-series reads (store/sample-reads.ts) answer exactly what a plain ordered SELECT does:
// every double bit for bit, whatever the tiles say about the count, across the chunks of histogram text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tempStore } from '../../helpers/import-file';
import { storeSql } from '../../helpers/store-sql';

const T = Date.UTC(2026, 0, 1);

test('samples written without tiles, extreme doubles and an empty series read back bit for bit', () => {
  const ts = tempStore();
  try {
    const inc = ts.store.createIncident('x');
    const w = ts.store.beginSource(inc, { path: 'x', format: 'prometheus-text', bytes: 0 });
    const id = w.series({ name: 'g' });
    const empty = w.series({ name: 'empty' });
    w.commit([]);
    const values = [Number.MIN_VALUE, -Number.MAX_VALUE, 0.1 + 0.2, 1 / 3, 2 ** 53 + 2, -1e-300, 123456789.123456789, 0];
    // Straight into the table, as an older writer or a user's copy might have: no tile counts them, so the
    // arrays start empty and grow.
    const db = storeSql(ts.store);
    const put = db.prepare('INSERT INTO samples (series_id, ts_ms, value) VALUES (?, ?, ?)');
    for (let k = 0; k < 5000; k++) put.run(id, T + k * 7, values[k % values.length] * (1 + k));
    const want = db.prepare('SELECT ts_ms, value FROM samples WHERE series_id = ? ORDER BY ts_ms').raw().all(id) as [number, number][];
    const got = ts.store.samples(id);
    assert.equal(got.t.length, 5000);
    assert.equal(got.v.length, 5000);
    for (let i = 0; i < want.length; i++) {
      assert.ok(Object.is(got.t[i], want[i][0]) && Object.is(got.v[i], want[i][1]), `sample ${i}: ${got.t[i]}, ${got.v[i]} against ${want[i]}`);
    }
    const none = ts.store.samples(empty);
    assert.equal(none.t.length + none.v.length, 0);
  } finally {
    ts.dispose();
  }
});

test('histogram scrapes past one chunk of counts text read back whole, in time order', () => {
  const ts = tempStore();
  try {
    const inc = ts.store.createIncident('h');
    const w = ts.store.beginSource(inc, { path: 'h', format: 'prometheus-text', bytes: 0 });
    const id = w.series({ name: 'lat.e2e', kind: 'histogram' });
    const n = 100_000 + 17; // SNAPSHOT_CHUNK + a few
    for (let k = n - 1; k >= 0; k--) {
      w.histogram(id, T + k * 1000, 0.5, k);
      w.histogram(id, T + k * 1000, Infinity, 2 * k + (k % 3));
    }
    w.commit([]);
    const snaps = ts.store.histogramSnapshots(id);
    assert.equal(snaps.length, n);
    for (const k of [0, 1, 99_999, 100_000, 100_001, n - 1]) {
      assert.equal(snaps[k].t, T + k * 1000);
      assert.deepEqual(snaps[k].le, [0.5, Infinity]);
      assert.deepEqual(snaps[k].counts, [k, 2 * k + (k % 3)]);
    }
    for (let k = 1; k < n; k++) assert.ok(snaps[k].t > snaps[k - 1].t);
  } finally {
    ts.dispose();
  }
});
