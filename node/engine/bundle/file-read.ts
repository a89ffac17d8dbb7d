// Reading files in bounded pieces: the first bytes (for sniffing), a whole file as a stream, or a byte
// range of an open archive.
import { closeSync, constants, createReadStream, fstatSync, openSync, readSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { BundleError } from './types';

const CHUNK = 256 * 1024;

/**
 * A descriptor on a file that is still a regular file when it is opened, not only when it was listed:
 * O_NONBLOCK so a FIFO put in its place cannot block the open for ever, O_NOFOLLOW where the listing
 * judged the path itself (a folder walk) so a symlink put in its place is not followed out of the bundle.
 */
export function openRegularSync(path: string, noFollow: boolean): number {
  const flags = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (noFollow ? (constants.O_NOFOLLOW ?? 0) : 0);
  let fd: number;
  try {
    fd = openSync(path, flags);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ELOOP') throw new BundleError(path, 'became a symlink after the folder was listed — refused');
    throw e;
  }
  if (!fstatSync(fd).isFile()) {
    closeSync(fd);
    throw new BundleError(path, 'is no longer a regular file (a FIFO, device or folder took its place after the listing) — refused');
  }
  return fd;
}

/**
 * Synchronous on purpose: sniffing reads 512 bytes of every file, and through the thread pool each
 * open/read/close costs ~0.1 ms where the direct calls cost ~20 µs (callers yield between files).
 */
export function readHeadSync(path: string, n: number, noFollow = false): Buffer {
  const fd = openRegularSync(path, noFollow);
  try {
    const buf = Buffer.alloc(n);
    let got = 0;
    while (got < n) {
      const bytesRead = readSync(fd, buf, got, n - got, got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    return buf.subarray(0, got);
  } finally {
    closeSync(fd);
  }
}

export function fileStream(path: string, noFollow = false): Readable {
  return createReadStream(path, { fd: openRegularSync(path, noFollow), highWaterMark: CHUNK });
}

/** `length` bytes from `start`; a file that ends first is an error at the offset where it ended. */
export async function* readRange(fh: FileHandle, start: number, length: number, label: string): AsyncGenerator<Buffer> {
  let pos = start;
  const end = start + length;
  while (pos < end) {
    const buf = Buffer.allocUnsafe(Math.min(CHUNK, end - pos));
    const { bytesRead } = await fh.read(buf, 0, buf.length, pos);
    if (bytesRead === 0) throw new BundleError(label, 'the file ends inside this entry — truncated', pos);
    pos += bytesRead;
    yield bytesRead < buf.length ? buf.subarray(0, bytesRead) : buf;
  }
}

export async function readExact(fh: FileHandle, start: number, length: number, label: string): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of readRange(fh, start, length, label)) parts.push(part);
  return Buffer.concat(parts, length);
}
