// Archive entries whose names differ only in case or Unicode normalization: on a case-insensitive disk
// (macOS, Windows) the second would overwrite the first, so each must land in a file of its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openBundle } from '../../../node/engine/bundle/open';
import { makeTar, tempDir } from './fixtures';

test('entries that differ only in case or normalization keep their own bytes and disk files', async (t) => {
  const dir = tempDir(t);
  // Over 64 KiB, so each is written to disk rather than held in memory.
  const big = (c: string) => Buffer.alloc(70_000, c);
  const tarFile = join(dir, 'b.tar');
  writeFileSync(
    tarFile,
    await makeTar([
      { name: 'logs/A.log', data: big('a') },
      { name: 'logs/a.log', data: big('b') },
      { name: 'LOGS/a.log', data: big('c') },
      { name: 'caf\u00e9.log', data: big('d') },
      { name: 'cafe\u0301.log', data: big('e') },
    ]),
  );
  const b = await openBundle([tarFile]);
  t.after(() => b.close());
  assert.deepEqual(b.failures, []);
  const byPath = new Map(b.entries.map((e) => [e.path, e]));
  const expected: [string, string][] = [['logs/A.log', 'a'], ['logs/a.log', 'b'], ['LOGS/a.log', 'c'], ['caf\u00e9.log', 'd'], ['cafe\u0301.log', 'e']];
  const disk = new Set<string>();
  for (const [path, c] of expected) {
    const e = byPath.get(path);
    assert.ok(e, path);
    const file = await e.file();
    assert.equal(readFileSync(file).toString('latin1', 0, 1), c, path);
    disk.add(file.normalize('NFC').toLowerCase());
  }
  assert.equal(disk.size, expected.length, 'no two disk files may collide when case and normalization are folded');
});
