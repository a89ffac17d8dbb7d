// Fuzz worker: reads jobs (seed file, mutation, seed) from a JSON file, makes each input itself (so a long
// run never holds its inputs on disk), imports it as its own bundle into a database of its own and checks
// afterwards that the database is intact and that no failed source left rows behind. It measures each
// input: time, the growth of this process's peak RSS, rows written and database growth against the
// input's bytes. It prints START/END lines so the parent can tell which input hung or crashed the
// process. One worker runs many inputs (its start-up, tsx compiling the importers, costs 1-2 s); it ends
// itself once its RSS after an input passes the parent's recycle size (512 MiB by default), and the
// parent goes on in a fresh one, so
// the heap cap and the RSS each input is measured from stay those of a near-fresh process.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { importPaths } from '../../node/engine/import/pipeline';
import { Store } from '../../node/engine/store/store';
import { mutateFile, type Mutation } from './mutate';
import { storeSql } from '../helpers/store-sql';

export interface FuzzJob {
  seed: string;
  mutation: Mutation;
  rseed: number;
  /** Size multiplier of a scalable mutation (default 1). */
  scale?: number;
}

export interface FuzzMeasure {
  statuses: string[];
  problems: string[];
  /** The errors of the sources that failed (cut to 300 characters). */
  errors?: string[];
  /** Input bytes as written (before any gunzip). */
  bytes: number;
  /** Wall time, and CPU time of the whole process (all threads) — the budget's measure: a loaded machine stretches the first. */
  ms: number;
  cpu_ms: number;
  rows: number;
  /** Growth of the database (pages × page size) while this input was imported. */
  db_bytes: number;
  /** RSS the input took above where it started (sampled, or the process's peak pushed higher), and the RSS after it (MiB). */
  peak_growth_mb: number;
  rss_mb: number;
}

const [db, jobsFile, recycleArg] = process.argv.slice(2);
const jobs = JSON.parse(readFileSync(jobsFile, 'utf8')) as FuzzJob[];
// Beside the database, in the parent's folder: a child killed for a hang leaves nothing the parent does not remove.
const work = mkdtempSync(join(dirname(db), 'in-'));
const seeds = new Map<string, Buffer>();
const seedBytes = (p: string) => {
  let b = seeds.get(p);
  if (!b) seeds.set(p, (b = readFileSync(p)));
  return b;
};
/** RSS (MiB) after an input past which the worker ends itself (cleanly) for a fresh one. */
const RECYCLE_RSS_MB = Number(recycleArg ?? 512);
// A new database file for every input: the growth measured is the input's alone, never hidden in free
// pages an earlier input's deleted incident left (the worker used to delete each incident and reuse the
// file), and nothing is left to delete (deleting a 50 k-series incident cost 0.7 s, a fifth of that
// input). Each is a copy of one made and migrated by the Store at the worker's start (the schema's
// migrations cost 4 ms an input, the copy on tmpfs a tenth of that); the Store opens it as any workspace.
const template = `${db}-template`;
new Store(template).close();
let dbFile = '';
let store!: Store;
const fresh = async (i: number) => {
  if (store) {
    // The checkpointer thread settled first: nothing of the old file is still open when it is removed.
    await store.checkpointsSettled();
    store.close();
    for (const f of [dbFile, `${dbFile}-wal`, `${dbFile}-shm`]) rmSync(f, { force: true });
  }
  dbFile = `${db}-${i}`;
  copyFileSync(template, dbFile);
  store = new Store(dbFile);
};
await fresh(0);
const owned = ['series', 'events', 'spans', 'kernels', 'allocations'];
const dbBytes = () => (storeSql(store).pragma('page_count', { simple: true }) as number) * (storeSql(store).pragma('page_size', { simple: true }) as number);

try {
  for (let i = 0; i < jobs.length; i++) {
    const job = jobs[i];
    process.stdout.write(`START ${i}\n`);
    const problems: string[] = [];
    let statuses: string[] = [];
    let errors: string[] = [];
    let rows = 0;
    const dir = join(work, `in${i}`);
    mkdirSync(dir);
    const file = join(dir, basename(job.seed));
    const input = mutateFile(basename(job.seed), seedBytes(job.seed), job.mutation, job.rseed, job.scale ?? 1);
    writeFileSync(file, input);
    const peak0 = process.resourceUsage().maxRSS;
    const rss0 = process.memoryUsage().rss;
    // Sampled while the import yields (streams, batches); the process's own high-water mark catches the rest.
    let sampled = rss0;
    const sampler = setInterval(() => (sampled = Math.max(sampled, process.memoryUsage().rss)), 10);
    const db0 = dbBytes();
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    let grown = 0;
    try {
      const r = await importPaths(store, [file]);
      statuses = r.sources.map((s) => s.status);
      errors = r.sources.filter((s) => s.status === 'failed').map((s) => (s.error ?? '').slice(0, 300));
      rows = r.sources.reduce((n, s) => n + s.rows, 0);
      for (const s of r.sources) {
        if (s.status === 'failed' && (!s.error || !s.error.includes(s.path.split('/').pop()!))) problems.push(`error does not name the file: ${s.error}`);
      }
      const failedIds = storeSql(store).prepare("SELECT id FROM sources WHERE incident_id = ? AND status != 'ok'").pluck().all(r.incident_id) as number[];
      for (const id of failedIds) {
        for (const t of owned) {
          const n = storeSql(store).prepare(`SELECT COUNT(*) FROM ${t} WHERE source_id = ?`).pluck().get(id) as number;
          if (n) problems.push(`failed source ${id} left ${n} rows in ${t}`);
        }
      }
      grown = Math.max(0, dbBytes() - db0);
    } catch (e) {
      problems.push(`import threw: ${e instanceof Error ? e.message : String(e)}`);
    }
    const ms = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    clearInterval(sampler);
    sampled = Math.max(sampled, process.memoryUsage().rss);
    const integrity = storeSql(store).pragma('quick_check', { simple: true });
    if (integrity !== 'ok') problems.push(`quick_check: ${integrity}`);
    rmSync(dir, { recursive: true, force: true });
    const measure: FuzzMeasure = {
      statuses,
      problems,
      errors,
      bytes: input.length,
      ms: Math.round(ms),
      cpu_ms: Math.round((cpu.user + cpu.system) / 1000),
      rows,
      db_bytes: grown,
      peak_growth_mb: Math.round(Math.max(sampled - rss0, (process.resourceUsage().maxRSS - peak0) * 1024) / 2 ** 20),
      rss_mb: Math.round(process.memoryUsage().rss / 2 ** 20),
    };
    process.stdout.write(`END ${i} ${JSON.stringify(measure)}\n`);
    if (measure.rss_mb > RECYCLE_RSS_MB) break;
    await fresh(i + 1);
  }
} finally {
  store.close();
  for (const f of [dbFile, `${dbFile}-wal`, `${dbFile}-shm`]) rmSync(f, { force: true });
  rmSync(work, { recursive: true, force: true });
}
