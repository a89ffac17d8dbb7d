// The typed whole-series reads (store/sample-reads.ts) answer exactly what a plain ordered SELECT does:
// every double bit for bit, whatever the tiles say about the count, across the chunks of histogram text;
// and the same through Quadscope's SQLite extension (qs_pack) as through the per-row function.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tempStore } from '../../helpers/import-file';
import { storeSql } from '../../helpers/store-sql';
import { openDb } from '../../../node/engine/store/db';
import { readSampleArrays, scanSamples } from '../../../node/engine/store/sample-reads';
import { hasPack } from '../../../node/engine/store/sqlite-extension';

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

test('scans and whole reads through the SQLite extension cross its chunks and equal the per-row reads bit for bit', () => {
  const ts = tempStore();
  try {
    const inc = ts.store.createIncident('p');
    const w = ts.store.beginSource(inc, { path: 'p', format: 'prometheus-text', bytes: 0 });
    const id = w.series({ name: 'g' });
    const n = 2 * 65_536 + 123; // two whole chunks and a part
    const vals = [0.1 + 0.2, -Number.MAX_VALUE, Number.MIN_VALUE, 1 / 3, 42, -0.5];
    for (let k = 0; k < n; k++) w.sample(id, T + k * 3, vals[k % vals.length] / (k + 1));
    w.commit([]);
    const file = storeSql(ts.store).name;
    const packed = openDb(file, { readonly: true });
    const saved = process.env.QUADSCOPE_SQLITE_EXTENSION;
    process.env.QUADSCOPE_SQLITE_EXTENSION = 'off';
    const perRow = openDb(file, { readonly: true });
    try {
      assert.equal(hasPack(perRow), false);
    } finally {
      if (saved === undefined) delete process.env.QUADSCOPE_SQLITE_EXTENSION;
      else process.env.QUADSCOPE_SQLITE_EXTENSION = saved;
    }
    // npm install builds the extension (scripts/build-native.mjs): a missing build fails here, not skips.
    assert.equal(hasPack(packed), true, 'native/sqlite/build/quadscope_sqlite.so did not load (npm run build:native)');
    const scan = (db: typeof packed, from: number, to: number) => {
      const t: number[] = [];
      const v: number[] = [];
      scanSamples(db, id, from, to, (a, b) => (t.push(a), v.push(b)));
      return { t, v };
    };
    // Ranges whose ends fall on, before and after the chunk edges, and one with nothing in it.
    for (const [from, to] of [
      [-Infinity, Infinity],
      [T + 3 * 65_535, T + 3 * 65_536],
      [T + 3 * 100, T + 3 * (2 * 65_536 + 5)],
      [T + 1, T + 2],
    ]) {
      const a = scan(packed, from, to);
      const b = scan(perRow, from, to);
      assert.equal(a.t.length, b.t.length, `[${from}, ${to}]`);
      for (let i = 0; i < a.t.length; i++) assert.ok(Object.is(a.t[i], b.t[i]) && Object.is(a.v[i], b.v[i]), `[${from}, ${to}] sample ${i}`);
    }
    const whole = readSampleArrays(packed, id);
    const want = readSampleArrays(perRow, id);
    assert.equal(whole.t.length, n);
    assert.deepEqual([...whole.t], [...want.t]);
    assert.deepEqual([...whole.v], [...want.v]);
    assert.equal(readSampleArrays(packed, id, T + 3 * 65_536).t.length, 65_537);
    packed.close();
    perRow.close();
  } finally {
    ts.dispose();
  }
});
