// Fuzz worker: imports each input file as its own bundle into one database and checks, after each,
// that the database is intact and that no failed source left rows behind. Prints START/END lines so
// the parent can tell which input hung or crashed the process.
import { readFileSync } from 'node:fs';
import { importPaths } from '../../electron/engine/import/pipeline';
import { Store } from '../../electron/engine/store/store';

const [db, listFile] = process.argv.slice(2);
const inputs = JSON.parse(readFileSync(listFile, 'utf8')) as string[];
const store = new Store(db);
const owned = ['series', 'events', 'spans', 'kernels', 'allocations'];

for (let i = 0; i < inputs.length; i++) {
  process.stdout.write(`START ${i}\n`);
  const problems: string[] = [];
  let statuses: string[] = [];
  try {
    const r = await importPaths(store, [inputs[i]]);
    statuses = r.sources.map((s) => s.status);
    for (const s of r.sources) {
      if (s.status === 'failed' && (!s.error || !s.error.includes(s.path.split('/').pop()!))) problems.push(`error does not name the file: ${s.error}`);
    }
    const failedIds = store.db.prepare("SELECT id FROM sources WHERE incident_id = ? AND status != 'ok'").pluck().all(r.incident_id) as number[];
    for (const id of failedIds) {
      for (const t of owned) {
        const n = store.db.prepare(`SELECT COUNT(*) FROM ${t} WHERE source_id = ?`).pluck().get(id) as number;
        if (n) problems.push(`failed source ${id} left ${n} rows in ${t}`);
      }
    }
  } catch (e) {
    problems.push(`import threw: ${e instanceof Error ? e.message : String(e)}`);
  }
  const integrity = store.db.pragma('integrity_check', { simple: true });
  if (integrity !== 'ok') problems.push(`integrity_check: ${integrity}`);
  process.stdout.write(`END ${i} ${JSON.stringify({ statuses, problems, rss_mb: Math.round(process.memoryUsage().rss / 2 ** 20) })}\n`);
}
store.close();
