// Where JSON text first goes wrong: V8's JSON.parse messages do not always carry a position, and a
// user needs one. A small validating pass, run only after JSON.parse has failed.

export function jsonErrorOffset(text: string): number {
  let i = 0;
  const n = text.length;
  const ws = () => {
    while (i < n && (text[i] === ' ' || text[i] === '\n' || text[i] === '\r' || text[i] === '\t')) i++;
  };
  const fail = (): never => {
    throw i;
  };
  const str = () => {
    i++;
    while (i < n && text[i] !== '"') {
      if (text[i] === '\\') i++;
      else if (text.charCodeAt(i) < 0x20) fail();
      i++;
    }
    if (i >= n) fail();
    i++;
  };
  const value = (): void => {
    ws();
    if (i >= n) fail();
    const c = text[i];
    if (c === '{') {
      i++;
      ws();
      if (text[i] === '}') return void i++;
      for (;;) {
        ws();
        if (text[i] !== '"') fail();
        str();
        ws();
        if (text[i] !== ':') fail();
        i++;
        value();
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === '}') return void i++;
        else fail();
      }
    }
    if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') return void i++;
      for (;;) {
        value();
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === ']') return void i++;
        else fail();
      }
    }
    if (c === '"') return str();
    const m = /^(-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?|true|false|null)/.exec(text.slice(i, i + 64));
    if (!m) fail();
    i += m![0].length;
  };
  try {
    value();
    ws();
    return i < n ? i : n;
  } catch (at) {
    return typeof at === 'number' ? Math.min(at, n) : 0;
  }
}

/**
 * Deepest nesting of a value that is parsed whole or taken as text: JSON.parse copes with 100 k levels,
 * but what reads the value after (JSON.stringify of attributes, a recursive walk) overflows the stack
 * with "Maximum call stack size exceeded" and no place. No trace, log or metrics file nests near this.
 */
export const MAX_VALUE_DEPTH = 512;

/**
 * The index in `text` of the bracket that opens level max + 1 (outside strings), else -1. JSON.parse
 * takes 100 k levels, but JSON.stringify and any recursive walk of the value then overflow the stack
 * ("Maximum call stack size exceeded", naming no place): formats parsed whole check their text first.
 * Text shorter than `max` cannot nest that deep and is not scanned (log lines, mostly).
 */
export function jsonTooDeep(text: string, max: number): number {
  if (text.length <= max) return -1;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return i;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return -1;
}
