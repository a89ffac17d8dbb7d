// Times in nanoseconds as the store keeps them: SQLite's 64-bit integers. A value a file gives past that
// range (±292 years around 1970: "1e308", 25 digits, 1e400 which JSON reads as Infinity) is no real
// time, and letting it through fails far from its place: BigInt(Infinity) throws "cannot be converted
// to a BigInt", and an out-of-range BigInt fails inside a batched INSERT ("The bound … bigint is too
// big") after the record that held it has long gone. Importers turn times into ns through these and
// warn (or fail) naming the line, byte or key of a time that is none.

/** The largest magnitude of a time in ns that a 64-bit integer holds. */
export const NS_LIMIT = 2n ** 63n - 1n;

export const nsInRange = (ns: bigint): boolean => ns >= -NS_LIMIT && ns <= NS_LIMIT;

/** Decimal digits a whole number in range can have (19), with room for leading zeros; longer text is refused unread. */
const MAX_DIGITS = 40;

/**
 * A time of `unitNs` ns per unit, as written (a JSON number, or decimal digits as text, which keep the
 * precision a double loses), in ns; null when it is none, not finite, or out of the 64-bit range.
 * Numbers are rounded to a whole unit (the fraction of a µs of a Jaeger time is below its precision).
 */
export function unitsToNs(v: unknown, unitNs: bigint): bigint | null {
  let whole: bigint;
  if (typeof v === 'number') {
    // Past 2^63 no unit ≥ 1 ns keeps the product in range: refused before BigInt() sees a huge double.
    if (!Number.isFinite(v) || Math.abs(v) >= 2 ** 63) return null;
    whole = BigInt(Math.round(v));
  } else if (typeof v === 'string' && v.length <= MAX_DIGITS && /^-?\d+$/.test(v)) {
    whole = BigInt(v);
  } else return null;
  const ns = whole * unitNs;
  return nsInRange(ns) ? ns : null;
}

/** A (possibly fractional) number of ns as a whole BigInt; null when not finite or out of range. */
export function nsOfNumber(ns: number): bigint | null {
  return unitsToNs(ns, 1n);
}

/** a + b when the sum is still a time the store can keep, else null. */
export function nsSum(a: bigint, b: bigint): bigint | null {
  const s = a + b;
  return nsInRange(s) ? s : null;
}
