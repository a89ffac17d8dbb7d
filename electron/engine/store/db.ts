// Opening a workspace database: WAL, foreign keys, migrations. better-sqlite3 is imported only inside
// electron/engine/store (lint-enforced); the rest of the engine talks to the Store.
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { MIGRATIONS } from './schema';

export type Db = Database.Database;

export interface OpenOptions {
  readonly?: boolean;
}

export function openDb(file: string, opts: OpenOptions = {}): Db {
  if (!opts.readonly && file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file, { readonly: !!opts.readonly, fileMustExist: !!opts.readonly });
  db.pragma('busy_timeout = 10000');
  if (!opts.readonly) {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    migrate(db);
  }
  db.pragma('cache_size = -65536');
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

/** A read-only connection over an existing database, for user SQL (the console, `quadscope query`). */
export function openReadOnly(file: string): Db {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  db.pragma('query_only = ON');
  return db;
}
