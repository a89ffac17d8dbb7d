import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { tempStore } from '../../helpers/import-file';
import { rng } from '../../bench/lib';
import { storeSql, storeWriter } from '../../helpers/store-sql';

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

test('samples and tiles written through the SQLite extension (qs_rows) are the rows bound parameters write, type for type', () => {
  const write = (extension: boolean) => {
    const ts = tempStore();
    const saved = process.env.QUADSCOPE_SQLITE_EXTENSION;
    if (!extension) process.env.QUADSCOPE_SQLITE_EXTENSION = 'off';
    try {
      const inc = ts.store.createIncident('q');
      const w = ts.store.beginSource(inc, { path: 'q', format: 'prometheus-text', bytes: 0 });
      // Sparse scrapes (one sample a tile, past one statement of rows), dense ones (tiles of many), a
      // repeated time, a sample back in time, times before 0 and past 1e15, fractions of a ms, -0 and
      // integral values.
      const ids = Array.from({ length: 40 }, (_, i) => w.series({ name: 'g', labels: { i: String(i) } }));
      const r = rng(7);
      for (let k = 0; k < 1200; k++) {
        for (let s = 0; s < ids.length; s++) {
          const step = s % 3 === 0 ? 15_000 : s % 3 === 1 ? 1000 : 2_500.4;
          const v = s % 5 === 0 ? Math.round(r() * 100) : s % 5 === 1 ? -0 : (r() - 0.5) * 1e9 / 7;
          w.sample(ids[s], T + k * step, v);
        }
        if (k === 600) w.sample(ids[4], T + 1000, 7);
        if (k === 700) w.sample(ids[5], T, 8);
      }
      for (const t of [-25_000, -1, 0, 1e15 + 3, 1e16]) w.sample(ids[1], t, t / 3);
      w.commit([]);
      const db = storeSql(ts.store);
      const rows = (sql: string) => JSON.stringify(db.prepare(sql).raw().all());
      return {
        samples: rows('SELECT series_id, ts_ms, typeof(ts_ms), quote(value), typeof(value) FROM samples ORDER BY 1, 2'),
        tiles: rows('SELECT series_id, tile, typeof(tile), t_first, typeof(t_first), quote(min), quote(max), typeof(min), n, typeof(n) FROM sample_tiles ORDER BY 1, 2'),
      };
    } finally {
      if (saved === undefined) delete process.env.QUADSCOPE_SQLITE_EXTENSION;
      else process.env.QUADSCOPE_SQLITE_EXTENSION = saved;
      ts.dispose();
    }
  };
  const packed = write(true);
  const bound = write(false);
  assert.ok(packed.samples.length > 1e6);
  assert.equal(packed.samples, bound.samples);
  assert.equal(packed.tiles, bound.tiles);
});

test("a source writer prepares its statements once per connection: a live recording's next batch prepares none", () => {
  const ts = tempStore();
  const proto = Database.prototype as unknown as { prepare: (...args: unknown[]) => unknown };
  const prepare = proto.prepare;
  let prepared: string[] = [];
  proto.prepare = function (this: unknown, ...args: unknown[]) {
    prepared.push(String(args[0]).slice(0, 60));
    return prepare.apply(this, args);
  };
  try {
    const inc = ts.store.createIncident('live');
    const batch = (sourceId: number | null, from: number) => {
      const meta = { path: 'live:nvml', format: 'live-nvml', bytes: 0 };
      const w = sourceId === null ? ts.store.beginSource(inc, meta) : ts.store.continueSource(inc, sourceId, meta);
      const id = sourceId === null ? w.series({ name: 'gpu.util', labels: { gpu: '0' } }) : 1;
      for (let k = 0; k < 50; k++) w.sample(id, from + k * 100, k);
      w.commit([]);
      ts.store.extendIncidentSpan(inc, from, from + 4900);
      return w.sourceId;
    };
    const source = batch(null, T);
    batch(source, T + 5000); // the first continued batch may prepare what the first batch did not use
    prepared = [];
    batch(source, T + 10_000);
    batch(source, T + 15_000);
    assert.deepEqual(prepared, [], 'statements prepared again by a later batch');
    assert.equal(storeSql(ts.store).prepare('SELECT COUNT(*) FROM samples').pluck().get(), 200);
  } finally {
    proto.prepare = prepare;
    ts.dispose();
  }
});

test('a source writing records keeps a small page cache; its first samples or scrapes written raise it; commit gives the connection its own back', () => {
  const ts = tempStore();
  try {
    const inc = ts.store.createIncident('cache');
    const writer = storeWriter(ts.store);
    const own = writer.pragma('cache_size', { simple: true });
    const spans = ts.store.beginSource(inc, { path: 'trace.json', format: 'kineto-json', bytes: 0 });
    for (let k = 0; k < 500; k++) spans.span({ trace_id: 't', span_id: `s${k}`, name: 'op', start_ns: BigInt(T) * 1_000_000n + BigInt(k) * 1000n, end_ns: BigInt(T) * 1_000_000n + BigInt(k) * 1000n + 500n });
    assert.equal(writer.pragma('cache_size', { simple: true }), -16 * 1024, 'records alone: 16 MiB');
    spans.commit([]);
    assert.equal(writer.pragma('cache_size', { simple: true }), own);
    const scrapes = ts.store.beginSource(inc, { path: 'metrics.prom', format: 'prometheus-text', bytes: 0 });
    const h = scrapes.series({ name: 'lat.e2e', kind: 'histogram' });
    // Past the open-bucket bound the scrapes are written mid-source.
    for (let k = 0; k < 100_001; k++) scrapes.histogram(h, T + k * 1000, 1, k);
    assert.equal(writer.pragma('cache_size', { simple: true }), -128 * 1024, 'scrapes written: 128 MiB');
    scrapes.commit([]);
    assert.equal(writer.pragma('cache_size', { simple: true }), own);
    assert.equal(storeSql(ts.store).prepare('SELECT COUNT(*) FROM spans').pluck().get(), 500);
  } finally {
    ts.dispose();
  }
});
