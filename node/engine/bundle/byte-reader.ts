// Sequential reads of exact sizes from a stream of chunks, keeping count of the offset — what a tar
// parser needs to walk 512-byte headers and hand entry bodies on without gathering them.

export class ByteReader {
  /** Bytes consumed so far. */
  pos = 0;
  private readonly chunks: Buffer[] = [];
  private buffered = 0;
  private ended = false;

  constructor(private readonly source: AsyncIterator<Buffer>) {}

  /** Exactly `n` bytes, or fewer where the stream ends first. */
  async read(n: number): Promise<Buffer> {
    await this.fill(n);
    const parts: Buffer[] = [];
    let want = Math.min(n, this.buffered);
    const total = want;
    while (want > 0) {
      const part = this.takeUpTo(want);
      parts.push(part);
      want -= part.length;
    }
    return parts.length === 1 ? parts[0] : Buffer.concat(parts, total);
  }

  /** The next `n` bytes as they arrive; `short` makes the error for a stream that ends first. */
  async *pieces(n: number, short: (at: number) => Error): AsyncGenerator<Buffer> {
    let left = n;
    while (left > 0) {
      if (this.buffered === 0) await this.fill(1);
      if (this.buffered === 0) throw short(this.pos);
      const part = this.takeUpTo(left);
      left -= part.length;
      yield part;
    }
  }

  async skip(n: number, short: (at: number) => Error): Promise<void> {
    for await (const _ of this.pieces(n, short));
  }

  async close(): Promise<void> {
    await this.source.return?.();
  }

  private async fill(n: number): Promise<void> {
    while (this.buffered < n && !this.ended) {
      const r = await this.source.next();
      if (r.done) this.ended = true;
      else if (r.value.length) {
        this.chunks.push(r.value);
        this.buffered += r.value.length;
      }
    }
  }

  private takeUpTo(max: number): Buffer {
    const first = this.chunks[0];
    let part = first;
    if (first.length > max) {
      part = first.subarray(0, max);
      this.chunks[0] = first.subarray(max);
    } else {
      this.chunks.shift();
    }
    this.buffered -= part.length;
    this.pos += part.length;
    return part;
  }
}
