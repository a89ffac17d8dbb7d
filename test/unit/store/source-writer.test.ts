import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tempStore } from '../../helpers/import-file';
import { rng } from '../../bench/lib';
import { storeSql } from '../../helpers/store-sql';

const T = Date.UTC(2026, 0, 1);

test('histogram scrapes: buckets in any order and split over two sources read back whole through the view', () => {
  const ts = tempStore();
  try {
    const inc = ts.store.createIncident('h');
    const a = ts.store.beginSource(inc, { path: 'a', format: 'prometheus-text', bytes: 0 });
    const id = a.series({ name: 'lat.ttft', kind: 'histogram' });
    a.histogram(id, T, Infinity, 10);
    a.histogram(id, T, 0.1, 4);
    a.histogram(id, T + 1000, 0.1, 5);
    a.commit([]);
    // The live recorder keeps series ids across its batches: the rest of the scrape comes in a new source.
    const b = ts.store.beginSource(inc, { path: 'b', format: 'prometheus-text', bytes: 0 });
    b.histogram(id, T, 0.5, 7);
    b.histogram(id, T, 0.1, 3); // the same bucket again: the later value wins
    b.commit([]);
    assert.deepEqual(storeSql(ts.store).prepare('SELECT ts_ms, le, count FROM histograms WHERE series_id = ? ORDER BY ts_ms, le').raw().all(id), [
      [T, 0.1, 3],
      [T, 0.5, 7],
      [T, Infinity, 10],
      [T + 1000, 0.1, 5],
    ]);
    assert.deepEqual(ts.store.histogramSnapshots(id).map(({ t, le, counts }) => ({ t, le, counts })), [
      { t: T, le: [0.1, 0.5, Infinity], counts: [3, 7, 10] },
      { t: T + 1000, le: [0.1], counts: [5] },
    ]);
  } finally {
    ts.dispose();
  }
});

test('samples interleaved over many series: a repeated timestamp keeps the last value; tiles and model reads are exact', () => {
  const ts = tempStore();
  try {
    const inc = ts.store.createIncident('s');
    const w = ts.store.beginSource(inc, { path: 's', format: 'prometheus-text', bytes: 0 });
    const ids = Array.from({ length: 7 }, (_, i) => w.series({ name: 'g', labels: { i: String(i) } }));
    const r = rng(3);
    const want = ids.map(() => new Map<number, number>());
    for (let k = 0; k < 3000; k++) {
      for (let s = 0; s < ids.length; s++) {
        const t = T + k * 100;
        const v = (r() - 0.5) * 1e6 / 3;
        w.sample(ids[s], t, v);
        want[s].set(t, v);
      }
      if (k === 1500) w.sample(ids[2], T, 42); // back in time: replaces the first sample
    }
    want[2].set(T, 42);
    w.commit([]);
    for (let s = 0; s < ids.length; s++) {
      const got = ts.store.samples(ids[s]);
      const exp = [...want[s]].sort((x, y) => x[0] - y[0]);
      assert.deepEqual(Array.from(got.t), exp.map((e) => e[0]));
      assert.deepEqual(Array.from(got.v), exp.map((e) => e[1]));
    }
    const tile0 = storeSql(ts.store).prepare('SELECT t_first, min, max, n FROM sample_tiles WHERE series_id = ? AND tile = ?').get(ids[0], Math.floor(T / 10_000)) as { t_first: number; min: number; max: number; n: number };
    const first = [...want[0]].filter(([t]) => Math.floor(t / 10_000) === Math.floor(T / 10_000)).map((e) => e[1]);
    assert.deepEqual(tile0, { t_first: T, min: Math.min(...first), max: Math.max(...first), n: first.length });
  } finally {
    ts.dispose();
  }
});
