// `npm run fuzz [-- --per-file N --seed S]`: the long fuzz run over every importer.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fuzz } from '../test/fuzz/harness';
import { fuzzSeeds } from '../test/fuzz/seeds';

const { values } = parseArgs({ options: { 'per-file': { type: 'string', default: '40' }, seed: { type: 'string', default: String(Date.now() % 100000) } } });
const dir = mkdtempSync(join(tmpdir(), 'qs-fuzz-seeds-'));
const seeds = fuzzSeeds(dir);
const t0 = Date.now();
const r = await fuzz({ seeds, perFile: Number(values['per-file']), seed: Number(values.seed), timeoutMs: 60_000, heapMb: 1024 });
rmSync(dir, { recursive: true, force: true });
console.log(`${r.inputs} inputs (seed ${values.seed}) in ${((Date.now() - t0) / 1000).toFixed(0)} s; outcomes ${JSON.stringify(r.statuses)}`);
for (const f of r.findings) console.log(`FINDING ${f.input} [${f.mutation}]: ${f.problem}`);
process.exitCode = r.findings.length ? 1 : 0;
