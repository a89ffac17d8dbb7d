// OTLP/JSON traces: one ExportTraceServiceRequest document, or the collector file exporter's JSON lines
// (one request per line). Old files say `instrumentationLibrarySpans`; ids are hex or base64; times
// are decimal strings or numbers.
//
// spans: trace_id / span_id / parent_id as lower-case hex; attrs = the span's attributes (AnyValue
// flattened), plus service.name (from the resource), otel.kind, otel.scope, otel.status_code,
// otel.status_message, otel.events (count), and the request facts of span-attributes.ts.
import { ImportError, type Importer, type Sink } from './types';
import { requestFacts } from './span-attributes';
import { RequestSeries } from './request-series';
import { lineOf, readText } from './read-text';
import { jsonErrorOffset } from './json-error-offset';

export function detectOtlp(head: Buffer): number {
  const s = head.toString('utf8');
  return /"resourceSpans"\s*:/.test(s) ? 0.95 : 0;
}

type Json = Record<string, unknown>;
const isObj = (x: unknown): x is Json => !!x && typeof x === 'object' && !Array.isArray(x);

/** An OTLP AnyValue as plain JSON. */
export function anyValue(v: unknown): unknown {
  if (!isObj(v)) return v;
  if ('stringValue' in v) return v.stringValue;
  if ('boolValue' in v) return v.boolValue;
  if ('intValue' in v) {
    const n = Number(v.intValue);
    return Number.isSafeInteger(n) ? n : String(v.intValue);
  }
  if ('doubleValue' in v) return Number(v.doubleValue);
  if ('bytesValue' in v) return v.bytesValue;
  if (isObj(v.arrayValue)) return (Array.isArray(v.arrayValue.values) ? v.arrayValue.values : []).map(anyValue);
  if (isObj(v.kvlistValue)) return attributes(v.kvlistValue.values);
  return null;
}

export function attributes(list: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!Array.isArray(list)) return out;
  for (const kv of list) if (isObj(kv) && typeof kv.key === 'string') out[kv.key] = anyValue(kv.value);
  return out;
}

/** A trace/span id as lower-case hex: OTLP/JSON writes hex, protobuf's JSON mapping base64. */
export function hexId(id: unknown, bytes: number): string | null {
  if (typeof id !== 'string' || id === '') return null;
  if (id.length === bytes * 2 && /^[0-9a-fA-F]+$/.test(id)) return id.toLowerCase();
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(id)) {
    const b = Buffer.from(id.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (b.length === bytes) return b.toString('hex');
  }
  return /^[0-9a-fA-F]+$/.test(id) ? id.toLowerCase() : id;
}

export function nanos(v: unknown): bigint | null {
  if (typeof v === 'string' && /^\d+$/.test(v)) return BigInt(v);
  if (typeof v === 'number' && Number.isFinite(v)) return BigInt(Math.round(v));
  return null;
}

function importRequest(doc: unknown, sink: Sink, reqs: RequestSeries, where: { line?: number }, warn: (m: string, w: { line?: number; key?: string }) => void): number {
  if (!isObj(doc) || !Array.isArray(doc.resourceSpans)) {
    warn('not an OTLP trace request (no resourceSpans)', { ...where, key: 'resourceSpans' });
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
      for (const sp of ss.spans) {
        if (!isObj(sp)) continue;
        const traceId = hexId(sp.traceId, 16);
        const spanId = hexId(sp.spanId, 8);
        const start = nanos(sp.startTimeUnixNano);
        const end = nanos(sp.endTimeUnixNano) ?? start;
        if (!traceId || !spanId || start === null || end === null) {
          warn('span without traceId, spanId or startTimeUnixNano, skipped', { ...where, key: 'spans' });
          continue;
        }
        const own = attributes(sp.attributes);
        const status = isObj(sp.status) ? sp.status : {};
        const code = status.code === 2 || status.code === 'STATUS_CODE_ERROR' ? 2 : status.code === 1 || status.code === 'STATUS_CODE_OK' ? 1 : 0;
        const attrs: Record<string, unknown> = {
          ...own,
          'service.name': resource['service.name'],
          'otel.kind': sp.kind,
          'otel.scope': typeof scope.name === 'string' ? scope.name : undefined,
          'otel.status_code': code,
          'otel.status_message': typeof status.message === 'string' ? status.message : undefined,
          'otel.events': Array.isArray(sp.events) ? sp.events.length : 0,
        };
        const facts = requestFacts(own, { start_ns: start, end_ns: end, statusError: code === 2, statusMessage: typeof status.message === 'string' ? status.message : null });
        if (facts) {
          Object.assign(attrs, facts);
          reqs.add(facts, Number(end / 1_000_000n));
        }
        sink.span({ trace_id: traceId, span_id: spanId, parent_id: hexId(sp.parentSpanId, 8), name: typeof sp.name === 'string' ? sp.name : '', start_ns: start, end_ns: end, attrs });
        n++;
      }
    }
  }
  return n;
}

export const otlpImporter: Importer = {
  format: 'otlp-json',
  detect: (head) => detectOtlp(head),
  async import(input, sink, ctx) {
    const text = await readText(input.stream());
    const reqs = new RequestSeries();
    let doc: unknown;
    let whole = true;
    try {
      doc = JSON.parse(text);
    } catch {
      whole = false;
    }
    let spans = 0;
    if (whole) spans = importRequest(doc, sink, reqs, {}, ctx.warn);
    else {
      // The collector's file exporter: one JSON request per line.
      const lines = text.split('\n');
      let bad = 0;
      let good = 0;
      for (let i = 0; i < lines.length; i++) {
        const l = lines[i].trim();
        if (!l) continue;
        let d: unknown;
        try {
          d = JSON.parse(l);
        } catch (e) {
          bad++;
          if (i === lines.length - 1 && good > 0) ctx.warn('truncated last line', { line: i + 1 });
          else ctx.warn(`malformed JSON: ${(e as Error).message}`, { line: i + 1 });
          continue;
        }
        good++;
        spans += importRequest(d, sink, reqs, { line: i + 1 }, ctx.warn);
      }
      if (good === 0 || bad > good) {
        const offset = jsonErrorOffset(text);
        throw new ImportError(ctx.path, { line: lineOf(text, offset), offset }, 'not valid OTLP/JSON (neither one document nor JSON lines)');
      }
    }
    if (spans === 0) throw new ImportError(ctx.path, { key: 'resourceSpans' }, 'no spans in this OTLP file');
    reqs.flush(sink);
  },
};
