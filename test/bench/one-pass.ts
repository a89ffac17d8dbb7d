// The floor the analysis is measured against (issue 20): one ordered pass of SQLite over an incident's
// samples, the query a user would write in the sqlite3 shell — per series its count, mean, min and max.
// Run here through better-sqlite3 (the same SQLite as the engine's) and, where installed, by the sqlite3
// command-line shell itself.
import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export const ONE_PASS_SQL = (incidentId: number): string =>
  `SELECT series_id, COUNT(*), AVG(value), MIN(value), MAX(value) FROM samples
    WHERE series_id IN (SELECT id FROM series WHERE incident_id = ${Math.trunc(incidentId)}) GROUP BY series_id`;

/** Runs the pass over a read-only connection; answers the number of series it returned. */
export function onePassSql(file: string, incidentId: number): number {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(ONE_PASS_SQL(incidentId)).raw().all().length;
  } finally {
    db.close();
  }
}

const SQLITE3 = ['/usr/bin/sqlite3', '/usr/local/bin/sqlite3'].find((p) => existsSync(p)) ?? null;
const GNU_TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : null;

/** The same pass by the sqlite3 shell: wall time (process start included) and its peak RSS, or null without the shell. */
export function onePassShell(file: string, incidentId: number): { ms: number; rss_mb: number | null } | null {
  if (!SQLITE3) return null;
  const args = [SQLITE3, '-readonly', file, ONE_PASS_SQL(incidentId)];
  const t = performance.now();
  const r = GNU_TIME ? spawnSync(GNU_TIME, ['-f', 'QS_RSS_KB %M', ...args], { encoding: 'utf8' }) : spawnSync(args[0], args.slice(1), { encoding: 'utf8' });
  const ms = performance.now() - t;
  if (r.status !== 0) throw new Error(`sqlite3 one-pass failed: ${r.stderr}`);
  const m = /QS_RSS_KB (\d+)/.exec(r.stderr ?? '');
  return { ms, rss_mb: m ? Math.round(Number(m[1]) / 1024) : null };
}
