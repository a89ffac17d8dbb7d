// Runs the test suites with node's own test runner (TypeScript through tsx) and ends with one
// "N passed, N failed" line, which CI reads. `node scripts/test.mjs unit integration` runs a subset.
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { StringDecoder } from 'node:string_decoder';

const root = fileURLToPath(new URL('..', import.meta.url));
const suites = process.argv.slice(2).length ? process.argv.slice(2) : ['unit', 'integration', 'e2e'];

function walk(dir) {
  let out = [];
  let names;
  try { names = readdirSync(dir); } catch { return out; }
  for (const n of names.sort()) {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) out = out.concat(walk(p));
    else if (n.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

// Unit tests may also live beside the code they test (a renderer panel's folder holds its tests):
// they run with the unit suite.
const COLOCATED = ['common', 'browser', 'node', 'electron-main', 'electron-preload'];
const files = suites
  .flatMap((s) => [...walk(join(root, 'test', s)), ...(s === 'unit' ? COLOCATED.flatMap((d) => walk(join(root, d))) : [])])
  .map((f) => relative(root, f));
if (!files.length) {
  console.error(`no test files under test/{${suites.join(',')}}`);
  process.exit(1);
}

const args = ['--import', 'tsx', '--test', '--test-reporter=spec', '--test-concurrency=2', ...files];
const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, QUADSCOPE_TEST: '1' } });
// The runner's own closing lines ("ℹ pass N", "ℹ fail N", …) give the counts.
const counts = {};
const decoder = new StringDecoder('utf8');
let partial = '';
child.stdout.on('data', (d) => {
  process.stdout.write(d);
  const lines = (partial + decoder.write(d)).split('\n');
  partial = lines.pop();
  for (const line of lines) {
    const m = /^ℹ (pass|fail|skipped|todo|cancelled) (\d+)$/.exec(line.trim());
    if (m) counts[m[1]] = Number(m[2]);
  }
});
child.on('close', (code) => {
  const pass = counts.pass ?? 0;
  let fail = (counts.fail ?? 0) + (counts.cancelled ?? 0);
  const skipped = counts.skipped ?? 0;
  if (code !== 0 && fail === 0) fail = 1;
  console.log(`${pass} passed, ${fail} failed${skipped ? `, ${skipped} skipped` : ''}`);
  process.exit(code === 0 && fail === 0 ? 0 : 1);
});
