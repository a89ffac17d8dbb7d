// The rules that keep a hostile bundle bounded: which archive entry names are safe to write, and the
// counters that stop decompression the moment a size or ratio limit is crossed (zip bombs), instead of
// after the disk is full.
import { statfsSync } from 'node:fs';
import { posix } from 'node:path';
import { BundleError, DEFAULT_LIMITS, type BundleLimits } from './types';
import { formatBytes } from '../../../common/format';

/** Under this many output bytes the ratio is not judged: tiny, very repetitive files are normal. */
export const RATIO_FLOOR_BYTES = 1 << 20;

/** Refuses one entry; the rest of the archive goes on. */
export class EntryRefused extends BundleError {}

/** Stops a whole archive (or every archive, for the bundle-wide byte limit); entries already out stay. */
export class ArchiveRefused extends BundleError {}

/** The defaults with the caller's overrides; a field given as undefined keeps its default, not "no limit". */
export function resolveLimits(overrides: Partial<BundleLimits>): BundleLimits {
  const limits = { ...DEFAULT_LIMITS };
  for (const key of Object.keys(limits) as (keyof BundleLimits)[]) {
    const v = overrides[key];
    if (v === undefined) continue;
    if (typeof v !== 'number' || !(v > 0)) throw new RangeError(`bundle limit ${key} must be a positive number, got ${String(v)}`);
    limits[key] = v;
  }
  return limits;
}

/**
 * The '/'-separated relative path an archive entry may be written to, or why not. Backslashes count as
 * separators (zips made on Windows), so `..\..\x` is caught like `../../x`.
 */
export function safeEntryPath(raw: string, maxDepth: number): { path: string } | { refused: string } {
  if (raw.includes('\0')) return { refused: 'name contains a NUL byte' };
  const slashed = raw.replace(/\\/g, '/');
  if (slashed.startsWith('/') || /^[A-Za-z]:/.test(slashed)) return { refused: 'absolute path — refused' };
  const parts = slashed.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.includes('..')) return { refused: 'path leaves the bundle (..) — refused' };
  if (parts.length === 0) return { refused: 'empty name' };
  if (parts.length > maxDepth) return { refused: `more than ${maxDepth} levels deep (maxDepth) — refused` };
  return { path: parts.join('/') };
}

/** Whether a link stored at `entryPath` with `target` stays inside the archive (judged on the names alone). */
export function linkStaysInside(entryPath: string, target: string): boolean {
  const slashed = target.replace(/\\/g, '/');
  if (slashed === '' || slashed.startsWith('/') || /^[A-Za-z]:/.test(slashed)) return false;
  const resolved = posix.normalize(posix.join(posix.dirname(entryPath), slashed));
  return resolved !== '..' && !resolved.startsWith('../');
}

/**
 * Entries written out of archives over the whole bundle, nested archives included (per archive, ten
 * nested tar.gz of 50 k entries each made 500 k): past `max`, extraction stops, the first kept.
 */
export class EntryCount {
  private n = 0;
  constructor(private readonly max: number) {}

  take(label: string): void {
    if (++this.n > this.max) {
      throw new ArchiveRefused(label, `the bundle holds more than ${this.max} entries over all its archives (maxEntries) — stopped there, the first ${this.max} were kept`);
    }
  }
}

/**
 * What extraction may take of the temp disk: it stops while at least `reserve` bytes stay free (the only
 * other bound, maxTotalBytes, is 64 GiB: a 4 MB tar.gz filled a 200 MB temp disk). The disk is asked
 * every CHECK_EVERY bytes written; `freeBytes` is injectable for tests.
 */
export class DiskGuard {
  static readonly CHECK_EVERY = 8 * 2 ** 20;
  private sinceCheck = Infinity;

  constructor(
    private readonly dir: () => string | null,
    private readonly freeBytes: (dir: string) => { free: number; total: number } | null = statDisk,
    private readonly reserveFor: (total: number) => number = diskReserve,
  ) {}

  /** Before writing `n` bytes for `label`: throws ArchiveRefused when the disk is nearly full. */
  take(n: number, label: string): void {
    this.sinceCheck += n;
    if (this.sinceCheck < DiskGuard.CHECK_EVERY) return;
    this.sinceCheck = 0;
    const dir = this.dir();
    const st = dir ? this.freeBytes(dir) : null;
    if (!st) return;
    const reserve = this.reserveFor(st.total);
    if (st.free - n < reserve) {
      throw new ArchiveRefused(
        label,
        `the temp disk (${dir}) is nearly full: ${formatBytes(st.free)} free, and extraction keeps ${formatBytes(reserve)} free — stopped there, the entries so far were kept; free space or point TMPDIR at a larger disk`,
      );
    }
  }
}

/** Free space kept on the temp disk: 5 % of it, at least 64 MiB (a quarter of a disk smaller than 256 MiB), at most 1 GiB. */
export function diskReserve(total: number): number {
  return Math.min(2 ** 30, Math.max(Math.min(64 * 2 ** 20, total / 4), total * 0.05));
}

function statDisk(dir: string): { free: number; total: number } | null {
  try {
    const st = statfsSync(dir);
    return { free: Number(st.bavail) * Number(st.bsize), total: Number(st.blocks) * Number(st.bsize) };
  } catch {
    return null;
  }
}

/** Decompressed bytes over the whole bundle, shared by every archive and gzip'd file. */
export class Budget {
  private used = 0;
  constructor(private readonly max: number) {}

  take(n: number, label: string): void {
    this.used += n;
    if (this.used > this.max) {
      throw new ArchiveRefused(label, `the bundle unpacks to more than ${formatBytes(this.max)} (maxTotalBytes) — refused`);
    }
  }
}

/**
 * Watches one decompression (an entry, or a whole compressed tar): call `add` with each output chunk and
 * the compressed bytes consumed so far; it throws as soon as the output passes `maxBytes` or `maxRatio`.
 */
export class ExpansionGuard {
  out = 0;
  constructor(
    private readonly label: string,
    private readonly limits: Pick<BundleLimits, 'maxRatio'> & { maxBytes: number; bytesLimitName: string },
    private readonly refuse: typeof EntryRefused | typeof ArchiveRefused,
  ) {}

  add(n: number, compressedIn: number): void {
    this.out += n;
    const { maxBytes, maxRatio, bytesLimitName } = this.limits;
    // The offset is the compressed byte reached: where the expansion was judged.
    if (this.out > maxBytes) {
      throw new this.refuse(this.label, `expands to more than ${formatBytes(maxBytes)} (${bytesLimitName}) — refused`, compressedIn);
    }
    if (this.out > RATIO_FLOOR_BYTES && this.out > maxRatio * Math.max(compressedIn, 1)) {
      throw new this.refuse(
        this.label,
        `expands more than ${maxRatio}:1 — refused as a possible zip bomb (${formatBytes(this.out)} out of ${formatBytes(compressedIn)} so far)`,
        compressedIn,
      );
    }
  }
}
