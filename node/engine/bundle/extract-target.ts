// Where an archive's entries land: memory for small ones, a fresh temporary folder for the rest, written
// only through checked relative paths and never through links (links are judged and refused or left
// out, never created), with the per-entry, per-archive and bundle-wide limits applied as bytes arrive.
// Folders are not made for their own sake: they come into being with the files in them.
import { mkdir, open, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { EntryRefused, ArchiveRefused, linkStaysInside, safeEntryPath, type Budget, type EntryCount } from './limits';
import { formatBytes } from '../../../common/format';
import type { FoundFile } from './folder';
import type { Scratch } from './scratch';
import { DiskFile, MemoryFile, type MemoryQuota } from './stored';
import type { BundleFailure, BundleLimits } from './types';

/** Entries up to this size are kept in memory, while the bundle's memory quota lasts. */
const SMALL_ENTRY_BYTES = 64 * 1024;

export interface ExtractContext {
  limits: BundleLimits;
  budget: Budget;
  memory: MemoryQuota;
  scratch: Scratch;
  /** Entries over the whole bundle (nested archives included). */
  entries: EntryCount;
}

export class ExtractTarget {
  /** What was written, by path inside the archive (a repeated name is kept as "name (2)"). */
  readonly files = new Map<string, FoundFile>();
  readonly failures: BundleFailure[] = [];
  readonly limits: BundleLimits;
  private entries = 0;
  private root: Promise<string> | null = null;
  private readonly madeDirs = new Set<string>();
  /** Disk names by their case- and normalization-folded form, as macOS and Windows compare them. */
  private readonly diskNames = new Map<string, string>();
  private renamed = 0;
  /** Entry paths taken (written or being written). */
  private readonly claimed = new Set<string>();

  /**
   * `label` names the archive in messages (its path in the bundle); `prefix` goes before every entry
   * path ('' when the archive is the whole bundle).
   */
  constructor(
    readonly label: string,
    private readonly prefix: string,
    private readonly ctx: ExtractContext,
  ) {
    this.limits = ctx.limits;
  }

  /** How an entry is named in failures: the archive, then the name as stored. */
  name(raw: string): string {
    return `${this.label}:${raw}`;
  }

  /** For archives that cannot be counted up front (tar): what came before the limit stays. */
  countEntry(): void {
    if (++this.entries > this.limits.maxEntries) {
      const max = this.limits.maxEntries;
      throw new ArchiveRefused(this.label, `has more than ${max} entries (maxEntries) — stopped there, the first ${max} were kept`);
    }
  }

  refuse(raw: string, why: string): void {
    this.failures.push({ path: this.name(raw), error: `${this.name(raw)}: ${why}` });
  }

  fail(raw: string, e: unknown): void {
    const error = e instanceof Error ? e.message : String(e);
    this.failures.push({ path: this.name(raw), error: error.includes(this.name(raw)) ? error : `${this.name(raw)}: ${error}` });
  }

  /** The checked relative path for a stored name, or null once the refusal is recorded. */
  checkPath(raw: string): string | null {
    const r = safeEntryPath(raw, this.limits.maxDepth);
    if ('refused' in r) {
      this.refuse(raw, r.refused);
      return null;
    }
    return r.path;
  }

  /**
   * A symlink's target is relative to the link's folder, a tar hardlink's to the archive root. One that
   * stays inside is left out: its target is in the archive and imports on its own.
   */
  link(raw: string, rel: string, target: string, kind: 'symlink' | 'hardlink'): void {
    const inside = kind === 'symlink' ? linkStaysInside(rel, target) : 'path' in safeEntryPath(target, Infinity);
    if (!inside) this.refuse(raw, `${kind} to "${target}", outside the bundle — refused`);
  }

  /**
   * Writes one entry; throws EntryRefused for this entry, or whatever the data source throws. A second
   * entry of a name already written (tar appends, zips with duplicate central records) is kept beside the
   * first as "name (2).ext", not over it.
   */
  async file(raw: string, stored: string, mtimeMs: number | null, data: AsyncIterable<Buffer>): Promise<void> {
    this.ctx.entries.take(this.label);
    const rel = this.freeName(stored);
    this.claimed.add(rel);
    const path = this.prefix ? `${this.prefix}/${rel}` : rel;
    const held: Buffer[] = [];
    let size = 0;
    let fh: FileHandle | null = null;
    let abs = '';
    const openFile = () =>
      this.fsStep(raw, async () => {
        abs = join(await this.rootDir(), this.diskPath(rel));
        await this.mkdirs(dirname(abs));
        return open(abs, 'w');
      });
    try {
      for await (const chunk of data) {
        size += chunk.length;
        if (size > this.limits.maxEntryBytes) {
          throw new EntryRefused(this.name(raw), `larger than ${formatBytes(this.limits.maxEntryBytes)} (maxEntryBytes) — refused`);
        }
        this.ctx.budget.take(chunk.length, this.label);
        if (!fh && size <= SMALL_ENTRY_BYTES) {
          held.push(chunk);
          continue;
        }
        if (!fh) {
          fh = await openFile();
          for (const h of held.splice(0)) await this.write(raw, fh, h);
        }
        await this.write(raw, fh, chunk);
      }
      if (!fh) {
        // A copy: the chunks are views into the reader's larger buffers, which must not stay alive.
        const bytes = Buffer.concat(held, size);
        if (this.ctx.memory.take(size)) {
          this.files.set(rel, { path, mtimeMs, stored: new MemoryFile(bytes, basename(rel), this.ctx.scratch) });
          return;
        }
        fh = await openFile();
        await this.write(raw, fh, bytes);
      }
      await fh.close();
    } catch (e) {
      if (fh) {
        await fh.close().catch(() => {});
        await rm(abs, { force: true });
      }
      throw e;
    }
    this.files.set(rel, { path, mtimeMs, stored: new DiskFile(abs, size) });
  }

  /**
   * Where an entry goes under the scratch root: its own path, unless another entry differing only in
   * case or Unicode normalization (`A.log`, `a.log`) is already there, where a case-insensitive disk
   * would make the second overwrite the first; then a folder of its own.
   */
  private diskPath(rel: string): string {
    const folded = rel.normalize('NFC').toLowerCase();
    const taken = this.diskNames.get(folded);
    if (taken === undefined || taken === rel) {
      this.diskNames.set(folded, rel);
      return rel;
    }
    return `.same-name-${++this.renamed}/${rel}`;
  }

  private rootDir(): Promise<string> {
    this.root ??= this.ctx.scratch.dir(basename(this.label));
    return this.root;
  }

  private async mkdirs(dir: string): Promise<void> {
    if (this.madeDirs.has(dir)) return;
    await mkdir(dir, { recursive: true });
    this.madeDirs.add(dir);
  }

  private write(raw: string, fh: FileHandle, chunk: Buffer): Promise<unknown> {
    this.ctx.scratch.disk.take(chunk.length, this.label);
    return this.fsStep(raw, () => fh.write(chunk));
  }

  /** `rel`, or "dir/name (n).ext" when an entry of that name was already written. */
  private freeName(rel: string): string {
    if (!this.claimed.has(rel)) return rel;
    const slash = rel.lastIndexOf('/');
    const dir = rel.slice(0, slash + 1);
    const base = rel.slice(slash + 1);
    const dot = base.indexOf('.', 1);
    for (let n = 2; ; n++) {
      const name = `${dir}${dot > 0 ? `${base.slice(0, dot)} (${n})${base.slice(dot)}` : `${base} (${n})`}`;
      if (!this.claimed.has(name)) return name;
    }
  }

  private async fsStep<T>(raw: string, step: () => Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (e) {
      throw new EntryRefused(this.name(raw), `cannot be written: ${(e as Error).message}`);
    }
  }
}
