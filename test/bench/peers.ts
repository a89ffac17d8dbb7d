// What the import benchmarks compare with, run in the same benchmark run on the same files: Quadscope's
// own import in a process of its own (import-child.ts), and the tools a user would pick instead where
// they are installed here (VictoriaMetrics, promtool, Python). Each is timed from its start to its data
// being stored (or parsed, for the floors) and, through GNU time where present, its peak RSS.
// Repeated QUADSCOPE_BENCH_RUNS times (3), interleaved, so every tool sees the same load; medians.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const RUNS = Math.max(1, Number(process.env.QUADSCOPE_BENCH_RUNS ?? 3));
const GNU_TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : null;

export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

export interface Measure {
  ms: number;
  rss_mb: number | null;
  rows?: number;
  cpu_ms?: number;
  close_ms?: number;
}

/** The median of each field over runs (a field some runs lack is the median of those that have it). */
export function medianOf(runs: Measure[]): Measure {
  const pick = (k: keyof Measure) => {
    const xs = runs.map((r) => r[k]).filter((x): x is number => typeof x === 'number');
    return xs.length ? median(xs) : undefined;
  };
  return { ms: pick('ms')!, rss_mb: pick('rss_mb') ?? null, rows: pick('rows'), cpu_ms: pick('cpu_ms'), close_ms: pick('close_ms') };
}

/** Runs a command to its end under GNU time: wall time (start-up included) and peak RSS. Throws on failure. */
export function timedCommand(cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {}): Measure & { stdout: string } {
  const t = performance.now();
  const r = GNU_TIME
    ? spawnSync(GNU_TIME, ['-f', 'QS_RSS_KB %M', cmd, ...args], { encoding: 'utf8', cwd: opts.cwd ?? ROOT, env: opts.env ?? process.env, input: opts.input, maxBuffer: 64 << 20 })
    : spawnSync(cmd, args, { encoding: 'utf8', cwd: opts.cwd ?? ROOT, env: opts.env ?? process.env, input: opts.input, maxBuffer: 64 << 20 });
  const ms = performance.now() - t;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (exit ${r.status}): ${(r.stderr ?? '').slice(-2000)}`);
  const m = /QS_RSS_KB (\d+)/.exec(r.stderr ?? '');
  return { ms, rss_mb: m ? Math.round(Number(m[1]) / 1024) : null, stdout: r.stdout };
}

/** The last JSON line a child printed. */
const lastJson = (out: string): Record<string, number> => JSON.parse(out.trim().split('\n').pop()!) as Record<string, number>;

/**
 * Quadscope's import of `file` as `quadscope import` runs it, in a process of its own (import-child.ts):
 * `ms` from the import's start to its commit (not the process's start-up); `parse` instead parses into
 * a sink that stores nothing.
 */
export function quadscopeImport(format: string, file: string, mode: 'pipeline' | 'parse' | 'floor' = 'pipeline', env: NodeJS.ProcessEnv = {}): Measure {
  const r = timedCommand(process.execPath, ['--import', 'tsx', join(ROOT, 'test', 'bench', 'import-child.ts'), format, file, mode], { env: { ...process.env, ...env } });
  const j = lastJson(r.stdout);
  return { ms: j.ms, rows: j.rows, cpu_ms: j.cpu_ms, rss_mb: r.rss_mb ?? j.rss_mb, close_ms: j.close_ms };
}

/** A Python 3 script over `args`, timed inside Python from its own first statement (`print(json.dumps({"ms": …}))`). */
export function python(script: string, args: string[]): Measure | null {
  if (!hasCommand('python3')) return null;
  const r = timedCommand('python3', ['-c', script, ...args]);
  const j = lastJson(r.stdout);
  return { ms: j.ms, rss_mb: r.rss_mb, rows: j.rows };
}

export function hasCommand(name: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).status === 0;
}

/** A free TCP port on 127.0.0.1. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * VictoriaMetrics' import of a Prometheus / OpenMetrics text file: a fresh server on 127.0.0.1 with a
 * temporary -storageDataPath (started before the clock runs), `POST /api/v1/import/prometheus` of the
 * file, then `/internal/force_flush`, which returns once what was imported is searchable. `rows`: the
 * samples it counted in (vm_rows_inserted_total). Null where victoria-metrics is not installed.
 */
export async function victoriaMetricsImport(file: string): Promise<Measure | null> {
  if (!hasCommand('victoria-metrics')) return null;
  const dir = mkdtempSync(join(tmpdir(), 'qs-bench-vm-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const vm = spawn('victoria-metrics', [`-storageDataPath=${dir}`, `-httpListenAddr=127.0.0.1:${port}`, '-retentionPeriod=100y', '-loggerLevel=ERROR'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  vm.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((r) => vm.once('exit', () => r()));
  try {
    for (let i = 0; ; i++) {
      try {
        if ((await fetch(`${base}/health`)).ok) break;
      } catch {
        /* not listening yet */
      }
      if (i > 200) throw new Error(`victoria-metrics did not start: ${stderr.slice(-500)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const body = readFileSync(file);
    const t = performance.now();
    const res = await fetch(`${base}/api/v1/import/prometheus`, { method: 'POST', body });
    if (!res.ok) throw new Error(`victoria-metrics import: HTTP ${res.status} ${await res.text()}`);
    const flush = await fetch(`${base}/internal/force_flush`);
    if (!flush.ok) throw new Error(`victoria-metrics force_flush: HTTP ${flush.status}`);
    const ms = performance.now() - t;
    const metrics = await (await fetch(`${base}/metrics`)).text();
    const rows = Number(/^vm_rows_inserted_total\{type="prometheus"\} (\d+)/m.exec(metrics)?.[1] ?? NaN);
    const rss = Number(/^process_resident_memory_peak_bytes (\d+)/m.exec(metrics)?.[1] ?? NaN);
    return { ms, rows, rss_mb: Number.isFinite(rss) ? Math.round(rss / 2 ** 20) : null };
  } finally {
    vm.kill('SIGINT');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    if (vm.exitCode === null) vm.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `promtool tsdb create-blocks-from openmetrics FILE DIR` (the file must end with `# EOF`); null where promtool is not installed. */
export function promtoolBlocks(file: string): Measure | null {
  if (!hasCommand('promtool')) return null;
  const dir = mkdtempSync(join(tmpdir(), 'qs-bench-promtool-'));
  try {
    const out = join(dir, 'blocks');
    mkdirSync(out);
    return timedCommand('promtool', ['tsdb', 'create-blocks-from', 'openmetrics', file, out]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
