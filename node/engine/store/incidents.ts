// The `incidents` and `sources` tables: an incident's life (created in progress by an import or a
// recording, finished, swept when its process died), its span, its sources, and the reads the incident
// list and the overview make. Writes that belong to an import go through the writer connection (`w`),
// the rest through the read connection (`db`); see store.ts.
import { hostname } from 'node:os';
import type { Incident, IncidentDetail, SourceInfo, SourceStatus } from '../../../common/contract/types';
import { cachedStatement, type Db } from './db';
import { parse } from './parse-json';
import { insertSql } from './tables';

/** The key in incidents.meta_json that marks an import or recording still running (its process and host). */
export const IN_PROGRESS_KEY = 'in_progress';

const INCIDENT = 'SELECT id, name, created_ms, start_ms, end_ms, source FROM incidents';

/**
 * A new incident. `inProgress` marks it as being filled by this process (an import, a recording) until
 * finishIncident: if the process dies first, the next store opened here deletes it when nothing of it
 * was committed, and clears the mark otherwise (sources are whole or absent, one transaction each).
 */
export function createIncident(w: Db, name: string, source: string, meta: Record<string, unknown>, inProgress: boolean): number {
  const m = inProgress ? { ...meta, [IN_PROGRESS_KEY]: { pid: process.pid, host: hostname(), started_ms: Date.now() } } : meta;
  return Number(w.prepare(insertSql('incidents', { columns: ['name', 'created_ms', 'source', 'meta_json'] })).run(name, Date.now(), source, JSON.stringify(m)).lastInsertRowid);
}

/** Clears the in-progress mark; an incident that kept no data (no source with rows) is deleted when `dropIfEmpty`. Answers whether it stays. */
export function finishIncident(w: Db, id: number, dropIfEmpty: boolean): boolean {
  if (dropIfEmpty && !hasData(w, id)) {
    deleteIncident(w, id);
    return false;
  }
  w.prepare(`UPDATE incidents SET meta_json = json_remove(meta_json, '$.${IN_PROGRESS_KEY}') WHERE id = ? AND json_valid(meta_json) AND json_type(meta_json, '$.${IN_PROGRESS_KEY}') IS NOT NULL`).run(id);
  return true;
}

/** Whether an incident holds data: a source that committed rows. */
export function hasData(db: Db, id: number): boolean {
  return db.prepare("SELECT 1 FROM sources WHERE incident_id = ? AND status = 'ok' AND rows > 0 LIMIT 1").pluck().get(id) !== undefined;
}

/**
 * The newest incident that holds data (what a command means by "the newest incident"): an import that
 * failed whole, or one cut short before its first file committed, is passed over. Null when none has data.
 */
export function newestIncident(db: Db): Incident | null {
  return (
    (db
      .prepare(
        `${INCIDENT} i
          WHERE EXISTS (SELECT 1 FROM sources s WHERE s.incident_id = i.id AND s.status = 'ok' AND s.rows > 0)
          ORDER BY created_ms DESC, id DESC LIMIT 1`,
      )
      .get() as Incident | undefined) ?? null
  );
}

/**
 * Incidents marked in progress by a process of this host that is gone (killed mid-import or mid-
 * recording): deleted when they kept no data, else unmarked. Never waits on a busy database: when
 * another process holds the write lock, the sweep is left to a later open.
 */
export function sweepAbandoned(db: Db): void {
  let marked: { id: number; meta_json: string }[];
  try {
    marked = db.prepare(`SELECT id, meta_json FROM incidents WHERE meta_json LIKE '%"${IN_PROGRESS_KEY}"%'`).all() as { id: number; meta_json: string }[];
  } catch {
    return;
  }
  const host = hostname();
  const dead = marked.filter((r) => {
    const mark = parse<Record<string, { pid?: unknown; host?: unknown }>>(r.meta_json, {})[IN_PROGRESS_KEY];
    return mark && mark.host === host && typeof mark.pid === 'number' && mark.pid !== process.pid && !processAlive(mark.pid);
  });
  if (!dead.length) return;
  const timeout = db.pragma('busy_timeout', { simple: true }) as number;
  db.pragma('busy_timeout = 0');
  try {
    db.transaction(() => {
      for (const r of dead) {
        if (hasData(db, r.id)) db.prepare(`UPDATE incidents SET meta_json = json_remove(meta_json, '$.${IN_PROGRESS_KEY}') WHERE id = ?`).run(r.id);
        else deleteIncident(db, r.id);
      }
    })();
  } catch {
    /* busy or unwritable: a later open sweeps */
  } finally {
    db.pragma(`busy_timeout = ${timeout}`);
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Widens an incident's span to cover [startMs, endMs] (cheap: no scan; refreshIncidentSpan recomputes it). */
export function extendIncidentSpan(w: Db, incidentId: number, startMs: number, endMs: number): void {
  cachedStatement(w, 'incidents.extendSpan', () => w.prepare('UPDATE incidents SET start_ms = MIN(COALESCE(start_ms, @lo), @lo), end_ms = MAX(COALESCE(end_ms, @hi), @hi) WHERE id = @id')).run({ id: incidentId, lo: Math.floor(startMs), hi: Math.ceil(endMs) });
}

/** Recomputes an incident's time span from what its sources hold. */
export function refreshIncidentSpan(w: Db, incidentId: number): void {
  const r = w
    .prepare(
      `SELECT MIN(lo) AS lo, MAX(hi) AS hi FROM (
         -- Per series, the first and last sample are one seek each in the clustered (series, time) key.
         SELECT MIN((SELECT ts_ms FROM samples WHERE series_id = r.id ORDER BY ts_ms LIMIT 1)) AS lo,
                MAX((SELECT ts_ms FROM samples WHERE series_id = r.id ORDER BY ts_ms DESC LIMIT 1)) AS hi
           FROM series r WHERE r.incident_id = @id
         UNION ALL SELECT MIN(ts_ms), MAX(ts_ms) FROM events WHERE incident_id = @id
         UNION ALL SELECT MIN(start_ns) / 1000000, MAX(end_ns) / 1000000 FROM spans WHERE incident_id = @id
         UNION ALL SELECT MIN(start_ns) / 1000000, MAX(end_ns) / 1000000 FROM kernels WHERE incident_id = @id
         UNION ALL SELECT MIN(alloc_ns) / 1000000, MAX(COALESCE(free_ns, alloc_ns)) / 1000000 FROM allocations WHERE incident_id = @id
       )`,
    )
    .get({ id: incidentId }) as { lo: number | null; hi: number | null };
  setIncidentSpan(w, incidentId, { start_ms: r.lo === null ? null : Math.floor(r.lo), end_ms: r.hi === null ? null : Math.ceil(r.hi) });
}

/** Sets an incident's span to what refreshIncidentSpan would compute (row-extent.ts gathers it as rows are written). */
export function setIncidentSpan(w: Db, incidentId: number, span: { start_ms: number | null; end_ms: number | null }): void {
  cachedStatement(w, 'incidents.setSpan', () => w.prepare('UPDATE incidents SET start_ms = ?, end_ms = ? WHERE id = ?')).run(span.start_ms, span.end_ms, incidentId);
}

/** Records a source that imported nothing (failed or skipped) in its own small transaction. */
export function recordSource(w: Db, incidentId: number, meta: { path: string; format: string; bytes: number; status: SourceStatus; error: string | null; warnings?: string[] }): number {
  return Number(
    w
      .prepare(insertSql('sources', { columns: ['incident_id', 'path', 'format', 'bytes', 'rows', 'status', 'error', 'warnings_json'] }))
      .run(incidentId, meta.path, meta.format, meta.bytes, 0, meta.status, meta.error, JSON.stringify(meta.warnings ?? [])).lastInsertRowid,
  );
}

export function deleteIncident(db: Db, id: number): void {
  db.prepare('DELETE FROM incidents WHERE id = ?').run(id);
}

export function renameIncident(db: Db, id: number, name: string): void {
  db.prepare('UPDATE incidents SET name = ? WHERE id = ?').run(name, id);
}

export function listIncidents(db: Db): Incident[] {
  return db.prepare(`${INCIDENT} ORDER BY created_ms DESC, id DESC`).all() as Incident[];
}

/** Whether an incident exists (getIncident also counts its rows, which scans its samples). */
export function incidentExists(db: Db, id: number): boolean {
  return db.prepare('SELECT 1 FROM incidents WHERE id = ?').pluck().get(id) !== undefined;
}

export function getIncident(db: Db, id: number): IncidentDetail | null {
  const inc = db.prepare(`${INCIDENT} WHERE id = ?`).get(id) as Incident | undefined;
  if (!inc) return null;
  const count = (sql: string) => db.prepare(sql).pluck().get(id) as number;
  return {
    ...inc,
    sources: listSources(db, id),
    counts: {
      series: count('SELECT COUNT(*) FROM series WHERE incident_id = ?'),
      samples: count('SELECT COUNT(*) FROM samples WHERE series_id IN (SELECT id FROM series WHERE incident_id = ?)'),
      events: count('SELECT COUNT(*) FROM events WHERE incident_id = ?'),
      spans: count('SELECT COUNT(*) FROM spans WHERE incident_id = ?'),
      kernels: count('SELECT COUNT(*) FROM kernels WHERE incident_id = ?'),
      allocations: count('SELECT COUNT(*) FROM allocations WHERE incident_id = ?'),
    },
  };
}

/** An incident's recorded span, without getIncident's row counts (a full scan of its samples); null if absent. */
export function incidentSpan(db: Db, id: number): { start_ms: number | null; end_ms: number | null } | null {
  return (db.prepare('SELECT start_ms, end_ms FROM incidents WHERE id = ?').get(id) as { start_ms: number | null; end_ms: number | null } | undefined) ?? null;
}

export function incidentMeta(db: Db, id: number): Record<string, unknown> {
  return parse(db.prepare('SELECT meta_json FROM incidents WHERE id = ?').pluck().get(id) as string | undefined, {});
}

export function listSources(db: Db, incidentId: number): SourceInfo[] {
  const rows = db.prepare('SELECT id, incident_id, path, format, bytes, rows, status, error, warnings_json FROM sources WHERE incident_id = ? ORDER BY id').all(incidentId) as (Omit<SourceInfo, 'warnings'> & {
    warnings_json: string;
  })[];
  return rows.map(({ warnings_json, ...r }) => ({ ...r, warnings: parse<string[]>(warnings_json, []) }));
}
