// A short fuzz run over every importer: mutated real files must import cleanly or fail with a clear
// error naming the file; never crash, hang, break the database or leave a partial source. The long
// run is `npm run fuzz`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fuzz } from '../fuzz/harness';
import { fuzzSeeds } from '../fuzz/seeds';

test('fuzz (short run): no crash, no hang, no partial source, database intact', { timeout: 600_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'qs-fuzz-seeds-'));
  try {
    const seeds = fuzzSeeds(dir);
    const r = await fuzz({ seeds, perFile: 3, seed: 1, timeoutMs: 30_000, heapMb: 768 });
    console.log(`fuzz: ${r.inputs} inputs from ${seeds.length} seed files; source outcomes ${JSON.stringify(r.statuses)}`);
    assert.ok(r.inputs >= seeds.length * 3);
    assert.deepEqual(r.findings, []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
