// `npm run fuzz [-- --inputs N | --per-file N] [--seed S] [--jobs J] [--timeout-ms T] [--cover] [--minutes M] [--mutations a,b]`:
// the long fuzz run over every importer (--inputs 100000 for the full run), in J child processes at once;
// --cover adds every mutation of each format family once; --minutes stops starting inputs after M minutes
// and reports the ones it ran (a run cut short keeps its exact count and figures); --mutations keeps only
// those (names as in test/fuzz/mutate.ts). Drawn scalable mutations come at sizes from full down to 1/32
// (harness.ts DRAWN_SCALES); workers write to tmpfs where there is one. Each finding is printed
// on stderr as it is made, and again at the end. Prints the run's
// figures (inputs, crashes, hangs, inputs over budget, worst time, memory and output per byte) and each
// finding; exits 1 when there is any.
import { availableParallelism } from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fuzz } from '../test/fuzz/harness';
import { fuzzSeeds } from '../test/fuzz/seeds';
import { MUTATIONS, type Mutation } from '../test/fuzz/mutate';

const { values } = parseArgs({
  options: {
    'per-file': { type: 'string' },
    inputs: { type: 'string' },
    seed: { type: 'string', default: String(Date.now() % 100000) },
    jobs: { type: 'string', default: String(Math.max(1, availableParallelism() - 1)) },
    'timeout-ms': { type: 'string', default: '60000' },
    cover: { type: 'boolean', default: false },
    minutes: { type: 'string' },
    mutations: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log('npm run fuzz -- [--inputs N | --per-file N] [--seed S] [--jobs J] [--timeout-ms T] [--cover] [--minutes M] [--mutations a,b]');
  console.log(`mutations: ${MUTATIONS.join(', ')}`);
  process.exit(0);
}
const only = values.mutations ? (values.mutations.split(',') as Mutation[]) : undefined;
for (const m of only ?? []) if (!MUTATIONS.includes(m)) throw new Error(`no mutation "${m}" (npm run fuzz -- --help lists them)`);
const dir = mkdtempSync(join(tmpdir(), 'qs-fuzz-seeds-'));
const seeds = fuzzSeeds(dir);
const perFile = values.inputs ? Math.ceil(Number(values.inputs) / seeds.length) : Number(values['per-file'] ?? 40);
const t0 = Date.now();
let last = 0;
const r = await fuzz({
  seeds,
  perFile,
  seed: Number(values.seed),
  timeoutMs: Number(values['timeout-ms']),
  heapMb: 1024,
  jobs: Number(values.jobs),
  cover: values.cover,
  mutations: only,
  stopAt: values.minutes ? t0 + Number(values.minutes) * 60_000 : undefined,
  onFinding: (x) => console.error(`FINDING ${x.input} [${x.mutation} ${x.rseed}]: ${x.problem}`),
  onInput: (done, total) => {
    if (Date.now() - last < 10_000 && done < total) return;
    last = Date.now();
    console.error(`${done}/${total} inputs, ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  },
});
rmSync(dir, { recursive: true, force: true });
const f = r.figures;
const secs = (Date.now() - t0) / 1000;
console.log(
  `${r.inputs} inputs${r.inputs < r.planned ? ` (of ${r.planned} planned; stopped at ${values.minutes} minutes)` : ''} from ${seeds.length} seed files ` +
    `(seed ${values.seed}, ${values.jobs} at once, ${r.workers} worker processes) in ${secs.toFixed(0)} s (${(r.inputs / secs).toFixed(1)} inputs/s); ${(f.bytes_in / 2 ** 30).toFixed(2)} GiB in`,
);
console.log(`outcomes ${JSON.stringify(r.statuses)}; crashes ${f.crashes}, hangs ${f.hangs}, over budget ${f.over_budget}`);
console.log(`failed sources whose error names no line, byte or key: ${f.unpositioned} of ${f.failed}`);
for (const e of f.unpositioned_examples) console.log(`  ${e}`);
const w = (name: string, x: { value: number; input: string; mutation: string; bytes: number }, unit: string) =>
  console.log(`worst ${name}: ${x.value} ${unit} (${x.input} [${x.mutation}], ${x.bytes} bytes)`);
w('CPU time', f.worst_ms, 'ms');
w('CPU time per MiB in', f.worst_ms_per_mib, 'ms/MiB');
w('memory', f.worst_rss_mb, 'MiB');
w('memory per byte in', f.worst_rss_per_byte, 'bytes/byte');
w('rows per byte in', f.worst_rows_per_byte, 'rows/byte');
w('database growth per byte in', f.worst_db_per_byte, 'bytes/byte');
console.log(`FIGURES ${JSON.stringify(f)}`);
for (const x of r.findings) console.log(`FINDING ${x.input} [${x.mutation} ${x.rseed}]: ${x.problem}`);
process.exitCode = r.findings.length ? 1 : 0;
