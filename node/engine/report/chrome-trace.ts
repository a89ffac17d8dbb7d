// "Open this range in Perfetto": the kernels, spans and CPU → GPU flows of a time range as Chrome
// trace-event JSON (the JSON Object Format of the Trace Event Format: {"traceEvents": […]}), which
// Perfetto (ui.perfetto.dev, trace_processor) and chrome://tracing open as they are.
//
// - GPU kernels, memcpy and memset: complete events (ph "X") in process "GPU <device>", one thread per
//   stream, ts and dur in µs since the epoch.
// - Profiler CPU events (Kineto cpu_op, cuda_runtime, python_function…; nsys CUDA API and NVTX): "X" events in
//   their own process and thread (the trace's pid/tid).
// - Request traces (OTLP, Jaeger): "X" events in one process, a thread per trace (a trace's spans nest).
// - CPU → GPU flows: a flow start (ph "s") on the launching call and a flow end (ph "f", bp "e") on the
//   kernel, with the correlation id as the flow id, as Kineto writes its ac2g flows.
// Bounds: at most MAX_EVENTS events and MAX_BYTES of JSON (the answer crosses the bridge whole, escaped into a WebSocket message, and a client is dropped at 64 MiB queued), the earliest
// events by time first; the answer says when the range held more.
import type { SpanRow, TraceExport } from '../../../common/contract/types';
import type { Store } from '../store/store';
import { fileSlug } from './file-name';

export const MAX_EVENTS = 150_000;
export const MAX_BYTES = 12 * 2 ** 20;
/** Rows read per kind before the merge (the merge then keeps the earliest within the bounds above). */
const READ_LIMIT = 100_000;
const FLOW_LIMIT = 20_000;

const GPU_PID_BASE = 1_000_000;
const TRACE_PID_BASE = 2_000_000;
const REQUESTS_PID = 3_000_000;

interface Timed {
  ts: number;
  json: string;
}

const us = (ms: number) => Math.round(ms * 1e6) / 1e3;
const intOf = (x: unknown): number | null => (typeof x === 'number' && Number.isInteger(x) ? x : typeof x === 'string' && /^\d+$/.test(x) ? Number(x) : null);

/** 2026-03-14 09:05:12.345 UTC → "2026-03-14-090512.345". */
function stamp(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 10)}-${iso.slice(11, 19).replace(/:/g, '')}${iso.slice(19, 23)}`;
}

/** "quadscope-demo-2026-03-14-090512.345-to-090513.123.trace.json": the incident and the range. */
export function traceFileName(name: string, startMs: number, endMs: number): string {
  const a = stamp(startMs);
  const b = stamp(endMs);
  const end = a.slice(0, 10) === b.slice(0, 10) ? b.slice(11) : b;
  return `quadscope-${fileSlug(name) || 'incident'}-${a}-to-${end}.trace.json`;
}

/** Span attributes worth carrying into the trace's args (small scalars only: a trace is not a dump). */
function args(attrs: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let n = 0;
  for (const [k, v] of Object.entries(attrs)) {
    if (n >= 24) break;
    if (typeof v === 'number' || typeof v === 'boolean' || (typeof v === 'string' && v.length <= 200)) {
      out[k] = v;
      n++;
    }
  }
  return out;
}

export function exportChromeTrace(store: Store, incidentId: number, startMs: number, endMs: number, limits: { maxEvents?: number; maxBytes?: number } = {}): TraceExport {
  const maxEvents = limits.maxEvents ?? MAX_EVENTS;
  const maxBytes = limits.maxBytes ?? MAX_BYTES;
  const incident = store.getIncident(incidentId);
  const name = incident?.name ?? `incident ${incidentId}`;
  const timed: Timed[] = [];
  const meta: string[] = [];
  const named = new Set<string>();
  const process = (pid: number, label: string, sort: number) => {
    if (named.has(`p${pid}`)) return;
    named.add(`p${pid}`);
    meta.push(JSON.stringify({ ph: 'M', name: 'process_name', pid, tid: 0, args: { name: label } }));
    meta.push(JSON.stringify({ ph: 'M', name: 'process_sort_index', pid, tid: 0, args: { sort_index: sort } }));
  };
  const thread = (pid: number, tid: number, label: string) => {
    if (named.has(`t${pid}/${tid}`)) return;
    named.add(`t${pid}/${tid}`);
    meta.push(JSON.stringify({ ph: 'M', name: 'thread_name', pid, tid, args: { name: label } }));
  };

  let truncated = false;
  const kernels = store.queryKernels(incidentId, startMs, endMs, READ_LIMIT + 1);
  if (kernels.length > READ_LIMIT) {
    truncated = true;
    kernels.length = READ_LIMIT;
  }
  for (const k of kernels) {
    const pid = GPU_PID_BASE + k.device;
    process(pid, `GPU ${k.device}`, 100 + k.device);
    thread(pid, k.stream, `stream ${k.stream}`);
    timed.push({
      ts: k.start_ms,
      json: JSON.stringify({ ph: 'X', cat: 'kernel', name: k.name, pid, tid: k.stream, ts: us(k.start_ms), dur: us(k.end_ms - k.start_ms), args: k.correlation_id !== null ? { correlation: k.correlation_id } : {} }),
    });
  }

  const spans: SpanRow[] = store.querySpans({ incident_id: incidentId, start_ms: startMs, end_ms: endMs, limit: READ_LIMIT + 1 });
  if (spans.length > READ_LIMIT) {
    truncated = true;
    spans.length = READ_LIMIT;
  }
  const tracePids = new Map<string, number>();
  const requestTids = new Map<string, number>();
  for (const s of spans) {
    const profiler = s.trace_id.startsWith('kineto:') || s.trace_id.startsWith('nsys:');
    let pid: number;
    let tid: number;
    if (profiler) {
      const own = intOf(s.attrs.pid) ?? (s.trace_id.startsWith('nsys:') ? intOf(s.trace_id.slice(5)) : null);
      if (own !== null) pid = own;
      else {
        pid = tracePids.get(s.trace_id) ?? TRACE_PID_BASE + tracePids.size;
        tracePids.set(s.trace_id, pid);
      }
      tid = intOf(s.attrs.tid) ?? 0;
      process(pid, own !== null ? `CPU pid ${own} (${s.trace_id})` : s.trace_id, 10);
      thread(pid, tid, `thread ${tid}`);
    } else {
      pid = REQUESTS_PID;
      tid = requestTids.get(s.trace_id) ?? requestTids.size + 1;
      requestTids.set(s.trace_id, tid);
      process(pid, 'Request traces', 1);
      thread(pid, tid, `trace ${s.trace_id.slice(0, 16)}`);
    }
    const cat = typeof s.attrs.cat === 'string' ? s.attrs.cat : profiler ? 'cpu' : 'span';
    timed.push({ ts: s.start_ms, json: JSON.stringify({ ph: 'X', cat, name: s.name, pid, tid, ts: us(s.start_ms), dur: us(Math.max(0, s.end_ms - s.start_ms)), args: args(s.attrs) }) });
  }

  const flows = store.kernelFlows(incidentId, startMs, endMs, FLOW_LIMIT);
  if (flows.truncated) truncated = true;
  for (const f of flows.flows) {
    const m = /^pid (\S+) · tid (\S+)$/.exec(f.thread);
    const pid = m ? intOf(m[1]) : null;
    const tid = m ? intOf(m[2]) : null;
    if (pid === null || tid === null) continue;
    const gpu = GPU_PID_BASE + f.device;
    // Both ends of an arrow must land inside a slice: the launch's own, and the kernel's.
    timed.push({ ts: f.launch_start_ms, json: JSON.stringify({ ph: 's', cat: 'ac2g', name: 'ac2g', id: f.correlation_id, pid, tid, ts: us(f.launch_start_ms) }) });
    timed.push({ ts: f.kernel_start_ms, json: JSON.stringify({ ph: 'f', bp: 'e', cat: 'ac2g', name: 'ac2g', id: f.correlation_id, pid: gpu, tid: f.stream, ts: us(f.kernel_start_ms) }) });
  }

  timed.sort((a, b) => a.ts - b.ts);
  const other = JSON.stringify({ exported_by: 'Quadscope', incident: name, start_ms: startMs, end_ms: endMs });
  let bytes = 64 + other.length + meta.reduce((a, s) => a + s.length + 1, 0);
  const kept: string[] = [];
  for (const e of timed) {
    if (kept.length >= maxEvents || bytes + e.json.length + 1 > maxBytes) {
      truncated = true;
      break;
    }
    kept.push(e.json);
    bytes += e.json.length + 1;
  }
  const content = `{"displayTimeUnit":"ms","otherData":${other},"traceEvents":[\n${[...meta, ...kept].join(',\n')}\n]}\n`;
  return { content, file_name: traceFileName(name, startMs, endMs), events: kept.length, truncated };
}
