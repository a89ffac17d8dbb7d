// gzip and raw-deflate as async iterables whose errors name the file and the compressed byte offset
// reached, so "truncated at byte 1 048 576" can be told apart from "corrupt at byte 12".
import { Readable, pipeline } from 'node:stream';
import { createGunzip, createInflateRaw, type Gunzip, type InflateRaw } from 'node:zlib';
import { BundleError } from './types';

/** Called with each output chunk's length and the compressed bytes consumed so far; may throw to stop. */
export type OnChunk = (outBytes: number, compressedIn: number) => void;

export function gunzip(src: AsyncIterable<Buffer>, label: string, onChunk?: OnChunk): AsyncGenerator<Buffer> {
  return decode(createGunzip(), 'gzip', src, label, 0, onChunk);
}

/** `base` is where the deflate data starts in the file (a zip entry's data offset). */
export function inflateRaw(src: AsyncIterable<Buffer>, label: string, base: number, onChunk?: OnChunk): AsyncGenerator<Buffer> {
  return decode(createInflateRaw(), 'deflate', src, label, base, onChunk);
}

async function* decode(
  z: Gunzip | InflateRaw,
  what: string,
  src: AsyncIterable<Buffer>,
  label: string,
  base: number,
  onChunk?: OnChunk,
): AsyncGenerator<Buffer> {
  const input = src instanceof Readable ? src : Readable.from(src, { objectMode: false });
  // Errors from either side reach us through z's iterator; the callback only keeps them from being unhandled.
  pipeline(input, z, () => {});
  try {
    for await (const chunk of z as AsyncIterable<Buffer>) {
      onChunk?.(chunk.length, z.bytesWritten);
      yield chunk;
    }
  } catch (e) {
    if (isZlibError(e)) throw new BundleError(label, describe(what, e), base + z.bytesWritten);
    throw e;
  } finally {
    input.destroy();
    z.destroy();
  }
}

function isZlibError(e: unknown): e is Error & { code: string } {
  const code: unknown = e instanceof Error ? (e as Error & { code?: unknown }).code : undefined;
  return typeof code === 'string' && code.startsWith('Z_');
}

function describe(what: string, e: Error & { code: string }): string {
  if (e.code === 'Z_BUF_ERROR') return `${what} data ends early — the file is truncated (${e.message})`;
  return `${what} data is corrupt: ${e.message}`;
}
