import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32, gzipSync } from 'node:zlib';
import { openBundle } from '../../../node/engine/bundle/open';
import { makeZip, type ZipSpec } from '../../helpers/make-zip';
import { deflatedZeros, readAll, tempDir } from './fixtures';

const PROM = Buffer.from('# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{model_name="m"} 4\n'.repeat(50));

test('.zip with stored and deflated entries, folders, a gzip member, DOS and UTC mtimes', async (t) => {
  const dir = tempDir(t);
  const trace = Buffer.from('{"traceEvents":[]}');
  writeFileSync(
    join(dir, 'bundle.zip'),
    makeZip([
      { name: 'metrics/', method: 0 },
      { name: 'metrics/vllm.prom', data: PROM, method: 8, mtime: new Date(2024, 1, 29, 23, 59, 58) },
      { name: 'notes.txt', data: Buffer.from('stored as is\n'), method: 0, unixMtime: new Date('2021-07-01T00:00:00Z') },
      { name: 'traces/rank0.json.gz', data: gzipSync(trace), method: 0 },
      { name: 'ünïcode.log', data: Buffer.from('ok\n') },
    ]),
  );
  const b = await openBundle([join(dir, 'bundle.zip')]);
  t.after(() => b.close());
  assert.deepEqual(b.failures, []);
  assert.deepEqual(b.entries.map((e) => e.path), ['metrics/vllm.prom', 'notes.txt', 'traces/rank0.json', 'ünïcode.log']);
  const [prom, notes, tr] = b.entries;
  assert.deepEqual(await readAll(prom), PROM);
  assert.equal(prom.size, PROM.length);
  assert.equal(prom.mtimeMs, new Date(2024, 1, 29, 23, 59, 58).getTime());
  assert.equal((await readAll(notes)).toString(), 'stored as is\n');
  assert.equal(notes.mtimeMs, Date.parse('2021-07-01T00:00:00Z'));
  assert.deepEqual(await readAll(tr), trace);
});

test('zip64 end records and extra fields are read', async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'z64.zip'), makeZip([{ name: 'a.prom', data: PROM }, { name: 'b.txt', data: Buffer.from('b\n'), method: 0 }], { zip64: true }));
  const b = await openBundle([join(dir, 'z64.zip')]);
  t.after(() => b.close());
  assert.deepEqual(b.failures, []);
  assert.deepEqual(b.entries.map((e) => e.path), ['a.prom', 'b.txt']);
  assert.deepEqual(await readAll(b.entries[0]), PROM);
});

test('an empty zip (end record only) is an empty bundle', async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'empty.zip'), makeZip([]));
  const b = await openBundle([join(dir, 'empty.zip')]);
  t.after(() => b.close());
  assert.deepEqual(b.entries, []);
  assert.deepEqual(b.failures, []);
});

test('zip-slip, absolute and UNC names and symlinks out are refused by name; the rest imports', async (t) => {
  const dir = tempDir(t);
  const specs: ZipSpec[] = [
    { name: 'good.log', data: Buffer.from('good\n') },
    { name: '../../etc/passwd', data: Buffer.from('root:x:0:0\n') },
    { name: '..\\..\\windows\\win.ini', data: Buffer.from('[x]\n') },
    { name: '/abs/file', data: Buffer.from('x') },
    { name: 'C:\\temp\\x.bat', data: Buffer.from('x') },
    { name: '\\\\server\\share\\x', data: Buffer.from('x') },
    { name: 'link-out', data: Buffer.from('/etc/passwd'), method: 0, unixMode: 0o120777 },
    { name: 'logs/link-up', data: Buffer.from('../../x'), method: 0, unixMode: 0o120777 },
    { name: 'link-in', data: Buffer.from('good.log'), method: 0, unixMode: 0o120777 },
  ];
  writeFileSync(join(dir, 'slip.zip'), makeZip(specs));
  const b = await openBundle([join(dir, 'slip.zip')]);
  t.after(() => b.close());
  assert.deepEqual(b.entries.map((e) => e.path), ['good.log']);
  assert.deepEqual(
    b.failures.map((f) => f.error),
    [
      'slip.zip:../../etc/passwd: path leaves the bundle (..) — refused',
      'slip.zip:..\\..\\windows\\win.ini: path leaves the bundle (..) — refused',
      'slip.zip:/abs/file: absolute path — refused',
      'slip.zip:C:\\temp\\x.bat: absolute path — refused',
      'slip.zip:\\\\server\\share\\x: absolute path — refused',
      'slip.zip:link-out: symlink to "/etc/passwd", outside the bundle — refused',
      'slip.zip:logs/link-up: symlink to "../../x", outside the bundle — refused',
    ],
  );
});

test('an entry more than maxDepth levels deep is refused by name', async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'deep.zip'), makeZip([{ name: 'a/b/c.txt', data: Buffer.from('ok') }, { name: 'a/b/c/d.txt', data: Buffer.from('deep') }]));
  const b = await openBundle([join(dir, 'deep.zip')], { maxDepth: 3 });
  t.after(() => b.close());
  assert.deepEqual(b.entries.map((e) => e.path), ['a/b/c.txt']);
  assert.deepEqual(b.failures.map((f) => f.error), ['deep.zip:a/b/c/d.txt: more than 3 levels deep (maxDepth) — refused']);
});

test('a zip bomb (1 GiB of zeros in ~1 MiB, over 1000:1) is refused before inflating', async (t) => {
  const dir = tempDir(t);
  const zeros = deflatedZeros(1024);
  writeFileSync(
    join(dir, 'bomb.zip'),
    makeZip([
      { name: 'readme.txt', data: Buffer.from('hi\n') },
      { name: 'zeros.bin', compressed: zeros, size: 2 ** 30, crc: 0 },
    ]),
  );
  const started = Date.now();
  const b = await openBundle([join(dir, 'bomb.zip')]);
  t.after(() => b.close());
  assert.ok(Date.now() - started < 2000);
  assert.deepEqual(b.entries.map((e) => e.path), ['readme.txt']);
  assert.equal(b.failures.length, 1);
  assert.equal(b.failures[0].path, 'bomb.zip:zeros.bin');
  assert.match(b.failures[0].error, /^bomb\.zip:zeros\.bin: expands more than 200:1 — refused as a possible zip bomb \(1\.00 GiB from 1\.01 MiB\)$/);
});

test('a zip bomb whose header lies about its size stops inflating at the declared size', async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'liar.zip'), makeZip([{ name: 'zeros.bin', compressed: deflatedZeros(1024), size: 1 << 20, crc: 0 }]));
  const b = await openBundle([join(dir, 'liar.zip')]);
  t.after(() => b.close());
  assert.deepEqual(b.entries, []);
  assert.deepEqual(b.failures.map((f) => f.error), ['liar.zip:zeros.bin: holds more than the 1048576 bytes its header declares — corrupt or hostile, refused']);
});

test('entries sharing one blob of data (a non-recursive zip bomb) hit the whole-archive ratio', async (t) => {
  const dir = tempDir(t);
  const blob = Buffer.alloc(64 * 1024, 0x61);
  const specs: ZipSpec[] = [{ name: 'e0', data: blob, method: 0 }];
  for (let i = 1; i < 3000; i++) specs.push({ name: `e${i}`, sameDataAs: 0 });
  const zip = makeZip(specs);
  writeFileSync(join(dir, 'overlap.zip'), zip);
  const b = await openBundle([join(dir, 'overlap.zip')], { maxRatio: 20 });
  t.after(() => b.close());
  assert.equal(b.failures.length, 1);
  assert.match(b.failures[0].error, /^overlap\.zip \(byte \d+\): expands more than 20:1 — refused as a possible zip bomb/);
  const expectedKept = Math.floor((20 * zip.length) / blob.length);
  assert.equal(b.entries.length, expectedKept, 'extraction stopped as soon as the archive ratio passed 20:1');
});

test('100 000 tiny entries are refused from the central directory, within seconds', async (t) => {
  const dir = tempDir(t);
  const specs: ZipSpec[] = Array.from({ length: 100_000 }, (_, i) => ({ name: `f/${i}.txt`, data: Buffer.from('x'), method: 0 }));
  writeFileSync(join(dir, 'many.zip'), makeZip(specs, { zip64: true }));
  const started = Date.now();
  const b = await openBundle([join(dir, 'many.zip')]);
  t.after(() => b.close());
  const took = Date.now() - started;
  assert.deepEqual(b.entries, []);
  assert.deepEqual(b.failures.map((f) => f.error), ['many.zip: has 100000 entries, more than 50000 (maxEntries) — refused']);
  assert.ok(took < 3000, `took ${took} ms`);

  writeFileSync(join(dir, 'some.zip'), makeZip(specs.slice(0, 40)));
  const small = await openBundle([join(dir, 'some.zip')], { maxEntries: 30 });
  t.after(() => small.close());
  assert.deepEqual(small.failures.map((f) => f.error), ['some.zip: has 40 entries, more than 30 (maxEntries) — refused']);

  // An end record that under-counts does not get past the limit: the directory records are counted too.
  const lying = makeZip(specs.slice(0, 40));
  lying.writeUInt16LE(10, lying.length - 14);
  lying.writeUInt16LE(10, lying.length - 12);
  writeFileSync(join(dir, 'lying.zip'), lying);
  const liar = await openBundle([join(dir, 'lying.zip')], { maxEntries: 30 });
  t.after(() => liar.close());
  assert.deepEqual(liar.entries, []);
  assert.deepEqual(liar.failures.map((f) => f.error), ['lying.zip: has more than 30 entries (maxEntries) — refused']);
});

test('a zip with one corrupt entry: the others import; the failure names the entry and offset', async (t) => {
  const dir = tempDir(t);
  const specs: ZipSpec[] = [
    { name: 'a.prom', data: PROM },
    { name: 'b.prom', data: Buffer.concat([PROM, Buffer.from('tail\n')]) },
    { name: 'c.txt', data: Buffer.from('stored\n'), method: 0 },
  ];
  const zip = makeZip(specs);
  // b.prom's data starts after a.prom's local record and its own 30-byte header and name.
  const aRecord = 30 + 'a.prom'.length + (zip.readUInt32LE(18));
  const bData = aRecord + 30 + 'b.prom'.length;
  zip.fill(0xff, bData, bData + 4);
  writeFileSync(join(dir, 'bad.zip'), zip);
  const b = await openBundle([join(dir, 'bad.zip')]);
  t.after(() => b.close());
  assert.deepEqual(b.entries.map((e) => e.path), ['a.prom', 'c.txt']);
  assert.equal(b.failures.length, 1);
  assert.equal(b.failures[0].path, 'bad.zip:b.prom');
  assert.match(b.failures[0].error, new RegExp(`^bad\\.zip:b\\.prom \\(byte ${bData}\\): deflate data is corrupt: `));
});

test('a CRC mismatch and an unsupported method fail their entries only', async (t) => {
  const dir = tempDir(t);
  writeFileSync(
    join(dir, 'mixed.zip'),
    makeZip([
      { name: 'crc.txt', data: Buffer.from('hello\n'), crc: crc32(Buffer.from('hellO\n')) },
      { name: 'bz.txt', compressed: Buffer.from('BZh91AY&SY'), method: 12, size: 100, crc: 0 },
      { name: 'ok.txt', data: Buffer.from('ok\n') },
    ]),
  );
  const b = await openBundle([join(dir, 'mixed.zip')]);
  t.after(() => b.close());
  assert.deepEqual(b.entries.map((e) => e.path), ['ok.txt']);
  assert.deepEqual(b.failures.map((f) => f.error), [
    'mixed.zip:bz.txt: uses compression method 12 (bzip2), which is not supported (only stored and deflate)',
    'mixed.zip:crc.txt: CRC-32 mismatch — the entry is corrupt',
  ]);
});

test('a truncated zip (no central directory): entries before the cut are recovered, the offset named', async (t) => {
  const dir = tempDir(t);
  const zip = makeZip([
    { name: 'a.log', data: Buffer.from('first\n') },
    { name: 'b.log', data: Buffer.from('second\n'), method: 0 },
    { name: 'c.prom', data: PROM },
  ]);
  const cut = zip.indexOf(Buffer.from('PK\x01\x02', 'latin1')) - 20;
  writeFileSync(join(dir, 'cut.zip'), zip.subarray(0, cut));
  const b = await openBundle([join(dir, 'cut.zip')]);
  t.after(() => b.close());
  assert.deepEqual(b.entries.map((e) => e.path), ['a.log', 'b.log']);
  const cStart = zip.indexOf(Buffer.from('PK\x03\x04', 'latin1'), zip.indexOf('second\n'));
  assert.deepEqual(b.failures, [
    { path: 'cut.zip', error: `cut.zip (byte ${cStart}): the end of central directory record is missing — truncated?; 2 entries before this point were recovered` },
  ]);
});

test('a "zip" whose directory points outside the file is a clear failure', async (t) => {
  const dir = tempDir(t);
  const zip = makeZip([{ name: 'a.log', data: Buffer.from('x\n') }]);
  zip.writeUInt32LE(0x7fffffff, zip.length - 6);
  writeFileSync(join(dir, 'broken.zip'), zip);
  const b = await openBundle([join(dir, 'broken.zip')]);
  t.after(() => b.close());
  assert.deepEqual(b.entries, []);
  assert.deepEqual(b.failures.map((f) => f.error), [`broken.zip (byte ${zip.length - 22}): the central directory lies outside the file — corrupt or truncated`]);
});

test("an entry dated at the DOS epoch (1980-01-01 00:00, what Python's streaming zipfile writes) has no time, not a time in 1980", async (t) => {
  const dir = tempDir(t);
  writeFileSync(
    join(dir, 'dated.zip'),
    makeZip([
      { name: 'epoch.log', data: Buffer.from('x\n'), mtime: new Date(1980, 0, 1, 0, 0, 0) },
      { name: 'real.log', data: Buffer.from('y\n'), mtime: new Date(2024, 4, 17, 10, 30, 42) },
    ]),
  );
  const b = await openBundle([join(dir, 'dated.zip')]);
  t.after(() => b.close());
  assert.deepEqual(
    b.entries.map((e) => [e.path, e.mtimeMs]),
    [
      ['epoch.log', null],
      ['real.log', new Date(2024, 4, 17, 10, 30, 42).getTime()],
    ],
  );
});
