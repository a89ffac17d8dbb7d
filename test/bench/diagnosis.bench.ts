// `npm run bench -- diagnosis [--split dev|judge] [--n 300] [--only cause,…|healthy] [--json out.json]`
//
// The diagnosis against ground truth on realistic incidents the model was never tuned on: N seeded
// bundles from fixtures/gen (every cause of root-causes.md and healthy traffic, in every variant),
// generated, imported through the real import pipeline into one SQLite file each, and diagnosed with
// analyzeIncident. Prints top-1 / top-3 root-cause accuracy, false incidents on healthy bundles, outages
// called healthy, onset error, per-cause and per-variant tables, the confusion matrix, and on healthy
// bundles the share of windows with the latency alert on and in the healthy quadrant; writes
// bench-results/diagnosis.json.
//
// Splits: `dev` (seeds 1000…, the ones the model may be tuned on) and `judge` (seeds 700000…, never used
// in development; the default). Cached under $TMPDIR/quadscope-diagnosis-bench (QUADSCOPE_BENCH_CACHE):
// the generated bundles by a hash of fixtures/ (gen-<hash>/seed-N/), their imported databases by that and
// a hash of the import sources (db-<hash>/seed-N/) — a model change re-runs only the analysis, an
// importer change only the import. Caches of other sources are removed past the two most recent, and any
// unused for two days (each database cache is 2–20 GB). Generation
// and import, then the analysis, run in two worker processes (QUADSCOPE_BENCH_JOBS to change). Options:
// --seeds A-B,N (explicit seeds), --no-cache, --timeout S (per bundle and step).
import { fork, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Diagnosis } from '../../common/contract/diagnosis';
import type { Truth } from '../../fixtures/gen/plan';
import { emit } from './lib';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SELF = fileURLToPath(import.meta.url);

/** Seed ranges of the two splits: disjoint, far apart. */
export const SPLITS = { dev: 1000, judge: 700_000 } as const;

/** Sources whose change invalidates the cached bundles, and (with those) the imported databases. */
const GENERATOR_SOURCES = ['fixtures/lib', 'fixtures/gen', 'package-lock.json'];
const IMPORT_SOURCES = ['node/engine/import', 'node/engine/importers', 'node/engine/bundle', 'node/engine/signals', 'node/engine/store', 'common/contract', 'common/names.ts'];

// ---------------------------------------------------------------------------------------------------
// Worker side: `--worker` runs one task at a time from the parent over IPC.

interface PrepareTask {
  kind: 'prepare';
  seed: number;
  /** Where the generated bundle and truth.json are cached, and where the imported database is. */
  genDir: string;
  dir: string;
}
interface AnalyzeTask {
  kind: 'analyze';
  seed: number;
  dir: string;
}
type Task = PrepareTask | AnalyzeTask;

interface Prepared {
  seed: number;
  genMs: number;
  importMs: number;
  incidentId: number;
  dbBytes: number;
  sources: Array<{ path: string; format: string; status: string; rows: number; error: string | null }>;
}

export interface Analyzed {
  seed: number;
  ms: number;
  error: string | null;
  status: 'healthy' | 'explained' | 'unexplained' | 'insufficient' | 'error';
  causes: string[];
  onsetMs: number | null;
  causeOnsetMs: number | null;
  windows: number;
  windowMs: number | null;
  latencyAlertShare: number;
  healthyQuadrantShare: number;
  alerts: string[];
  instances: string[];
}

/** Moves a finished private folder into place unless another run got there first (the first one wins). */
function publish(work: string, dir: string, marker: string): void {
  if (existsSync(join(dir, marker))) {
    rmSync(work, { recursive: true, force: true });
    return;
  }
  rmSync(dir, { recursive: true, force: true });
  try {
    renameSync(work, dir);
  } catch (e) {
    rmSync(work, { recursive: true, force: true });
    if (!existsSync(join(dir, marker))) throw e;
  }
}

/**
 * Generates one bundle (unless cached) and imports it into its own database, each into a private folder
 * renamed into place when done: runs sharing the cache never see half an entry.
 */
async function prepare(t: PrepareTask): Promise<Prepared> {
  const { Store } = await import('../../node/engine/store/store');
  const { importPaths } = await import('../../node/engine/import/pipeline');
  if (!existsSync(join(t.genDir, 'generated.json'))) {
    const { drawVariant } = await import('../../fixtures/gen/variant');
    const { buildVariantBundle } = await import('../../fixtures/gen/build');
    const work = `${t.genDir}.tmp-${process.pid}`;
    rmSync(work, { recursive: true, force: true });
    const g0 = performance.now();
    buildVariantBundle(drawVariant(t.seed), work);
    writeFileSync(join(work, 'generated.json'), JSON.stringify({ genMs: performance.now() - g0 }));
    publish(work, t.genDir, 'generated.json');
  }
  const { genMs } = JSON.parse(readFileSync(join(t.genDir, 'generated.json'), 'utf8')) as { genMs: number };
  const truth = JSON.parse(readFileSync(join(t.genDir, 'truth.json'), 'utf8')) as Truth;
  const work = `${t.dir}.tmp-${process.pid}`;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const dbFile = join(work, 'incident.db');
  const store = new Store(dbFile);
  const i0 = performance.now();
  let result;
  try {
    result = await importPaths(store, [join(t.genDir, 'bundle')], { name: truth.id, options: truth.import_options });
  } finally {
    store.close();
  }
  const prepared: Prepared = {
    seed: t.seed,
    genMs,
    importMs: performance.now() - i0,
    incidentId: result.incident_id,
    dbBytes: statSync(dbFile).size,
    sources: result.sources.map((s) => ({ path: s.path, format: s.format, status: s.status, rows: s.rows, error: s.error ?? null })),
  };
  writeFileSync(join(work, 'truth.json'), JSON.stringify(truth));
  writeFileSync(join(work, 'prepared.json'), JSON.stringify(prepared));
  publish(work, t.dir, 'prepared.json');
  return JSON.parse(readFileSync(join(t.dir, 'prepared.json'), 'utf8')) as Prepared;
}

async function analyze(t: AnalyzeTask): Promise<Analyzed> {
  const { Store } = await import('../../node/engine/store/store');
  const { analyzeIncident } = await import('../../node/engine/model/diagnose');
  const prepared = JSON.parse(readFileSync(join(t.dir, 'prepared.json'), 'utf8')) as Prepared;
  const store = Store.openForReading(join(t.dir, 'incident.db'));
  const t0 = performance.now();
  try {
    const d = analyzeIncident(store, prepared.incidentId) as Diagnosis;
    return summarize(t.seed, d, performance.now() - t0);
  } catch (e) {
    return { seed: t.seed, ms: performance.now() - t0, error: e instanceof Error ? `${e.message}\n${(e.stack ?? '').split('\n').slice(1, 4).join('\n')}` : String(e), status: 'error', causes: [], onsetMs: null, causeOnsetMs: null, windows: 0, windowMs: null, latencyAlertShare: 0, healthyQuadrantShare: 0, alerts: [], instances: [] };
  } finally {
    store.close();
  }
}

/** What the bench keeps of a diagnosis (the windows are reduced to the two shares it reports). */
export function summarize(seed: number, d: Diagnosis, ms: number): Analyzed {
  const status = d.status ?? (d.causes.length ? 'explained' : d.onset_ms !== null ? 'unexplained' : 'healthy');
  const step = d.windows.length > 1 ? d.windows[1].t_ms - d.windows[0].t_ms : null;
  const latency = d.alerts.filter((a) => a.family === 'latency');
  const end = d.incident.end_ms;
  let alertOn = 0;
  let healthy = 0;
  for (const w of d.windows) {
    if (latency.some((a) => w.t_ms >= a.first_fired_ms && w.t_ms < (a.resolved_ms ?? end + 1))) alertOn++;
    if (w.quadrant === 'healthy') healthy++;
  }
  const n = Math.max(1, d.windows.length);
  return {
    seed,
    ms,
    error: null,
    status,
    causes: d.causes.map((c) => c.id),
    onsetMs: d.onset_ms ?? d.unexplained?.onset_ms ?? null,
    causeOnsetMs: d.causes[0]?.onset_ms ?? null,
    windows: d.windows.length,
    windowMs: d.window_ms ?? step,
    latencyAlertShare: alertOn / n,
    healthyQuadrantShare: healthy / n,
    alerts: [...new Set(d.alerts.map((a) => a.family))],
    instances: d.causes[0]?.instances ?? [],
  };
}

async function workerMain(): Promise<void> {
  process.on('message', (msg: Task) => {
    const run = msg.kind === 'prepare' ? prepare(msg) : analyze(msg);
    run.then(
      (value) => process.send!({ ok: true, value }),
      (e: unknown) => process.send!({ ok: false, error: e instanceof Error ? `${e.message}\n${e.stack ?? ''}` : String(e) }),
    );
  });
}

// ---------------------------------------------------------------------------------------------------
// Parent side.

/** Runs tasks on `jobs` forked workers (each one task at a time); a worker that dies is replaced. */
async function pool<T>(tasks: Task[], jobs: number, onDone: (task: Task, ok: boolean, value: T | string) => void, timeoutMs: number): Promise<void> {
  let next = 0;
  const spawnWorker = () => fork(SELF, ['--worker'], { execArgv: ['--import', 'tsx', '--max-old-space-size=4096'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const runOn = (w: ChildProcess): Promise<void> =>
    new Promise((resolve) => {
      const step = () => {
        if (next >= tasks.length) {
          w.kill();
          resolve();
          return;
        }
        const task = tasks[next++];
        let settled = false;
        const timer = setTimeout(() => {
          if (settled) return;
          settled = true;
          w.removeAllListeners('message');
          w.removeAllListeners('exit');
          w.kill('SIGKILL');
          onDone(task, false, `timed out after ${timeoutMs / 1000} s`);
          w = spawnWorker();
          step();
        }, timeoutMs);
        w.once('message', (m: { ok: boolean; value?: T; error?: string }) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          w.removeAllListeners('exit');
          onDone(task, m.ok, m.ok ? (m.value as T) : m.error!);
          step();
        });
        w.once('exit', (code) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          w.removeAllListeners('message');
          onDone(task, false, `worker exited with code ${code}`);
          w = spawnWorker();
          step();
        });
        w.send(task);
      };
      step();
    });
  const workers = Array.from({ length: Math.min(jobs, tasks.length) }, () => runOn(spawnWorker()));
  await Promise.all(workers);
}

function sourceHash(paths: readonly string[]): string {
  const h = createHash('sha256');
  const add = (p: string) => {
    if (!existsSync(p)) return;
    if (statSync(p).isDirectory()) {
      for (const name of readdirSync(p).sort()) add(join(p, name));
    } else if (/\.(ts|mjs|js|json|sql)$/.test(p)) {
      h.update(relative(ROOT, p));
      h.update(readFileSync(p));
    }
  };
  for (const p of paths) add(join(ROOT, p));
  return h.digest('hex').slice(0, 16);
}

/** Removes cache entries of other sources nobody used for two days. */
/**
 * Removes the caches of other code versions: those untouched for two days, and past the two most recent
 * (each imported-database cache is 2–20 GB; a day of edits made 28 of them and filled a 250 GB disk).
 */
function pruneCache(root: string, keep: readonly string[]): void {
  const old = Date.now() - 2 * 86_400_000;
  const others: { path: string; mtimeMs: number }[] = [];
  for (const name of existsSync(root) ? readdirSync(root) : []) {
    if (keep.includes(name)) continue;
    const path = join(root, name);
    try {
      others.push({ path, mtimeMs: statSync(path).mtimeMs });
    } catch {
      // Another run is removing it.
    }
  }
  others.sort((a, b) => b.mtimeMs - a.mtimeMs);
  others.forEach((o, i) => {
    if (i < KEEP_OTHER_CACHES && o.mtimeMs >= old) return;
    try {
      rmSync(o.path, { recursive: true, force: true });
    } catch {
      // Another run is removing it too.
    }
  });
}

/** Caches of other code versions kept (switching between two branches reuses them). */
const KEEP_OTHER_CACHES = 2;

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const q = (xs: number[], p: number) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * (s.length - 1) + 0.5))];
};

function table(header: string[], rows: Array<Array<string | number>>): string {
  const lines = [header, ...rows.map((r) => r.map(String))];
  const widths = header.map((_, i) => Math.max(...lines.map((l) => l[i].length)));
  const fmt = (l: string[]) => `| ${l.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [fmt(lines[0]), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...lines.slice(1).map(fmt)].join('\n');
}

interface Row {
  truth: Truth;
  prepared: Prepared;
  a: Analyzed;
}

const predicted = (a: Analyzed) => (a.status === 'error' ? 'error' : a.causes[0] ?? (a.status === 'unexplained' || a.status === 'insufficient' ? a.status : 'healthy'));
const isHealthyCall = (a: Analyzed) => a.causes.length === 0 && a.status === 'healthy';
const correct = (r: Row) => (r.truth.cause === null ? isHealthyCall(r.a) : r.a.causes[0] === r.truth.cause);
const inTop3 = (r: Row) => (r.truth.cause === null ? isHealthyCall(r.a) : r.a.causes.slice(0, 3).includes(r.truth.cause));
/** A bundle where the engine crashed, OOMed, hung or lost a GPU: never to be called healthy. */
export const isOutage = (t: Truth): boolean => t.outage;
const onsetErrS = (r: Row): number | null => {
  if (r.truth.onset_ms === null) return null;
  const got = r.a.onsetMs ?? r.a.causeOnsetMs;
  return got === null ? null : Math.abs(got - r.truth.onset_ms) / 1000;
};

function durationBucket(s: number): string {
  return s < 3600 ? '<1 h' : s < 2 * 3600 ? '1–2 h' : s < 6 * 3600 ? '2–6 h' : '6–24 h';
}

export interface Summary {
  split: string;
  n: number;
  seeds: [number, number];
  top1: number;
  top3: number;
  causeBundles: number;
  healthyBundles: number;
  falseIncidents: number;
  outagesCalledHealthy: number;
  outageBundles: number;
  onsetMedianS: number | null;
  onsetP90S: number | null;
  onsetMissing: number;
  healthyLatencyAlertShare: number | null;
  healthyQuadrantShare: number | null;
  errors: number;
}

function report(rows: Row[], split: string, seeds: number[]): { text: string; summary: Summary; json: unknown } {
  const out: string[] = [];
  const causeRows = rows.filter((r) => r.truth.cause !== null);
  const healthyRows = rows.filter((r) => r.truth.cause === null);
  const outageRows = rows.filter((r) => isOutage(r.truth));
  const errs = rows.map(onsetErrS).filter((x): x is number => x !== null);
  const hl = healthyRows.map((r) => r.a.latencyAlertShare);
  const hq = healthyRows.map((r) => r.a.healthyQuadrantShare);
  const mean = (xs: number[]) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : null);
  const summary: Summary = {
    split,
    n: rows.length,
    seeds: [Math.min(...seeds), Math.max(...seeds)],
    top1: causeRows.filter(correct).length / Math.max(1, causeRows.length),
    top3: causeRows.filter(inTop3).length / Math.max(1, causeRows.length),
    causeBundles: causeRows.length,
    healthyBundles: healthyRows.length,
    falseIncidents: healthyRows.filter((r) => !isHealthyCall(r.a)).length,
    outagesCalledHealthy: outageRows.filter((r) => isHealthyCall(r.a)).length,
    outageBundles: outageRows.length,
    onsetMedianS: errs.length ? q(errs, 0.5) : null,
    onsetP90S: errs.length ? q(errs, 0.9) : null,
    onsetMissing: causeRows.filter((r) => onsetErrS(r) === null).length,
    healthyLatencyAlertShare: mean(hl),
    healthyQuadrantShare: mean(hq),
    errors: rows.filter((r) => r.a.status === 'error').length,
  };
  out.push(`diagnosis benchmark — split ${split}, ${rows.length} bundles (seeds ${summary.seeds[0]}…${summary.seeds[1]})`);
  out.push('');
  out.push(
    table(
      ['measure', 'value', 'goal (issue 13)'],
      [
        ['top-1 root cause (cause bundles)', `${pct(summary.top1)} (${causeRows.filter(correct).length}/${causeRows.length})`, '≥ 95%'],
        ['top-3 root cause', `${pct(summary.top3)} (${causeRows.filter(inTop3).length}/${causeRows.length})`, ''],
        ['false incidents on healthy bundles', `${summary.falseIncidents}/${healthyRows.length}`, '0'],
        ['crash/OOM/outage bundles called healthy', `${summary.outagesCalledHealthy}/${outageRows.length}`, '0'],
        ['onset error median', summary.onsetMedianS === null ? '—' : `${summary.onsetMedianS.toFixed(0)} s`, '≤ one window'],
        ['onset error p90', summary.onsetP90S === null ? '—' : `${summary.onsetP90S.toFixed(0)} s`, '≤ 60 s'],
        ['cause bundles without an onset', `${summary.onsetMissing}/${causeRows.length}`, ''],
        ['healthy: windows with the latency alert on', summary.healthyLatencyAlertShare === null ? '—' : pct(summary.healthyLatencyAlertShare), '< 2%'],
        ['healthy: windows in the healthy quadrant', summary.healthyQuadrantShare === null ? '—' : pct(summary.healthyQuadrantShare), '≥ 95%'],
        ['analysis errors', String(summary.errors), '0'],
      ],
    ),
  );

  // Per cause.
  const causes = [...new Set(rows.map((r) => r.truth.cause ?? 'healthy'))].sort();
  out.push('', 'per cause');
  out.push(
    table(
      ['cause', 'n', 'top-1', 'top-3', 'called healthy', 'onset med s', 'onset p90 s', 'most often named instead'],
      causes.map((c) => {
        const rs = rows.filter((r) => (r.truth.cause ?? 'healthy') === c);
        const e = rs.map(onsetErrS).filter((x): x is number => x !== null);
        const wrong = new Map<string, number>();
        for (const r of rs) if (!correct(r)) wrong.set(predicted(r.a), (wrong.get(predicted(r.a)) ?? 0) + 1);
        const top = [...wrong.entries()].sort((a, b) => b[1] - a[1])[0];
        return [c, rs.length, pct(rs.filter(correct).length / rs.length), pct(rs.filter(inTop3).length / rs.length), rs.filter((r) => isHealthyCall(r.a)).length, e.length ? q(e, 0.5).toFixed(0) : '—', e.length ? q(e, 0.9).toFixed(0) : '—', top ? `${top[0]} (${top[1]})` : ''];
      }),
    ),
  );

  // Per variant.
  const dims: Array<[string, (t: Truth) => string]> = [
    ['engine', (t) => t.variant.dialect],
    ['replicas', (t) => String(t.variant.replicas)],
    ['tensor parallel', (t) => String(t.variant.tp)],
    ['GPU telemetry', (t) => t.variant.telemetry.kind],
    ['engine scrape', (t) => `${t.variant.scrape.intervalS} s`],
    ['scrape gaps', (t) => (t.variant.scrape.gaps.length ? 'with gaps' : 'none')],
    ['duration', (t) => durationBucket(t.variant.durationS)],
    ['sources', (t) => (!t.variant.sources.metrics ? 'logs only' : t.variant.sources.logs ? 'metrics+logs' : 'metrics, no engine log')],
    ['log zone', (t) => (t.variant.logs.tzOffsetMin === 0 ? 'UTC' : 'local (--tz)')],
    ['look-alike: power cap', (t) => (t.variant.lookalikes.powerCapW !== null ? 'yes' : 'no')],
    ['look-alike: arrival spikes', (t) => (t.variant.lookalikes.spikes.length ? 'yes' : 'no')],
    ['look-alike: clean restart', (t) => (t.variant.lookalikes.restartAtS !== null ? 'yes' : 'no')],
    ['look-alike: cold start', (t) => (t.variant.lookalikes.coldStartS !== null ? 'yes' : 'no')],
    ['look-alike: benign warnings', (t) => (t.variant.lookalikes.warnings ? 'yes' : 'no')],
    ['bursty traffic', (t) => (t.variant.bursty ? 'yes' : 'no')],
    ['GPU', (t) => t.variant.gpu],
  ];
  out.push('', 'per variant (cause bundles: top-1; healthy bundles: called healthy)');
  const vrows: Array<Array<string | number>> = [];
  for (const [name, key] of dims) {
    const values = [...new Set(rows.map((r) => key(r.truth)))].sort();
    for (const val of values) {
      const rs = rows.filter((r) => key(r.truth) === val);
      const c = rs.filter((r) => r.truth.cause !== null);
      const h = rs.filter((r) => r.truth.cause === null);
      vrows.push([name, val, rs.length, c.length ? `${pct(c.filter(correct).length / c.length)} of ${c.length}` : '—', h.length ? `${h.filter((r) => isHealthyCall(r.a)).length}/${h.length}` : '—']);
    }
  }
  out.push(table(['variant', 'value', 'n', 'top-1', 'healthy ok'], vrows));

  // Confusion matrix: truth (rows) × what came first (columns).
  const preds = [...new Set(rows.map((r) => predicted(r.a)))].sort();
  const short = (s: string) => s.replace('allocator_', 'alloc_').replace('prefix_cache_', 'prefix_').replace('network_client_', 'net_').replace('spec_decode_', 'spec_').replace('long_prompt_', 'long_').replace('cpu_frontend_', 'cpu_').replace('gpu_hardware_', 'gpu_hw_').replace('deploy_regression', 'deploy_reg').replace('cuda_graph_', 'graph_');
  out.push('', 'confusion matrix (rows: truth, columns: first cause named)');
  out.push(
    table(
      ['truth \\ named', ...preds.map(short)],
      causes.map((c) => [short(c), ...preds.map((p) => {
        const k = rows.filter((r) => (r.truth.cause ?? 'healthy') === c && predicted(r.a) === p).length;
        return k ? String(k) : '.';
      })]),
    ),
  );

  // Cost.
  const gen = rows.map((r) => r.prepared.genMs / 1000);
  const imp = rows.map((r) => r.prepared.importMs / 1000);
  const ana = rows.map((r) => r.a.ms / 1000);
  const db = rows.map((r) => r.prepared.dbBytes / 1e6);
  out.push('', 'cost per bundle (median / p90 / max)');
  out.push(
    table(
      ['step', 'median', 'p90', 'max'],
      [
        ['generate, s', q(gen, 0.5).toFixed(1), q(gen, 0.9).toFixed(1), Math.max(...gen).toFixed(1)],
        ['import, s', q(imp, 0.5).toFixed(1), q(imp, 0.9).toFixed(1), Math.max(...imp).toFixed(1)],
        ['analyze, s', q(ana, 0.5).toFixed(2), q(ana, 0.9).toFixed(2), Math.max(...ana).toFixed(2)],
        ['database, MB', q(db, 0.5).toFixed(1), q(db, 0.9).toFixed(1), Math.max(...db).toFixed(1)],
      ],
    ),
  );
  const failedSources = rows.flatMap((r) => r.prepared.sources.filter((s) => s.status !== 'ok').map((s) => `seed ${r.truth.seed} ${s.path}: ${s.status} ${s.error ?? ''}`));
  if (failedSources.length) out.push('', `sources that did not import cleanly (${failedSources.length}):`, ...failedSources.slice(0, 20).map((s) => `  ${s}`));
  const errors = rows.filter((r) => r.a.error);
  if (errors.length) out.push('', `analysis errors (${errors.length}):`, ...errors.slice(0, 10).map((r) => `  seed ${r.truth.seed}: ${r.a.error!.split('\n')[0]}`));

  const json = {
    date: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    summary,
    per_cause: Object.fromEntries(
      causes.map((c) => {
        const rs = rows.filter((r) => (r.truth.cause ?? 'healthy') === c);
        return [c, { n: rs.length, top1: rs.filter(correct).length / rs.length, top3: rs.filter(inTop3).length / rs.length, called_healthy: rs.filter((r) => isHealthyCall(r.a)).length }];
      }),
    ),
    confusion: Object.fromEntries(causes.map((c) => [c, Object.fromEntries(preds.map((p) => [p, rows.filter((r) => (r.truth.cause ?? 'healthy') === c && predicted(r.a) === p).length]).filter(([, k]) => k))])),
    bundles: rows.map((r) => ({
      seed: r.truth.seed,
      truth: r.truth.cause ?? 'healthy',
      chain: r.truth.chain,
      named: r.a.causes,
      status: r.a.status,
      correct: correct(r),
      onset_error_s: onsetErrS(r),
      faulty_instance: r.truth.faulty_instance,
      named_instances: r.a.instances,
      latency_alert_share: r.a.latencyAlertShare,
      healthy_quadrant_share: r.a.healthyQuadrantShare,
      summary: r.truth.summary,
      variant: { dialect: r.truth.variant.dialect, duration_s: r.truth.variant.durationS, replicas: r.truth.variant.replicas, tp: r.truth.variant.tp, scrape_s: r.truth.variant.scrape.intervalS, telemetry: r.truth.variant.telemetry.kind, effect: r.truth.variant.effect },
      gen_s: r.prepared.genMs / 1000,
      import_s: r.prepared.importMs / 1000,
      analyze_s: r.a.ms / 1000,
      error: r.a.error,
    })),
  };
  return { text: out.join('\n'), summary, json };
}

export interface BenchOptions {
  split: 'dev' | 'judge';
  n: number;
  only?: string[];
  seeds?: number[];
  jobs?: number;
  cache?: boolean;
  timeoutS?: number;
  log?: (line: string) => void;
}

/** Seeds of a split, filtered to the causes asked for. */
export async function seedsFor(o: Pick<BenchOptions, 'split' | 'n' | 'only' | 'seeds'>): Promise<number[]> {
  if (o.seeds) return o.seeds;
  const { causeOfSeed } = await import('../../fixtures/gen/variant');
  const out: number[] = [];
  for (let s = SPLITS[o.split]; out.length < o.n; s++) {
    const c = causeOfSeed(s) ?? 'healthy';
    if (!o.only || o.only.includes(c)) out.push(s);
    if (s > SPLITS[o.split] + 1_000_000) throw new Error('no seed matches --only');
  }
  return out;
}

/** Generates (or reuses), imports and diagnoses the bundles; answers the rows and the report. */
export async function runBench(o: BenchOptions): Promise<{ rows: Row[]; text: string; summary: Summary; json: unknown }> {
  const log = o.log ?? ((l: string) => process.stderr.write(`${l}\n`));
  const seeds = await seedsFor(o);
  const genHash = sourceHash(GENERATOR_SOURCES);
  const dbHash = `${genHash}-${sourceHash(IMPORT_SOURCES)}`;
  const root = process.env.QUADSCOPE_BENCH_CACHE ?? join(tmpdir(), 'quadscope-diagnosis-bench');
  const genRoot = join(root, `gen-${genHash}`);
  const cacheRoot = join(root, `db-${dbHash}`);
  mkdirSync(genRoot, { recursive: true });
  mkdirSync(cacheRoot, { recursive: true });
  pruneCache(root, [`gen-${genHash}`, `db-${dbHash}`]);
  const genDirOf = (seed: number) => join(genRoot, `seed-${seed}`);
  const dirOf = (seed: number) => join(cacheRoot, `seed-${seed}`);
  const jobs = o.jobs ?? Number(process.env.QUADSCOPE_BENCH_JOBS ?? 2);
  const timeoutMs = (o.timeoutS ?? 600) * 1000;

  if (o.cache === false) {
    for (const s of seeds) {
      rmSync(genDirOf(s), { recursive: true, force: true });
      rmSync(dirOf(s), { recursive: true, force: true });
    }
  }
  const todo = seeds.filter((s) => !existsSync(join(dirOf(s), 'prepared.json')));
  const toGenerate = todo.filter((s) => !existsSync(join(genDirOf(s), 'generated.json'))).length;
  log(`diagnosis bench: ${seeds.length} bundles, ${seeds.length - todo.length} imported already in ${cacheRoot}; ${toGenerate} to generate, ${todo.length} to import (${jobs} jobs)`);
  const prepFailed = new Map<number, string>();
  let done = 0;
  const g0 = performance.now();
  await pool<Prepared>(
    todo.map((seed) => ({ kind: 'prepare', seed, genDir: genDirOf(seed), dir: dirOf(seed) })),
    jobs,
    (task, ok, value) => {
      done++;
      if (!ok) prepFailed.set(task.seed, String(value));
      if (done % 10 === 0 || done === todo.length || !ok) log(`  prepared ${done}/${todo.length}${ok ? '' : ` — seed ${task.seed} failed: ${String(value).split('\n')[0]}`} (${((performance.now() - g0) / 1000).toFixed(0)} s)`);
    },
    timeoutMs,
  );

  const ready = seeds.filter((s) => existsSync(join(dirOf(s), 'prepared.json')));
  const analyzed = new Map<number, Analyzed>();
  const a0 = performance.now();
  done = 0;
  await pool<Analyzed>(
    ready.map((seed) => ({ kind: 'analyze', seed, dir: dirOf(seed) })),
    jobs,
    (task, ok, value) => {
      done++;
      analyzed.set(task.seed, ok ? (value as Analyzed) : { seed: task.seed, ms: 0, error: String(value), status: 'error', causes: [], onsetMs: null, causeOnsetMs: null, windows: 0, windowMs: null, latencyAlertShare: 0, healthyQuadrantShare: 0, alerts: [], instances: [] });
      if (done % 25 === 0 || done === ready.length) log(`  analyzed ${done}/${ready.length} (${((performance.now() - a0) / 1000).toFixed(0)} s)`);
    },
    timeoutMs,
  );

  const rows: Row[] = ready.map((seed) => ({
    truth: JSON.parse(readFileSync(join(dirOf(seed), 'truth.json'), 'utf8')) as Truth,
    prepared: JSON.parse(readFileSync(join(dirOf(seed), 'prepared.json'), 'utf8')) as Prepared,
    a: analyzed.get(seed)!,
  }));
  const r = report(rows, o.seeds ? 'explicit seeds' : o.split, seeds);
  let text = r.text;
  if (prepFailed.size) text += `\n\nbundles that could not be generated or imported (${prepFailed.size}):\n${[...prepFailed].map(([s, e]) => `  seed ${s}: ${e.split('\n')[0]}`).join('\n')}`;
  return { rows, text, summary: r.summary, json: { ...(r.json as object), cache: { bundles: genRoot, databases: cacheRoot }, prepare_failures: Object.fromEntries(prepFailed) } };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      split: { type: 'string', default: 'judge' },
      n: { type: 'string', default: '300' },
      only: { type: 'string' },
      seeds: { type: 'string' },
      json: { type: 'string' },
      jobs: { type: 'string' },
      'no-cache': { type: 'boolean', default: false },
      timeout: { type: 'string' },
    },
    allowPositionals: true,
  });
  if (values.split !== 'dev' && values.split !== 'judge') throw new Error(`--split must be dev or judge (got ${values.split})`);
  const n = Number(values.n);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--n must be a positive integer (got ${values.n})`);
  const only = values.only?.split(',').map((s) => s.trim()).filter(Boolean);
  const { parseSeeds } = await import('../../fixtures/gen/seeds');
  const res = await runBench({
    split: values.split,
    n,
    only,
    seeds: values.seeds ? parseSeeds(values.seeds) : undefined,
    jobs: values.jobs ? Number(values.jobs) : undefined,
    cache: !values['no-cache'],
    timeoutS: values.timeout ? Number(values.timeout) : undefined,
  });
  console.log(res.text);
  const dir = join(ROOT, 'bench-results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'diagnosis.json'), `${JSON.stringify(res.json, null, 2)}\n`);
  if (values.json) writeFileSync(values.json, `${JSON.stringify(res.json, null, 2)}\n`);
  const s = res.summary;
  emit({ bench: 'diagnosis', case: `top-1 root cause, ${s.split} split (${s.causeBundles} cause bundles)`, value: 100 * s.top1, unit: '%', target: '≥ 95', met: s.top1 >= 0.95 });
  emit({ bench: 'diagnosis', case: `false incidents on ${s.healthyBundles} healthy bundles`, value: s.falseIncidents, unit: 'bundles', target: '0', met: s.falseIncidents === 0 });
  emit({ bench: 'diagnosis', case: 'outage bundles called healthy', value: s.outagesCalledHealthy, unit: 'bundles', target: '0', met: s.outagesCalledHealthy === 0 });
  if (s.onsetP90S !== null) emit({ bench: 'diagnosis', case: 'onset error p90', value: s.onsetP90S, unit: 's', target: '≤ 60', met: s.onsetP90S <= 60 });
}

if (process.argv.includes('--worker')) void workerMain();
else if (process.argv[1] === SELF) {
  main().catch((e: unknown) => {
    console.error(e instanceof Error ? (e.stack ?? e.message) : String(e));
    process.exit(1);
  });
}
