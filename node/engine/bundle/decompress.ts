// gzip and raw-deflate as async iterables whose errors name the file and the compressed byte offset
// reached, so "truncated at byte 1 048 576" can be told apart from "corrupt at byte 12".
//
// gzip is read member by member (header, raw deflate, CRC and length checked), as `gzip -d` reads it:
// several members are concatenated, zero padding after the last is fine, and other bytes after a
// complete member are trailing garbage that is ignored, as gzip ignores it (zlib's own gunzip fails the
// whole file there and drops the last output before the failure).
import { Readable, pipeline } from 'node:stream';
import { crc32, createInflateRaw, type InflateRaw } from 'node:zlib';
import { BundleError } from './types';

/** Called with each output chunk's length and the compressed bytes consumed so far; may throw to stop. */
export type OnChunk = (outBytes: number, compressedIn: number) => void;

export function gunzip(src: AsyncIterable<Buffer>, label: string, onChunk?: OnChunk): AsyncGenerator<Buffer> {
  return gunzipMembers(src, label, onChunk);
}

/** `base` is where the deflate data starts in the file (a zip entry's data offset). */
export function inflateRaw(src: AsyncIterable<Buffer>, label: string, base: number, onChunk?: OnChunk): AsyncGenerator<Buffer> {
  return decode(createInflateRaw(), 'deflate', src, label, base, onChunk);
}

async function* decode(z: InflateRaw, what: string, src: AsyncIterable<Buffer>, label: string, base: number, onChunk?: OnChunk): AsyncGenerator<Buffer> {
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

/** Reads a byte stream with look-ahead and push-back (what the member parser needs between members). */
class ByteSource {
  private readonly it: AsyncIterator<Buffer>;
  private held: Buffer = Buffer.alloc(0);
  private done = false;
  /** Bytes handed out so far (the compressed offset). */
  offset = 0;

  constructor(src: AsyncIterable<Buffer>) {
    this.it = src[Symbol.asyncIterator]();
  }

  /** Up to `n` bytes without consuming them (fewer only at the end). */
  async peek(n: number): Promise<Buffer> {
    while (this.held.length < n && !this.done) {
      const r = await this.it.next();
      if (r.done) this.done = true;
      else this.held = this.held.length ? Buffer.concat([this.held, r.value]) : r.value;
    }
    return this.held.subarray(0, n);
  }

  /** Exactly `n` bytes, or null at the end. */
  async take(n: number): Promise<Buffer | null> {
    const b = await this.peek(n);
    if (b.length < n) return null;
    this.held = this.held.subarray(n);
    this.offset += n;
    return b;
  }

  /** The next piece of any size, or null at the end. */
  async next(): Promise<Buffer | null> {
    if (this.held.length) {
      const b = this.held;
      this.held = Buffer.alloc(0);
      this.offset += b.length;
      return b;
    }
    if (this.done) return null;
    const r = await this.it.next();
    if (r.done) {
      this.done = true;
      return null;
    }
    this.offset += r.value.length;
    return r.value;
  }

  /** Gives back the last `n` bytes of what `next` handed out. */
  unread(b: Buffer): void {
    if (!b.length) return;
    this.held = this.held.length ? Buffer.concat([b, this.held]) : b;
    this.offset -= b.length;
  }

  async close(): Promise<void> {
    await this.it.return?.();
  }
}

const FHCRC = 2;
const FEXTRA = 4;
const FNAME = 8;
const FCOMMENT = 16;

async function* gunzipMembers(src: AsyncIterable<Buffer>, label: string, onChunk?: OnChunk): AsyncGenerator<Buffer> {
  const input = new ByteSource(src);
  const fail = (message: string, at: number): never => {
    throw new BundleError(label, message, at);
  };
  try {
    for (let members = 0; ; members++) {
      const start = input.offset;
      const head = await input.peek(10);
      if (members > 0) {
        if (head.length === 0) return;
        if (head[0] !== 0x1f || head[1] !== 0x8b) {
          // After a complete member: zero padding, or trailing garbage — both ignored, as gzip does.
          return;
        }
      }
      if (head.length < 10) fail(head.length === 0 ? 'gzip data is empty' : 'gzip data ends early — the file is truncated (in the header)', start + head.length);
      if (head[0] !== 0x1f || head[1] !== 0x8b) fail('gzip data is corrupt: incorrect header check', start);
      if (head[2] !== 8) fail(`gzip data is corrupt: unknown compression method ${head[2]}`, start + 2);
      const flags = head[3];
      await input.take(10);
      if (flags & FEXTRA) {
        const len = await input.take(2);
        if (!len || !(await input.take(len.readUInt16LE(0)))) fail('gzip data ends early — the file is truncated (in the header)', input.offset);
      }
      for (const flag of [FNAME, FCOMMENT]) {
        if (!(flags & flag)) continue;
        for (;;) {
          const b = await input.take(1);
          if (!b) fail('gzip data ends early — the file is truncated (in the header)', input.offset);
          if (b![0] === 0) break;
        }
      }
      if (flags & FHCRC && !(await input.take(2))) fail('gzip data ends early — the file is truncated (in the header)', input.offset);

      // The deflate data: an inflater ends at the stream's end and consumes no byte past it.
      const dataStart = input.offset;
      const z = createInflateRaw();
      let ended = false;
      let closed = false;
      z.once('end', () => (ended = true));
      // Once the inflater is closed (done, failed, or dropped by a reader that stopped early), the pump stops.
      const whenClosed = new Promise<void>((resolve) => z.once('close', () => ((closed = true), resolve())));
      let fed = 0;
      let pumpError: unknown = null;
      const pump = (async () => {
        try {
          for (;;) {
            if (ended || closed) break;
            const chunk = await input.next();
            if (closed) break;
            if (!chunk) {
              z.end();
              break;
            }
            fed += chunk.length;
            await Promise.race([new Promise<void>((resolve, reject) => z.write(chunk, (e) => (e ? reject(e) : resolve()))), whenClosed]);
            if (closed && !ended) break;
            if (ended || z.bytesWritten < fed) {
              // The member ended inside this chunk: the rest goes back for the next member or the end.
              input.unread(chunk.subarray(chunk.length - (fed - z.bytesWritten)));
              fed = z.bytesWritten;
              ended = true;
              z.end();
              break;
            }
          }
        } catch (e) {
          pumpError = e;
          z.destroy(e as Error);
        }
      })();
      let crc = 0;
      let size = 0;
      try {
        for await (const chunk of z as AsyncIterable<Buffer>) {
          crc = crc32(chunk, crc);
          size += chunk.length;
          onChunk?.(chunk.length, dataStart + z.bytesWritten);
          yield chunk;
        }
      } catch (e) {
        if (isZlibError(e)) fail(describe('gzip', e), dataStart + z.bytesWritten);
        throw e;
      } finally {
        z.destroy();
        await pump;
      }
      if (pumpError && !isZlibError(pumpError)) throw pumpError;
      const trailer = await input.take(8);
      if (!trailer) fail('gzip data ends early — the file is truncated (no CRC and length at the end)', input.offset);
      if (trailer!.readUInt32LE(0) !== crc >>> 0) fail('gzip data is corrupt: the CRC does not match the data', input.offset - 8);
      if (trailer!.readUInt32LE(4) !== size % 2 ** 32) fail('gzip data is corrupt: the length at the end does not match the data', input.offset - 4);
    }
  } finally {
    await input.close();
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
