// What a file is, from its first bytes: names lie (x.zip that is a log, a trace.json that is gzip'd).

export type Container = 'gzip' | 'zip' | 'tar' | 'plain';

/** Enough bytes to see a tar header's magic. */
export const SNIFF_BYTES = 512;

export function sniffContainer(head: Buffer): Container {
  if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) return 'gzip';
  if (head.length >= 4 && head[0] === 0x50 && head[1] === 0x4b && ((head[2] === 3 && head[3] === 4) || (head[2] === 5 && head[3] === 6))) {
    return 'zip';
  }
  if (isTarHeader(head)) return 'tar';
  return 'plain';
}

/** POSIX ("ustar\0") and GNU ("ustar  ") tars both carry "ustar" at offset 257. */
export function isTarHeader(head: Buffer): boolean {
  return head.length >= 263 && head.toString('latin1', 257, 262) === 'ustar';
}

/** The MTIME a gzip header records (the original file's), or null where the writer left it 0. */
export function gzipMtimeMs(head: Buffer): number | null {
  if (head.length < 8) return null;
  const s = head.readUInt32LE(4);
  return s === 0 ? null : s * 1000;
}
