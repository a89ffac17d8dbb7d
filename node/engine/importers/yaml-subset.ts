// The YAML that kubectl writes (`-o yaml`, and `yq` cuts of it), read into plain values: block mappings and
// sequences by indentation (a sequence under a key may sit at the key's own indent, as kubectl puts `items:`'
// `- …`), plain scalars (continued on more-indented lines, folded with a space), single- and double-quoted
// scalars, block scalars (`|`, `|-`, `>`), `[]` and `{}`, documents split by `---`. Numbers, booleans and
// null are typed as YAML 1.1 core types. Anchors, aliases, tags, and flow collections with content are
// not kubectl's and are refused naming their line, as is anything nested past `maxDepth`.

export class YamlError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
  }
}

interface Line {
  no: number;
  indent: number;
  text: string;
}

const NUMBER = /^[-+]?(?:\d+|\d*\.\d+(?:[eE][-+]?\d+)?|\d+\.\d*(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+)$/;

/** YAML's single-character escapes (go-yaml writes `\e` for ANSI colours, `\ ` where it wrapped a line, …). */
const ESCAPES: Record<string, string> = {
  '0': '\0', a: '\x07', b: '\b', t: '\t', '\t': '\t', n: '\n', v: '\v', f: '\f', r: '\r', e: '\x1b', ' ': ' ',
  '"': '"', '/': '/', '\\': '\\', N: '\u0085', _: '\u00a0', L: '\u2028', P: '\u2029',
};

/** The text of a double-quoted scalar (its quotes gone), escapes decoded. */
function doubleQuoted(body: string, no: number): string {
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = body[++i];
    const hex = e === 'x' ? 2 : e === 'u' ? 4 : e === 'U' ? 8 : 0;
    if (hex) {
      const h = body.slice(i + 1, i + 1 + hex);
      if (!/^[0-9a-fA-F]+$/.test(h) || h.length !== hex) throw new YamlError(no, `a bad \\${e} escape in a double-quoted string`);
      out += String.fromCodePoint(parseInt(h, 16));
      i += hex;
    } else if (e !== undefined && e in ESCAPES) out += ESCAPES[e];
    else throw new YamlError(no, `the escape \\${e ?? ''} in a double-quoted string, which YAML does not have`);
  }
  return out;
}

/** A scalar as written after `key: ` or `- `. */
function scalar(text: string, no: number): unknown {
  const t = text.trim();
  if (t === '' || t === '~' || t === 'null' || t === 'Null' || t === 'NULL') return null;
  if (t === 'true' || t === 'True') return true;
  if (t === 'false' || t === 'False') return false;
  if (t === '[]') return [];
  if (t === '{}') return {};
  if (t.startsWith('"')) {
    if (!t.endsWith('"') || t.length < 2) throw new YamlError(no, 'an unterminated double-quoted string');
    return doubleQuoted(t.slice(1, -1), no);
  }
  if (t.startsWith("'")) {
    if (!t.endsWith("'") || t.length < 2) throw new YamlError(no, 'an unterminated single-quoted string');
    return t.slice(1, -1).replace(/''/g, "'");
  }
  if (t.startsWith('&') || t.startsWith('*') || t.startsWith('!')) throw new YamlError(no, 'anchors, aliases and tags are not read (kubectl writes none)');
  if ((t.startsWith('[') || t.startsWith('{')) && t.length > 2) throw new YamlError(no, 'flow collections are not read (kubectl writes none)');
  if (NUMBER.test(t)) {
    const n = Number(t);
    if (Number.isFinite(n)) return n;
  }
  return t;
}

/** `key: rest` (the key plain or quoted); null where the line is no mapping entry. */
function entry(text: string): { key: string; rest: string } | null {
  let key: string;
  let after: number;
  if (text.startsWith('"') || text.startsWith("'")) {
    const q = text[0];
    let i = 1;
    while (i < text.length && !(text[i] === q && text[i - 1] !== '\\')) i++;
    if (text[i + 1] !== ':') return null;
    key = String(scalar(text.slice(0, i + 1), 0));
    after = i + 2;
  } else {
    const m = /^([^\s:#][^:]*?|[^\s:#]):(?=\s|$)/.exec(text);
    if (!m) return null;
    key = m[1];
    after = m[0].length;
  }
  return { key, rest: text.slice(after).trim() };
}

export function parseYamlSubset(source: string, maxDepth = 64): unknown[] {
  const docs: Line[][] = [[]];
  source.split(/\r?\n/).forEach((raw, i) => {
    if (/^---(\s|$)/.test(raw) || /^\.\.\.(\s|$)/.test(raw)) {
      docs.push([]);
      return;
    }
    const text = raw.trimStart();
    if (text === '' || text.startsWith('#')) return;
    if (raw.slice(0, raw.length - text.length).includes('\t')) throw new YamlError(i + 1, 'a tab in the indentation');
    docs[docs.length - 1].push({ no: i + 1, indent: raw.length - text.length, text: text.trimEnd() });
  });
  return docs.filter((d) => d.length).map((lines) => new Reader(lines, maxDepth).document());
}

class Reader {
  private at = 0;

  constructor(
    private readonly lines: Line[],
    private readonly maxDepth: number,
  ) {}

  document(): unknown {
    const v = this.node(this.lines[0].indent, 0);
    if (this.at < this.lines.length) throw new YamlError(this.lines[this.at].no, 'text after the end of the document, at a lesser indent');
    return v;
  }

  private node(indent: number, depth: number): unknown {
    if (depth > this.maxDepth) throw new YamlError(this.lines[this.at].no, `nested deeper than ${this.maxDepth} levels`);
    const l = this.lines[this.at];
    if (l.text === '-' || l.text.startsWith('- ')) return this.sequence(l.indent, depth);
    if (entry(l.text)) return this.mapping(l.indent, depth);
    this.at++;
    return this.plain(l.text, indent - 1, l.no);
  }

  private mapping(indent: number, depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    while (this.at < this.lines.length) {
      const l = this.lines[this.at];
      if (l.indent < indent) break;
      if (l.indent > indent) throw new YamlError(l.no, 'an indent no key opened');
      if (l.text === '-' || l.text.startsWith('- ')) break;
      const e = entry(l.text);
      if (!e) throw new YamlError(l.no, 'neither `key: value` nor `- item`');
      this.at++;
      // An own property whatever the key (`__proto__` included), as JSON.parse makes it.
      Object.defineProperty(out, e.key, { value: this.value(e.rest, indent, depth, l.no), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }

  private sequence(indent: number, depth: number): unknown[] {
    const out: unknown[] = [];
    while (this.at < this.lines.length) {
      const l = this.lines[this.at];
      if (l.indent !== indent || !(l.text === '-' || l.text.startsWith('- '))) {
        if (l.indent > indent) throw new YamlError(l.no, 'an indent no item opened');
        break;
      }
      const rest = l.text.slice(1).trimStart();
      if (rest === '') {
        this.at++;
        out.push(this.at < this.lines.length && this.lines[this.at].indent > indent ? this.node(this.lines[this.at].indent, depth + 1) : null);
        continue;
      }
      // `- key: value`: a mapping whose first entry shares the dash's line, its keys at the column after `- `.
      const inner = indent + (l.text.length - rest.length);
      if (entry(rest) || rest === '-' || rest.startsWith('- ')) {
        this.lines[this.at] = { no: l.no, indent: inner, text: rest };
        out.push(this.node(inner, depth + 1));
        continue;
      }
      this.at++;
      out.push(this.value(rest, indent, depth, l.no));
    }
    return out;
  }

  /** What follows `key:` (or `- `) on its line and on the lines under it. */
  private value(rest: string, indent: number, depth: number, no: number): unknown {
    const next = this.lines[this.at];
    if (rest === '') {
      if (!next) return null;
      // kubectl's `items:` then `- …` at the key's own indent.
      if (next.indent === indent && (next.text === '-' || next.text.startsWith('- '))) return this.sequence(indent, depth + 1);
      return next.indent > indent ? this.node(next.indent, depth + 1) : null;
    }
    if (/^[|>](?:[1-9][-+]?|[-+][1-9]?)?$/.test(rest)) return this.block(rest, indent);
    return this.plain(rest, indent, no);
  }

  /** A plain or quoted scalar and its continuation lines (deeper than `indent`), folded with spaces. */
  private plain(first: string, indent: number, no: number): unknown {
    const parts = [first];
    const quoted = first.startsWith('"') || first.startsWith("'");
    while (this.at < this.lines.length && this.lines[this.at].indent > indent) {
      const l = this.lines[this.at];
      // (A continuation that starts `- ` is text: go-yaml wraps long plain scalars at 80 columns wherever.)
      if (!quoted && entry(l.text)) throw new YamlError(l.no, 'a mapping or sequence under a scalar');
      parts.push(l.text);
      this.at++;
    }
    // Folded with a space; in a double-quoted scalar a line ending in an escaped line break (`\`) joins without one.
    let text = parts[0];
    for (let i = 1; i < parts.length; i++) text = /(^|[^\\])(\\\\)*\\$/.test(text) && text.startsWith('"') ? text.slice(0, -1) + parts[i] : `${text} ${parts[i]}`;
    return scalar(text, no);
  }

  /** `|` keeps the lines, `>` folds them; `-` drops the last newline. */
  private block(head: string, indent: number): string {
    const kept: string[] = [];
    // An indentation indicator (`|2-`: go-yaml writes it where the text starts with a space) fixes the base.
    const digit = /\d/.exec(head);
    let base = digit ? indent + Number(digit[0]) : -1;
    let lastNo = this.at > 0 ? this.lines[this.at - 1].no : 0;
    while (this.at < this.lines.length && this.lines[this.at].indent > indent) {
      const l = this.lines[this.at];
      if (base < 0) base = l.indent;
      // Blank lines inside a block were dropped with the others: put them back from the line numbers.
      for (let n = lastNo + 1; n < l.no; n++) kept.push('');
      kept.push(' '.repeat(Math.max(0, l.indent - base)) + l.text);
      lastNo = l.no;
      this.at++;
    }
    const text = head.startsWith('>') ? kept.join(' ').replace(/ {2,}/g, ' ') : kept.join('\n');
    // `-` drops the last newline, `+` keeps the blank lines after the text as well, the default keeps one.
    if (head.includes('-')) return text;
    if (head.includes('+')) {
      const next = this.at < this.lines.length ? this.lines[this.at].no : lastNo + 1;
      return `${text}\n${'\n'.repeat(Math.max(0, next - lastNo - 1))}`;
    }
    return `${text}\n`;
  }
}
