// Turns a byte stream into batches of text lines without holding the file: one batch per chunk, so
// the per-line cost is a string split, not an async step. Lines are cut at newline bytes (a newline is
// never inside a UTF-8 sequence), so a character split across chunks stays whole; CRLF endings lose
// their CR.
//
// Work is linear in the input whatever its shape: the tail of a line that is still open waits as a
// list of chunks and is joined once, when its newline comes (joining it to every chunk would be
// quadratic: a 128 MB line took 30 s). A line longer than `maxLineBytes` keeps only its first
// `maxLineBytes` bytes; the rest is dropped as it arrives, and `warn` hears the line's number and size.
import type { Position } from './types';
import { formatBytes } from '../../../common/format';

/** The most of one line that is kept (1 MiB: far above any log or exposition line a tool writes). */
export const MAX_LINE_BYTES = 2 ** 20;

export interface LineOptions {
  maxLineBytes?: number;
}

/** The part of ImportContext the reader reports to. */
export interface LineWarn {
  warn(message: string, where?: Position): void;
}

export async function* lineBatches(src: AsyncIterable<Buffer>, ctx?: LineWarn, opts: LineOptions = {}): AsyncGenerator<string[]> {
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

  for await (const chunk of src) {
    const nl = chunk.lastIndexOf(0x0a);
    if (nl < 0) {
      hold(chunk);
      continue;
    }
    // The open line ends at the chunk's first newline; whole lines follow up to its last.
    const first = chunk.indexOf(0x0a);
    let lines: string[];
    let firstLong = -1;
    // Where the lines read straight from the chunk begin, and their index in `lines`.
    let own = 0;
    let ownIndex = 0;
    if (parts.length === 0 && dropped === 0) {
      lines = chunk.toString('utf8', 0, nl).split('\n');
    } else {
      own = first + 1;
      ownIndex = 1;
      hold(chunk.subarray(0, first));
      const head = Buffer.concat(parts, kept).toString('utf8');
      if (dropped) firstLong = kept + dropped;
      lines = nl > first ? [head, ...chunk.toString('utf8', first + 1, nl).split('\n')] : [head];
    }
    parts = [];
    kept = 0;
    dropped = 0;
    if (firstLong >= 0) cut(lineNo + 1, firstLong);
    // A line of the chunk itself can be over the cap only where the text is.
    if (nl - own > max) capLines(lines, max, ownIndex, lineNo, cut);
    lineNo += lines.length;
    hold(chunk.subarray(nl + 1));
    yield stripCr(lines);
  }
  if (parts.length || dropped) {
    const rest = Buffer.concat(parts, kept).toString('utf8');
    if (dropped) cut(lineNo + 1, kept + dropped);
    if (rest.length) yield stripCr([rest]);
  }
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

/** The head's lines for detection; a cut last line is dropped unless it is the only one. */
export function headLines(head: Buffer, max = 200): string[] {
  const text = head.toString('utf8');
  const lines = text.split('\n');
  if (lines.length > 1) lines.pop();
  return stripCr(lines.slice(0, max));
}
