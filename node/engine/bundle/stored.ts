// Where a file's bytes live: on disk (the user's own, or extracted), or in memory for an archive's
// small entries — each file-system call costs ~0.1–0.4 ms through the thread pool, so 50 000 tiny
// entries written out, sniffed and removed again took half a minute; held in memory they take a second.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileStream, readHeadSync } from './file-read';
import type { Scratch } from './scratch';

export interface Stored {
  readonly size: number;
  /** Up to `n` bytes from the start; throws where the file cannot be read. */
  head(n: number): Buffer;
  chunks(): AsyncIterable<Buffer>;
  /** A path holding exactly these bytes (memory is written out once, on first call). */
  onDisk(): Promise<string>;
}

export class DiskFile implements Stored {
  /** `noFollow`: the path was judged as a regular file, not a link, and must still be one when read. */
  constructor(
    private readonly abs: string,
    readonly size: number,
    private readonly noFollow = false,
  ) {}

  head(n: number): Buffer {
    return readHeadSync(this.abs, n, this.noFollow);
  }

  chunks(): AsyncIterable<Buffer> {
    return fileStream(this.abs, this.noFollow);
  }

  onDisk(): Promise<string> {
    return Promise.resolve(this.abs);
  }
}

export class MemoryFile implements Stored {
  private written: Promise<string> | null = null;

  /** `name` is the file name it gets when written out (importers may look at the extension). */
  constructor(
    private readonly data: Buffer,
    private readonly name: string,
    private readonly scratch: Scratch,
  ) {}

  get size(): number {
    return this.data.length;
  }

  head(n: number): Buffer {
    return this.data.subarray(0, n);
  }

  async *chunks(): AsyncIterable<Buffer> {
    if (this.data.length) yield this.data;
  }

  onDisk(): Promise<string> {
    this.written ??= this.scratch.dir(this.name).then(async (dir) => {
      const file = join(dir, this.name);
      await writeFile(file, this.data);
      return file;
    });
    return this.written;
  }
}

/** Bytes an open bundle may hold in memory, over all its small entries. */
export class MemoryQuota {
  private used = 0;
  constructor(private readonly max: number) {}

  take(n: number): boolean {
    if (this.used + n > this.max) return false;
    this.used += n;
    return true;
  }
}
