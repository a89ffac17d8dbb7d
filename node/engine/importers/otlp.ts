// OTLP/JSON traces: one ExportTraceServiceRequest document, or the collector file exporter's JSON lines
// (one request per line), or Jaeger's api/v3 answer (`{"result": {"resourceSpans": …}}`, one per line when
// streamed). Old files say `instrumentationLibrarySpans`; ids are hex or base64; times are decimal strings
// or numbers; field names are lowerCamelCase or, as protobuf's JSON mapping also allows (Python's
// MessageToJson(preserving_proto_field_name=True)), the .proto's snake_case. Metrics requests
// (`resourceMetrics`, which the collector's file exporter writes into the same file or a file of their
// own) are read by otlp-metrics.ts, logs requests (`resourceLogs`) by otlp-logs.ts. opentelemetry-python's
// ConsoleSpanExporter output (one document a span, its own shape) is read as the requests it stands for.
//
// Read as a stream, with no size limit: the first request a span at a time (json-path-scanner.ts), so
// a multi-gigabyte single document never becomes one string; each later line, if any, whole (a line is
// one request). A malformed line after the first is skipped with a warning (a truncated last line is
// how a killed collector leaves its file); a malformed first request fails the import, since its spans
// have already gone to the sink by the time the error shows (the failed source rolls them back).
//
// spans: trace_id / span_id / parent_id as lower-case hex; attrs = the span's attributes (AnyValue
// flattened), plus service.name (from the resource), otel.kind, otel.scope, otel.status_code,
// otel.status_message, otel.events (count), and the request facts of span-attributes.ts.
import { ImportError, type Importer, type Position, type Sink } from './types';
import { FIRST_TOKEN_EVENT, identityOf } from './span-attributes';
import { RequestSeries } from './request-series';
import { MAX_VALUE_DEPTH, jsonTooDeep } from './json-error-offset';
import { JsonPathScanner, JsonScanError, type JsonPath, type JsonPlace, type JsonVisitor, type Take, type ValueKind } from './json-path-scanner';
import { SkippedSpans } from './skipped-spans';
import { JsonDocuments } from './json-documents';
import { DebugTextReader } from './otlp-debug-text';
import { attributes, hexId, isObj, otlpNanos, type Json } from './otlp-values';
import { OtlpLogs } from './otlp-logs';

export { hexId };
import { OtlpMetrics } from './otlp-metrics';

export function detectOtlp(head: Buffer): number {
  const s = head.toString('utf8');
  if (/"resource_?[sS]pans"\s*:/.test(s) || /"resource_?[mM]etrics"\s*:/.test(s) || /"resource_?[lL]ogs"\s*:/.test(s)) return 0.95;
  if (isConsoleSpans(head) || isBareElements(head) || DebugTextReader.detect(head.toString('utf8'))) return 0.9;
  // Grafana Tempo's v1 trace answer: the resource spans under `batches`.
  return /^\s*\{\s*"batches"\s*:\s*\[\s*(\]|\{\s*"(resource|scopeSpans|instrumentationLibrarySpans)"\s*:)/.test(s) ? 0.9 : 0;
}

/** OTLP's SpanKind enum; protobuf JSON writers may give the name (`SPAN_KIND_SERVER`) instead of the number. */
const SPAN_KINDS: Record<string, number> = {
  SPAN_KIND_UNSPECIFIED: 0,
  SPAN_KIND_INTERNAL: 1,
  SPAN_KIND_SERVER: 2,
  SPAN_KIND_CLIENT: 3,
  SPAN_KIND_PRODUCER: 4,
  SPAN_KIND_CONSUMER: 5,
};

/** A span's kind as OTLP/JSON's number, whichever way it was written; anything else as it came. */
function spanKind(k: unknown): unknown {
  return typeof k === 'string' && k in SPAN_KINDS ? SPAN_KINDS[k] : k;
}


/** Unix ns as a decimal string or a number; null when absent, not a number, or past what a 64-bit integer holds. */
export function nanos(v: unknown): bigint | null {
  return otlpNanos(v);
}

type Warn = (message: string, where: Position) => void;

/** One OTLP span to the sink; false when it lacks what a span needs (warned, skipped). */
function emitSpan(sp: Json, resource: Record<string, unknown>, scope: Json, sink: Sink, reqs: RequestSeries, where: Position, warn: Warn): boolean {
  const traceId = hexId(sp.traceId, 16);
  const spanId = hexId(sp.spanId, 8);
  const start = nanos(sp.startTimeUnixNano);
  if (!traceId || !spanId || sp.startTimeUnixNano === undefined) {
    warn('span without traceId, spanId or startTimeUnixNano, skipped', { ...where, key: 'spans' });
    return false;
  }
  // 1e400, "9999…9" (25 digits), text: no time that a 64-bit integer of ns holds.
  if (start === null) {
    warn('span whose startTimeUnixNano is no time in ns (an integer below 2^63), skipped', { ...where, key: 'startTimeUnixNano' });
    return false;
  }
  let end = sp.endTimeUnixNano === undefined ? start : nanos(sp.endTimeUnixNano);
  if (end === null) {
    warn('span whose endTimeUnixNano is no time in ns (an integer below 2^63): ends where it starts', { ...where, key: 'endTimeUnixNano' });
    end = start;
  }
  const own = attributes(sp.attributes);
  const status = isObj(sp.status) ? sp.status : {};
  const code = status.code === 2 || status.code === 'STATUS_CODE_ERROR' ? 2 : status.code === 1 || status.code === 'STATUS_CODE_OK' ? 1 : 0;
  const attrs: Record<string, unknown> = {
    ...identityOf(resource),
    ...own,
    'service.name': resource['service.name'],
    'otel.kind': spanKind(sp.kind),
    'otel.scope': typeof scope.name === 'string' ? scope.name : undefined,
    'otel.status_code': code,
    'otel.status_message': typeof status.message === 'string' ? status.message : undefined,
    'otel.events': Array.isArray(sp.events) ? sp.events.length : 0,
  };
  reqs.addSpan(own, { start_ns: start, end_ns: end, statusError: code === 2, statusMessage: typeof status.message === 'string' ? status.message : null, firstTokenNs: firstTokenAt(sp.events) }, attrs);
  sink.span({ trace_id: traceId, span_id: spanId, parent_id: hexId(sp.parentSpanId, 8), name: typeof sp.name === 'string' ? sp.name : '', start_ns: start, end_ns: end, attrs });
  return true;
}

/** The earliest first-token event's time (span-attributes.ts FIRST_TOKEN_EVENT), or null. */
function firstTokenAt(events: unknown): bigint | null {
  if (!Array.isArray(events)) return null;
  let at: bigint | null = null;
  for (const e of events) {
    if (!isObj(e) || typeof e.name !== 'string' || !FIRST_TOKEN_EVENT.test(e.name)) continue;
    const t = e.timeUnixNano === undefined ? null : nanos(e.timeUnixNano);
    if (t !== null && (at === null || t < at)) at = t;
  }
  return at;
}

const NOT_A_REQUEST = 'not an OTLP request (no resourceSpans or resourceMetrics)';

/** `resource_spans` → `resourceSpans`: protobuf's JSON mapping accepts the .proto's own field names. */
const camel = (k: string): string => k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/**
 * A parsed value with every field name in lowerCamelCase (only for files written with snake_case names). An
 * `attributes` object (the console exporters print attributes as one) holds the user's keys, kept as written.
 */
function camelKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(camelKeys);
  if (!isObj(v)) return v;
  const out: Json = {};
  for (const k in v) out[k.includes('_') ? camel(k) : k] = k === 'attributes' && isObj(v[k]) ? v[k] : camelKeys(v[k]);
  return out;
}

/** The start of opentelemetry-python's ConsoleSpanExporter output: `{"name": …, "context": {"trace_id": "0x…`. */
const CONSOLE_SPAN = /^\s*\{\s*"name"\s*:\s*"(?:[^"\\]|\\.)*"\s*,\s*"context"\s*:\s*\{\s*"trace_id"\s*:\s*"0x[0-9a-fA-F]{32}"/;

const CONSOLE_HEAD_BYTES = 4096;

function isConsoleSpans(head: Buffer): boolean {
  return CONSOLE_SPAN.test(head.toString('utf8', head[0] === 0xef ? 3 : 0, CONSOLE_HEAD_BYTES));
}

/**
 * opentelemetry-java's OtlpJsonLogging{Metric,Span,LogRecord}Exporter: one bare ResourceMetrics (ResourceSpans,
 * ResourceLogs) a line — `{"resource":{…},"scopeMetrics":[…]}`, no `resourceMetrics` around it — often after
 * java.util.logging's `INFO: ` with its date line above.
 */
const BARE_ELEMENT_PART = /"(?:scope|instrumentationLibrary)(?:Spans|Metrics|Logs)"\s*:\s*\[/;

function isBareElements(head: Buffer): boolean {
  const s = head.toString('utf8', head[0] === 0xef ? 3 : 0, CONSOLE_HEAD_BYTES);
  // The file's first object is the element itself (a request, a Tempo `batches` answer, open before it).
  const i = s.indexOf('{');
  if (i < 0 || s.slice(0, i).includes('[') || !/^\{\s*"resource"\s*:\s*\{/.test(s.slice(i))) return false;
  return BARE_ELEMENT_PART.test(s) && !/"resource_?[sSmMlL](?:pans|etrics|ogs)"\s*:/.test(s);
}

/** A bare element, as the request it is one element of; anything else as it came. */
function wrapBareElement(doc: unknown): unknown {
  if (!isObj(doc) || !isObj(doc.resource)) return doc;
  if (Array.isArray(doc.scopeMetrics) || Array.isArray(doc.instrumentationLibraryMetrics)) return { resourceMetrics: [doc] };
  if (Array.isArray(doc.scopeSpans) || Array.isArray(doc.instrumentationLibrarySpans)) return { resourceSpans: [doc] };
  if (Array.isArray(doc.scopeLogs) || Array.isArray(doc.instrumentationLibraryLogs)) return { resourceLogs: [doc] };
  return doc;
}

/** A line of java.util.logging (`INFO: {"resource":…`): the text before the element, which starts the document. */
function beforeBareElement(line: string): number {
  if (/^\s*[{[]/.test(line)) return 0;
  const m = /\{\s*"resource"\s*:\s*\{/.exec(line);
  return m && m.index <= 200 ? m.index : 0;
}

const CONSOLE_KINDS: Record<string, number> = { INTERNAL: 1, SERVER: 2, CLIENT: 3, PRODUCER: 4, CONSUMER: 5 };

/** `2023-11-14T22:13:20.123456Z` (the console exporter's µs times) as Unix ns in decimal digits, or null. */
function isoNanos(v: unknown): string | null {
  const m = typeof v === 'string' ? /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:?\d\d)$/.exec(v) : null;
  const s = m ? Date.parse(`${m[1]}${m[3]}`) : NaN;
  return Number.isFinite(s) ? String(BigInt(s) * 1_000_000n + BigInt((m![2] ?? '').padEnd(9, '0'))) : null;
}

/**
 * One span of opentelemetry-python's ConsoleSpanExporter (`span.to_json()`: `context.trace_id` as `0x…`,
 * `kind` as `SpanKind.SERVER`, ISO times in µs, attributes as an object, `status.status_code`) as the OTLP
 * request it stands for.
 */
function fromConsoleSpan(d: Json): Json {
  const c = d.context as Json;
  const hex = (v: unknown) => (typeof v === 'string' ? v.replace(/^0x/, '') : undefined);
  const st = isObj(d.status) ? d.status : {};
  const status = st.status_code === 'ERROR' ? { code: 2, message: st.description } : st.status_code === 'OK' ? { code: 1 } : {};
  const resource = isObj(d.resource) ? d.resource.attributes : undefined;
  const kind = typeof d.kind === 'string' ? CONSOLE_KINDS[d.kind.replace(/^SpanKind\./, '')] : d.kind;
  const span = { traceId: hex(c.trace_id), spanId: hex(c.span_id), parentSpanId: hex(d.parent_id), name: d.name, kind, startTimeUnixNano: isoNanos(d.start_time) ?? d.start_time, endTimeUnixNano: isoNanos(d.end_time) ?? undefined, attributes: d.attributes, status, events: d.events };
  return { resourceSpans: [{ resource: { attributes: resource }, scopeSpans: [{ scope: {}, spans: [span] }] }] };
}

/** Whether a request names its parts in snake_case. */
const isSnake = (doc: Json): boolean => 'resource_spans' in doc || 'resource_metrics' in doc || 'resource_logs' in doc;

/** What a file holds besides spans: its metric points and its log records. */
interface Others {
  metrics: OtlpMetrics;
  logs: OtlpLogs;
}

/** One parsed request (a line of the collector's file, or of Jaeger's api/v3 answer stream). */
function importRequest(doc: unknown, sink: Sink, reqs: RequestSeries, others: Others, where: Position, warn: Warn): number {
  if (isObj(doc) && isObj(doc.result) && !('resourceSpans' in doc)) doc = doc.result;
  if (isObj(doc) && isObj(doc.context) && 'trace_id' in doc.context) doc = fromConsoleSpan(doc);
  if (isObj(doc) && isSnake(doc)) doc = camelKeys(doc);
  doc = wrapBareElement(doc);
  if (isObj(doc) && Array.isArray(doc.resourceMetrics)) {
    for (const rm of doc.resourceMetrics) if (isObj(rm)) others.metrics.resourceMetrics(rm, attributes(isObj(rm.resource) ? rm.resource.attributes : undefined), where);
    return 0;
  }
  if (isObj(doc) && Array.isArray(doc.resourceLogs)) {
    for (const rl of doc.resourceLogs) if (isObj(rl)) others.logs.resourceLogs(rl, where);
    return 0;
  }
  if (!isObj(doc) || !Array.isArray(doc.resourceSpans)) {
    warn(NOT_A_REQUEST, { ...where, key: 'resourceSpans' });
    return 0;
  }
  let n = 0;
  for (const rs of doc.resourceSpans) {
    if (!isObj(rs)) continue;
    const resource = attributes(isObj(rs.resource) ? rs.resource.attributes : undefined);
    const scopes = Array.isArray(rs.scopeSpans) ? rs.scopeSpans : Array.isArray(rs.instrumentationLibrarySpans) ? rs.instrumentationLibrarySpans : [];
    for (const ss of scopes) {
      if (!isObj(ss) || !Array.isArray(ss.spans)) continue;
      const scope = isObj(ss.scope) ? ss.scope : isObj(ss.instrumentationLibrary) ? ss.instrumentationLibrary : {};
      for (const sp of ss.spans) if (isObj(sp) && emitSpan(sp, resource, scope, sink, reqs, where, warn)) n++;
    }
  }
  return n;
}

/**
 * One request read as a stream, a span at a time: resourceSpans[i] → resource, scopeSpans[j] (or the
 * old instrumentationLibrarySpans[j]) → scope, spans[k]. Exporters write resource before scopeSpans and
 * scope before spans, and then nothing is held. When a file has them after, the spans wait for them
 * (or for the end of their element), so what is held is bounded by one resourceSpans element. Where a
 * file has both scopeSpans and instrumentationLibrarySpans (no exporter writes both), both are read,
 * and the first of scope / instrumentationLibrary that is an object names the scope.
 */
class RequestStream implements JsonVisitor {
  spans = 0;
  /** Whether the request had resourceSpans, resourceMetrics or resourceLogs. */
  sawRequest = false;
  /** A resourceSpans / resourceMetrics member that is not an array, as a non-OTLP writer shapes it. */
  notArray: string | null = null;
  /** Which of them the value being read is under. */
  private section: 'spans' | 'metrics' | 'logs' | null = null;
  /** Field names in snake_case (`resource_spans`, …): paths and parsed values are read in lowerCamelCase. */
  private snake = false;
  private resource: Record<string, unknown> | null = null;
  private scope: { of: Json | null } = { of: null };
  private readonly pending: { sp: Json; scope: { of: Json | null }; at: JsonPlace }[] = [];

  constructor(
    private readonly sink: Sink,
    private readonly reqs: RequestSeries,
    private readonly others: Others,
    private readonly warn: Warn,
  ) {}

  /**
   * The member that wraps the request, if any: Jaeger's api/v3 answers `{"result": {"resourceSpans": …}}`,
   * Grafana Tempo's v2 answers `{"trace": {"resourceSpans": …}}`.
   */
  private wrapper: string | null = null;

  /** The path within the request (without its wrapper), or null for a value outside it. */
  private inner(outer: JsonPath): JsonPath | null {
    const path = this.wrapper === null ? outer : outer.length === 0 ? outer : outer[0] === this.wrapper ? outer.slice(1) : null;
    return path && this.snake ? path.map((k) => (typeof k === 'string' && k.includes('_') ? camel(k) : k)) : path;
  }

  enter(outer: JsonPath, kind: ValueKind): Take {
    if (outer.length === 1 && (outer[0] === 'result' || outer[0] === 'trace') && kind === 'object' && !this.sawRequest && this.wrapper === null) {
      this.wrapper = outer[0] as string;
      return 'walk';
    }
    const path = this.inner(outer);
    if (path === null) return 'skip';
    const container = kind === 'object' || kind === 'array';
    switch (path.length) {
      case 0:
        return kind === 'object' ? 'walk' : 'skip';
      case 1: {
        if (typeof path[0] !== 'string') return 'skip';
        // opentelemetry-rust's stdout exporter writes one object where OTLP/JSON has the array.
        if (kind === 'object' && /^resource_?(Spans|Metrics|spans|metrics)$/.test(path[0])) this.notArray ??= path[0];
        if (kind !== 'array') return 'skip';
        if (!this.sawRequest && /^resource_(spans|metrics|logs)$/.test(path[0])) {
          this.snake = true;
          return this.enter(outer, kind);
        }
        // Tempo's v1 answer names the resource spans `batches`.
        this.section = path[0] === 'resourceSpans' || path[0] === 'batches' ? 'spans' : path[0] === 'resourceMetrics' ? 'metrics' : path[0] === 'resourceLogs' ? 'logs' : null;
        if (!this.section) return 'skip';
        this.sawRequest = true;
        return 'walk';
      }
      case 2:
        if (kind !== 'object') return 'skip';
        // A resourceMetrics or resourceLogs element is read whole: what is held is bounded by one element, as for spans.
        if (this.section === 'metrics' || this.section === 'logs') return 'parse';
        this.resource = null;
        return 'walk';
      case 3:
        if (path[2] === 'resource') return 'parse';
        return kind === 'array' && (path[2] === 'scopeSpans' || path[2] === 'instrumentationLibrarySpans') ? 'walk' : 'skip';
      case 4:
        if (kind !== 'object') return 'skip';
        this.scope = { of: null };
        return 'walk';
      case 5:
        if (path[4] === 'scope' || path[4] === 'instrumentationLibrary') return container ? 'parse' : 'skip';
        return path[4] === 'spans' && kind === 'array' ? 'walk' : 'skip';
      case 6:
        return kind === 'object' ? 'parse' : 'skip';
      default:
        return 'skip';
    }
  }

  value(outer: JsonPath, v: unknown, at: JsonPlace): void {
    const path = this.inner(outer);
    if (path === null) return;
    if (this.snake) v = camelKeys(v);
    if (path.length === 2) {
      if (!isObj(v)) return;
      if (this.section === 'logs') this.others.logs.resourceLogs(v, { line: at.line, offset: at.offset });
      else this.others.metrics.resourceMetrics(v, attributes(isObj(v.resource) ? v.resource.attributes : undefined), { line: at.line, offset: at.offset });
    } else if (path.length === 6) {
      if (!isObj(v)) return;
      if (this.resource && this.scope.of && this.pending.length === 0) this.emit(v, this.scope.of, at);
      else this.pending.push({ sp: v, scope: this.scope, at });
    } else if (path.length === 3) {
      this.resource = attributes(isObj(v) ? v.attributes : undefined);
      this.flush();
    } else if (path.length === 5 && isObj(v) && !this.scope.of) {
      this.scope.of = v;
      this.flush();
    }
  }

  leave(outer: JsonPath): void {
    const path = this.inner(outer);
    if (path === null || (this.wrapper !== null && outer.length < 2)) return;
    if (path.length === 4) {
      this.scope.of ??= {};
      this.flush();
    } else if (path.length === 2) {
      this.resource ??= {};
      this.flush();
    }
  }

  private flush(): void {
    if (!this.resource) return;
    let i = 0;
    for (; i < this.pending.length && this.pending[i].scope.of; i++) this.emit(this.pending[i].sp, this.pending[i].scope.of!, this.pending[i].at);
    this.pending.splice(0, i);
  }

  /** `at`: where the span's object begins, so a warning about it names its line and byte. */
  private emit(sp: Json, scope: Json, at: JsonPlace): void {
    if (emitSpan(sp, this.resource!, scope, this.sink, this.reqs, { line: at.line, offset: at.offset }, this.warn)) this.spans++;
  }
}

/**
 * Warnings of the first request, held until what follows it says whether it was line 1 of JSON lines
 * (then they name the line) or the whole file. Repeats are counted, not stored.
 */
class HeldWarnings {
  /** A run of repeats keeps the place of its first (the line and byte of the span it was about). */
  private readonly items: { message: string; where: Position; count: number }[] = [];

  add = (message: string, where: Position): void => {
    const last = this.items[this.items.length - 1];
    if (last && last.message === message && last.where.key === where.key) last.count++;
    else this.items.push({ message, where, count: 1 });
  };

  replay(warn: Warn, line?: number): void {
    for (const w of this.items) for (let k = 0; k < w.count; k++) warn(w.message, line === undefined ? w.where : { ...w.where, line });
    this.items.length = 0;
  }
}

interface Line {
  text: string;
  line: number;
  /** Byte offset of the line's start. */
  offset: number;
  /** Whether a newline ended it (the file's last line may lack one). */
  terminated: boolean;
}

/** The lines from `first` on (then the rest of the stream), with their byte offsets. */
async function* linesFrom(first: Buffer, rest: AsyncIterator<Buffer>, offset: number, line: number): AsyncGenerator<Line> {
  let parts: Buffer[] = [];
  let lineStart = offset;
  let chunkStart = offset;
  for (let chunk: Buffer | null = first; chunk; ) {
    let from = 0;
    for (let nl = chunk.indexOf(0x0a); nl >= 0; nl = chunk.indexOf(0x0a, from)) {
      parts.push(chunk.subarray(from, nl));
      yield { text: (parts.length === 1 ? parts[0] : Buffer.concat(parts)).toString('utf8'), line: line++, offset: lineStart, terminated: true };
      parts = [];
      from = nl + 1;
      lineStart = chunkStart + from;
    }
    if (from < chunk.length) parts.push(chunk.subarray(from));
    chunkStart += chunk.length;
    const r = await rest.next();
    chunk = r.done ? null : r.value;
  }
  if (parts.length) yield { text: Buffer.concat(parts).toString('utf8'), line, offset: lineStart, terminated: false };
}

/** The largest later document held whole (one request: a collector's batch is a few MB). */
const MAX_DOCUMENT_CHARS = 64 * 2 ** 20;

/** Malformed lines after which a file that is mostly them is given up on (GarbageGuard's rule). */
const GIVE_UP_AFTER = 1000;

const leadingBytes = (text: string) => Buffer.byteLength(text.slice(0, text.length - text.trimStart().length));

export const otlpImporter: Importer = {
  format: 'otlp-json',
  detect: (head) => detectOtlp(head),
  async import(input, sink, ctx) {
    const reqs = new RequestSeries();
    const held = new HeldWarnings();
    // The first request streams (it may be the whole, multi-gigabyte file); whether more follow, one
    // per line (the collector's file exporter), is known only after it.
    const skipped = new SkippedSpans(held.add);
    // Metric warnings are held with the first request's, and go straight out once it is placed.
    let metricWarn: Warn = held.add;
    const others: Others = { metrics: new OtlpMetrics(sink, (m, w) => metricWarn(m, w)), logs: new OtlpLogs(sink, ctx, (m, w) => metricWarn(m, w)) };
    const first = new RequestStream(sink, reqs, others, skipped.warn);
    const scanner = new JsonPathScanner(first, { after: 'stop' });
    const chunks = input.stream()[Symbol.asyncIterator]();
    // The head (4 KiB, whatever the chunks' size) says whether this is opentelemetry-python's
    // ConsoleSpanExporter output: one small document a span, read as documents from the start.
    const pre: Buffer[] = [];
    let preBytes = 0;
    let ended = false;
    while (preBytes < CONSOLE_HEAD_BYTES) {
      const r = await chunks.next();
      if (r.done) {
        ended = true;
        break;
      }
      pre.push(r.value);
      preBytes += r.value.length;
    }
    // The collector's debug exporter prints each batch as text: read block by block into the requests it printed.
    const headBytes = Buffer.concat(pre);
    if (preBytes > 0 && DebugTextReader.detect(headBytes.toString('utf8'))) {
      const reader = new DebugTextReader();
      const rest: AsyncIterator<Buffer> = { next: async () => (ended ? { done: true, value: undefined } : chunks.next()) };
      const take = (b: { doc: Json; line: number } | null) => {
        if (b) spans += importRequest(b.doc, sink, reqs, others, { line: b.line }, skipped.to(ctx.warn));
      };
      let spans = 0;
      metricWarn = ctx.warn;
      for await (const l of linesFrom(headBytes, rest, 0, 1)) take(reader.line(l.text, l.line));
      take(reader.finish());
      others.metrics.finish({ key: 'resourceMetrics' });
      others.logs.finish({ key: 'resourceLogs' });
      if (spans === 0 && others.metrics.points === 0 && others.logs.records === 0) throw skipped.none(ctx.path, { line: 1 }, "no spans, metric points or log records in the debug exporter's output");
      if (reader.other) ctx.warn(`${reader.other} lines of the collector's own log between the exported batches skipped`);
      reqs.flush(sink, (m) => ctx.warn(m));
      return;
    }
    // Java's logging exporters' bare elements go the same way: whole documents, each read as the request it is part of.
    const consoleShape = preBytes > 0 && (isConsoleSpans(headBytes) || isBareElements(headBytes));
    // The chunks read ahead, then the rest of the stream.
    const source: AsyncIterator<Buffer> = {
      next: async () => (pre.length ? { done: false, value: pre.shift()! } : ended ? { done: true, value: undefined } : chunks.next()),
    };
    let rest: Buffer | null = consoleShape ? headBytes : null;
    if (consoleShape) pre.length = 0;
    if (!consoleShape) {
      try {
        for (;;) {
          const r = await source.next();
          if (r.done) {
            scanner.end();
            break;
          }
          const at = scanner.write(r.value);
          if (at >= 0) {
            rest = r.value.subarray(at);
            break;
          }
        }
      } catch (e) {
        if (e instanceof JsonScanError) throw new ImportError(ctx.path, { line: e.line, offset: e.offset }, `not valid OTLP/JSON: ${e.message}`);
        throw e;
      }
      if (!first.sawRequest && first.notArray) {
        throw new ImportError(ctx.path, { key: first.notArray }, `"${first.notArray}" is an object, not the array OTLP/JSON has (opentelemetry-rust's stdout exporter writes this shape): not read; export with the OTLP file exporter`);
      }
      if (!first.sawRequest) held.add(NOT_A_REQUEST, { key: 'resourceSpans' });
    }
    let spans = first.spans;
    const firstEndLine = consoleShape ? 1 : scanner.line;

    let byLines = false;
    // Documents one after another over many lines (`jq .` of the collector's lines, the SDKs' console exporters).
    let docs: JsonDocuments | null = consoleShape ? new JsonDocuments(MAX_DOCUMENT_CHARS) : null;
    if (consoleShape) metricWarn = ctx.warn;
    let good = consoleShape ? 0 : 1;
    let bad = 0;
    let firstBad: Position | null = null;
    /** One later request's text; false when it is not JSON (warned). */
    const request = (text: string, where: Position, truncated: boolean): boolean => {
      let d: unknown;
      try {
        // A later request is parsed whole: too deep a one would overflow the stack in anyValue() after.
        const deep = jsonTooDeep(text, MAX_VALUE_DEPTH);
        if (deep >= 0) throw new Error(`nested deeper than ${MAX_VALUE_DEPTH} levels: refused`);
        d = JSON.parse(text);
      } catch (e) {
        bad++;
        firstBad ??= where;
        if (truncated) ctx.warn('truncated last line', { line: where.line });
        else ctx.warn(`malformed JSON: ${(e as Error).message}`, { line: where.line });
        return false;
      }
      good++;
      spans += importRequest(d, sink, reqs, others, { line: where.line }, skipped.to(ctx.warn));
      return true;
    };
    if (rest) {
      for await (const l of linesFrom(rest, source, consoleShape ? 0 : scanner.offset - rest.length, firstEndLine)) {
        const text = l.text.trim();
        if (!text) continue;
        if (!byLines && !docs) {
          // JSON lines when the first request was all of line 1 and this is a later line; else documents one
          // after another.
          if (firstEndLine !== 1 || l.line === 1) {
            docs = new JsonDocuments(MAX_DOCUMENT_CHARS);
            held.replay(ctx.warn);
          } else {
            byLines = true;
            held.replay(ctx.warn, 1);
          }
          metricWarn = ctx.warn;
        }
        if (docs) {
          let done;
          try {
            const cut = docs.open ? 0 : beforeBareElement(l.text);
            done = cut ? docs.line(l.text.slice(cut), l.line, l.offset + Buffer.byteLength(l.text.slice(0, cut))) : docs.line(l.text, l.line, l.offset);
          } catch (e) {
            throw new ImportError(ctx.path, { line: docs.openLine }, `not valid OTLP/JSON: ${(e as Error).message} (write one request a line: jq -c)`);
          }
          for (const d of done) request(d.text, { line: d.line, offset: d.offset }, false);
          continue;
        }
        // Mostly unreadable by a thousand lines: no collector wrote it, and reading on costs a parse and a
        // warning a line (a megabyte of 4-byte lines took 2 s).
        if (!request(text, { line: l.line, offset: l.offset + leadingBytes(l.text) }, !l.terminated) && bad >= GIVE_UP_AFTER && bad > good) break;
      }
    }
    if (docs?.open) {
      bad++;
      firstBad ??= { line: docs.openLine };
      ctx.warn('truncated last document', { line: docs.openLine });
    }
    if (docs?.strayLines) ctx.warn(`${docs.strayLines} lines of text between the JSON documents skipped`);
    if (!byLines && !docs) held.replay(ctx.warn);
    else if (bad > good) throw new ImportError(ctx.path, firstBad ?? {}, 'not valid OTLP/JSON (neither one document nor JSON lines)');
    metricWarn = ctx.warn;
    others.metrics.finish({ key: 'resourceMetrics' });
    others.logs.finish({ key: 'resourceLogs' });
    if (spans === 0 && others.metrics.points === 0 && others.logs.records === 0) {
      if (others.metrics.seen) {
        const why = others.metrics.firstProblem;
        throw new ImportError(ctx.path, { key: 'resourceMetrics' }, `no spans and no readable metric points in this OTLP file${why ? `: ${why}` : ''}`);
      }
      throw skipped.none(ctx.path, { key: 'resourceSpans' }, 'no spans in this OTLP file');
    }
    reqs.flush(sink, (m) => ctx.warn(m));
  },
};
