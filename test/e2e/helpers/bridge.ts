// Starts the real bridge (`quadscope serve`) on a fresh workspace in a temp dir, serving the built renderer.
// The browser suite never skips for want of a build: a missing or stale renderer is built first (once,
// under a lock, as suites run two at a time); only a machine without Chromium skips, with the one line
// that installs it.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startServer } from '../../../node/bridge/server';
import { CHROMIUM } from './browser';

export const RENDERER_DIR = resolve('out/renderer');

export interface Bridge {
  url: string;
  dbFile: string;
  close(): Promise<void>;
}

/** Newest modification time under `dir` (0 where it does not exist). */
function newest(dir: string): number {
  let t = 0;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  for (const n of names) {
    const p = join(dir, n);
    const s = statSync(p);
    t = Math.max(t, s.isDirectory() ? newest(p) : s.mtimeMs);
  }
  return t;
}

/** What the renderer bundle is built from. */
const SOURCES = ['browser', 'common'];

function rendererStale(): boolean {
  const index = join(RENDERER_DIR, 'index.html');
  if (!existsSync(index)) return true;
  const built = statSync(index).mtimeMs;
  return SOURCES.some((d) => newest(resolve(d)) > built);
}

/** Builds the renderer (electron-vite build) when it is missing or older than its sources; the reason it failed, or null. */
function buildRenderer(): string | null {
  if (!rendererStale()) return null;
  const lock = resolve('out', '.e2e-build.lock');
  mkdirSync(resolve('out'), { recursive: true });
  const until = Date.now() + 180_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // Another suite is building: wait for it, then use its build.
      if (Date.now() > until) rmSync(lock, { recursive: true, force: true });
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 250);
      if (!rendererStale()) return null;
    }
  }
  try {
    if (!rendererStale()) return null;
    const r = spawnSync(process.execPath, [resolve('node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build'], { encoding: 'utf8' });
    return r.status === 0 ? null : `the renderer build failed (npm run build): ${(r.stderr || r.stdout).trim().split('\n').slice(-3).join(' | ')}`;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** Why the browser suite cannot run here, or null; builds the renderer first where it needs building. */
export function rendererMissing(): string | null {
  const failed = buildRenderer();
  if (failed) throw new Error(failed);
  if (!existsSync(CHROMIUM)) return `no Chromium at ${CHROMIUM}: install it with \`apt install chromium\` (or set QUADSCOPE_CHROMIUM to a Chromium binary)`;
  return null;
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
