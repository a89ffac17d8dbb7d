// Quadscope's SQLite extension (native/sqlite/quadscope_sqlite.c, built by `npm run build:native`): the
// aggregate qs_pack(ts_ms, value), which hands a range of samples to JavaScript as one buffer of float64
// pairs, and the table-valued qs_rows(data, width), which hands rows of float64 from JavaScript to an
// INSERT the same way (issue 20; docs/architecture.md §5). It is an accelerator only: where it is not
// built or cannot load (Windows, a packaging without it, QUADSCOPE_SQLITE_EXTENSION=off), the reads fall
// back to SQLite calling a JavaScript function once per row and the writes to bound parameters, which
// give the same numbers.
//
// better-sqlite3 opens every connection with the C API's extension loading enabled and SQL's
// load_extension() disabled (SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION), so user SQL cannot load anything;
// the function itself is SQLITE_DIRECTONLY (no trigger or view can call it).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Db } from './db';

const FILE = `quadscope_sqlite.${process.platform === 'darwin' ? 'dylib' : process.platform === 'win32' ? 'dll' : 'so'}`;
const ENTRY = 'sqlite3_quadscope_init';

/**
 * Where the built extension lies: native/sqlite/build/ under the first folder above this module that has
 * one. From the sources that is the repository; from the engine bundle (out/engine/) too; inside a
 * packaged app the module is in app.asar, and the library in app.asar.unpacked (a library cannot be
 * loaded from inside an archive).
 */
function locate(): string | null {
  const env = process.env.QUADSCOPE_SQLITE_EXTENSION;
  if (env) return env;
  let dir = dirname(fileURLToPath(import.meta.url)).replace(/\.asar([/\\]|$)/, '.asar.unpacked$1');
  for (;;) {
    const candidate = join(dir, 'native', 'sqlite', 'build', FILE);
    if (existsSync(candidate)) return candidate;
    const up = dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
}

let path: string | null | undefined;
const loaded = new WeakMap<Db, boolean>();

/** Whether qs_pack is available on `db`, loading the extension into it on first ask. */
export function hasPack(db: Db): boolean {
  let ok = loaded.get(db);
  if (ok !== undefined) return ok;
  ok = false;
  // Read per connection, so a test can open one of each kind in the same process.
  if (process.env.QUADSCOPE_SQLITE_EXTENSION === 'off') path = undefined;
  else path ??= locate();
  if (path) {
    try {
      // better-sqlite3 takes the entry point as a second argument (its type declarations predate it).
      (db.loadExtension as (file: string, entryPoint: string) => Db)(path, ENTRY);
      ok = true;
    } catch {
      // A library of another platform or a broken build: the per-row reads answer the same, slower.
      ok = false;
    }
  }
  loaded.set(db, ok);
  return ok;
}

const rowsLoaded = new WeakMap<Db, boolean>();

/** Whether qs_rows is available on `db` (an extension built before it had only qs_pack). */
export function hasRows(db: Db): boolean {
  let ok = rowsLoaded.get(db);
  if (ok !== undefined) return ok;
  ok = false;
  if (hasPack(db)) {
    try {
      db.prepare("SELECT c0 FROM qs_rows(x'', 1)").all();
      ok = true;
    } catch {
      ok = false;
    }
  }
  rowsLoaded.set(db, ok);
  return ok;
}

/** The float64 pairs of one qs_pack result, without a copy where the buffer is aligned. */
export function pairsOf(b: Buffer | null): Float64Array {
  if (!b || !b.length) return new Float64Array(0);
  if (b.byteOffset % 8 === 0) return new Float64Array(b.buffer, b.byteOffset, b.length >>> 3);
  return new Float64Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.length));
}
