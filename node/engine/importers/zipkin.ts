// Zipkin v2 JSON (zipkin-api's zipkin2-api.yaml): a JSON array of spans — what `/api/v2/trace/{id}` answers,
// what Zipkin's UI saves as "Download JSON", what collectors' zipkin exporters POST to `/api/v2/spans` — or
// an array of such arrays, one per trace (`/api/v2/traces`). A span is `{traceId, id, parentId?, name?, kind?,
// timestamp, duration, localEndpoint?, remoteEndpoint?, annotations?, tags?, debug?, shared?}` with epoch µs
// times. Read as a stream (json-path-scanner.ts), a span at a time: what is held is one span, whatever the
// file's size.
//
// spans: trace_id / span_id / parent_id as written (lower-cased), start_ns = timestamp × 1000 (exact: digits
// as text, or a JSON number up to 2^53 µs, the most a double holds exactly), end_ns = start + duration × 1000.
// attrs = the tags (values as written, strings per the spec), plus service.name (localEndpoint), span.kind
// (`client`, `server`, `producer`, `consumer`: the `span.kind` tag Jaeger and OpenTracing write, which the
// model reads as the request's side), peer.service (remoteEndpoint), zipkin.local / zipkin.remote
// (`ip:port` of the endpoints, telling replicas apart), zipkin.shared / zipkin.debug (when true),
// zipkin.annotations (their count, a number as jaeger.logs and otel.events are) with, for 1 to 16 of them,
// zipkin.annotation_values ([{at_us: µs after the span's start, value}]: Zipkin's annotations are few
// short events — "ws", "wr", "retry" — worth seeing, but a span with hundreds is a log), and the request
// facts of span-attributes.ts (an `error` tag, whatever its value, or OpenTelemetry's `otel.status_code`
// ERROR, is an error, as Zipkin's UI reads it).
//
// Zipkin specifics kept as they are: the two halves of an RPC that share one id (the client's span, and the
// server's marked `shared: true`) stay two spans with that id and the same parent, siblings, as Zipkin
// stores them. A span without a timestamp (a span's late data — tags, a shared half — reported apart, or a
// span never started; the spec allows it) is skipped, counted in one warning; one without a duration (still
// open, or its end reported apart) ends where it starts, counted in one warning. Zipkin v1 JSON (annotations
// with `endpoint`, `binaryAnnotations`) is detected and refused, saying how to get v2.
import { ImportError, type Importer, type Position, type Sink } from './types';
import { RequestSeries } from './request-series';
import { nsSum, unitsToNs } from './ns-time';
import { SkippedSpans } from './skipped-spans';
import { JsonScanError, pathText, scanJson, type JsonPath, type JsonPlace, type JsonVisitor, type Take, type ValueKind } from './json-path-scanner';
import { isObj, type Json } from './json-object';


/** Zipkin's camelCase `traceId` (Jaeger writes `traceID`) holding 16 to 32 hex digits, and a span's own `id`. */
const TRACE_ID = /"traceId"\s*:\s*"[0-9a-fA-F]{16,32}"/;
const SPAN_ID = /[{,]\s*"id"\s*:\s*"[0-9a-fA-F]{1,16}"/;
const TIMESTAMP = /[{,]\s*"timestamp"\s*:\s*"?\d/;
const ENDPOINT = /"(local|remote)Endpoint"\s*:\s*\{/;
/**
 * What only other span formats write: OTLP's ids and times (its bare elements, arrays of them), Jaeger's span
 * arrays, Chrome/Kineto event arrays (OTLP requests and snake_case files open with `{`, refused above).
 */
const OTHER_SPANS = /"(spanId|startTimeUnixNano|resourceSpans|scopeSpans|traceID|spanID|operationName|traceEvents)"\s*:|"ph"\s*:\s*"/;
/** Zipkin v1: annotations carry their `endpoint` (v2 has only local/remoteEndpoint), tags are `binaryAnnotations`. */
const V1 = /"binaryAnnotations"\s*:|"endpoint"\s*:\s*\{/;

export function detectZipkin(head: Buffer): number {
  const s = head.toString('utf8', head[0] === 0xef ? 3 : 0);
  // Always an array: of spans, or of traces (arrays of spans; a trace list may open with empty ones).
  if (!/^\s*\[\s*(\[\s*\]\s*,\s*)*(\[\s*)?\{/.test(s)) return 0;
  if (!TRACE_ID.test(s) || !SPAN_ID.test(s) || OTHER_SPANS.test(s)) return 0;
  if (V1.test(s)) return 0.85; // claimed to be refused with a clear message, not skipped as unknown
  if (ENDPOINT.test(s) && TIMESTAMP.test(s)) return 0.95;
  return TIMESTAMP.test(s) || ENDPOINT.test(s) ? 0.85 : 0;
}

type Warn = (message: string, where: Position) => void;

/** Annotations listed by value up to this many; past it only counted. */
const MAX_LISTED_ANNOTATIONS = 16;
const MAX_ANNOTATION_CHARS = 200;

/**
 * Zipkin's µs (a JSON number, or digits as text) in ns; null when it is none. A number past 2^53 µs (the
 * year 2255) has already lost digits in the double JSON.parse made of it: no exact time, refused.
 */
function usToNs(v: unknown): bigint | null {
  if (typeof v === 'number' && !(Math.abs(v) <= Number.MAX_SAFE_INTEGER)) return null;
  return unitsToNs(v, 1000n);
}

const idOf = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v.toLowerCase() : null);

/** `10.0.0.1:8000`, `[2001:db8::1]:9000`, or null for an endpoint without an address. */
function address(ep: Json): string | null {
  const ip = typeof ep.ipv4 === 'string' && ep.ipv4 ? ep.ipv4 : typeof ep.ipv6 === 'string' && ep.ipv6 ? `[${ep.ipv6}]` : null;
  const port = typeof ep.port === 'number' && ep.port > 0 ? ep.port : null;
  if (ip === null) return port === null ? null : `:${port}`;
  return port === null ? ip.replace(/^\[(.*)\]$/, '$1') : `${ip}:${port}`;
}

/** A span in Zipkin v1's shape: refused, since its kind, times and endpoints live in its annotations. */
function isV1(sp: Json): boolean {
  return Array.isArray(sp.binaryAnnotations) || (Array.isArray(sp.annotations) && sp.annotations.some((a) => isObj(a) && isObj(a.endpoint)));
}

export const V1_REFUSED =
  'Zipkin v1 JSON (annotations with an endpoint, binaryAnnotations) is not read: POST it to a Zipkin server (/api/v1/spans) and save /api/v2/traces, or its UI\'s "Download JSON", which is v2';

/**
 * One Zipkin span to the sink; false when it lacks what a span needs (warned, skipped). `noEnd` counts the
 * spans that end where they start.
 */
function emitSpan(sp: Json, sink: Sink, reqs: RequestSeries, warn: Warn, noEnd: Warn, at: Position): boolean {
  const key = at.key ?? '';
  const where = (field?: string): Position => ({ line: at.line, offset: at.offset, key: field ? `${key}.${field}` : key });
  const traceId = idOf(sp.traceId);
  const spanId = idOf(sp.id);
  // zipkin2 reads a timestamp of 0 as none ("unset").
  if (!traceId || !spanId || sp.timestamp === undefined || sp.timestamp === null || sp.timestamp === 0) {
    warn('span without traceId, id or timestamp, skipped', where());
    return false;
  }
  const start = usToNs(sp.timestamp);
  // -1, 1e400, 2^60, text: no time that a 64-bit integer of ns holds exactly.
  if (start === null || start < 0n) {
    warn('span whose timestamp is no time in µs (a whole number of µs since 1970, below 2^53), skipped', where('timestamp'));
    return false;
  }
  let end = start;
  if (sp.duration === undefined || sp.duration === null || sp.duration === 0) noEnd('span without a duration (still open, or its end reported apart): ends where it starts', where('duration'));
  else {
    const dur = usToNs(sp.duration);
    const e = dur === null || dur < 0n ? null : nsSum(start, dur);
    if (e === null) noEnd('span whose duration is no time in µs (or ends past 2^63 ns): ends where it starts', where('duration'));
    else end = e;
  }
  const own: Json = isObj(sp.tags) ? { ...sp.tags } : {};
  const local = isObj(sp.localEndpoint) ? sp.localEndpoint : null;
  const remote = isObj(sp.remoteEndpoint) ? sp.remoteEndpoint : null;
  const attrs: Record<string, unknown> = { ...own };
  if (local && typeof local.serviceName === 'string' && local.serviceName) attrs['service.name'] = local.serviceName;
  if (typeof sp.kind === 'string' && sp.kind) attrs['span.kind'] = sp.kind.toLowerCase();
  if (remote && typeof remote.serviceName === 'string' && remote.serviceName) attrs['peer.service'] = remote.serviceName;
  const localAddr = local && address(local);
  const remoteAddr = remote && address(remote);
  if (localAddr) attrs['zipkin.local'] = localAddr;
  if (remoteAddr) attrs['zipkin.remote'] = remoteAddr;
  if (sp.shared === true) attrs['zipkin.shared'] = true;
  if (sp.debug === true) attrs['zipkin.debug'] = true;
  const notes = Array.isArray(sp.annotations) ? sp.annotations : [];
  attrs['zipkin.annotations'] = notes.length;
  if (notes.length && notes.length <= MAX_LISTED_ANNOTATIONS) {
    attrs['zipkin.annotation_values'] = notes.map((a) => {
      const t = isObj(a) ? usToNs(a.timestamp) : null;
      const value = isObj(a) && a.value !== undefined && a.value !== null ? String(a.value) : '';
      return { at_us: t === null ? null : Number((t - start) / 1000n), value: value.length > MAX_ANNOTATION_CHARS ? `${value.slice(0, MAX_ANNOTATION_CHARS)}…` : value };
    });
  }
  // Zipkin: an `error` tag marks an error whatever its value (the value is the message); OpenTelemetry's
  // zipkin exporter also writes otel.status_code / otel.status_description.
  const statusError = own.error !== undefined || own['otel.status_code'] === 'ERROR';
  const message = typeof own.error === 'string' && own.error ? own.error : typeof own['otel.status_description'] === 'string' ? own['otel.status_description'] : null;
  reqs.addSpan(own, { start_ns: start, end_ns: end, statusError, statusMessage: message }, attrs);
  sink.span({
    trace_id: traceId,
    span_id: spanId,
    parent_id: idOf(sp.parentId),
    name: typeof sp.name === 'string' ? sp.name : '',
    start_ns: start,
    end_ns: end,
    attrs,
  });
  return true;
}

/** Repeats of one problem, said once at the end: how many, placed at the first. */
class Tally {
  private readonly seen = new Map<string, { count: number; where: Position }>();

  add: Warn = (message, where) => {
    const got = this.seen.get(message);
    if (got) got.count++;
    else this.seen.set(message, { count: 1, where });
  };

  get empty(): boolean {
    return this.seen.size === 0;
  }

  flush(warn: Warn): void {
    for (const [message, { count, where }] of this.seen) warn(count === 1 ? message : `${message} (${count} in all; the first here)`, where);
  }
}

/**
 * The document as a stream: the top-level array, its spans parsed one at a time, its arrays (traces)
 * walked into for theirs. Anything else at a span's place is counted as skipped.
 */
class ZipkinStream implements JsonVisitor {
  spans = 0;
  top: ValueKind | null = null;

  constructor(
    private readonly sink: Sink,
    private readonly reqs: RequestSeries,
    private readonly skip: Warn,
    private readonly noEnd: Warn,
    private readonly file: string,
  ) {}

  enter(path: JsonPath, kind: ValueKind): Take {
    if (path.length === 0) {
      this.top = kind;
      return kind === 'array' ? 'walk' : 'skip';
    }
    if (path.length === 1 && kind === 'array') return 'walk';
    if (path.length <= 2) {
      if (kind === 'object') return 'parse';
      this.skip(`${kind === 'array' ? 'an array' : 'a value'} where a span belongs, skipped`, { key: pathText(path) });
    }
    return 'skip';
  }

  value(path: JsonPath, v: unknown, at: JsonPlace): void {
    const where: Position = { line: at.line, offset: at.offset, key: pathText(path) };
    if (!isObj(v)) return;
    if (isV1(v)) throw new ImportError(this.file, where, V1_REFUSED);
    if (emitSpan(v, this.sink, this.reqs, this.skip, this.noEnd, where)) this.spans++;
  }
}

export const zipkinImporter: Importer = {
  format: 'zipkin-json',
  detect: (head) => detectZipkin(head),
  async import(input, sink, ctx) {
    const reqs = new RequestSeries();
    const skipped = new SkippedSpans(ctx.warn);
    const skips = new Tally();
    const noEnds = new Tally();
    const doc = new ZipkinStream(sink, reqs, skipped.to(skips.add), noEnds.add, ctx.path);
    try {
      await scanJson(input.stream(), doc);
    } catch (e) {
      if (e instanceof JsonScanError) throw new ImportError(ctx.path, { line: e.line, offset: e.offset, ...(e.path ? { key: e.path } : {}) }, `malformed JSON: ${e.message}`);
      throw e;
    }
    if (doc.top !== 'array') throw new ImportError(ctx.path, { line: 1, offset: 0 }, 'not a Zipkin v2 file: expected a JSON array of spans, or of traces (arrays of spans)');
    if (doc.spans === 0) {
      // An empty list is what Zipkin answers a query that found no trace.
      throw skipped.none(ctx.path, { line: 1, offset: 0 }, skips.empty ? 'no spans in this Zipkin file: an empty list (what Zipkin answers a query that found no trace)' : 'no spans in this Zipkin file');
    }
    skips.flush(ctx.warn);
    noEnds.flush(ctx.warn);
    reqs.flush(sink, (m) => ctx.warn(m));
  },
};
