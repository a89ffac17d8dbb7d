// Runs mutated inputs through the real import pipeline in child processes with a heap cap and a per-input
// time limit, and collects what went wrong: a crash, a hang, a thrown error, a broken database, a partial
// source — and work out of proportion to the input: each input has a budget of time, memory, rows and
// database bytes that grows with its size, and going past it is a finding (a hang is only the extreme
// of that). The figures of the run (worst time, memory and output per byte) come back with the findings.
import { spawn } from 'node:child_process';
import { accessSync, constants, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { BYTE_LEVEL, SCALABLE, familyOf, mutationsFor, type Mutation } from './mutate';
import { rng } from '../helpers/rng';
import type { FuzzJob, FuzzMeasure } from './import-child';
import { REPO_ROOT } from '../helpers/corpus';

export interface FuzzBudget {
  /** CPU time (all threads): base + per MiB of input. */
  msBase: number;
  msPerMiB: number;
  /** RSS taken by one input: base + per byte of input. */
  rssBaseMiB: number;
  rssPerByte: number;
  /** Rows written: base + per byte of input. */
  rowsBase: number;
  rowsPerByte: number;
  /** Database growth: base + per byte of input. */
  dbBase: number;
  dbPerByte: number;
  /**
   * Linearity: a scalable mutation is run at scale 1 and SCALE_UP; the bigger one may cost at most this
   * many times the CPU of the smaller per byte (a quadratic path costs SCALE_UP times more per byte),
   * judged where it took at least linearMinMs.
   */
  linearSlack: number;
  linearMinMs: number;
}

/** The second scale of a scalable mutation in a covering run. */
export const SCALE_UP = 4;

/** Generous for real formats, far below what the review's amplifying inputs did (9 M rows from 12 KB). */
export const DEFAULT_BUDGET: FuzzBudget = {
  msBase: 5000,
  msPerMiB: 1500,
  rssBaseMiB: 384,
  rssPerByte: 12,
  rowsBase: 1_000_000,
  rowsPerByte: 1,
  dbBase: 96 * 2 ** 20,
  dbPerByte: 48,
  linearSlack: 2.5,
  linearMinMs: 1500,
};

export interface FuzzOptions {
  seeds: string[];
  /** Inputs per seed file. */
  perFile: number;
  seed: number;
  /** An input still running after this much of its process's CPU time is a hang (the child is killed; a starved child gets up to 4× this in wall time). */
  timeoutMs: number;
  heapMb: number;
  /** A worker whose RSS after an input is past this (MiB) ends and the run goes on in a fresh one (default 512). */
  recycleRssMb?: number;
  /** Child processes at once (default 1). */
  jobs?: number;
  budget?: Partial<FuzzBudget>;
  /** Also run every mutation of each family at least once (on that family's seeds in turn), the scalable ones at two sizes. */
  cover?: boolean;
  /** Called after each input (progress for long runs). */
  onInput?: (done: number, total: number) => void;
  /** Called with each input's measures as it ends (not for one that hung or crashed). */
  onMeasure?: (job: FuzzJob, m: FuzzMeasure) => void;
  /** These jobs as given instead of drawn ones (a finding replayed, or the same input twice). */
  given?: FuzzJob[];
  /** Only these mutations (a run aimed at one kind of damage); all of each family's by default. */
  mutations?: readonly Mutation[];
  /** Called with each finding as it is made (a long run shows them before it ends). */
  onFinding?: (f: FuzzFinding) => void;
  /**
   * Wall-clock time (ms since epoch) after which no new input starts: the run ends with the figures of
   * the inputs it finished (`inputs` then counts those), so a run cut short still reports its exact count.
   */
  stopAt?: number;
}

export interface FuzzFinding {
  input: string;
  mutation: string;
  rseed: number;
  problem: string;
}

export interface FuzzFigures {
  inputs: number;
  crashes: number;
  hangs: number;
  over_budget: number;
  bytes_in: number;
  /** Failed sources whose error names no line, byte or key (a figure, not a finding), and a few of them. */
  failed: number;
  unpositioned: number;
  unpositioned_examples: string[];
  /** The worst input by each measure (time is CPU time): its value, the input and mutation. */
  worst_ms: Worst;
  worst_ms_per_mib: Worst;
  worst_rss_mb: Worst;
  worst_rss_per_byte: Worst;
  worst_rows_per_byte: Worst;
  worst_db_per_byte: Worst;
}

interface Worst {
  value: number;
  input: string;
  mutation: string;
  bytes: number;
}

export interface FuzzReport {
  /** Inputs run (fewer than planned when stopAt cut the run short). */
  inputs: number;
  planned: number;
  /** Worker processes started: one per lane, and one more after each hang, crash or recycling. */
  workers: number;
  findings: FuzzFinding[];
  statuses: Record<string, number>;
  figures: FuzzFigures;
}

/**
 * The sizes a drawn scalable mutation is made at: its full size (what coverJobs runs, with ×SCALE_UP) down
 * to 1/32 of it, each alike (log-uniform). Drawn at full size only, the few label-cardinality and
 * tiny-lines inputs of a run (3% of them, 1-4.5 MB of new series or samples each) took 72% of its CPU;
 * drawn this way the same extremes still come, one scalable input in six, and the mean scale is 0.33.
 */
export const DRAWN_SCALES = [1, 1 / 2, 1 / 4, 1 / 8, 1 / 16, 1 / 32] as const;

/**
 * The jobs of a run: for each seed, `perFile` mutations drawn (seeded) from its family's list, byte-level
 * damage three times as often as a reshaping (those make megabytes and take seconds; coverJobs runs each
 * once at full size and ×SCALE_UP), a scalable one at a size drawn from DRAWN_SCALES.
 */
export function fuzzJobs(seeds: string[], perFile: number, seed: number, only?: readonly Mutation[]): FuzzJob[] {
  const jobs: FuzzJob[] = [];
  const r = rng(seed * 31 + 7);
  const weighted = seeds.map((s) => allowed(familyOf(basename(s)), only).flatMap((m) => (BYTE_LEVEL.has(m) ? [m, m, m] : [m])));
  // Round by round over the seeds, so a run cut short (stopAt) has fuzzed every format alike.
  for (let j = 0; j < perFile; j++) {
    seeds.forEach((s, k) => {
      if (!weighted[k].length) return;
      const job: FuzzJob = { seed: s, mutation: weighted[k][Math.floor(r() * weighted[k].length)], rseed: seed * 7919 + k * 131 + j };
      if (SCALABLE.has(job.mutation)) job.scale = DRAWN_SCALES[Math.floor(r() * DRAWN_SCALES.length)];
      jobs.push(job);
    });
  }
  return jobs;
}

/** A job's mutation and its size where that is not the full one: `cardinality×4`, `giant-line×1/8`. */
export function scaleLabel(j: Pick<FuzzJob, 'mutation' | 'scale'>): string {
  const k = j.scale ?? 1;
  if (k === 1) return j.mutation;
  return k > 1 ? `${j.mutation}×${k}` : `${j.mutation}×1/${Math.round(1 / k)}`;
}

/** A family's mutations, or those of them in `only`. */
const allowed = (family: ReturnType<typeof familyOf>, only?: readonly Mutation[]) => mutationsFor(family).filter((m) => !only || only.includes(m));

/** One job per mutation of each family, spread over the family's seeds. */
export function coverJobs(seeds: string[], seed: number, only?: readonly Mutation[]): FuzzJob[] {
  const byFamily = new Map<string, string[]>();
  for (const s of seeds) {
    const f = familyOf(basename(s));
    byFamily.set(f, [...(byFamily.get(f) ?? []), s]);
  }
  const jobs: FuzzJob[] = [];
  for (const [family, list] of byFamily) {
    allowed(family as ReturnType<typeof familyOf>, only).forEach((m, i) => {
      const job = { seed: list[(seed + i) % list.length], mutation: m, rseed: seed * 104_729 + i };
      jobs.push(job);
      if (SCALABLE.has(m)) jobs.push({ ...job, scale: SCALE_UP });
    });
  }
  return jobs;
}

/**
 * Where the workers write their inputs and databases: tmpfs (/dev/shm) where there is one, else the temp
 * folder. The importers and SQLite take the same code path on either; on tmpfs the WAL's syncs, a new
 * database per input and the removal of a 50 MB input cost no disk I/O (a database made and removed:
 * 2.9 ms on tmpfs, 15.5 ms on the disk of the 2-vCPU machine).
 */
export function fuzzTmpDir(): string {
  try {
    if (!statSync('/dev/shm').isDirectory()) return tmpdir();
    accessSync('/dev/shm', constants.W_OK);
    return '/dev/shm';
  } catch {
    return tmpdir();
  }
}

export async function fuzz(opts: FuzzOptions): Promise<FuzzReport> {
  const budget = { ...DEFAULT_BUDGET, ...opts.budget };
  const dir = mkdtempSync(join(fuzzTmpDir(), 'qs-fuzz-'));
  const jobs = opts.given ?? [...(opts.cover ? coverJobs(opts.seeds, opts.seed, opts.mutations) : []), ...fuzzJobs(opts.seeds, opts.perFile, opts.seed, opts.mutations)];
  const findings: FuzzFinding[] = [];
  const found = (f: FuzzFinding) => {
    findings.push(f);
    opts.onFinding?.(f);
  };
  const statuses: Record<string, number> = {};
  const none = (): Worst => ({ value: 0, input: '', mutation: '', bytes: 0 });
  const figures: FuzzFigures = {
    inputs: jobs.length, crashes: 0, hangs: 0, over_budget: 0, bytes_in: 0, failed: 0, unpositioned: 0, unpositioned_examples: [],
    worst_ms: none(), worst_ms_per_mib: none(), worst_rss_mb: none(), worst_rss_per_byte: none(), worst_rows_per_byte: none(), worst_db_per_byte: none(),
  };
  let done = 0;
  let workers = 0;
  const past = () => opts.stopAt !== undefined && Date.now() >= opts.stopAt;
  const label = (j: FuzzJob) => ({ input: basename(j.seed), mutation: scaleLabel(j), rseed: j.rseed });
  /** Scale-1 measures of scalable jobs, by seed, mutation and rseed, to judge their scaled twin against. */
  const base = new Map<string, FuzzMeasure>();
  const scaled: { j: FuzzJob; m: FuzzMeasure }[] = [];
  const twin = (j: FuzzJob) => `${j.seed}\0${j.mutation}\0${j.rseed}`;
  const worst = (key: keyof FuzzFigures, value: number, j: FuzzJob, bytes: number) => {
    const w = figures[key] as Worst;
    if (value > w.value) Object.assign(w, { value: Number(value.toPrecision(4)), ...label(j), bytes });
  };

  const onEnd = (j: FuzzJob, m: FuzzMeasure) => {
    opts.onMeasure?.(j, m);
    if (SCALABLE.has(j.mutation)) {
      if ((j.scale ?? 1) === 1) base.set(twin(j), m);
      else scaled.push({ j, m });
    }
    for (const s of m.statuses) statuses[s] = (statuses[s] ?? 0) + 1;
    for (const p of m.problems) found({ ...label(j), problem: p });
    for (const e of m.errors ?? []) {
      figures.failed++;
      // formatPosition's " (line N, byte N, key K)" right after the file name.
      if (!/\((line|byte|key) [^)]*\):/.test(e)) {
        figures.unpositioned++;
        if (figures.unpositioned_examples.length < 12) figures.unpositioned_examples.push(`[${j.mutation}] ${e}`);
      }
    }
    const mib = m.bytes / 2 ** 20;
    figures.bytes_in += m.bytes;
    // Per-byte figures over at least 64 KiB: tiny inputs are all start-up.
    const per = Math.max(m.bytes, 64 * 1024);
    worst('worst_ms', m.cpu_ms, j, m.bytes);
    worst('worst_ms_per_mib', m.cpu_ms / (per / 2 ** 20), j, m.bytes);
    worst('worst_rss_mb', m.peak_growth_mb, j, m.bytes);
    worst('worst_rss_per_byte', (m.peak_growth_mb * 2 ** 20) / per, j, m.bytes);
    worst('worst_rows_per_byte', m.rows / per, j, m.bytes);
    worst('worst_db_per_byte', m.db_bytes / per, j, m.bytes);
    const over: string[] = [];
    if (m.cpu_ms > budget.msBase + budget.msPerMiB * mib) over.push(`took ${m.cpu_ms} ms of CPU (${m.ms} ms wall; budget ${Math.round(budget.msBase + budget.msPerMiB * mib)})`);
    if (m.peak_growth_mb > budget.rssBaseMiB + (budget.rssPerByte * m.bytes) / 2 ** 20) over.push(`took ${m.peak_growth_mb} MiB of memory (budget ${Math.round(budget.rssBaseMiB + (budget.rssPerByte * m.bytes) / 2 ** 20)})`);
    if (m.rows > budget.rowsBase + budget.rowsPerByte * m.bytes) over.push(`wrote ${m.rows} rows from ${m.bytes} bytes`);
    if (m.db_bytes > budget.dbBase + budget.dbPerByte * m.bytes) over.push(`grew the database by ${m.db_bytes} bytes from ${m.bytes} bytes`);
    if (over.length) {
      figures.over_budget++;
      found({ ...label(j), problem: `over budget (${m.bytes} bytes in): ${over.join('; ')}` });
    }
    done++;
    opts.onInput?.(done, jobs.length);
  };

  // Each lane runs its share of the jobs in one child after another: a hang or crash ends that child,
  // is recorded, and the lane goes on with a new child from the next job.
  const lanes = Math.max(1, Math.min(opts.jobs ?? 1, jobs.length));
  const laneJobs: FuzzJob[][] = Array.from({ length: lanes }, () => []);
  jobs.forEach((j, i) => laneJobs[i % lanes].push(j));
  try {
    await Promise.all(
      laneJobs.map(async (mine, lane) => {
        let next = 0;
        let round = 0;
        while (next < mine.length && !past()) {
          const rest = mine.slice(next);
          // Each worker in a folder of its own, removed when it ends: a worker killed for a hang leaves its
          // input and database there, which would pile up over a long run.
          const own = join(dir, `lane${lane}-${round}`);
          mkdirSync(own);
          const list = join(own, 'jobs.json');
          writeFileSync(list, JSON.stringify(rest));
          const offset = next;
          workers++;
          const r = await runChild(join(own, 'fuzz.db'), list, opts, (i, m) => onEnd(rest[i], m), past);
          rmSync(own, { recursive: true, force: true });
          next = offset + r.done;
          if (r.hung !== null || r.crashed !== null) {
            const i = r.hung ?? r.crashed!;
            const j = rest[i];
            if (r.hung !== null) figures.hangs++;
            else figures.crashes++;
            found({ ...label(j), problem: r.hung !== null ? `no answer within ${opts.timeoutMs} ms of its own CPU time (hang)` : `the process died: ${r.reason}` });
            done++;
            opts.onInput?.(done, jobs.length);
            next = offset + i + 1;
          }
          round++;
        }
      }),
    );
    // Linearity: cost per byte of the bigger twin against the smaller.
    for (const { j, m } of scaled) {
      const small = base.get(twin(j));
      if (!small || m.cpu_ms < budget.linearMinMs || small.bytes === 0 || m.bytes <= small.bytes) continue;
      const perByte = (x: FuzzMeasure) => Math.max(x.cpu_ms, 50) / x.bytes;
      const growth = perByte(m) / perByte(small);
      if (growth > budget.linearSlack) {
        figures.over_budget++;
        found({ ...label(j), problem: `superlinear: ${(m.bytes / small.bytes).toFixed(1)}× the input took ${(m.cpu_ms / Math.max(small.cpu_ms, 1)).toFixed(1)}× the CPU (${small.cpu_ms} → ${m.cpu_ms} ms)` });
      }
    }
    figures.inputs = done;
    return { inputs: done, planned: jobs.length, workers, findings, statuses, figures };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function runChild(
  db: string,
  list: string,
  opts: FuzzOptions,
  onEnd: (i: number, m: FuzzMeasure) => void,
  past: () => boolean,
): Promise<{ done: number; hung: number | null; crashed: number | null; reason: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [`--max-old-space-size=${opts.heapMb}`, '--import', 'tsx', join(REPO_ROOT, 'test/fuzz/import-child.ts'), db, list, String(opts.recycleRssMb ?? 512)], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let current: number | null = null;
    let done = 0;
    let hung: number | null = null;
    let buf = '';
    let stderr = '';
    let timer: NodeJS.Timeout | null = null;
    // Past the run's end: the child is stopped between inputs; its exit is neither a hang nor a crash.
    let stopped = false;
    // A hang is timeoutMs of the child's own CPU time on one input, not of the wall clock: on a loaded
    // machine (a nice'd run beside others' work) a 17 MB input took 7.5 s of CPU and over 60 s of wall.
    // Each period the child's CPU time since the input began is read (/proc, Linux); a child that got
    // less than half the period is given another, up to 4 periods of wall time in all.
    let cpuAtStart = 0;
    let periods = 0;
    const arm = () => {
      if (timer) clearTimeout(timer);
      cpuAtStart = cpuMs(child.pid);
      periods = 0;
      const check = () => {
        const now = cpuMs(child.pid);
        const used = now < 0 || cpuAtStart < 0 ? Infinity : now - cpuAtStart;
        if (++periods < 4 && used < (opts.timeoutMs * periods) / 2) {
          timer = setTimeout(check, opts.timeoutMs);
          return;
        }
        hung = current;
        child.kill('SIGKILL');
      };
      timer = setTimeout(check, opts.timeoutMs);
    };
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      let nl;
      while (!stopped && (nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        const start = /^START (\d+)$/.exec(line);
        const end = /^END (\d+) (.*)$/.exec(line);
        if (start) {
          current = Number(start[1]);
          arm();
        } else if (end) {
          onEnd(Number(end[1]), JSON.parse(end[2]) as FuzzMeasure);
          done = Number(end[1]) + 1;
          current = null;
          if (past()) {
            stopped = true;
            if (timer) clearTimeout(timer);
            child.kill('SIGKILL');
          }
        }
      }
    });
    child.on('exit', (code, signal) => {
      if (timer) clearTimeout(timer);
      const crashed = !stopped && hung === null && current !== null ? current : null;
      const reason = `exit ${code} ${signal ?? ''} ${stderr.split('\n').filter(Boolean).slice(-3).join(' | ')}`;
      resolve({ done, hung, crashed, reason });
    });
  });
}

/** CPU time (user + system, ms) of a process so far, from /proc; -1 where that cannot be read (then the wall clock decides). */
function cpuMs(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // Fields after the command name (which may hold spaces, inside parentheses): utime and stime are 14th and 15th.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return -1;
  }
}

/** USER_HZ: 100 on every Linux that Node runs on. */
const CLOCK_TICKS = 100;
