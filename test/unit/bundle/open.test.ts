import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { openBundle } from '../../../node/engine/bundle/open';
import { makeZip } from '../../helpers/make-zip';
import { makeTar, readAll, tempDir } from './fixtures';

test('several paths at once make one bundle, each under its own name', async (t) => {
  const dir = tempDir(t);
  mkdirSync(join(dir, 'node-1/logs'), { recursive: true });
  writeFileSync(join(dir, 'node-1/logs/vllm.log'), 'INFO started\n');
  writeFileSync(join(dir, 'metrics.zip'), makeZip([{ name: 'dcgm.prom', data: Buffer.from('DCGM_FI_DEV_GPU_UTIL 97\n') }]));
  writeFileSync(join(dir, 'traces.tar.gz'), gzipSync(await makeTar([{ name: 'rank0.json', data: '{}' }])));
  writeFileSync(join(dir, 'dmesg.txt.gz'), gzipSync('NVRM: Xid (PCI:0000:3b:00): 79\n'));

  const b = await openBundle(['node-1', 'metrics.zip', 'traces.tar.gz', 'dmesg.txt.gz'].map((p) => join(dir, p)));
  t.after(() => b.close());
  assert.equal(b.name, 'node-1 + 3 more');
  assert.deepEqual(b.failures, []);
  assert.deepEqual(b.entries.map((e) => e.path), ['dmesg.txt', 'metrics.zip/dcgm.prom', 'node-1/logs/vllm.log', 'traces.tar.gz/rank0.json']);
  assert.equal((await readAll(b.entries[0])).toString(), 'NVRM: Xid (PCI:0000:3b:00): 79\n');
  assert.equal((await readAll(b.entries[1])).toString(), 'DCGM_FI_DEV_GPU_UTIL 97\n');
});

test('two dropped folders with the same name stay apart', async (t) => {
  const dir = tempDir(t);
  for (const host of ['a', 'b']) {
    mkdirSync(join(dir, host, 'logs'), { recursive: true });
    writeFileSync(join(dir, host, 'logs', 'x.log'), `${host}\n`);
  }
  const b = await openBundle([join(dir, 'a/logs'), join(dir, 'b/logs')]);
  t.after(() => b.close());
  assert.deepEqual(b.entries.map((e) => e.path), ['logs (2)/x.log', 'logs/x.log']);
  assert.equal((await readAll(b.entries[0])).toString(), 'b\n');
});

test('an archive inside what was dropped is expanded, one level deep; deeper ones stay entries', async (t) => {
  const dir = tempDir(t);
  const innermost = makeZip([{ name: 'deep.txt', data: Buffer.from('deep\n') }]);
  const inner = makeZip([
    { name: 'inner.log', data: Buffer.from('inner\n') },
    { name: 'nested.zip', data: innermost, method: 0 },
  ]);
  const collect = makeZip([{ name: 'a/b.txt', data: Buffer.from('b\n') }, { name: 'more.zip', data: inner, method: 0 }]);
  mkdirSync(join(dir, 'case'));
  writeFileSync(join(dir, 'case/collect.zip'), collect);
  writeFileSync(join(dir, 'case/top.log'), 'top\n');
  writeFileSync(join(dir, 'collect.zip'), collect);

  const folder = await openBundle([join(dir, 'case')]);
  t.after(() => folder.close());
  assert.deepEqual(folder.failures, []);
  assert.deepEqual(folder.entries.map((e) => e.path), ['collect.zip/a/b.txt', 'collect.zip/more.zip', 'top.log']);
  assert.deepEqual(await readAll(folder.entries[1]), inner);

  const archive = await openBundle([join(dir, 'collect.zip')]);
  t.after(() => archive.close());
  assert.deepEqual(archive.failures, []);
  assert.deepEqual(archive.entries.map((e) => e.path), ['a/b.txt', 'more.zip/inner.log', 'more.zip/nested.zip']);
  assert.deepEqual(await readAll(archive.entries[2]), innermost);
});

test('maxTotalBytes holds across archives: extraction stops, named, and what came out stays', async (t) => {
  const dir = tempDir(t);
  const chunk = Buffer.alloc(40_000, 0x62);
  writeFileSync(join(dir, 'one.tar'), await makeTar([{ name: 'a.bin', data: chunk }, { name: 'b.bin', data: chunk }]));
  writeFileSync(join(dir, 'two.zip'), makeZip([{ name: 'c.bin', data: chunk, method: 0 }]));
  const b = await openBundle([join(dir, 'one.tar'), join(dir, 'two.zip')], { maxTotalBytes: 100_000 });
  t.after(() => b.close());
  assert.deepEqual(b.entries.map((e) => e.path), ['one.tar/a.bin', 'one.tar/b.bin']);
  assert.deepEqual(b.failures.map((f) => f.error), ['two.zip: the bundle unpacks to more than 97.7 KiB (maxTotalBytes) — refused']);
});

test('close() removes every temporary file and folder', async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'x.zip'), makeZip([{ name: 'a.txt.gz', data: gzipSync('spilled\n'), method: 0 }, { name: 'b.txt', data: Buffer.from('b') }]));
  const b = await openBundle([join(dir, 'x.zip')]);
  const extracted = await b.entries[1].file();
  const spilled = await b.entries[0].file();
  assert.ok(existsSync(extracted) && existsSync(spilled));
  await b.close();
  assert.equal(existsSync(dirname(dirname(extracted))), false);
  assert.equal(existsSync(spilled), false);
  await b.close();
});
