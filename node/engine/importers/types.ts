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

export interface AttachedQuery {
  /** Rows of a SELECT over the attached database, whose schema is named `ext`. */
  all(sql: string, ...params: unknown[]): Record<string, unknown>[];
  /** Iterates rows without holding them all. */
  iterate(sql: string, ...params: unknown[]): IterableIterator<Record<string, unknown>>;
  /**
   * Copies rows out of the attached database into one of our tables: `INSERT INTO table (columns) SELECT
   * exprs FROM …` with the column list the store declares (store/tables.ts), the source's incident and
   * source ids filled in. `columns` maps each column to its SQL expression (no parameters); a column left
   * out takes NULL or its default. Answers the number of rows copied.
   */
  copy(table: 'kernels' | 'spans', columns: Readonly<Record<string, string>>, from: string): number;
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

export function formatPosition(where: Position | undefined): string {
  if (!where) return '';
  const parts: string[] = [];
  if (where.line !== undefined) parts.push(`line ${where.line}`);
  if (where.offset !== undefined) parts.push(`byte ${where.offset}`);
  if (where.key !== undefined) parts.push(`key ${where.key}`);
  return parts.length ? ` (${parts.join(', ')})` : '';
}
