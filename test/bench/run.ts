// `npm run bench`: runs every test/bench/*.bench.ts in its own process (so peak RSS is per benchmark),
// collects their BENCH rows, prints a table and writes bench-results/latest.json (a run of every
// benchmark: the README's table comes from it) or, when benchmarks are named, bench-results/tmp/last-run.json
// (ignored by git), so a partial run never replaces the full one.
// `npm run bench -- kineto store` runs the benchmarks whose file names contain those words; options after
// the names (`npm run bench -- diagnosis --split dev --n 40`) go to each benchmark run. Opt-in benchmarks
// (the diagnosis accuracy benchmark: minutes, not seconds) run only when named.
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchRow } from './lib';

const root = fileURLToPath(new URL('../..', import.meta.url));
const argv = process.argv.slice(2);
const firstOption = argv.findIndex((a) => a.startsWith('--'));
const filters = firstOption < 0 ? argv : argv.slice(0, firstOption);
const passThrough = firstOption < 0 ? [] : argv.slice(firstOption);
const OPT_IN = ['diagnosis.bench.ts'];
const files = readdirSync(join(root, 'test', 'bench'))
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => (filters.length ? filters.some((w) => f.includes(w)) : !OPT_IN.includes(f)))
  .sort();
// A benchmark run alone prints its own report on stdout as it is; several are prefixed by file.
const alone = files.length === 1;

function runOne(file: string): Promise<{ rows: BenchRow[]; code: number | null }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--expose-gc', join(root, 'test', 'bench', file), ...passThrough], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    const rows: BenchRow[] = [];
    let buf = '';
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (line.startsWith('BENCH ')) rows.push(JSON.parse(line.slice(6)) as BenchRow);
        else if (alone) process.stdout.write(`${line}\n`);
        else process.stderr.write(`  ${file}: ${line}\n`);
      }
    });
    child.on('close', (code) => resolve({ rows, code }));
  });
}

const fmt = (n: number | undefined, digits = 1) => (n === undefined ? '' : Math.abs(n) >= 100 ? n.toFixed(0) : n.toFixed(digits));
const all: BenchRow[] = [];
const failed: string[] = [];
// The machine as the run found it: the README's table states it (absolute figures move with the machine).
const os = await import('node:os');
const loadavg = os.loadavg();
for (const f of files) {
  process.stderr.write(`running ${f}…\n`);
  const { rows, code } = await runOne(f);
  if (code !== 0) failed.push(f);
  all.push(...rows);
}

const header = ['benchmark', 'case', 'value', 'unit', 'baseline', 'baseline value', 'ratio', 'peak RSS MB', 'target', 'met'];
const lines = [header, ...all.map((r) => [r.bench, r.case, fmt(r.value), r.unit, r.baseline ?? '', fmt(r.baseline_value), fmt(r.ratio, 2), fmt(r.peak_rss_mb, 0), r.target ?? '', r.met === undefined ? '' : r.met ? 'yes' : 'NO'])];
const widths = header.map((_, i) => Math.max(...lines.map((l) => String(l[i]).length)));
const table = lines.map((l) => `| ${l.map((c, i) => String(c).padEnd(widths[i])).join(' | ')} |`);
table.splice(1, 0, `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
console.log(table.join('\n'));

const dir = filters.length ? join(root, 'bench-results', 'tmp') : join(root, 'bench-results');
const base = filters.length ? 'last-run' : 'latest';
mkdirSync(dir, { recursive: true });
const doc = { date: new Date().toISOString(), node: process.version, cpus: os.cpus().length, cpu_model: os.cpus()[0]?.model, loadavg, rows: all, failed };
// The opt-in benchmarks write their own results (bench-results/diagnosis.json); the shared table is the others'.
if (!files.every((f) => OPT_IN.includes(f))) {
  writeFileSync(join(dir, `${base}.json`), JSON.stringify(doc, null, 2));
  writeFileSync(join(dir, `${base}.md`), table.join('\n') + '\n');
}
if (failed.length) {
  console.error(`benchmarks that failed: ${failed.join(', ')}`);
  process.exitCode = 1;
}
