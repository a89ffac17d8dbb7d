// A fresh store on a real SQLite file in a temp dir. The live tests use this rather than
// test/helpers/import-file.ts so they load only the store, not the import pipeline they never use.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from '../../../node/engine/store/store';

export function tempLiveStore(): { store: Store; dir: string; dispose(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'qs-live-'));
  const store = new Store(join(dir, 'workspace.db'));
  return { store, dir, dispose: () => { store.close(); rmSync(dir, { recursive: true, force: true }); } };
}
