// Device addresses pass 2^53, so they are stored as lower-case hex strings ("0x7f3a…").

/**
 * Hex text of numeric addresses seen lately: a trace names the same few thousand blocks over and over
 * (the caching allocator reuses them), and Number#toString(16) of a 47-bit address is slow (a tenth of a
 * memory snapshot's import). Cleared when full.
 */
const recent = new Map<number, string>();
const RECENT_MAX = 1 << 16;

export function toHexAddr(x: unknown): string {
  if (typeof x === 'bigint') return `0x${x.toString(16)}`;
  if (typeof x === 'number') {
    let hex = recent.get(x);
    if (hex === undefined) {
      hex = `0x${Math.trunc(x).toString(16)}`;
      if (recent.size >= RECENT_MAX) recent.clear();
      recent.set(x, hex);
    }
    return hex;
  }
  if (typeof x === 'string') return /^0x/i.test(x) ? x.toLowerCase() : /^\d+$/.test(x) ? `0x${BigInt(x).toString(16)}` : x;
  return '0x0';
}
