// `npm run bench:readme`: writes the README's benchmark table from bench-results/latest.json (the last full
// `npm run bench`), between the markers <!-- bench:start --> and <!-- bench:end -->, so the table is the run's
// own numbers and never a hand copy. The machine line (CPUs, Node, date, load) comes from the run too.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchRow } from '../test/bench/lib';

const root = fileURLToPath(new URL('..', import.meta.url));
const run = JSON.parse(readFileSync(join(root, 'bench-results', 'latest.json'), 'utf8')) as {
  date: string;
  node: string;
  cpus: number;
  cpu_model?: string;
  loadavg?: number[];
  rows: BenchRow[];
  failed: string[];
};

const num = (n: number | undefined, digits = 1): string => {
  if (n === undefined) return '';
  if (Math.abs(n) >= 10_000) return Math.round(n).toLocaleString('en-US');
  return Math.abs(n) >= 100 ? n.toFixed(0) : n.toFixed(digits);
};
const cell = (s: string) => s.replaceAll('|', '\\|');

const lines = [
  `Run of ${run.date.slice(0, 10)} (\`npm run bench\`, Node ${run.node}, ${run.cpus} vCPU${run.cpu_model ? ` ${run.cpu_model}` : ''}` +
    `${run.loadavg ? `, load average ${run.loadavg.map((l) => l.toFixed(1)).join(' / ')} at the start` : ''}` +
    `${run.failed.length ? `; benchmarks that failed: ${run.failed.join(', ')}` : ''}). Ratios are to the baseline measured in the same run.`,
  '',
  '| benchmark | case | value | baseline (same run) | ratio | peak RSS | target | met |',
  '|---|---|---|---|---|---|---|---|',
  ...run.rows.map((r) =>
    [
      r.bench,
      cell(r.case),
      `${num(r.value)} ${r.unit}`,
      r.baseline ? `${cell(r.baseline)}: ${num(r.baseline_value)}` : '',
      r.ratio === undefined ? '' : `${r.ratio.toFixed(2)}×`,
      r.peak_rss_mb === undefined ? '' : `${num(r.peak_rss_mb, 0)} MB`,
      r.target ? cell(r.target) : '',
      r.met === undefined ? '' : r.met ? 'yes' : '**no**',
    ].join(' | '),
  ).map((l) => `| ${l} |`),
];

const readmePath = join(root, 'README.md');
const readme = readFileSync(readmePath, 'utf8');
const start = '<!-- bench:start -->';
const end = '<!-- bench:end -->';
const a = readme.indexOf(start);
const b = readme.indexOf(end);
if (a < 0 || b < a) throw new Error(`README.md: the markers ${start} and ${end} are missing`);
writeFileSync(readmePath, `${readme.slice(0, a + start.length)}\n${lines.join('\n')}\n${readme.slice(b)}`);
console.log(`README.md: ${run.rows.length} benchmark rows from bench-results/latest.json (${run.date})`);
