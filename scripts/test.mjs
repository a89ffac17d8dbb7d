// Runs the test suites with node's own test runner (TypeScript through tsx) and ends with one
// "N passed, N failed" line, which CI reads. `node scripts/test.mjs unit integration` runs a subset.
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

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

const files = suites.flatMap((s) => walk(join(root, 'test', s))).map((f) => relative(root, f));
if (!files.length) {
  console.error(`no test files under test/{${suites.join(',')}}`);
  process.exit(1);
}

const args = ['--import', 'tsx', '--test', '--test-reporter=spec', '--test-concurrency=2', ...files];
const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, QUADSCOPE_TEST: '1' } });
let pass = 0, fail = 0, skipped = 0, tail = '';
child.stdout.on('data', (d) => {
  process.stdout.write(d);
  tail = (tail + d.toString()).slice(-4000);
});
child.on('close', (code) => {
  const num = (k) => Number((tail.match(new RegExp(`ℹ ${k} (\\d+)`)) ?? [])[1] ?? 0);
  pass = num('pass'); fail = num('fail'); skipped = num('skipped');
  if (code !== 0 && fail === 0) fail = 1;
  console.log(`${pass} passed, ${fail} failed${skipped ? `, ${skipped} skipped` : ''}`);
  process.exit(code === 0 && fail === 0 ? 0 : 1);
});
