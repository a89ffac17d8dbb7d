// Starts the real bridge (`quadscope serve`) on a fresh workspace in a temp dir, serving the built renderer.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startServer } from '../../../electron/bridge/server';

export const RENDERER_DIR = resolve('out/renderer');

export interface Bridge {
  url: string;
  dbFile: string;
  close(): Promise<void>;
}

/** Why the e2e suite cannot run here, or null. */
export function rendererMissing(): string | null {
  return existsSync(join(RENDERER_DIR, 'index.html')) ? null : `the renderer is not built (${RENDERER_DIR}/index.html is missing): run \`npm run build\` first`;
}

export async function startBridge(opts: { dbFile?: string } = {}): Promise<Bridge> {
  const dir = opts.dbFile ? null : mkdtempSync(join(tmpdir(), 'quadscope-e2e-'));
  const dbFile = opts.dbFile ?? join(dir!, 'workspace.db');
  const s = await startServer({ dbFile, port: 0, rendererDir: RENDERER_DIR });
  return {
    url: s.url,
    dbFile,
    close: async () => {
      await s.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
