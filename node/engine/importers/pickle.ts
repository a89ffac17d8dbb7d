// A safe unpickler for plain data (protocols 0–5): dicts, lists, tuples, sets, strings, bytes, ints
// (BigInt above 2^53), floats, booleans and None. It never imports or calls anything: every opcode that
// would look up a global or construct an object is refused with its name and byte offset.
//
// Values: dict → plain object (keys in their string form; `__proto__` stays an own data key), list/tuple/set → array,
// bytes → Buffer, int → number (bigint when outside ±2^53), None → null.
import { groupDigits } from '../../../common/format';

export type PyValue = null | boolean | number | bigint | string | Buffer | PyValue[] | PyDict;
export interface PyDict {
  [key: string]: PyValue;
}

export class PickleError extends Error {
  constructor(readonly offset: number, message: string, readonly opcode?: string) {
    super(`${message} (byte ${offset})`);
    this.name = 'PickleError';
  }
}

/** Opcodes that would run code or build objects, by byte. */
const REFUSED: Record<number, string> = {
  0x63: 'GLOBAL',
  0x93: 'STACK_GLOBAL',
  0x52: 'REDUCE',
  0x62: 'BUILD',
  0x69: 'INST',
  0x6f: 'OBJ',
  0x81: 'NEWOBJ',
  0x92: 'NEWOBJ_EX',
  0x50: 'PERSID',
  0x51: 'BINPERSID',
  0x82: 'EXT1',
  0x83: 'EXT2',
  0x84: 'EXT4',
  0x97: 'NEXT_BUFFER',
  0x98: 'READONLY_BUFFER',
};

const MARK = Symbol('mark');
type Slot = PyValue | typeof MARK;

/**
 * A dict's object. Made with `new` so V8 gives it room for its first properties inside the object (a `{}`
 * literal has four; a trace entry's fifth and sixth went to a separate array, one more allocation an
 * entry); its prototype is Object.prototype, so it is a plain object in every other respect.
 */
const NewDict = function (this: PyDict) {} as unknown as new () => PyDict;
NewDict.prototype = Object.prototype;

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** Binary integers (LONG1/LONG4) longer than this are refused: no plain data holds a 8-million-bit number. */
export const MAX_LONG_BYTES = 2 ** 20;

/**
 * A little-endian two's-complement integer. Read through one hex string, which BigInt parses in linear
 * time (shifting a BigInt a byte at a time was quadratic: 256 KiB took a minute).
 */
function intFromLE(buf: Buffer, at: number, n: number): number | bigint {
  if (n === 0) return 0;
  if (n <= 6) {
    let v = 0;
    for (let i = n - 1; i >= 0; i--) v = v * 256 + buf[at + i];
    return buf[at + n - 1] & 0x80 ? v - 2 ** (8 * n) : v;
  }
  // Seven or eight bytes of a positive number below 2^53 (epoch µs, addresses): exact as a double.
  if (n <= 8 && !(buf[at + n - 1] & 0x80)) {
    let hi = 0;
    for (let i = n - 1; i >= 4; i--) hi = hi * 256 + buf[at + i];
    if (hi < 2 ** 21) return hi * 2 ** 32 + buf.readUInt32LE(at);
  }
  let v = BigInt(`0x${Buffer.from(buf.subarray(at, at + n)).reverse().toString('hex')}`);
  if (buf[at + n - 1] & 0x80) v -= 1n << BigInt(8 * n);
  return v <= MAX_SAFE && v >= -MAX_SAFE ? Number(v) : v;
}

/**
 * The argument of protocol 0's STRING opcode: a Python repr, quoted with ' or ", whose backslash escapes
 * (\\n, \\xhh, octal \\ooo, …) give bytes; those bytes are read as Latin-1, as for BINSTRING.
 */
function stringArg(s: string, at: number): string {
  const q = s[0];
  if (s.length < 2 || (q !== "'" && q !== '"') || s[s.length - 1] !== q) throw new PickleError(at, 'the STRING opcode argument must be quoted', 'STRING');
  const body = s.slice(1, -1);
  if (!body.includes('\\')) return body;
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c !== '\\' || i + 1 >= body.length) {
      out += c;
      continue;
    }
    const e = body[++i];
    const simple = ESCAPES[e];
    if (simple !== undefined) out += simple;
    else if (e === 'x') {
      const h = body.slice(i + 1, i + 3);
      if (!/^[0-9a-fA-F]{2}$/.test(h)) throw new PickleError(at, `invalid \\x escape in STRING: ${JSON.stringify(body.slice(i - 1, i + 3))}`, 'STRING');
      out += String.fromCharCode(parseInt(h, 16));
      i += 2;
    } else if (e >= '0' && e <= '7') {
      let j = i;
      while (j < i + 3 && j < body.length && body[j] >= '0' && body[j] <= '7') j++;
      out += String.fromCharCode(parseInt(body.slice(i, j), 8) & 0xff);
      i = j - 1;
    } else out += `\\${e}`;
  }
  return out;
}

const ESCAPES: Record<string, string> = { '\\': '\\', "'": "'", '"': '"', n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', f: '\f', v: '\v', '\n': '' };

/**
 * Memo fan-out: a memo GET of a container hands out every item in it again, so a few bytes can stand for
 * any number of items (a list of 3,000 references to one 3,000-entry trace is 12 KB and 9 M entries).
 * The items handed out by GETs of containers — plus items added later to a container already fetched,
 * once per fetch — may reach FANOUT_BASE + FANOUT_PER_BYTE × the pickle's size. Real snapshots share
 * frame lists (a few hundred frames, referenced by entries of tens of bytes): far below this.
 */
export const FANOUT_BASE = 4_000_000;
export const FANOUT_PER_BYTE = 64;

export interface UnpickleOptions {
  /** Overrides the memo fan-out budget (items). */
  maxFanout?: number;
  /** Filled with each container fetched by a memo GET and the byte offset of its first fetch. */
  shared?: Map<object, number>;
  /**
   * Offered the items of each APPEND and APPENDS before they go into their list; returning true takes
   * them: they stay out of the list, and the memo forgets those it stored (a later memo GET of one throws
   * TakenItemError). A caller that reads items as they arrive keeps none of them: the 1 M entry dicts
   * of a memory snapshot's trace were a quarter of its import in the scavenger, and most of its memory.
   */
  take?: (list: PyValue[], items: PyValue[]) => boolean;
}

/** A memo GET of an item that was taken (UnpickleOptions.take): the caller reads the pickle again without taking. */
export class TakenItemError extends PickleError {
  constructor(offset: number, slot: number, opcode: string) {
    super(offset, `memo key ${slot} names an item already read out of its list`, opcode);
    this.name = 'TakenItemError';
  }
}

/** What a memo slot holds once the item it stored was taken (UnpickleOptions.take). */
const TAKEN: PyDict = Object.freeze({}) as PyDict;

/** Python's own cap on int/str conversion (sys.int_info.str_digits_check_threshold): parsing is quadratic. */
export const MAX_TEXT_INT_DIGITS = 4300;

function textInt(s: string, at: number): number | bigint {
  const t = s.trim().replace(/L$/, '');
  if (t.length > MAX_TEXT_INT_DIGITS) throw new PickleError(at, `integer of ${t.length} digits is longer than ${MAX_TEXT_INT_DIGITS}`, 'INT');
  if (!/^[+-]?\d+$/.test(t)) throw new PickleError(at, `not an integer: ${JSON.stringify(t.slice(0, 40))}`, 'INT');
  const v = BigInt(t);
  return v <= MAX_SAFE && v >= -MAX_SAFE ? Number(v) : v;
}

export function unpickle(buf: Buffer, opts: UnpickleOptions = {}): PyValue {
  const stack: Slot[] = [];
  const marks: number[] = [];
  const memo: PyValue[] = [];
  let pos = 0;
  let op = 0;
  let opAt = 0;
  const maxFanout = opts.maxFanout ?? FANOUT_BASE + FANOUT_PER_BYTE * buf.length;
  let fanout = 0;
  /** Containers fetched from the memo → how many times. */
  const fetched = new Map<object, number>();
  const sharedAt = opts.shared;
  const take = opts.take;
  /**
   * Per stack position, the memo slot that stored the container there and the container (a slot is
   * forgotten only while it still holds that item): what lets a taken item leave the memo.
   */
  const putSlot: number[] = [];
  const putItem: PyValue[] = [];
  const spend = (items: number, what: string) => {
    fanout += items;
    if (fanout > maxFanout) {
      throw new PickleError(
        opAt,
        `memo references repeat more than ${groupDigits(maxFanout)} items (${what}) from ${groupDigits(buf.length)} bytes: refused as amplifying input (a pickle that expands itself by repeated references)`,
        opName(op),
      );
    }
  };
  const fetch = (v: PyValue): PyValue => {
    if (v !== null && typeof v === 'object' && !Buffer.isBuffer(v)) {
      const n = Array.isArray(v) ? v.length : countKeys(v);
      fetched.set(v, (fetched.get(v) ?? 0) + 1);
      if (sharedAt && !sharedAt.has(v)) sharedAt.set(v, opAt);
      if (n) spend(n, `a container of ${n} items fetched again`);
    }
    return v;
  };
  /** Items added to a container that memo GETs already handed out count once per fetch. */
  const grow = (c: PyValue, items: number) => {
    if (fetched.size === 0 || c === null || typeof c !== 'object') return;
    const k = fetched.get(c);
    if (k) spend(k * items, `items added to a container already fetched ${k} times`);
  };

  const need = (n: number) => {
    if (pos + n > buf.length) throw new PickleError(opAt, `truncated pickle: ${opName(op)} needs ${n} more bytes`, opName(op));
  };
  const u8 = () => (need(1), buf[pos++]);
  const u16 = () => (need(2), (pos += 2), buf.readUInt16LE(pos - 2));
  const u32 = () => (need(4), (pos += 4), buf.readUInt32LE(pos - 4));
  const u64 = () => {
    need(8);
    const v = buf.readBigUInt64LE(pos);
    pos += 8;
    if (v > MAX_SAFE) throw new PickleError(opAt, `length ${v} is too large`, opName(op));
    return Number(v);
  };
  const bytes = (n: number) => {
    need(n);
    pos += n;
    return buf.subarray(pos - n, pos);
  };
  const line = () => {
    const end = buf.indexOf(0x0a, pos);
    if (end < 0) throw new PickleError(opAt, 'truncated pickle: missing newline', opName(op));
    const s = buf.toString('latin1', pos, end);
    pos = end + 1;
    return s;
  };
  const pop = (): PyValue => {
    if (stack.length === 0 || (marks.length && stack.length <= marks[marks.length - 1] + 1)) throw new PickleError(opAt, 'stack underflow', opName(op));
    return stack.pop() as PyValue;
  };
  const top = (): PyValue => {
    if (stack.length === 0) throw new PickleError(opAt, 'stack underflow', opName(op));
    const v = stack[stack.length - 1];
    if (v === MARK) throw new PickleError(opAt, 'MARK where a value was expected', opName(op));
    return v;
  };
  const popMark = (): PyValue[] => {
    const m = marks.pop();
    if (m === undefined) throw new PickleError(opAt, 'no MARK on the stack', opName(op));
    return stack.splice(m).slice(1) as PyValue[];
  };
  // Text PUT/GET carry the key as a line: only a plain index may name a memo slot.
  const memoKey = () => {
    const t = line().trim();
    if (!/^\d{1,10}$/.test(t)) throw new PickleError(opAt, `bad memo key ${JSON.stringify(t.slice(0, 40))}`, opName(op));
    return Number(t);
  };
  const memoGet = (i: number) => {
    if (i >= memo.length || memo[i] === undefined) throw new PickleError(opAt, `memo key ${i} was never stored`, opName(op));
    if (memo[i] === TAKEN) throw new TakenItemError(opAt, i, opName(op));
    return fetch(memo[i]);
  };
  const put = (i: number) => {
    const v = top();
    memo[i] = v;
    if (take && v !== null && typeof v === 'object') {
      putSlot[stack.length - 1] = i;
      putItem[stack.length - 1] = v;
    }
  };
  /** Offers `items` of list `l`, which sat on the stack from position `from`, to `take`; true when taken. */
  const taken = (l: PyValue[], items: PyValue[], from: number): boolean => {
    if (!take || !take(l, items)) return false;
    for (let k = 0; k < items.length; k++) {
      const q = from + k;
      const v = items[k];
      if (v !== null && putItem[q] === v) {
        if (memo[putSlot[q]] === v) memo[putSlot[q]] = TAKEN;
        putItem[q] = null;
      }
    }
    return true;
  };
  const setItems = (d: PyValue, items: PyValue[]) => {
    if (!isDict(d)) throw new PickleError(opAt, 'SETITEM(S) on something that is not a dict', opName(op));
    grow(d, items.length >> 1);
    for (let i = 0; i + 1 < items.length; i += 2) {
      const k = keyOf(items[i], opAt);
      // A key named __proto__ must become data, not a prototype (plain objects stay fast; null-prototype ones do not).
      if (k === '__proto__') Object.defineProperty(d, k, { value: items[i + 1], enumerable: true, writable: true, configurable: true });
      else d[k] = items[i + 1];
    }
  };
  const appendItems = (l: PyValue, items: PyValue[]) => {
    if (!Array.isArray(l)) throw new PickleError(opAt, 'APPEND(S) on something that is not a list', opName(op));
    grow(l, items.length);
    for (const x of items) l.push(x);
  };
  /**
   * SETITEMS and APPENDS: the items above the last MARK go into the container below it, read in place
   * (popMark's two copies of them were most of a memory snapshot's garbage: one SETITEMS a trace entry).
   * The same checks and messages as popMark, top() and setItems / appendItems.
   */
  const intoBelowMark = (dict: boolean) => {
    const m = marks.pop();
    if (m === undefined) throw new PickleError(opAt, 'no MARK on the stack', opName(op));
    if (m === 0) throw new PickleError(opAt, 'stack underflow', opName(op));
    const c = stack[m - 1];
    if (c === MARK) throw new PickleError(opAt, 'MARK where a value was expected', opName(op));
    const n = stack.length - m - 1;
    if (dict) {
      if (!isDict(c as PyValue)) throw new PickleError(opAt, 'SETITEM(S) on something that is not a dict', opName(op));
      const d = c as PyDict;
      grow(d, n >> 1);
      for (let i = m + 1; i + 1 < stack.length; i += 2) {
        const k = keyOf(stack[i] as PyValue, opAt);
        if (k === '__proto__') Object.defineProperty(d, k, { value: stack[i + 1], enumerable: true, writable: true, configurable: true });
        else d[k] = stack[i + 1] as PyValue;
      }
    } else {
      if (!Array.isArray(c)) throw new PickleError(opAt, 'APPEND(S) on something that is not a list', opName(op));
      grow(c, n);
      if (!take || !taken(c, stack.slice(m + 1) as PyValue[], m + 1)) for (let i = m + 1; i < stack.length; i++) c.push(stack[i] as PyValue);
    }
    stack.length = m;
  };

  for (;;) {
    if (pos >= buf.length) throw new PickleError(pos, 'truncated pickle: no STOP opcode');
    opAt = pos;
    op = buf[pos++];
    switch (op) {
      case 0x80: {
        const proto = u8();
        if (proto > 5) throw new PickleError(opAt, `unsupported pickle protocol ${proto}`, 'PROTO');
        break;
      }
      case 0x95: // FRAME: a length hint only
        u64();
        break;
      case 0x2e: // STOP
        if (stack.length !== 1 || marks.length) throw new PickleError(opAt, 'STOP with an unbalanced stack', 'STOP');
        return stack[0] as PyValue;
      case 0x28: // MARK
        marks.push(stack.length);
        stack.push(MARK);
        break;
      case 0x30: // POP
        if (stack.length && stack[stack.length - 1] === MARK) {
          stack.pop();
          marks.pop();
        } else pop();
        break;
      case 0x31: // POP_MARK
        popMark();
        break;
      case 0x32: // DUP
        stack.push(fetch(top()));
        break;
      case 0x4e: // NONE
        stack.push(null);
        break;
      case 0x88:
        stack.push(true);
        break;
      case 0x89:
        stack.push(false);
        break;
      case 0x4a: // BININT
        need(4);
        stack.push(buf.readInt32LE(pos));
        pos += 4;
        break;
      case 0x4b: // BININT1
        stack.push(u8());
        break;
      case 0x4d: // BININT2
        stack.push(u16());
        break;
      case 0x8a: {
        const n = u8();
        need(n);
        stack.push(intFromLE(buf, pos, n));
        pos += n;
        break;
      }
      case 0x8b: {
        const n = u32();
        need(n);
        if (n > MAX_LONG_BYTES) throw new PickleError(opAt, `integer of ${n} bytes is longer than ${MAX_LONG_BYTES}`, 'LONG4');
        stack.push(intFromLE(buf, pos, n));
        pos += n;
        break;
      }
      case 0x49: {
        // INT (text): protocol 0 writes booleans as I01 / I00
        const s = line().trim();
        stack.push(s === '01' ? true : s === '00' ? false : textInt(s, opAt));
        break;
      }
      case 0x4c: // LONG (text)
        stack.push(textInt(line(), opAt));
        break;
      case 0x46: // FLOAT (text)
        stack.push(Number(line()));
        break;
      case 0x47: // BINFLOAT: big-endian double
        need(8);
        stack.push(buf.readDoubleBE(pos));
        pos += 8;
        break;
      case 0x8c: {
        const n = u8();
        stack.push(bytes(n).toString('utf8'));
        break;
      }
      case 0x58: {
        const n = u32();
        stack.push(bytes(n).toString('utf8'));
        break;
      }
      case 0x8d: {
        const n = u64();
        stack.push(bytes(n).toString('utf8'));
        break;
      }
      case 0x56: // UNICODE (text, raw-unicode-escape; plain text in practice)
        stack.push(line());
        break;
      case 0x53: // STRING (protocol 0: a quoted Python repr)
        stack.push(stringArg(line(), opAt));
        break;
      case 0x55: {
        // SHORT_BINSTRING (py2 str)
        const n = u8();
        stack.push(bytes(n).toString('latin1'));
        break;
      }
      case 0x54: {
        const n = u32();
        stack.push(bytes(n).toString('latin1'));
        break;
      }
      case 0x43: {
        const n = u8();
        stack.push(Buffer.from(bytes(n)));
        break;
      }
      case 0x42: {
        const n = u32();
        stack.push(Buffer.from(bytes(n)));
        break;
      }
      case 0x8e:
      case 0x96: {
        const n = u64();
        stack.push(Buffer.from(bytes(n)));
        break;
      }
      case 0x5d: // EMPTY_LIST
        stack.push([]);
        break;
      case 0x6c: // LIST
        stack.push(popMark());
        break;
      case 0x61: {
        // APPEND (Python's pickler writes a batch of one item this way)
        const v = pop();
        const l = top();
        if (take && Array.isArray(l)) {
          grow(l, 1);
          if (!taken(l, [v], stack.length)) l.push(v);
        } else appendItems(l, [v]);
        break;
      }
      case 0x65: // APPENDS
        intoBelowMark(false);
        break;
      case 0x29: // EMPTY_TUPLE
        stack.push([]);
        break;
      case 0x74: // TUPLE
        stack.push(popMark());
        break;
      case 0x85:
        stack.push([pop()]);
        break;
      case 0x86: {
        const b = pop();
        const a = pop();
        stack.push([a, b]);
        break;
      }
      case 0x87: {
        const c = pop();
        const b = pop();
        const a = pop();
        stack.push([a, b, c]);
        break;
      }
      case 0x7d: // EMPTY_DICT
        stack.push(new NewDict());
        break;
      case 0x64: {
        // DICT
        const d = new NewDict();
        setItems(d, popMark());
        stack.push(d);
        break;
      }
      case 0x73: {
        // SETITEM
        const v = pop();
        const k = pop();
        setItems(top(), [k, v]);
        break;
      }
      case 0x75: // SETITEMS
        intoBelowMark(true);
        break;
      case 0x8f: // EMPTY_SET
        stack.push([]);
        break;
      case 0x90: {
        // ADDITEMS
        const items = popMark();
        appendItems(top(), items);
        break;
      }
      case 0x91: // FROZENSET
        stack.push(popMark());
        break;
      case 0x94: // MEMOIZE
        put(memo.length);
        break;
      case 0x71: // BINPUT
        put(u8());
        break;
      case 0x72: // LONG_BINPUT
        put(u32());
        break;
      case 0x70: // PUT (text)
        put(memoKey());
        break;
      case 0x68: // BINGET
        stack.push(memoGet(u8()));
        break;
      case 0x6a: // LONG_BINGET
        stack.push(memoGet(u32()));
        break;
      case 0x67: // GET (text)
        stack.push(memoGet(memoKey()));
        break;
      default: {
        const refused = REFUSED[op];
        if (refused) throw new PickleError(opAt, `refused opcode ${refused}: this pickle would construct Python objects, and Quadscope reads plain data only`, refused);
        throw new PickleError(opAt, `unknown pickle opcode 0x${op.toString(16).padStart(2, '0')}`);
      }
    }
  }
}

function countKeys(d: object): number {
  let n = 0;
  for (const _ in d) n++;
  return n;
}

export function isDict(v: PyValue | undefined): v is PyDict {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !Buffer.isBuffer(v);
}

/**
 * A dict key as a JS property name. Tuples of scalars are legitimate keys (segment_pool_id); a nested
 * container is not, and would be expanded by stringifying (a list that holds itself twice, 30 levels
 * deep, is 250 bytes of pickle and 2^30 characters of text), so only one level of scalars is accepted.
 */
function keyOf(k: PyValue, at: number): string {
  if (typeof k === 'string') return k;
  if (Array.isArray(k)) {
    if (k.length > 64 || k.some((x) => x !== null && typeof x === 'object')) throw new PickleError(at, 'a dict key is a nested container (not a snapshot; possibly hostile)', 'SETITEM');
    return JSON.stringify(k.map((x) => (typeof x === 'bigint' ? x.toString() : x)));
  }
  if (k !== null && typeof k === 'object') throw new PickleError(at, 'a dict key is a container', 'SETITEM');
  return String(k);
}

const NAMES: Record<number, string> = {
  0x80: 'PROTO', 0x95: 'FRAME', 0x2e: 'STOP', 0x28: 'MARK', 0x4a: 'BININT', 0x4b: 'BININT1', 0x4d: 'BININT2', 0x8a: 'LONG1',
  0x8b: 'LONG4', 0x47: 'BINFLOAT', 0x8c: 'SHORT_BINUNICODE', 0x58: 'BINUNICODE', 0x8d: 'BINUNICODE8', 0x43: 'SHORT_BINBYTES',
  0x42: 'BINBYTES', 0x8e: 'BINBYTES8', 0x96: 'BYTEARRAY8', 0x55: 'SHORT_BINSTRING', 0x54: 'BINSTRING', 0x71: 'BINPUT',
  0x72: 'LONG_BINPUT', 0x68: 'BINGET', 0x6a: 'LONG_BINGET', 0x61: 'APPEND', 0x65: 'APPENDS', 0x73: 'SETITEM', 0x75: 'SETITEMS',
  0x6c: 'LIST', 0x74: 'TUPLE', 0x64: 'DICT', 0x85: 'TUPLE1', 0x86: 'TUPLE2', 0x87: 'TUPLE3', 0x30: 'POP', 0x31: 'POP_MARK', 0x32: 'DUP',
  0x53: 'STRING', 0x56: 'UNICODE', 0x49: 'INT', 0x4c: 'LONG', 0x46: 'FLOAT', 0x70: 'PUT', 0x67: 'GET', 0x94: 'MEMOIZE',
  0x5d: 'EMPTY_LIST', 0x7d: 'EMPTY_DICT', 0x29: 'EMPTY_TUPLE', 0x8f: 'EMPTY_SET', 0x90: 'ADDITEMS', 0x91: 'FROZENSET',
  0x4e: 'NONE', 0x88: 'NEWTRUE', 0x89: 'NEWFALSE',
};

function opName(op: number): string {
  return NAMES[op] ?? REFUSED[op] ?? `0x${op.toString(16)}`;
}
