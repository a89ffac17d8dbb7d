// A small runtime schema language: every IPC / bridge payload is checked against one of these before
// the engine sees it. Kept dependency-free so the contract stays "common" code.

export type Check<T> = ((x: unknown, path?: string) => T) & { readonly optional?: boolean };

export class ValidationError extends Error {
  constructor(readonly path: string, readonly expected: string) {
    super(`invalid request: ${path || 'payload'} must be ${expected}`);
    this.name = 'ValidationError';
  }
}

const fail = (path: string, expected: string): never => {
  throw new ValidationError(path, expected);
};

export const str = (opts: { max?: number; min?: number; pattern?: { re: RegExp; what: string } } = {}): Check<string> => (x, p = '') => {
  if (typeof x !== 'string') return fail(p, 'a string');
  if (opts.min !== undefined && x.length < opts.min) return fail(p, `at least ${opts.min} characters`);
  if (x.length > (opts.max ?? 100_000)) return fail(p, `at most ${opts.max ?? 100_000} characters`);
  if (opts.pattern && !opts.pattern.re.test(x)) return fail(p, opts.pattern.what);
  return x;
};

export const num = (opts: { int?: boolean; min?: number; max?: number } = {}): Check<number> => (x, p = '') => {
  if (typeof x !== 'number' || !Number.isFinite(x)) return fail(p, 'a finite number');
  if (opts.int && !Number.isInteger(x)) return fail(p, 'an integer');
  // Past 2^53 integers lose precision: 1e300 "is" an integer but names no row.
  if (opts.int && !Number.isSafeInteger(x)) return fail(p, 'an integer of at most 2^53 - 1 in size');
  if (opts.min !== undefined && x < opts.min) return fail(p, `>= ${opts.min}`);
  if (opts.max !== undefined && x > opts.max) return fail(p, `<= ${opts.max}`);
  return x;
};

export const bool: Check<boolean> = (x, p = '') => (typeof x === 'boolean' ? x : fail(p, 'a boolean'));

export const literal = <T extends string>(...values: readonly T[]): Check<T> => (x, p = '') =>
  (values as readonly unknown[]).includes(x) ? (x as T) : fail(p, `one of ${values.join(', ')}`);

export const arr = <T>(item: Check<T>, opts: { max?: number } = {}): Check<T[]> => (x, p = '') => {
  if (!Array.isArray(x)) return fail(p, 'an array');
  if (x.length > (opts.max ?? 10_000)) return fail(p, `at most ${opts.max ?? 10_000} items`);
  return x.map((v, i) => item(v, `${p}[${i}]`));
};

export const optional = <T>(inner: Check<T>): Check<T | undefined> => {
  const f = ((x: unknown, p = '') => (x === undefined || x === null ? undefined : inner(x, p))) as Check<T | undefined>;
  Object.defineProperty(f, 'optional', { value: true });
  return f;
};

type Shape = Record<string, Check<unknown>>;
type Out<S extends Shape> = { [K in keyof S as undefined extends ReturnType<S[K]> ? never : K]: ReturnType<S[K]> } & {
  [K in keyof S as undefined extends ReturnType<S[K]> ? K : never]?: ReturnType<S[K]>;
};

/** An object with exactly these keys (unknown keys are refused, so a typo never passes silently). */
export const obj = <S extends Shape>(shape: S): Check<Out<S>> => (x, p = '') => {
  if (typeof x !== 'object' || x === null || Array.isArray(x)) return fail(p, 'an object');
  const out: Record<string, unknown> = {};
  // Own keys only: `in` would let __proto__, constructor or toString through as if they were fields.
  for (const k of Object.keys(x)) if (!Object.hasOwn(shape, k)) fail(p ? `${p}.${k}` : k, 'absent (unknown key)');
  for (const [k, check] of Object.entries(shape)) {
    const v = check(Object.hasOwn(x, k) ? (x as Record<string, unknown>)[k] : undefined, p ? `${p}.${k}` : k);
    if (v !== undefined) out[k] = v;
  }
  return out as Out<S>;
};

export const record = <T>(value: Check<T>, opts: { max?: number } = {}): Check<Record<string, T>> => (x, p = '') => {
  if (typeof x !== 'object' || x === null || Array.isArray(x)) return fail(p, 'an object');
  const entries = Object.entries(x);
  if (entries.length > (opts.max ?? 1000)) return fail(p, `at most ${opts.max ?? 1000} keys`);
  for (const [k] of entries) {
    const at = p ? `${p}.${k.slice(0, 100)}` : k.slice(0, 100);
    // An own "__proto__" key is harmless here but becomes the prototype in any later spread or Object.assign.
    if (k === '__proto__') fail(at, 'absent (a reserved key)');
    if (k.length > 1000) fail(at, 'a key of at most 1000 characters');
  }
  return Object.fromEntries(entries.map(([k, v]) => [k, value(v, p ? `${p}.${k}` : k)]));
};

export const none: Check<void> = (x, p = '') => {
  if (x === undefined || x === null) return undefined;
  if (typeof x === 'object' && !Array.isArray(x) && Object.keys(x as object).length === 0) return undefined;
  return fail(p, 'empty');
};

/** An http(s) URL, as a string (what it points at is the engine's concern). */
export const httpUrl: Check<string> = (x, p = '') => {
  const s = str({ min: 1, max: 2048 })(x, p);
  if (!/^https?:\/\/[^\s]+$/i.test(s)) return fail(p, 'an http:// or https:// URL');
  return s;
};

/** The name of an environment variable (letters, digits, underscores; not starting with a digit). */
export const envName: Check<string> = str({ min: 1, max: 200, pattern: { re: /^[A-Za-z_][A-Za-z0-9_]*$/, what: 'an environment variable name' } });
