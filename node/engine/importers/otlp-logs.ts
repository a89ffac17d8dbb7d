// OTLP/JSON logs (`resourceLogs` → `scopeLogs` → `logRecords`), as the collector's file exporter writes them
// beside traces and metrics — in an inference fleet, the engines' and the nodes' log lines a filelog or
// journald receiver picked up. Each record is an event, classified as the JSON-lines importer classifies a
// message (a CUDA OOM is 'oom', an NVRM Xid 'xid', else 'log'), at its timeUnixNano (else when the collector
// observed it), with the severity its number or text gives, the record's attributes and the resource's
// identity (service.name, host.name, k8s pod, …) as attrs, and its trace and span ids where it has them.
// Records that are an inference engine's own log lines (a filelog receiver on vLLM's output) are read as
// that engine's log is instead (engine-lines.ts): stats as series, crashes and tracebacks as their events.
import type { Severity } from '../../../common/contract/types';
import { classifyLogText, severityOf } from './jsonl-log';
import { anyValue, attributes, hexId, isObj, otlpNanos, type Json } from './otlp-values';
import { identityOf } from './span-attributes';
import { EngineLines } from './engine-lines';
import type { ImportContext, Position, Sink } from './types';

type Warn = (message: string, where: Position) => void;

/** OTLP's SeverityNumber (1–24, or its name): TRACE 1–4, DEBUG 5–8, INFO 9–12, WARN 13–16, ERROR 17–20, FATAL 21–24. */
function severityOfNumber(n: unknown): Severity | null {
  const v = typeof n === 'number' ? n : typeof n === 'string' ? /^SEVERITY_NUMBER_([A-Z]+)/.exec(n)?.[1] : undefined;
  if (v === undefined || v === 0 || v === 'UNSPECIFIED') return null;
  if (typeof v === 'string') return severityOf(v.toLowerCase());
  return v <= 8 ? 'debug' : v <= 12 ? 'info' : v <= 16 ? 'warning' : v <= 20 ? 'error' : 'critical';
}

export class OtlpLogs {
  records = 0;
  private untimed = 0;
  private lastLine = 0;
  private readonly engine: EngineLines;

  constructor(
    private readonly sink: Sink,
    ctx: ImportContext,
    private readonly warn: Warn,
  ) {
    this.engine = new EngineLines(sink, ctx);
  }

  /** One `resourceLogs` element; `where` places its warnings and its events' line. */
  resourceLogs(rl: Json, where: Position): void {
    const resource = attributes(isObj(rl.resource) ? rl.resource.attributes : undefined);
    const identity = { ...identityOf(resource), ...(resource['service.name'] !== undefined ? { 'service.name': resource['service.name'] } : {}) };
    const scopes = Array.isArray(rl.scopeLogs) ? rl.scopeLogs : Array.isArray(rl.instrumentationLibraryLogs) ? rl.instrumentationLibraryLogs : [];
    for (const sl of scopes) {
      if (!isObj(sl) || !Array.isArray(sl.logRecords)) continue;
      for (const lr of sl.logRecords) if (isObj(lr)) this.record(lr, identity, where);
    }
  }

  private record(lr: Json, identity: Json, where: Position): void {
    // timeUnixNano is optional (0 or absent: the source gave none); the collector's observed time then.
    let ns = otlpNanos(lr.timeUnixNano);
    if (ns === null || ns === 0n) ns = otlpNanos(lr.observedTimeUnixNano);
    if (ns === null || ns === 0n) {
      this.untimed++;
      return;
    }
    const body = anyValue(lr.body);
    const text = (typeof body === 'string' ? body : body === undefined || body === null ? '' : JSON.stringify(body)).replace(/\n+$/, '');
    const attrs: Record<string, unknown> = { ...identity, ...attributes(lr.attributes) };
    for (const [k, v] of Object.entries(attrs)) if (v !== null && typeof v === 'object') attrs[k] = JSON.stringify(v);
    if (typeof lr.severityText === 'string' && lr.severityText) attrs.level = lr.severityText;
    // As the spans keep them (lower-case hex), so a record joins its span.
    const traceId = hexId(lr.traceId, 16);
    const spanId = hexId(lr.spanId, 8);
    if (traceId) attrs.trace_id = traceId;
    if (spanId) attrs.span_id = spanId;
    const given = severityOfNumber(lr.severityNumber) ?? severityOf(lr.severityText);
    const ts = Number(ns) / 1e6;
    const line = where.line ?? 0;
    this.lastLine = Math.max(this.lastLine, line);
    this.engine.add(ts, text, line, () => {
      const { kind, severity } = classifyLogText(text, given, attrs);
      this.sink.event({ ts_ms: ts, kind, severity, line: where.line ?? null, text, attrs });
    });
    this.records++;
  }

  /** Warnings that concern the whole file, once at its end. */
  finish(where: Position): void {
    this.engine.finish(this.lastLine);
    if (this.untimed) this.warn(`${this.untimed} log records with neither timeUnixNano nor observedTimeUnixNano skipped`, where);
  }
}
