// The shape every importer has: `detect(head)` looks at the first bytes, `import(entry, sink, ctx)`
// streams the entry into the sink. Importers never see SQLite; the sink is one open transaction for
// the source being imported, so a failure or a cancel leaves nothing of it behind.
import type { FormatId, ImportOptions, SeriesKind, Severity } from '../../../common/contract/types';

export interface SeriesDef {
  name: string;
  labels?: Record<string, string>;
  unit?: string;
  kind?: SeriesKind;
}

export interface EventRecord {
  ts_ms: number;
  kind: string;
  severity?: Severity;
  /** 1-based line in the source file. */
  line?: number | null;
  text: string;
  attrs?: Record<string, unknown>;
}

export type Ns = number | bigint;

export interface SpanRecord {
  trace_id: string;
  span_id: string;
  parent_id?: string | null;
  name: string;
  start_ns: Ns;
  end_ns: Ns;
  attrs?: Record<string, unknown>;
}

export interface KernelRecord {
  device: number;
  stream: number;
  name: string;
  start_ns: Ns;
  end_ns: Ns;
  correlation_id?: number | null;
  attrs?: Record<string, unknown>;
}

export interface AllocationRecord {
  device: number;
  /** Hex string ("0x7f3a…"): addresses pass 2^53. */
  addr: string;
  size: number;
  alloc_ns?: Ns | null;
  free_ns?: Ns | null;
  stack_id?: number | null;
  /** Where the record came from: 'snapshot', 'kineto', 'nsys'. */
  source: string;
  /** CUDA correlation id of the allocating runtime call (nsys), joining it to that call and its kernels. */
  correlation_id?: number | null;
}

export interface Sink {
  /** Registers (or finds, within this source) a series and answers its id. */
  series(def: SeriesDef): number;
  sample(series: number, ts_ms: number, value: number): void;
  histogram(series: number, ts_ms: number, le: number, count: number): void;
  event(e: EventRecord): void;
  span(s: SpanRecord): void;
  kernel(k: KernelRecord): void;
  /** Registers a stack (frames, innermost first) and answers its id; identical stacks share one id. */
  stack(frames: string[]): number;
  allocation(a: AllocationRecord): void;
  /** Rows written so far by this source. */
  readonly rows: number;
  /**
   * For importers with `needsFile`: SQL over the entry's file, attached read-only as schema `ext`
   * (nsys exports), so rows are copied with INSERT … SELECT inside this source's transaction.
   */
  attached<T>(fn: (q: AttachedQuery) => T): T;
  readonly incidentId: number;
  readonly sourceId: number;
}

/** A table of the attached database read in rowid order: `alias` names it in the SQL, `where` keeps some rows. */
export interface AttachedTable {
  table: string;
  alias: string;
  where?: string;
}

/**
 * Reads of an attached (untrusted) SQLite file. Every statement an importer runs through it must do work
 * bounded by the rows it touches, and long reads go in steps that give the engine's thread back: the
 * import shares that thread with every call the window makes, and cancel reaches it only between steps.
 */
export interface AttachedQuery {
  /** Rows of a SELECT over the attached database, whose schema is named `ext`. */
  all(sql: string, ...params: unknown[]): Record<string, unknown>[];
  /**
   * Copies rows out of the attached database into one of our tables: `INSERT INTO table (columns) SELECT
   * exprs FROM ext.<from.table> <from.alias>` with the column list the store declares (store/tables.ts),
   * the source's incident and source ids filled in, in rowid steps of a few thousand rows: between steps
   * the engine's thread answers other calls, and `signal` (cancel) ends the copy. `columns` maps each
   * column to its SQL expression (no parameters); a column left out takes NULL or its default. Answers
   * the number of rows copied.
   */
  copy(table: 'kernels' | 'spans', columns: Readonly<Record<string, string>>, from: AttachedTable, signal: AbortSignal): Promise<number>;
  /**
   * Makes `SELECT … FROM ext.<table> WHERE <column> = ?` (and ranges on it) a search, not a scan: an
   * index on the private copy where the file has none (a lookup per copied row into an unindexed table
   * is quadratic: 5,000 rows into 20,000 strings took a second).
   */
  indexed(table: string, column: string): void;
  /**
   * The rowids of `from` ordered by `orderBy` (SQL over its alias), as a temporary table `temp.<name>`
   * whose own rowid (1, 2, …) is the position: pages of it are read with an exact keyset on an integer,
   * whatever the ordering column holds. One sort, bounded by the table's size.
   */
  ordered(from: AttachedTable, orderBy: string): string;
  /** The time span (ms) of the kernels and spans this source copied so far; null ends where it copied none. */
  copiedSpanMs(): { lo: number | null; hi: number | null };
  tables(): Set<string>;
}

/** Where in a file a problem sits. */
export interface Position {
  line?: number;
  offset?: number;
  key?: string;
}

export interface ImportContext {
  /** The entry's path within the bundle, for messages. */
  readonly path: string;
  readonly size: number | null;
  /** The entry's modification time (ms since epoch) where the bundle records one. */
  readonly mtimeMs: number | null;
  /**
   * The latest time (ms) of the sources of this bundle already imported that carry absolute times
   * (metrics, traces): a better anchor than mtime for logs whose lines have no year.
   */
  readonly bundleEndMs?: number | null;
  readonly options: ImportOptions;
  readonly signal: AbortSignal;
  /** Reports bytes consumed so far; the pipeline throttles progress events. */
  progress(bytesDone: number): void;
  /** Reports a recoverable problem (a malformed line, skipped); the import goes on. */
  warn(message: string, where?: Position): void;
}

/** Input handed to an importer: bytes as a stream, or a real file on disk where the format needs one. */
export interface EntryInput {
  stream(): AsyncIterable<Buffer>;
  /** A path to the entry's bytes on disk (archives are spilled to a temporary file). */
  file(): Promise<string>;
}

export interface Importer {
  readonly format: FormatId;
  /**
   * How sure this importer is that the entry is its format, from the first bytes (up to 64 KiB,
   * decompressed) and the name: 0 = not mine, 1 = certain. The highest score wins.
   */
  detect(head: Buffer, name: string): number;
  /**
   * Its times need a year, a date or a start from elsewhere (log lines without a year, times of day,
   * boot-relative seconds, no times at all): the pipeline imports it after the sources with absolute
   * times, so ctx.bundleEndMs can anchor it, and its own times never move that anchor.
   */
  readonly yearless?: boolean;
  /**
   * Its times may be local wall-clock times printed without a zone (nvidia-smi's timestamp column, Grafana's
   * CSV), read in ctx.options.tzOffsetMinutes, UTC when not given. Where the user gave no zone, the pipeline
   * imports it after the sources with absolute times and infers its zone from them (import/zone-inference.ts).
   * A yearless importer is taken to be one too.
   */
  readonly localTime?: boolean;
  /** The entry must be a SQLite file on disk, attached as `ext` before the source's transaction opens. */
  readonly needsFile?: boolean;
  /**
   * Parsing dominates (line or JSON parsing of large files): large inputs run the importer on a worker
   * thread beside the SQLite writes (import/parallel-import.ts). It must then talk only to its sink and
   * its input stream, never input.file().
   */
  readonly parallel?: boolean;
  import(input: EntryInput, sink: Sink, ctx: ImportContext): Promise<void>;
}

/** An error that names the file and the place. The pipeline fails that source with this text. */
export class ImportError extends Error {
  constructor(readonly file: string, readonly where: Position, message: string) {
    super(`${file}${formatPosition(where)}: ${message}`);
    this.name = 'ImportError';
  }
}

/**
 * A key is named as far as it helps to find it: a hostile one (a key string holding 100 k brackets, from
 * the fuzz run) filled the message with it.
 */
const MAX_KEY_CHARS = 120;

export function formatPosition(where: Position | undefined): string {
  if (!where) return '';
  const parts: string[] = [];
  if (where.line !== undefined) parts.push(`line ${where.line}`);
  if (where.offset !== undefined) parts.push(`byte ${where.offset}`);
  const key = where.key;
  if (key !== undefined) parts.push(`key ${key.length > MAX_KEY_CHARS ? `${key.slice(0, MAX_KEY_CHARS)}…[${key.length} characters]` : key}`);
  return parts.length ? ` (${parts.join(', ')})` : '';
}
