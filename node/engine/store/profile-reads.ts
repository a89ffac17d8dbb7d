// Profiler reads for the Kernels and Memory views: CPU → GPU flows joined on correlation ids, and live
// bytes over time stacked by allocation site. Both read every row they need in one streaming pass (or
// two) with bounded memory; neither caps the rows read, only what is answered.
import type { Db } from './db';
import { parse } from './parse-json';
import type { KernelFlow, KernelFlows, MemoryBySite } from '../../../common/contract/types';


/**
 * How far before the first kernel a launch may lie. A launch precedes its kernel by microseconds when the
 * GPU keeps up, by up to seconds when the stream is backed up; past this the flow is counted unmatched.
 */
export const FLOW_LOOKBACK_MS = 5000;

/**
 * CPU → GPU flows of the kernels in [startMs, endMs] (at most `limit`, by kernel start). A kernel's launching
 * call is the span `c<correlation id>` of the same source (Kineto: the cuda_runtime event; nsys: the CUDA
 * API row), its CPU op that span's parent (`op<External id>`). Spans have no index on their id, so they are
 * read by time (the launches lie between the lookback and the last kernel's start) and matched in memory;
 * only the spans asked for are kept.
 */
export function kernelFlows(db: Db, incidentId: number, startMs: number, endMs: number, limit = 2000): KernelFlows {
  const kernels = db
    .prepare(
      `SELECT source_id, device, stream, name, start_ns, end_ns, correlation_id FROM kernels
        WHERE incident_id = ? AND end_ns >= ? AND start_ns <= ? AND correlation_id IS NOT NULL ORDER BY start_ns LIMIT ?`,
    )
    .all(incidentId, Math.floor(startMs * 1e6), Math.ceil(endMs * 1e6), limit + 1) as {
    source_id: number | null;
    device: number;
    stream: number;
    name: string;
    start_ns: number;
    end_ns: number;
    correlation_id: number;
  }[];
  const truncated = kernels.length > limit;
  if (truncated) kernels.length = limit;
  const total = truncated
    ? (db
        .prepare('SELECT COUNT(*) FROM kernels WHERE incident_id = ? AND end_ns >= ? AND start_ns <= ? AND correlation_id IS NOT NULL')
        .pluck()
        .get(incidentId, Math.floor(startMs * 1e6), Math.ceil(endMs * 1e6)) as number)
    : kernels.length;
  if (!kernels.length) return { flows: [], kernels: total, unmatched: 0, truncated };

  const key = (source: number | null, spanId: string) => `${source ?? ''}:${spanId}`;
  const wanted = new Map<string, SpanHit | null>();
  for (const k of kernels) wanted.set(key(k.source_id, `c${k.correlation_id}`), null);
  let lo = Infinity;
  let hi = -Infinity;
  for (const k of kernels) {
    lo = Math.min(lo, k.start_ns);
    hi = Math.max(hi, k.start_ns);
  }
  const spans = db
    .prepare(
      `SELECT source_id, trace_id, span_id, parent_id, name, start_ns, end_ns, attrs_json FROM spans
        WHERE incident_id = ? AND start_ns BETWEEN ? AND ?`,
    )
    .raw();
  const parents = new Map<string, SpanHit | null>();
  for (const row of spans.iterate(incidentId, lo - FLOW_LOOKBACK_MS * 1e6, hi) as Iterable<[number | null, string, string, string | null, string, number, number, string]>) {
    const [source, traceId, spanId, parentId, name, s, e, attrs] = row;
    const k = key(source, spanId);
    if (wanted.has(k) && wanted.get(k) === null) {
      const a = parse<Record<string, unknown>>(attrs, {});
      wanted.set(k, { name, start_ns: s, end_ns: e, thread: threadOf(traceId, a), parent: parentId ? key(source, parentId) : null });
      if (parentId && !parents.has(key(source, parentId))) parents.set(key(source, parentId), null);
    } else if (parents.has(k) && parents.get(k) === null) {
      parents.set(k, { name, start_ns: s, end_ns: e, thread: '', parent: null });
    }
  }
  // A CPU op opens before its launch call (so the pass above met it before knowing it was wanted), and may
  // open before that pass's window: a second pass by time, a little wider, for the ops still missing.
  const missing = [...parents.entries()].filter(([, v]) => v === null).map(([k]) => k);
  if (missing.length) {
    const earlier = db.prepare('SELECT source_id, span_id, name, start_ns, end_ns FROM spans WHERE incident_id = ? AND start_ns BETWEEN ? AND ?').raw();
    const want = new Set(missing);
    for (const [source, spanId, name, s, e] of earlier.iterate(incidentId, lo - 6 * FLOW_LOOKBACK_MS * 1e6, hi) as Iterable<[number | null, string, string, number, number]>) {
      const k = key(source, spanId);
      if (want.has(k)) parents.set(k, { name, start_ns: s, end_ns: e, thread: '', parent: null });
    }
  }

  const flows: KernelFlow[] = [];
  let unmatched = 0;
  for (const k of kernels) {
    const launch = wanted.get(key(k.source_id, `c${k.correlation_id}`));
    if (!launch) {
      unmatched++;
      continue;
    }
    const op = launch.parent ? (parents.get(launch.parent) ?? null) : null;
    flows.push({
      correlation_id: k.correlation_id,
      thread: launch.thread,
      launch_name: launch.name,
      launch_start_ms: launch.start_ns / 1e6,
      launch_end_ms: launch.end_ns / 1e6,
      op_name: op?.name ?? null,
      op_start_ms: op ? op.start_ns / 1e6 : null,
      op_end_ms: op ? op.end_ns / 1e6 : null,
      device: k.device,
      stream: k.stream,
      kernel_name: k.name,
      kernel_start_ms: k.start_ns / 1e6,
      kernel_end_ms: k.end_ns / 1e6,
    });
  }
  return { flows, kernels: total, unmatched, truncated };
}

interface SpanHit {
  name: string;
  start_ns: number;
  end_ns: number;
  thread: string;
  parent: string | null;
}

/** "pid 4242 · tid 4243" from a Kineto span's attrs; nsys spans name the process in their trace id. */
export function threadOf(traceId: string, attrs: Record<string, unknown>): string {
  const pid = attrs.pid ?? (traceId.startsWith('nsys:') ? traceId.slice(5) : undefined);
  const tid = attrs.tid;
  if (pid !== undefined && tid !== undefined) return `pid ${String(pid)} · tid ${String(tid)}`;
  if (tid !== undefined) return `${traceId} · tid ${String(tid)}`;
  return traceId;
}

/** Events of one kind (allocations or frees) in time order: time (ns), site (stack id, −1 for none), bytes. */
interface EventColumns {
  ts: Float64Array;
  site: Float64Array;
  bytes: Float64Array;
  n: number;
}

/**
 * Reads one kind of event into typed columns, in (time, rowid) order. In JSON chunks, as sample-reads.ts
 * does (SQLite renders each chunk as one array, which JSON.parse reads several times faster than stepping
 * row by row), each chunk taking up after the last (time, rowid) read: no OFFSET, so no re-sort per chunk.
 */
function readColumns(db: Db, column: 'alloc_ns' | 'free_ns', incidentId: number, device: number, expected: number): EventColumns {
  const cols: EventColumns = { ts: new Float64Array(expected), site: new Float64Array(expected), bytes: new Float64Array(expected), n: 0 };
  const chunk = db
    .prepare(
      `SELECT json_group_array(json_array(t, s, b, r)) FROM (
         SELECT ${column} AS t, stack_id AS s, size AS b, rowid AS r FROM allocations
          WHERE incident_id = ? AND device = ? AND ${column} IS NOT NULL AND (${column}, rowid) > (?, ?)
          ORDER BY ${column}, rowid LIMIT ?)`,
    )
    .pluck();
  const CHUNK = 1_000_000;
  let afterT = -Infinity;
  let afterRow = -Infinity;
  for (;;) {
    const rows = JSON.parse(chunk.get(incidentId, device, afterT, afterRow, CHUNK) as string) as [number, number | null, number, number][];
    for (const [t, st, b] of rows) {
      if (cols.n === cols.ts.length) {
        // More rows than counted (an import committed between the count and the read): grow.
        for (const k of ['ts', 'site', 'bytes'] as const) {
          const bigger = new Float64Array(Math.max(16, cols.n * 2));
          bigger.set(cols[k]);
          cols[k] = bigger;
        }
      }
      cols.ts[cols.n] = t;
      cols.site[cols.n] = st ?? -1;
      cols.bytes[cols.n] = b;
      cols.n++;
    }
    if (rows.length < CHUNK) break;
    [afterT, , , afterRow] = rows[rows.length - 1];
  }
  return cols;
}

/**
 * Live bytes over time by allocation site, as PyTorch's memory_viz draws its active memory timeline, but
 * from every record: the `top` sites by their own peak, and all the others summed as one band, so the
 * stack always adds up to the total. Records allocated before the trace began (alloc_ns null) are live
 * from its start; those never freed stay live to its end. Each of `points` time buckets holds the state
 * at the moment its total peaked, so a spike shorter than a bucket is not averaged away.
 * Allocations are read in the order of their index, frees sorted once; both passes (each site's peak,
 * then the buckets) merge the two in memory: 24 bytes an event.
 */
export function memoryBySite(db: Db, incidentId: number, opts: { device?: number; points?: number; top?: number } = {}): MemoryBySite {
  const points = Math.max(2, opts.points ?? 600);
  const top = Math.max(1, opts.top ?? 8);
  const perDevice = db
    .prepare('SELECT device, COUNT(*) AS n, COUNT(alloc_ns) AS allocs, COUNT(free_ns) AS frees FROM allocations WHERE incident_id = ? GROUP BY device ORDER BY n DESC, device')
    .all(incidentId) as { device: number; n: number; allocs: number; frees: number }[];
  const devices = perDevice.map((d) => d.device).sort((a, b) => a - b);
  const empty: MemoryBySite = { device: null, devices, t: [], sites: [], other: { sites: 0, bytes: [] }, total: [], records: 0 };
  if (!perDevice.length) return empty;
  // One GPU's memory at a time (an OOM is per GPU): the one asked for, else the one with the most records.
  const chosenDevice = perDevice.find((d) => d.device === opts.device) ?? perDevice[0];
  const device = chosenDevice.device;
  const records = chosenDevice.n;

  const initial = db
    .prepare('SELECT stack_id, SUM(size) AS bytes FROM allocations WHERE incident_id = ? AND device = ? AND alloc_ns IS NULL GROUP BY stack_id')
    .all(incidentId, device) as { stack_id: number | null; bytes: number }[];
  const allocs = readColumns(db, 'alloc_ns', incidentId, device, chosenDevice.allocs);
  const frees = readColumns(db, 'free_ns', incidentId, device, chosenDevice.frees);
  const NO_STACK = -1;
  /** Every event in time order (an allocation before a free at the same instant): fn(ts, site, delta). */
  const merged = (fn: (ts: number, site: number, delta: number) => void) => {
    let i = 0;
    let j = 0;
    while (i < allocs.n || j < frees.n) {
      if (j >= frees.n || (i < allocs.n && allocs.ts[i] <= frees.ts[j])) {
        fn(allocs.ts[i], allocs.site[i], allocs.bytes[i]);
        i++;
      } else {
        fn(frees.ts[j], frees.site[j], -frees.bytes[j]);
        j++;
      }
    }
  };

  // Pass 1: each site's own peak, and the time span.
  const live = new Map<number, number>();
  const peak = new Map<number, number>();
  for (const r of initial) {
    live.set(r.stack_id ?? NO_STACK, r.bytes);
    peak.set(r.stack_id ?? NO_STACK, r.bytes);
  }
  let t0 = Infinity;
  let t1 = -Infinity;
  merged((ts, s, delta) => {
    if (ts < t0) t0 = ts;
    if (ts > t1) t1 = ts;
    const v = (live.get(s) ?? 0) + delta;
    live.set(s, v);
    if (v > (peak.get(s) ?? 0)) peak.set(s, v);
  });
  if (!Number.isFinite(t0)) return { ...empty, device, records };
  const ranked = [...peak.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  const chosen = ranked.slice(0, top).filter(([, p]) => p > 0);
  const index = new Map(chosen.map(([s], i) => [s, i]));
  const n = chosen.length;

  // Pass 2: per bucket, the stack at the bucket's peak total (carried through buckets without records).
  const width = Math.max(1, (t1 - t0) / (points - 1));
  const cur = new Float64Array(n + 1); // top sites, then "other"
  for (const r of initial) cur[index.get(r.stack_id ?? NO_STACK) ?? n] += r.bytes;
  let total = cur.reduce((a, b) => a + b, 0);
  const bucketsT: number[] = [];
  const cols: number[][] = Array.from({ length: n + 1 }, () => []);
  const totals: number[] = [];
  let bucket = 0;
  const best = cur.slice();
  let bestTotal = total;
  const close = () => {
    bucketsT.push((t0 + bucket * width) / 1e6);
    for (let i = 0; i <= n; i++) cols[i].push(best[i]);
    totals.push(bestTotal);
  };
  merged((ts, s, delta) => {
    const b = Math.min(points - 1, Math.floor((ts - t0) / width));
    while (bucket < b) {
      close();
      bucket++;
      best.set(cur);
      bestTotal = total;
    }
    cur[index.get(s) ?? n] += delta;
    total += delta;
    if (total > bestTotal) {
      bestTotal = total;
      best.set(cur);
    }
  });
  close();

  const frames = db.prepare('SELECT frames_json FROM stacks WHERE id = ?').pluck();
  return {
    device,
    devices,
    t: bucketsT,
    sites: chosen.map(([s, p], i) => ({ stack_id: s === NO_STACK ? null : s, frames: s === NO_STACK ? [] : parse<string[]>(frames.get(s) as string | undefined, []), peak_bytes: p, bytes: cols[i] })),
    other: { sites: ranked.length - n, bytes: cols[n] },
    total: totals,
    records,
  };
}
