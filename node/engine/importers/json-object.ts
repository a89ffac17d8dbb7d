// A parsed JSON object, and the test for one: what every reader of JSON input asks of a value before reading
// its members (an array, null or a scalar is none).
export type Json = Record<string, unknown>;
export const isObj = (x: unknown): x is Json => !!x && typeof x === 'object' && !Array.isArray(x);
