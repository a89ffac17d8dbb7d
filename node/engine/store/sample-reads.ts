// Whole-series reads into typed arrays, for the model and the report: every sample of a series in time
// order, and every histogram scrape of one. Measured on a 24 h incident (2.4 M samples, 2-vCPU machine;
// docs/architecture.md §5 "Reading samples"): stepping better-sqlite3 through the rows took 3.0 s,
// SQLite rendering them as JSON arrays for JSON.parse 1.0 s, and this — SQLite calling a function of
// ours once per row, which stores the two numbers straight into Float64Arrays — 0.72 s, beside 0.48 s
// for one ordered GROUP BY pass over the same rows. No row object, no string, no JSON on the way.
//
// The function is registered on each connection once (`directOnly`: user SQL, triggers and views cannot
// call it) and writes into the one read in flight; reads are synchronous, so there is never a second.
//
// The model reads most series through scans instead (scanSamples, scanScrapesDown): the same per-row
// function hands each row to a visitor of the caller's, which folds it into window buckets on the spot,
// so what the model holds follows its windows, not the samples. Seeks (timeAt) answer where a series
// begins, ends and falls silent without reading its samples.
//
// Where Quadscope's SQLite extension is loaded (sqlite-extension.ts), scans and whole-series reads go a
// chunk at a time instead: qs_pack hands PACK_CHUNK samples to JavaScript as one buffer and the visitor
// runs over it in a plain loop, so no JavaScript is called per row (24 h bench incident, 2.4 M samples:
// 0.45 s of CPU through the per-row function, 0.30 s packed, 0.26 s for the bare ordered GROUP BY pass).
import type { Statement } from 'better-sqlite3';
import type { Db } from './db';
import { hasPack, pairsOf } from './sqlite-extension';

/** Where the per-row function writes: the arrays of the read in flight and how far it got. */
interface SampleSink {
  t: Float64Array;
  v: Float64Array;
  n: number;
}

interface SnapshotSink {
  t: Float64Array;
  layout: Float64Array;
  len: Float64Array;
  n: number;
}

/** Visits one row of a scan: a sample's time and value. */
export type SampleVisitor = (t: number, v: number) => void;

/** The two tables keyed by (series_id, ts_ms) whose times the model seeks in. */
export type TimeTable = 'samples' | 'histogram_snapshots';

/** How a seek compares: the latest time before / at or before, the earliest at or after / after. */
export type SeekOp = '<' | '<=' | '>=' | '>';

interface Readers {
  samples: SampleSink;
  /** Appends a sample to `samples`, growing its arrays. */
  into: SampleVisitor;
  snapshots: SnapshotSink;
  /** The visitor of the scan in flight (scanSamples). */
  visit: SampleVisitor;
  /** The callbacks of the scrape scan in flight (scanScrapesDown). */
  pick: (t: number) => boolean;
  take: (t: number, layout: number, counts: string) => void;
  scanStmt: Statement<unknown[]>;
  scrapeScanStmt: Statement<unknown[]>;
  seekStmts: Map<string, Statement<unknown[]>>;
  prefixStmts: Map<TimeTable, Statement<unknown[]>>;
  countStmts: Map<TimeTable, Statement<unknown[]>>;
  firstScrapeStmt: Statement<unknown[]>;
  sampleStmt: Statement<unknown[]>;
  capacityStmt: Statement<unknown[]>;
  snapshotStmt: Statement<unknown[]>;
  snapshotTextStmt: Statement<unknown[]>;
  layoutStmt: Statement<unknown[]>;
  /** With the extension: a series' samples from a time on (first chunk: ts ≥ from; next: ts > the last seen), packed. */
  pack: { first: Statement<unknown[]>; next: Statement<unknown[]> } | null;
}

const readers = new WeakMap<Db, Readers>();

const grow = (a: Float64Array, n: number): Float64Array => {
  const b = new Float64Array(Math.max(16, n * 2));
  b.set(a);
  return b;
};

/** Samples per qs_pack chunk: 1 MiB of pairs, so a read holds at most that much beyond what its caller keeps. */
const PACK_CHUNK = 65_536;

/** Scrapes per chunk of counts text (one string of about 100 bytes a scrape: ~10 MB a chunk at most). */
const SNAPSHOT_CHUNK = 100_000;

function readersOf(db: Db): Readers {
  let r = readers.get(db);
  if (r) return r;
  const samples: SampleSink = { t: new Float64Array(0), v: new Float64Array(0), n: 0 };
  // Appends one sample to the whole-series read in flight (the per-row function and the packed path alike).
  const into: SampleVisitor = (t, v) => {
    const s = samples;
    if (s.n === s.t.length) {
      s.t = grow(s.t, s.n);
      s.v = grow(s.v, s.n);
    }
    s.t[s.n] = t;
    s.v[s.n++] = v;
  };
  const snapshots: SnapshotSink = { t: new Float64Array(0), layout: new Float64Array(0), len: new Float64Array(0), n: 0 };
  const idle = () => {
    throw new Error('no scan in flight');
  };
  // The scans' per-row functions read the current callbacks off `r` (set just below), so a scan only
  // swaps them in and out.
  db.function('qs_sample_visit', { deterministic: false, directOnly: true }, (t: number, v: number) => {
    r!.visit(t, v);
    return null;
  });
  db.function('qs_scrape_pick', { deterministic: false, directOnly: true }, (t: number) => (r!.pick(t) ? 1 : 0));
  db.function('qs_scrape_take', { deterministic: false, directOnly: true }, (t: number, layout: number, counts: string) => {
    r!.take(t, layout, counts);
    return null;
  });
  db.function('qs_sample_into', { deterministic: false, directOnly: true }, (t: number, v: number) => {
    into(t, v);
    return null;
  });
  db.function('qs_snapshot_into', { deterministic: false, directOnly: true }, (t: number, layout: number, len: number) => {
    const s = snapshots;
    if (s.n === s.t.length) {
      s.t = grow(s.t, s.n);
      s.layout = grow(s.layout, s.n);
      s.len = grow(s.len, s.n);
    }
    s.t[s.n] = t;
    s.layout[s.n] = layout;
    s.len[s.n++] = len;
    return null;
  });
  const seekStmts = new Map<string, Statement<unknown[]>>();
  const prefixStmts = new Map<TimeTable, Statement<unknown[]>>();
  const countStmts = new Map<TimeTable, Statement<unknown[]>>();
  for (const table of ['samples', 'histogram_snapshots'] as const) {
    // MIN/MAX over a range of the primary key: SQLite answers each from the index, one seek.
    for (const op of ['<', '<='] as const) seekStmts.set(`${table}${op}`, db.prepare(`SELECT MAX(ts_ms) FROM ${table} WHERE series_id = ? AND ts_ms ${op} ?`).pluck());
    for (const op of ['>=', '>'] as const) seekStmts.set(`${table}${op}`, db.prepare(`SELECT MIN(ts_ms) FROM ${table} WHERE series_id = ? AND ts_ms ${op} ?`).pluck());
    prefixStmts.set(table, db.prepare(`SELECT ts_ms FROM ${table} WHERE series_id = ? AND ts_ms <= ? ORDER BY ts_ms LIMIT ?`).pluck());
    countStmts.set(table, db.prepare(`SELECT COUNT(*) FROM ${table} WHERE series_id = ? AND ts_ms <= ?`).pluck());
  }
  r = {
    samples,
    into,
    snapshots,
    visit: idle,
    pick: idle,
    take: idle,
    // The subquery's ORDER BY is the primary key's order: SQLite walks the clustered index, no sort.
    scanStmt: db.prepare('SELECT COUNT(qs_sample_visit(ts_ms, value)) FROM (SELECT ts_ms, value FROM samples WHERE series_id = ? AND ts_ms >= ? AND ts_ms <= ? ORDER BY ts_ms)').pluck(),
    // Newest first: the first scrape seen at or before a time is the last one before it, so the picking
    // visitor knows at once whether a scrape is wanted, and only the wanted ones' counts become strings
    // (CASE evaluates its THEN only when the WHEN holds).
    scrapeScanStmt: db.prepare(
      `SELECT COUNT(CASE WHEN qs_scrape_pick(ts_ms) THEN qs_scrape_take(ts_ms, layout_id, counts_json) END)
         FROM (SELECT ts_ms, layout_id, counts_json FROM histogram_snapshots WHERE series_id = ? AND ts_ms <= ? ORDER BY ts_ms DESC)`,
    ).pluck(),
    seekStmts,
    prefixStmts,
    countStmts,
    firstScrapeStmt: db.prepare('SELECT ts_ms, layout_id, counts_json FROM histogram_snapshots WHERE series_id = ? ORDER BY ts_ms LIMIT 1').raw(),
    sampleStmt: db.prepare('SELECT COUNT(qs_sample_into(ts_ms, value)) FROM (SELECT ts_ms, value FROM samples WHERE series_id = ? AND ts_ms <= ? ORDER BY ts_ms)').pluck(),
    // The writer's 10 s tiles count the samples (a replaced sample twice): the arrays' first size, grown if short.
    capacityStmt: db.prepare('SELECT COALESCE(SUM(n), 0) FROM sample_tiles WHERE series_id = ?').pluck(),
    snapshotStmt: db.prepare(
      `SELECT COUNT(qs_snapshot_into(ts_ms, layout_id, length(counts_json)))
         FROM (SELECT ts_ms, layout_id, counts_json FROM histogram_snapshots WHERE series_id = ? AND ts_ms > ? AND ts_ms <= ? ORDER BY ts_ms LIMIT ${SNAPSHOT_CHUNK})`,
    ).pluck(),
    snapshotTextStmt: db.prepare(
      `SELECT group_concat(counts_json, ',') FROM (SELECT counts_json FROM histogram_snapshots WHERE series_id = ? AND ts_ms > ? AND ts_ms <= ? ORDER BY ts_ms LIMIT ${SNAPSHOT_CHUNK})`,
    ).pluck(),
    layoutStmt: db.prepare('SELECT id, le_json FROM histogram_layouts WHERE id IN (SELECT DISTINCT layout_id FROM histogram_snapshots WHERE series_id = ?)').raw(),
    // Two statements, not one with both lower bounds: SQLite would seek on one of them and filter on the
    // other, walking from `from` again at every chunk.
    pack: hasPack(db)
      ? {
          first: db.prepare(`SELECT qs_pack(ts_ms, value) FROM (SELECT ts_ms, value FROM samples WHERE series_id = ? AND ts_ms >= ? AND ts_ms <= ? ORDER BY ts_ms LIMIT ${PACK_CHUNK})`).pluck(),
          next: db.prepare(`SELECT qs_pack(ts_ms, value) FROM (SELECT ts_ms, value FROM samples WHERE series_id = ? AND ts_ms > ? AND ts_ms <= ? ORDER BY ts_ms LIMIT ${PACK_CHUNK})`).pluck(),
        }
      : null,
  };
  readers.set(db, r);
  return r;
}

/**
 * Visits the samples of a series with from ≤ ts ≤ to in time order, one call each, without building any
 * row or array: what the visitor keeps is the caller's.
 */
export function scanSamples(db: Db, seriesId: number, from: number, to: number, visit: SampleVisitor): void {
  const r = readersOf(db);
  if (r.pack) {
    eachPacked(r.pack, seriesId, from, to, visit);
    return;
  }
  const idle = r.visit;
  r.visit = visit;
  try {
    r.scanStmt.get(seriesId, from, to);
  } finally {
    r.visit = idle;
  }
}

/** Hands the samples with from ≤ ts ≤ to to `visit` in time order, a packed chunk at a time. */
function eachPacked(pack: NonNullable<Readers['pack']>, seriesId: number, from: number, to: number, visit: SampleVisitor): void {
  let f = pairsOf(pack.first.get(seriesId, from, to) as Buffer | null);
  for (;;) {
    const n = f.length;
    for (let i = 0; i < n; i += 2) visit(f[i], f[i + 1]);
    if (n < 2 * PACK_CHUNK) return;
    f = pairsOf(pack.next.get(seriesId, f[n - 2], to) as Buffer | null);
  }
}

/**
 * Visits a histogram's scrapes at or before `to`, newest first: `pick` sees every scrape's time and says
 * whether it is wanted; `take` receives the wanted ones with their layout id and counts (JSON text).
 * Always through the per-row functions: reading the scrapes' times packed and then the wanted ones' counts
 * by key (one in five on the bench incident) took 130-140 ms of CPU where this took 80.
 */
export function scanScrapesDown(db: Db, seriesId: number, to: number, pick: (t: number) => boolean, take: (t: number, layout: number, counts: string) => void): void {
  const r = readersOf(db);
  const [idlePick, idleTake] = [r.pick, r.take];
  r.pick = pick;
  r.take = take;
  try {
    r.scrapeScanStmt.get(seriesId, to);
  } finally {
    r.pick = idlePick;
    r.take = idleTake;
  }
}

/** A histogram's first scrape (time, layout id, counts text), or null. */
export function firstScrape(db: Db, seriesId: number): [number, number, string] | null {
  return (readersOf(db).firstScrapeStmt.get(seriesId) as [number, number, string] | undefined) ?? null;
}

/** The time of a series' sample (or scrape) nearest `ts` on the side `op` says, or null: one seek. */
export function timeAt(db: Db, table: TimeTable, seriesId: number, op: SeekOp, ts: number): number | null {
  return (readersOf(db).seekStmts.get(`${table}${op}`)!.get(seriesId, ts) as number | null) ?? null;
}

/** The first `n` times of a series at or before `to`. */
export function firstTimes(db: Db, table: TimeTable, seriesId: number, n: number, to: number): Float64Array {
  return Float64Array.from(readersOf(db).prefixStmts.get(table)!.all(seriesId, to, n) as number[]);
}

/** The writer's count of a series' samples in its tiles: at least the samples (a replaced sample counts twice). */
function sampleCapacity(db: Db, seriesId: number): number {
  return readersOf(db).capacityStmt.get(seriesId) as number;
}

/** How many samples (or scrapes) a series has at or before `to`. */
export function countTimes(db: Db, table: TimeTable, seriesId: number, to: number): number {
  return readersOf(db).countStmts.get(table)!.get(seriesId, to) as number;
}

/** Runs `fn` in one read transaction (a consistent snapshot of the file), or inside the one already open. */
export function inReadTransaction<T>(db: Db, fn: () => T): T {
  if (db.inTransaction) return fn();
  db.exec('BEGIN');
  try {
    return fn();
  } finally {
    if (db.inTransaction) db.exec('COMMIT');
  }
}

/** Every sample of a series in time order (those at or before `to`), as two arrays of the same length. */
export function readSampleArrays(db: Db, seriesId: number, to = Infinity): { t: Float64Array; v: Float64Array } {
  const r = readersOf(db);
  const s = r.samples;
  const capacity = sampleCapacity(db, seriesId);
  s.t = new Float64Array(capacity);
  s.v = new Float64Array(capacity);
  s.n = 0;
  try {
    if (r.pack) eachPacked(r.pack, seriesId, -Infinity, to, r.into);
    else r.sampleStmt.get(seriesId, to);
    const n = s.n;
    // A tile count above the samples (replaced ones) leaves a tail: copied to the exact length, so what
    // the caller holds is what it reads.
    return n === s.t.length ? { t: s.t, v: s.v } : { t: s.t.slice(0, n), v: s.v.slice(0, n) };
  } finally {
    s.t = s.v = new Float64Array(0);
  }
}

/** One histogram scrape; its counts stay text (a slice of its chunk) until first read. */
class StoredSnapshot {
  private parsed: number[] | null = null;
  constructor(
    readonly t: number,
    readonly le: number[],
    private readonly text: string,
    private readonly from: number,
    private readonly to: number,
  ) {}

  get counts(): number[] {
    return (this.parsed ??= JSON.parse(this.text.slice(this.from, this.to)) as number[]);
  }
}

/**
 * Histogram snapshots of a series (those at or before `to`): per timestamp, cumulative bucket counts by ascending upper bound.
 * Snapshots of one layout share its `le` array (read-only). Per chunk of scrapes, times, layouts and the
 * lengths of their counts come through the per-row function, the counts as one text SQLite joins; each
 * scrape's counts are parsed from it when first read (the model reads only the scrapes at its window
 * edges). Both reads of a chunk run in one read transaction, so they see the same rows.
 */
export function readHistogramSnapshots(db: Db, seriesId: number, to = Infinity): { t: number; le: number[]; counts: number[] }[] {
  const r = readersOf(db);
  return inReadTransaction(db, () => {
    const layouts = new Map<number, number[]>();
    for (const [id, json] of r.layoutStmt.all(seriesId) as [number, string][]) layouts.set(id, JSON.parse(json) as number[]);
    const out: StoredSnapshot[] = [];
    const s = r.snapshots;
    try {
      for (let after = -Infinity; ; ) {
        s.t = new Float64Array(1024);
        s.layout = new Float64Array(1024);
        s.len = new Float64Array(1024);
        s.n = 0;
        r.snapshotStmt.get(seriesId, after, to);
        const n = s.n;
        if (!n) break;
        const text = r.snapshotTextStmt.get(seriesId, after, to) as string;
        let at = 0;
        for (let i = 0; i < n; at += s.len[i] + 1, i++) out.push(new StoredSnapshot(s.t[i], layouts.get(s.layout[i]) ?? [], text, at, at + s.len[i]));
        if (at - 1 !== text.length) throw new Error(`histogram series ${seriesId}: the counts text of a chunk does not match its scrapes (${text.length} characters, ${at - 1} expected)`);
        if (n < SNAPSHOT_CHUNK) break;
        after = s.t[n - 1];
      }
    } finally {
      s.t = s.layout = s.len = new Float64Array(0);
    }
    return out;
  });
}
