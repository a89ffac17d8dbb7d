// Which series keep 10 s tiles (source-writer.ts TILED): one whose samples come at most one a tile keeps
// none and its charts read its samples; the first time two of its samples share a tile — in the same
// source, a later one, or the second flush of one source — every sample it has gets its tile. Whatever
// the path, a tiled series' tiles are exactly its samples folded per tile, and a chart of an untiled one is
// exactly its samples' extremes per pixel bucket.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tempStore } from '../../helpers/import-file';
import { storeSql } from '../../helpers/store-sql';
import type { Store } from '../../../node/engine/store/store';

const T = Date.UTC(2026, 0, 1);
const TILE = 10_000;

/** The tiles a series' samples fold into: tile → [t_first, min, max, n]. */
function foldTiles(store: Store, id: number): Map<number, [number, number, number, number]> {
  const { t, v } = store.samples(id);
  const out = new Map<number, [number, number, number, number]>();
  for (let i = 0; i < t.length; i++) {
    const k = Math.floor(t[i] / TILE);
    const x = out.get(k);
    if (!x) out.set(k, [t[i], v[i], v[i], 1]);
    else out.set(k, [Math.min(x[0], t[i]), Math.min(x[1], v[i]), Math.max(x[2], v[i]), x[3] + 1]);
  }
  return out;
}

function tilesOf(store: Store, id: number): Map<number, [number, number, number, number]> {
  const rows = storeSql(store).prepare('SELECT tile, t_first, min, max, n FROM sample_tiles WHERE series_id = ? ORDER BY tile').raw().all(id) as number[][];
  return new Map(rows.map((r) => [r[0], [r[1], r[2], r[3], r[4]] as [number, number, number, number]]));
}

/** Tiled: its tiles are its samples folded per tile. Untiled: no tile at all, and a chart reads its samples exactly. */
function checkSeries(store: Store, id: number, tiled: boolean, what: string): void {
  const got = tilesOf(store, id);
  if (tiled) {
    assert.deepEqual([...got], [...foldTiles(store, id)], `${what}: tiles`);
    return;
  }
  assert.equal(got.size, 0, `${what}: no tiles`);
  const { t, v } = store.samples(id);
  const [start, end] = [t[0], t[t.length - 1]];
  for (const points of [7, 100, 5000]) {
    const span = Math.max(1, end - start);
    const d = store.querySeries([id], start, end, points)[0];
    const want = new Map<number, [number, number, number]>();
    for (let i = 0; i < t.length; i++) {
      const b = t.length <= points ? i : Math.floor(((t[i] - start) * points) / span);
      const x = want.get(b);
      want.set(b, x ? [Math.min(x[0], t[i]), Math.min(x[1], v[i]), Math.max(x[2], v[i])] : [t[i], v[i], v[i]]);
    }
    const rows = [...want.values()];
    assert.deepEqual({ t: d.t, min: d.min, max: d.max }, { t: rows.map((r) => r[0]), min: rows.map((r) => r[1]), max: rows.map((r) => r[2]) }, `${what}: chart at ${points} points`);
  }
}

test('scrapes one a tile keep no tiles; two in a tile, in this source or a later one, tile the whole series', () => {
  const ts = tempStore();
  try {
    const inc = ts.store.createIncident('tiles');
    const a = ts.store.beginSource(inc, { path: 'a.prom', format: 'prometheus-text', bytes: 0 });
    const sparse = a.series({ name: 'sparse' });
    const dense = a.series({ name: 'dense' });
    const later = a.series({ name: 'sparse then dense' });
    const turns = a.series({ name: 'sparse, dense inside this source' });
    const edge = a.series({ name: 'sparse, the next source starts in its last tile' });
    const back = a.series({ name: 'sparse, a sample back in time later' });
    const far = a.series({ name: 'sparse, times before 0 and past 1e15' });
    for (let k = 0; k < 400; k++) {
      a.sample(sparse, T + k * 15_000, Math.sin(k));
      a.sample(later, T + k * 15_000, k % 7);
      a.sample(edge, T + k * 15_000 + 1000, -k);
      a.sample(back, T + k * 30_000, k / 3);
      a.sample(turns, k < 300 ? T + k * 15_000 : T + 300 * 15_000 + (k - 300) * 100, k);
    }
    for (let k = 0; k < 4000; k++) a.sample(dense, T + k * 1000, k % 13);
    for (const t of [-3e6, -25_001, -1, 0, 12_345, 1e15 + 3, 1e16]) a.sample(far, t, t / 7);
    a.commit([]);
    for (const [id, tiled, what] of [[sparse, false, 'sparse'], [dense, true, 'dense'], [later, false, 'sparse, before'], [turns, true, 'turns dense'], [edge, false, 'edge, before'], [back, false, 'back, before'], [far, false, 'far']] as const)
      checkSeries(ts.store, id, tiled, what);

    // A later source writing into the same series (as a live recording's next batch does).
    const b = ts.store.continueSource(inc, a.sourceId, { path: 'a.prom', format: 'prometheus-text', bytes: 0 });
    for (let k = 0; k < 300; k++) b.sample(later, T + 400 * 15_000 + k * 500, k); // two a tile: tiles for all
    b.sample(edge, T + 399 * 15_000 + 1000 + 2000, 5); // in the tile of the store's last sample
    b.sample(back, T + 100 * 30_000 + 7, 9); // back in time, alone in its tile
    b.sample(sparse, T + 400 * 15_000, 1); // still one a tile
    b.sample(dense, T + 4000 * 1000 + 60_000, 2); // a tiled series: its lone sample gets its tile
    b.commit([]);
    for (const [id, tiled, what] of [[sparse, false, 'sparse, after'], [dense, true, 'dense, after'], [later, true, 'sparse then dense'], [edge, true, 'edge'], [back, true, 'back'], [far, false, 'far, after']] as const)
      checkSeries(ts.store, id, tiled, what);
  } finally {
    ts.dispose();
  }
});

test('a series that turns dense after a flush within one source gets tiles for the samples that flush wrote', () => {
  const ts = tempStore();
  try {
    const inc = ts.store.createIncident('flush');
    const w = ts.store.beginSource(inc, { path: 'big.prom', format: 'prometheus-text', bytes: 0 });
    const filler = w.series({ name: 'filler' });
    const s = w.series({ name: 'sparse, then dense after the first flush' });
    // 2^21 samples held make a flush (SAMPLES_HELD_MAX): the sparse series' first 200 go with it.
    for (let k = 0; k < 200; k++) w.sample(s, T + k * 15_000, k);
    for (let k = 0; k < 2 ** 21; k++) w.sample(filler, T + k * 100, k & 255);
    for (let k = 0; k < 500; k++) w.sample(s, T + 199 * 15_000 + 1 + k * 700, -k);
    w.commit([]);
    checkSeries(ts.store, s, true, 'turned dense');
    assert.equal(ts.store.samples(s).t.length, 700);
  } finally {
    ts.dispose();
  }
});
