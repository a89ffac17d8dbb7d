// Turns a byte stream into batches of text lines without holding the file: one batch per chunk, so
// the per-line cost is a string split, not an async step. UTF-8 split across chunks is kept intact
// by the decoder; CRLF endings lose their CR.
import { StringDecoder } from 'node:string_decoder';

export async function* lineBatches(src: AsyncIterable<Buffer>): AsyncGenerator<string[]> {
  const decoder = new StringDecoder('utf8');
  let carry = '';
  for await (const chunk of src) {
    const text = carry + decoder.write(chunk);
    const lines = text.split('\n');
    carry = lines.pop() ?? '';
    if (lines.length) yield stripCr(lines);
  }
  const rest = carry + decoder.end();
  if (rest.length) yield stripCr([rest]);
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
