// PromQL series selectors as a user types them (`vllm:num_requests_running{pod=~"vllm-.*"}`,
// `{namespace="llm"}`), parsed far enough to AND them with a metric name: discovery asks which names
// a selector matches, and each query then reads one name (or one histogram's parts) under the user's
// matchers. Matcher values keep the text the user wrote, quotes and escapes included, so nothing is
// re-escaped on the way to the server.

export interface Matcher {
  label: string;
  op: '=' | '!=' | '=~' | '!~';
  /** The quoted string as written (`"a\"b"`, `'x'` or `` `re` ``). */
  raw: string;
}

export interface Selector {
  /** The metric name written before the braces, or an exact `__name__="…"` matcher; null when none. */
  name: string | null;
  /** Every matcher but the one that gave `name`. */
  matchers: Matcher[];
  /** The selector as the user wrote it, for messages and provenance. */
  text: string;
}

export class SelectorError extends Error {
  constructor(readonly selector: string, message: string) {
    super(`selector ${JSON.stringify(selector)}: ${message}`);
    this.name = 'SelectorError';
  }
}

const NAME_START = /[a-zA-Z_:]/;
const NAME_CHAR = /[a-zA-Z0-9_:]/;
const LABEL_START = /[a-zA-Z_]/;
const LABEL_CHAR = /[a-zA-Z0-9_]/;
export const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;

/** Parses one series selector; throws a SelectorError that says what is wrong and where. */
export function parseSelector(text: string): Selector {
  const s = text.trim();
  let i = 0;
  const fail = (what: string): never => {
    throw new SelectorError(text, `${what} at character ${i + 1} (expected e.g. vllm:num_requests_running{pod=~"vllm-.*"} or {namespace="llm"})`);
  };
  const skipSpace = () => {
    while (i < s.length && /\s/.test(s[i])) i++;
  };
  let name: string | null = null;
  if (i < s.length && NAME_START.test(s[i])) {
    const from = i;
    while (i < s.length && NAME_CHAR.test(s[i])) i++;
    name = s.slice(from, i);
  }
  skipSpace();
  const matchers: Matcher[] = [];
  if (s[i] === '{') {
    i++;
    for (;;) {
      skipSpace();
      if (s[i] === '}') break;
      if (i >= s.length || !LABEL_START.test(s[i])) fail('a label name');
      const from = i;
      while (i < s.length && LABEL_CHAR.test(s[i])) i++;
      const label = s.slice(from, i);
      skipSpace();
      const op = s.startsWith('=~', i) ? '=~' : s.startsWith('!~', i) ? '!~' : s.startsWith('!=', i) ? '!=' : s[i] === '=' ? '=' : fail(`an operator (=, !=, =~ or !~) after "${label}"`);
      i += op.length;
      skipSpace();
      matchers.push({ label, op, raw: readString() });
      skipSpace();
      if (s[i] === ',') {
        i++;
        continue;
      }
      if (s[i] !== '}') fail('"," or "}"');
    }
    i++;
  }
  skipSpace();
  if (i < s.length) fail(`unexpected "${s.slice(i, i + 10)}" (a selector, not a PromQL expression: no functions or ranges)`);
  if (name === null && !matchers.length) throw new SelectorError(text, 'empty: name a metric or give at least one matcher');
  const exact = name === null ? matchers.findIndex((m) => m.label === '__name__' && m.op === '=') : -1;
  if (exact >= 0) {
    name = unquote(matchers[exact].raw);
    matchers.splice(exact, 1);
  }
  // The server refuses a selector whose every matcher matches the empty string (it would match every series).
  if (name === null && matchers.every((m) => matchesEmpty(m))) throw new SelectorError(text, 'every matcher also matches the empty label: add one that needs a value, such as job="vllm"');
  return { name, matchers, text: s };

  function readString(): string {
    const q = s[i];
    if (q !== '"' && q !== "'" && q !== '`') return fail('a quoted value');
    const from = i++;
    while (i < s.length && s[i] !== q) {
      if (s[i] === '\\' && q !== '`') i++;
      i++;
    }
    if (i >= s.length) fail('an unterminated string');
    i++;
    return s.slice(from, i);
  }
}

/** The value of a quoted PromQL string. */
export function unquote(raw: string): string {
  const q = raw[0];
  const body = raw.slice(1, -1);
  if (q === '`') return body;
  return body.replace(/\\(u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|[0-7]{3}|.)/g, (_, e: string) => {
    if (e[0] === 'u') return String.fromCharCode(parseInt(e.slice(1), 16));
    if (e[0] === 'x') return String.fromCharCode(parseInt(e.slice(1), 16));
    if (/^[0-7]{3}$/.test(e)) return String.fromCharCode(parseInt(e, 8));
    return ({ n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', f: '\f', v: '\v' } as Record<string, string>)[e] ?? e;
  });
}

function matchesEmpty(m: Matcher): boolean {
  const v = unquote(m.raw);
  switch (m.op) {
    case '=':
      return v === '';
    case '!=':
      return v !== '';
    case '=~':
      return safeTest(v, '');
    case '!~':
      return !safeTest(v, '');
  }
}

function safeTest(re: string, s: string): boolean {
  try {
    return new RegExp(`^(?:${re})$`).test(s);
  } catch {
    return false;
  }
}

const render = (m: Matcher) => `${m.label}${m.op}${m.raw}`;

/**
 * The selector of `names` (one metric, or a histogram's `_bucket`/`_sum`/`_count`) under `sel`'s
 * matchers: `name{…}` for one plain name, `{__name__=~"a|b", …}` for several. The user's own
 * `__name__` matchers already chose the names (discovery), and PromQL refuses a name set twice.
 */
export function selectorFor(names: readonly string[], sel: Selector | null): string {
  const rest = (sel?.matchers ?? []).filter((m) => m.label !== '__name__').map(render);
  if (names.length === 1 && METRIC_NAME.test(names[0])) return `${names[0]}${rest.length ? `{${rest.join(',')}}` : ''}`;
  const nameMatcher = names.length === 1 ? `__name__=${JSON.stringify(names[0])}` : `__name__=~${JSON.stringify(names.join('|'))}`;
  return `{${[nameMatcher, ...rest].join(',')}}`;
}

/** The selector that asks the server which metric names `sel` matches (its name matcher included). */
export function discoverySelector(sel: Selector): string {
  return sel.name === null ? `{${sel.matchers.map(render).join(',')}}` : selectorFor([sel.name], sel);
}
