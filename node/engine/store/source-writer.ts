// One source's writes: a single transaction opened on the first write and committed by the pipeline
// once the importer finished, or rolled back on error, cancel or crash. Readers on other connections
// (WAL) never see a half-imported source.
import { createHash, randomUUID } from 'node:crypto';
import type { Statement } from 'better-sqlite3';
import { cachedStatement, type Db } from './db';
import { canonicalLabelsJson, seriesKeyOf } from './series-key';
import { hasRows } from './sqlite-extension';
import { insertSelectSql, insertSql } from './tables';
import { RowExtent } from './row-extent';
import { ImportError } from '../importers/types';
import type {
  AllocationRecord,
  AttachedQuery,
  AttachedTable,
  EventRecord,
  KernelRecord,
  Ns,
  SeriesDef,
  Sink,
  SpanRecord,
} from '../importers/types';

/**
 * An attached input is untrusted (an nsys export is anyone's SQLite file) and always a private copy (the
 * pipeline's): its views and triggers are dropped before anything reads it, so it is read as tables
 * only (a 12 KB file whose kernel "table" was a view over an endless recursive CTE froze the engine).
 * Virtual tables cannot be dropped without their module; AttachedQuery.tables() leaves them out.
 */
function untrust(db: Db): void {
  const code = db.prepare("SELECT type, name FROM ext.sqlite_master WHERE type IN ('view', 'trigger')").all() as { type: string; name: string }[];
  for (const { type, name } of code) db.exec(`DROP ${type === 'view' ? 'VIEW' : 'TRIGGER'} IF EXISTS ext."${name.replace(/"/g, '""')}"`);
}

/** Rows an attached copy moves in one step (a few milliseconds of inserts) before the thread is given back. */
export const ATTACHED_STEP = 2048;
const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;
/** Lets the event loop answer what waits (other calls, cancel) between steps of a long copy. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Samples written in one statement. */
const SAMPLE_BATCH = 256;
/**
 * Samples held before they are written (24 bytes each: time, value, series slot and the sort's index;
 * bounds memory with many series). Samples arrive scrape by scrape, one of each series; written as they
 * came, each series' run went into the middle of the B-tree, a seek and a page split apart: held, then
 * written one series after another, they are appended in key order, at half the CPU (1.2 M samples of
 * 2,880 series: 1.0 s against 1.7 s, measured). They are held in arrival order in flat chunks and put in
 * series order by a counting sort when written: arrays of their own per series cost a reallocation each
 * time one grew (2,880 series: about 90 ms of a 100 MB import, profiled) and their garbage; chunks,
 * unlike one array that doubles, are never copied.
 */
const SAMPLES_HELD_MAX = 2 ** 21;
/** 2^CHUNK_BITS samples a chunk (320 KiB): little for a source of a few samples (a live recorder's batch). */
const CHUNK_BITS = 14;
const CHUNK = 1 << CHUNK_BITS;

/** CHUNK held samples: their times, values and series slots (SeriesAcc.slot). */
interface HeldChunk {
  ts: Float64Array;
  values: Float64Array;
  slots: Int32Array;
}

/**
 * Sample rows, and tile rows, handed to SQLite in one statement where the store's SQLite extension is
 * loaded: as one BLOB of float64 that its qs_rows table function reads (384 KiB of samples, 768 KiB of
 * tiles). Binding three numbers a sample through better-sqlite3 was about a fifth of the insert and the
 * copy of one-sample tiles read back what was just written; both rows are the same numbers either way
 * (see flushSamples).
 */
const PACKED_ROWS = 16_384;

/** The columns an event row gives (its id is the table's next). */
const EVENT_COLUMNS = ['incident_id', 'ts_ms', 'kind', 'severity', 'source_id', 'line', 'text', 'attrs_json'];
/** Event, span, kernel and allocation rows written in one statement. */
const RECORD_BATCH = 64;
/** Closed tiles written in one statement. */
const TILE_BATCH = 256;
const HISTOGRAM_BATCH = 100;
/** Buckets gathered before the open histogram scrapes are written (bounds memory on any arrival order). */
const OPEN_BUCKETS_MAX = 100_000;
export const TILE_MS = 10_000;

/**
 * What one source may write, by the size of its input: rows ≤ OUTPUT_ROWS_BASE + OUTPUT_ROWS_PER_BYTE ×
 * input bytes, and text (event text, attributes, stacks, labels) ≤ OUTPUT_BYTES_BASE + OUTPUT_BYTES_PER_BYTE
 * × input bytes. The densest real formats write about one row per 3 bytes (dmon, bare exposition lines)
 * and stacks about 30 bytes of text per byte of pickle; past these, the input is amplifying itself
 * (memo or reference tricks) and the source fails instead of filling the disk. The bases are what a
 * small input may write regardless (100 k rows are about a second of inserts).
 */
export const OUTPUT_ROWS_BASE = 100_000;
export const OUTPUT_ROWS_PER_BYTE = 1;
export const OUTPUT_BYTES_BASE = 16 * 2 ** 20;
export const OUTPUT_BYTES_PER_BYTE = 32;

/**
 * The page cache (KiB) while a source's samples are written: 128 MiB holds the pages a flush of held
 * samples writes (1.2 M samples and their tiles: 78 MB); the store's 64 MiB spilled them to the WAL
 * mid-flush, to be read back and written again (20 k page reads and 19 k frames more: 3-5% of a wide
 * 100 MB import, measured). It is set at a source's first flush of samples and kept to its commit.
 */
const SAMPLES_CACHE_KIB = 128 * 1024;

/**
 * The page cache (KiB) while a source writes only records (spans, kernels, events, allocations): their
 * rows are appended in key order, each page written once, so a cache holds nothing they read again. A
 * 1 GB Kineto trace imports in the same time with 16 MiB as with 128, at 235–268 MB of peak RSS against
 * 338–344 (327–335 against 445–463 MB with the parse on a worker thread); a 100 MB vLLM log (events and
 * their full-text index) and a memory snapshot of 1 M entries the same within noise (2026-12-06).
 */
const RECORDS_CACHE_KIB = 16 * 1024;

/** Warnings one source keeps over all its batches. */
const MAX_SOURCE_WARNINGS = 200;

export interface OutputLimit {
  /** The input's bytes so far (read, or its size where known); the budget grows with it. */
  inputBytes(): number;
}


/**
 * One series' open tile: samples mostly arrive in time order, so one open tile suffices (one that comes
 * back is merged by the upsert). The tile moves on as the held samples are written, series by series in
 * their arrival order, so a closed tile is written with the samples that closed it.
 */
interface SeriesAcc {
  series: number;
  /** Its index in `accs` (what each held sample records). */
  slot: number;
  /** Its samples held now. */
  n: number;
  tile: number;
  first: number;
  min: number;
  max: number;
  /** Samples in the open tile (0: none open yet). */
  inTile: number;
  /** The open tile was opened in this flush, from samples that singleTiles may copy. */
  fresh: boolean;
  /** The latest of its times in earlier flushes (brought up to date as a flush reaches the series). */
  maxT: number;
  /**
   * Whether the series keeps tiles. A series with at most one sample in every tile keeps none: each tile
   * would be its one sample's row again, a second B-tree insert per sample for nothing (see TILED).
   */
  tiled: boolean;
  /** The latest time it has in the store (for an untiled series: whether new samples keep it one a tile). */
  lastT: number;
}

/** One histogram scrape of one series being gathered, bucket by bucket, in arrival order. */
interface OpenSnapshot {
  le: number[];
  counts: number[];
}

/** The JSON of a layout's bounds; JSON has no Infinity, and SQLite and JSON.parse both read 9e999 as one. */
const layoutJson = (le: readonly number[]): string => `[${le.map((x) => (x === Infinity ? '9e999' : x === -Infinity ? '-9e999' : String(x))).join(',')}]`;

/** Buckets by ascending bound; of two with the same bound the later one wins (as a replaced row did). */
function sortBuckets(s: OpenSnapshot): OpenSnapshot {
  let sorted = true;
  for (let i = 1; i < s.le.length && sorted; i++) if (!(s.le[i] > s.le[i - 1])) sorted = false;
  if (sorted) return s;
  const byLe = new Map<number, number>();
  for (let i = 0; i < s.le.length; i++) byLe.set(s.le[i], s.counts[i]);
  const le = [...byLe.keys()].sort((a, b) => a - b);
  return { le, counts: le.map((x) => byLe.get(x)!) };
}

const sameBounds = (a: readonly number[], b: readonly number[]): boolean => {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
};

/** A tile already stored (a tile that came back, or one that spans flushes) takes the new one in. */
const TILE_CONFLICT = 'ON CONFLICT (series_id, tile) DO UPDATE SET t_first = MIN(t_first, excluded.t_first), min = MIN(min, excluded.min), max = MAX(max, excluded.max), n = n + excluded.n';
const tileUpsert = (rows: number): string => `${insertSql('sample_tiles', { rows })} ${TILE_CONFLICT}`;

/** The tiles of one series' samples from ?2 to ?3 (times), each alone in its tile and at or after time 0 (see flushSamples). */
const singleTilesCopy = `${insertSelectSql(
  'sample_tiles',
  { series_id: 'series_id', tile: `ts_ms / ${TILE_MS}`, t_first: 'ts_ms', min: 'value', max: 'value', n: '1' },
  'FROM samples WHERE series_id = ? AND ts_ms >= ? AND ts_ms <= ?',
)} ${TILE_CONFLICT}`;

/**
 * The writer's statements, each prepared once per connection, on first use. A writer is made per source —
 * a live recording's once a second — and preparing all of them each time (batch INSERTs of hundreds of
 * rows among them) cost more CPU than writing that second's samples: 1.7 ms a writer, most of a live
 * recording's flush (docs/architecture.md §5).
 */
const WRITER_STATEMENTS = {
  series: (db: Db) => db.prepare(insertSql('series', { columns: ['incident_id', 'source_id', 'name', 'labels_json', 'unit', 'kind'] })),
  sample: (db: Db) => db.prepare(insertSql('samples', { or: 'REPLACE' })),
  sampleBatch: (db: Db) => db.prepare(insertSql('samples', { or: 'REPLACE', rows: SAMPLE_BATCH })),
  histogram: (db: Db) => db.prepare(insertSql('histogram_snapshots', { or: 'IGNORE' })),
  histogramBatch: (db: Db) => db.prepare(insertSql('histogram_snapshots', { or: 'IGNORE', rows: HISTOGRAM_BATCH })),
  histogramReplace: (db: Db) => db.prepare(insertSql('histogram_snapshots', { or: 'REPLACE' })),
  histogramFind: (db: Db) => db.prepare('SELECT l.le_json, h.counts_json FROM histogram_snapshots h JOIN histogram_layouts l ON l.id = h.layout_id WHERE h.series_id = ? AND h.ts_ms = ?').raw(),
  layoutInsert: (db: Db) => db.prepare(insertSql('histogram_layouts', { or: 'IGNORE', columns: ['le_json'] })),
  layoutFind: (db: Db) => db.prepare('SELECT id FROM histogram_layouts WHERE le_json = ?').pluck(),
  layoutById: (db: Db) => db.prepare('SELECT le_json FROM histogram_layouts WHERE id = ?').pluck(),
  ftsIndex: (db: Db) => db.prepare('INSERT INTO events_fts (rowid, text) SELECT id, text FROM events WHERE id >= ? AND source_id = ?'),
  event: (db: Db) => db.prepare(insertSql('events', { columns: EVENT_COLUMNS })),
  eventBatch: (db: Db) => db.prepare(insertSql('events', { columns: EVENT_COLUMNS, rows: RECORD_BATCH })),
  nextEventId: (db: Db) => db.prepare('SELECT COALESCE(MAX(id), 0) + 1 FROM events').pluck(),
  span: (db: Db) => db.prepare(insertSql('spans')),
  spanBatch: (db: Db) => db.prepare(insertSql('spans', { rows: RECORD_BATCH })),
  kernel: (db: Db) => db.prepare(insertSql('kernels')),
  kernelBatch: (db: Db) => db.prepare(insertSql('kernels', { rows: RECORD_BATCH })),
  stackInsert: (db: Db) => db.prepare(insertSql('stacks', { or: 'IGNORE', columns: ['hash', 'frames_json'] })),
  stackFind: (db: Db) => db.prepare('SELECT id FROM stacks WHERE hash = ?').pluck(),
  tile: (db: Db) => db.prepare(tileUpsert(1)),
  tileBatch: (db: Db) => db.prepare(tileUpsert(TILE_BATCH)),
  singleTiles: (db: Db) => db.prepare(singleTilesCopy),
  allocation: (db: Db) => db.prepare(insertSql('allocations')),
  allocationBatch: (db: Db) => db.prepare(insertSql('allocations', { rows: RECORD_BATCH })),
};

type WriterStatements = { readonly [K in keyof typeof WRITER_STATEMENTS]: ReturnType<(typeof WRITER_STATEMENTS)[K]> };

/** The writer's statements on `db`: each prepared on first use and kept for the connection's life. */
function writerStatements(db: Db): WriterStatements {
  const out = {} as Record<string, Statement>;
  for (const key of Object.keys(WRITER_STATEMENTS) as (keyof typeof WRITER_STATEMENTS)[])
    Object.defineProperty(out, key, { enumerable: true, get: () => cachedStatement(db, `writer.${key}`, () => WRITER_STATEMENTS[key](db)) });
  return out as WriterStatements;
}

// TILED: the 10 s tiles (sample_tiles) let a chart of a long range read a row per tile instead of every
// sample. A series with at most one sample in every tile — scrapes 10 s or more apart, most Prometheus
// data — would only repeat each sample as its tile, a second B-tree insert per sample (a third of a
// many-series import, measured): it keeps none, and the chart reads its samples, which are as many
// (store/downsample.ts reads samples wherever no tile holds two). A series is tiled whole or not at all:
// the first time two of its samples share a tile, every sample it has gets its tile (startTiles).
// Whether a series keeps tiles is asked of the store by each source that writes to it (tilingOf: one
// seek), not remembered: another process may have deleted the series and its id been given to a new one.

/** Rows of `width` values: full batches through the multi-row statement, the rest one by one. */
function writeRows(rows: unknown[], width: number, batch: number, many: Statement, one: Statement): void {
  let i = 0;
  for (; i + batch * width <= rows.length; i += batch * width) many.run(rows.slice(i, i + batch * width));
  for (; i < rows.length; i += width) one.run(rows.slice(i, i + width));
}

/** The first `k` parameters of `p`, rows of `width`, one statement a row (what did not fill a batch). */
function writeRest(p: number[], k: number, width: number, one: Statement): void {
  for (let i = 0; i < k; i += width) one.run(p.slice(i, i + width));
}

/** The first `k` numbers of `f` as bytes, for qs_rows (a view, no copy). */
const bytesOf = (f: Float64Array, k: number): Buffer => Buffer.from(f.buffer, f.byteOffset, k * 8);

const toInt = (x: number | bigint | null | undefined): number | bigint | null =>
  x === null || x === undefined ? null : typeof x === 'bigint' ? x : Math.round(x);

export class SourceWriter implements Sink {
  private inTx = false;
  private attachedFile: string | null;
  /** Temporary tables made for the attached file's reads (AttachedQuery.ordered), dropped with it. */
  private readonly tempTables: string[] = [];
  private count = 0;
  private readonly seriesIds = new Map<string, number>();
  /** Series this writer made (nothing of them in the store before it). */
  private readonly ownSeries = new Set<number>();
  private readonly stackIds = new Map<string, number>();
  /** Series with samples since the source began (their open tiles), by id and by slot. */
  private readonly sampleAcc = new Map<number, SeriesAcc>();
  private readonly accs: SeriesAcc[] = [];
  /** Held samples in arrival order, CHUNK a chunk (kept for the next flush once made). */
  private readonly chunks: HeldChunk[] = [];
  private held = 0;
  /** The parameters of one multi-row statement of samples, and of tiles, filled in place. */
  private readonly sampleParams: number[] = new Array<number>(SAMPLE_BATCH * 3).fill(0);
  private readonly tileParams: number[] = new Array<number>(TILE_BATCH * 6).fill(0);
  /** Where qs_rows is loaded: the rows of one statement of samples (3 wide) and of tiles (6 wide), filled in place; else null. */
  private packed: { samples: Float64Array; tiles: Float64Array } | null;
  /**
   * Runs of one-sample tiles to copy from the samples (series, first and last time, count; see
   * flushSamples): one per series and per bound tile at most, so bounded by the held samples.
   */
  private readonly tileRuns: number[] = [];
  /** series → scrape time → buckets, until written. */
  private readonly openHist = new Map<number, Map<number, OpenSnapshot>>();
  private openBuckets = 0;
  private readonly histRows: unknown[] = [];
  private readonly layoutIds = new Map<string, number>();
  /** series → the bounds and layout of its last scrape (layouts rarely change within a series). */
  private readonly lastLayout = new Map<number, { le: number[]; id: number }>();
  private firstEventId: number | null = null;
  private readonly spanRows: unknown[] = [];
  private readonly kernelRows: unknown[] = [];
  private readonly allocationRows: unknown[] = [];
  private readonly eventRows: unknown[] = [];
  private readonly stmts: WriterStatements;
  /** With the extension's qs_rows: held samples and their tiles inserted as packed rows. */
  private readonly packedStmts: { packedSamples: Statement; packedTiles: Statement } | null;
  private minMs = Infinity;
  private maxMs = -Infinity;
  /** Rows were copied by SQL from an attached file (they pass through nothing that sees their times). */
  private copiedBySql = false;
  /** The span the incident's refresh would read back from this source's rows (row-extent.ts). */
  readonly rowExtent = new RowExtent();
  private readonly path: string;
  private limit: OutputLimit | null = null;
  private maxRows = Infinity;
  private maxOutBytes = Infinity;
  private outBytes = 0;

  readonly sourceId: number;

  /**
   * Opens the source's transaction and inserts its row in it. `attachFile` (nsys exports) is attached
   * first, as SQLite refuses ATTACH inside a transaction.
   */
  /** Set when this writer adds a batch to a source committed before (the live recorder's one source a stream). */
  private readonly continued: boolean;
  /** The connection's page cache before this source (cache_size's value), given back at commit or rollback. */
  private cacheSize = -2000;
  /** Whether the page cache was raised for samples and scrapes (SAMPLES_CACHE_KIB). */
  private samplesCache = false;
  private readonly bytes: number;

  constructor(
    private readonly db: Db,
    readonly incidentId: number,
    meta: { path: string; format: string; bytes: number; sourceId?: number },
    attachFile?: string,
    private readonly afterCommit: () => void = () => {},
    /** The writer's auto-checkpoint (pages) once this source is done: 0 while the store's checkpointer does that work. */
    private readonly autoCheckpoint: () => number = () => 1000,
  ) {
    this.continued = meta.sourceId !== undefined;
    this.bytes = meta.bytes;
    this.attachedFile = null;
    this.path = meta.path;
    if (attachFile) {
      // better-sqlite3 builds SQLite with SQLITE_USE_URI=0, so a "file:…?mode=ro" URI would be taken as a
      // file name and fail; the plain path is attached, and importers only SELECT from it.
      // A file SQLite cannot open or whose schema does not parse is the input's fault, named as such (its
      // SQLITE_NOTADB or SQLITE_CORRUPT would otherwise read as the workspace being damaged).
      const theirs = (e: unknown) => {
        const msg = (e instanceof Error ? e.message : String(e)).replace(attachFile, 'its private copy');
        // ATTACH reads the schema too: a damaged one is named there, anything else at the header.
        return new ImportError(meta.path, /schema/.test(msg) ? { key: 'sqlite_master' } : { offset: 0 }, `not a SQLite file that can be read: damaged or not SQLite (${msg})`);
      };
      try {
        db.prepare('ATTACH DATABASE ? AS ext').run(attachFile);
      } catch (e) {
        throw theirs(e);
      }
      this.attachedFile = attachFile;
      try {
        untrust(db);
      } catch (e) {
        this.detach();
        throw theirs(e);
      }
    }
    // Foreign keys cost two to three B-tree seeks a row (series, incident, source) for ids this writer
    // made itself; they are checked again, and cascades work, once it is done (restored at commit or rollback). The
    // WAL is folded back by the store's checkpointer after the commit rather than inside it.
    // Both pragmas are no-ops inside a transaction, so they are set before it. The page cache is the
    // writer's own while the source is written: small for records, large from its first samples
    // (RECORDS_CACHE_KIB, SAMPLES_CACHE_KIB; cache_size takes effect inside a transaction too).
    db.pragma('foreign_keys = OFF');
    db.pragma('wal_autocheckpoint = 0');
    this.cacheSize = db.pragma('cache_size', { simple: true }) as number;
    db.pragma(`cache_size = ${-RECORDS_CACHE_KIB}`);
    try {
      db.exec('BEGIN IMMEDIATE');
    } catch (e) {
      this.restorePragmas();
      throw e;
    }
    this.inTx = true;
    try {
      this.sourceId =
        meta.sourceId ??
        Number(cachedStatement(db, 'writer.sourceInsert', () => db.prepare(insertSql('sources', { columns: ['incident_id', 'path', 'format', 'bytes', 'rows', 'status'] }))).run(incidentId, meta.path, meta.format, meta.bytes, 0, 'ok').lastInsertRowid);
    } catch (e) {
      // A full disk can fail the very first write: the connection must not stay inside this transaction.
      this.rollback();
      throw e;
    }
    const packed = hasRows(db);
    // Sized at the first flush, by what it holds (a live recording's writer holds a second of samples).
    this.packed = packed ? { samples: new Float64Array(0), tiles: new Float64Array(0) } : null;
    this.stmts = writerStatements(db);
    this.packedStmts = packed
      ? {
          packedSamples: cachedStatement(db, 'writer.packedSamples', () => db.prepare(insertSelectSql('samples', { series_id: 'c0', ts_ms: 'c1', value: 'c2' }, 'FROM qs_rows(?, 3)', 'REPLACE'))),
          packedTiles: cachedStatement(db, 'writer.packedTiles', () => db.prepare(`${insertSelectSql('sample_tiles', { series_id: 'c0', tile: 'c1', t_first: 'c2', min: 'c3', max: 'c4', n: 'c5' }, 'FROM qs_rows(?, 6) WHERE true')} ${TILE_CONFLICT}`)),
        }
      : null;
  }

  get rows(): number {
    return this.count;
  }

  /** Bounds what this source may write by the size of its input (OUTPUT_ROWS_*, OUTPUT_BYTES_*). */
  limitOutput(limit: OutputLimit): void {
    this.limit = limit;
    this.rebudget();
  }

  private rebudget(): void {
    if (!this.limit) return;
    const bytes = Math.max(0, this.limit.inputBytes());
    this.maxRows = OUTPUT_ROWS_BASE + OUTPUT_ROWS_PER_BYTE * bytes;
    this.maxOutBytes = OUTPUT_BYTES_BASE + OUTPUT_BYTES_PER_BYTE * bytes;
  }

  /** Called when a count passes its budget: the input may have grown since; else the source fails. */
  private overBudget(): void {
    this.rebudget();
    if (this.count <= this.maxRows && this.outBytes <= this.maxOutBytes) return;
    const bytes = this.limit ? this.limit.inputBytes() : 0;
    const rows = this.count > this.maxRows;
    const what = rows
      ? `more than ${this.maxRows.toLocaleString('en-US')} rows (at most ${OUTPUT_ROWS_BASE.toLocaleString('en-US')} + ${OUTPUT_ROWS_PER_BYTE} per input byte)`
      : `more than ${(this.maxOutBytes / 2 ** 20).toFixed(0)} MiB of text (at most ${OUTPUT_BYTES_BASE / 2 ** 20} MiB + ${OUTPUT_BYTES_PER_BYTE} bytes per input byte)`;
    throw new ImportError(this.path, { offset: bytes }, `wrote ${what} from ${bytes.toLocaleString('en-US')} bytes of input: refused as amplifying input (repeated references or a generated expansion)`);
  }

  private text(n: number): void {
    this.outBytes += n;
    if (this.outBytes > this.maxOutBytes) this.overBudget();
  }

  /** Time range the source covered, in ms (for the incident's span). */
  get timeRange(): { start_ms: number; end_ms: number } | null {
    return Number.isFinite(this.minMs) ? { start_ms: this.minMs, end_ms: this.maxMs } : null;
  }

  private begin(): void {
    if (!this.inTx) throw new Error('the source was already committed or rolled back');
  }

  private seen(ms: number): void {
    if (ms < this.minMs) this.minMs = ms;
    if (ms > this.maxMs) this.maxMs = ms;
  }

  series(def: SeriesDef): number {
    const labels = canonicalLabelsJson(def.labels);
    const key = seriesKeyOf(def.name, labels);
    const known = this.seriesIds.get(key);
    if (known !== undefined) return known;
    this.begin();
    this.text(key.length);
    const id = Number(this.stmts.series.run(this.incidentId, this.sourceId, def.name, labels, def.unit ?? '', def.kind ?? 'gauge').lastInsertRowid);
    this.seriesIds.set(key, id);
    this.ownSeries.add(id);
    return id;
  }

  sample(series: number, ts_ms: number, value: number): void {
    if (!Number.isFinite(value) || !Number.isFinite(ts_ms)) return;
    this.begin();
    const t = Math.round(ts_ms);
    this.seen(t);
    this.rowExtent.ms(t);
    if (++this.count > this.maxRows) this.overBudget();
    let acc = this.sampleAcc.get(series);
    if (!acc) {
      acc = { series, slot: this.accs.length, n: 0, tile: 0, first: 0, min: 0, max: 0, inTile: 0, fresh: false, maxT: -Infinity, ...this.tilingOf(series) };
      this.sampleAcc.set(series, acc);
      this.accs.push(acc);
    }
    acc.n++;
    const k = this.held++;
    const c = k >>> CHUNK_BITS;
    if (c === this.chunks.length) this.chunks.push({ ts: new Float64Array(CHUNK), values: new Float64Array(CHUNK), slots: new Int32Array(CHUNK) });
    const chunk = this.chunks[c];
    const i = k & (CHUNK - 1);
    chunk.ts[i] = t;
    chunk.values[i] = value;
    chunk.slots[i] = acc.slot;
    if (this.held === SAMPLES_HELD_MAX) this.flushSamples(false);
  }

  /** Whether a series keeps tiles, and its latest time in the store: its first sample in this source asks. */
  private tilingOf(series: number): { tiled: boolean; lastT: number } {
    if (this.ownSeries.has(series)) return { tiled: false, lastT: -Infinity };
    const db = this.db;
    if (cachedStatement(db, 'writer.hasTiles', () => db.prepare('SELECT EXISTS (SELECT 1 FROM sample_tiles WHERE series_id = ?)').pluck()).get(series)) return { tiled: true, lastT: -Infinity };
    const last = cachedStatement(db, 'writer.lastSample', () => db.prepare('SELECT MAX(ts_ms) FROM samples WHERE series_id = ?').pluck()).get(series) as number | null;
    return { tiled: false, lastT: last ?? -Infinity };
  }

  /**
   * An untiled series whose next samples share a tile (with each other or with one in the store) gets
   * tiles from here on: first a tile for each of its samples in the store, one sample each (one a tile, so
   * far), then this flush's as for any series. The tile it had open covers samples of the store, so it is
   * dropped from the accumulator: the next sample in it opens it again and its row merges.
   */
  private startTiles(acc: SeriesAcc): void {
    const db = this.db;
    const rows = cachedStatement(db, 'writer.seriesSamples', () => db.prepare('SELECT ts_ms, value FROM samples WHERE series_id = ? ORDER BY ts_ms').raw()).all(acc.series) as [number, number][];
    for (const [t, v] of rows) this.stmts.tile.run(acc.series, Math.floor(t / TILE_MS), t, v, v, 1);
    acc.tiled = true;
    acc.inTile = 0;
  }

  /** Samples and scrapes land in every series' own range of the B-tree: from the first, the large cache (SAMPLES_CACHE_KIB). */
  private cacheForSamples(): void {
    if (this.samplesCache) return;
    this.db.pragma(`cache_size = ${-SAMPLES_CACHE_KIB}`);
    this.samplesCache = true;
  }

  /**
   * Writes every held sample, series after series in id order (see SAMPLES_HELD_MAX), each series' in
   * arrival order (a repeated timestamp still replaces the earlier value), with the tiles they closed;
   * at the end (`closeTiles`) the open tiles too. Parameters are spread into run(): bound from an array,
   * each costs a property lookup (a fifth of the statement's time, measured).
   *
   * A tile of one sample is that sample's row (t_first = its time, min = max = its value, n = 1): where
   * scrapes come 10 s or more apart, as most do, nearly every tile is one. Such tiles are copied from the
   * samples just written, a run of them by one INSERT … SELECT (singleTiles), instead of binding six
   * numbers a tile (1.2 M tiles: 0.1 s less of a 0.9 s flush, measured). The copy reads what the
   * sample's row holds, so only where that row is the sample's: its time is new to the series (past every
   * earlier flush's times, and the series' times in this flush only rise). Its times are at least 0 and
   * below 1e15 ms, where SQL's integer division (which truncates) gives the tile the writer's floating
   * division floors to.
   *
   * Where the store's SQLite extension is loaded, samples and tiles go instead as rows of float64 through
   * qs_rows (PACKED_ROWS), every tile bound that way and none copied: the same numbers reach the same
   * INSERTs as the bound parameters do (better-sqlite3 binds each number as a double, qs_rows hands each
   * as one), so the rows stored are the same.
   */
  private flushSamples(closeTiles: boolean): void {
    if (this.held) this.cacheForSamples();
    const accs = [...this.accs].sort((a, b) => a.series - b.series);
    // Counting sort by series: where each series' samples start, then the held indexes in that order.
    const start = new Int32Array(this.accs.length);
    let at = 0;
    for (const acc of accs) {
      start[acc.slot] = at;
      at += acc.n;
    }
    const chunks = this.chunks;
    const order = new Int32Array(this.held);
    for (let c = 0, h = 0; h < this.held; c++) {
      const slots = chunks[c].slots;
      for (let i = 0; i < CHUNK && h < this.held; i++, h++) order[start[slots[i]]++] = h;
    }
    const timeOf = (h: number): number => chunks[h >>> CHUNK_BITS].ts[h & (CHUNK - 1)];
    const rows = Math.min(PACKED_ROWS, Math.max(this.held, 1024));
    if (this.packed && this.packed.samples.length < rows * 3) this.packed = { samples: new Float64Array(rows * 3), tiles: new Float64Array(rows * 6) };
    const packedSamples = this.packed?.samples;
    const packedTiles = this.packed?.tiles;
    const p = packedSamples ?? this.sampleParams;
    const full = p.length;
    let k = 0;
    const r = packedTiles ?? this.tileParams;
    const fullTiles = r.length;
    let q = 0;
    // Runs of one-sample tiles to copy: series, first and last time, tiles; a run ends where a tile is bound.
    const runs = this.tileRuns;
    let inRun = false;
    const closeTile = (acc: SeriesAcc): void => {
      if (!acc.tiled) return;
      if (acc.inTile === 1 && acc.fresh) {
        if (inRun) {
          runs[runs.length - 2] = acc.first;
          runs[runs.length - 1]++;
        } else {
          runs.push(acc.series, acc.first, acc.first, 1);
          inRun = true;
        }
        return;
      }
      inRun = false;
      r[q++] = acc.series;
      r[q++] = acc.tile;
      r[q++] = acc.first;
      r[q++] = acc.min;
      r[q++] = acc.max;
      r[q++] = acc.inTile;
      if (q === fullTiles) {
        if (packedTiles) this.packedStmts!.packedTiles.run(bytesOf(packedTiles, q));
        else this.stmts.tileBatch.run(...r);
        q = 0;
      }
    };
    let j = 0;
    for (const acc of accs) {
      const series = acc.series;
      const end = j + acc.n;
      // An untiled series stays so while its samples come one a tile, each later than the last (so the
      // last one read is its latest).
      if (!acc.tiled) {
        let last = acc.lastT;
        for (let m = j; m < end && !acc.tiled; m++) {
          const t = timeOf(order[m]);
          if (!(t > last) || (last > -Infinity && Math.floor(t / TILE_MS) === Math.floor(last / TILE_MS))) this.startTiles(acc);
          last = t;
        }
        if (!acc.tiled) acc.lastT = last;
      }
      // Whether this flush's samples of the series can be copied to tiles (see above): each time past
      // the one before, the first past every earlier flush's. Packed tiles are never copied.
      let copyable = false;
      if (!packedTiles) {
        copyable = acc.n > 0 && timeOf(order[j]) >= 0;
        let last = acc.maxT;
        for (let m = j; m < end; m++) {
          const t = timeOf(order[m]);
          if (t > last) last = t;
          else copyable = false;
        }
        copyable &&= last < 1e15;
        acc.maxT = last;
      }
      inRun = false;
      for (; j < end; j++) {
        const h = order[j];
        const chunk = chunks[h >>> CHUNK_BITS];
        const t = chunk.ts[h & (CHUNK - 1)];
        const value = chunk.values[h & (CHUNK - 1)];
        p[k++] = series;
        p[k++] = t;
        p[k++] = value;
        if (k === full) {
          if (packedSamples) this.packedStmts!.packedSamples.run(bytesOf(packedSamples, k));
          else this.stmts.sampleBatch.run(...p);
          k = 0;
        }
        // The series' open tile: a sample of another tile closes it and opens its own.
        const tile = Math.floor(t / TILE_MS);
        if (acc.inTile === 0 || acc.tile !== tile) {
          if (acc.inTile > 0) closeTile(acc);
          acc.tile = tile;
          acc.first = t;
          acc.min = acc.max = value;
          acc.inTile = 0;
          acc.fresh = copyable;
        }
        if (value < acc.min) acc.min = value;
        if (value > acc.max) acc.max = value;
        if (t < acc.first) acc.first = t;
        acc.inTile++;
      }
      acc.n = 0;
      if (closeTiles && acc.inTile > 0) closeTile(acc);
      // A tile left open is copied from a later flush's samples only where all of it was.
      acc.fresh = false;
    }
    if (packedSamples) {
      if (k) this.packedStmts!.packedSamples.run(bytesOf(packedSamples, k));
    } else writeRest(this.sampleParams, k, 3, this.stmts.sample);
    if (packedTiles) {
      if (q) this.packedStmts!.packedTiles.run(bytesOf(packedTiles, q));
    } else writeRest(this.tileParams, q, 6, this.stmts.tile);
    for (let m = 0; m < runs.length; m += 4) {
      const changes = this.stmts.singleTiles.run(runs[m], runs[m + 1], runs[m + 2]).changes;
      // Each time of the run is one sample's row; anything else would be a wrong tile, not a slow one.
      if (changes !== runs[m + 3]) throw new Error(`sample tiles of series ${runs[m]}: ${changes} rows copied for ${runs[m + 3]} samples`);
    }
    runs.length = 0;
    this.held = 0;
    if (closeTiles) {
      this.sampleAcc.clear();
      this.accs.length = 0;
      this.chunks.length = 0;
    }
  }

  private flushRecords(): void {
    writeRows(this.spanRows, 9, RECORD_BATCH, this.stmts.spanBatch, this.stmts.span);
    this.spanRows.length = 0;
    writeRows(this.kernelRows, 9, RECORD_BATCH, this.stmts.kernelBatch, this.stmts.kernel);
    this.kernelRows.length = 0;
    writeRows(this.allocationRows, 10, RECORD_BATCH, this.stmts.allocationBatch, this.stmts.allocation);
    this.allocationRows.length = 0;
    writeRows(this.eventRows, 8, RECORD_BATCH, this.stmts.eventBatch, this.stmts.event);
    this.eventRows.length = 0;
  }

  /** Everything still buffered, before the commit. */
  private flushAll(): void {
    this.flushRecords();
    this.flushSamples(true);
    this.flushHistograms();
    if (this.firstEventId !== null) this.stmts.ftsIndex.run(this.firstEventId, this.sourceId);
  }

  histogram(series: number, ts_ms: number, le: number, count: number): void {
    if (!Number.isFinite(count) || Number.isNaN(le)) return;
    this.begin();
    const t = Math.round(ts_ms);
    this.seen(t);
    let byTs = this.openHist.get(series);
    if (!byTs) this.openHist.set(series, (byTs = new Map()));
    let snap = byTs.get(t);
    if (!snap) byTs.set(t, (snap = { le: [], counts: [] }));
    snap.le.push(le);
    snap.counts.push(count);
    if (++this.count > this.maxRows) this.overBudget();
    if (++this.openBuckets >= OPEN_BUCKETS_MAX) this.flushHistograms();
  }

  /**
   * Writes every open scrape, in (series, time) order, batched. A scrape already stored (its buckets
   * came in two flushes, or two sources: the live recorder keeps series across batches) is merged.
   */
  private flushHistograms(): void {
    if (this.openHist.size) this.cacheForSamples();
    const rows = this.histRows;
    for (const [series, byTs] of this.openHist) {
      for (const [t, open] of byTs) {
        const s = sortBuckets(open);
        rows.push(series, t, this.layoutId(series, s.le), `[${s.counts.join(',')}]`);
        if (rows.length === HISTOGRAM_BATCH * 4) this.writeSnapshots(this.stmts.histogramBatch);
      }
    }
    while (rows.length) {
      this.writeSnapshots(this.stmts.histogram, rows.splice(0, 4));
    }
    this.openHist.clear();
    this.openBuckets = 0;
  }

  /** INSERT OR IGNORE of (series, ts, layout, counts) rows; a row that was ignored merges into the stored one. */
  private writeSnapshots(stmt: Statement, rows = this.histRows): void {
    const n = rows.length / 4;
    if (stmt.run(rows).changes < n) {
      for (let i = 0; i < rows.length; i += 4) this.mergeSnapshot(rows[i] as number, rows[i + 1] as number, rows[i + 2] as number, rows[i + 3] as string);
    }
    rows.length = 0;
  }

  /** The stored buckets, then these over them (of two with the same bound the later wins). */
  private mergeSnapshot(series: number, t: number, layout: number, counts: string): void {
    const known = this.stmts.histogramFind.get(series, t) as [string, string] | undefined;
    const mine = { le: this.layoutBounds(series, layout), counts: JSON.parse(counts) as number[] };
    if (!known || (known[1] === counts && sameBounds(JSON.parse(known[0]) as number[], mine.le))) return;
    const merged = sortBuckets({ le: [...(JSON.parse(known[0]) as number[]), ...mine.le], counts: [...(JSON.parse(known[1]) as number[]), ...mine.counts] });
    this.stmts.histogramReplace.run(series, t, this.layoutId(series, merged.le), `[${merged.counts.join(',')}]`);
  }

  private layoutBounds(series: number, id: number): number[] {
    const last = this.lastLayout.get(series);
    if (last && last.id === id) return last.le;
    return JSON.parse(this.stmts.layoutById.get(id) as string) as number[];
  }

  private layoutId(series: number, le: number[]): number {
    const last = this.lastLayout.get(series);
    if (last && sameBounds(last.le, le)) return last.id;
    const json = layoutJson(le);
    let id = this.layoutIds.get(json);
    if (id === undefined) {
      this.stmts.layoutInsert.run(json);
      id = Number(this.stmts.layoutFind.get(json));
      this.layoutIds.set(json, id);
    }
    this.lastLayout.set(series, { le, id });
    return id;
  }

  event(e: EventRecord): void {
    if (!Number.isFinite(e.ts_ms)) return;
    this.begin();
    const t = Math.round(e.ts_ms);
    this.seen(t);
    this.rowExtent.ms(t);
    const attrs = e.attrs ? JSON.stringify(e.attrs) : '{}';
    this.text(e.text.length + attrs.length);
    // The events of this source get ids from here on (the table's largest + 1), indexed for search at commit.
    this.firstEventId ??= this.stmts.nextEventId.get() as number;
    const rows = this.eventRows;
    rows.push(this.incidentId, t, e.kind, e.severity ?? 'info', this.sourceId, e.line ?? null, e.text, attrs);
    if (rows.length === RECORD_BATCH * 8) {
      this.stmts.eventBatch.run(rows);
      rows.length = 0;
    }
    if (++this.count > this.maxRows) this.overBudget();
  }

  span(s: SpanRecord): void {
    this.spanRow(s.trace_id, s.span_id, s.parent_id ?? null, s.name, s.start_ns, s.end_ns, s.attrs ? JSON.stringify(s.attrs) : '{}');
  }

  kernel(k: KernelRecord): void {
    this.kernelRow(k.device, k.stream, k.name, k.start_ns, k.end_ns, k.correlation_id ?? null, k.attrs ? JSON.stringify(k.attrs) : '{}');
  }

  /** A span with its attributes already JSON (rows made on a worker thread come this way, see import/batch-replay.ts). */
  spanRow(traceId: string, spanId: string, parentId: string | null, name: string, start: Ns, end: Ns, attrsJson: string): void {
    this.begin();
    this.seenNs(start);
    this.seenNs(end);
    this.text(name.length + attrsJson.length);
    const s = toInt(start);
    const e = toInt(end);
    this.rowExtent.ns(s, e);
    const rows = this.spanRows;
    rows.push(this.incidentId, this.sourceId, traceId, spanId, parentId, name, s, e, attrsJson);
    if (rows.length === RECORD_BATCH * 9) {
      this.stmts.spanBatch.run(rows);
      rows.length = 0;
    }
    if (++this.count > this.maxRows) this.overBudget();
  }

  /** A kernel with its attributes already JSON. */
  kernelRow(device: number, stream: number, name: string, start: Ns, end: Ns, correlationId: number | null, attrsJson: string): void {
    this.begin();
    this.seenNs(start);
    this.seenNs(end);
    this.text(name.length + attrsJson.length);
    const s = toInt(start);
    const e = toInt(end);
    this.rowExtent.ns(s, e);
    const rows = this.kernelRows;
    rows.push(this.incidentId, this.sourceId, device, stream, name, s, e, correlationId, attrsJson);
    if (rows.length === RECORD_BATCH * 9) {
      this.stmts.kernelBatch.run(rows);
      rows.length = 0;
    }
    if (++this.count > this.maxRows) this.overBudget();
  }

  stack(frames: string[]): number {
    const json = JSON.stringify(frames);
    // Counted before the lookup: building the text is the work, whether or not it is new.
    this.text(json.length);
    const known = this.stackIds.get(json);
    if (known !== undefined) return known;
    this.begin();
    const hash = createHash('sha1').update(json).digest('hex');
    this.stmts.stackInsert.run(hash, json);
    const id = Number(this.stmts.stackFind.get(hash));
    this.stackIds.set(json, id);
    return id;
  }

  allocation(a: AllocationRecord): void {
    this.begin();
    if (a.alloc_ns !== null && a.alloc_ns !== undefined) this.seenNs(a.alloc_ns);
    if (a.free_ns !== null && a.free_ns !== undefined) this.seenNs(a.free_ns);
    const allocNs = toInt(a.alloc_ns);
    const freeNs = toInt(a.free_ns);
    this.rowExtent.ns(allocNs, freeNs ?? allocNs);
    const rows = this.allocationRows;
    rows.push(this.incidentId, this.sourceId, a.device, a.addr, a.size, allocNs, freeNs, a.stack_id ?? null, a.source, a.correlation_id ?? null);
    if (rows.length === RECORD_BATCH * 10) {
      this.stmts.allocationBatch.run(rows);
      rows.length = 0;
    }
    if (++this.count > this.maxRows) this.overBudget();
  }

  /** Truncated to whole ms, as BigInt division does; a double does it exactly unless within 1 µs of a ms boundary. */
  private seenNs(ns: number | bigint): void {
    if (typeof ns === 'bigint') {
      const x = Number(ns);
      let ms = Math.trunc(x / 1e6);
      const r = Math.abs(x - ms * 1e6);
      if (!(r > 1e3 && r < 1e6 - 1e3)) ms = Number(ns / 1_000_000n);
      this.seen(ms);
      return;
    }
    const ms = ns / 1e6;
    if (Number.isFinite(ms)) this.seen(Math.round(ms));
  }

  attached<T>(fn: (q: AttachedQuery) => T): T {
    if (this.attachedFile === null) throw new Error('this importer did not ask for its file to be attached (needsFile)');
    // Rows copied by SQL pass through nothing here: the incident's span is read back from them.
    this.rowExtent.exact = false;
    this.copiedBySql = true;
    this.begin();
    this.flushRecords();
    const db = this.db;
    const counted = (changes: number): number => {
      this.count += changes;
      if (this.count > this.maxRows) this.overBudget();
      return changes;
    };
    // Importers look rows up one at a time (a memory event's call and next kernel): each SQL text is
    // prepared once (preparing per lookup made 250 k memory events take longer than 2 M copied rows).
    const prepared = new Map<string, Statement>();
    const statement = (sql: string) => {
      let st = prepared.get(sql);
      if (!st) prepared.set(sql, (st = db.prepare(sql)));
      return st;
    };
    const q: AttachedQuery = {
      all: (sql, ...params) => statement(sql).all(...params) as Record<string, unknown>[],
      copiedSpanMs: () => this.copiedSpanMs(),
      copy: (table, columns, from, signal) => this.copyAttached(table, columns, from, signal, counted),
      indexed: (table, column) => {
        // The plan of a lookup says whether the file's own keys serve it (a real export's StringIds.id is its rowid).
        const plan = db.prepare(`EXPLAIN QUERY PLAN SELECT 1 FROM ext.${quoted(table)} WHERE ${quoted(column)} = ?`).all(0) as { detail: string }[];
        if (plan.some((p) => p.detail.startsWith('SEARCH'))) return;
        // A name of ours the file cannot already hold.
        db.exec(`CREATE INDEX ext.qs_${randomUUID().replace(/-/g, '')} ON ${quoted(table)} (${quoted(column)})`);
      },
      ordered: (from, orderBy) => {
        const name = `qs_order_${this.tempTables.length}`;
        db.exec(`DROP TABLE IF EXISTS temp.${name}`);
        db.exec(`CREATE TEMP TABLE ${name} AS SELECT ${from.alias}.rowid AS rid FROM ext.${quoted(from.table)} ${from.alias}${from.where ? ` WHERE ${from.where}` : ''} ORDER BY ${orderBy}`);
        this.tempTables.push(name);
        return name;
      },
      // Ordinary tables only: a view or a virtual table of an untrusted file is code, not data.
      tables: () => new Set(db.prepare("SELECT name FROM ext.sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%'").pluck().all() as string[]),
    };
    return fn(q);
  }

  /**
   * An attached table copied in rowid steps of ATTACHED_STEP rows: each step is a search on the rowid
   * B-tree and a bounded INSERT … SELECT, the output budget is checked after each, and the event loop
   * runs between them, so other calls are answered and a cancel ends the copy within a step. Rowids are
   * read as BigInt (they span all of int64) and the range is inclusive, so no rowid is skipped.
   */
  private async copyAttached(table: 'kernels' | 'spans', columns: Readonly<Record<string, string>>, from: AttachedTable, signal: AbortSignal, counted: (n: number) => number): Promise<number> {
    const db = this.db;
    const t = `ext.${quoted(from.table)}`;
    const a = from.alias;
    const where = from.where ? ` AND (${from.where})` : '';
    const stepEnd = db.prepare(`SELECT rowid FROM ${t} WHERE rowid >= ? ORDER BY rowid LIMIT 1 OFFSET ${ATTACHED_STEP - 1}`).pluck().safeIntegers(true);
    const ids = { incident_id: '?', source_id: '?', ...columns };
    const step = db.prepare(insertSelectSql(table, ids, `FROM ${t} ${a} WHERE ${a}.rowid >= ? AND ${a}.rowid <= ?${where}`));
    const rest = db.prepare(insertSelectSql(table, ids, `FROM ${t} ${a} WHERE ${a}.rowid >= ?${where}`));
    let lo = -(2n ** 63n);
    let copied = 0;
    for (;;) {
      signal.throwIfAborted();
      const hi = stepEnd.get(lo) as bigint | undefined;
      if (hi === undefined) return copied + counted(rest.run(this.incidentId, this.sourceId, lo).changes);
      copied += counted(step.run(this.incidentId, this.sourceId, lo, hi).changes);
      if (hi === 2n ** 63n - 1n) return copied;
      lo = hi + 1n;
      await turn();
    }
  }

  /** The time range (ms) of the kernels and spans this source wrote, as SQL reads it back (rows copied by SQL). */
  private copiedSpanMs(): { lo: number | null; hi: number | null } {
    return this.db
      .prepare(
        `SELECT MIN(lo) / 1e6 AS lo, MAX(hi) / 1e6 AS hi FROM (
           SELECT MIN(start_ns) AS lo, MAX(end_ns) AS hi FROM main.kernels WHERE incident_id = @incident AND source_id = @id
           UNION ALL SELECT MIN(start_ns), MAX(end_ns) FROM main.spans WHERE incident_id = @incident AND source_id = @id)`,
      )
      .get({ id: this.sourceId, incident: this.incidentId }) as { lo: number | null; hi: number | null };
  }

  /** Makes the source visible, with its final row count and warnings. */
  commit(warnings: string[]): void {
    if (this.inTx) {
      this.flushAll();
      if (this.copiedBySql) {
        // The time range of what SQL copied, read back once, so that it counts for the bundle's time (the
        // year of year-less logs beside an Nsight export) like rows written one by one.
        const r = this.copiedSpanMs();
        if (r.lo !== null && r.hi !== null) {
          this.seen(Math.floor(r.lo));
          this.seen(Math.ceil(r.hi));
        }
      }
      if (this.continued) {
        // A later batch of the same source: its rows and bytes add up, its warnings join the first ones.
        const db = this.db;
        const known = cachedStatement(db, 'writer.sourceWarnings', () => db.prepare('SELECT warnings_json FROM sources WHERE id = ?').pluck()).get(this.sourceId) as string | undefined;
        let all: string[] = [];
        try {
          all = known ? (JSON.parse(known) as string[]) : [];
        } catch {
          all = [];
        }
        for (const w of warnings) if (all.length < MAX_SOURCE_WARNINGS && !all.includes(w)) all.push(w);
        cachedStatement(db, 'writer.sourceAdd', () => db.prepare('UPDATE sources SET rows = rows + ?, bytes = bytes + ?, warnings_json = ? WHERE id = ?')).run(this.count, this.bytes, JSON.stringify(all), this.sourceId);
      } else cachedStatement(this.db, 'writer.sourceDone', () => this.db.prepare('UPDATE sources SET rows = ?, warnings_json = ? WHERE id = ?')).run(this.count, JSON.stringify(warnings), this.sourceId);
      this.db.exec('COMMIT');
      this.inTx = false;
      this.restorePragmas();
      this.afterCommit();
    }
    this.detach();
  }

  private restorePragmas(): void {
    // Outside a transaction only (they are no-ops inside one).
    this.db.pragma('foreign_keys = ON');
    this.db.pragma(`wal_autocheckpoint = ${this.autoCheckpoint()}`);
    this.db.pragma(`cache_size = ${this.cacheSize}`);
  }

  /**
   * Drops everything of this source. Never throws: it runs on the failure path, where SQLite may already
   * have rolled the transaction back itself (SQLITE_FULL, SQLITE_IOERR do), and a second ROLLBACK would
   * fail with "cannot rollback - no transaction is active" and hide the real error.
   */
  rollback(): void {
    this.sampleAcc.clear();
    this.accs.length = 0;
    this.chunks.length = 0;
    this.held = 0;
    this.tileRuns.length = 0;
    this.spanRows.length = 0;
    this.kernelRows.length = 0;
    this.allocationRows.length = 0;
    this.eventRows.length = 0;
    this.openHist.clear();
    this.openBuckets = 0;
    this.histRows.length = 0;
    if (this.inTx) {
      this.inTx = false;
      try {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
      } catch {
        /* SQLite ended it already, or the disk refuses even that: either way nothing is committed */
      }
      try {
        if (!this.db.inTransaction) this.restorePragmas();
      } catch {
        /* best effort; the next source sets them again */
      }
    }
    this.count = 0;
    try {
      this.detach();
    } catch {
      this.attachedFile = null;
    }
  }

  private detach(): void {
    if (this.attachedFile !== null) {
      this.attachedFile = null;
      // A rollback took back the ones made inside the transaction; those that outlived a commit go now.
      for (const name of this.tempTables.splice(0)) this.db.exec(`DROP TABLE IF EXISTS temp.${name}`);
      this.db.exec('DETACH DATABASE ext');
    }
  }
}
