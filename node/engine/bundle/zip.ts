// Zip, read from its central directory (zip64 where present) and extracted entry by entry: each entry's
// byte range is streamed through inflateRaw and checked against its declared size and CRC while it is
// written. A zip whose end record is missing (a cut download) is scanned from the front instead, so the
// entries before the damage still come out.
import { open, type FileHandle } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { inflateRaw } from './decompress';
import type { ExtractTarget } from './extract-target';
import { readExact, readRange } from './file-read';
import { ArchiveRefused, EntryRefused, ExpansionGuard, RATIO_FLOOR_BYTES } from './limits';
import { formatBytes } from '../../../common/format';
import { BundleError } from './types';

const LOCAL_SIG = 0x04034b50;
const CENTRAL_SIG = 0x02014b50;
const EOCD_SIG = 0x06054b50;
const ZIP64_LOCATOR_SIG = 0x07064b50;
const ZIP64_EOCD_SIG = 0x06064b50;
const EOCD_BYTES = 22;
/** A central directory is names and offsets; one this large is hostile, not a bundle. */
const MAX_DIRECTORY_BYTES = 256 * 2 ** 20;
/** A symlink's content is its target path. */
const MAX_LINK_BYTES = 4096;

const METHODS: Record<number, string> = { 1: 'shrink', 6: 'implode', 9: 'deflate64', 12: 'bzip2', 14: 'LZMA', 93: 'zstd', 95: 'xz', 98: 'PPMd', 99: 'AES encryption' };

interface ZipEntry {
  name: string;
  flags: number;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  localOffset: number;
  mtimeMs: number | null;
  kind: 'file' | 'dir' | 'symlink';
}

/** The entries found, and what stopped the listing early (a corrupt or missing central directory). */
interface Listing {
  entries: ZipEntry[];
  stop: BundleError | null;
}

/** Extracts the zip at `path` into `target`; throws ArchiveRefused or the error that ended the listing. */
export async function extractZip(path: string, target: ExtractTarget): Promise<void> {
  const fh = await open(path, 'r');
  try {
    const fileSize = (await fh.stat()).size;
    const listing = (await readCentralDirectory(fh, fileSize, target)) ?? (await scanLocalHeaders(fh, fileSize, target));
    const { maxRatio, maxTotalBytes } = target.limits;
    const whole = new ExpansionGuard(target.label, { maxRatio, maxBytes: maxTotalBytes, bytesLimitName: 'maxTotalBytes' }, ArchiveRefused);
    const ordered = [...listing.entries].sort((a, b) => a.localOffset - b.localOffset);
    for (const e of ordered) {
      try {
        await extractEntry(fh, fileSize, e, target, (n) => whole.add(n, fileSize));
      } catch (err) {
        if (err instanceof ArchiveRefused) throw err;
        target.fail(e.name, err);
      }
    }
    if (listing.stop) throw listing.stop;
  } finally {
    await fh.close();
  }
}

async function extractEntry(fh: FileHandle, fileSize: number, e: ZipEntry, target: ExtractTarget, onOut: (n: number) => void): Promise<void> {
  const name = target.name(e.name);
  const rel = target.checkPath(e.name);
  if (rel === null) return;
  if (e.kind === 'dir') return;
  if (e.flags & 1) throw new EntryRefused(name, 'is encrypted — not supported');
  if (e.method !== 0 && e.method !== 8) {
    throw new EntryRefused(name, `uses compression method ${e.method}${METHODS[e.method] ? ` (${METHODS[e.method]})` : ''}, which is not supported (only stored and deflate)`);
  }
  const { maxRatio, maxEntryBytes } = target.limits;
  if (e.size > maxEntryBytes) throw new EntryRefused(name, `${formatBytes(e.size)}, larger than ${formatBytes(maxEntryBytes)} (maxEntryBytes) — refused`);
  if (e.size > RATIO_FLOOR_BYTES && e.size > maxRatio * Math.max(e.compressedSize, 1)) {
    throw new EntryRefused(name, `expands more than ${maxRatio}:1 — refused as a possible zip bomb (${formatBytes(e.size)} from ${formatBytes(e.compressedSize)})`);
  }
  const start = await dataStart(fh, e, name);
  if (start + e.compressedSize > fileSize) throw new BundleError(name, 'its data runs past the end of the file — truncated', start);
  const data = entryData(fh, e, start, name, onOut);
  if (e.kind === 'symlink') {
    if (e.size > MAX_LINK_BYTES) throw new EntryRefused(name, 'a symlink with an implausibly long target — refused');
    const parts: Buffer[] = [];
    for await (const part of data) parts.push(part);
    return target.link(e.name, rel, Buffer.concat(parts).toString('utf8'), 'symlink');
  }
  await target.file(e.name, rel, e.mtimeMs, data);
}

/**
 * The entry's bytes, stopped the moment they pass the declared size or fail the CRC. The declared size
 * has already passed the size and ratio limits, so a header that lies cannot get more out than that.
 */
async function* entryData(fh: FileHandle, e: ZipEntry, start: number, name: string, onOut: (n: number) => void): AsyncGenerator<Buffer> {
  const raw = readRange(fh, start, e.compressedSize, name);
  const body = e.method === 0 ? raw : inflateRaw(raw, name, start);
  let size = 0;
  let crc = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > e.size) throw new EntryRefused(name, `holds more than the ${e.size} bytes its header declares — corrupt or hostile, refused`);
    onOut(chunk.length);
    crc = crc32(chunk, crc);
    yield chunk;
  }
  if (size !== e.size) throw new BundleError(name, `holds ${size} bytes but its header declares ${e.size} — corrupt`);
  if (crc !== e.crc) throw new BundleError(name, 'CRC-32 mismatch — the entry is corrupt');
}

async function dataStart(fh: FileHandle, e: ZipEntry, name: string): Promise<number> {
  const h = await readExact(fh, e.localOffset, 30, name);
  if (h.readUInt32LE(0) !== LOCAL_SIG) throw new BundleError(name, 'no local file header where the central directory points — corrupt', e.localOffset);
  return e.localOffset + 30 + h.readUInt16LE(26) + h.readUInt16LE(28);
}

/** The central directory's entries, or null when there is no end record to find it by. */
async function readCentralDirectory(fh: FileHandle, fileSize: number, target: ExtractTarget): Promise<Listing | null> {
  const tailLen = Math.min(fileSize, EOCD_BYTES + 0xffff);
  const tail = await readExact(fh, fileSize - tailLen, tailLen, target.label);
  let at = -1;
  for (let i = tail.length - EOCD_BYTES; i >= 0; i--) {
    if (tail.readUInt32LE(i) === EOCD_SIG && i + EOCD_BYTES + tail.readUInt16LE(i + 20) <= tail.length) {
      at = i;
      break;
    }
  }
  if (at < 0) return null;
  const eocdOffset = fileSize - tailLen + at;
  const disk = tail.readUInt16LE(at + 4);
  const cdDisk = tail.readUInt16LE(at + 6);
  let count = tail.readUInt16LE(at + 10);
  let cdSize = tail.readUInt32LE(at + 12);
  let cdOffset = tail.readUInt32LE(at + 16);
  // Bytes before the zip proper (a self-extractor stub) shift every offset by the same amount.
  let shift = eocdOffset - cdSize - cdOffset;

  if (eocdOffset >= 20) {
    const loc = await readExact(fh, eocdOffset - 20, 20, target.label);
    if (loc.readUInt32LE(0) === ZIP64_LOCATOR_SIG) {
      const z64Offset = Number(loc.readBigUInt64LE(8));
      const z = z64Offset + 56 <= fileSize ? await readExact(fh, z64Offset, 56, target.label) : null;
      if (!z || z.readUInt32LE(0) !== ZIP64_EOCD_SIG) throw new BundleError(target.label, 'zip64 end record missing where its locator points — corrupt', z64Offset);
      count = Number(z.readBigUInt64LE(32));
      cdSize = Number(z.readBigUInt64LE(40));
      cdOffset = Number(z.readBigUInt64LE(48));
      shift = 0;
    }
  }
  if ((disk !== 0 && disk !== 0xffff) || (cdDisk !== 0 && cdDisk !== 0xffff)) {
    throw new BundleError(target.label, 'a split (multi-part) zip — not supported; join the parts first');
  }
  if (count > target.limits.maxEntries) {
    throw new ArchiveRefused(target.label, `has ${count} entries, more than ${target.limits.maxEntries} (maxEntries) — refused`);
  }
  if (cdSize > MAX_DIRECTORY_BYTES) throw new ArchiveRefused(target.label, `central directory of ${formatBytes(cdSize)} — refused`);
  if (shift < 0 || cdOffset + shift + cdSize > fileSize) {
    throw new BundleError(target.label, 'the central directory lies outside the file — corrupt or truncated', eocdOffset);
  }

  const cd = await readExact(fh, cdOffset + shift, cdSize, target.label);
  const entries: ZipEntry[] = [];
  let i = 0;
  while (i + 46 <= cd.length && cd.readUInt32LE(i) === CENTRAL_SIG) {
    const nameLen = cd.readUInt16LE(i + 28);
    const extraLen = cd.readUInt16LE(i + 30);
    const commentLen = cd.readUInt16LE(i + 32);
    const end = i + 46 + nameLen + extraLen + commentLen;
    if (end > cd.length) break;
    if (entries.length >= target.limits.maxEntries) {
      throw new ArchiveRefused(target.label, `has more than ${target.limits.maxEntries} entries (maxEntries) — refused`);
    }
    const flags = cd.readUInt16LE(i + 8);
    const name = decodeName(cd.subarray(i + 46, i + 46 + nameLen), flags);
    const extra = cd.subarray(i + 46 + nameLen, i + 46 + nameLen + extraLen);
    const z64 = zip64Fields(extra, [cd.readUInt32LE(i + 24), cd.readUInt32LE(i + 20), cd.readUInt32LE(i + 42)]);
    const host = cd.readUInt8(i + 5);
    const mode = host === 3 || host === 19 ? cd.readUInt32LE(i + 38) >>> 16 : 0;
    const fileType = mode & 0o170000;
    entries.push({
      name,
      flags,
      method: cd.readUInt16LE(i + 10),
      crc: cd.readUInt32LE(i + 16),
      size: z64[0],
      compressedSize: z64[1],
      localOffset: z64[2] + shift,
      mtimeMs: unixMtime(extra) ?? dosTime(cd.readUInt16LE(i + 14), cd.readUInt16LE(i + 12)),
      kind: fileType === 0o120000 ? 'symlink' : name.endsWith('/') || fileType === 0o040000 || (cd.readUInt8(i + 38) & 0x10) !== 0 ? 'dir' : 'file',
    });
    i = end;
  }
  const stop =
    entries.length < count
      ? new BundleError(target.label, `central directory is corrupt after ${entries.length} of ${count} entries`, cdOffset + shift + i)
      : null;
  return { entries, stop };
}

/** Without a central directory: walk the local headers from the front until something is wrong. */
async function scanLocalHeaders(fh: FileHandle, fileSize: number, target: ExtractTarget): Promise<Listing> {
  const entries: ZipEntry[] = [];
  let pos = 0;
  let why = 'the end of central directory record is missing — truncated?';
  while (pos + 30 <= fileSize) {
    const h = await readExact(fh, pos, 30, target.label);
    const sig = h.readUInt32LE(0);
    if (sig === CENTRAL_SIG) break;
    if (sig !== LOCAL_SIG) {
      why = 'no zip header here — corrupt';
      break;
    }
    const flags = h.readUInt16LE(6);
    const nameLen = h.readUInt16LE(26);
    const extraLen = h.readUInt16LE(28);
    if (pos + 30 + nameLen + extraLen > fileSize) break;
    const meta = await readExact(fh, pos + 30, nameLen + extraLen, target.label);
    const name = decodeName(meta.subarray(0, nameLen), flags);
    if (flags & 8) {
      why = `entry "${name}" stores its sizes after its data, which cannot be followed without the central directory`;
      break;
    }
    const extra = meta.subarray(nameLen);
    const [size, compressedSize] = zip64Fields(extra, [h.readUInt32LE(22), h.readUInt32LE(18)]);
    const start = pos + 30 + nameLen + extraLen;
    if (start + compressedSize > fileSize) break;
    if (entries.length >= target.limits.maxEntries) {
      throw new ArchiveRefused(target.label, `has more than ${target.limits.maxEntries} entries (maxEntries) — refused`);
    }
    entries.push({
      name,
      flags,
      method: h.readUInt16LE(8),
      crc: h.readUInt32LE(14),
      size,
      compressedSize,
      localOffset: pos,
      mtimeMs: unixMtime(extra) ?? dosTime(h.readUInt16LE(12), h.readUInt16LE(10)),
      kind: name.endsWith('/') ? 'dir' : 'file',
    });
    pos = start + compressedSize;
  }
  const stop = new BundleError(target.label, `${why}; ${entries.length} entries before this point were recovered`, pos);
  return { entries, stop };
}

/**
 * Replaces 32-bit fields saturated at 0xFFFFFFFF with the zip64 extra field's 64-bit values, in order.
 * (A value past 2^53 loses precision as a number, but it is past any real file and fails the range checks.)
 */
function zip64Fields(extra: Buffer, fields: number[]): number[] {
  const out = [...fields];
  for (let i = 0; i + 4 <= extra.length; ) {
    const id = extra.readUInt16LE(i);
    const len = extra.readUInt16LE(i + 2);
    if (id === 0x0001) {
      let p = i + 4;
      for (let f = 0; f < out.length; f++) {
        if (out[f] !== 0xffffffff) continue;
        if (p + 8 > i + 4 + len || p + 8 > extra.length) break;
        out[f] = Number(extra.readBigUInt64LE(p));
        p += 8;
      }
    }
    i += 4 + len;
  }
  return out;
}

/** The extended-timestamp field (0x5455) holds a UTC mtime; DOS times are local and 2-second grained. */
function unixMtime(extra: Buffer): number | null {
  for (let i = 0; i + 4 <= extra.length; ) {
    const id = extra.readUInt16LE(i);
    const len = extra.readUInt16LE(i + 2);
    if (id === 0x5455 && len >= 5 && i + 9 <= extra.length && extra[i + 4] & 1) return extra.readUInt32LE(i + 5) * 1000;
    i += 4 + len;
  }
  return null;
}

function dosTime(date: number, time: number): number | null {
  // 0, and 1980-01-01 00:00:00 (the DOS epoch, which writers that stream or know no time put there,
  // Python's zipfile among them): no time, not a time in 1980.
  if (date === 0 || (date === 0x21 && time === 0)) return null;
  return new Date((date >> 9) + 1980, ((date >> 5) & 0xf) - 1, date & 0x1f, time >> 11, (time >> 5) & 0x3f, (time & 0x1f) * 2).getTime();
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Flag bit 11 promises UTF-8; many tools write UTF-8 without it, so try that before falling back. */
function decodeName(bytes: Buffer, flags: number): string {
  if (flags & 0x800) return bytes.toString('utf8');
  try {
    return utf8.decode(bytes);
  } catch {
    return bytes.toString('latin1');
  }
}
