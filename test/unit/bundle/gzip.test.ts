import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { constants, deflateRawSync, gzipSync } from 'node:zlib';
import { openBundle } from '../../../node/engine/bundle/open';
import { BundleError } from '../../../node/engine/bundle/types';
import { deflatedZeros, gzipWrap, readAll, streamError, tempDir } from './fixtures';

/** Text that does not compress much, so a cut in the middle leaves a clear offset. */
function noisyText(lines: number): Buffer {
  let s = '';
  let x = 12345;
  for (let i = 0; i < lines; i++) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    s += `INFO 05-17 10:${String(i % 60).padStart(2, '0')}:00 request ${x.toString(36)} took ${x % 997} ms\n`;
  }
  return Buffer.from(s);
}

test('a single .gz file is one entry named without ".gz", with the gzip header mtime', async (t) => {
  const dir = tempDir(t);
  const text = noisyText(2000);
  const gz = gzipSync(text);
  gz.writeUInt32LE(Date.UTC(2022, 8, 14, 6, 0, 0) / 1000, 4);
  const file = join(dir, 'vllm.log.gz');
  writeFileSync(file, gz);

  const b = await openBundle([file]);
  t.after(() => b.close());
  assert.equal(b.name, 'vllm.log.gz');
  assert.deepEqual(b.failures, []);
  assert.equal(b.entries.length, 1);
  const [e] = b.entries;
  assert.equal(e.path, 'vllm.log');
  assert.equal(e.storedBytes, gz.length);
  assert.equal(e.mtimeMs, Date.UTC(2022, 8, 14, 6, 0, 0));
  assert.deepEqual(await readAll(e), text);
  assert.deepEqual(await e.head(20), text.subarray(0, 20));
});

test('a truncated gzip: the stream error names the file and the compressed offset reached', async (t) => {
  const dir = tempDir(t);
  const gz = gzipSync(noisyText(20000));
  const cut = Math.floor(gz.length / 2);
  writeFileSync(join(dir, 'trace.log.gz'), gz.subarray(0, cut));

  const b = await openBundle([join(dir, 'trace.log.gz')]);
  t.after(() => b.close());
  assert.equal(b.entries.length, 1, 'the head decompresses; the damage is further on');
  const err = await streamError(b.entries[0]);
  assert.ok(err instanceof BundleError);
  assert.equal(err.file, 'trace.log.gz');
  assert.equal(err.offset, cut);
  assert.match(err.message, new RegExp(`^trace\\.log\\.gz \\(byte ${cut}\\): gzip data ends early — the file is truncated`));
});

test('gzip corrupt in the middle: the error offset points at the damaged block', async (t) => {
  const dir = tempDir(t);
  // A full flush ends the good part on a byte boundary; 0x07 there is a block of the reserved type.
  const good = deflateRawSync(noisyText(20000), { finishFlush: constants.Z_FULL_FLUSH });
  const at = 10 + good.length;
  writeFileSync(join(dir, 'x.gz'), gzipWrap(Buffer.concat([good, Buffer.from([0x07]), Buffer.alloc(5000, 0x55)])));
  const b = await openBundle([join(dir, 'x.gz')]);
  t.after(() => b.close());
  const err = (await streamError(b.entries[0])) as BundleError;
  assert.match(err.message, /^x\.gz \(byte \d+\): gzip data is corrupt: invalid block type$/);
  assert.ok(err.offset! <= at && err.offset! > at - 16 * 1024, `offset ${err.offset}, damage at ${at}`);
});

test('x.tar.gz that is garbage after the gzip header is a failure naming the file and offset', async (t) => {
  const dir = tempDir(t);
  const bad = Buffer.concat([Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]), Buffer.from('this is not deflate data at all, just text')]);
  writeFileSync(join(dir, 'x.tar.gz'), bad);
  const b = await openBundle([join(dir, 'x.tar.gz')]);
  t.after(() => b.close());
  assert.equal(b.entries.length, 0);
  assert.equal(b.failures.length, 1);
  assert.equal(b.failures[0].path, 'x.tar.gz');
  assert.match(b.failures[0].error, /^x\.tar\.gz \(byte \d+\): gzip data is corrupt: invalid code lengths set$/);
});

test('a 0-byte file is an entry of size 0 (the pipeline reports it)', async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'empty.log'), '');
  const b = await openBundle([join(dir, 'empty.log')]);
  t.after(() => b.close());
  assert.deepEqual(b.failures, []);
  assert.equal(b.entries[0].path, 'empty.log');
  assert.equal(b.entries[0].size, 0);
  assert.equal((await b.entries[0].head(64)).length, 0);
  assert.equal((await readAll(b.entries[0])).length, 0);
});

test('a gzip bomb (1 GiB of zeros in ~1 MiB) stops at the ratio limit while streaming', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'zeros.bin.gz');
  const fd = openSync(file, 'w');
  writeSync(fd, gzipWrap(deflatedZeros(1024)));
  closeSync(fd);

  const b = await openBundle([file]);
  t.after(() => b.close());
  const [e] = b.entries;
  assert.equal((await e.head(16)).length, 16, 'the first bytes are readable, for detection');
  let out = 0;
  let err: Error | null = null;
  try {
    for await (const c of e.stream()) out += c.length;
  } catch (x) {
    err = x as Error;
  }
  assert.ok(err, 'refused');
  assert.match(err.message, /^zeros\.bin\.gz \(byte \d+\): expands more than 200:1 — refused as a possible zip bomb/);
  assert.ok(out < 64 * 2 ** 20, `stopped early, after ${out} bytes`);
  await assert.rejects(e.file(), /expands more than 200:1/);
});

test('maxEntryBytes bounds a gzip entry that is not a bomb by ratio', async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'big.log.gz'), gzipSync(noisyText(50000)));
  const b = await openBundle([join(dir, 'big.log.gz')], { maxEntryBytes: 100_000 });
  t.after(() => b.close());
  const err = await streamError(b.entries[0]);
  assert.match(err.message, /^big\.log\.gz \(byte \d+\): expands to more than 97\.7 KiB \(maxEntryBytes\) — refused/);
});

test('no path exists at all: BundleError; one missing among others: a failure', async (t) => {
  const dir = tempDir(t);
  await assert.rejects(openBundle([join(dir, 'nope'), join(dir, 'nope2')]), (e: unknown) => {
    assert.ok(e instanceof BundleError);
    assert.match(e.message, /no such file or folder$/);
    return true;
  });
  writeFileSync(join(dir, 'here.log'), 'x\n');
  const b = await openBundle([join(dir, 'here.log'), join(dir, 'nope')]);
  t.after(() => b.close());
  assert.deepEqual(b.entries.map((e) => e.path), ['here.log']);
  assert.deepEqual(b.failures, [{ path: join(dir, 'nope'), error: `${join(dir, 'nope')}: no such file or folder` }]);
});
