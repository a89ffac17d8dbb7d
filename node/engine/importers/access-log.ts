// A gateway's access log in front of the engines: nginx's (and ingress-nginx's) or Apache's, in the
// "combined" format every one of them starts from —
//   10.0.0.7 - - [21/May/2026:14:30:39 +0000] "POST /v1/chat/completions HTTP/1.1" 200 2005 "-" "curl/8.5.0"
// — followed by what the operator appended: ingress-nginx's default (`request_length request_time
// [upstream_name] [alternative] upstream_addr upstream_response_length upstream_response_time upstream_status
// req_id`), or `key=value` timings as nginx's docs write them (`rt=`/`request_time=`, `urt=`/
// `upstream_response_time=`, `uht=`/`upstream_header_time=`, `uct=`, `upstream=`/`upstream_addr=`,
// `req_id=`/`request_id=`). The time is the bracketed local time with its offset (when the response was logged).
//
// Writes:
//   http_error — error — for a 5xx: status, method, path, upstream, request_time_s, upstream_time_s, request_id;
//   log — warning for 4xx, else info — every other request, with the same attrs (searchable);
//   http.requests {status: 2xx|3xx|4xx, metric: 'access-log'} and req.errors {metric: 'access-log 5xx'}:
//   cumulative counts at each second a line was logged, as the engines' own access lines are counted
//   (status-counts.ts), so a gateway answering 502s while an engine is down reads as errors;
//   gateway.extra {metric: 'access-log'} — seconds — the mean of request_time − upstream_response_time over
//   each second's 2xx lines that give both: what the client waited beyond the engine's answer (its network,
//   a slow reader, a wait for an upstream connection), network_client_slowness's reading where no client
//   spans are joined to the server's.
// The gateway's latencies stay in the events' attrs and are not written as the engines' latency series: the
// gateway's view of a request (its network to the client, its retries) is another measure than the engine's.
// A line that is not an access line is malformed (warned, the file fails when they are most of it).
import type { Severity } from '../../../common/contract/types';
import { SIG } from '../../../common/names';
import { GarbageGuard } from './garbage-guard';
import { headLines, lineBatches } from './line-reader';
import { instantMs, monthNumber } from './log-time';
import { StatusCounts } from './status-counts';
import type { EntryInput, ImportContext, Importer, Sink } from './types';

/** client, ident, user, [time], "request", status, bytes, then optionally "referer" "agent", then the rest. */
const COMBINED =
  /^(\S+) \S+ \S+ \[(\d{2})\/(\w{3})\/(\d{4}):(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))? ([+-])(\d{2})(\d{2})\] "([A-Z]+) (\S+)(?: [^"]*)?" (\d{3}) (\d+|-)(?: "(?:[^"\\]|\\.)*" "(?:[^"\\]|\\.)*")?(.*)$/;
/** ingress-nginx's default tail: request_length request_time [upstream] [alternative] addr length time status req_id. */
const INGRESS_TAIL = /^ (\d+) ([\d.]+) \[[^\]]*\] \[[^\]]*\] (\S+) \S+ (\S+) \S+(?: (\S+))?/;
const KEY_VALUE = /(\w+)=("(?:[^"\\]|\\.)*"|\S+)/g;

interface Timings {
  request_time_s: number | null;
  upstream_time_s: number | null;
  upstream_header_s: number | null;
  upstream: string | null;
  request_id: string | null;
}

/** nginx prints `-` for a time it has none of, and `0.001, 0.120` (or `:`) where it tried several upstreams: the sum. */
function seconds(v: string | undefined): number | null {
  if (!v || v === '-') return null;
  let total = 0;
  for (const part of v.split(/[,:]\s*/)) {
    const x = Number(part);
    if (!Number.isFinite(x) || x < 0) return null;
    total += x;
  }
  return total;
}

const unquote = (v: string): string => (v.startsWith('"') && v.endsWith('"') ? v.slice(1, -1) : v);

function timingsOf(tail: string): Timings {
  const t: Timings = { request_time_s: null, upstream_time_s: null, upstream_header_s: null, upstream: null, request_id: null };
  const ingress = INGRESS_TAIL.exec(tail);
  if (ingress) {
    t.request_time_s = seconds(ingress[2]);
    t.upstream = ingress[3] === '-' ? null : ingress[3];
    t.upstream_time_s = seconds(ingress[4]);
    t.request_id = ingress[5] ?? null;
    return t;
  }
  for (const m of tail.matchAll(KEY_VALUE)) {
    const v = unquote(m[2]);
    switch (m[1]) {
      case 'rt':
      case 'request_time':
        t.request_time_s = seconds(v);
        break;
      case 'urt':
      case 'upstream_response_time':
        t.upstream_time_s = seconds(v);
        break;
      case 'uht':
      case 'upstream_header_time':
        t.upstream_header_s = seconds(v);
        break;
      case 'upstream':
      case 'upstream_addr':
        t.upstream = v === '-' ? null : v;
        break;
      case 'req_id':
      case 'request_id':
        t.request_id = v === '-' ? null : v;
        break;
    }
  }
  return t;
}

/** The line's time: its local time minus its offset; null where the date is not one. */
function timeOf(m: RegExpExecArray): number | null {
  const month = monthNumber(m[3]);
  if (month === undefined) return null;
  const ms = m[8] ? Number((m[8] + '00').slice(0, 3)) : 0;
  const local = Date.UTC(+m[4], month - 1, +m[2], +m[5], +m[6], +m[7], ms);
  const offset = (m[9] === '-' ? -1 : 1) * (+m[10] * 60 + +m[11]) * 60_000;
  return instantMs(local - offset);
}

export async function importAccessLog(input: EntryInput, sink: Sink, ctx: ImportContext): Promise<void> {
  const guard = new GarbageGuard(ctx, 'an access log');
  const counts = new StatusCounts(sink, 'access-log');
  // Per second of the lines' own times: [sum, count] of the served requests' extra time (bounded by the
  // seconds the log spans; written in time order at the end, as lines are logged when responses end).
  const extra = new Map<number, [number, number]>();
  let no = 0;
  let backwards = 0;
  let last = -Infinity;
  for await (const batch of lineBatches(input.stream(), ctx)) {
    for (const raw of batch) {
      no++;
      const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
      if (!line.trim()) continue;
      const m = COMBINED.exec(line);
      const ts = m ? timeOf(m) : null;
      if (!m || ts === null) {
        guard.malformed(no, m ? `no valid time in [${m[2]}/${m[3]}/${m[4]}:…]` : 'not an access log line (combined format)');
        continue;
      }
      guard.ok();
      // A gateway logs when each response ends, so a long request's line follows shorter later ones:
      // counts are kept per second in file order, never moved back.
      if (ts < last) backwards++;
      else last = ts;
      const status = Number(m[14]);
      const cls = Math.min(5, Math.floor(status / 100));
      counts.add(Math.floor(last / 1000) * 1000, cls);
      const t = timingsOf(m[16]);
      if (cls === 2 && t.request_time_s !== null && t.upstream_time_s !== null) {
        const sec = Math.floor(ts / 1000) * 1000;
        const acc = extra.get(sec);
        const gap = Math.max(0, t.request_time_s - t.upstream_time_s);
        if (acc) {
          acc[0] += gap;
          acc[1]++;
        } else extra.set(sec, [gap, 1]);
      }
      const attrs: Record<string, unknown> = { status, method: m[12], path: m[13], client: m[1] };
      for (const [k, v] of Object.entries(t)) if (v !== null) attrs[k] = v;
      const severity: Severity = cls === 5 ? 'error' : cls === 4 ? 'warning' : 'info';
      sink.event({ ts_ms: ts, kind: cls === 5 ? 'http_error' : 'log', severity, line: no, text: line, attrs });
    }
  }
  counts.flush();
  if (extra.size) {
    const id = sink.series({ name: SIG.gatewayExtra, labels: { metric: 'access-log' }, unit: 'seconds', kind: 'gauge' });
    for (const sec of [...extra.keys()].sort((a, b) => a - b)) {
      const [sum, n] = extra.get(sec)!;
      sink.sample(id, sec, sum / n);
    }
  }
  guard.finish(no);
  if (backwards) ctx.warn(`${backwards} lines are logged before a line above them (responses logged as they end): their counts are kept at the later time`);
}

export function detectAccessLog(head: Buffer): number {
  const lines = headLines(head, 200).filter((l) => l.trim());
  if (lines.length === 0) return 0;
  const hits = lines.filter((l) => COMBINED.test(l.replace(/\r$/, ''))).length;
  return hits >= 1 && hits >= 0.8 * lines.length ? 0.85 : 0;
}

export const accessLogImporter: Importer = {
  format: 'access-log',
  detect: (head) => detectAccessLog(head),
  import: importAccessLog,
};
