// JSON documents one after another, each over as many lines as it likes: what `jq .` makes of JSON lines,
// and what the OpenTelemetry SDKs' console exporters print (`to_json(indent=4)` per export). Fed line by
// line, it answers each document's text once its outermost bracket closes, with the line and byte it
// began at; strings (and the brackets and escapes inside them) are followed, nothing else is parsed.
// A document is held whole until it ends, so its size is capped.

export interface JsonDocument {
  text: string;
  /** 1-based line and byte offset where it began. */
  line: number;
  offset: number;
}

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

export class JsonDocuments {
  private parts: string[] = [];
  private size = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;
  private startLine = 0;
  private startOffset = 0;
  /** Lines with text outside any document (skipped). */
  strayLines = 0;

  constructor(private readonly maxChars: number) {}

  /** Whether a document has begun and not ended. */
  get open(): boolean {
    return this.depth > 0;
  }

  /** Where the unfinished document began. */
  get openLine(): number {
    return this.startLine;
  }

  /** One line without its newline (`offset`: the byte it starts at); the documents it completes. */
  line(text: string, line: number, offset: number): JsonDocument[] {
    const done: JsonDocument[] = [];
    let from = 0;
    let stray = false;
    // Bytes up to char `counted` (a running count: a line of many small documents stays linear).
    let counted = 0;
    let bytes = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (this.depth === 0) {
        if (c === OPEN_BRACE || c === OPEN_BRACKET) {
          this.depth = 1;
          from = i;
          this.startLine = line;
          bytes += Buffer.byteLength(text.slice(counted, i));
          counted = i;
          this.startOffset = offset + bytes;
        } else if (c > 0x20) {
          stray = true;
          break;
        }
        continue;
      }
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === BACKSLASH) this.escaped = true;
        else if (c === QUOTE) this.inString = false;
        continue;
      }
      if (c === QUOTE) this.inString = true;
      else if (c === OPEN_BRACE || c === OPEN_BRACKET) this.depth++;
      else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && --this.depth === 0) {
        this.parts.push(text.slice(from, i + 1));
        done.push({ text: this.parts.join('\n'), line: this.startLine, offset: this.startOffset });
        this.parts = [];
        this.size = 0;
        from = i + 1;
      }
    }
    if (stray) this.strayLines++;
    if (this.depth > 0) {
      const piece = text.slice(from);
      this.size += piece.length + 1;
      if (this.size > this.maxChars) throw new RangeError(`a JSON document over ${Math.round(this.maxChars / 2 ** 20)} MiB`);
      this.parts.push(piece);
    }
    return done;
  }
}
