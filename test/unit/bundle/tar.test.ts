import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { openBundle } from '../../../node/engine/bundle/open';
import { deflatedZeros, gnuHeader, gzipWrap, makeTar, padded, readAll, tempDir } from './fixtures';

const LONG_DIR = 'node-0/' + 'very-long-directory-name-for-pax/'.repeat(4);
const LONG_NAME = `${LONG_DIR}${'x'.repeat(120)}.prom`;

test('.tar.gz with pax long names: paths, contents, header mtimes, gzip members inside decompressed', async (t) => {
  const dir = tempDir(t);
  const trace = '{"traceEvents":[{"name":"gemm","ph":"X"}]}';
  const tarball = await makeTar([
    { name: 'bundle/', type: 'directory' },
    { name: 'bundle/logs/vllm.log', data: 'INFO 05-17 10:00:00 started\n', mtime: new Date('2023-05-17T10:05:00Z') },
    { name: `bundle/${LONG_NAME}`, data: 'vllm:num_requests_waiting 7\n' },
    { name: 'bundle/traces/rank0.json.gz', data: gzipSync(trace) },
    { name: 'bundle/empty.txt', data: '' },
  ]);
  assert.ok(tarball.includes(Buffer.from('path=bundle/node-0/')), 'precondition: tar-stream wrote a pax path record');
  const file = join(dir, 'incident.tgz');
  writeFileSync(file, gzipSync(tarball));

  const b = await openBundle([file]);
  t.after(() => b.close());
  assert.deepEqual(b.failures, []);
  assert.deepEqual(b.entries.map((e) => e.path), ['bundle/empty.txt', 'bundle/logs/vllm.log', `bundle/${LONG_NAME}`, 'bundle/traces/rank0.json']);
  const byPath = new Map(b.entries.map((e) => [e.path, e]));
  assert.equal((await readAll(byPath.get(`bundle/${LONG_NAME}`)!)).toString(), 'vllm:num_requests_waiting 7\n');
  assert.equal((await readAll(byPath.get('bundle/traces/rank0.json')!)).toString(), trace);
  const log = byPath.get('bundle/logs/vllm.log')!;
  assert.equal(log.mtimeMs, Date.parse('2023-05-17T10:05:00Z'));
  assert.equal(log.size, 28);
  assert.equal(byPath.get('bundle/empty.txt')!.size, 0);

  const extracted = await log.file();
  assert.ok(extracted.startsWith(tmpdir()), extracted);
  await b.close();
  assert.equal(existsSync(extracted), false, 'close() removes the extracted archive');
});

test('a plain .tar with GNU long names (././@LongLink)', async (t) => {
  const dir = tempDir(t);
  const longName = `gnu/${'deep-folder/'.repeat(12)}metrics.prom`;
  const body = Buffer.from('dcgm_gpu_temp 61\n');
  const nameBytes = Buffer.from(longName + '\0');
  const tarball = Buffer.concat([
    gnuHeader('././@LongLink', nameBytes.length, 'L'),
    padded(nameBytes),
    gnuHeader(longName.slice(0, 99), body.length, '0'),
    padded(body),
    Buffer.alloc(1024),
  ]);
  writeFileSync(join(dir, 'gnu.tar'), tarball);
  const b = await openBundle([join(dir, 'gnu.tar')]);
  t.after(() => b.close());
  assert.deepEqual(b.failures, []);
  assert.deepEqual(b.entries.map((e) => e.path), [longName]);
  assert.deepEqual(await readAll(b.entries[0]), body);
  assert.equal(b.entries[0].mtimeMs, Date.UTC(2023, 6, 4));
});

test('tar traversal, absolute names and links out of the bundle are refused by name; the rest imports', async (t) => {
  const dir = tempDir(t);
  const tarball = await makeTar([
    // Large enough to be written to the extraction folder rather than held in memory.
    { name: 'ok.log', data: 'fine\n'.repeat(20_000) },
    { name: '../../etc/passwd', data: 'root:x:0:0\n' },
    { name: '/etc/cron.d/evil', data: '* * * * * root sh\n' },
    { name: 'C:\\Windows\\evil.dll', data: 'MZ' },
    { name: 'sub/../../up.txt', data: 'up' },
    { name: 'out', type: 'symlink', linkname: '/etc' },
    { name: 'sub/rel-out', type: 'symlink', linkname: '../../secret' },
    { name: 'hard-out', type: 'link', linkname: '../outside.txt' },
    { name: 'inside-link', type: 'symlink', linkname: 'ok.log' },
  ]);
  writeFileSync(join(dir, 'evil.tar'), tarball);
  const b = await openBundle([join(dir, 'evil.tar')]);
  t.after(() => b.close());
  assert.deepEqual(b.entries.map((e) => e.path), ['ok.log']);
  const errors = new Map(b.failures.map((f) => [f.path, f.error]));
  assert.equal(errors.get('evil.tar:../../etc/passwd'), 'evil.tar:../../etc/passwd: path leaves the bundle (..) — refused');
  assert.equal(errors.get('evil.tar:/etc/cron.d/evil'), 'evil.tar:/etc/cron.d/evil: absolute path — refused');
  assert.equal(errors.get('evil.tar:C:\\Windows\\evil.dll'), 'evil.tar:C:\\Windows\\evil.dll: absolute path — refused');
  assert.equal(errors.get('evil.tar:sub/../../up.txt'), 'evil.tar:sub/../../up.txt: path leaves the bundle (..) — refused');
  assert.equal(errors.get('evil.tar:out'), 'evil.tar:out: symlink to "/etc", outside the bundle — refused');
  assert.equal(errors.get('evil.tar:sub/rel-out'), 'evil.tar:sub/rel-out: symlink to "../../secret", outside the bundle — refused');
  assert.equal(errors.get('evil.tar:hard-out'), 'evil.tar:hard-out: hardlink to "../outside.txt", outside the bundle — refused');
  assert.equal(b.failures.length, 7, 'the link that stays inside is left out quietly');
  const extracted = dirname(await b.entries[0].file());
  assert.deepEqual(readdirSync(extracted), ['ok.log'], 'nothing else was written in the archive folder');
  assert.deepEqual(readdirSync(dirname(extracted)), [basename(extracted)], 'nor beside it');
});

test('a tar corrupt in the middle: entries before the damage import; the failure names the offset', async (t) => {
  const dir = tempDir(t);
  const tarball = await makeTar([
    { name: 'a.log', data: 'first\n' },
    { name: 'b.log', data: 'second\n' },
    { name: 'c.log', data: 'third\n' },
  ]);
  // Headers at 0, 1024, 2048: damage the third one.
  tarball.fill(0x41, 2048 + 10, 2048 + 40);
  writeFileSync(join(dir, 'cut.tar'), tarball);
  writeFileSync(join(dir, 'cut.tar.gz'), gzipSync(tarball));

  const b = await openBundle([join(dir, 'cut.tar'), join(dir, 'cut.tar.gz')]);
  t.after(() => b.close());
  assert.deepEqual(b.entries.map((e) => e.path), ['cut.tar.gz/a.log', 'cut.tar.gz/b.log', 'cut.tar/a.log', 'cut.tar/b.log']);
  assert.deepEqual(b.failures, [
    { path: 'cut.tar', error: 'cut.tar (byte 2048): tar header checksum mismatch — the archive is corrupt here' },
    { path: 'cut.tar.gz', error: 'cut.tar.gz (byte 2048): tar header checksum mismatch — the archive is corrupt here (offset in the uncompressed tar)' },
  ]);
});

test('a tar cut inside an entry keeps the entries before it and drops the partial one', async (t) => {
  const dir = tempDir(t);
  const tarball = await makeTar([
    { name: 'a.log', data: 'first\n' },
    { name: 'big.bin', data: Buffer.alloc(100_000, 7) },
  ]);
  writeFileSync(join(dir, 'cut.tar'), tarball.subarray(0, 1024 + 512 + 50_000));
  const b = await openBundle([join(dir, 'cut.tar')]);
  t.after(() => b.close());
  assert.deepEqual(b.entries.map((e) => e.path), ['a.log']);
  assert.deepEqual(b.failures, [{ path: 'cut.tar', error: 'cut.tar (byte 51536): the tar ends inside an entry — truncated' }]);
});

test('a .tar.gz bomb (1 GiB of zeros) is refused at the ratio limit, after little output', async (t) => {
  const dir = tempDir(t);
  const header = (await makeTar([{ name: 'zeros.bin', data: Buffer.alloc(0) }])).subarray(0, 512);
  // Rewrite the size field to 1 GiB and fix the checksum, then follow it with the zeros.
  header.write((2 ** 30).toString(8).padStart(11, '0') + '\0', 124);
  header.write('        ', 148);
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(sum.toString(8).padStart(6, '0') + '\0 ', 148);
  const { deflateRawSync, constants } = await import('node:zlib');
  const deflatedHeader = deflateRawSync(header, { finishFlush: constants.Z_FULL_FLUSH });
  writeFileSync(join(dir, 'bomb.tar.gz'), gzipWrap(Buffer.concat([deflatedHeader, deflatedZeros(1024)])));

  const started = Date.now();
  const b = await openBundle([join(dir, 'bomb.tar.gz')]);
  t.after(() => b.close());
  assert.equal(b.entries.length, 0);
  assert.equal(b.failures.length, 1);
  assert.match(b.failures[0].error, /^bomb\.tar\.gz \(byte \d+\): expands more than 200:1 — refused as a possible zip bomb/);
  assert.ok(Date.now() - started < 5000, 'refused quickly');
});

test('a tar with more entries than maxEntries stops at the limit, named', async (t) => {
  const dir = tempDir(t);
  const tarball = await makeTar(Array.from({ length: 120 }, (_, i) => ({ name: `f${i}.txt`, data: `${i}` })));
  writeFileSync(join(dir, 'many.tar.gz'), gzipSync(tarball));
  const b = await openBundle([join(dir, 'many.tar.gz')], { maxEntries: 100 });
  t.after(() => b.close());
  assert.deepEqual(b.failures.map((f) => f.error), ['many.tar.gz: has more than 100 entries (maxEntries) — stopped there, the first 100 were kept']);
  assert.equal(b.entries.length, 100, 'the entries before the limit stay, like those before a corruption');
});

test('a tar entry larger than maxEntryBytes is refused by name and skipped; the next still imports', async (t) => {
  const dir = tempDir(t);
  const tarball = await makeTar([
    { name: 'huge.bin', data: Buffer.alloc(5000, 1) },
    { name: 'after.log', data: 'still here\n' },
  ]);
  writeFileSync(join(dir, 'x.tar'), tarball);
  const b = await openBundle([join(dir, 'x.tar')], { maxEntryBytes: 4096 });
  t.after(() => b.close());
  assert.deepEqual(b.entries.map((e) => e.path), ['after.log']);
  assert.equal((await readAll(b.entries[0])).toString(), 'still here\n');
  assert.deepEqual(b.failures, [{ path: 'x.tar:huge.bin', error: 'x.tar:huge.bin: 4.88 KiB, larger than 4.00 KiB (maxEntryBytes) — refused' }]);
});
