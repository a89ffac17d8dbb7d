// A byte scanner over a Chrome-trace JSON stream: it finds the `traceEvents` array (or a bare top-level
// array of events) and cuts it into batches of whole event objects, so a multi-gigabyte trace never
// becomes one string (V8 caps strings at 512 MiB). Top-level members other than `traceEvents` are small
// and come back parsed. Only string/escape state and bracket depth are tracked; JSON.parse does the rest.
//
// Work is linear in the input: new bytes are appended into spare room of a buffer that grows by
// doubling (concatenating the unfinished tail to every chunk made a 128 MB unclosed event take 35 s),
// and each byte is scanned once. What one value may hold open is capped (MAX_OPEN_BYTES), as is the
// nesting inside an event (MAX_DEPTH: JSON.parse would overflow its stack long before 100 k levels).
import { BACKSLASH, COLON, COMMA, LBRACE, LBRACKET, QUOTE, RBRACE, RBRACKET } from './json-bytes';

export type ScanItem =
  | { kind: 'events'; events: unknown[]; offset: number }
  | { kind: 'key'; key: string; value: unknown; raw: string; offset: number }
  /**
   * The input ended before the trace closed, after its events had begun: every complete event before it was
   * handed out (the Trace Event Format makes the array's closing `]` optional, and a profiler killed while
   * writing leaves such a file). `inEvents`: it ended inside the events, else among the members after them.
   * Always the last item.
   */
  | { kind: 'truncated'; offset: number; inEvents: boolean };

export class ScanError extends Error {
  constructor(readonly offset: number, message: string, readonly key?: string) {
    super(message);
    this.name = 'ScanError';
  }
}

export interface ScanOptions {
  /** Skip parsing the events (a pass that only wants the top-level keys). */
  skipEvents?: boolean;
  /** Largest batch of event text handed to one JSON.parse. */
  batchBytes?: number;
  /** Largest single event, key or top-level value (default MAX_OPEN_BYTES). */
  maxOpenBytes?: number;
}

/** No trace event or top-level member comes near this; a value still open past it is refused. */
export const MAX_OPEN_BYTES = 64 * 2 ** 20;
/** Nesting inside one event (Kineto events are 2–4 deep). */
export const MAX_DEPTH = 512;

/**
 * Bytes not yet consumed, in one Buffer whose spare room takes the next chunk: appending is a copy of the
 * chunk alone, and the backing store doubles when full, so holding a long unfinished value costs linear time.
 */
class Pending {
  private store: Buffer = Buffer.alloc(0);
  /** Whether `store` is ours to write into (else it is a caller's chunk, read only). */
  private owned = false;
  private start = 0;
  private end = 0;

  /** The pending bytes (a view, valid until the next append or drop). */
  view(): Buffer {
    return this.store.subarray(this.start, this.end);
  }

  append(chunk: Buffer): void {
    const len = this.end - this.start;
    if (len === 0) {
      // Nothing held: the chunk itself is the buffer (no copy on the usual path).
      this.store = chunk;
      this.owned = false;
      this.start = 0;
      this.end = chunk.length;
      return;
    }
    const need = len + chunk.length;
    if (!this.owned || this.end + chunk.length > this.store.length) {
      if (this.owned && need <= this.store.length / 2) {
        this.store.copyWithin(0, this.start, this.end);
      } else {
        const grown = Buffer.allocUnsafe(Math.max(1 << 16, 2 * need));
        this.store.copy(grown, 0, this.start, this.end);
        this.store = grown;
        this.owned = true;
      }
      this.start = 0;
      this.end = len;
    }
    chunk.copy(this.store, this.end);
    this.end += chunk.length;
  }

  drop(n: number): void {
    this.start += n;
    if (this.start >= this.end) {
      this.store = Buffer.alloc(0);
      this.owned = false;
      this.start = this.end = 0;
    }
  }
}

const isSpace = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;

type Mode =
  | 'start' // before the top-level value
  | 'member' // inside the top object, expecting a key, ',' or '}'
  | 'key' // inside a key string
  | 'colon' // after a key
  | 'value' // before a member's value
  | 'capture' // inside a member's (non-traceEvents) value
  | 'events' // inside the events array
  | 'done'; // after the top-level value

export async function* scanChromeTrace(src: AsyncIterable<Buffer>, opts: ScanOptions = {}): AsyncGenerator<ScanItem> {
  const batchBytes = opts.batchBytes ?? 1 << 20;
  const maxOpen = opts.maxOpenBytes ?? MAX_OPEN_BYTES;
  let mode: Mode = 'start';
  const pending = new Pending();
  let buf: Buffer = Buffer.alloc(0);
  let base = 0; // absolute offset of buf[0]
  let depth = 0; // depth relative to the current capture (value or event)
  let inString = false;
  let escaped = false;
  let key = '';
  let keyStart = -1;
  let captureStart = -1;
  let eventStart = -1; // start of the event being read
  let batchStart = -1; // start of the first event not yet handed out
  let batchEnd = -1; // end of the last complete event
  let bareArray = false;
  let sawEvents = false;
  // Whether whole lines may go straight to JSON.parse (see linesBatch); off after LINE_MISSES misses.
  let byLines = !opts.skipEvents;
  let misses = 0;

  const parseBatch = (from: number, to: number): unknown[] => {
    const text = buf.toString('utf8', from, to);
    try {
      return JSON.parse(`[${text}]`) as unknown[];
    } catch {
      // Find the culprit for the message: parse events one by one.
      const events = splitEvents(buf, from, to);
      for (const [a, b] of events) {
        try {
          JSON.parse(buf.toString('utf8', a, b));
        } catch (e) {
          throw new ScanError(base + a, `malformed trace event: ${(e as Error).message}`, 'traceEvents');
        }
      }
      throw new ScanError(base + from, 'malformed trace events', 'traceEvents');
    }
  };

  const takeBatch = (): ScanItem | null => {
    if (batchStart < 0 || batchEnd <= batchStart) return null;
    const item: ScanItem = { kind: 'events', events: opts.skipEvents ? [] : parseBatch(batchStart, batchEnd), offset: base + batchStart };
    // An event cut by the chunk's end opens the next batch.
    batchStart = eventStart;
    batchEnd = -1;
    return item;
  };

  for await (const chunk of src) {
    pending.append(chunk);
    buf = pending.view();
    let i = buf.length - chunk.length;
    const n = buf.length;
    if (mode === 'events' && byLines) {
      const cut = linesBatch(buf, eventStart >= 0 ? eventStart : i, i, n, batchBytes);
      if (cut === null) byLines = ++misses < LINE_MISSES;
      else if (cut) {
        yield { kind: 'events', events: cut.events, offset: base + cut.start };
        depth = 0;
        inString = false;
        escaped = false;
        eventStart = batchStart = batchEnd = -1;
        i = cut.end;
      }
    }
    while (i < n) {
      if (mode === 'events') {
        // The hot loop runs in a plain function over locals (generator state is slow to touch per byte).
        const st: EventScanState = { depth, inString, escaped, eventStart, batchStart, batchEnd, closed: false, full: false };
        i = scanEvents(buf, i, n, st, batchBytes, base);
        ({ depth, inString, escaped, eventStart, batchStart, batchEnd } = st);
        if (st.full) {
          const item = takeBatch();
          if (item) yield item;
          continue;
        }
        if (st.closed) {
          const item = takeBatch();
          if (item) yield item;
          mode = bareArray ? 'done' : 'member';
        }
        continue;
      }

      const b = buf[i];
      switch (mode) {
        case 'start':
          if (b === LBRACE) mode = 'member';
          else if (b === LBRACKET) {
            mode = 'events';
            bareArray = true;
            sawEvents = true;
          } else if (!isSpace(b) && !(b === 0xef || b === 0xbb || b === 0xbf)) {
            throw new ScanError(base + i, 'not a JSON trace: expected "{" or "["');
          }
          i++;
          break;
        case 'member':
          if (b === QUOTE) {
            mode = 'key';
            keyStart = i;
            inString = true;
            escaped = false;
          } else if (b === RBRACE) mode = 'done';
          else if (b !== COMMA && !isSpace(b)) throw new ScanError(base + i, `unexpected ${JSON.stringify(String.fromCharCode(b))} between top-level members`);
          i++;
          break;
        case 'key':
          if (escaped) escaped = false;
          else if (b === BACKSLASH) escaped = true;
          else if (b === QUOTE) {
            inString = false;
            try {
              key = JSON.parse(buf.toString('utf8', keyStart, i + 1)) as string;
            } catch (e) {
              throw new ScanError(base + keyStart, `malformed key: ${(e as Error).message.replace(/ in JSON at position \d+.*$/, '')}`);
            }
            keyStart = -1;
            mode = 'colon';
          }
          i++;
          break;
        case 'colon':
          if (b === COLON) mode = 'value';
          else if (!isSpace(b)) throw new ScanError(base + i, `expected ":" after key`, key);
          i++;
          break;
        case 'value':
          if (isSpace(b)) {
            i++;
            break;
          }
          if (key === 'traceEvents' && b === LBRACKET) {
            mode = 'events';
            sawEvents = true;
            depth = 0;
            i++;
            break;
          }
          mode = 'capture';
          captureStart = i;
          depth = 0;
          inString = false;
          escaped = false;
          break;
        case 'capture':
          if (inString) {
            if (escaped) escaped = false;
            else if (b === BACKSLASH) escaped = true;
            else if (b === QUOTE) inString = false;
          } else if (b === QUOTE) inString = true;
          else if (b === LBRACE || b === LBRACKET) {
            if (++depth > MAX_DEPTH) throw new ScanError(base + i, `a value nested deeper than ${MAX_DEPTH} levels: refused`, key);
          } else if ((b === RBRACE || b === RBRACKET) && depth > 0) depth--;
          else if (depth === 0 && (b === COMMA || b === RBRACE)) {
            const text = buf.toString('utf8', captureStart, i).trim();
            let value: unknown;
            try {
              value = JSON.parse(text);
            } catch (e) {
              throw new ScanError(base + captureStart, `malformed value: ${(e as Error).message}`, key);
            }
            yield { kind: 'key', key, value, raw: text, offset: base + captureStart };
            captureStart = -1;
            mode = b === RBRACE ? 'done' : 'member';
          }
          i++;
          break;
        case 'done':
          if (!isSpace(b)) throw new ScanError(base + i, 'unexpected data after the end of the trace');
          i++;
          break;
      }
    }

    // Hand out what is complete; keep only the unfinished tail.
    if (mode === 'events') {
      const item = takeBatch();
      if (item) yield item;
    }
    const keep = Math.min(...[eventStart, captureStart, keyStart].filter((x) => x >= 0), n);
    if (n - keep > maxOpen) {
      const what = eventStart >= 0 ? 'a trace event' : captureStart >= 0 ? 'the value' : 'a key';
      throw new ScanError(base + keep, `${what} longer than ${maxOpen / 2 ** 20} MiB is still open: refused (a trace event is a few hundred bytes; the file is damaged or hostile)`, eventStart >= 0 ? 'traceEvents' : key || undefined);
    }
    if (keep > 0) {
      pending.drop(keep);
      buf = buf.subarray(keep);
      base += keep;
      if (eventStart >= 0) eventStart -= keep;
      if (batchStart >= 0) batchStart -= keep;
      if (captureStart >= 0) captureStart -= keep;
      if (keyStart >= 0) keyStart -= keep;
    }
  }

  if ((mode as Mode) !== 'done') {
    const where = base + buf.length;
    if (mode === 'events' || sawEvents) {
      yield { kind: 'truncated', offset: where, inEvents: mode === 'events' };
      return;
    }
    if (mode === 'start') throw new ScanError(where, 'empty trace');
    throw new ScanError(where, 'truncated trace: the top-level object is not closed', key || undefined);
  }
  if (!sawEvents) throw new ScanError(0, 'no traceEvents array', 'traceEvents');
}

interface EventScanState {
  depth: number;
  inString: boolean;
  escaped: boolean;
  eventStart: number;
  batchStart: number;
  batchEnd: number;
  /** The events array's closing bracket was consumed. */
  closed: boolean;
  /** The batch reached batchBytes: hand it out before going on. */
  full: boolean;
}

/** Scans events from buf[i] on; answers where it stopped (chunk end, array end or a full batch). */
function scanEvents(buf: Buffer, i: number, n: number, st: EventScanState, batchBytes: number, base: number): number {
  let { depth, inString, escaped, eventStart, batchStart, batchEnd } = st;
  let stop = false;
  while (i < n && !stop) {
    const b = buf[i++];
    if (inString) {
      if (escaped) escaped = false;
      else if (b === BACKSLASH) escaped = true;
      else if (b === QUOTE) inString = false;
    } else if (depth === 0) {
      if (b === LBRACE) {
        eventStart = i - 1;
        if (batchStart < 0) batchStart = eventStart;
        depth = 1;
      } else if (b === RBRACKET) {
        st.closed = true;
        stop = true;
      } else if (b !== COMMA && !isSpace(b)) {
        throw new ScanError(base + i - 1, `expected an event object in traceEvents, found ${JSON.stringify(String.fromCharCode(b))}`, 'traceEvents');
      }
    } else if (b === QUOTE) inString = true;
    else if (b === LBRACE || b === LBRACKET) {
      if (++depth > MAX_DEPTH) throw new ScanError(base + i - 1, `a trace event nested deeper than ${MAX_DEPTH} levels: refused`, 'traceEvents');
    } else if (b === RBRACE || b === RBRACKET) {
      depth--;
      if (depth === 0) {
        batchEnd = i;
        eventStart = -1;
        if (batchEnd - batchStart >= batchBytes) {
          st.full = true;
          stop = true;
        }
      }
    }
  }
  Object.assign(st, { depth, inString, escaped, eventStart, batchStart, batchEnd });
  return i;
}

/** Misses of the line fast path (see linesBatch) after which a trace is left to the byte scanner. */
const LINE_MISSES = 4;

/**
 * The fast path for the usual layouts, one event a line or one event over several indented lines
 * (Kineto's own): from `from` (between events) to the chunk's last newline that is followed by
 * blanks and a "{" (where an event starts in both layouts; a newline is never inside a string, JSON
 * escapes it), one JSON.parse. It counts only if that text is a comma-separated run of objects, so
 * the array's end, a cut event (a nested object that starts a line), extra commas or a non-object all
 * fall back to the byte scanner, which reads (and reports) exactly as before. Answers the events,
 * where they start and where scanning goes on; undefined when there is nothing to try, null when the
 * text was not such a run.
 */
function linesBatch(buf: Buffer, from: number, fresh: number, n: number, batchBytes: number): { events: unknown[]; start: number; end: number } | null | undefined {
  // Only the new chunk is searched: a newline before it was seen by an earlier call (or is past
  // batchBytes from `from`), and searching back through a long open event would be quadratic.
  const lo = Math.max(from, fresh);
  if (lo - from > batchBytes) return undefined;
  let nl = -1;
  for (let at = n - 1; at >= lo; at--) {
    at = buf.lastIndexOf(0x0a, at);
    if (at < lo) break;
    let k = at + 1;
    while (k < n && (buf[k] === 0x20 || buf[k] === 0x09 || buf[k] === 0x0d)) k++;
    if (k < n && buf[k] === LBRACE) {
      nl = at;
      break;
    }
  }
  if (nl <= from || nl - from > batchBytes) return undefined;
  let a = from;
  while (a < nl && isSpace(buf[a])) a++;
  if (buf[a] === COMMA) a++;
  while (a < nl && isSpace(buf[a])) a++;
  let b = nl;
  while (b > a && isSpace(buf[b - 1])) b--;
  if (b > a && buf[b - 1] === COMMA) b--;
  if (b <= a) return undefined;
  if (buf[a] !== LBRACE || buf[b - 1] !== RBRACE) return null;
  let events: unknown[];
  try {
    events = JSON.parse(`[${buf.toString('utf8', a, b)}]`) as unknown[];
  } catch {
    return null;
  }
  for (const e of events) if (e === null || typeof e !== 'object' || Array.isArray(e)) return null;
  return { events, start: a, end: nl + 1 };
}

/** Start/end of each top-level object in buf[from, to) (events separated by commas). */
function splitEvents(buf: Buffer, from: number, to: number): [number, number][] {
  const out: [number, number][] = [];
  let depth = 0;
  let inString = false;
  let escaped = false;
  let start = -1;
  for (let i = from; i < to; i++) {
    const b = buf[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (b === BACKSLASH) escaped = true;
      else if (b === QUOTE) inString = false;
    } else if (b === QUOTE) inString = true;
    else if (b === LBRACE || b === LBRACKET) {
      if (depth === 0) start = i;
      depth++;
    } else if (b === RBRACE || b === RBRACKET) {
      depth--;
      if (depth === 0) out.push([start, i + 1]);
    }
  }
  return out;
}
