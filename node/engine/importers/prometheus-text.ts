// Prometheus text exposition (0.0.4) and OpenMetrics 1.0, one scrape or a series of them, streamed
// line by line. Time of a sample, first found of:
//   1. its own timestamp (ms in Prometheus text; seconds — any value below 1e11 — in OpenMetrics);
//   2. the scrape header above it: `# scrape_ts_ms=<epoch ms>` (what Quadscope's live recorder and
//      fixture generator write, see scrapeHeader) or `# time: <RFC 3339>`; each header starts a scrape,
//      so scrapes can simply be concatenated;
//   3. the file's mtime (a single `curl /metrics > file`), else the import time with a warning.
// `# TYPE` decides the kind (not the `_total` suffix); histograms keep their buckets
// (sink.histogram), `_sum`/`_count` become `<name>.sum`/`<name>.count` counters in any order;
// `_created` series, `# EOF`, `# HELP`/`# UNIT` are skipped; DCGM blank sentinels are dropped; NaN and
// ±Inf samples are left out by the sink. Known metrics get canonical names (signals/canonical.ts).
import type { Labels } from '../signals/canonical';
import { GarbageGuard } from './garbage-guard';
import { headLines, linePieces, type LineCount } from './line-reader';
import { LogClock, parseIsoZoned } from './log-time';
import { classify, parsePromNumber, promMs, PromSeriesMapper, type PromType, type Target } from './prom-series';
import type { EntryInput, ImportContext, Importer, Sink } from './types';

export const SCRAPE_HEADER_PREFIX = '# scrape_ts_ms=';

/** The line that heads one scrape in a concatenated series of scrapes. */
export function scrapeHeader(tsMs: number): string {
  return `${SCRAPE_HEADER_PREFIX}${Math.round(tsMs)}\n`;
}

/** The time of a scrape header line (either form, or a bare RFC 3339 time: `date -u +%FT%TZ` between `curl`s), or null when the line is not one. */
export function parseScrapeHeader(line: string): number | null {
  const c = line.charCodeAt(0);
  if (c >= 48 && c <= 57) {
    const t = parseIsoZoned(line.trim());
    return Number.isFinite(t) ? t : null;
  }
  if (line.startsWith(SCRAPE_HEADER_PREFIX)) {
    const n = Number(line.slice(SCRAPE_HEADER_PREFIX.length).trim());
    return Number.isFinite(n) ? n : null;
  }
  if (line.startsWith('# time:')) {
    const t = parseIsoZoned(line.slice(7).trim());
    return Number.isFinite(t) ? t : null;
  }
  return null;
}

const TYPES = new Set<PromType>(['counter', 'gauge', 'histogram', 'gaugehistogram', 'summary', 'info', 'stateset', 'unknown', 'untyped']);
const NAME_RE = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const SAMPLE_RE = /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{.*\})?\s+[-+0-9.eEInfNa]+(\s+-?[0-9.eE+]+)?\s*$/;
/** A sample whose name is inside its label set: `promtool tsdb dump` (`{__name__="x", …}`) and Prometheus 3's quoted UTF-8 names (`{"x.y", …}`). */
const NAME_INSIDE_RE = /^\{\s*(__name__\s*=\s*"|")[^"]+".*\}\s+[-+0-9.eEInfNa]+(\s+-?[0-9.eE+]+)?\s*$/;

/** Reads the quoted string that starts at `s[i]` (a `"`) up to `end`; answers its text and where it ended (its closing quote). */
function quoted(s: string, i: number, end: number, what: string): [string, number] {
  let j = i + 1;
  let value = '';
  let chunkStart = j;
  for (;;) {
    if (j >= end) throw new Error(`${what} is not closed`);
    const ch = s.charCodeAt(j);
    if (ch === 34 /* " */) break;
    if (ch === 92 /* \ */) {
      value += s.slice(chunkStart, j);
      const next = s[j + 1];
      value += next === 'n' ? '\n' : next === '\\' ? '\\' : next === '"' ? '"' : `\\${next ?? ''}`;
      j += 2;
      chunkStart = j;
      continue;
    }
    j++;
  }
  return [value + s.slice(chunkStart, j), j];
}

const isBlank = (c: string | undefined) => c === ' ' || c === '\t';

/**
 * Parses `{a="x",b="y\"z"}` starting at `start` (the `{`); answers the labels. Blanks and tabs may stand
 * around names, `=` and `,` (the format's tokens are separated by any number of them). Prometheus 3's
 * UTF-8 names come quoted: a quoted label name before its `=`, and the metric's own name as a quoted
 * string alone in the set (`{"my.metric", "a.b"="x"}`), answered as `__name__`.
 */
export function parseLabels(s: string, start: number, end: number): Labels {
  const labels: Labels = {};
  let i = start + 1;
  while (i < end) {
    while (i < end && (isBlank(s[i]) || s[i] === ',')) i++;
    if (i >= end || s[i] === '}') break;
    let key: string;
    let eq: number;
    if (s[i] === '"') {
      const [name, close] = quoted(s, i, end, 'quoted name');
      let k = close + 1;
      while (k < end && isBlank(s[k])) k++;
      if (s[k] !== '=') {
        // A quoted string alone: the metric's name.
        labels.__name__ = name;
        i = k;
        continue;
      }
      key = name;
      eq = k;
    } else {
      eq = s.indexOf('=', i);
      if (eq < 0 || eq >= end) throw new Error(`label without "=" at column ${i + 1}`);
      key = s.slice(i, eq).trim();
      if (!NAME_RE.test(key)) throw new Error(`bad label name "${key}"`);
    }
    let q = eq + 1;
    while (q < end && isBlank(s[q])) q++;
    if (s[q] !== '"') throw new Error(`label ${key} value is not quoted`);
    const [value, close] = quoted(s, q, end, `label ${key} value`);
    labels[key] = value;
    i = close + 1;
  }
  return labels;
}

/** Sample lines of one scrape whose keys are remembered by position. */
const ORDER_MAX = 100_000;

/** `# TYPE <name> <type>` → [name, lower-cased type]; split by hand, as it comes once a family a scrape. */
function typeLine(l: string): [string, PromType] {
  let a = 7;
  while (l.charCodeAt(a) === 32 || l.charCodeAt(a) === 9) a++;
  let b = a;
  while (b < l.length && l.charCodeAt(b) !== 32 && l.charCodeAt(b) !== 9) b++;
  return [l.slice(a, b), l.slice(b).trim().toLowerCase() as PromType];
}

/**
 * Where a sample line's key (name and label set) ends. The label set ends at the last `}`, unless a
 * `#` comes before it: then an OpenMetrics exemplar (`… # {trace_id="…"} 1`) or a `#`/`}` inside a
 * label value may be in the way, and the quotes are followed.
 */
function sampleKeyEnd(l: string, brace: number): number {
  // The first space or tab, without scanning a whole line for a tab that is rarely there.
  let space = l.indexOf(' ');
  if (space < 0) space = l.indexOf('\t');
  else if (l.lastIndexOf('\t', space) >= 0) space = l.indexOf('\t');
  if (brace < 0 || (space >= 0 && space < brace)) {
    if (space < 0) throw new Error('no value');
    return space;
  }
  const last = l.lastIndexOf('}');
  if (last < 0) throw new Error('label set is not closed');
  const hash = l.indexOf('#', brace);
  // A second `{` may open a native histogram's value (`x{a="b"} {count:3,…}`), or stand in a label value.
  const open = l.indexOf('{', brace + 1);
  if ((hash < 0 || hash > last) && (open < 0 || open > last)) return last + 1;
  let inQuote = false;
  for (let i = brace + 1; i < l.length; i++) {
    const c = l.charCodeAt(i);
    if (inQuote) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inQuote = false;
    } else if (c === 34) inQuote = true;
    else if (c === 125 /* } */) return i + 1;
  }
  throw new Error('label set is not closed');
}

/** Whether the value after a sample's key (at `keyEnd`) is a native histogram's `{…}`. */
function nativeValue(l: string, keyEnd: number): boolean {
  let i = keyEnd;
  while (l.charCodeAt(i) === 32 || l.charCodeAt(i) === 9) i++;
  return l.charCodeAt(i) === 123 /* { */;
}

/** 10^k for the digits after a decimal point (exact doubles up to 10^22). */
const POW10 = Array.from({ length: 16 }, (_, k) => 10 ** k);
/** Where the last plainDecimal() stopped reading. */
let decimalEnd = 0;

/**
 * The number at `l[i…len)` where it is a plain decimal, `-?digits(.digits)?` of at most 15 digits, else
 * NaN; decimalEnd is set to where it stopped. Such a number is read exactly as Number() reads it: its
 * digits make an integer below 2^53 (exact) and 10^k is exact, so the one division rounds correctly, as
 * Number() does. A sliced string and a Number() call per value and timestamp were an eighth of a wide
 * file's parse (measured).
 */
function plainDecimal(l: string, i: number, len = l.length): number {
  let neg = false;
  if (i < len && l.charCodeAt(i) === 45 /* - */) {
    neg = true;
    i++;
  }
  let m = 0;
  let digits = 0;
  let point = -1;
  for (; i < len; i++) {
    const c = l.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      m = m * 10 + (c - 48);
      digits++;
    } else if (c === 46 /* . */ && point < 0 && digits > 0) point = digits;
    else break;
  }
  decimalEnd = i;
  if (digits === 0 || digits > 15 || point === digits) return NaN;
  const x = point < 0 ? m : m / POW10[digits - point];
  return neg ? -x : x;
}

/** What the last plainTail() read: the value, and the timestamp in ms or NaN where the line has none. */
let tailValue = NaN;
let tailTs = NaN;

/**
 * Reads the usual tail of a sample line, ` <value>` or ` <value> <timestamp>` from `l[i…end)` (`i`: the
 * space after the key), where both are plain decimals and the spaces single; answers false for any other
 * tail (an exemplar, a value Number() cannot read like +Inf, a tab), which the general path reads.
 */
function plainTail(l: string, i: number, end: number): boolean {
  if (l.charCodeAt(i) !== 32) return false;
  const v = plainDecimal(l, i + 1, end);
  if (v !== v) return false;
  if (decimalEnd === end) {
    tailValue = v;
    tailTs = NaN;
    return true;
  }
  if (l.charCodeAt(decimalEnd) !== 32) return false;
  const n = plainDecimal(l, decimalEnd + 1, end);
  if (n !== n || decimalEnd !== end) return false;
  tailValue = v;
  tailTs = promMs(n);
  return true;
}

class TextParser {
  private readonly types = new Map<string, PromType>();
  private readonly targets = new Map<string, Target>();
  private readonly mapper: PromSeriesMapper;
  private readonly clock: LogClock;
  private readonly guard: GarbageGuard;
  private scrapeTs: number | null = null;
  /** The key and target of each sample line of the last scrape, by position (see sample()). */
  private readonly order: { key: string; target: Target }[] = [];
  private readonly typeLines = new Set<string>();
  private pos = 0;
  private defaultTs: number | null = null;
  /** Whether a sample of the scrape being read was placed at defaultTs (it had no time of its own). */
  private untimed = false;
  /** Scrapes that came again with no time of their own: each replaced the one before at the same time. */
  private untimedRepeats = 0;
  /** Native histogram samples (`{count:…, …}` values), not read. */
  private natives = 0;
  /** Inside the HTTP response headers `curl -i` puts before a scrape. */
  private inHttpHeaders = false;
  /** A scrape boundary (`# EOF`, a response's status line) came after a scrape with no time of its own. */
  private untimedBoundary = false;
  private readonly typeOf = (f: string) => this.types.get(f);

  constructor(sink: Sink, private readonly ctx: ImportContext) {
    this.mapper = new PromSeriesMapper(sink);
    this.clock = new LogClock(ctx);
    this.guard = new GarbageGuard(ctx, 'Prometheus text exposition');
  }

  /**
   * The lines of one piece of text (see linePieces), each counted into `count`. A sample line whose key
   * is the one at its place in the last scrape and whose tail is plain (quickSample) is read in the
   * piece; any other line is made a string and read by line().
   */
  piece(text: string, count: LineCount): void {
    let a = 0;
    for (;;) {
      let e = text.indexOf('\n', a);
      const last = e < 0;
      if (last) e = text.length;
      const no = ++count.lines;
      // A line's ending CR is not part of it (CRLF files).
      const end = e > a && text.charCodeAt(e - 1) === 13 ? e - 1 : e;
      if (!this.quickSample(text, a, end, no)) this.line(text.slice(a, end), no);
      if (last) return;
      a = e + 1;
    }
  }

  /**
   * The sample line `text[a, end)` read where it is: when its key is the one at its place in the last
   * scrape (the guess of sample()) and a single space and a plain decimal value follow, with or without
   * a single space and a plain decimal timestamp. Answers false, having changed nothing, for any other
   * line: then line() reads it, and the two readings agree where both read a line.
   */
  private quickSample(text: string, a: number, end: number, no: number): boolean {
    if (a === end) return true; // an empty line (line() skips it)
    const guess = this.order[this.pos];
    if (guess === undefined) return false;
    const keyEnd = a + guess.key.length;
    if (keyEnd >= end || text.charCodeAt(keyEnd) !== 32 || text.slice(a, keyEnd) !== guess.key || !plainTail(text, keyEnd, end)) return false;
    this.pos++;
    try {
      this.write(guess.target, tailValue, tailTs, no);
      this.guard.ok();
    } catch (err) {
      this.guard.malformed(no, `malformed sample line: ${(err as Error).message}`);
    }
    return true;
  }

  /** A sample at `ts`, or where that is NaN (the line has no timestamp) at its scrape's time. */
  private write(target: Target, value: number, ts: number, no: number): void {
    // A skipped sample (`_created`) has no time to find: asking would warn of a file without timestamps.
    if (target.role === 'skip') return;
    this.mapper.write(target, ts === ts ? ts : (this.scrapeTs ?? this.untimedTs(no)), value);
  }

  /** The time of a sample with none of its own and no scrape header above it: the file's, one for all. */
  private untimedTs(no: number): number {
    // Another scrape with no time after one: it lands on the same time (see untimedRepeats).
    if (this.untimedBoundary) {
      this.untimedRepeats++;
      this.untimedBoundary = false;
    }
    this.untimed = true;
    return (this.defaultTs ??= this.clock.fallback(no));
  }

  line(l: string, no: number): void {
    if (l.length === 0) return;
    const c = l.charCodeAt(0);
    if (c === 35 /* # */) {
      this.comment(l);
      this.guard.ok();
      return;
    }
    if (c >= 48 && c <= 57) {
      const ts = parseScrapeHeader(l);
      if (ts !== null) {
        this.header(ts);
        this.guard.ok();
        return;
      }
    }
    if (this.httpHeader(l)) {
      this.guard.ok();
      return;
    }
    try {
      this.sample(l, no);
      this.guard.ok();
    } catch (e) {
      this.guard.malformed(no, `malformed sample line: ${(e as Error).message}`);
    }
  }

  private comment(l: string): void {
    if (l.startsWith('# TYPE ')) {
      // Every scrape repeats its TYPE lines: one already read is skipped whole, unless a family's type
      // changed since (then the lines seen are forgotten, so the old line counts again when it returns).
      if (this.typeLines.has(l)) return;
      const [name, type] = typeLine(l);
      if (!name || !TYPES.has(type)) return;
      const before = this.types.get(name);
      if (before !== undefined && before !== type) this.typeLines.clear();
      this.types.set(name, type);
      if (this.typeLines.size < ORDER_MAX) this.typeLines.add(l);
      return;
    }
    const ts = parseScrapeHeader(l);
    if (ts !== null) {
      this.header(ts);
    } else if (l.startsWith('# EOF')) {
      this.mapper.flush();
      this.pos = 0;
      this.untimedBoundary ||= this.untimed;
    }
  }

  /**
   * `curl -i`'s response headers before a scrape (`HTTP/1.1 200 OK`, `date: …`, … up to the blank line):
   * skipped, each status line starting a scrape, and its `Date` header the scrape's time, so that
   * `curl -i … >> file` in a loop is a series of scrapes. Answers whether the line was one of them.
   */
  private httpHeader(l: string): boolean {
    if (l.startsWith('HTTP/')) {
      this.mapper.flush();
      this.pos = 0;
      this.inHttpHeaders = true;
      this.untimedBoundary ||= this.untimed;
      return true;
    }
    if (!this.inHttpHeaders) return false;
    const m = /^([A-Za-z0-9-]+):\s(.*)$/.exec(l);
    if (!m) {
      this.inHttpHeaders = false;
      return false;
    }
    if (m[1].toLowerCase() === 'date') {
      const t = Date.parse(m[2]);
      if (Number.isFinite(t)) {
        this.header(t);
        this.inHttpHeaders = true;
      }
    }
    return true;
  }

  /** A scrape header: the samples below it without a time of their own are at `ts`. */
  private header(ts: number): void {
    this.inHttpHeaders = false;
    this.untimedBoundary = false;
    this.mapper.flush();
    this.scrapeTs = ts;
    this.pos = 0;
    this.untimed = false;
  }

  private sample(l: string, no: number): void {
    // Scrapes repeat their lines in the same order: the key at this position last scrape is tried
    // first, a compare instead of hashing a ~150-character key for the map (85 against 290 ns a line
    // here; String.prototype.startsWith measured 600).
    let keyEnd = -1;
    let target: Target | undefined;
    let pos = this.pos++;
    const guess = this.order[pos];
    if (guess !== undefined && l.slice(0, guess.key.length) === guess.key) {
      const c = l.charCodeAt(guess.key.length);
      if (c === 32 || c === 9) {
        keyEnd = guess.key.length;
        target = guess.target;
      }
    }
    if (target === undefined) {
      const brace = l.indexOf('{');
      keyEnd = sampleKeyEnd(l, brace);
      if (nativeValue(l, keyEnd)) {
        // A native histogram's sample (`{count:59,sum:…,buckets…}`): its sparse buckets are not read,
        // and no series is made for it.
        this.natives++;
        return;
      }
      const key = l.slice(0, keyEnd);
      target = this.targets.get(key);
      if (target === undefined) {
        target = this.resolve(key, brace >= 0 && brace < keyEnd ? brace : -1);
        this.targets.set(key, target);
      }
      // Scrapes with a timestamp on every sample and no header between them (an export) start over
      // where the first line's key comes again.
      if (pos > 0 && this.order[0]?.key === key) {
        pos = 0;
        this.pos = 1;
        // Scrapes appended with no time at all (`curl … >> file` in a loop) land on one time, each
        // replacing the one before: said at the end, as only the last one is kept.
        if (this.untimed) this.untimedRepeats++;
      }
      if (pos < ORDER_MAX) this.order[pos] = { key, target };
    }
    if (target.role === 'skip') return;
    // The usual ` <value>` and ` <value> <timestamp>` tails (single spaces), read in place where both are
    // plain decimals (plainTail), else through Number() (which trims as trim() does); anything else (an
    // exemplar, a value Number() cannot read, like +Inf) takes the general path below.
    if (plainTail(l, keyEnd, l.length)) {
      this.write(target, tailValue, tailTs, no);
      return;
    }
    if (l.charCodeAt(keyEnd) === 32 && l.indexOf('#', keyEnd + 1) < 0) {
      const sp = l.indexOf(' ', keyEnd + 1);
      if (sp < 0) {
        const v = Number(l.slice(keyEnd + 1));
        if (!Number.isNaN(v) && keyEnd + 1 < l.length) {
          this.mapper.write(target, this.scrapeTs ?? this.untimedTs(no), v);
          return;
        }
      } else if (sp > keyEnd + 1 && sp + 1 < l.length && l.indexOf(' ', sp + 1) < 0) {
        const v = Number(l.slice(keyEnd + 1, sp));
        const n = Number(l.slice(sp + 1));
        if (!Number.isNaN(v) && Number.isFinite(n)) {
          this.mapper.write(target, promMs(n), v);
          return;
        }
      }
    }
    let rest = l.slice(keyEnd).trim();
    const hash = rest.indexOf('#');
    if (hash >= 0) rest = rest.slice(0, hash).trim(); // OpenMetrics exemplar
    // dcgm-exporter writes its failure to read a field where the value goes: no reading, said as such.
    if (rest.startsWith('ERROR')) throw new Error(`no value: the exporter wrote "${rest.slice(0, 80)}" for a field it could not read`);
    // Value and timestamp, apart by any blanks or tabs.
    const parts = rest.split(/[ \t]+/);
    if (parts.length > 2) throw new Error(`unexpected "${parts.slice(2).join(' ')}" after the value and timestamp`);
    const value = parsePromNumber(parts[0]);
    let ts: number;
    if (parts.length === 2) {
      const n = Number(parts[1]);
      if (!Number.isFinite(n)) throw new Error(`bad timestamp "${parts[1]}"`);
      ts = promMs(n);
    } else if (this.scrapeTs !== null) {
      ts = this.scrapeTs;
    } else {
      ts = this.untimedTs(no);
    }
    this.mapper.write(target, ts, value);
  }

  private resolve(key: string, brace: number): Target {
    let name = brace >= 0 ? key.slice(0, brace).trimEnd() : key;
    const labels = brace >= 0 ? parseLabels(key, brace, key.length) : {};
    if (name === '' && labels.__name__ !== undefined) {
      // The name inside the set: quoted (Prometheus 3's UTF-8 names) or as `__name__` (promtool tsdb dump).
      name = labels.__name__;
      delete labels.__name__;
      if (!name) throw new Error('empty metric name');
    } else if (!NAME_RE.test(name)) throw new Error(`bad metric name "${name}"`);
    const cls = classify(name, labels, this.typeOf);
    // A bucket of a family with no type of its own (federation types each sample name `untyped`) makes the
    // family a histogram, so that its `_sum` and `_count` (after the buckets in name order) are its parts.
    if (cls.role === 'bucket') {
      const t = this.types.get(cls.family);
      if (t === undefined || t === 'untyped' || t === 'unknown') this.types.set(cls.family, 'histogram');
    }
    return this.mapper.target(name, labels, cls);
  }

  finish(lastLine: number): void {
    this.mapper.flush();
    if (this.natives) this.ctx.warn(`${this.natives} native histogram samples ({count:…} values) are not read: Quadscope keeps classic histograms (_bucket with le)`);
    if (this.untimedRepeats) {
      this.ctx.warn(
        `the same scrape comes ${this.untimedRepeats + 1} times with no time of its own (no timestamps, no "# time:" lines): all are placed at one time and only the last one is kept — put a "# time: <RFC 3339>" line (or the output of date -u +%FT%TZ) before each scrape`,
      );
    }
    this.guard.finish(lastLine);
  }
}

export async function importPrometheusText(input: EntryInput, sink: Sink, ctx: ImportContext): Promise<void> {
  const p = new TextParser(sink, ctx);
  const count: LineCount = { lines: 0 };
  for await (const pieces of linePieces(input.stream(), count, ctx)) {
    for (const piece of pieces) p.piece(piece, count);
  }
  p.finish(count.lines);
}

export function detectPrometheusText(head: Buffer): number {
  const lines = headLines(head).filter((l) => l.trim().length);
  if (!lines.length) return 0;
  let typed = 0;
  let samples = 0;
  let comments = 0;
  // `curl -i`'s response headers count for nothing either way.
  let headers = 0;
  let inHeaders = false;
  for (const l of lines) {
    if (l.startsWith('HTTP/') || (inHeaders && /^[A-Za-z0-9-]+:\s/.test(l))) {
      inHeaders = true;
      headers++;
      continue;
    }
    inHeaders = false;
    if (l.startsWith('# TYPE ') || l.startsWith('# HELP ') || parseScrapeHeader(l) !== null) typed++;
    else if (l.startsWith('#')) comments++;
    else if (SAMPLE_RE.test(l) || NAME_INSIDE_RE.test(l)) samples++;
  }
  if (samples === 0) return 0;
  const n = lines.length - headers;
  const share = (typed + comments + samples) / n;
  if (typed > 0 && share >= 0.7) return 0.9;
  if (samples >= 3 && (samples + comments) / n >= 0.9) return 0.7;
  return 0;
}

export const prometheusTextImporter: Importer = {
  format: 'prometheus-text',
  detect: (head) => detectPrometheusText(head),
  parallel: true,
  import: importPrometheusText,
};
