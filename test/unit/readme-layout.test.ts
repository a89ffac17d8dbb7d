// The README's layout table matches the tree: every folder it names exists, every folder of the
// repository is in it, and the subfolders its descriptions name (`src/panels/`, `engine/`) exist there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers/corpus';

const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
const section = /## Layout\n([\s\S]*?)\n## /.exec(readme)?.[1] ?? '';
const rows = section
  .split('\n')
  .filter((l) => /^\| `/.test(l))
  .map((l) => {
    const [, first, second] = l.split('|');
    return { folders: [...first.matchAll(/`([^`]+)`/g)].map((m) => m[1]), text: second };
  });

/** Whether a folder ending in `rel` exists anywhere under `root` (a description names paths inside its row's folder). */
function hasSubfolder(root: string, rel: string, depth = 4): boolean {
  if (existsSync(join(root, rel)) && statSync(join(root, rel)).isDirectory()) return true;
  if (depth === 0) return false;
  return readdirSync(root).some((n) => n !== 'node_modules' && statSync(join(root, n)).isDirectory() && hasSubfolder(join(root, n), rel, depth - 1));
}

test('every folder of the layout table exists, and the subfolders its descriptions name', () => {
  assert.ok(rows.length >= 8, `the README has a layout table (${rows.length} rows)`);
  for (const r of rows) {
    for (const f of r.folders) {
      assert.ok(existsSync(join(REPO_ROOT, f)), `README layout: ${f} does not exist`);
      for (const m of r.text.matchAll(/`([a-z][a-z/-]*\/)`/g)) assert.ok(hasSubfolder(join(REPO_ROOT, f), m[1]), `README layout: ${f} holds no ${m[1]}`);
    }
  }
});

test('every top-level folder of the repository is in the layout table', () => {
  const listed = new Set(rows.flatMap((r) => r.folders.map((f) => f.split('/')[0])));
  const tracked = new Set(execFileSync('git', ['ls-files'], { cwd: REPO_ROOT, encoding: 'utf8' }).split('\n').filter((p) => p.includes('/') && !p.startsWith('.')).map((p) => p.split('/')[0]));
  for (const d of tracked) assert.ok(listed.has(d), `README layout: the folder ${d}/ is not in the table`);
});
