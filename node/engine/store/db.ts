// Opening a workspace database: WAL, foreign keys, migrations. better-sqlite3 is imported only inside
// node/engine/store (lint-enforced); the rest of the engine talks to the Store.
//
// A database on read-only media (a read-only mount, a folder the user cannot write, an evidence copy)
// must still open for reading. In WAL mode SQLite reads through a `-shm` file it creates beside the
// database, which fails there; such a file is opened again as `immutable` (no locks, no -shm), which is
// exact as long as no `-wal` with content is beside it (a cleanly closed workspace has none). That needs
// SQLite's URI file names, which better-sqlite3 enables for the process when SQLITE_USE_URI=1 is set
// before its first connection; only names that start with "file:" are read as URIs.
import Database, { type Statement } from 'better-sqlite3';
import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { MIGRATIONS } from './schema';

process.env.SQLITE_USE_URI ??= '1';

export type Db = Database.Database;

export interface OpenOptions {
  readonly?: boolean;
}

export function openDb(file: string, opts: OpenOptions = {}): Db {
  if (opts.readonly) {
    const db = openReadOnlyDb(file);
    db.pragma('cache_size = -65536');
    return db;
  }
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  try {
    db.pragma('busy_timeout = 10000');
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    migrate(db);
    db.pragma('cache_size = -65536');
  } catch (e) {
    db.close();
    throw e;
  }
  return db;
}

export function migrate(db: Db): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > MIGRATIONS.length) {
    throw new Error(`database schema version ${version} is newer than this Quadscope (${MIGRATIONS.length}); upgrade Quadscope`);
  }
  for (let v = version; v < MIGRATIONS.length; v++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[v]);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
}

const statementCache = new WeakMap<Db, Map<string, Statement>>();

/**
 * The statement `key` names on `db`, prepared by `build` the first time it is asked for and kept for the
 * connection's life: for statements run again and again from objects made often (a source writer per
 * source, a live recording's once a second). `key` must always name the same SQL and mode on a connection.
 */
export function cachedStatement(db: Db, key: string, build: () => Statement): Statement {
  let known = statementCache.get(db);
  if (!known) statementCache.set(db, (known = new Map()));
  let st = known.get(key);
  if (!st) known.set(key, (st = build()));
  return st;
}

/** SQLite's codes for "this file or its folder cannot be written" (and the shared-memory file it needs). */
export function isReadOnlyError(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^(SQLITE_READONLY|SQLITE_CANTOPEN|SQLITE_IOERR_(SHMOPEN|SHMSIZE|SHMMAP|LOCK|TRUNCATE|WRITE)|EACCES|EROFS|EPERM)/.test(code);
}

/**
 * A read-only connection that works on read-only media: tried as usual first (so a database being written
 * by another process is read with its WAL), then as immutable when SQLite cannot make its -shm file.
 */
export function openReadOnlyDb(file: string): Db {
  let first: unknown;
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      db.pragma('busy_timeout = 10000');
      // The WAL and its -shm are opened at the first read, not by the constructor.
      db.prepare('SELECT 1 FROM sqlite_master LIMIT 1').get();
      return db;
    } catch (e) {
      db.close();
      throw e;
    }
  } catch (e) {
    if (!isReadOnlyError(e)) throw e;
    first = e;
  }
  let walBytes = 0;
  try {
    walBytes = statSync(`${file}-wal`).size;
  } catch {
    /* no WAL: the database file holds everything */
  }
  const why = (first as Error).message;
  if (walBytes > 0) {
    throw Object.assign(
      new Error(`${file} cannot be written (${why}), and its write-ahead log ${file}-wal holds changes that SQLite reads only with write access: copy the database with its -wal and -shm files to a writable folder`),
      { code: 'SQLITE_READONLY' },
    );
  }
  try {
    const db = new Database(`${pathToFileURL(resolve(file)).href}?immutable=1`, { readonly: true, fileMustExist: true });
    db.prepare('SELECT 1 FROM sqlite_master LIMIT 1').get();
    return db;
  } catch {
    throw first;
  }
}

/** A read-only connection over an existing database, for user SQL (the console, `quadscope query`). */
export function openReadOnly(file: string): Db {
  const db = openReadOnlyDb(file);
  db.pragma('query_only = ON');
  return db;
}

/**
 * What a SQLite failure means for the user, in their terms (disk full, read-only, locked, damaged); other
 * errors as they are. Used where an import or a recording reports a failure per file.
 */
export function describeStoreError(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return msg;
  if (code === 'SQLITE_FULL' || code === 'ENOSPC') return `the disk holding the workspace database is full (${msg}): nothing of this file was kept; free space and import it again`;
  if (code.startsWith('SQLITE_IOERR')) return `writing the workspace database failed (${code}: ${msg}): the disk may be full, over a size limit or failing; nothing of this file was kept`;
  if (code.startsWith('SQLITE_READONLY')) return `the workspace database cannot be written (${msg}): open a writable copy to import`;
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') return `the workspace database is locked by another process (${msg}); try again when it is done`;
  if (code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB') return `the workspace database is damaged (${msg})`;
  return msg;
}
