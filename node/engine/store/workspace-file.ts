// Tells a Quadscope workspace database from anything else by its contents, never by its name: a
// workspace saved as `incident.sqlite` is still a workspace, and an Nsight Systems export (also SQLite,
// also often `.sqlite`) is an input to import. The check reads the 100-byte SQLite header only.
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';

const MAGIC = 'SQLite format 3\0';

export type FileKind = 'workspace' | 'sqlite' | 'other';

/**
 * 'workspace' for a SQLite file whose `PRAGMA user_version` (header offset 60) is set by Quadscope's
 * migrations and that holds an `incidents` table — the second test needs the schema, so it is only made
 * when the header says SQLite; 'sqlite' for another SQLite file; 'other' for the rest (folders included).
 */
export function fileKind(path: string): FileKind {
  let st;
  try {
    st = statSync(path);
  } catch {
    return 'other';
  }
  if (!st.isFile() || st.size < 100) return 'other';
  const head = Buffer.alloc(100);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, head, 0, 100, 0);
  } finally {
    closeSync(fd);
  }
  if (head.toString('latin1', 0, 16) !== MAGIC) return 'other';
  const userVersion = head.readUInt32BE(60);
  return userVersion > 0 && hasIncidentsTable(path) ? 'workspace' : 'sqlite';
}

function hasIncidentsTable(path: string): boolean {
  let db: Database.Database | null = null;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
    return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'incidents'").get() !== undefined;
  } catch {
    return false;
  } finally {
    db?.close();
  }
}
