// Series into window buckets, and the window grid itself, at the cost of the data, not of the span.
//
// A series held in memory (a test's arrays, a small series already read) is bucketed from its arrays as
// windows.ts always did. A series in the store is scanned once per grid: the store hands each sample to
// a BucketFold (windows.ts), the same arithmetic in the same order, so both give the same buckets to the
// last bit. What stays is one entry per bucket, or the samples themselves where there are fewer of them
// than that (then any later grid, a fleet instance's, is bucketed from memory). Histograms keep only the
// scrapes at window edges, found newest first in one scan of their times.
//
// The grid needs the engine's scrape interval, the median step of its series, which only a scan of
// their times gives. So the interval is first guessed from each series' first steps, the engine's series
// are scanned on the grid that guess gives — collecting their steps on the way — and the exact interval
// decides the grid. Where the guess was wrong the frame scans again on the right grid; the answer never
// depends on the guess. Where each series begins, ends and falls silent is answered by seeks.
import type { ModelConfig } from './config';
import { bucketCounter, type CounterBuckets } from '../../../common/counters';
import { bucketDelta } from './quantiles';
import { samplesIn, StoredHistogram, StoredSeries, type LoadedHistogram, type LoadedSeries, type Signals, type StoredRows } from './signals-from-store';
import {
  bucketBits,
  bucketGauge,
  BucketFold,
  counterResets,
  denseSpanOf,
  engineIntervalOf,
  engineStartOf,
  ENGINE_FAMILY,
  makeGrid,
  medianStep,
  piecesOf,
  StepTally,
  windowStart,
  type CounterReset,
  type DenseSpan,
  type FoldKinds,
  type GaugeBuckets,
  type Piece,
  type WindowGrid,
} from './windows';

// ---- samples in memory or in the store

/** A series' samples when they are in memory (a plain series, or a stored one already read), else null. */
function inMemory(s: LoadedSeries): { t: Float64Array; v: Float64Array } | null {
  return s instanceof StoredSeries ? s.held : s;
}

const gridKey = (g: Pick<WindowGrid, 't0' | 'step' | 'nb'>) => `${g.t0}/${g.step}/${g.nb}`;

/** The buckets of one stored series on one grid. */
interface Folded {
  key: string;
  fold: BucketFold;
}

/** Each stored series' buckets on the last grid asked for (older grids are dropped: one grid at a time is in use). */
const folds = new WeakMap<StoredSeries, Folded>();

/** The median step of each stored series or histogram once a scan has seen all its times. */
const steps = new WeakMap<StoredSeries | StoredHistogram, number>();

/**
 * Samples kept whole by a scan while there are at most this many per bucket of its grid: 16 bytes a sample
 * against the 56 of a bucket's gauge and counter sums, so memory still follows the windows.
 */
const HOLD_PER_BUCKET = 2;

/**
 * Scans a stored series on grid `g` into the buckets `kinds` asks for (and those already made on this grid),
 * its steps on the way when `withSteps`. A series that turns out small is held whole instead.
 */
function scan(s: StoredSeries, g: WindowGrid, kinds: FoldKinds, withSteps: boolean): BucketFold {
  const had = folds.get(s);
  const key = gridKey(g);
  const same = had?.key === key ? had.fold : null;
  const fold = new BucketFold(g, {
    gauge: kinds.gauge ?? (same?.gauge ? { above: same.above } : undefined),
    counter: kinds.counter || !!same?.counter,
    bits: kinds.bits || !!same?.bits,
  });
  // Kept whole only where it is small: the samples are copied as they pass until there are more than
  // `cap` of them (then let go), so a dense series costs its first `cap` copies at most, bounded by the
  // grid. Counting the rows first to decide cost a second read of as many rows in SQLite (issue 20).
  const cap = HOLD_PER_BUCKET * g.nb;
  let t: Growing | null = new Growing();
  let v: Growing | null = new Growing();
  const d = withSteps ? new StepTally() : null;
  let n = 0;
  let prev = NaN;
  s.rows.reads.scanSamples(s.id, s.rows.first, s.rows.last, (ts, x) => {
    fold.add(ts, x);
    if (d && n > 0) d.add(ts - prev);
    prev = ts;
    if (t) {
      if (n < cap) {
        t.push(ts);
        v!.push(x);
      } else t = v = null;
    }
    n++;
  });
  if (d) steps.set(s, d.median());
  if (t && v && n <= cap) {
    s.hold({ t: t.values.slice(), v: v.values.slice() });
    folds.delete(s);
  } else folds.set(s, { key, fold });
  return fold;
}

/** Collects numbers in a growing typed array. */
class Growing {
  a = new Float64Array(1024);
  n = 0;
  push(x: number): void {
    if (this.n === this.a.length) {
      const b = new Float64Array(this.a.length * 2);
      b.set(this.a);
      this.a = b;
    }
    this.a[this.n++] = x;
  }
  get values(): Float64Array {
    return this.a.subarray(0, this.n);
  }
}

/** The fold of a stored series on `g` holding what `kinds` asks for, scanning when it is not made yet. */
function foldOf(s: StoredSeries, g: WindowGrid, kinds: FoldKinds): BucketFold {
  const had = folds.get(s);
  if (had && had.key === gridKey(g)) {
    const f = had.fold;
    const ok = (!kinds.gauge || (f.gauge && f.above === kinds.gauge.above)) && (!kinds.counter || f.counter) && (!kinds.bits || f.bits);
    if (ok) return f;
  }
  return scan(s, g, kinds, false);
}

/** A gauge's buckets on `g` (windows.ts bucketGauge), from memory or one scan. */
export function gaugeBucketsOf(s: LoadedSeries, g: WindowGrid, above = Infinity): GaugeBuckets {
  const m = inMemory(s);
  if (m) return bucketGauge(m.t, m.v, g, above);
  return foldOf(s as StoredSeries, g, { gauge: { above } }).gauge!;
}

/** A counter's increases on `g` (common/counters.ts bucketCounter), from memory or one scan. */
export function counterBucketsOf(s: LoadedSeries, g: WindowGrid): CounterBuckets {
  const m = inMemory(s);
  if (m) return bucketCounter(m.t, m.v, g.t0, g.step, g.nb);
  return foldOf(s as StoredSeries, g, { counter: true }).counter!;
}

/**
 * Where a counter went back, over all its samples: from memory, else from the fold the frame's rates made of it
 * (a scan sees every sample), else — a counter no rate was read of — one scan of its own.
 */
export function counterResetsOf(s: LoadedSeries): CounterReset[] {
  const m = inMemory(s);
  if (m) return counterResets(m.t, m.v);
  const made = folds.get(s as StoredSeries)?.fold.resets;
  if (made) return made;
  const f = new BucketFold({ t0: 0, step: 1, nb: 0 }, { counter: true });
  samplesIn(s, -Infinity, Infinity, (t, v) => f.add(t, v));
  return f.resets!;
}

/** Bit masks OR-ed per bucket on `g`, from memory or one scan. */
export function bitsBucketsOf(s: LoadedSeries, g: WindowGrid): Float64Array {
  const m = inMemory(s);
  if (m) return bucketBits(m.t, m.v, g);
  return foldOf(s as StoredSeries, g, { bits: true }).bits!;
}

// ---- histograms: the scrapes at window edges

/**
 * Per window, the bucket counts added between its edges, all windows in one buffer: window i's are the
 * `len[i]` numbers from `at[i]` (-1: no pair of scrapes spans it). `le`: the bounds of the last scrape.
 * A day of windows is tens of thousands of small arrays, and an object each costs more than its numbers.
 */
export interface HistogramDeltas {
  buf: Float64Array;
  at: Int32Array;
  len: Int32Array;
  le: number[];
}

const edgeDeltas = new WeakMap<StoredHistogram, { key: string; d: HistogramDeltas }>();

/**
 * Per window, the bucket counts added between the last snapshot at or before the window's start and the
 * last at or before its end (the first snapshot where none precedes the start).
 */
export function histogramDeltas(h: LoadedHistogram, g: WindowGrid): HistogramDeltas {
  if (!(h instanceof StoredHistogram)) return deltasInMemory(h.snaps, g);
  // Made while the grid was learnt, for the frame that follows: read once, then let go.
  const had = edgeDeltas.get(h);
  edgeDeltas.delete(h);
  if (had?.key === gridKey(g)) return had.d;
  return scanEdges(h, g, false);
}

function deltasInMemory(snaps: LoadedHistogram['snaps'], g: WindowGrid): HistogramDeltas {
  const from = new Int32Array(g.n);
  const to = new Int32Array(g.n).fill(-1);
  let a = -1;
  let b = -1;
  for (let i = 0; i < g.n; i++) {
    const s = windowStart(g, i);
    const e = s + g.W;
    while (a + 1 < snaps.length && snaps[a + 1].t <= s) a++;
    while (b + 1 < snaps.length && snaps[b + 1].t <= e) b++;
    from[i] = a >= 0 ? a : 0;
    if (b > from[i]) to[i] = b;
  }
  return packedDeltas(from, to, (k) => snaps[k].counts, snaps[snaps.length - 1].le);
}

/** Each window's bucket delta (bucketDelta) from scrape from[i] to scrape to[i] (-1: none), packed (HistogramDeltas). */
function packedDeltas(from: Int32Array, to: Int32Array, counts: (k: number) => ArrayLike<number>, le: number[]): HistogramDeltas {
  const n = to.length;
  let total = 0;
  for (let i = 0; i < n; i++) if (to[i] >= 0) total += counts(to[i]).length;
  const buf = new Float64Array(total);
  const at = new Int32Array(n).fill(-1);
  const len = new Int32Array(n);
  let o = 0;
  for (let i = 0; i < n; i++) {
    if (to[i] < 0) continue;
    const later = counts(to[i]);
    at[i] = o;
    len[i] = later.length;
    bucketDelta(counts(from[i]), later, buf.subarray(o, (o += later.length)));
  }
  return { buf, at, len, le };
}

/** Scrapes kept from a scan: times, bounds, and counts packed in one buffer (scrape k's from off[k], len[k] of them). */
class KeptScrapes {
  t = new Float64Array(1024);
  le: number[][] = [];
  private off = new Int32Array(1024);
  private lens = new Int32Array(1024);
  private counts = new Float64Array(16 * 1024);
  private used = 0;
  n = 0;

  push(t: number, le: number[], text: string): void {
    const c = JSON.parse(text) as number[];
    if (this.n === this.t.length) {
      this.t = grownTo(this.t, 2 * this.n);
      this.off = grownTo(this.off, 2 * this.n);
      this.lens = grownTo(this.lens, 2 * this.n);
    }
    if (this.used + c.length > this.counts.length) this.counts = grownTo(this.counts, 2 * (this.used + c.length));
    this.t[this.n] = t;
    this.le.push(le);
    this.off[this.n] = this.used;
    this.lens[this.n++] = c.length;
    this.counts.set(c, this.used);
    this.used += c.length;
  }

  countsOf(k: number): Float64Array {
    return this.counts.subarray(this.off[k], this.off[k] + this.lens[k]);
  }
}

function grownTo<A extends Float64Array | Int32Array>(a: A, size: number): A {
  const b = new (a.constructor as new (n: number) => A)(size);
  b.set(a);
  return b;
}

/**
 * One scan of a stored histogram's times, newest first, keeping the scrape that is the last at or before
 * each window edge (the first seen at or before it) and, when `withSteps`, its median step.
 */
function scanEdges(h: StoredHistogram, g: WindowGrid, withSteps: boolean): HistogramDeltas {
  // The edges, ascending, as deltasInMemory compares them; each window's start and end index into them.
  const edges = new Float64Array(2 * g.n);
  const startAt = new Int32Array(g.n);
  const endAt = new Int32Array(g.n);
  let ne = 0;
  for (let i = 0, j = 0; i < g.n || j < g.n; ) {
    const s = i < g.n ? windowStart(g, i) : Infinity;
    const e = j < g.n ? windowStart(g, j) + g.W : Infinity;
    const x = Math.min(s, e);
    if (!ne || edges[ne - 1] !== x) edges[ne++] = x;
    if (s === x) startAt[i++] = ne - 1;
    if (e === x) endAt[j++] = ne - 1;
  }
  const at = new Int32Array(ne).fill(-1);
  const kept = new KeptScrapes();
  let p = ne - 1;
  let newest = true;
  const d = withSteps ? new StepTally() : null;
  let prev = NaN;
  h.rows.reads.scanScrapesDown(
    h.id,
    h.rows.last,
    (t) => {
      if (d && !newest) d.add(prev - t);
      prev = t;
      let wanted = newest;
      newest = false;
      while (p >= 0 && t <= edges[p]) {
        at[p--] = kept.n;
        wanted = true;
      }
      return wanted;
    },
    (t, le, counts) => kept.push(t, le, counts),
  );
  if (d) steps.set(h, d.median());
  const first = h.rows.reads.firstScrape(h.id);
  if (!first || !kept.n) throw new Error(`histogram series ${h.id}: no scrape at or before ${h.rows.last} in the store`);
  // The first scrape, where no scrape precedes a window's start, goes last in the list.
  kept.push(first.t, first.le, first.counts);
  const firstAt = kept.n - 1;
  const from = new Int32Array(g.n);
  const to = new Int32Array(g.n).fill(-1);
  for (let i = 0; i < g.n; i++) {
    const a = at[startAt[i]];
    const b = at[endAt[i]];
    from[i] = a >= 0 ? a : firstAt;
    if (b >= 0 && kept.t[b] > kept.t[from[i]]) to[i] = b;
  }
  const out = packedDeltas(from, to, (k) => kept.countsOf(k), kept.le[0]);
  edgeDeltas.set(h, { key: gridKey(g), d: out });
  return out;
}

// ---- the window grid

/** How one series or histogram takes part in the grid: its extent, where it falls silent, its median step. */
interface Timeline {
  name: string;
  pieces(gapMs: number): Piece[];
  /** Exact median step, or null where it takes a scan (stored series not scanned yet). */
  step(): number | null;
  /** A guess of the median step from the first steps. */
  guess(): number;
  atOrAfter(from: number): number;
  /** Scans the whole series on `g` into the buckets `kinds` names, learning its median step. */
  scan(g: WindowGrid, kinds: FoldKinds): void;
}

/** Steps read to guess a stored series' median step. */
const GUESS_STEPS = 256;

const piecesCache = new WeakMap<StoredRows, { gapMs: number; pieces: Piece[] }>();

/**
 * A stored series cut where it falls silent for longer than `gapMs`, by seeks: from each time, the latest
 * one within the gap continues the piece (every step up to it is shorter), none ends it. A day costs a
 * few dozen seeks, a year between two bursts one.
 */
function storedPieces(r: StoredRows, gapMs: number): Piece[] {
  const had = piecesCache.get(r);
  if (had?.gapMs === gapMs) return had.pieces;
  const seek = (op: '<' | '<=' | '>', ts: number) => {
    const x = r.reads.seek(r.table, r.id, op, ts);
    return x === null || x > r.last ? null : x;
  };
  const out: Piece[] = [];
  r.reads.batch(() => {
    let a = r.first;
    let c = r.first;
    for (;;) {
      const far = seek('<=', Math.min(c + gapMs, r.last));
      if (far !== null && far > c) {
        if (far - c <= gapMs) {
          c = far;
          continue;
        }
        // c + gapMs rounded past a time whose distance is longer: step to the next time and test it as piecesOf does.
        const next = seek('>', c)!;
        if (next - c <= gapMs) {
          c = next;
          continue;
        }
      }
      out.push({ a, b: c });
      const next = seek('>', c);
      if (next === null) break;
      a = c = next;
    }
  });
  piecesCache.set(r, { gapMs, pieces: out });
  return out;
}

function timelineOf(x: LoadedSeries | LoadedHistogram): Timeline {
  if (x instanceof StoredSeries || x instanceof StoredHistogram) {
    const r = x.rows;
    return {
      name: x.name,
      pieces: (gapMs) => storedPieces(r, gapMs),
      step: () => {
        if (!steps.has(x) && x instanceof StoredSeries && x.held) steps.set(x, medianStep(x.held.t));
        return steps.get(x) ?? null;
      },
      guess: () => medianStep(r.reads.firstTimes(r.table, r.id, GUESS_STEPS + 1, r.last)),
      atOrAfter: (from) => {
        const t = r.reads.seek(r.table, r.id, '>=', from);
        return t === null || t > r.last ? NaN : t;
      },
      scan: (g, kinds) => {
        if (x instanceof StoredSeries) scan(x, g, kinds, true);
        else scanEdges(x, g, true);
      },
    };
  }
  const t = 't' in x ? x.t : Float64Array.from(x.snaps, (s) => s.t);
  return {
    name: x.name,
    pieces: (gapMs) => piecesOf(t, gapMs),
    step: () => medianStep(t),
    guess: () => medianStep(t),
    atOrAfter: (from) => {
      for (let i = 0; i < t.length; i++) if (t[i] >= from) return t[i];
      return NaN;
    },
    scan: () => {},
  };
}

type GridConfig = Pick<ModelConfig, 'window_ms' | 'step_ms' | 'min_samples_per_window' | 'max_windows' | 'gap_split_ms'>;

export interface SignalGrid {
  /** The dense part of the data (null without any series). */
  dense: DenseSpan | null;
  startMs: number;
  endMs: number;
  /** The serving engine's scrape interval (windows.ts engineInterval). */
  interval: number;
  grid: WindowGrid;
  /** When the engine's own data begin, from the grid's start (windows.ts engineStart). */
  engineFrom: number;
}

/**
 * The window grid of a set of signals (windows.ts: denseSpan, engineInterval, makeGrid, engineStart),
 * as they would give it over every series' times, without holding those times. `reads(name)` says how
 * the frame buckets a signal (frame.ts frameReads), so the buckets made while the interval is learnt
 * are the frame's own.
 */
export function signalGrid(sig: Signals, cfg: GridConfig, reads: (name: string) => FoldKinds | null): SignalGrid {
  return inOneRead(sig, () => gridOf(sig, cfg, reads));
}

/** Runs `fn` with the store's reads of `sig` as one (one read transaction, the small page cache set once), where it has stored series. */
export function inOneRead<T>(sig: Signals, fn: () => T): T {
  for (const list of [...sig.series.values(), ...sig.histograms.values()])
    for (const x of list) if (x instanceof StoredSeries || x instanceof StoredHistogram) return x.rows.reads.batch(fn);
  return fn();
}

function gridOf(sig: Signals, cfg: GridConfig, reads: (name: string) => FoldKinds | null): SignalGrid {
  const lines: Timeline[] = [];
  // Figures the importer derived from traced requests (label from=spans) sit on its own 10 s windows: a
  // cadence of the importer, not of the engine, so they time the grid only where nothing else does.
  const fromSpans = new Set<Timeline>();
  const add = (x: { labels: Record<string, string> }, l: Timeline) => {
    lines.push(l);
    if (x.labels.from === 'spans') fromSpans.add(l);
  };
  for (const list of sig.series.values()) for (const s of list) add(s, timelineOf(s));
  for (const list of sig.histograms.values()) for (const h of list) add(h, timelineOf(h));
  // The grid covers the dense part of the data only; silent stretches longer than gap_split_ms are reported, not gridded.
  const dense = denseSpanOf(
    lines.flatMap((l) => l.pieces(cfg.gap_split_ms)),
    cfg.gap_split_ms,
  );
  const startMs = dense?.start_ms ?? sig.start_ms;
  const endMs = dense?.end_ms ?? sig.end_ms;
  // engineInterval reads the engine's own series (span figures only where it has no others), or every series where there is none.
  const engine = lines.filter((l) => ENGINE_FAMILY.test(l.name));
  const own = engine.filter((l) => !fromSpans.has(l));
  const timing = own.length ? own : engine.length ? engine : lines;
  const unknown = timing.filter((l) => l.step() === null);
  if (unknown.length) {
    const guessed = makeGrid(startMs, endMs, engineIntervalOf(timing.map((l) => ({ name: l.name, step: l.step() ?? l.guess() }))), cfg);
    for (const l of unknown) l.scan(guessed, reads(l.name) ?? {});
  }
  const interval = engineIntervalOf(timing.map((l) => ({ name: l.name, step: l.step()! })));
  const grid = makeGrid(startMs, endMs, interval, cfg);
  return { dense, startMs, endMs, interval, grid, engineFrom: engineStartOf(lines.map((l) => ({ name: l.name, atOrAfter: l.atOrAfter })), startMs) };
}
