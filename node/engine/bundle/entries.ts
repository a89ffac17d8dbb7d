// The two kinds of bundle entry: a plain file served as is, and a gzip'd file decompressed on every
// read (with the size and ratio limits applied as it goes) and spilled to a temporary file once when an
// importer needs a path.
import { createWriteStream } from 'node:fs';
import { basename, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { gunzip } from './decompress';
import type { FoundFile } from './folder';
import { EntryRefused, ExpansionGuard, type Budget } from './limits';
import type { Scratch } from './scratch';
import type { Stored } from './stored';
import { BundleError, type BundleEntry, type BundleLimits } from './types';

export class PlainFileEntry implements BundleEntry {
  readonly path: string;
  readonly size: number;
  readonly storedBytes: number;
  readonly mtimeMs: number | null;
  private readonly stored: Stored;

  constructor(f: FoundFile, path: string) {
    this.path = path;
    this.stored = f.stored;
    this.size = f.stored.size;
    this.storedBytes = f.stored.size;
    this.mtimeMs = f.mtimeMs;
  }

  async head(n: number): Promise<Buffer> {
    try {
      return this.stored.head(n);
    } catch (e) {
      throw new BundleError(this.path, `cannot be read: ${(e as Error).message}`);
    }
  }

  async *stream(): AsyncIterable<Buffer> {
    let offset = 0;
    try {
      for await (const chunk of this.stored.chunks()) {
        offset += chunk.length;
        yield chunk;
      }
    } catch (e) {
      throw new BundleError(this.path, `cannot be read: ${(e as Error).message}`, offset);
    }
  }

  file(): Promise<string> {
    return this.stored.onDisk();
  }
}

export interface GzipContext {
  limits: BundleLimits;
  budget: Budget;
  scratch: Scratch;
}

export class GzipFileEntry implements BundleEntry {
  readonly path: string;
  readonly size = null;
  readonly storedBytes: number;
  readonly mtimeMs: number | null;
  private readonly stored: Stored;
  /** The stored name (with ".gz"): errors are about the compressed file. */
  private readonly label: string;
  /** The most bytes any read has decompressed: what this entry has cost the bundle budget so far. */
  private charged = 0;
  private spilled: Promise<string> | null = null;

  constructor(f: FoundFile, path: string, mtimeMs: number | null, private readonly ctx: GzipContext) {
    this.path = path;
    this.stored = f.stored;
    this.label = f.path;
    this.storedBytes = f.stored.size;
    this.mtimeMs = mtimeMs;
  }

  async head(n: number): Promise<Buffer> {
    const parts: Buffer[] = [];
    let got = 0;
    if (n > 0) {
      for await (const chunk of this.stream()) {
        parts.push(chunk);
        got += chunk.length;
        if (got >= n) break;
      }
    }
    return Buffer.concat(parts, got).subarray(0, n);
  }

  stream(): AsyncIterable<Buffer> {
    const { limits, budget } = this.ctx;
    const guard = new ExpansionGuard(this.label, { maxRatio: limits.maxRatio, maxBytes: limits.maxEntryBytes, bytesLimitName: 'maxEntryBytes' }, EntryRefused);
    return gunzip(this.stored.chunks(), this.label, (n, compressedIn) => {
      guard.add(n, compressedIn);
      if (guard.out > this.charged) {
        budget.take(guard.out - this.charged, this.label);
        this.charged = guard.out;
      }
    });
  }

  file(): Promise<string> {
    this.spilled ??= this.spill();
    return this.spilled;
  }

  private async spill(): Promise<string> {
    const name = basename(this.path);
    const file = join(await this.ctx.scratch.dir(name), name);
    const disk = this.ctx.scratch.disk;
    const label = this.label;
    const src = this.stream();
    async function* guarded(): AsyncGenerator<Buffer> {
      for await (const chunk of src) {
        disk.take(chunk.length, label);
        yield chunk;
      }
    }
    await pipeline(Readable.from(guarded()), createWriteStream(file));
    return file;
  }
}
