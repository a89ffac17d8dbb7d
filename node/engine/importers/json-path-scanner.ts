// A byte scanner for one JSON document read as a stream, for documents too large to become a string
// (V8 caps strings at 512 MiB). As each value begins, a visitor chooses: walk into it (an object or
// array: its members come next, one by one), parse it whole (JSON.parse), take its text unparsed, or
// skip it. So memory is bounded by the largest value taken whole (one span, one resource), never by the
// file. Keys may come in any order: a visitor that needs a sibling that comes later holds what it has.
//
// What is walked is checked token by token (keys, colons, commas, brackets); what is parsed, by
// JSON.parse; what is skipped or taken as text, only for closed strings and matching brackets. Errors
// carry the byte offset, the line and the path (`resourceSpans[0].scopeSpans[2].spans[17]`).
//
// Sibling of json-event-scanner.ts, which is tuned for the one shape of Chrome traces (a flat array of
// events, batched into one JSON.parse per megabyte) and benchmarked as such.
import { BACKSLASH, COLON, COMMA, LBRACE, LBRACKET, QUOTE, RBRACE, RBRACKET } from './json-bytes';
import { MAX_VALUE_DEPTH, jsonErrorOffset } from './json-error-offset';

export type JsonPath = readonly (string | number)[];
/** What a value is, from its first byte. */
export type ValueKind = 'object' | 'array' | 'string' | 'scalar';
/** What to do with a value: 'walk' applies to objects and arrays only (others are parsed). */
export type Take = 'walk' | 'parse' | 'text' | 'skip';

export interface JsonPlace {
  /** Byte offset of the value's first byte in the stream. */
  offset: number;
  /** 1-based line of that byte. */
  line: number;
}

export interface JsonVisitor {
  /** Called as each value begins. `path` is the scanner's own array: read it, do not keep it. */
  enter(path: JsonPath, kind: ValueKind): Take;
  /** A value taken with 'parse'. */
  value?(path: JsonPath, value: unknown, at: JsonPlace): void;
  /** A value taken with 'text': its JSON text, for parseAt later. */
  text?(path: JsonPath, text: string, at: JsonPlace): void;
  /** A walked object or array closed. */
  leave?(path: JsonPath): void;
}

export class JsonScanError extends Error {
  constructor(
    readonly offset: number,
    readonly line: number,
    message: string,
    /** Where in the document, as `a.b[3]`; '' at the top. */
    readonly path: string,
  ) {
    super(message);
    this.name = 'JsonScanError';
  }
}

/** `data[0].spans[3]`: a path as a user reads it. */
export function pathText(path: JsonPath): string {
  let s = '';
  for (const p of path) s += typeof p === 'number' ? `[${p}]` : s ? `.${p}` : p;
  return s;
}

/** JSON.parse of a value's text, with errors placed in the stream (not in the piece). */
export function parseAt(text: string, at: JsonPlace, path: JsonPath | string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    const i = jsonErrorOffset(text);
    const before = text.slice(0, i);
    let nl = 0;
    for (let k = before.indexOf('\n'); k >= 0; k = before.indexOf('\n', k + 1)) nl++;
    const where = typeof path === 'string' ? path : pathText(path);
    // V8's positions and "end of input" are about the piece, not the file.
    let message = (e as Error).message.replace(/ in JSON at position \d+( \(line \d+ column \d+\))?/, '');
    if (/Unexpected end of JSON input/.test(message)) message = `incomplete value ${JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text)}`;
    throw new JsonScanError(at.offset + Buffer.byteLength(before), at.line + nl, `${message}${where ? ` (in ${where})` : ''}`, where);
  }
}

export interface JsonScanOptions {
  /**
   * After the top-level value: 'space' (the default) allows only whitespace; 'stop' makes write()
   * answer where the value ended, so the caller can read what follows (JSON lines) itself.
   */
  after?: 'space' | 'stop';
}

const NL = 0x0a;
const OBJ = 0;
const ARR = 1;

const isSpace = (b: number) => b === 0x20 || b === NL || b === 0x0d || b === 0x09;
const isDelimiter = (b: number) => isSpace(b) || b === COMMA || b === RBRACE || b === RBRACKET;
const show = (b: number) => (b >= 0x20 && b < 0x7f ? JSON.stringify(String.fromCharCode(b)) : `byte 0x${b.toString(16).padStart(2, '0')}`);

// States between values (inside walked containers) and while a taken value is read.
const VALUE = 0; // a value is due (top level, after ':' or after ',' in an array)
const FIRST_ELEMENT = 1; // after '[': a value or ']'
const FIRST_KEY = 2; // after '{': a key or '}'
const KEY = 3; // after ',' in an object: a key
const IN_KEY = 4;
const COLON_DUE = 5;
const AFTER = 6; // after a member: ',' or the closing bracket
const IN_VALUE = 7; // reading a value taken whole (or skipped)
const DONE = 8;

interface ValueScan {
  depth: number;
  inString: boolean;
  escaped: boolean;
  line: number;
  /** Open brackets of a skipped value, to catch `{]` (a parsed value has JSON.parse for that). */
  stack: number[] | null;
  /** Where a bracket did not match, else -1. */
  bad: number;
  /** Nesting a taken value may reach (Infinity for a skipped one), and where it went past, else -1. */
  maxDepth: number;
  deep: number;
}


/**
 * Reads a container or string value from buf[i] (its opening byte already read): answers the index
 * just past its end, or -1 when the chunk ends first. The hot loop: plain locals, no calls.
 */
function scanValue(buf: Buffer, i: number, n: number, st: ValueScan): number {
  let { depth, inString, escaped, line } = st;
  const stack = st.stack;
  let end = -1;
  while (i < n) {
    const b = buf[i++];
    if (inString) {
      if (escaped) escaped = false;
      else if (b === BACKSLASH) escaped = true;
      else if (b === QUOTE) {
        inString = false;
        if (depth === 0) {
          end = i;
          break;
        }
      }
    } else if (b === QUOTE) inString = true;
    else if (b === LBRACE || b === LBRACKET) {
      if (++depth > st.maxDepth) {
        st.deep = i - 1;
        break;
      }
      if (stack) stack.push(b);
    } else if (b === RBRACE || b === RBRACKET) {
      if (stack && stack.pop() !== (b === RBRACE ? LBRACE : LBRACKET)) {
        st.bad = i - 1;
        break;
      }
      if (--depth === 0) {
        end = i;
        break;
      }
    } else if (b === NL) line++;
  }
  st.depth = depth;
  st.inString = inString;
  st.escaped = escaped;
  st.line = line;
  return end;
}

export class JsonPathScanner {
  private state = VALUE;
  private base = 0; // offset of the current chunk's first byte
  private next = 0; // offset just past the bytes written so far
  private lineNo = 1;
  private readonly frames: number[] = [];
  private readonly path: (string | number)[] = [];
  // The value (or key) being read: where it began, and the earlier chunks' bytes of it when kept.
  private start = -1;
  private startLine = 1;
  private take: Take = 'skip';
  private kind: ValueKind = 'scalar';
  private held: Buffer[] = [];
  private readonly scan: ValueScan = { depth: 0, inString: false, escaped: false, line: 1, stack: null, bad: -1, maxDepth: MAX_VALUE_DEPTH, deep: -1 };
  private keyEscaped = false;

  constructor(
    private readonly visitor: JsonVisitor,
    private readonly opts: JsonScanOptions = {},
  ) {}

  /** The line the scanner has reached. */
  get line(): number {
    return this.lineNo;
  }

  /** Bytes read so far. */
  get offset(): number {
    return this.next;
  }

  /**
   * Reads the next chunk. Answers -1, or, with `after: 'stop'`, the index in this chunk just past the
   * top-level value once it has ended (nothing of the chunk after it is read).
   */
  write(buf: Buffer): number {
    this.base = this.next;
    this.next += buf.length;
    const n = buf.length;
    let i = 0;
    while (i < n) {
      const state = this.state;
      if (state === IN_VALUE) {
        i = this.readValue(buf, i, n);
        continue;
      }
      if (state === IN_KEY) {
        i = this.readKey(buf, i, n);
        continue;
      }
      if (state === DONE && this.opts.after === 'stop') return i;
      const b = buf[i];
      if (isSpace(b)) {
        if (b === NL) this.lineNo++;
        i++;
        continue;
      }
      switch (state) {
        case VALUE:
        case FIRST_ELEMENT:
          if (state === FIRST_ELEMENT && b === RBRACKET) {
            this.close(ARR, b, i);
            i++;
          } else if (this.frames.length === 0 && this.base + i < 3 && (b === 0xef || b === 0xbb || b === 0xbf)) i++; // a BOM
          else i = this.begin(buf, i, b);
          break;
        case FIRST_KEY:
        case KEY:
          if (b === QUOTE) {
            this.start = this.base + i;
            this.keyEscaped = false;
            this.state = IN_KEY;
            i++;
          } else if (state === FIRST_KEY && b === RBRACE) {
            this.close(OBJ, b, i);
            i++;
          } else this.fail(i, `expected a key (a string) ${state === KEY ? 'after ","' : 'or "}"'}, found ${show(b)}`);
          break;
        case COLON_DUE:
          if (b !== COLON) this.fail(i, `expected ":" after the key, found ${show(b)}`);
          this.state = VALUE;
          i++;
          break;
        case AFTER: {
          const top = this.frames[this.frames.length - 1];
          if (b === COMMA) {
            if (top === ARR) {
              (this.path[this.path.length - 1] as number)++;
              this.state = VALUE;
            } else this.state = KEY;
          } else if (b === (top === ARR ? RBRACKET : RBRACE)) this.close(top, b, i);
          else this.fail(i, `expected "," or "${top === ARR ? ']' : '}'}", found ${show(b)}`);
          i++;
          break;
        }
        case DONE:
          this.fail(i, `unexpected ${show(b)} after the end of the JSON document`, []);
      }
    }
    // Keep the unread part of a value (or key) that goes on into the next chunk.
    if (this.state === IN_KEY || (this.state === IN_VALUE && (this.take !== 'skip' || this.kind === 'scalar'))) {
      this.held.push(this.start >= this.base ? buf.subarray(this.start - this.base) : buf);
    }
    return this.state === DONE && this.opts.after === 'stop' ? n : -1;
  }

  /** The stream has ended: throws unless the top-level value is complete. */
  end(): void {
    if (this.state === IN_VALUE && this.kind === 'scalar' && this.frames.length === 0) {
      this.finishValue(Buffer.concat(this.held));
      this.afterValue();
    }
    if (this.state === DONE) return;
    const at = this.next;
    if (this.state === VALUE && this.frames.length === 0) throw new JsonScanError(at, this.lineNo, 'no JSON value: the file is empty or only whitespace', '');
    const inValue = this.state === IN_VALUE || this.state === IN_KEY;
    const where = pathText(this.state === IN_KEY ? this.path.slice(0, -1) : this.path);
    const what = this.state === IN_KEY || (inValue && this.scan.inString) ? 'inside a string' : `${this.frames.length + (inValue && this.kind !== 'scalar' ? 1 : 0)} bracket(s) still open`;
    throw new JsonScanError(at, this.lineNo, `the JSON ends early (${what})${where ? ` in ${where}` : ''}: the file is truncated`, where);
  }

  private fail(i: number, message: string, path: JsonPath = this.path): never {
    const where = pathText(path);
    throw new JsonScanError(this.base + i, this.lineNo, `${message}${where ? ` (in ${where})` : ''}`, where);
  }

  /** A value starts at buf[i] = b. */
  private begin(buf: Buffer, i: number, b: number): number {
    const kind: ValueKind = b === LBRACE ? 'object' : b === LBRACKET ? 'array' : b === QUOTE ? 'string' : 'scalar';
    if (kind === 'scalar' && !(b === 0x2d || (b >= 0x30 && b <= 0x39) || b === 0x74 || b === 0x66 || b === 0x6e)) {
      this.fail(i, `expected a value, found ${show(b)}`);
    }
    let take = this.visitor.enter(this.path, kind);
    if (take === 'walk') {
      if (kind === 'object' || kind === 'array') {
        this.frames.push(kind === 'object' ? OBJ : ARR);
        this.path.push(kind === 'object' ? '' : 0);
        this.state = kind === 'object' ? FIRST_KEY : FIRST_ELEMENT;
        return i + 1;
      }
      take = 'parse';
    }
    this.start = this.base + i;
    this.startLine = this.lineNo;
    this.take = take;
    this.kind = kind;
    this.held = [];
    this.state = IN_VALUE;
    const st = this.scan;
    st.depth = kind === 'string' ? 0 : 1;
    st.inString = kind === 'string';
    st.escaped = false;
    st.line = this.lineNo;
    st.bad = -1;
    st.deep = -1;
    st.maxDepth = take === 'skip' ? Infinity : MAX_VALUE_DEPTH;
    st.stack = take !== 'parse' && kind !== 'string' ? [b] : null;
    return kind === 'scalar' ? i : i + 1;
  }

  private readValue(buf: Buffer, i: number, n: number): number {
    let end: number;
    if (this.kind === 'scalar') {
      end = i;
      while (end < n && !isDelimiter(buf[end])) end++;
      if (end === n) return n;
    } else {
      const st = this.scan;
      end = scanValue(buf, i, n, st);
      this.lineNo = st.line;
      if (st.bad >= 0) this.fail(st.bad, `${show(buf[st.bad])} does not match the open bracket`);
      if (st.deep >= 0) this.fail(st.deep, `a value nested deeper than ${MAX_VALUE_DEPTH} levels: refused`);
      if (end < 0) return n;
    }
    if (this.take !== 'skip' || this.kind === 'scalar') {
      const own = this.start >= this.base;
      this.finishValue(own ? buf.subarray(this.start - this.base, end) : Buffer.concat([...this.held, buf.subarray(0, end)]));
    }
    this.held = [];
    this.afterValue();
    return end;
  }

  private finishValue(bytes: Buffer): void {
    const at = { offset: this.start, line: this.startLine };
    const text = bytes.toString('utf8');
    if (this.take === 'text') this.visitor.text?.(this.path, text, at);
    else {
      const value = parseAt(text, at, this.path);
      if (this.take === 'parse') this.visitor.value?.(this.path, value, at);
    }
  }

  private readKey(buf: Buffer, i: number, n: number): number {
    let escaped = this.keyEscaped;
    let end = -1;
    for (; i < n; i++) {
      const b = buf[i];
      if (escaped) escaped = false;
      else if (b === BACKSLASH) escaped = true;
      else if (b === QUOTE) {
        end = i + 1;
        break;
      }
    }
    this.keyEscaped = escaped;
    if (end < 0) return n;
    const own = this.start >= this.base;
    const bytes = own ? buf.subarray(this.start - this.base, end) : Buffer.concat([...this.held, buf.subarray(0, end)]);
    this.held = [];
    this.path[this.path.length - 1] = parseAt(bytes.toString('utf8'), { offset: this.start, line: this.lineNo }, this.path.slice(0, -1)) as string;
    this.state = COLON_DUE;
    return end;
  }

  private close(kind: number, b: number, i: number): void {
    if (this.frames[this.frames.length - 1] !== kind) this.fail(i, `${show(b)} does not match the open bracket`);
    this.frames.pop();
    this.path.pop();
    this.visitor.leave?.(this.path);
    this.afterValue();
  }

  private afterValue(): void {
    this.state = this.frames.length ? AFTER : DONE;
  }
}

/** Scans a whole stream as one JSON document (only whitespace after it). */
export async function scanJson(src: AsyncIterable<Buffer>, visitor: JsonVisitor): Promise<void> {
  const scanner = new JsonPathScanner(visitor);
  for await (const chunk of src) scanner.write(chunk);
  scanner.end();
}
