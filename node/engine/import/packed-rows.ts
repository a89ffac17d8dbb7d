// Span and kernel rows packed for the trip from the worker thread: their strings joined into one
// string (one copy, where an array of strings costs a clone per string — most of what the worker import
// saved, measured), their nanosecond times in a BigInt64Array and their small numbers in a Float64Array,
// both moved, not copied. A row whose values do not fit (a string holding NUL, a time that is not an
// integer) travels as a plain row instead (see RecordingSink).

/** Joins the strings; SEP never occurs in them (checked by the caller through fits()). */
const SEP = '\u0000';
/** A null string (a root span's parent). */
const NULL_TEXT = '\u0001';

export interface PackedRows {
  rows: number;
  text: string;
  ns: BigInt64Array;
  nums: Float64Array;
}

/** A string that can be packed: no separator, and not the null marker. */
export const packable = (s: string): boolean => s.indexOf(SEP) < 0 && s !== NULL_TEXT;

/** An integral time as a BigInt, or null when it is not one. */
export function nsValue(x: number | bigint): bigint | null {
  const b = typeof x === 'bigint' ? x : Number.isFinite(x) ? BigInt(Math.round(x)) : null;
  return b !== null && b >= INT64_MIN && b <= INT64_MAX ? b : null;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Builds PackedRows of a fixed number of strings, times and numbers per row. */
export class RowPacker {
  private texts: string[] = [];
  private ns: bigint[] = [];
  private nums: number[] = [];
  private rows = 0;

  constructor(readonly textWidth: number, readonly nsWidth: number, readonly numWidth: number) {}

  get length(): number {
    return this.rows;
  }

  /** `text` may hold nulls (packed as NULL_TEXT); numbers may be NaN (a null number). */
  push(text: readonly (string | null)[], ns: readonly bigint[], nums: readonly number[]): void {
    for (const t of text) this.texts.push(t === null ? NULL_TEXT : t);
    for (const x of ns) this.ns.push(x);
    for (const x of nums) this.nums.push(x);
    this.rows++;
  }

  take(): PackedRows {
    const out: PackedRows = { rows: this.rows, text: this.texts.join(SEP), ns: BigInt64Array.from(this.ns), nums: Float64Array.from(this.nums) };
    this.texts = [];
    this.ns = [];
    this.nums = [];
    this.rows = 0;
    return out;
  }
}

/** The rows back, one callback a row, with views into shared arrays (valid during the call only). */
export function unpack(p: PackedRows, textWidth: number, nsWidth: number, numWidth: number, row: (text: (string | null)[], ns: BigInt64Array, nsAt: number, nums: Float64Array, numAt: number) => void): void {
  if (!p.rows) return;
  const all = p.text.split(SEP);
  if (all.length !== p.rows * textWidth) throw new Error(`packed rows: ${all.length} strings for ${p.rows} rows of ${textWidth}`);
  const text: (string | null)[] = new Array(textWidth);
  for (let r = 0; r < p.rows; r++) {
    for (let k = 0; k < textWidth; k++) {
      const s = all[r * textWidth + k];
      text[k] = s === NULL_TEXT ? null : s;
    }
    row(text, p.ns, r * nsWidth, p.nums, r * numWidth);
  }
}
