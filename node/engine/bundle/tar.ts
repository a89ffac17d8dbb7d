// Tar, read as a stream of 512-byte headers: POSIX ustar (name prefix), pax extended headers (long
// names, large sizes, precise mtimes) and GNU long names/links. Parsed here rather than by a library so a
// corrupt header is reported at its exact offset, and the entries before it are kept.
import { ByteReader } from './byte-reader';
import { EntryRefused } from './limits';
import { formatBytes } from '../../../common/format';
import type { ExtractTarget } from './extract-target';
import { BundleError } from './types';

const BLOCK = 512;
/** pax and GNU long-name headers are read whole; real ones are a few hundred bytes. */
const MAX_META_BYTES = 1 << 20;

interface TarHeader {
  name: string;
  size: number;
  mtimeMs: number;
  type: string;
  linkname: string;
}

/**
 * Extracts a tar stream into `target`. `compressed` says the stream came out of gzip, so offsets are
 * in the uncompressed tar. A structural error ends the archive (thrown); entries written before it stay.
 */
export async function extractTar(src: AsyncIterable<Buffer>, target: ExtractTarget, compressed: boolean): Promise<void> {
  const r = new ByteReader(src[Symbol.asyncIterator]());
  const corrupt = (at: number, why: string) =>
    new BundleError(target.label, `${why}${compressed ? ' (offset in the uncompressed tar)' : ''}`, at);
  const truncated = (at: number) => corrupt(at, 'the tar ends inside an entry — truncated');
  let pax: Map<string, string> | null = null;
  let longName: string | null = null;
  let longLink: string | null = null;

  const readMeta = async (size: number, at: number): Promise<Buffer> => {
    if (size > MAX_META_BYTES) throw corrupt(at, `extended header of ${formatBytes(size)} — corrupt`);
    const buf = await r.read(size);
    if (buf.length < size) throw truncated(r.pos);
    await r.skip(padding(size), truncated);
    return buf;
  };

  try {
    for (;;) {
      const at = r.pos;
      const block = await r.read(BLOCK);
      // Archives cut after the last entry, without the two zero blocks, are common and complete.
      if (block.length === 0) return;
      if (block.length < BLOCK) throw corrupt(at, 'the tar ends inside a header — truncated');
      if (block.every((b) => b === 0)) return;
      const h = parseHeader(block);
      if (typeof h === 'string') throw corrupt(at, h);

      let size = h.size;
      const paxSize = pax?.get('size');
      if (paxSize !== undefined) {
        size = Number(paxSize);
        if (!Number.isSafeInteger(size) || size < 0) throw corrupt(at, `pax size "${paxSize}" is not a byte count`);
      }
      if (h.type === 'x' || h.type === 'g') {
        const records = parsePax(await readMeta(size, at));
        if (typeof records === 'string') throw corrupt(at, records);
        // Global headers (git archive's commit id) carry nothing an entry needs.
        if (h.type === 'x') pax = records;
        continue;
      }
      if (h.type === 'L' || h.type === 'K') {
        const value = cString(await readMeta(size, at), 0, size);
        if (h.type === 'L') longName = value;
        else longLink = value;
        continue;
      }

      const raw = pax?.get('path') ?? longName ?? h.name;
      const link = pax?.get('linkpath') ?? longLink ?? h.linkname;
      const paxMtime = Number(pax?.get('mtime'));
      const mtimeMs = Number.isFinite(paxMtime) ? paxMtime * 1000 : h.mtimeMs;
      pax = longName = longLink = null;
      const dataEnd = r.pos + size + padding(size);

      target.countEntry();
      const rel = target.checkPath(raw);
      if (rel !== null) await extractEntry(r, target, raw, rel, h.type, size, mtimeMs, link, truncated);
      await r.skip(dataEnd - r.pos, truncated);
    }
  } finally {
    await r.close();
  }
}

async function extractEntry(
  r: ByteReader,
  target: ExtractTarget,
  raw: string,
  rel: string,
  type: string,
  size: number,
  mtimeMs: number,
  link: string,
  truncated: (at: number) => Error,
): Promise<void> {
  switch (type) {
    case '0':
    case '7':
      if (raw.endsWith('/') && size === 0) return;
      if (size > target.limits.maxEntryBytes) {
        return target.refuse(raw, `${formatBytes(size)}, larger than ${formatBytes(target.limits.maxEntryBytes)} (maxEntryBytes) — refused`);
      }
      try {
        await target.file(raw, rel, mtimeMs, r.pieces(size, truncated));
      } catch (e) {
        if (!(e instanceof EntryRefused)) throw e;
        target.fail(raw, e);
      }
      return;
    case '5':
    case 'D':
      return;
    case '1':
      return target.link(raw, rel, link, 'hardlink');
    case '2':
      return target.link(raw, rel, link, 'symlink');
    case '3':
    case '4':
    case '6':
      return target.refuse(raw, 'a device or FIFO, not a file — skipped');
    default:
      return target.refuse(raw, `tar entry type "${type}" is not supported — skipped`);
  }
}

function padding(size: number): number {
  return (BLOCK - (size % BLOCK)) % BLOCK;
}

function parseHeader(b: Buffer): TarHeader | string {
  const stored = parseNumber(b, 148, 8);
  let unsigned = 8 * 0x20;
  let signed = 8 * 0x20;
  for (let i = 0; i < BLOCK; i++) {
    if (i >= 148 && i < 156) continue;
    unsigned += b[i];
    signed += (b[i] << 24) >> 24;
  }
  if (stored === null || (stored !== unsigned && stored !== signed)) return 'tar header checksum mismatch — the archive is corrupt here';
  const size = parseNumber(b, 124, 12);
  const mtime = parseNumber(b, 136, 12);
  if (size === null) return 'tar header has an unreadable size — corrupt';
  let name = cString(b, 0, 100);
  // POSIX ustar splits long names into prefix + name; GNU ("ustar  ") uses that space for other fields.
  if (b.toString('latin1', 257, 263) === 'ustar\0') {
    const prefix = cString(b, 345, 155);
    if (prefix) name = `${prefix}/${name}`;
  }
  return {
    name,
    size,
    mtimeMs: (mtime ?? 0) * 1000,
    type: b[156] === 0 ? '0' : String.fromCharCode(b[156]),
    linkname: cString(b, 157, 100),
  };
}

/** Octal text, or GNU base-256 (high bit set) for values that do not fit. */
function parseNumber(b: Buffer, start: number, len: number): number | null {
  if (b[start] & 0x80) {
    if (b[start] === 0xff) return null;
    let v = b[start] & 0x7f;
    for (let i = 1; i < len; i++) v = v * 256 + b[start + i];
    return Number.isSafeInteger(v) ? v : null;
  }
  const text = cString(b, start, len).trim();
  if (text === '') return 0;
  return /^[0-7]+$/.test(text) ? parseInt(text, 8) : null;
}

function cString(b: Buffer, start: number, len: number): string {
  const end = b.indexOf(0, start);
  return b.toString('utf8', start, end === -1 || end > start + len ? start + len : end);
}

function parsePax(buf: Buffer): Map<string, string> | string {
  const records = new Map<string, string>();
  let i = 0;
  while (i < buf.length && buf[i] !== 0) {
    const space = buf.indexOf(0x20, i);
    const len = space === -1 ? NaN : Number(buf.toString('latin1', i, space));
    if (!Number.isSafeInteger(len) || len <= space - i || i + len > buf.length) return 'malformed pax extended header — corrupt';
    const record = buf.toString('utf8', space + 1, i + len - 1);
    const eq = record.indexOf('=');
    if (eq > 0) records.set(record.slice(0, eq), record.slice(eq + 1));
    i += len;
  }
  return records;
}
