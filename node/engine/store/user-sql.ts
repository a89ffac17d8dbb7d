// SQL typed by a user (the SQL console, `quadscope query`): a read-only connection, statements that
// return rows and write nothing (SQLite's own verdict, so INSERT … RETURNING is caught), no ATTACH (it
// would open other files), a row cap and a time cap.
//
// Answers are capped in size (MAX_ANSWER_BYTES, long cells cut), so what reaches the console is bounded;
// `quadscope query` streams its rows to stdout instead and holds none.
//
// The time cap is checked between rows: better-sqlite3 is built without the progress callback and has
// no interrupt, so a query that computes for ever before its first row (an aggregate over an endless
// recursive CTE) still holds the engine; only a separate process could stop that one.
import { openReadOnly } from './db';
import type { SqlResult } from '../../../common/contract/types';
import { EngineError } from '../../../common/contract/api';

const FORBIDDEN = /^\s*(attach|detach|vacuum|reindex|analyze)\b|\bload_extension\s*\(|\bwritefile\s*\(|\breadfile\s*\(/i;

export const DEFAULT_SQL_TIMEOUT_MS = 10_000;

/**
 * What one answer may weigh (its JSON, about): rows past it are left out and the answer says truncated.
 * A console shows a few thousand rows; a 101 MB answer cost the server 800 MB in buffers, strings and
 * objects on its way to the browser.
 */
export const MAX_ANSWER_BYTES = 8 * 2 ** 20;
/** Text or blob cells longer than this are cut (with a note of their length): one cell cannot fill the answer. */
export const MAX_CELL_CHARS = 64 * 1024;

export interface SqlOptions {
  timeoutMs?: number;
  /** Answer size cap in bytes (default MAX_ANSWER_BYTES). */
  maxBytes?: number;
}

/** Statement checks shared by the collected and the streamed forms. */
function prepareUserSql(db: ReturnType<typeof openReadOnly>, sql: string) {
  let stmt;
  try {
    stmt = db.prepare(sql);
  } catch (e) {
    throw new EngineError('sql_error', e instanceof Error ? e.message : String(e));
  }
  if (!stmt.reader) throw new EngineError('sql_refused', 'the statement returns no rows: the SQL console is read-only');
  if (!stmt.readonly) throw new EngineError('sql_refused', 'the statement would change the database: the SQL console is read-only');
  return stmt;
}

/** A cell as the console shows it: bigints as numbers, blobs by their size, very long text cut. */
function cell(v: unknown): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (Buffer.isBuffer(v)) return `<${v.length} bytes>`;
  if (typeof v === 'string' && v.length > MAX_CELL_CHARS) return `${v.slice(0, MAX_CELL_CHARS)}… [${v.length.toLocaleString('en-US')} characters, cut]`;
  return v;
}

/** About the JSON size of a row of cells (strings by length, other values by a flat 12). */
function rowBytes(row: unknown[]): number {
  let n = 2;
  for (const v of row) n += typeof v === 'string' ? v.length + 3 : 12;
  return n;
}

/**
 * Streams every row of a read-only query to `onRow` without holding them (`quadscope query`): only the
 * time cap applies. Answers the column names before the first row via `onColumns`.
 */
/** An integer as a number where a double holds it exactly, else as the bigint it is. */
function exactNumber(v: bigint): number | bigint {
  return v >= -9007199254740991n && v <= 9007199254740991n ? Number(v) : v;
}

/** Streams the rows of a read-only query; integers past 2^53 come as bigint (the caller prints them whole). */
export function streamReadOnlySql(file: string, sql: string, limit: number, onColumns: (columns: string[]) => void, onRow: (row: unknown[]) => void, opts: SqlOptions = {}): { rows: number; truncated: boolean } {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_SQL_TIMEOUT_MS;
  if (FORBIDDEN.test(sql)) throw new EngineError('sql_refused', 'only queries that read the workspace are allowed (no ATTACH, VACUUM or extensions)');
  const db = openReadOnly(file);
  try {
    const stmt = prepareUserSql(db, sql);
    onColumns(stmt.columns().map((c) => c.name));
    const deadline = Date.now() + timeoutMs;
    let rows = 0;
    let inCallback = false;
    try {
      // Integers read exactly (a time in ns is past 2^53): a number where it fits one, else a bigint.
      for (const row of stmt.raw().safeIntegers(true).iterate() as IterableIterator<unknown[]>) {
        if (Date.now() > deadline) throw new EngineError('sql_timeout', `the query ran longer than ${timeoutMs} ms and was stopped: narrow it (WHERE, LIMIT) and run it again`);
        if (rows >= limit) return { rows, truncated: true };
        inCallback = true;
        onRow(row.map((v) => (typeof v === 'bigint' ? exactNumber(v) : Buffer.isBuffer(v) ? `<${v.length} bytes>` : v)));
        inCallback = false;
        rows++;
      }
    } catch (e) {
      // The caller's own failures (a closed pipe) pass through as they are.
      if (e instanceof EngineError || inCallback) throw e;
      throw new EngineError('sql_error', e instanceof Error ? e.message : String(e));
    }
    return { rows, truncated: false };
  } finally {
    db.close();
  }
}

export function runReadOnlySql(file: string, sql: string, limit: number, opts: SqlOptions = {}): SqlResult {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_SQL_TIMEOUT_MS;
  const maxBytes = opts.maxBytes ?? MAX_ANSWER_BYTES;
  if (FORBIDDEN.test(sql)) throw new EngineError('sql_refused', 'only queries that read the workspace are allowed (no ATTACH, VACUUM or extensions)');
  const db = openReadOnly(file);
  try {
    const stmt = prepareUserSql(db, sql);
    const columns = stmt.columns().map((c) => c.name);
    const rows: unknown[][] = [];
    let truncated = false;
    let bytes = 0;
    const deadline = Date.now() + timeoutMs;
    try {
      for (const row of stmt.raw().iterate() as IterableIterator<unknown[]>) {
        if (Date.now() > deadline) {
          throw new EngineError('sql_timeout', `the query ran longer than ${timeoutMs} ms and was stopped: narrow it (WHERE, LIMIT) and run it again`);
        }
        if (rows.length >= limit) {
          truncated = true;
          break;
        }
        const shown = row.map(cell);
        bytes += rowBytes(shown);
        if (bytes > maxBytes && rows.length > 0) {
          truncated = true;
          break;
        }
        rows.push(shown);
      }
    } catch (e) {
      if (e instanceof EngineError) throw e;
      throw new EngineError('sql_error', e instanceof Error ? e.message : String(e));
    }
    return { columns, rows, truncated };
  } finally {
    db.close();
  }
}
