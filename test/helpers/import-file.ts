// Imports single files into a fresh store on a real SQLite file, without the bundle opener, so an
// importer's tests depend only on the importer.
import { createReadStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { createGunzip, gunzipSync } from 'node:zlib';
import { importBundle } from '../../node/engine/import/pipeline';
import type { Bundle, BundleEntry } from '../../node/engine/bundle/types';
import type { Importer } from '../../node/engine/importers/types';
import type { ImportOptions, ImportResult } from '../../common/contract/types';
import { Store } from '../../node/engine/store/store';

export interface TempStore {
  store: Store;
  dir: string;
  dispose(): void;
}

export function tempStore(): TempStore {
  const dir = mkdtempSync(join(tmpdir(), 'qs-test-'));
  const store = new Store(join(dir, 'workspace.db'));
  // The checkpoint thread closes its own connection after store.close() returns (it finishes the checkpoint
  // in flight first), and SQLite removes the -wal/-shm files as that last connection closes: a removal that
  // races it finds the folder not empty (seen once in CI, ENOTEMPTY). rmSync retries those.
  return { store, dir, dispose: () => { store.close(); rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 }); } };
}

const isGzip = (b: Buffer) => b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b;

/** One file as a bundle entry; a gzip'd file asked for on disk is gunzipped into a folder `spills` gets, for the caller to remove. */
export function fileEntry(file: string, path = basename(file).replace(/\.gz$/, ''), spills: string[] = []): BundleEntry {
  const st = statSync(file);
  const gz = isGzip(readFileSync(file).subarray(0, 2));
  let spilled: string | null = null;
  return {
    path,
    size: gz ? null : st.size,
    storedBytes: st.size,
    mtimeMs: st.mtimeMs,
    head: async (n) => {
      const raw = readFileSync(file);
      const body = gz ? gunzipSync(raw) : raw;
      return body.subarray(0, n);
    },
    stream: () => (gz ? createReadStream(file).pipe(createGunzip()) : createReadStream(file)) as AsyncIterable<Buffer>,
    file: async () => {
      if (!gz) return file;
      if (!spilled) {
        const d = mkdtempSync(join(tmpdir(), 'qs-spill-'));
        spills.push(d);
        spilled = join(d, path.replace(/[\\/]/g, '_'));
        const { writeFileSync } = await import('node:fs');
        writeFileSync(spilled, gunzipSync(readFileSync(file)));
      }
      return spilled;
    },
  };
}

/** Imports files (each one entry) into `store`; answers the pipeline's result. */
export async function importFiles(store: Store, files: string[], opts: { importers?: readonly Importer[]; options?: ImportOptions } = {}): Promise<ImportResult> {
  const spills: string[] = [];
  const close = async () => {
    for (const d of spills) rmSync(d, { recursive: true, force: true });
  };
  const bundle: Bundle = { name: basename(files[0] ?? 'test'), entries: files.map((f) => fileEntry(f, undefined, spills)), failures: [], close };
  try {
    return await importBundle(store, bundle, { importers: opts.importers, options: opts.options });
  } finally {
    await bundle.close();
  }
}
