// gzip as `gzip -d` reads it: concatenated members, zero padding, and trailing garbage after a complete
// member ignored with every byte of the data kept (zlib's own gunzip failed the whole file there and lost
// the output of the last write); a CRC or length that does not match, or a cut member, is still an error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { openBundle } from '../../../node/engine/bundle/open';
import { gunzip } from '../../../node/engine/bundle/decompress';
import { BundleError } from '../../../node/engine/bundle/types';
import { readAll, tempDir } from './fixtures';

const text = (n: number, tag = 'a') => Buffer.from(Array.from({ length: n }, (_, i) => `${tag} line ${i} ${(i * 7919) % 1000}`).join('\n') + '\n');

async function* chunks(b: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let i = 0; i < b.length; i += size) yield b.subarray(i, i + size);
}

async function all(src: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of src) parts.push(c);
  return Buffer.concat(parts);
}

test('trailing garbage after a complete member is ignored and no byte of the data is lost, in any chunking', async () => {
  const data = text(200_000);
  const gz = Buffer.concat([gzipSync(data), Buffer.from('garbage after the end, as some tools write\n')]);
  for (const size of [7, 4096, 65536, gz.length]) assert.deepEqual(await all(gunzip(chunks(gz, size), 'x.gz')), data, `chunks of ${size}`);
});

test('concatenated members read as one stream; zero padding after the last is fine', async () => {
  const a = text(30_000, 'a');
  const b = text(20_000, 'b');
  const gz = Buffer.concat([gzipSync(a), gzipSync(b), Buffer.alloc(512)]);
  for (const size of [13, 65536]) assert.deepEqual(await all(gunzip(chunks(gz, size), 'x.gz')), Buffer.concat([a, b]));
  // Header fields (name, comment, extra, header CRC) are skipped.
  const named = gzipSync(a);
  const withName = Buffer.concat([named.subarray(0, 3), Buffer.from([0x08 | 0x10]), named.subarray(4, 10), Buffer.from('a.log\0a comment\0'), named.subarray(10)]);
  assert.deepEqual(await all(gunzip(chunks(withName, 5), 'x.gz')), a);
});

test('a CRC that does not match, a second member cut short, or no trailer are errors naming the byte', async () => {
  const data = text(10_000);
  const gz = gzipSync(data);
  const badCrc = Buffer.from(gz);
  badCrc.writeUInt32LE((badCrc.readUInt32LE(gz.length - 8) ^ 1) >>> 0, gz.length - 8);
  await assert.rejects(all(gunzip(chunks(badCrc, 4096), 'x.gz')), (e: unknown) => e instanceof BundleError && e.offset === gz.length - 8 && /CRC does not match/.test(e.message));
  const cutSecond = Buffer.concat([gz, gzipSync(text(10_000, 'b')).subarray(0, 200)]);
  await assert.rejects(all(gunzip(chunks(cutSecond, 4096), 'x.gz')), (e: unknown) => e instanceof BundleError && /truncated/.test(e.message));
  await assert.rejects(all(gunzip(chunks(gz.subarray(0, gz.length - 3), 4096), 'x.gz')), /no CRC and length at the end/);
});

test('a .gz file with trailing garbage imports whole through the bundle', async (t) => {
  const dir = tempDir(t);
  const data = text(50_000);
  writeFileSync(join(dir, 'vllm.log.gz'), Buffer.concat([gzipSync(data), Buffer.from('\n-- end of capture --\n')]));
  const b = await openBundle([join(dir, 'vllm.log.gz')]);
  t.after(() => b.close());
  assert.deepEqual(b.failures, []);
  assert.deepEqual(await readAll(b.entries[0]), data);
});
