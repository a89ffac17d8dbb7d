// A short fuzz run over every importer: mutated real files, and every structure-aware mutation of each
// format family at least once (giant tokens, unclosed structures, deep nesting, memo fan-out, huge
// integers, label cardinality), must import cleanly or fail with a clear error naming the file; never
// crash, hang, break the database, leave a partial source — nor take time, memory, rows or database
// bytes out of proportion to the input (each input has a budget growing with its size). The long run
// is `npm run fuzz -- --inputs 100000`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fuzz } from '../fuzz/harness';
import { fuzzSeeds } from '../fuzz/seeds';
import { MUTATIONS } from '../fuzz/mutate';

test('fuzz (short run): no crash, no hang, no partial source, no work out of proportion, database intact', { timeout: 900_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'qs-fuzz-seeds-'));
  try {
    const seeds = fuzzSeeds(dir);
    const r = await fuzz({ seeds, perFile: 2, seed: 1, timeoutMs: 60_000, heapMb: 768, cover: true });
    const f = r.figures;
    console.log(
      `fuzz: ${r.inputs} inputs from ${seeds.length} seed files; source outcomes ${JSON.stringify(r.statuses)}; worst ${f.worst_ms.value} ms (${f.worst_ms.mutation}), ` +
        `${f.worst_rss_mb.value} MiB (${f.worst_rss_mb.mutation}), ${f.worst_rows_per_byte.value} rows/byte (${f.worst_rows_per_byte.mutation})`,
    );
    assert.ok(r.inputs >= seeds.length * 2 + MUTATIONS.length);
    assert.deepEqual(r.findings, []);
    assert.equal(f.crashes + f.hangs + f.over_budget, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
