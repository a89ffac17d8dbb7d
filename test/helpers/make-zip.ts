// Writes zip archives byte by byte (local headers, central directory, end record, zip64 records on
// request) so bundle tests can make exactly the archive they need, hostile ones included: lying sizes,
// symlinks, traversal names, entries that share one blob of data.
import { crc32, deflateRawSync } from 'node:zlib';

export interface ZipSpec {
  name: string;
  /** The uncompressed content (default empty). */
  data?: Buffer;
  /** 0 stored, 8 deflate (default); any other number is written as is, for "unsupported method" tests. */
  method?: number;
  /** Raw compressed bytes to store instead of compressing `data` (then give `size` and `crc`). */
  compressed?: Buffer;
  /** The uncompressed size the headers declare (default: the real one). */
  size?: number;
  crc?: number;
  mtime?: Date;
  /** Unix st_mode, e.g. 0o120777 for a symlink (its data is the target). */
  unixMode?: number;
  /** Point this entry's directory record at an earlier entry's data (a non-recursive zip bomb). */
  sameDataAs?: number;
  /** Write an extended-timestamp field with this UTC time. */
  unixMtime?: Date;
}

export interface ZipOptions {
  /** Write zip64 extra fields, end record and locator (with saturated 32-bit fields). */
  zip64?: boolean;
}

interface Written {
  offset: number;
  crc: number;
  csize: number;
  size: number;
  method: number;
}

export function makeZip(specs: ZipSpec[], opts: ZipOptions = {}): Buffer {
  const parts: Buffer[] = [];
  let offset = 0;
  const push = (b: Buffer) => {
    parts.push(b);
    offset += b.length;
  };
  const written: Written[] = [];
  const central: Buffer[] = [];

  for (const s of specs) {
    const name = Buffer.from(s.name, 'utf8');
    const [time, date] = dosDateTime(s.mtime ?? new Date(2024, 4, 17, 10, 30, 42));
    const extra = s.unixMtime ? extendedTime(s.unixMtime) : Buffer.alloc(0);
    let w: Written;
    if (s.sameDataAs !== undefined) {
      w = written[s.sameDataAs];
    } else {
      const data = s.data ?? Buffer.alloc(0);
      const method = s.method ?? 8;
      const body = s.compressed ?? (method === 8 ? deflateRawSync(data) : data);
      w = { offset, crc: s.crc ?? crc32(data), csize: body.length, size: s.size ?? data.length, method };
      const local = Buffer.alloc(30);
      local.writeUInt32LE(0x04034b50, 0);
      local.writeUInt16LE(opts.zip64 ? 45 : 20, 4);
      local.writeUInt16LE(0x800, 6);
      local.writeUInt16LE(method, 8);
      local.writeUInt16LE(time, 10);
      local.writeUInt16LE(date, 12);
      local.writeUInt32LE(w.crc, 14);
      local.writeUInt32LE(w.csize, 18);
      local.writeUInt32LE(w.size, 22);
      local.writeUInt16LE(name.length, 26);
      local.writeUInt16LE(extra.length, 28);
      push(Buffer.concat([local, name, extra, body]));
    }
    written.push(w);

    const z64 = opts.zip64 ? zip64Extra(w) : Buffer.alloc(0);
    const cextra = Buffer.concat([z64, extra]);
    const c = Buffer.alloc(46);
    c.writeUInt32LE(0x02014b50, 0);
    c.writeUInt16LE(((s.unixMode !== undefined ? 3 : 0) << 8) | 45, 4);
    c.writeUInt16LE(opts.zip64 ? 45 : 20, 6);
    c.writeUInt16LE(0x800, 8);
    c.writeUInt16LE(w.method, 10);
    c.writeUInt16LE(time, 12);
    c.writeUInt16LE(date, 14);
    c.writeUInt32LE(w.crc, 16);
    c.writeUInt32LE(opts.zip64 ? 0xffffffff : w.csize, 20);
    c.writeUInt32LE(opts.zip64 ? 0xffffffff : w.size, 24);
    c.writeUInt16LE(name.length, 28);
    c.writeUInt16LE(cextra.length, 30);
    c.writeUInt32LE(s.unixMode !== undefined ? (s.unixMode << 16) >>> 0 : 0, 38);
    c.writeUInt32LE(opts.zip64 ? 0xffffffff : w.offset, 42);
    central.push(Buffer.concat([c, name, cextra]));
  }

  const cdOffset = offset;
  for (const c of central) push(c);
  const cdSize = offset - cdOffset;

  if (opts.zip64) {
    const z = Buffer.alloc(56);
    z.writeUInt32LE(0x06064b50, 0);
    z.writeBigUInt64LE(44n, 4);
    z.writeUInt16LE(45, 12);
    z.writeUInt16LE(45, 14);
    z.writeBigUInt64LE(BigInt(specs.length), 24);
    z.writeBigUInt64LE(BigInt(specs.length), 32);
    z.writeBigUInt64LE(BigInt(cdSize), 40);
    z.writeBigUInt64LE(BigInt(cdOffset), 48);
    const z64Offset = offset;
    push(z);
    const loc = Buffer.alloc(20);
    loc.writeUInt32LE(0x07064b50, 0);
    loc.writeBigUInt64LE(BigInt(z64Offset), 8);
    loc.writeUInt32LE(1, 16);
    push(loc);
  }
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(opts.zip64 ? 0xffff : specs.length, 8);
  end.writeUInt16LE(opts.zip64 ? 0xffff : specs.length, 10);
  end.writeUInt32LE(opts.zip64 ? 0xffffffff : cdSize, 12);
  end.writeUInt32LE(opts.zip64 ? 0xffffffff : cdOffset, 16);
  push(end);
  return Buffer.concat(parts);
}

function zip64Extra(w: Written): Buffer {
  const b = Buffer.alloc(28);
  b.writeUInt16LE(0x0001, 0);
  b.writeUInt16LE(24, 2);
  b.writeBigUInt64LE(BigInt(w.size), 4);
  b.writeBigUInt64LE(BigInt(w.csize), 12);
  b.writeBigUInt64LE(BigInt(w.offset), 20);
  return b;
}

function extendedTime(d: Date): Buffer {
  const b = Buffer.alloc(9);
  b.writeUInt16LE(0x5455, 0);
  b.writeUInt16LE(5, 2);
  b.writeUInt8(1, 4);
  b.writeUInt32LE(Math.floor(d.getTime() / 1000), 5);
  return b;
}

function dosDateTime(d: Date): [number, number] {
  const time = (d.getHours() << 11) | (d.getMinutes() << 5) | Math.floor(d.getSeconds() / 2);
  const date = ((d.getFullYear() - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate();
  return [time, date];
}
