// Every QUADSCOPE_* variable the code reads is documented in docs/environment.md.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers/corpus';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    if (n === 'node_modules' || n === 'build' || n === 'demo') return [];
    return statSync(p).isDirectory() ? files(p) : /\.(ts|tsx|mjs|js)$/.test(n) ? [p] : [];
  });
}

test('docs/environment.md lists every QUADSCOPE_* variable the code reads', () => {
  const doc = readFileSync(join(REPO_ROOT, 'docs', 'environment.md'), 'utf8');
  const read = new Set<string>();
  for (const d of ['common', 'node', 'browser', 'electron-main', 'electron-preload', 'native', 'scripts', 'bin', 'test', 'fixtures']) {
    for (const f of files(join(REPO_ROOT, d))) for (const m of readFileSync(f, 'utf8').matchAll(/QUADSCOPE_[A-Z][A-Z_]*[A-Z]/g)) read.add(m[0]);
  }
  assert.ok(read.has('QUADSCOPE_DB'));
  const missing = [...read].filter((v) => !doc.includes(`\`${v}\``));
  assert.deepEqual(missing, []);
});
