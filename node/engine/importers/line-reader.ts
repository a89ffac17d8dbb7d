// Turns a byte stream into batches of text lines without holding the file: one batch per chunk, so
// the per-line cost is a string split, not an async step. Lines are cut at newline bytes (a newline is
// never inside a UTF-8 sequence), so a character split across chunks stays whole; CRLF endings lose
// their CR.
//
// Work is linear in the input whatever its shape: the tail of a line that is still open waits as a
// list of chunks and is joined once, when its newline comes (joining it to every chunk would be
// quadratic: a 128 MB line took 30 s). A line longer than `maxLineBytes` keeps only its first
// `maxLineBytes` bytes; the rest is dropped as it arrives, and `warn` hears the line's number and size.
// Text is decoded in pieces of about DECODE_PIECE bytes, cut at newlines; a piece that is all ASCII (most
// of any log) as Latin-1: the same string, without the UTF-8 decoder's work (the check is a SIMD scan).
// linePieces hands out those pieces unsplit, for an importer that finds the lines itself.
// A UTF-8 byte-order mark at the start of the file (Windows editors and PowerShell write one) is not
// text: it is dropped, so the first line reads as the same line without it.
import { isAscii } from 'node:buffer';
import type { Position } from './types';
import { formatBytes } from '../../../common/format';

/** The most of one line that is kept (1 MiB: far above any log or exposition line a tool writes). */
export const MAX_LINE_BYTES = 2 ** 20;

/**
 * V8 puts a string over 128 KiB in its large-object space, on fresh pages each time: 100 MB decoded and split
 * in 256 KiB pieces took 100 ms, in 64 KiB ones 40 ms.
 */
const DECODE_PIECE = 64 * 1024;

export interface LineOptions {
  maxLineBytes?: number;
}

/** The part of ImportContext the reader reports to. */
export interface LineWarn {
  warn(message: string, where?: Position): void;
}

export function lineBatches(src: AsyncIterable<Buffer>, ctx?: LineWarn, opts: LineOptions = {}): AsyncGenerator<string[]> {
  return batches(src, ctx, opts, null);
}

/** Lines counted by linePieces' caller. */
export interface LineCount {
  lines: number;
}

/**
 * The lines lineBatches gives, in pieces of text: each piece is whole lines joined by '\n' (no newline at
 * its end; an empty piece is one empty line), and a CR that ends a line is left in for the caller to
 * drop, as lineBatches does. Splitting into strings a line costs more than the rest of the work of a
 * short line (a wide Prometheus scrape's 85-byte sample lines): a caller that finds the lines in the
 * piece makes a string only of the lines it has to. The caller counts every line of a batch into
 * `count` before it asks for the next one: the reader's warnings name lines by that count.
 */
export function linePieces(src: AsyncIterable<Buffer>, count: LineCount, ctx?: LineWarn, opts: LineOptions = {}): AsyncGenerator<string[]> {
  return batches(src, ctx, opts, count);
}

/** Line batches, or piece batches where `count` is given (see linePieces). */
async function* batches(src: AsyncIterable<Buffer>, ctx: LineWarn | undefined, opts: LineOptions, count: LineCount | null): AsyncGenerator<string[]> {
  const max = opts.maxLineBytes ?? MAX_LINE_BYTES;
  // The open line: its kept chunks, their size, and the bytes dropped past `max`.
  let parts: Buffer[] = [];
  let kept = 0;
  let dropped = 0;
  let lineNo = 0; // lines handed out so far
  const cut = (no: number, bytes: number) =>
    ctx?.warn(`line of ${formatBytes(bytes)} is longer than ${formatBytes(max)}: only its first ${formatBytes(max)} are read`, { line: no });
  const hold = (b: Buffer) => {
    if (b.length === 0) return;
    if (kept >= max) {
      dropped += b.length;
      return;
    }
    const room = max - kept;
    if (b.length > room) {
      dropped += b.length - room;
      b = b.subarray(0, room);
    }
    // A chunk is often a view into a larger pooled buffer: copy what is kept so the rest can go.
    parts.push(Buffer.from(b));
    kept += b.length;
  };

  let first = true;
  for await (let chunk of src) {
    if (first && chunk.length) {
      first = false;
      if (startsWithBom(chunk)) chunk = chunk.subarray(3);
    }
    const nl = chunk.lastIndexOf(0x0a);
    if (nl < 0) {
      hold(chunk);
      continue;
    }
    // The open line ends at the chunk's first newline; whole lines follow up to its last.
    const firstNl = chunk.indexOf(0x0a);
    let lines: string[];
    let firstLong = -1;
    // Where the lines read straight from the chunk begin, and their index in `lines`.
    let own = 0;
    let ownIndex = 0;
    if (parts.length === 0 && dropped === 0) {
      lines = [];
    } else {
      own = firstNl + 1;
      ownIndex = 1;
      hold(chunk.subarray(0, firstNl));
      lines = [decode(Buffer.concat(parts, kept), 0, kept)];
      if (dropped) firstLong = kept + dropped;
    }
    // A line of the chunk itself can be over the cap only where the text is: then its lines are split
    // and capped, a piece each.
    const capped = nl - own > max;
    if (nl >= own) (count === null || capped ? pushLines : pushPieces)(lines, chunk, own, nl);
    parts = [];
    kept = 0;
    dropped = 0;
    if (count !== null) lineNo = count.lines;
    if (firstLong >= 0) cut(lineNo + 1, firstLong);
    if (capped) capLines(lines, max, ownIndex, lineNo, cut);
    lineNo += lines.length;
    hold(chunk.subarray(nl + 1));
    yield count === null ? stripCr(lines) : lines;
  }
  if (parts.length || dropped) {
    const rest = decode(Buffer.concat(parts, kept), 0, kept);
    if (count !== null) lineNo = count.lines;
    if (dropped) cut(lineNo + 1, kept + dropped);
    if (rest.length) yield count === null ? stripCr([rest]) : [rest];
  }
}

/** Pushes the lines of `b[start, end)` (`end`: a newline) onto `out`, decoded in pieces cut at newlines. */
function pushLines(out: string[], b: Buffer, start: number, end: number): void {
  while (end - start > DECODE_PIECE) {
    // The piece's last newline; where a line is longer than the piece, the newline that ends it.
    let cut = b.lastIndexOf(0x0a, start + DECODE_PIECE);
    if (cut < start) cut = b.indexOf(0x0a, start + DECODE_PIECE);
    if (cut >= end) break;
    for (const l of decode(b, start, cut).split('\n')) out.push(l);
    start = cut + 1;
  }
  for (const l of decode(b, start, end).split('\n')) out.push(l);
}

/** The text of `b[start, end)` (`end`: a newline) onto `out`, in pieces cut at newlines, as pushLines decodes them. */
function pushPieces(out: string[], b: Buffer, start: number, end: number): void {
  while (end - start > DECODE_PIECE) {
    let cut = b.lastIndexOf(0x0a, start + DECODE_PIECE);
    if (cut < start) cut = b.indexOf(0x0a, start + DECODE_PIECE);
    if (cut >= end) break;
    out.push(decode(b, start, cut));
    start = cut + 1;
  }
  out.push(decode(b, start, end));
}

/** The UTF-8 text of `b[start, end)`. */
function decode(b: Buffer, start: number, end: number): string {
  return isAscii(b.subarray(start, end)) ? b.toString('latin1', start, end) : b.toString('utf8', start, end);
}

/** Cuts lines (from index `from`) whose UTF-8 size is over `max` bytes. */
function capLines(lines: string[], max: number, from: number, lineNo: number, cut: (no: number, bytes: number) => void): void {
  for (let i = from; i < lines.length; i++) {
    const l = lines[i];
    // A string of n UTF-16 units is at most 3n UTF-8 bytes and at least n.
    if (l.length * 3 <= max) continue;
    const bytes = Buffer.byteLength(l);
    if (bytes <= max) continue;
    cut(lineNo + i + 1, bytes);
    lines[i] = Buffer.from(l).toString('utf8', 0, max);
  }
}

function stripCr(lines: string[]): string[] {
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (l.length && l.charCodeAt(l.length - 1) === 13) lines[i] = l.slice(0, -1);
  }
  return lines;
}

/** Whether `b` starts with the UTF-8 byte-order mark (EF BB BF); a chunk shorter than it is taken as not. */
export function startsWithBom(b: Buffer): boolean {
  return b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf;
}

/** The head's lines for detection (a byte-order mark dropped); a cut last line is dropped unless it is the only one. */
export function headLines(head: Buffer, max = 200): string[] {
  const text = head.toString('utf8', startsWithBom(head) ? 3 : 0);
  const lines = text.split('\n');
  if (lines.length > 1) lines.pop();
  return stripCr(lines.slice(0, max));
}
