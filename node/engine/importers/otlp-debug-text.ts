// The OpenTelemetry Collector's debug exporter (`debug`, formerly `logging`, with `verbosity: detailed`): the
// collector's own log, where each batch is printed as text —
//   2024-04-09T03:14:04.894Z	info	ResourceSpans #0
//   Resource attributes:
//        -> service.name: Str(vllm)
//   ScopeSpans #0
//   InstrumentationScope vllm.tracing 0.1
//   Span #0
//       Trace ID       : 5b8aa5a2d2c872e8321cf37308d69df2
//       …
//       Start time     : 2024-04-09 03:14:04.894123 +0000 UTC
//   Attributes:
//        -> gen_ai.usage.prompt_tokens: Int(12)
// and the same for ResourceMetrics (Metric #, Descriptor, NumberDataPoints/HistogramDataPoints/SummaryDataPoints)
// and ResourceLogs (LogRecord #). Each resource block is rebuilt as the OTLP/JSON request it printed, so spans,
// metric points and log records go through the same readers as the file exporter's (otlp.ts). Lines are read one
// at a time; what is held is one resource block.

import type { Json } from './otlp-values';

/** `Str(vllm)`, `Int(12)`, `Double(0.5)`, `Bool(true)`, anything else as its text: an OTLP AnyValue. */
function anyValue(typed: string): Json {
  const m = /^(Str|Int|Double|Bool|Bytes|Slice|Map|Empty)\((.*)\)$/s.exec(typed.trim());
  if (!m) return { stringValue: typed.trim() };
  switch (m[1]) {
    case 'Int':
      return { intValue: m[2] };
    case 'Double':
      return { doubleValue: Number(m[2]) };
    case 'Bool':
      return { boolValue: m[2] === 'true' };
    default:
      return { stringValue: m[2] };
  }
}

/** `2024-04-09 03:14:04.894123456 +0000 UTC` → Unix ns as decimal digits; null for none (`1970-01-01 00:00:00 +0000 UTC` is none). */
export function debugTimeNanos(s: string): string | null {
  const m = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)(?:\.(\d{1,9}))? ([+-]\d\d)(\d\d)/.exec(s.trim());
  if (!m) return null;
  const ms = Date.parse(`${m[1]}T${m[2]}${m[4]}:${m[5]}`);
  if (!Number.isFinite(ms) || ms <= 0) return null;
  return String(BigInt(ms) * 1_000_000n + BigInt((m[3] ?? '').padEnd(9, '0')));
}

/** What may follow a log record's body: its next field, the next record or block. */
const NEXT_FIELD = /^(?:Attributes:|Trace ID:|Span ID:|Flags:|EventName:|LogRecord #\d+|ScopeLogs #\d+|.*Resource(?:Spans|Metrics|Logs) #\d+\s*$|\t\{"kind")/;
/** The most lines one body is held over. */
const MAX_BODY_LINES = 2000;

/** The line that starts an item of each section. */
const ITEM_OF = { spans: /^Span #\d+$/, metrics: /^Metric #\d+$/, logs: /^LogRecord #\d+$/ } as const;

/** `Server` (or older collectors' `SPAN_KIND_SERVER`), lower-cased: OTLP's SpanKind number. */
const KINDS: Record<string, number> = { unspecified: 0, internal: 1, server: 2, client: 3, producer: 4, consumer: 5 };

/** A resource block of the debug exporter's text, rebuilt as OTLP/JSON. */
export class DebugTextReader {
  private section: 'spans' | 'metrics' | 'logs' | null = null;
  private resource: Json[] = [];
  private scopes: Json[] = [];
  private item: Json | null = null;
  private point: Json | null = null;
  private attrsTarget: Json[] | null = null;
  private startLine = 0;
  /** Lines that are none of the exporter's (the collector's other log lines). */
  other = 0;

  /** Whether a head of text is the debug exporter's detailed output. */
  static detect(head: string): boolean {
    return /(^|\t| )Resource(?:Spans|Metrics|Logs) #\d+\s*$/m.test(head) && /^(?:Span|Metric|LogRecord) #\d+\s*$/m.test(head);
  }

  /** A `Body: Str(…` whose text runs over lines (the collector prints its newlines raw): its lines so far. */
  private openBody: string[] | null = null;

  /** One line; the request of a resource block it completes, with the line the block began at. */
  line(raw: string, no: number): { doc: Json; line: number } | null {
    const text = raw.replace(/\r$/, '');
    if (this.openBody) {
      // The body goes on until a line that is the record's next field (or a new block) after one ending in `)`.
      const last = this.openBody[this.openBody.length - 1];
      if (!(last.endsWith(')') && NEXT_FIELD.test(text)) && this.openBody.length < MAX_BODY_LINES) {
        this.openBody.push(text);
        return null;
      }
      const body = this.openBody.join('\n');
      this.openBody = null;
      if (this.item) this.item.body = anyValue(body);
    }
    const res = /(?:^|\t| )Resource(Spans|Metrics|Logs) #\d+\s*$/.exec(text);
    if (res) {
      const done = this.finish();
      this.section = res[1] === 'Spans' ? 'spans' : res[1] === 'Metrics' ? 'metrics' : 'logs';
      this.resource = [];
      this.scopes = [];
      this.item = null;
      this.point = null;
      this.attrsTarget = null;
      this.startLine = no;
      return done;
    }
    if (!this.section) {
      this.other++;
      return null;
    }
    const t = text.trim();
    const attr = /^-> ([^:]+): (.*)$/.exec(t);
    if (attr) {
      if (this.attrsTarget) this.attrsTarget.push({ key: attr[1], value: anyValue(attr[2]) });
      else if (this.item && this.section === 'metrics') this.descriptor(attr[1], attr[2]);
      return null;
    }
    if (t === 'Resource attributes:') this.attrsTarget = this.resource;
    else if (/^Scope(?:Spans|Metrics|Logs) #\d+$/.test(t)) {
      this.scopes.push({ scope: {}, items: [] });
      this.item = null;
      this.attrsTarget = null;
    } else if (t.startsWith('InstrumentationScope ')) {
      const [name, version] = t.slice('InstrumentationScope '.length).split(' ');
      this.scope().scope = { name, ...(version ? { version } : {}) };
    } else if (ITEM_OF[this.section].test(t)) {
      // (Only the section's own kind of item: a `Metric #` in a spans block is no span.)
      this.item = this.section === 'metrics' ? { dataPoints: [] } : { attributes: [] };
      this.point = null;
      this.attrsTarget = null;
      (this.scope().items as Json[]).push(this.item);
    } else if (/^(?:Number|Histogram|Summary|ExponentialHistogram)DataPoints #\d+$/.test(t) && this.item && this.section === 'metrics') {
      this.point = { attributes: [], bounds: [], buckets: [], quantiles: [] };
      (this.item.dataPoints as Json[]).push(this.point);
      this.attrsTarget = null;
    } else if (t === 'Data point attributes:' && this.point) this.attrsTarget = this.point.attributes as Json[];
    else if (t === 'Attributes:' && this.item && this.section !== 'metrics') this.attrsTarget = this.item.attributes as Json[];
    // A span's events and links, a point's exemplars: their `->` lines are not the item's attributes.
    else if (/^(?:Events|Links|Exemplars|FilteredAttributes):$/.test(t) || /^(?:SpanEvent|SpanLink|Exemplar) #\d+$/.test(t)) this.attrsTarget = null;
    else this.field(t);
    return null;
  }

  private scope(): Json {
    if (!this.scopes.length) this.scopes.push({ scope: {}, items: [] });
    return this.scopes[this.scopes.length - 1];
  }

  private descriptor(key: string, value: string): void {
    const m = this.item!;
    if (key === 'Name') m.name = value.trim();
    else if (key === 'Unit') m.unit = value.trim();
    else if (key === 'Description') m.description = value.trim();
    else if (key === 'DataType') m.type = value.trim();
    else if (key === 'IsMonotonic') m.isMonotonic = value.trim() === 'true';
    else if (key === 'AggregationTemporality') m.temporality = /Delta/.test(value) ? 1 : 2;
  }

  /** `Name : value` of a span, `Key: value` of a point or a record. */
  private field(t: string): void {
    // The key is what comes before the first colon (found, not backtracked: a long run of spaces was quadratic).
    const colon = t.indexOf(':');
    if (colon <= 0 || !this.item || !/^[A-Za-z][\w #,]*$/.test(t.slice(0, colon).trimEnd())) return;
    const [key, value] = [t.slice(0, colon).trimEnd(), t.slice(colon + 1).trim()];
    const item = this.item;
    if (this.section === 'spans') {
      if (key === 'Trace ID') item.traceId = value;
      else if (key === 'Parent ID') item.parentSpanId = value || undefined;
      else if (key === 'ID') item.spanId = value;
      else if (key === 'Name') item.name = value;
      else if (key === 'Kind') item.kind = KINDS[value.replace(/^SPAN_KIND_/, '').toLowerCase()] ?? 0;
      else if (key === 'Start time') item.startTimeUnixNano = debugTimeNanos(value) ?? undefined;
      else if (key === 'End time') item.endTimeUnixNano = debugTimeNanos(value) ?? undefined;
      else if (key === 'Status code') item.status = { ...(item.status as Json), code: /Error/i.test(value) ? 2 : /Ok/i.test(value) ? 1 : 0 };
      else if (key === 'Status message') item.status = { ...(item.status as Json), message: value };
      return;
    }
    if (this.section === 'logs') {
      if (key === 'Timestamp') item.timeUnixNano = debugTimeNanos(value) ?? undefined;
      else if (key === 'ObservedTimestamp') item.observedTimeUnixNano = debugTimeNanos(value) ?? undefined;
      else if (key === 'SeverityText') item.severityText = value;
      else if (key === 'SeverityNumber') item.severityNumber = Number(/\((\d+)\)/.exec(value)?.[1] ?? 0);
      else if (key === 'Body') {
        if (/^Str\(/.test(value) && !value.endsWith(')')) this.openBody = [value];
        else item.body = anyValue(value);
      }
      else if (key === 'Trace ID') item.traceId = value || undefined;
      else if (key === 'Span ID') item.spanId = value || undefined;
      return;
    }
    const p = this.point;
    if (!p) return;
    const bucket = /^Buckets #(\d+), Count$/.exec(key);
    const bound = /^ExplicitBounds #(\d+)$/.exec(key);
    const quantile = /^QuantileValue #\d+$/.exec(key);
    if (key === 'StartTimestamp') p.startTimeUnixNano = debugTimeNanos(value) ?? undefined;
    else if (key === 'Timestamp') p.timeUnixNano = debugTimeNanos(value) ?? undefined;
    else if (key === 'Value') p.asDouble = Number(value);
    else if (key === 'Count') p.count = value;
    else if (key === 'Sum') p.sum = Number(value);
    else if (bound) (p.bounds as number[])[Number(bound[1])] = Number(value);
    else if (bucket) (p.buckets as string[])[Number(bucket[1])] = value;
    else if (quantile) {
      const q = /Quantile ([\d.eE+-]+), Value ([\d.eE+-]+)/.exec(value);
      if (q) (p.quantiles as Json[]).push({ quantile: Number(q[1]), value: Number(q[2]) });
    }
  }

  /** The request of the block read so far, or null; the reader then waits for the next block. */
  finish(): { doc: Json; line: number } | null {
    if (this.openBody) {
      if (this.item) this.item.body = anyValue(this.openBody.join('\n'));
      this.openBody = null;
    }
    if (!this.section) return null;
    const resource = { attributes: this.resource };
    let doc: Json;
    if (this.section === 'spans') {
      doc = { resourceSpans: [{ resource, scopeSpans: this.scopes.map((s) => ({ scope: s.scope, spans: s.items })) }] };
    } else if (this.section === 'logs') {
      doc = { resourceLogs: [{ resource, scopeLogs: this.scopes.map((s) => ({ scope: s.scope, logRecords: s.items })) }] };
    } else {
      doc = { resourceMetrics: [{ resource, scopeMetrics: this.scopes.map((s) => ({ scope: s.scope, metrics: (s.items as Json[]).map(metricOf) })) }] };
    }
    this.section = null;
    return { doc, line: this.startLine };
  }
}

/** A metric rebuilt from its descriptor and points, as OTLP/JSON writes it. */
function metricOf(m: Json): Json {
  const points = (m.dataPoints as Json[]).map((p) => {
    const base = { attributes: p.attributes, startTimeUnixNano: p.startTimeUnixNano, timeUnixNano: p.timeUnixNano };
    if (m.type === 'Histogram') return { ...base, count: p.count, sum: p.sum, explicitBounds: p.bounds, bucketCounts: p.buckets };
    if (m.type === 'Summary') return { ...base, count: p.count, sum: p.sum, quantileValues: p.quantiles };
    if (m.type === 'ExponentialHistogram') return { ...base, count: p.count, sum: p.sum };
    return { ...base, asDouble: p.asDouble };
  });
  const out: Json = { name: m.name, unit: m.unit, description: m.description };
  if (m.type === 'Sum') out.sum = { dataPoints: points, aggregationTemporality: m.temporality ?? 2, isMonotonic: m.isMonotonic ?? false };
  else if (m.type === 'Histogram') out.histogram = { dataPoints: points, aggregationTemporality: m.temporality ?? 2 };
  else if (m.type === 'Summary') out.summary = { dataPoints: points };
  else if (m.type === 'ExponentialHistogram') out.exponentialHistogram = { dataPoints: points, aggregationTemporality: m.temporality ?? 2 };
  else out.gauge = { dataPoints: points };
  return out;
}
