// Runs mutated inputs through the real import pipeline in a child process with a heap cap and a
// per-input time limit, and collects what went wrong: a crash, a hang, a thrown error, a broken
// database or a partial source.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { MUTATIONS, mutate } from './mutate';
import { REPO_ROOT } from '../helpers/corpus';

export interface FuzzOptions {
  seeds: string[];
  perFile: number;
  seed: number;
  timeoutMs: number;
  heapMb: number;
}

export interface FuzzFinding {
  input: string;
  mutation: string;
  problem: string;
}

export async function fuzz(opts: FuzzOptions): Promise<{ inputs: number; findings: FuzzFinding[]; statuses: Record<string, number> }> {
  const dir = mkdtempSync(join(tmpdir(), 'qs-fuzz-'));
  const labels: { input: string; mutation: string }[] = [];
  const paths: string[] = [];
  try {
    let k = 0;
    for (const seedFile of opts.seeds) {
      const bytes = readFileSync(seedFile);
      for (let j = 0; j < opts.perFile; j++) {
        const m = MUTATIONS[(opts.seed + j + k) % MUTATIONS.length];
        const sub = join(dir, `in${paths.length}`);
        mkdirSync(sub);
        const p = join(sub, basename(seedFile));
        writeFileSync(p, mutate(bytes, m, opts.seed * 7919 + k * 131 + j));
        paths.push(p);
        labels.push({ input: basename(seedFile), mutation: m });
      }
      k++;
    }
    const list = join(dir, 'inputs.json');
    const findings: FuzzFinding[] = [];
    const statuses: Record<string, number> = {};
    let next = 0;
    while (next < paths.length) {
      const rest = paths.slice(next);
      writeFileSync(list, JSON.stringify(rest));
      const offset = next;
      const { done, hung, crashed } = await runChild(join(dir, `fuzz-${next}.db`), list, opts, (i, end) => {
        for (const s of end.statuses) statuses[s] = (statuses[s] ?? 0) + 1;
        for (const p of end.problems) findings.push({ ...labels[offset + i], problem: p });
      });
      next = offset + done;
      if (hung !== null || crashed !== null) {
        const i = offset + (hung ?? crashed)!;
        findings.push({ ...labels[i], problem: hung !== null ? `no answer within ${opts.timeoutMs} ms (hang)` : `the process died: ${crashedReason}` });
        next = i + 1;
      }
    }
    return { inputs: paths.length, findings, statuses };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

let crashedReason = '';

function runChild(db: string, list: string, opts: FuzzOptions, onEnd: (i: number, end: { statuses: string[]; problems: string[] }) => void): Promise<{ done: number; hung: number | null; crashed: number | null }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [`--max-old-space-size=${opts.heapMb}`, '--import', 'tsx', join(REPO_ROOT, 'test/fuzz/import-child.ts'), db, list], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let current: number | null = null;
    let done = 0;
    let hung: number | null = null;
    let buf = '';
    let stderr = '';
    let timer: NodeJS.Timeout | null = null;
    const arm = () => {
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => {
        hung = current;
        child.kill('SIGKILL');
      }, opts.timeoutMs);
    };
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        const start = /^START (\d+)$/.exec(line);
        const end = /^END (\d+) (.*)$/.exec(line);
        if (start) {
          current = Number(start[1]);
          arm();
        } else if (end) {
          onEnd(Number(end[1]), JSON.parse(end[2]));
          done = Number(end[1]) + 1;
          current = null;
        }
      }
    });
    child.on('exit', (code, signal) => {
      if (timer) clearTimeout(timer);
      const crashed = hung === null && current !== null ? current : null;
      crashedReason = `exit ${code} ${signal ?? ''} ${stderr.split('\n').filter(Boolean).slice(-3).join(' | ')}`;
      resolve({ done, hung, crashed });
    });
  });
}
