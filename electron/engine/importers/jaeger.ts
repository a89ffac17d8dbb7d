// Jaeger JSON: the query API / UI download `{data: [trace…]}`, or one bare trace `{traceID, spans,
// processes}`. startTime/duration are µs; the first CHILD_OF reference is the parent.
//
// spans: trace_id / span_id as written (lower-case hex), attrs = tags, plus service.name (from the
// process), jaeger.logs (count), jaeger.references (non-parent references) and the request facts of
// span-attributes.ts.
import { ImportError, type Importer, type Sink } from './types';
import { requestFacts } from './span-attributes';
import { RequestSeries } from './request-series';
import { lineOf, readText } from './read-text';
import { jsonErrorOffset } from './json-error-offset';

type Json = Record<string, unknown>;
const isObj = (x: unknown): x is Json => !!x && typeof x === 'object' && !Array.isArray(x);

export function detectJaeger(head: Buffer): number {
  const s = head.toString('utf8');
  if (!/"traceID"\s*:/.test(s)) return 0;
  return /"operationName"\s*:/.test(s) && /"spans"\s*:/.test(s) ? 0.9 : 0.4;
}

function tags(list: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!Array.isArray(list)) return out;
  for (const t of list) if (isObj(t) && typeof t.key === 'string') out[t.key] = t.value;
  return out;
}

const usToNs = (v: unknown): bigint | null => (typeof v === 'number' && Number.isFinite(v) ? BigInt(Math.round(v)) * 1000n : typeof v === 'string' && /^\d+$/.test(v) ? BigInt(v) * 1000n : null);

function importTrace(trace: Json, index: number, sink: Sink, reqs: RequestSeries, warn: (m: string, w: { key?: string }) => void): number {
  const processes = isObj(trace.processes) ? trace.processes : {};
  const spans = Array.isArray(trace.spans) ? trace.spans : null;
  if (!spans) {
    warn(`trace ${index} has no spans list`, { key: `data[${index}].spans` });
    return 0;
  }
  let n = 0;
  for (const sp of spans) {
    if (!isObj(sp)) continue;
    const traceId = typeof sp.traceID === 'string' ? sp.traceID.toLowerCase() : typeof trace.traceID === 'string' ? trace.traceID.toLowerCase() : null;
    const spanId = typeof sp.spanID === 'string' ? sp.spanID.toLowerCase() : null;
    const start = usToNs(sp.startTime);
    const dur = usToNs(sp.duration) ?? 0n;
    if (!traceId || !spanId || start === null) {
      warn('span without traceID, spanID or startTime, skipped', { key: `data[${index}].spans` });
      continue;
    }
    const refs = Array.isArray(sp.references) ? sp.references.filter(isObj) : [];
    const parentRef = refs.find((r) => r.refType === 'CHILD_OF') ?? null;
    const own = tags(sp.tags);
    const proc = typeof sp.processID === 'string' && isObj(processes[sp.processID]) ? (processes[sp.processID] as Json) : null;
    const attrs: Record<string, unknown> = {
      ...own,
      'service.name': proc?.serviceName,
      'jaeger.logs': Array.isArray(sp.logs) ? sp.logs.length : 0,
    };
    const others = refs.filter((r) => r !== parentRef);
    if (others.length) attrs['jaeger.references'] = others.map((r) => ({ refType: r.refType, traceID: r.traceID, spanID: r.spanID }));
    const end = start + dur;
    const facts = requestFacts(own, { start_ns: start, end_ns: end, statusError: own.error === true });
    if (facts) {
      Object.assign(attrs, facts);
      reqs.add(facts, Number(end / 1_000_000n));
    }
    sink.span({
      trace_id: traceId,
      span_id: spanId,
      parent_id: parentRef && typeof parentRef.spanID === 'string' ? parentRef.spanID.toLowerCase() : null,
      name: typeof sp.operationName === 'string' ? sp.operationName : '',
      start_ns: start,
      end_ns: end,
      attrs,
    });
    n++;
  }
  return n;
}

export const jaegerImporter: Importer = {
  format: 'jaeger-json',
  detect: (head) => detectJaeger(head),
  async import(input, sink, ctx) {
    const text = await readText(input.stream());
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch (e) {
      const offset = jsonErrorOffset(text);
      throw new ImportError(ctx.path, { line: lineOf(text, offset), offset }, `malformed JSON: ${(e as Error).message}`);
    }
    const traces = isObj(doc) && Array.isArray(doc.data) ? doc.data : isObj(doc) && Array.isArray(doc.spans) ? [doc] : null;
    if (!traces) throw new ImportError(ctx.path, { key: 'data' }, 'not a Jaeger trace: expected {data: [trace…]} or a trace with spans');
    const reqs = new RequestSeries();
    let n = 0;
    traces.forEach((t, i) => {
      if (isObj(t)) n += importTrace(t, i, sink, reqs, ctx.warn);
      else ctx.warn(`trace ${i} is not an object`, { key: `data[${i}]` });
    });
    if (n === 0) throw new ImportError(ctx.path, { key: 'spans' }, 'no spans in this Jaeger file');
    reqs.flush(sink);
  },
};
