// Opens what the user dropped — folders, zips, tars (gzip'd or not), single files (gzip'd or not), any
// number at once — as one bundle. Kinds are told by content. Archives are extracted under the limits
// (small entries into memory, the rest into a temporary folder) and then served like a folder; an
// archive inside a folder or archive is expanded too, one level deep. Whatever cannot be opened becomes
// a failure and the rest goes on.
import { stat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { GzipFileEntry, PlainFileEntry } from './entries';
import { gunzip } from './decompress';
import { ExtractTarget, type ExtractContext } from './extract-target';
import { YIELD_EVERY, walkFolder, type FoundFile } from './folder';
import { ArchiveRefused, Budget, EntryCount, ExpansionGuard, resolveLimits } from './limits';
import { Scratch } from './scratch';
import { SNIFF_BYTES, gzipMtimeMs, isTarHeader, sniffContainer } from './sniff';
import { DiskFile, MemoryQuota } from './stored';
import { extractTar } from './tar';
import { extractZip } from './zip';
import { BundleError, type Bundle, type BundleEntry, type BundleFailure, type BundleLimits } from './types';

/** Archives found inside this many containers (the dropped folder or archive counts as one) stay entries. */
const MAX_NESTING = 2;
/** Small archive entries held in memory, over the whole bundle. */
const MEMORY_QUOTA_BYTES = 128 * 2 ** 20;

export async function openBundle(paths: string[], limits: Partial<BundleLimits> = {}): Promise<Bundle> {
  const stats = await Promise.all(paths.map((p) => stat(p).catch(() => null)));
  if (!stats.some((s) => s !== null)) throw new BundleError(paths.join(', ') || '(no path given)', 'no such file or folder');

  const opener = new Opener(resolveLimits(limits));
  const names = distinct(paths.map((p) => basename(resolve(p))));
  try {
    for (let i = 0; i < paths.length; i++) {
      const st = stats[i];
      const abs = resolve(paths[i]);
      // One path is the bundle itself; several each become a top folder named after them.
      const prefix = paths.length === 1 ? '' : names[i];
      if (!st) opener.fail(paths[i], new Error('no such file or folder'));
      else if (st.isDirectory()) await opener.folder(abs, prefix, names[i], 1);
      else if (st.isFile()) await opener.file({ path: names[i], mtimeMs: st.mtimeMs, stored: new DiskFile(abs, st.size) }, prefix, 0);
      else opener.fail(paths[i], new Error('not a regular file or folder'));
    }
  } catch (e) {
    await opener.scratch.remove();
    throw e;
  }
  return {
    name: paths.length === 1 ? names[0] : `${names[0]} + ${paths.length - 1} more`,
    entries: opener.entries(),
    failures: [...opener.failures].sort((a, b) => compare(a.path, b.path)),
    close: () => opener.scratch.remove(),
  };
}

interface Pending {
  path: string;
  /** The name to fall back on when `path` is taken (x.log.gz beside x.log). */
  alt: string;
  make(path: string): BundleEntry;
}

class Opener {
  readonly scratch: Scratch;
  readonly failures: BundleFailure[] = [];
  private readonly pending: Pending[] = [];
  private readonly ctx: ExtractContext;
  private sniffed = 0;

  constructor(private readonly limits: BundleLimits) {
    this.scratch = new Scratch(limits.diskReserveBytes);
    this.ctx = { limits, budget: new Budget(limits.maxTotalBytes), memory: new MemoryQuota(MEMORY_QUOTA_BYTES), scratch: this.scratch, entries: new EntryCount(limits.maxEntries) };
  }

  fail(path: string, e: unknown): void {
    const msg = e instanceof Error ? e.message : String(e);
    this.failures.push({ path, error: msg.includes(path) ? msg : `${path}: ${msg}` });
  }

  /** `depth`: how many containers enclose the folder's files. */
  async folder(abs: string, prefix: string, label: string, depth: number): Promise<void> {
    let listing;
    try {
      listing = await walkFolder(abs, prefix, label, this.limits);
    } catch (e) {
      return this.fail(label, e);
    }
    this.failures.push(...listing.failures);
    for (const f of listing.files) await this.file(f, f.path, depth);
  }

  /** `prefix`: where the entries go if the file turns out to be an archive. */
  async file(f: FoundFile, prefix: string, depth: number): Promise<void> {
    if (++this.sniffed % YIELD_EVERY === 0) await new Promise(setImmediate);
    let head: Buffer;
    try {
      head = f.stored.head(SNIFF_BYTES);
    } catch (e) {
      return this.fail(f.path, e);
    }
    const expand = depth < MAX_NESTING;
    const kind = sniffContainer(head);
    if (kind === 'zip' && expand) return this.archive(f, prefix, depth, async (t) => extractZip(await f.stored.onDisk(), t));
    if (kind === 'tar' && expand) return this.archive(f, prefix, depth, (t) => extractTar(f.stored.chunks(), t, false));
    if (kind !== 'gzip') return this.add(f.path, f.path, (path) => new PlainFileEntry(f, path));

    const mtimeMs = gzipMtimeMs(head) ?? f.mtimeMs;
    let inner: Buffer;
    try {
      inner = await new GzipFileEntry(f, f.path, mtimeMs, this.ctx).head(SNIFF_BYTES);
    } catch (e) {
      return this.fail(f.path, e);
    }
    if (isTarHeader(inner) && expand) {
      const { maxRatio, maxTotalBytes } = this.limits;
      const guard = new ExpansionGuard(f.path, { maxRatio, maxBytes: maxTotalBytes, bytesLimitName: 'maxTotalBytes' }, ArchiveRefused);
      return this.archive(f, prefix, depth, (t) => extractTar(gunzip(f.stored.chunks(), f.path, (n, c) => guard.add(n, c)), t, true));
    }
    const plainName = f.path.replace(/\.gz$/i, '') || f.path;
    this.add(plainName, f.path, (path) => new GzipFileEntry(f, path, mtimeMs, this.ctx));
  }

  /** Whatever was extracted before a failure stays in the bundle. */
  private async archive(f: FoundFile, prefix: string, depth: number, extract: (t: ExtractTarget) => Promise<void>): Promise<void> {
    const target = new ExtractTarget(f.path, prefix, this.ctx);
    try {
      await extract(target);
    } catch (e) {
      this.fail(f.path, e);
    }
    this.failures.push(...target.failures);
    for (const inner of target.files.values()) await this.file(inner, inner.path, depth + 1);
  }

  private add(path: string, alt: string, make: (path: string) => BundleEntry): void {
    this.pending.push({ path, alt, make });
  }

  /** Sorted by path; a name taken twice goes to the uncompressed file, the other keeps its stored name. */
  entries(): BundleEntry[] {
    const byClaim = [...this.pending].sort((a, b) => compare(a.path, b.path) || Number(a.path !== a.alt) - Number(b.path !== b.alt));
    const taken = new Set<string>();
    const out: BundleEntry[] = [];
    for (const p of byClaim) {
      let path = taken.has(p.path) ? p.alt : p.path;
      for (let n = 2; taken.has(path); n++) path = `${p.path} (${n})`;
      taken.add(path);
      out.push(p.make(path));
    }
    return out.sort((a, b) => compare(a.path, b.path));
  }
}

/** Code-unit order: the same on every machine and locale. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function distinct(names: string[]): string[] {
  const seen = new Set<string>();
  return names.map((name) => {
    let out = name;
    for (let n = 2; seen.has(out); n++) out = `${name} (${n})`;
    seen.add(out);
    return out;
  });
}
