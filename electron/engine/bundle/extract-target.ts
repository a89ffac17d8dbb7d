// Where an archive's entries land: a fresh temporary folder, written only through checked relative
// paths and never through links (links are judged and refused or left out, never created), with the
// per-entry, per-archive and bundle-wide limits applied while the bytes are written.
import { mkdir, open, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { EntryRefused, ArchiveRefused, formatBytes, linkStaysInside, safeEntryPath, type Budget } from './limits';
import type { FoundFile } from './folder';
import type { BundleFailure, BundleLimits } from './types';

export class ExtractTarget {
  /** What was written, by path inside the archive; a later entry of the same name replaces an earlier one. */
  readonly files = new Map<string, FoundFile>();
  readonly failures: BundleFailure[] = [];
  private entries = 0;

  /**
   * `label` names the archive in messages (its path in the bundle); `prefix` goes before every entry
   * path ('' when the archive is the whole bundle).
   */
  constructor(
    private readonly root: string,
    readonly label: string,
    private readonly prefix: string,
    readonly limits: BundleLimits,
    private readonly budget: Budget,
  ) {}

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

  async dir(raw: string, rel: string): Promise<void> {
    try {
      await mkdir(join(this.root, rel), { recursive: true });
    } catch (e) {
      this.fail(raw, e);
    }
  }

  /** Writes one entry; throws EntryRefused for this entry, or whatever the data source throws. */
  async file(raw: string, rel: string, mtimeMs: number | null, data: AsyncIterable<Buffer>): Promise<void> {
    const abs = join(this.root, rel);
    const fh = await this.fsStep(raw, async () => {
      await mkdir(dirname(abs), { recursive: true });
      return open(abs, 'w');
    });
    let size = 0;
    try {
      for await (const chunk of data) {
        size += chunk.length;
        if (size > this.limits.maxEntryBytes) {
          throw new EntryRefused(this.name(raw), `larger than ${formatBytes(this.limits.maxEntryBytes)} (maxEntryBytes) — refused`);
        }
        this.budget.take(chunk.length, this.label);
        await this.fsStep(raw, () => fh.write(chunk));
      }
      await fh.close();
    } catch (e) {
      await fh.close().catch(() => {});
      await rm(abs, { force: true });
      throw e;
    }
    this.files.set(rel, { abs, path: this.prefix ? `${this.prefix}/${rel}` : rel, size, mtimeMs });
  }

  private async fsStep<T>(raw: string, step: () => Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (e) {
      throw new EntryRefused(this.name(raw), `cannot be written: ${(e as Error).message}`);
    }
  }
}
