// Files swapped after a folder was listed (a shared folder someone else can write to): a FIFO must
// not hang the read, a symlink must not be followed out of the bundle, and a FIFO present at listing
// time is skipped, not opened.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { walkFolder } from '../../../node/engine/bundle/folder';
import { openBundle } from '../../../node/engine/bundle/open';
import { BundleError, DEFAULT_LIMITS } from '../../../node/engine/bundle/types';
import { tempDir } from './fixtures';

const posix = process.platform !== 'win32';
const mkfifo = (path: string) => execFileSync('mkfifo', [path]);

test('a FIFO in a folder is skipped with a reason and the import does not wait on it', { skip: !posix && 'needs mkfifo' }, async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'm.prom'), 'up 1\n');
  mkfifo(join(dir, 'pipe.prom'));
  const b = await openBundle([dir]);
  t.after(() => b.close());
  assert.deepEqual(b.entries.map((e) => e.path), ['m.prom']);
  assert.equal(b.failures.length, 1);
  assert.match(b.failures[0].error, /pipe\.prom: not a regular file \(a socket, FIFO or device\) — skipped/);
});

test('a file replaced by a FIFO after the listing fails at once instead of blocking', { skip: !posix && 'needs mkfifo' }, async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'm.prom'), 'up 1\n');
  const { files } = await walkFolder(dir, '', dir, DEFAULT_LIMITS);
  rmSync(join(dir, 'm.prom'));
  mkfifo(join(dir, 'm.prom'));
  assert.throws(() => files[0].stored.head(16), (e: unknown) => e instanceof BundleError && /no longer a regular file/.test(e.message));
  assert.throws(() => files[0].stored.chunks(), BundleError);
});

test('a file replaced by a symlink out of the bundle after the listing is not followed', { skip: !posix && 'symlinks' }, async (t) => {
  const dir = tempDir(t);
  const inside = join(dir, 'bundle');
  mkdirSync(inside);
  writeFileSync(join(dir, 'secret.txt'), 'secret\n');
  writeFileSync(join(inside, 'm.prom'), 'up 1\n');
  const { files } = await walkFolder(inside, '', inside, DEFAULT_LIMITS);
  rmSync(join(inside, 'm.prom'));
  symlinkSync(join(dir, 'secret.txt'), join(inside, 'm.prom'));
  assert.throws(() => files[0].stored.head(16), (e: unknown) => e instanceof BundleError && /became a symlink/.test(e.message));
});

test('a file named on the command line may still be a symlink to its data', { skip: !posix && 'symlinks' }, async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'real.prom'), 'up 1\n');
  symlinkSync(join(dir, 'real.prom'), join(dir, 'link.prom'));
  const b = await openBundle([join(dir, 'link.prom')]);
  t.after(() => b.close());
  assert.equal((await b.entries[0].head(4)).toString(), 'up 1');
});
