// The line reader: the same lines as a plain split in any chunking, linear time on a giant line, and a
// giant line cut to the cap with a warning naming its line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lineBatches, linePieces } from '../../../node/engine/importers/line-reader';
import type { Position } from '../../../node/engine/importers/types';
import { rng } from '../../helpers/rng';

async function* chunked(b: Buffer, sizes: () => number): AsyncGenerator<Buffer> {
  for (let i = 0; i < b.length; ) {
    const n = Math.max(1, sizes());
    yield b.subarray(i, i + n);
    i += n;
  }
}

async function read(src: AsyncIterable<Buffer>, opts: { maxLineBytes?: number } = {}) {
  const lines: string[] = [];
  const warnings: { message: string; where?: Position }[] = [];
  for await (const batch of lineBatches(src, { warn: (message, where) => warnings.push({ message, where }) }, opts)) lines.push(...batch);
  return { lines, warnings };
}

test('any chunking gives the lines of a plain split (UTF-8 across chunks, CRLF, no final newline)', async () => {
  const text = ['plain', 'crlf\r', '', 'ünïcödé 雪 🚀', 'x'.repeat(5000), 'last without newline'].join('\n');
  const want = text.split('\n').map((l) => l.replace(/\r$/, ''));
  const r = rng(7);
  for (const max of [1, 3, 64, 4096, 1 << 20]) {
    const { lines, warnings } = await read(chunked(Buffer.from(text), () => 1 + Math.floor(r() * max)));
    assert.deepEqual(lines, want, `chunks up to ${max}`);
    assert.deepEqual(warnings, []);
  }
  assert.deepEqual((await read(chunked(Buffer.from('a\nb\n'), () => 1))).lines, ['a', 'b']);
});

test('a line over the cap keeps its first bytes and warns with its line number, in any chunking', async () => {
  const long = 'L'.repeat(10_000);
  const text = `one\ntwo\n${long}\nfour\n${long}`;
  for (const size of [1, 7, 100, 3000, 50_000]) {
    const { lines, warnings } = await read(chunked(Buffer.from(text), () => size), { maxLineBytes: 1000 });
    assert.deepEqual(lines, ['one', 'two', 'L'.repeat(1000), 'four', 'L'.repeat(1000)], `chunks of ${size}`);
    assert.deepEqual(warnings.map((w) => w.where?.line), [3, 5], `chunks of ${size}`);
    assert.match(warnings[0].message, /line of 9\.77 KiB is longer than 1000 B: only its first 1000 B are read/);
  }
});

test('a 128 MiB line is read in linear time and bounded memory, cut to 1 MiB with a warning', async () => {
  const piece = Buffer.alloc(64 * 1024, 'y');
  async function* src(): AsyncGenerator<Buffer> {
    yield Buffer.from('INFO first line\n');
    for (let i = 0; i < 2048; i++) yield piece;
    yield Buffer.from('\nINFO after\n');
  }
  const rss0 = process.memoryUsage().rss;
  const t0 = performance.now();
  const { lines, warnings } = await read(src());
  const ms = performance.now() - t0;
  // Joining the open line to every chunk (the old reader) took ~30 s and 1.1 GB for this.
  assert.ok(ms < 5000, `took ${ms.toFixed(0)} ms`);
  assert.ok(process.memoryUsage().rss - rss0 < 256 * 2 ** 20, 'memory bounded');
  assert.equal(lines.length, 3);
  assert.equal(lines[1].length, 2 ** 20);
  assert.equal(lines[2], 'INFO after');
  assert.equal(warnings.length, 1);
  assert.equal(warnings[0].where?.line, 2);
  assert.match(warnings[0].message, /line of 128 MiB is longer than 1\.00 MiB/);
});

test('linePieces gives the lines and warnings of lineBatches in any chunking, line cap and text', async () => {
  const r = rng(11);
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)];
  for (let round = 0; round < 200; round++) {
    const lines = Array.from({ length: 1 + Math.floor(r() * 40) }, () =>
      pick(['', 'a', 'crlf\r', 'ünï 雪 🚀', 'x'.repeat(Math.floor(r() * 300)), 'y'.repeat(70_000 + Math.floor(r() * 5)), 'm{a="1"} 2.5 1767225600']),
    );
    const text = Buffer.from(lines.join('\n') + (r() < 0.5 ? '\n' : ''));
    const max = pick([1, 7, 4096, 1 << 16, 1 << 20]);
    const cap = pick([undefined, 100, 70_001]);
    const seed = Math.floor(r() * 1e9);
    const sizes = (s: () => number) => () => 1 + Math.floor(s() * max);
    const want = await read(chunked(text, sizes(rng(seed))), { maxLineBytes: cap });
    const got: string[] = [];
    const warnings: { message: string; where?: Position }[] = [];
    const count = { lines: 0 };
    for await (const batch of linePieces(chunked(text, sizes(rng(seed))), count, { warn: (message, where) => warnings.push({ message, where }) }, { maxLineBytes: cap })) {
      for (const piece of batch) {
        const ls = piece.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
        count.lines += ls.length;
        got.push(...ls);
      }
    }
    assert.deepEqual(got, want.lines, `round ${round}`);
    assert.deepEqual(warnings, want.warnings, `round ${round}`);
  }
});
