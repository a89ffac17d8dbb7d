// The model's reads of stored series (series-buckets.ts): scanned from the store into window buckets,
// seeked for where they begin and fall silent, they must give the grid, the frame and the diagnosis the
// very numbers the same series held whole in memory give — to the last bit — while holding no more than
// their windows. Cases that take each path: dense series (kept as buckets), sparse ones (held whole),
// a counter reset, a histogram whose bucket layout changes, a stray burst an hour and a half before the
// rest, and an engine whose scrape interval changes after its first 256 steps (the guessed grid is wrong
// and the frame scans again on the right one).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from '../../../node/engine/store/store';
import { analyzeSignals } from '../../../node/engine/model/diagnose';
import { DEFAULT_CONFIG } from '../../../node/engine/model/config';
import { buildFrame, frameReads, histogramWindows } from '../../../node/engine/model/frame';
import { bucketDelta, histogramEntropy, histogramQuantile } from '../../../node/engine/model/quantiles';
import { signalGrid } from '../../../node/engine/model/series-buckets';
import { loadSignals, StoredSeries, type Signals } from '../../../node/engine/model/signals-from-store';
import { denseSpan, engineInterval, engineStart, makeGrid, piecesOf } from '../../../node/engine/model/windows';
import { servingIncident } from '../../helpers/synthetic-incident';

const T0 = Date.UTC(2026, 2, 14, 9);
const LE = [0.1, 0.5, 1, 2.5, 5, Infinity];
const LE2 = [0.25, 1, 4, Infinity];

/** 70 minutes of a serving engine scraped at 2 s for its first 270 scrapes and about 9 s after, GPU telemetry at 1 s. */
function incident(dir: string): { store: Store; id: number } {
  const store = new Store(join(dir, 'ws.db'));
  const id = store.createIncident('buckets');
  const w = store.beginSource(id, { path: 'engine.prom', format: 'prometheus-text', bytes: 0 });
  let seed = 11;
  const rnd = () => ((seed = (seed * 48271) % 2147483647) / 2147483647);
  const kv = w.series({ name: 'kv.usage', kind: 'gauge' });
  const run = w.series({ name: 'req.running', kind: 'gauge' });
  const wait = w.series({ name: 'req.waiting', kind: 'gauge' });
  const fin = w.series({ name: 'req.finished', kind: 'counter' });
  const gen = w.series({ name: 'tokens.generation', kind: 'counter' });
  const e2e = w.series({ name: 'lat.e2e', kind: 'histogram' });
  const e2eSum = w.series({ name: 'lat.e2e.sum', kind: 'counter' });
  const e2eCount = w.series({ name: 'lat.e2e.count', kind: 'counter' });
  let t = T0;
  let done = 0;
  let tokens = 0;
  let obs = 0;
  let latSum = 0;
  const counts = LE.map(() => 0);
  for (let k = 0; ; k++) {
    t += k < 270 ? 2000 : 9000 + Math.round(rnd() * 400 - 200);
    if (t > T0 + 70 * 60_000) break;
    const late = t > T0 + 45 * 60_000;
    w.sample(kv, t, (late ? 0.9 : 0.4) + rnd() * 0.09);
    w.sample(run, t, Math.round(20 + rnd() * 6));
    w.sample(wait, t, late ? Math.round(rnd() * 12) : 0);
    // The engine restarts at minute 55: its counters start again from zero.
    if (Math.abs(t - (T0 + 55 * 60_000)) < 4500) done = tokens = 0;
    done += Math.round(5 + rnd() * 10);
    tokens += Math.round(1800 + rnd() * 400) * (late ? 0.6 : 1);
    w.sample(fin, t, done);
    w.sample(gen, t, tokens);
    const n = Math.round(4 + rnd() * 8);
    for (let i = 0; i < n; i++) {
      const x = (late ? 2 : 0.3) * (0.2 + rnd() * 2);
      latSum += x;
      obs++;
      for (let b = 0; b < LE.length; b++) if (x <= LE[b]) counts[b]++;
    }
    // Its bucket layout changes with a new version at minute 60.
    if (t < T0 + 60 * 60_000) for (let b = 0; b < LE.length; b++) w.histogram(e2e, t, LE[b], counts[b]);
    else for (const [b, le] of LE2.entries()) w.histogram(e2e, t, le, counts[Math.min(b + 1, LE.length - 1)]);
    w.sample(e2eSum, t, latSum);
    w.sample(e2eCount, t, obs);
  }
  // The prompt tokens counted every second (a dense counter, restarting at minute 55 too).
  const prompt = w.series({ name: 'tokens.prompt', kind: 'counter' });
  let ptok = 0;
  for (let s = 0; s <= 4200; s++) {
    ptok = s === 3300 ? 0 : ptok + Math.round(3000 + rnd() * 900);
    w.sample(prompt, T0 + s * 1000, ptok);
  }
  // GPU telemetry every second, a stray burst of it 90 minutes before the engine came up, throttle bits.
  for (const gpu of ['0', '1']) {
    const used = w.series({ name: 'gpu.mem.used', labels: { gpu }, kind: 'gauge' });
    const util = w.series({ name: 'gpu.util', labels: { gpu }, kind: 'gauge' });
    const thr = w.series({ name: 'gpu.throttle_reasons', labels: { gpu }, kind: 'gauge' });
    for (let s = -5400; s < -5300; s++) w.sample(used, T0 + s * 1000, 1e9);
    for (let s = 0; s <= 4200; s++) {
      w.sample(used, T0 + s * 1000, 60e9 + s * 1e6 + rnd() * 1e8);
      w.sample(util, T0 + s * 1000, 0.5 + rnd() / 2);
      w.sample(thr, T0 + s * 1000, s > 3000 && gpu === '1' ? 4 : Math.floor(s / 7) % 3 ? 0 : 1);
    }
  }
  w.commit([]);
  return { store, id };
}

/** The same signals with every series read whole into plain arrays, as the model held them before. */
function inMemory(sig: Signals): Signals {
  const series = new Map([...sig.series].map(([k, list]) => [k, list.map((s) => ({ id: s.id, name: s.name, labels: { ...s.labels }, kind: s.kind, t: s.t, v: s.v }))]));
  const histograms = new Map([...sig.histograms].map(([k, list]) => [k, list.map((h) => ({ id: h.id, name: h.name, labels: { ...h.labels }, snaps: h.snaps.map((x) => ({ t: x.t, le: x.le, counts: x.counts })) }))]));
  return { ...sig, series, histograms };
}

/** Every number of two frames, compared with Object.is (NaN equals NaN, 0 is not -0). */
function sameNumbers(a: unknown, b: unknown, path: string): void {
  if (ArrayBuffer.isView(a) && ArrayBuffer.isView(b)) {
    const x = a as unknown as ArrayLike<number>;
    const y = b as unknown as ArrayLike<number>;
    assert.equal(x.length, y.length, `${path}: length`);
    for (let i = 0; i < x.length; i++) if (!Object.is(x[i], y[i])) assert.fail(`${path}[${i}]: ${x[i]} ≠ ${y[i]}`);
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    assert.equal(a.length, b.length, `${path}: length`);
    a.forEach((x, i) => sameNumbers(x, b[i], `${path}[${i}]`));
    return;
  }
  if (a && b && typeof a === 'object' && typeof b === 'object' && !(a instanceof Set)) {
    for (const k of Object.keys(a)) sameNumbers((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`);
    return;
  }
  if (a instanceof Set && b instanceof Set) return assert.deepEqual([...a].sort(), [...b].sort(), path);
  if (!Object.is(a, b)) assert.fail(`${path}: ${String(a)} ≠ ${String(b)}`);
}

test('stored series give the grid, the frame and the diagnosis of the same series held in memory, bit for bit', () => {
  const dir = mkdtempSync(join(tmpdir(), 'qs-buckets-'));
  try {
    const { store, id } = incident(dir);
    const cfg = DEFAULT_CONFIG;
    const held = inMemory(loadSignals(store, id));
    // The grid as analyzeOne made it over every series' times.
    const timed = [...[...held.series.values()].flat(), ...[...held.histograms.values()].flat().map((h) => ({ name: h.name, t: Float64Array.from(h.snaps, (x) => x.t) }))];
    const dense = denseSpan(timed, cfg.gap_split_ms)!;
    const interval = engineInterval(timed);
    const expected = { dense, interval, grid: makeGrid(dense.start_ms, dense.end_ms, interval, cfg), engineFrom: engineStart(timed, dense.start_ms) };
    assert.equal(dense.gaps.length, 1, 'the stray burst is a gap');
    assert.ok(interval > 5000, `${interval}: the engine's late 9 s scrapes decide the interval, not its first 2 s ones`);

    const stored = loadSignals(store, id);
    const got = signalGrid(stored, cfg, (n) => frameReads(n, cfg.causes.kv_full));
    sameNumbers({ dense: got.dense, interval: got.interval, grid: got.grid, engineFrom: got.engineFrom }, expected, 'grid');
    sameNumbers(buildFrame(stored, got.grid, cfg.causes.kv_full), buildFrame(held, expected.grid, cfg.causes.kv_full), 'frame');
    // Another grid (a fleet instance's, another configuration's) is scanned again, and still the same.
    const other = makeGrid(dense.start_ms + 60_000, dense.end_ms, 2000, cfg);
    sameNumbers(buildFrame(stored, other, 0.5), buildFrame(held, other, 0.5), 'frame on another grid');
    assert.equal(JSON.stringify(analyzeSignals(loadSignals(store, id)).diagnosis), JSON.stringify(analyzeSignals(inMemory(loadSignals(store, id))).diagnosis));

    // What the model kept: the sparse engine series whole (fewer samples than two a bucket), the 1 s
    // series as buckets only — never read whole.
    const kv = stored.series.get('kv.usage')![0] as StoredSeries;
    for (const name of ['gpu.util', 'gpu.throttle_reasons', 'tokens.prompt']) assert.equal((stored.series.get(name)![0] as StoredSeries).held, null, `${name}, a dense series, is not read whole`);
    assert.ok(kv.held, 'a sparse series is held whole once scanned');
    store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a stored series is cut where it falls silent by seeks, as piecesOf cuts its times', () => {
  const dir = mkdtempSync(join(tmpdir(), 'qs-pieces-'));
  try {
    const store = new Store(join(dir, 'ws.db'));
    const id = store.createIncident('pieces');
    const w = store.beginSource(id, { path: 'x.prom', format: 'prometheus-text', bytes: 0 });
    const s = w.series({ name: 'kv.usage', kind: 'gauge' });
    const gap = 60_000;
    // Steps of exactly the gap (not a cut), one ms longer (a cut), lone samples, a long regular stretch.
    const times = [0, 1000, 61_000, 121_001, 121_500, 300_000, 500_000, 560_000, 620_001];
    for (let k = 0; k < 500; k++) times.push(700_000 + k * 7_000);
    for (const x of times) w.sample(s, T0 + x, 1);
    w.commit([]);
    const sig = loadSignals(store, id);
    const stored = sig.series.get('kv.usage')!;
    const held = inMemory(sig).series.get('kv.usage')!;
    const grid = signalGrid({ ...sig, histograms: new Map() }, { ...DEFAULT_CONFIG, gap_split_ms: gap }, () => null);
    assert.deepEqual(grid.dense, denseSpan(held, gap));
    assert.deepEqual(
      piecesOf(held[0].t, gap).map((p) => [p.a - T0, p.b - T0]),
      [[0, 61_000], [121_001, 121_500], [300_000, 300_000], [500_000, 560_000], [620_001, 620_001], [700_000, 700_000 + 499 * 7000]],
    );
    assert.ok(stored[0] instanceof StoredSeries);
    store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an analysis scans each stored series and histogram once, and holds the dense ones only as buckets', () => {
  const dir = mkdtempSync(join(tmpdir(), 'qs-scans-'));
  try {
    const store = new Store(join(dir, 'ws.db'));
    const x = servingIncident(store, 2 * 3600, { kv: (s) => (s > 5000 ? 0.97 : 0.4), preemptRate: (s) => (s > 5000 ? 2 : 0), gtok: (s) => (s > 5000 ? 1200 : 2000) });
    x.gauge('gpu.mem.used', () => 70e9, { gpu: '1' });
    const id = x.done();
    const scans = new Map<string, number>();
    const count = (k: string) => scans.set(k, (scans.get(k) ?? 0) + 1);
    const source = {
      file: store.file,
      modelInput: (incident: number, opts: Parameters<Store['modelInput']>[1]) => {
        const input = store.modelInput(incident, opts)!;
        const { scanSamples, scanScrapesDown, samples, scrapes } = input.reads;
        input.reads.scanSamples = (sid, ...rest) => (count(`samples ${sid}`), scanSamples(sid, ...rest));
        input.reads.scanScrapesDown = (sid, ...rest) => (count(`scrapes ${sid}`), scanScrapesDown(sid, ...rest));
        input.reads.samples = (sid, to) => (count(`whole ${sid}`), samples(sid, to));
        input.reads.scrapes = (sid, to) => (count(`whole scrapes ${sid}`), scrapes(sid, to));
        return input;
      },
    };
    const sig = loadSignals(source, id);
    const d = analyzeSignals(sig).diagnosis;
    assert.equal(d.causes[0]?.id, 'kv_exhaustion');
    const twice = [...scans].filter(([, n]) => n > 1);
    assert.deepEqual(twice, [], 'scanned more than once (frame.ts frameReads out of step with buildFrame?)');
    assert.deepEqual([...scans.keys()].filter((k) => k.startsWith('whole')), [], 'no series read whole');
    assert.ok(scans.size >= 20, `${scans.size} series and histograms scanned`);
    for (const list of sig.series.values()) for (const s of list) assert.equal((s as StoredSeries).held, null, `${s.name} held whole`);
    store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** histogramWindows as it was written over one array per window: the reference the packed windows must equal. */
function histogramWindowsReference(list: { snaps: { t: number; le: number[]; counts: number[] }[] }[], g: ReturnType<typeof makeGrid>) {
  const groups = new Map<string, { le: number[]; members: Float64Array[][] }>();
  for (const h of list) {
    const snaps = h.snaps;
    const deltas: Float64Array[] = [];
    let a = -1;
    let b = -1;
    for (let i = 0; i < g.n; i++) {
      const s = g.t0 + i * g.step;
      const e = s + g.W;
      while (a + 1 < snaps.length && snaps[a + 1].t <= s) a++;
      while (b + 1 < snaps.length && snaps[b + 1].t <= e) b++;
      const from = a >= 0 ? a : 0;
      deltas.push(b > from ? bucketDelta(snaps[from].counts, snaps[b].counts) : new Float64Array(0));
    }
    const le = snaps[snaps.length - 1].le;
    const group = groups.get(le.join(',')) ?? { le, members: [] };
    group.members.push(deltas);
    groups.set(le.join(','), group);
  }
  const merged = [...groups.values()].map(({ le, members }) => ({
    le,
    cum: Array.from({ length: g.n }, (_, i) => {
      const sum = new Float64Array(le.length);
      for (const m of members) if (m[i].length === le.length) for (let j = 0; j < le.length; j++) sum[j] += m[i][j];
      return sum;
    }),
  }));
  const quantile = (q: number) =>
    Float64Array.from({ length: g.n }, (_, i) => {
      let out = NaN;
      for (const m of merged) {
        const x = histogramQuantile(q, m.le, m.cum[i]);
        if (Number.isFinite(x) && !(out >= x)) out = x;
      }
      return out;
    });
  return {
    p99: quantile(0.99),
    p50: quantile(0.5),
    count: Float64Array.from({ length: g.n }, (_, i) => merged.reduce((a, m) => a + (m.cum[i][m.le.length - 1] ?? 0), 0)),
    entropy: Float64Array.from({ length: g.n }, (_, i) => histogramEntropy(merged[0].cum[i])),
  };
}

test('histogram windows, packed one buffer per layout, equal the windows of one array each', () => {
  const dir = mkdtempSync(join(tmpdir(), 'qs-hist-'));
  try {
    const { store, id } = incident(dir);
    // Three engines' histograms (the unlabelled one is then set aside): two of one layout, which add up,
    // at other times than each other, and one of its own layout.
    const w = store.beginSource(id, { path: 'engine-2.prom', format: 'prometheus-text', bytes: 0 });
    const one = w.series({ name: 'lat.e2e', labels: { instance: 'a' }, kind: 'histogram' });
    const two = w.series({ name: 'lat.e2e', labels: { instance: 'b' }, kind: 'histogram' });
    const three = w.series({ name: 'lat.e2e', labels: { instance: 'c' }, kind: 'histogram' });
    for (let s = 30; s < 4000; s += 15) {
      for (const [b, le] of LE.entries()) w.histogram(one, T0 + s * 1000 + 3001, le, (b + 1) * s + (s > 3000 ? 0 : 5000));
      for (const [b, le] of LE.entries()) w.histogram(two, T0 + s * 1000, le, (b + 1) * s);
      for (const [b, le] of [0.2, 2, Infinity].entries()) w.histogram(three, T0 + s * 1000 + 7, le, (b + 2) * s * (s > 2000 ? 1 : 3));
    }
    w.commit([]);
    const stored = loadSignals(store, id);
    const list = stored.histograms.get('lat.e2e')!;
    assert.equal(list.length, 3);
    const held = inMemory(loadSignals(store, id)).histograms.get('lat.e2e')!;
    const grid = makeGrid(T0, T0 + 70 * 60_000, 9000, DEFAULT_CONFIG);
    const want = histogramWindowsReference(held, grid);
    for (const from of [list, held]) {
      const got = histogramWindows(from, grid)!;
      sameNumbers({ p99: got.quantile(0.99), p50: got.quantile(0.5), count: got.count, entropy: got.entropy }, want, 'histogram windows');
    }
    assert.ok(want.p99.some(Number.isFinite) && want.count.some((x) => x > 0));
    store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
