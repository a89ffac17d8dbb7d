// The files under a folder, recursively, without following a link out of it: symlinks are judged by
// where they really point (realpath), and special files (FIFOs would block a read forever) are left out.
import { lstatSync } from 'node:fs';
import { readdir, readlink, realpath } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { ArchiveRefused } from './limits';
import { DiskFile, type Stored } from './stored';
import type { BundleFailure, BundleLimits } from './types';

/** A file of the bundle, before it is sniffed: its path in the bundle and where its bytes are. */
export interface FoundFile {
  path: string;
  mtimeMs: number | null;
  stored: Stored;
}

/** Sync stat calls are ~10x cheaper than pooled ones; yielding this often keeps the process responsive. */
export const YIELD_EVERY = 256;

export interface FolderListing {
  files: FoundFile[];
  failures: BundleFailure[];
}

/**
 * `prefix` goes before every path ('' when the folder is the whole bundle); `label` names the folder in
 * messages. Throws ArchiveRefused when the folder holds more than maxEntries files.
 */
export async function walkFolder(root: string, prefix: string, label: string, limits: BundleLimits): Promise<FolderListing> {
  const rootReal = await realpath(root);
  const files: FoundFile[] = [];
  const failures: BundleFailure[] = [];
  const stack: { abs: string; rel: string; depth: number }[] = [{ abs: root, rel: '', depth: 0 }];
  const bundlePath = (rel: string) => (prefix ? `${prefix}/${rel}` : rel);
  const refuse = (rel: string, why: string) => failures.push({ path: bundlePath(rel), error: `${bundlePath(rel)}: ${why}` });
  /** device:inode of the hard-linked files listed so far. */
  const linked = new Set<string>();

  while (stack.length) {
    const dir = stack.pop()!;
    let dirents;
    try {
      dirents = await readdir(dir.abs, { withFileTypes: true });
    } catch (e) {
      refuse(dir.rel || '.', `cannot be listed: ${(e as Error).message}`);
      continue;
    }
    for (const d of dirents) {
      const abs = join(dir.abs, d.name);
      const rel = dir.rel ? `${dir.rel}/${d.name}` : d.name;
      if (d.isSymbolicLink()) {
        const why = await judgeSymlink(abs, rootReal);
        if (why) refuse(rel, why);
      } else if (d.isDirectory()) {
        if (dir.depth + 2 > limits.maxDepth) refuse(rel, `holds files more than ${limits.maxDepth} levels deep (maxDepth) — skipped`);
        else stack.push({ abs, rel, depth: dir.depth + 1 });
      } else if (d.isFile()) {
        if (files.length >= limits.maxEntries) {
          throw new ArchiveRefused(label, `has more than ${limits.maxEntries} files (maxEntries) — refused`);
        }
        const st = lstatSync(abs);
        // A file hard-linked under two names (a sosreport's copies, rotated logs) is one file: listed once,
        // as a tar's hard links are, or its rows would be imported twice.
        if (st.nlink > 1) {
          const key = `${st.dev}:${st.ino}`;
          if (linked.has(key)) continue;
          linked.add(key);
        }
        files.push({ path: bundlePath(rel), mtimeMs: st.mtimeMs, stored: new DiskFile(abs, st.size, true) });
        if (files.length % YIELD_EVERY === 0) await new Promise(setImmediate);
      } else {
        refuse(rel, 'not a regular file (a socket, FIFO or device) — skipped');
      }
    }
  }
  return { files, failures };
}

/**
 * Why a symlink is refused, or null when it points inside the folder: then its target is listed in its
 * own right, and following the link would import it twice.
 */
async function judgeSymlink(abs: string, rootReal: string): Promise<string | null> {
  let real: string;
  try {
    real = await realpath(abs);
  } catch {
    return `broken symlink (to "${await readlink(abs)}") — skipped`;
  }
  if (real === rootReal || real.startsWith(rootReal + sep)) return null;
  return `symlink to "${await readlink(abs)}", outside the bundle — refused`;
}
