// Device addresses pass 2^53, so they are stored as lower-case hex strings ("0x7f3a…").

export function toHexAddr(x: unknown): string {
  if (typeof x === 'bigint') return `0x${x.toString(16)}`;
  if (typeof x === 'number') return `0x${Math.trunc(x).toString(16)}`;
  if (typeof x === 'string') return /^0x/i.test(x) ? x.toLowerCase() : /^\d+$/.test(x) ? `0x${BigInt(x).toString(16)}` : x;
  return '0x0';
}
