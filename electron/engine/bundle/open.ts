// Opens what the user dropped — folders, zips, tars (gzip'd or not), single files (gzip'd or not), any
// number at once — as one bundle. Kinds are told by content. Archives are extracted into a temporary
// folder under the limits and then served like a folder; an archive inside a folder or archive is
// expanded too, one level deep. Whatever cannot be opened becomes a failure and the rest goes on.
import { stat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { GzipFileEntry, PlainFileEntry } from './entries';
import { ExtractTarget } from './extract-target';
import { fileStream, readHead } from './file-read';
import { walkFolder, type FoundFile } from './folder';
import { gunzip } from './decompress';
import { ArchiveRefused, Budget, ExpansionGuard } from './limits';
import { Scratch } from './scratch';
import { SNIFF_BYTES, gzipMtimeMs, isTarHeader, sniffContainer } from './sniff';
import { extractTar } from './tar';
import { extractZip } from './zip';
import { BundleError, DEFAULT_LIMITS, type Bundle, type BundleEntry, type BundleFailure, type BundleLimits } from './types';

/** Archives found inside this many containers (the dropped folder or archive counts as one) stay entries. */
const MAX_NESTING = 2;

export async function openBundle(paths: string[], limits: Partial<BundleLimits> = {}): Promise<Bundle> {
  const stats = await Promise.all(paths.map((p) => stat(p).catch(() => null)));
  if (!stats.some((s) => s !== null)) throw new BundleError(paths.join(', ') || '(no path given)', 'no such file or folder');

  const opener = new Opener({ ...DEFAULT_LIMITS, ...limits });
  const names = distinct(paths.map((p) => basename(resolve(p))));
  try {
    for (let i = 0; i < paths.length; i++) {
      const st = stats[i];
      const abs = resolve(paths[i]);
      // One path is the bundle itself; several each become a top folder named after them.
      const prefix = paths.length === 1 ? '' : names[i];
      if (!st) opener.fail(paths[i], new Error('no such file or folder'));
      else if (st.isDirectory()) await opener.folder(abs, prefix, names[i], 1);
      else if (st.isFile()) await opener.file({ abs, path: names[i], size: st.size, mtimeMs: st.mtimeMs }, prefix, 0);
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
  readonly scratch = new Scratch();
  readonly failures: BundleFailure[] = [];
  private readonly pending: Pending[] = [];
  private readonly budget: Budget;

  constructor(private readonly limits: BundleLimits) {
    this.budget = new Budget(limits.maxTotalBytes);
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
    let head: Buffer;
    try {
      head = await readHead(f.abs, SNIFF_BYTES);
    } catch (e) {
      return this.fail(f.path, e);
    }
    const expand = depth < MAX_NESTING;
    const kind = sniffContainer(head);
    if (kind === 'zip' && expand) return this.archive(f, prefix, depth, (t) => extractZip(f.abs, t));
    if (kind === 'tar' && expand) return this.archive(f, prefix, depth, (t) => extractTar(fileStream(f.abs), t, false));
    if (kind !== 'gzip') return this.add(f.path, f.path, (path) => new PlainFileEntry(f, path));

    const ctx = { limits: this.limits, budget: this.budget, scratch: this.scratch };
    const mtimeMs = gzipMtimeMs(head) ?? f.mtimeMs;
    let inner: Buffer;
    try {
      inner = await new GzipFileEntry(f, f.path, mtimeMs, ctx).head(SNIFF_BYTES);
    } catch (e) {
      return this.fail(f.path, e);
    }
    if (isTarHeader(inner) && expand) {
      const { maxRatio, maxTotalBytes } = this.limits;
      const guard = new ExpansionGuard(f.path, { maxRatio, maxBytes: maxTotalBytes, bytesLimitName: 'maxTotalBytes' }, ArchiveRefused);
      return this.archive(f, prefix, depth, (t) => extractTar(gunzip(fileStream(f.abs), f.path, (n, c) => guard.add(n, c)), t, true));
    }
    const plainName = f.path.replace(/\.gz$/i, '') || f.path;
    this.add(plainName, f.path, (path) => new GzipFileEntry(f, path, mtimeMs, ctx));
  }

  /** Whatever was extracted before a failure stays in the bundle. */
  private async archive(f: FoundFile, prefix: string, depth: number, extract: (t: ExtractTarget) => Promise<void>): Promise<void> {
    const target = new ExtractTarget(await this.scratch.dir(basename(f.path)), f.path, prefix, this.limits, this.budget);
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
