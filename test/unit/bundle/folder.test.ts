import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, linkSync, mkdirSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { openBundle } from '../../../node/engine/bundle/open';
import { corpusFile, skipUnlessCorpus } from '../../helpers/corpus';
import { readAll, tempDir } from './fixtures';

test('a folder with nested dirs and a .gz file: sorted paths, decompressed content, stat mtimes', async (t) => {
  const dir = tempDir(t);
  mkdirSync(join(dir, 'logs/engine'), { recursive: true });
  mkdirSync(join(dir, 'metrics'));
  writeFileSync(join(dir, 'metrics/vllm.prom'), 'vllm:num_requests_running 3\n');
  writeFileSync(join(dir, 'logs/engine/vllm.log'), 'INFO 05-17 10:00:00 engine started\n');
  const trace = Buffer.from(JSON.stringify({ traceEvents: [{ name: 'k', ts: 1 }] }));
  writeFileSync(join(dir, 'logs/trace.json.gz'), gzipSync(trace));
  writeFileSync(join(dir, 'README'), '');
  utimesSync(join(dir, 'metrics/vllm.prom'), new Date('2023-11-02T08:00:00Z'), new Date('2023-11-02T08:00:00Z'));

  const b = await openBundle([dir]);
  t.after(() => b.close());
  assert.deepEqual(b.failures, []);
  assert.deepEqual(b.entries.map((e) => e.path), ['README', 'logs/engine/vllm.log', 'logs/trace.json', 'metrics/vllm.prom']);

  const [readme, log, tr, prom] = b.entries;
  assert.equal(readme.size, 0);
  assert.equal((await readme.head(100)).length, 0);
  assert.equal((await log.head(4)).toString(), 'INFO');
  assert.equal(log.size, 35);
  assert.equal(tr.size, null);
  assert.equal(tr.storedBytes, statSync(join(dir, 'logs/trace.json.gz')).size);
  assert.deepEqual(await readAll(tr), trace);
  assert.equal((await tr.head(14)).toString(), '{"traceEvents"');
  assert.equal(prom.mtimeMs, Date.parse('2023-11-02T08:00:00Z'));
  assert.equal(await prom.file(), join(dir, 'metrics/vllm.prom'), 'a plain file is served in place');

  const spilled = await tr.file();
  assert.notEqual(spilled, join(dir, 'logs/trace.json.gz'));
  assert.deepEqual(readFileSync(spilled), trace);
  assert.equal(await tr.file(), spilled, 'spilled once');
  await b.close();
  assert.equal(existsSync(spilled), false, 'close() removes the spilled file');
});

test('a symlink out of the folder is refused by name; one inside is not imported twice', async (t) => {
  const outside = tempDir(t);
  writeFileSync(join(outside, 'secret.txt'), 'not yours\n');
  const dir = tempDir(t);
  writeFileSync(join(dir, 'a.log'), 'line\n');
  symlinkSync(join(outside, 'secret.txt'), join(dir, 'escape.txt'));
  symlinkSync('../../../../../../../../etc', join(dir, 'etc'));
  symlinkSync('a.log', join(dir, 'alias.log'));
  symlinkSync('missing.log', join(dir, 'dangling.log'));

  const b = await openBundle([dir]);
  t.after(() => b.close());
  assert.deepEqual(b.entries.map((e) => e.path), ['a.log']);
  assert.deepEqual(b.failures.map((f) => f.path), ['dangling.log', 'escape.txt', 'etc']);
  assert.match(b.failures[1].error, /^escape\.txt: symlink to ".*secret\.txt", outside the bundle — refused$/);
  assert.match(b.failures[2].error, /^etc: symlink to "\.\.\/.*etc", outside the bundle — refused$/);
  assert.match(b.failures[0].error, /broken symlink \(to "missing\.log"\)/);
});

test('a file that is not what its name says is judged by content', async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'x.zip'), 'just a text file\n');
  writeFileSync(join(dir, 'x.gz'), 'not gzip either\n');
  writeFileSync(join(dir, 'trace.json'), gzipSync('{"traceEvents":[]}'));
  const b = await openBundle([dir]);
  t.after(() => b.close());
  assert.deepEqual(b.failures, []);
  assert.deepEqual(b.entries.map((e) => e.path), ['trace.json', 'x.gz', 'x.zip']);
  assert.equal((await readAll(b.entries[0])).toString(), '{"traceEvents":[]}');
  assert.equal((await readAll(b.entries[2])).toString(), 'just a text file\n');
});

test('x.log and x.log.gz side by side: the plain file keeps the name, the gzip one its stored name', async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'x.log'), 'plain\n');
  writeFileSync(join(dir, 'x.log.gz'), gzipSync('gzipped\n'));
  const b = await openBundle([dir]);
  t.after(() => b.close());
  assert.deepEqual(b.entries.map((e) => e.path), ['x.log', 'x.log.gz']);
  assert.equal((await readAll(b.entries[0])).toString(), 'plain\n');
  assert.equal((await readAll(b.entries[1])).toString(), 'gzipped\n');
});

test('a folder with more files than maxEntries is refused with the limit named', async (t) => {
  const dir = tempDir(t);
  for (let i = 0; i < 30; i++) writeFileSync(join(dir, `f${i}.txt`), `${i}`);
  const b = await openBundle([dir], { maxEntries: 20 });
  t.after(() => b.close());
  assert.equal(b.entries.length, 0);
  assert.equal(b.failures.length, 1);
  assert.match(b.failures[0].error, /has more than 20 files \(maxEntries\) — refused/);
});

test('folders nested past maxDepth are skipped by name, the rest imports', async (t) => {
  const dir = tempDir(t);
  mkdirSync(join(dir, 'a/b/c'), { recursive: true });
  writeFileSync(join(dir, 'a/top.txt'), 'x');
  writeFileSync(join(dir, 'a/b/c/deep.txt'), 'y');
  const b = await openBundle([dir], { maxDepth: 2 });
  t.after(() => b.close());
  assert.deepEqual(b.entries.map((e) => e.path), ['a/top.txt']);
  assert.deepEqual(b.failures.map((f) => f.path), ['a/b']);
  assert.match(b.failures[0].error, /^a\/b: holds files more than 2 levels deep \(maxDepth\) — skipped$/);
});

test('the kineto corpus folder: every .json.gz is an entry decompressed on read', { skip: skipUnlessCorpus('kineto_trace/hta_cuda_event_sync_trace.json.gz') }, async (t) => {
  const dir = corpusFile('kineto_trace')!;
  const b = await openBundle([dir]);
  t.after(() => b.close());
  assert.deepEqual(b.failures, []);
  const e = b.entries.find((x) => x.path === 'hta_cuda_event_sync_trace.json');
  assert.ok(e, `entries: ${b.entries.map((x) => x.path).join(', ')}`);
  assert.ok(b.entries.every((x) => !x.path.endsWith('.gz')));
  const json = JSON.parse((await readAll(e)).toString());
  assert.equal(json.schemaVersion, 1);
  assert.ok(Array.isArray(json.traceEvents) && json.traceEvents.length > 0);
  assert.equal(e.storedBytes, statSync(join(dir, 'hta_cuda_event_sync_trace.json.gz')).size);
});

test('a file hard-linked under two names in a folder is listed once (it was imported twice)', async (t) => {
  const dir = tempDir(t);
  mkdirSync(join(dir, 'var/log'), { recursive: true });
  writeFileSync(join(dir, 'var/log/messages'), 'May 18 19:02:39 node kernel: hello\n');
  linkSync(join(dir, 'var/log/messages'), join(dir, 'var/log/messages.hard'));
  writeFileSync(join(dir, 'other.log'), 'x\n');
  const b = await openBundle([dir]);
  t.after(() => b.close());
  const paths = b.entries.map((e) => e.path);
  assert.equal(paths.filter((p) => p.startsWith('var/log/messages')).length, 1, paths.join(', '));
  assert.ok(paths.includes('other.log'));
});
