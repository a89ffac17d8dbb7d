// SQL typed by a user (the SQL console, `quadscope query`): a read-only connection, statements that
// return rows and write nothing (SQLite's own verdict, so INSERT … RETURNING is caught), no ATTACH (it
// would open other files), a row cap and a time cap.
//
// The time cap is checked between rows: better-sqlite3 is built without the progress callback and has
// no interrupt, so a query that computes for ever before its first row (an aggregate over an endless
// recursive CTE) still holds the engine; only a separate process could stop that one.
import { openReadOnly } from './db';
import type { SqlResult } from '../../contract/types';
import { EngineError } from '../../contract/api';

const FORBIDDEN = /^\s*(attach|detach|vacuum|reindex|analyze)\b|\bload_extension\s*\(|\bwritefile\s*\(|\breadfile\s*\(/i;

export const DEFAULT_SQL_TIMEOUT_MS = 10_000;

export function runReadOnlySql(file: string, sql: string, limit: number, opts: { timeoutMs?: number } = {}): SqlResult {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_SQL_TIMEOUT_MS;
  if (FORBIDDEN.test(sql)) throw new EngineError('sql_refused', 'only queries that read the workspace are allowed (no ATTACH, VACUUM or extensions)');
  const db = openReadOnly(file);
  try {
    let stmt;
    try {
      stmt = db.prepare(sql);
    } catch (e) {
      throw new EngineError('sql_error', e instanceof Error ? e.message : String(e));
    }
    if (!stmt.reader) throw new EngineError('sql_refused', 'the statement returns no rows: the SQL console is read-only');
    if (!stmt.readonly) throw new EngineError('sql_refused', 'the statement would change the database: the SQL console is read-only');
    const columns = stmt.columns().map((c) => c.name);
    const rows: unknown[][] = [];
    let truncated = false;
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
        rows.push(row.map((v) => (typeof v === 'bigint' ? Number(v) : Buffer.isBuffer(v) ? `<${v.length} bytes>` : v)));
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
