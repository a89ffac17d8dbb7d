// The `events` table and its full-text index `events_fts`, as the Logs view and the model read them.
import type { Req } from '../../../common/contract/api';
import type { EventRow } from '../../../common/contract/types';
import type { Db } from './db';
import { parse } from './parse-json';

/** The engine's event query (the contract's request type: one definition). */
export type EventQuery = Req<'queryEvents'>;

export function queryEvents(db: Db, q: EventQuery): { rows: EventRow[]; total: number } {
  const where: string[] = ['e.incident_id = @incident_id'];
  const params: Record<string, unknown> = { incident_id: q.incident_id };
  let from = 'events e';
  if (q.query && q.query.trim()) {
    from = 'events_fts f JOIN events e ON e.id = f.rowid';
    where.push('events_fts MATCH @match');
    params.match = toFtsQuery(q.query);
  }
  if (q.severities?.length) {
    where.push(`e.severity IN (${q.severities.map((_, i) => `@sev${i}`).join(',')})`);
    q.severities.forEach((s, i) => (params[`sev${i}`] = s));
  }
  if (q.kinds?.length) {
    where.push(`e.kind IN (${q.kinds.map((_, i) => `@kind${i}`).join(',')})`);
    q.kinds.forEach((s, i) => (params[`kind${i}`] = s));
  }
  if (q.start_ms !== undefined) {
    where.push('e.ts_ms >= @start');
    params.start = q.start_ms;
  }
  if (q.end_ms !== undefined) {
    where.push('e.ts_ms <= @end');
    params.end = q.end_ms;
  }
  const w = where.join(' AND ');
  const total = db.prepare(`SELECT COUNT(*) FROM ${from} WHERE ${w}`).pluck().get(params) as number;
  const rows = db
    .prepare(
      `SELECT e.id, e.ts_ms, e.kind, e.severity, e.source_id, s.path AS source_path, e.line, e.text, e.attrs_json
         FROM ${from} LEFT JOIN sources s ON s.id = e.source_id
        WHERE ${w} ORDER BY e.ts_ms, e.id LIMIT @limit OFFSET @offset`,
    )
    .all({ ...params, limit: q.limit ?? 500, offset: q.offset ?? 0 }) as (Omit<EventRow, 'attrs'> & { attrs_json: string })[];
  return { rows: rows.map(({ attrs_json, ...r }) => ({ ...r, attrs: parse(attrs_json, {}) })), total };
}

/** Turns what a user types into an FTS5 query: bare words are AND-ed prefixes; quoted phrases and FTS syntax pass through. */
export function toFtsQuery(input: string): string {
  const s = input.trim();
  if (/["*:()]|\b(AND|OR|NOT|NEAR)\b/.test(s)) return s;
  return s
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => `"${w.replace(/"/g, '""')}"*`)
    .join(' ');
}
