// Archives and folders made inside the bundle tests: tars through tar-stream's packer (pax long names
// included), GNU long-name and hand-made tar headers, deflate streams of zeros of any length without
// holding them, and temporary folders removed after each test.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { constants, crc32, deflateRawSync } from 'node:zlib';
import tar from 'tar-stream';
import type { BundleEntry } from '../../../node/engine/bundle/types';

export function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'qs-bundle-test-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export interface TarSpec {
  name: string;
  data?: Buffer | string;
  type?: 'file' | 'directory' | 'symlink' | 'link';
  linkname?: string;
  mtime?: Date;
}

export async function makeTar(specs: TarSpec[]): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  pack.on('data', (c: unknown) => {
    chunks.push(c as Buffer);
  });
  const done = new Promise((resolve, reject) => {
    pack.on('end', () => resolve(undefined));
    pack.on('error', reject);
  });
  for (const s of specs) {
    const data = typeof s.data === 'string' ? Buffer.from(s.data) : (s.data ?? Buffer.alloc(0));
    await new Promise<void>((resolve, reject) =>
      pack.entry({ name: s.name, type: s.type ?? 'file', linkname: s.linkname, mtime: s.mtime ?? new Date('2024-03-01T12:00:00Z') }, data, (err) =>
        err ? reject(err) : resolve(),
      ),
    );
  }
  pack.finalize();
  await done;
  return Buffer.concat(chunks);
}

/** One GNU-format tar header block (magic "ustar  "), for what tar-stream's packer does not write. */
export function gnuHeader(name: string, size: number, type: string): Buffer {
  const h = Buffer.alloc(512);
  h.write(name.slice(0, 99), 0, 'utf8');
  h.write('0000644\0', 100);
  h.write('0000000\0', 108);
  h.write('0000000\0', 116);
  h.write(size.toString(8).padStart(11, '0') + '\0', 124);
  h.write((Date.UTC(2023, 6, 4) / 1000).toString(8).padStart(11, '0') + '\0', 136);
  h.write(type, 156);
  h.write('ustar  \0', 257, 'latin1');
  h.write('        ', 148);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(sum.toString(8).padStart(6, '0') + '\0 ', 148);
  return h;
}

export function padded(data: Buffer): Buffer {
  return Buffer.concat([data, Buffer.alloc((512 - (data.length % 512)) % 512)]);
}

/**
 * Raw deflate of `mib` MiB of zeros, ~1000:1. Each MiB is compressed after a full flush, so the pieces
 * are identical and the stream is one piece repeated, closed by an empty final block.
 */
export function deflatedZeros(mib: number): Buffer {
  const piece = deflateRawSync(Buffer.alloc(1 << 20), { finishFlush: constants.Z_FULL_FLUSH });
  return Buffer.concat([...Array.from({ length: mib }, () => piece), Buffer.from([0x03, 0x00])]);
}

/** A gzip member around raw deflate data (trailer CRC/size of `content` when given, else zeros). */
export function gzipWrap(deflated: Buffer, content?: Buffer): Buffer {
  const header = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]);
  const trailer = Buffer.alloc(8);
  if (content) {
    trailer.writeUInt32LE(crc32(content), 0);
    trailer.writeUInt32LE(content.length >>> 0, 4);
  }
  return Buffer.concat([header, deflated, trailer]);
}

export async function readAll(entry: BundleEntry): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of entry.stream()) parts.push(c);
  return Buffer.concat(parts);
}

export async function streamError(entry: BundleEntry): Promise<Error> {
  try {
    for await (const _ of entry.stream());
  } catch (e) {
    return e as Error;
  }
  throw new Error(`${entry.path}: stream ended without the expected error`);
}
