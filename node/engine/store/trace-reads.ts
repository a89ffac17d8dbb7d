// The `spans` and `kernels` tables as the Traces and Kernels views read them: spans of a trace or a time
// range, the list of traces, kernels in a range and the per-name summary. (CPU → GPU flows are in
// profile-reads.ts.)
import type { KernelRow, KernelSummaryRow, SpanRow } from '../../../common/contract/types';
import type { Db } from './db';
import { parse } from './parse-json';

export function querySpans(db: Db, q: { incident_id: number; trace_id?: string; start_ms?: number; end_ms?: number; limit?: number }): SpanRow[] {
  const where = ['incident_id = @incident_id'];
  const p: Record<string, unknown> = { incident_id: q.incident_id, limit: q.limit ?? 5000 };
  if (q.trace_id) {
    where.push('trace_id = @trace_id');
    p.trace_id = q.trace_id;
  }
  if (q.start_ms !== undefined) {
    where.push('end_ns >= @start * 1000000');
    p.start = q.start_ms;
  }
  if (q.end_ms !== undefined) {
    where.push('start_ns <= @end * 1000000');
    p.end = q.end_ms;
  }
  const rows = db
    .prepare(`SELECT trace_id, span_id, parent_id, name, start_ns / 1e6 AS start_ms, end_ns / 1e6 AS end_ms, attrs_json FROM spans WHERE ${where.join(' AND ')} ORDER BY start_ns LIMIT @limit`)
    .all(p) as (Omit<SpanRow, 'attrs'> & { attrs_json: string })[];
  return rows.map(({ attrs_json, ...r }) => ({ ...r, attrs: parse(attrs_json, {}) }));
}

export function listTraces(db: Db, incidentId: number, limit = 500): { trace_id: string; root: string; start_ms: number; end_ms: number; spans: number }[] {
  return db
    .prepare(
      `SELECT trace_id,
              COALESCE((SELECT name FROM spans r WHERE r.incident_id = s.incident_id AND r.trace_id = s.trace_id AND (r.parent_id IS NULL OR r.parent_id = '') ORDER BY start_ns LIMIT 1), MIN(name)) AS root,
              MIN(start_ns) / 1e6 AS start_ms, MAX(end_ns) / 1e6 AS end_ms, COUNT(*) AS spans
         FROM spans s WHERE incident_id = ? GROUP BY trace_id ORDER BY MIN(start_ns) LIMIT ?`,
    )
    .all(incidentId, limit) as { trace_id: string; root: string; start_ms: number; end_ms: number; spans: number }[];
}

export function queryKernels(db: Db, incidentId: number, startMs: number, endMs: number, limit = 20_000): KernelRow[] {
  return db
    .prepare(
      `SELECT device, stream, name, start_ns / 1e6 AS start_ms, end_ns / 1e6 AS end_ms, (end_ns - start_ns) / 1e3 AS duration_us, correlation_id
         FROM kernels WHERE incident_id = ? AND end_ns >= ? * 1000000 AND start_ns <= ? * 1000000 ORDER BY start_ns LIMIT ?`,
    )
    .all(incidentId, Math.floor(startMs), Math.ceil(endMs), limit) as KernelRow[];
}

export function kernelSummary(db: Db, incidentId: number, startMs?: number, endMs?: number, limit = 200): KernelSummaryRow[] {
  const lo = startMs === undefined ? -1e18 : startMs * 1e6;
  const hi = endMs === undefined ? 1e19 : endMs * 1e6;
  const rows = db
    .prepare(
      `SELECT name, COUNT(*) AS count, SUM(end_ns - start_ns) / 1e3 AS total_us, AVG(end_ns - start_ns) / 1e3 AS mean_us
         FROM kernels WHERE incident_id = ? AND start_ns BETWEEN ? AND ? GROUP BY name ORDER BY total_us DESC LIMIT ?`,
    )
    .all(incidentId, lo, hi, limit) as Omit<KernelSummaryRow, 'p99_us'>[];
  const durations = db.prepare('SELECT (end_ns - start_ns) / 1e3 FROM kernels WHERE incident_id = ? AND name = ? AND start_ns BETWEEN ? AND ? ORDER BY 1').pluck();
  return rows.map((r) => {
    const d = durations.all(incidentId, r.name, lo, hi) as number[];
    return { ...r, p99_us: d.length ? d[Math.min(d.length - 1, Math.ceil(0.99 * d.length) - 1)] : 0 };
  });
}
