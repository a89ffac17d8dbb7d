// Text saved as UTF-16 with its byte-order mark — what Windows PowerShell 5.1 writes for `cmd > file`
// (`nvidia-smi … > gpu.csv`, `kubectl logs … > vllm.log` on a Windows laptop) — is read as the UTF-8 it
// stands for: the head for detection, the stream for the importer. Every importer reads UTF-8; none has
// to know. Without a byte-order mark UTF-16 is not guessed at (its bytes could be anything).

export type Utf16 = 'utf-16le' | 'utf-16be';

/** The UTF-16 a file's first bytes announce by their byte-order mark, or null. */
export function utf16Of(head: Buffer): Utf16 | null {
  if (head.length < 2) return null;
  if (head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  if (head[0] === 0xfe && head[1] === 0xff) return 'utf-16be';
  return null;
}

/** The head as UTF-8 (its byte-order mark dropped; a character cut at its end dropped too). */
export function headAsUtf8(head: Buffer, encoding: Utf16): Buffer {
  return Buffer.from(new TextDecoder(encoding).decode(head.subarray(0, head.length & ~1)), 'utf8');
}

/**
 * The stream as UTF-8. The decoder is fed chunk by chunk in streaming mode, so a code unit or a surrogate
 * pair split between chunks is joined; unpaired surrogates and a last odd byte become U+FFFD, which the
 * line readers count as undecodable.
 */
export async function* asUtf8(src: AsyncIterable<Buffer>, encoding: Utf16): AsyncGenerator<Buffer> {
  const decoder = new TextDecoder(encoding);
  for await (const chunk of src) {
    const text = decoder.decode(chunk, { stream: true });
    if (text) yield Buffer.from(text, 'utf8');
  }
  const rest = decoder.decode();
  if (rest) yield Buffer.from(rest, 'utf8');
}
