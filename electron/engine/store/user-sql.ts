// SQL typed by a user (the SQL console, `quadscope query`): a read-only connection, statements that
// return rows only, no ATTACH (it would open other files), and a row cap.
import { openReadOnly } from './db';
import type { SqlResult } from '../../contract/types';
import { EngineError } from '../../contract/api';

const FORBIDDEN = /^\s*(attach|detach|vacuum|reindex|analyze)\b|\bload_extension\s*\(|\bwritefile\s*\(|\breadfile\s*\(/i;

export function runReadOnlySql(file: string, sql: string, limit: number): SqlResult {
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
    const columns = stmt.columns().map((c) => c.name);
    const rows: unknown[][] = [];
    let truncated = false;
    try {
      for (const row of stmt.raw().iterate() as IterableIterator<unknown[]>) {
        if (rows.length >= limit) {
          truncated = true;
          break;
        }
        rows.push(row.map((v) => (typeof v === 'bigint' ? Number(v) : Buffer.isBuffer(v) ? `<${v.length} bytes>` : v)));
      }
    } catch (e) {
      throw new EngineError('sql_error', e instanceof Error ? e.message : String(e));
    }
    return { columns, rows, truncated };
  } finally {
    db.close();
  }
}
