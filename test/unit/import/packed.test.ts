// Files Quadscope cannot open are said to be packed, and in what, so the user can unpack them: xz, bzip2,
// zstd, 7-Zip, RAR, gzip inside gzip and archives nested deeper than the one level the bundle reader
// expands. They were "skipped: not a format Quadscope reads", which hid the evidence.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { importFiles, tempStore } from '../../helpers/import-file';
import { makeZip } from '../../helpers/make-zip';
import { openBundle } from '../../../node/engine/bundle/open';
import { importBundle } from '../../../node/engine/import/pipeline';

test('compressions and nesting Quadscope does not open fail naming what to do; a gzip it opens is read', async () => {
  const t = tempStore();
  try {
    // File, bytes, the path the import names it by (a single .gz loses its suffix), and what it says.
    const files: [string, Buffer, string, RegExp | 'ok'][] = [
      ['sos.tar.xz', Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00, 0, 4]), 'sos.tar.xz', /xz-compressed.*tar -xJf/],
      ['vllm.log.bz2', Buffer.from('BZh91AY&SY'), 'vllm.log.bz2', /bzip2-compressed/],
      ['vllm.log.zst', Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0, 0]), 'vllm.log.zst', /zstd-compressed/],
      ['logs.7z', Buffer.from([0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c, 0, 4]), 'logs.7z', /7-Zip/],
      ['twice.log.gz', gzipSync(gzipSync('INFO 05-12 07:59:00 [x.py:1] hello\n')), 'twice.log', /gzip inside gzip/],
      ['plain.log.gz', gzipSync('INFO 05-12 07:59:00 [loggers.py:1] Engine 000: Avg prompt throughput: 1.0 tokens/s, Avg generation throughput: 2.0 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 1.0%\n'), 'plain.log', 'ok'],
    ];
    const paths = files.map(([name, bytes]) => {
      const p = join(t.dir, name);
      writeFileSync(p, bytes);
      return p;
    });
    const r = await importFiles(t.store, paths);
    const by = new Map(r.sources.map((s) => [s.path, s]));
    for (const [name, , path, said] of files) {
      const s = by.get(path);
      assert.ok(s, `${name}: no source named ${path} among ${[...by.keys()].join(', ')}`);
      if (said === 'ok') assert.equal(s.status, 'ok', name);
      else {
        assert.equal(s.status, 'failed', name);
        assert.match(s.error ?? '', said, name);
      }
    }
  } finally {
    t.dispose();
  }
});

test('an archive three levels down reaches the importers unopened and fails saying it is nested too deep', async () => {
  const t = tempStore();
  try {
    const innermost = makeZip([{ name: 'deep.log', data: Buffer.from('deep\n') }]);
    const inner = makeZip([{ name: 'nested.zip', data: innermost, method: 0 }]);
    const outer = join(t.dir, 'collect.zip');
    writeFileSync(outer, makeZip([{ name: 'more.zip', data: inner, method: 0 }]));
    const bundle = await openBundle([outer]);
    try {
      const r = await importBundle(t.store, bundle);
      const s = r.sources.find((x) => x.path === 'more.zip/nested.zip');
      assert.equal(s?.status, 'failed', JSON.stringify(r.sources));
      assert.match(s?.error ?? '', /archive nested deeper than Quadscope expands/);
    } finally {
      await bundle.close();
    }
  } finally {
    t.dispose();
  }
});
