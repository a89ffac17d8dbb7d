// Bounds over the whole bundle, not one archive at a time: entries counted over nested archives, the
// temp disk kept from filling, and a repeated entry name kept beside the first instead of over it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { openBundle } from '../../../node/engine/bundle/open';
import { DiskGuard, diskReserve } from '../../../node/engine/bundle/limits';
import { makeZip } from '../../helpers/make-zip';
import { makeTar, readAll, tempDir } from './fixtures';

test('entries are counted over every archive of the bundle: ten nested tar.gz of 300 entries stop at maxEntries in all', async (t) => {
  const dir = tempDir(t);
  const inner = gzipSync(await makeTar(Array.from({ length: 300 }, (_, i) => ({ name: `m${i}.prom`, data: `up ${i}\n` }))));
  writeFileSync(join(dir, 'outer.zip'), makeZip(Array.from({ length: 10 }, (_, i) => ({ name: `node${i}.tar.gz`, data: inner }))));
  const t0 = performance.now();
  const b = await openBundle([join(dir, 'outer.zip')], { maxEntries: 1000 });
  t.after(() => b.close());
  // Per archive, each inner tar (300) and the zip (10) were under 1000: 3000 entries came out before.
  assert.ok(b.entries.length <= 1000, `${b.entries.length} entries`);
  assert.ok(b.entries.length >= 900);
  assert.ok(b.failures.some((f) => /the bundle holds more than 1000 entries over all its archives \(maxEntries\) — stopped there, the first 1000 were kept/.test(f.error)), JSON.stringify(b.failures.slice(0, 3)));
  assert.ok(performance.now() - t0 < 20_000);
});

test('extraction stops while the temp disk keeps its reserve, naming the archive; what came out before stays', async (t) => {
  const dir = tempDir(t);
  const big = Buffer.alloc(256 * 1024, 'x'); // over the in-memory size: written to the temp disk
  writeFileSync(join(dir, 'logs.tar'), await makeTar([{ name: 'small.log', data: 'tiny\n' }, { name: 'big.log', data: big }]));
  // A reserve larger than any disk: the first byte written to disk is refused.
  const b = await openBundle([join(dir, 'logs.tar')], { diskReserveBytes: 2 ** 60 });
  t.after(() => b.close());
  assert.deepEqual(b.entries.map((e) => e.path), ['small.log']);
  assert.match(b.failures[0]?.error ?? '', /^logs\.tar: the temp disk \(.*\) is nearly full: .* free, and extraction keeps .* free — stopped there, the entries so far were kept/);
});

test('the disk guard asks the disk only every few MiB, and keeps 5 % of it, at least 64 MiB (a quarter of a small disk), at most 1 GiB', () => {
  let asked = 0;
  let free = 10 * 2 ** 30;
  const g = new DiskGuard(() => '/tmp', () => (asked++, { free, total: 200 * 2 ** 20 }));
  g.take(1, 'a.tar');
  for (let i = 0; i < 100; i++) g.take(64 * 1024, 'a.tar');
  assert.equal(asked, 1);
  free = 40 * 2 ** 20;
  assert.throws(() => g.take(DiskGuard.CHECK_EVERY, 'a.tar'), /a\.tar: the temp disk \(\/tmp\) is nearly full: 40\.0 MiB free, and extraction keeps 50\.0 MiB free/);
  assert.equal(diskReserve(200 * 2 ** 20), 50 * 2 ** 20);
  assert.equal(diskReserve(2 ** 30), 64 * 2 ** 20);
  assert.equal(diskReserve(100 * 2 ** 30), 2 ** 30);
  assert.equal(diskReserve(10 * 2 ** 30), 0.05 * 10 * 2 ** 30);
  assert.equal(diskReserve(20 * 2 ** 20), 5 * 2 ** 20);
});

test('an archive with a name twice keeps both entries (the second as "name (2).ext"), on disk and in memory', async (t) => {
  const dir = tempDir(t);
  const big = (c: string) => Buffer.alloc(128 * 1024, c);
  writeFileSync(join(dir, 'twice.tar'), await makeTar([
    { name: 'logs/vllm.log', data: 'first\n' },
    { name: 'logs/vllm.log', data: 'second\n' },
    { name: 'trace.json', data: big('a') },
    { name: 'trace.json', data: big('b') },
  ]));
  const b = await openBundle([join(dir, 'twice.tar')]);
  t.after(() => b.close());
  assert.deepEqual(b.entries.map((e) => e.path), ['logs/vllm (2).log', 'logs/vllm.log', 'trace (2).json', 'trace.json']);
  const byPath = new Map(b.entries.map((e) => [e.path, e]));
  assert.equal((await readAll(byPath.get('logs/vllm.log')!)).toString(), 'first\n');
  assert.equal((await readAll(byPath.get('logs/vllm (2).log')!)).toString(), 'second\n');
  assert.deepEqual(await readAll(byPath.get('trace.json')!), big('a'));
  assert.deepEqual(await readAll(byPath.get('trace (2).json')!), big('b'));
});
