// Jaeger JSON: the query API / UI download `{data: [trace…]}`, one bare trace `{traceID, spans,
// processes}`, a bare array of spans as stored one by one (each with its own `process`) or of traces, one
// span as Jaeger's Elasticsearch/OpenSearch storage keeps it (its tag values as text beside their type, a
// `tag` map of tags as fields, `parentSpanID`), or an Elasticsearch `_search` answer of those
// (hits.hits[]._source). startTime/duration are µs; the parent is the first CHILD_OF reference within the
// trace, else its first FOLLOWS_FROM (Jaeger's rule). Read as a stream (json-path-scanner.ts), with no size
// limit: see JaegerStream for what is held.
//
// spans: trace_id / span_id as written (lower-case hex), attrs = tags, plus service.name (from the
// process), jaeger.logs (count), jaeger.references (non-parent references) and the request facts of
// span-attributes.ts.
import { ImportError, type Importer, type Position, type Sink } from './types';
import { identityOf } from './span-attributes';
import { RequestSeries } from './request-series';
import { nsSum, unitsToNs } from './ns-time';
import { SkippedSpans } from './skipped-spans';
import { JsonScanError, parseAt, pathText, scanJson, type JsonPath, type JsonPlace, type JsonVisitor, type Take, type ValueKind } from './json-path-scanner';
import { isObj, type Json } from './json-object';


export function detectJaeger(head: Buffer): number {
  const s = head.toString('utf8');
  if (!/"traceID"\s*:/.test(s)) return 0;
  if (/"operationName"\s*:/.test(s) && /"spans"\s*:/.test(s)) return 0.9;
  // A bare array of spans: Jaeger's span fields without a trace around them.
  if (/^\s*\[/.test(s) && /"operationName"\s*:/.test(s) && /"spanID"\s*:/.test(s) && /"startTime"\s*:/.test(s)) return 0.85;
  // One stored span, or an Elasticsearch answer of them: the same fields in an object.
  if (/^\s*\{/.test(s) && /"operationName"\s*:/.test(s) && /"spanID"\s*:/.test(s) && /"startTime(?:Millis)?"\s*:/.test(s)) return 0.85;
  return 0.4;
}

/**
 * A tag's value. Jaeger's storage documents (Elasticsearch/OpenSearch) keep every value as text beside its
 * type (`{"type":"int64","value":"23456"}`): read back as the number or boolean the UI shows.
 */
function tagValue(t: Json): unknown {
  const v = t.value;
  if (typeof v !== 'string') return v;
  if (t.type === 'bool') return v === 'true' ? true : v === 'false' ? false : v;
  if (t.type === 'int64') return /^-?\d{1,15}$/.test(v) ? Number(v) : v;
  if (t.type === 'float64') return Number.isFinite(Number(v)) && v.trim() !== '' ? Number(v) : v;
  return v;
}

/**
 * A span's or process's tags: the typed list, and (storage documents with tags as fields) the `tag` map,
 * whose keys spell the dots of a tag's name as `@`.
 */
function tags(list: unknown, fields?: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (Array.isArray(list)) for (const t of list) if (isObj(t) && typeof t.key === 'string') out[t.key] = tagValue(t);
  if (isObj(fields)) for (const k of Object.keys(fields)) out[k.replace(/@/g, '.')] = fields[k];
  return out;
}

/** Jaeger's µs (a number, or digits as text) in ns; null when it is none or past a 64-bit integer of ns. */
const usToNs = (v: unknown): bigint | null => unitsToNs(v, 1000n);

/**
 * One Jaeger span to the sink; false when it lacks what a span needs (warned, skipped). `at`: where the
 * span (or, for spans of a trace in a bare array, that trace) begins in the file.
 */
function emitSpan(sp: Json, trace: TraceState, sink: Sink, reqs: RequestSeries, warn: Warn, at: JsonPlace): boolean {
  const processes = trace.processes ?? {};
  const traceId = typeof sp.traceID === 'string' ? sp.traceID.toLowerCase() : typeof trace.traceID === 'string' ? trace.traceID.toLowerCase() : null;
  const spanId = typeof sp.spanID === 'string' ? sp.spanID.toLowerCase() : null;
  const start = usToNs(sp.startTime);
  const where = (key: string): Position => ({ line: at.line, offset: at.offset, key });
  if (!traceId || !spanId || sp.startTime === undefined) {
    warn('span without traceID, spanID or startTime, skipped', where(`data[${trace.index}].spans`));
    return false;
  }
  // 1e400, 25 digits, text: no time that a 64-bit integer of ns holds.
  if (start === null) {
    warn('span whose startTime is no time in µs (an integer below 2^63 ns), skipped', where('startTime'));
    return false;
  }
  const dur = sp.duration === undefined ? 0n : usToNs(sp.duration);
  const endNs = dur === null ? null : nsSum(start, dur);
  if (endNs === null) warn('span whose duration is no time in µs (or ends past 2^63 ns): ends where it starts', where('duration'));
  const refs = Array.isArray(sp.references) ? sp.references.filter(isObj) : [];
  // Jaeger's own rule (model.Span.ParentSpanID): the first CHILD_OF within the span's trace, else the
  // first FOLLOWS_FROM within it; a reference into another trace is never the parent.
  const sameTrace = (r: Json) => r.traceID === undefined || traceId === null || String(r.traceID).toLowerCase() === traceId;
  const parentRef = refs.find((r) => r.refType === 'CHILD_OF' && sameTrace(r)) ?? refs.find((r) => r.refType === 'FOLLOWS_FROM' && sameTrace(r)) ?? null;
  // A storage document names its parent itself (`parentSpanID`) where it has no reference to say it.
  const parentId = parentRef && typeof parentRef.spanID === 'string' ? parentRef.spanID.toLowerCase() : typeof sp.parentSpanID === 'string' && sp.parentSpanID && !/^0+$/.test(sp.parentSpanID) ? sp.parentSpanID.toLowerCase() : null;
  const own = tags(sp.tags, sp.tag);
  // A span of a trace names its process by id; a span stored on its own (a bare array) embeds it.
  const proc = typeof sp.processID === 'string' && isObj(processes[sp.processID]) ? (processes[sp.processID] as Json) : isObj(sp.process) ? sp.process : null;
  const attrs: Record<string, unknown> = {
    ...(proc ? identityOf(tags(proc.tags, proc.tag)) : {}),
    ...own,
    'service.name': proc?.serviceName,
    'jaeger.logs': Array.isArray(sp.logs) ? sp.logs.length : 0,
  };
  const others = refs.filter((r) => r !== parentRef);
  if (others.length) attrs['jaeger.references'] = others.map((r) => ({ refType: r.refType, traceID: r.traceID, spanID: r.spanID }));
  const end = endNs ?? start;
  reqs.addSpan(own, { start_ns: start, end_ns: end, statusError: own.error === true }, attrs);
  sink.span({
    trace_id: traceId,
    span_id: spanId,
    parent_id: parentId,
    name: typeof sp.operationName === 'string' ? sp.operationName : '',
    start_ns: start,
    end_ns: end,
    attrs,
  });
  return true;
}

type Warn = (message: string, where: Position) => void;

/** The members of one span as Jaeger's storage writes it (a document of its own). */
const SPAN_MEMBERS = new Set(['spanID', 'parentSpanID', 'operationName', 'references', 'startTime', 'duration', 'tags', 'tag', 'logs', 'process', 'flags', 'warnings']);

interface TraceState {
  index: number;
  /** null until the trace's `processes` member has been read. */
  processes: Json | null;
  traceID: unknown;
  sawTraceID: boolean;
  sawSpans: boolean;
  /** Span texts read before `processes` (or `traceID`), parsed once it comes. */
  held: { text: string; at: JsonPlace; path: string }[];
}

const newTrace = (index: number): TraceState => ({ index, processes: null, traceID: undefined, sawTraceID: false, sawSpans: false, held: [] });

/**
 * The document read as a stream, a span at a time. A span needs its trace's `processes` (for
 * service.name) and `traceID`, and Jaeger writes `processes` AFTER `spans`: so a trace's spans are held,
 * as text (about their size in memory, not the several times a parsed object takes), until its
 * `processes` has been read or the trace ends. What is held is thus bounded by one element of `data`
 * (for a bare trace, by the file: that is what a bare trace is). Where processes comes first, nothing is.
 * A top level with both `data` and its own `spans` is read as {data} (as JSON.parse of the whole would),
 * except for top-level spans that came before `data` with their processes already known.
 */
class JaegerStream implements JsonVisitor {
  spans = 0;
  sawData = false;
  private trace: TraceState | null = null;
  private readonly bare = newTrace(0);

  get sawBareSpans(): boolean {
    return this.bare.sawSpans;
  }

  constructor(
    private readonly sink: Sink,
    private readonly reqs: RequestSeries,
    private readonly warn: Warn,
  ) {}

  /** A bare top-level array: of spans (each with its own `process`), or of traces. */
  sawArray = false;
  /**
   * The top-level members of a document that may be one span as Jaeger stores it (Elasticsearch/OpenSearch,
   * Kibana's "inspect" of one hit): a span is small, its members are kept until the document ends.
   */
  private readonly single: Json = {};
  /** Spans read from an Elasticsearch/OpenSearch `_search` answer (`hits.hits[i]._source`). */
  sawHits = false;

  get sawSingle(): boolean {
    return typeof this.single.spanID === 'string' && typeof this.single.traceID === 'string';
  }

  enter(path: JsonPath, kind: ValueKind): Take {
    if (path.length === 0) {
      if (kind === 'array') {
        this.sawArray = true;
        return 'walk';
      }
      return kind === 'object' ? 'walk' : 'skip';
    }
    if (this.sawArray) return path.length === 1 && kind === 'object' ? 'parse' : 'skip';
    if (path[0] === 'hits') {
      if (path.length === 1) return kind === 'object' ? 'walk' : 'skip';
      if (path[1] !== 'hits') return 'skip';
      if (path.length === 2 || path.length === 3) return kind === 'array' || kind === 'object' ? 'walk' : 'skip';
      return path.length === 4 && path[3] === '_source' && kind === 'object' ? 'parse' : 'skip';
    }
    // The members of a trace: data[i].x, or x at the top for a bare trace.
    const inData = path[0] === 'data';
    const depth = inData ? path.length - 2 : path.length;
    if (inData && path.length === 1) {
      if (kind !== 'array') return 'skip';
      this.sawData = true;
      return 'walk';
    }
    if (inData && path.length === 2) {
      if (kind !== 'object') {
        this.warn(`trace ${path[1]} is not an object`, { key: `data[${path[1]}]` });
        return 'skip';
      }
      this.trace = newTrace(path[1] as number);
      return 'walk';
    }
    // A document with `data` is not itself a trace: its own spans, if any, are ignored.
    if (!inData && this.sawData) return 'skip';
    const trace = inData ? this.trace! : this.bare;
    const key = path[inData ? 2 : 0];
    if (depth === 1) {
      if (key === 'spans' && kind === 'array') {
        trace.sawSpans = true;
        return 'walk';
      }
      // (Also a lone span's own members: small, and kept only until the document is known not to be one.)
      return key === 'processes' || key === 'traceID' || (!inData && SPAN_MEMBERS.has(key as string)) ? 'parse' : 'skip';
    }
    if (depth === 2 && key === 'spans') return kind !== 'object' ? 'skip' : this.ready(trace) ? 'parse' : 'text';
    return 'skip';
  }

  value(path: JsonPath, v: unknown, at: JsonPlace): void {
    if (this.sawArray) {
      this.arrayItem(v, path[0] as number, at);
      return;
    }
    if (path[0] === 'hits') {
      this.sawHits = true;
      this.bare.sawSpans = true;
      this.emit(v, this.loneSpan(path[2] as number), at);
      return;
    }
    if (path.length === 1 && path[0] !== 'traceID' && path[0] !== 'processes') {
      if (!this.sawData && !this.bare.sawSpans) this.single[path[0] as string] = v as Json[string];
      return;
    }
    if (path.length === 1 && path[0] === 'traceID') this.single.traceID = v as Json[string];
    const inData = path[0] === 'data';
    const trace = inData ? this.trace! : this.bare;
    const key = path[inData ? 2 : 0];
    if ((inData ? path.length - 2 : path.length) === 2) {
      if (inData || !this.sawData) this.emit(v, trace, at);
    } else if (key === 'processes') {
      trace.processes = isObj(v) ? v : {};
      this.release(trace);
    } else if (key === 'traceID') {
      trace.traceID = v;
      trace.sawTraceID = true;
      this.release(trace);
    }
  }

  text(path: JsonPath, text: string, at: JsonPlace): void {
    (path[0] === 'data' ? this.trace! : this.bare).held.push({ text, at, path: pathText(path) });
  }

  /** An element of a bare array: a span, or a whole trace (`{traceID, spans, processes}`). */
  private arrayItem(v: unknown, index: number, at: JsonPlace): void {
    if (!isObj(v)) return;
    if (Array.isArray(v.spans)) {
      const trace: TraceState = { ...newTrace(index), processes: isObj(v.processes) ? v.processes : {}, traceID: v.traceID, sawTraceID: true, sawSpans: true };
      for (const sp of v.spans) this.emit(sp, trace, at);
      return;
    }
    this.bare.sawSpans = true;
    this.emit(v, this.loneSpan(index), at);
  }

  leave(path: JsonPath): void {
    if (this.sawArray) return;
    if (path.length === 0 && !this.sawData && !this.bare.sawSpans && !this.sawHits && this.sawSingle) {
      this.emit(this.single, this.loneSpan(this.bare.index), { line: 1, offset: 0 });
      return;
    }
    const atTrace = path.length === 2 && path[0] === 'data';
    if (!atTrace && path.length !== 0) return;
    // {data: […]} is not itself a trace; a top level with neither is not a Jaeger file (said after the scan).
    if (path.length === 0 && (this.sawData || !this.bare.sawSpans)) return;
    const trace = atTrace ? this.trace! : this.bare;
    trace.processes ??= {};
    trace.sawTraceID = true;
    this.release(trace);
    if (!trace.sawSpans) this.warn(`trace ${trace.index} has no spans list`, { key: `data[${trace.index}].spans` });
  }

  /** The trace state of a span stored on its own (its process embedded, its traceID its own). */
  private loneSpan(index: number): TraceState {
    return { ...this.bare, index, processes: {}, sawTraceID: true };
  }

  /** Whether a span of this trace can go to the sink as it is read. */
  private ready(trace: TraceState): boolean {
    return trace.processes !== null && trace.sawTraceID && trace.held.length === 0;
  }

  private release(trace: TraceState): void {
    if (trace.processes === null || !trace.sawTraceID || (trace === this.bare && this.sawData)) return;
    for (const h of trace.held) this.emit(parseAt(h.text, h.at, h.path), trace, h.at);
    trace.held.length = 0;
  }

  private emit(sp: unknown, trace: TraceState, at: JsonPlace): void {
    if (isObj(sp) && emitSpan(sp, trace, this.sink, this.reqs, this.warn, at)) this.spans++;
  }
}

export const jaegerImporter: Importer = {
  format: 'jaeger-json',
  detect: (head) => detectJaeger(head),
  async import(input, sink, ctx) {
    const reqs = new RequestSeries();
    const skipped = new SkippedSpans(ctx.warn);
    const doc = new JaegerStream(sink, reqs, skipped.warn);
    try {
      await scanJson(input.stream(), doc);
    } catch (e) {
      if (e instanceof JsonScanError) throw new ImportError(ctx.path, { line: e.line, offset: e.offset }, `malformed JSON: ${e.message}`);
      throw e;
    }
    if (!doc.sawData && !doc.sawBareSpans && !doc.sawArray && !doc.sawSingle) throw new ImportError(ctx.path, { key: 'data' }, 'not a Jaeger trace: expected {data: [trace…]}, a trace with spans, an array of spans, a stored span or an Elasticsearch answer of them');
    if (doc.spans === 0) throw skipped.none(ctx.path, { key: 'spans' }, 'no spans in this Jaeger file');
    reqs.flush(sink, (m) => ctx.warn(m));
  },
};
