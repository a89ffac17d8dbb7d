// JSON-lines logs (one object per line: structlog, pino, bunyan, Docker's json-file driver, Fluent Bit,
// Loki exports …) as events. TGI's --json-output, where most lines are TGI's own, goes to the engine-log
// importer (vllm-log.ts: request timings become latency series); a mixed file with a few TGI lines stays here.
//   time: ts | time | timestamp | @timestamp | t | asctime | __REALTIME_TIMESTAMP | date — an ISO string (with a zone; without one it is
//         local time in ctx.options.tzOffsetMinutes, UTC by default) or an epoch number, its unit told by
//         its size (< 1e11 s, < 1e14 ms, < 1e17 µs, else ns);
//   text: message | msg | log | line (Loki's exports) | fields.message (TGI) | event | MESSAGE — trailing newline trimmed;
//   level: level | severity | levelname | lvl | PRIORITY | log.level (names, or syslog/pino numbers, also as text) → Severity.
// Kinds: 'oom' (attrs of oom-text.ts) for CUDA OOM messages, 'xid' (attrs of kernel-log.ts) for NVRM
// Xid messages, else 'log'; the object's other scalar fields go into attrs (nested objects as JSON). Where the
// messages are an inference engine's own log lines (vLLM, SGLang, TGI, PyTorch shipped through Loki, Fluent
// Bit, a JSON logger), they are read as that engine's log is instead (engine-lines.ts): stats as series,
// crashes, tracebacks and NCCL timeouts as their events.
// A line that is not a JSON object with a time is malformed (warned, skipped; a majority fails the file).
import type { Severity } from '../../../common/contract/types';
import { GarbageGuard } from './garbage-guard';
import { EngineLines } from './engine-lines';
import { MAX_VALUE_DEPTH, jsonTooDeep } from './json-error-offset';
import { parseXid } from './kernel-log';
import { headLines, lineBatches } from './line-reader';
import { LogClock, parseIsoZoned } from './log-time';
import { isOomLine, parseOom } from './oom-text';
import type { EntryInput, ImportContext, Importer, Sink } from './types';
import { xidInfo } from './xid-codes';

// journalctl -o json: __REALTIME_TIMESTAMP (µs, as text), MESSAGE, PRIORITY (syslog, as text); Fluent
// Bit's default time key is `date` (epoch seconds).
const TIME_KEYS = ['ts', 'time', 'timestamp', '@timestamp', 't', 'asctime', '__REALTIME_TIMESTAMP', 'date'];
const TEXT_KEYS = ['message', 'msg', 'log', 'line', 'event', 'MESSAGE'];
const LEVEL_KEYS = ['level', 'severity', 'levelname', 'lvl', 'PRIORITY'];

const LEVELS: Record<string, Severity> = {
  trace: 'debug',
  debug: 'debug',
  info: 'info',
  information: 'info',
  notice: 'info',
  warn: 'warning',
  warning: 'warning',
  error: 'error',
  err: 'error',
  critical: 'critical',
  crit: 'critical',
  fatal: 'critical',
  alert: 'critical',
  emerg: 'critical',
  panic: 'critical',
};

export function severityOf(level: unknown): Severity {
  if (typeof level === 'number') {
    // pino/bunyan: 10 trace … 60 fatal; syslog: 0 emerg … 7 debug.
    if (level >= 10) return level >= 60 ? 'critical' : level >= 50 ? 'error' : level >= 40 ? 'warning' : level >= 30 ? 'info' : 'debug';
    return level <= 2 ? 'critical' : level === 3 ? 'error' : level === 4 ? 'warning' : level <= 6 ? 'info' : 'debug';
  }
  if (typeof level === 'string' && /^\d{1,2}$/.test(level.trim())) return severityOf(Number(level));
  return typeof level === 'string' ? (LEVELS[level.trim().toLowerCase()] ?? 'info') : 'info';
}

/** An epoch number in s, ms, µs or ns (by magnitude), or a date string, as ms; NaN if neither. */
export function timeOf(v: unknown, clock: LogClock, line?: number): number {
  if (typeof v === 'number' && Number.isFinite(v)) {
    const a = Math.abs(v);
    return a < 1e11 ? v * 1000 : a < 1e14 ? v : a < 1e17 ? v / 1000 : v / 1e6;
  }
  if (typeof v !== 'string') return NaN;
  const s = v.trim();
  if (/^\d+(\.\d+)?$/.test(s)) return timeOf(Number(s), clock, line);
  const zoned = parseIsoZoned(s.replace(/ (?=[+-]\d\d:?\d\d$)/, ''));
  if (Number.isFinite(zoned)) return zoned;
  const m = /^(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d):(\d\d)(?:[.,](\d+))?$/.exec(s);
  return m ? clock.local(+m[1], +m[2], +m[3], +m[4], +m[5], +m[6], m[7] ? Number((m[7] + '00').slice(0, 3)) : 0, line) : NaN;
}

function pick(o: Record<string, unknown>, keys: string[]): [string, unknown] | null {
  for (const k of keys) if (o[k] !== undefined && o[k] !== null) return [k, o[k]];
  return null;
}

export async function importJsonlLog(input: EntryInput, sink: Sink, ctx: ImportContext): Promise<void> {
  const clock = new LogClock(ctx);
  const guard = new GarbageGuard(ctx, 'a JSON-lines log');
  const engine = new EngineLines(sink, ctx);
  let no = 0;
  for await (const batch of lineBatches(input.stream(), ctx)) {
    for (const line of batch) {
      no++;
      const s = line.trim();
      if (!s) continue;
      let o: unknown;
      // Its values are stringified into attrs: a line nested 100 k deep would overflow the stack there.
      if (jsonTooDeep(s, MAX_VALUE_DEPTH) >= 0) {
        guard.malformed(no, `nested deeper than ${MAX_VALUE_DEPTH} levels`);
        continue;
      }
      try {
        o = JSON.parse(s);
      } catch {
        guard.malformed(no, 'not a JSON object');
        continue;
      }
      if (!o || typeof o !== 'object' || Array.isArray(o)) {
        guard.malformed(no, 'not a JSON object');
        continue;
      }
      const obj = o as Record<string, unknown>;
      const fields = obj.fields && typeof obj.fields === 'object' ? (obj.fields as Record<string, unknown>) : null;
      const t = pick(obj, TIME_KEYS);
      const ts = t ? timeOf(t[1], clock, no) : NaN;
      if (!Number.isFinite(ts)) {
        guard.malformed(no, t ? `unreadable time in "${t[0]}": ${JSON.stringify(t[1])}` : `no time field (${TIME_KEYS.join(', ')})`);
        continue;
      }
      guard.ok();
      const textField = pick(obj, TEXT_KEYS) ?? (fields ? pick(fields, TEXT_KEYS) : null);
      const text = textField ? (typeof textField[1] === 'string' ? textField[1] : JSON.stringify(textField[1])).replace(/\n+$/, '') : s;
      const lvl = pick(obj, LEVEL_KEYS) ?? (obj.log && typeof obj.log === 'object' ? pick(obj.log as Record<string, unknown>, ['level']) : null);
      const attrs: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(obj)) {
        if (k === t?.[0] || k === textField?.[0] || k === lvl?.[0]) continue;
        attrs[k] = v !== null && typeof v === 'object' ? JSON.stringify(v) : v;
      }
      if (lvl) attrs.level = lvl[1];
      const at = no;
      engine.add(ts, text, at, () => {
        const { kind, severity } = classifyLogText(text, severityOf(lvl?.[1]), attrs);
        sink.event({ ts_ms: ts, kind, severity, line: at, text, attrs });
      });
    }
  }
  engine.finish(no);
  guard.finish(no);
}

/**
 * A log message's event kind: 'oom' (with oom-text.ts's attrs) for a CUDA OOM, 'xid' (kernel-log.ts's) for an
 * NVRM Xid, else 'log' at the severity its logger gave. `attrs` takes what the message says.
 */
export function classifyLogText(text: string, severity: Severity, attrs: Record<string, unknown>): { kind: string; severity: Severity } {
  if (isOomLine(text)) {
    Object.assign(attrs, parseOom(text));
    return { kind: 'oom', severity: 'error' };
  }
  const x = parseXid(text);
  if (x) {
    const info = xidInfo(x.code);
    const { caused_by, ...fields } = x;
    Object.assign(attrs, fields, caused_by !== null ? { caused_by } : {}, { meaning: info.meaning, class: info.class });
    return { kind: 'xid', severity: info.severity };
  }
  return { kind: 'log', severity };
}

export function detectJsonlLog(head: Buffer): number {
  const lines = headLines(head, 50).filter((l) => l.trim());
  if (!lines.length) return 0;
  let hits = 0;
  for (const l of lines) {
    try {
      const o = JSON.parse(l);
      if (!o || typeof o !== 'object' || Array.isArray(o)) continue;
      const f = o.fields && typeof o.fields === 'object' ? o.fields : {};
      if (pick(o, TIME_KEYS) && (pick(o, TEXT_KEYS) || pick(f, TEXT_KEYS))) hits++;
    } catch {
      // not JSON: counts against the file
    }
  }
  return hits / lines.length >= 0.6 ? 0.8 : 0;
}

export const jsonlLogImporter: Importer = {
  format: 'jsonl-log',
  detect: (head) => detectJsonlLog(head),
  localTime: true,
  import: importJsonlLog,
};
