import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { corpusFile, skipUnlessCorpus } from '../../helpers/corpus';
import { importFiles, tempStore } from '../../helpers/import-file';
import { memoryTimelineImporter } from '../../../node/engine/importers/memory-timeline';
import { detectImporter } from '../../../node/engine/importers/registry';
import { storeSql } from '../../helpers/store-sql';

const REL = 'kineto_trace/hta_memory_timeline.raw.gz';

test('corpus memory timeline: live bytes over time match the running sum of the file', { skip: skipUnlessCorpus(REL) }, async () => {
  const raw = gunzipSync(readFileSync(corpusFile(REL)!));
  const rows = JSON.parse(raw.toString()) as [number, number, number, number][];
  const total = rows.reduce((a, r) => a + r[2], 0);
  const peakTs = Math.max(...rows.map((r) => r[0]));
  assert.equal(detectImporter(raw.subarray(0, 65536), 'memory_timeline.raw')?.format, 'torch-memory-timeline');
  const t = tempStore();
  try {
    const r = await importFiles(t.store, [corpusFile(REL)!], { importers: [memoryTimelineImporter] });
    assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
    const last = storeSql(t.store).prepare("SELECT ts_ms, value FROM samples WHERE series_id = (SELECT id FROM series WHERE name = 'torch.allocated') ORDER BY ts_ms DESC LIMIT 1").get() as { ts_ms: number; value: number };
    assert.equal(last.value, total);
    assert.equal(last.ts_ms, Math.round(peakTs / 1e6));
    const cats = storeSql(t.store).prepare("SELECT COUNT(*) FROM series WHERE name = 'torch.category_bytes'").pluck().get();
    assert.equal(cats, new Set(rows.map((r) => r[3])).size);
  } finally {
    t.dispose();
  }
});

test("export_memory_timeline's coalesced form ([times µs, sizes], what any name but *.raw.json.gz gets) is read; a spike inside one ms is kept in both forms", async () => {
  const t0 = 1700000000000000; // µs
  // A 512 MiB temporary allocated and freed within the first ms, then a gradient at the next ms.
  const times = [t0, t0 + 100, t0 + 250, t0 + 1500];
  const row = (temporary: number, gradient: number) => [0, 1048576, 0, 4096, temporary, 0, gradient, 0, 0];
  const coalesced = JSON.stringify([times, [row(0, 0), row(512 * 2 ** 20, 0), row(0, 0), row(0, 2097152)]]);
  assert.equal(detectImporter(Buffer.from(coalesced), 'memory.json')?.format, 'torch-memory-timeline');
  // A head cut inside a long list of times is claimed too.
  assert.equal(memoryTimelineImporter.detect(Buffer.from(`[[${Array.from({ length: 5000 }, (_, i) => t0 + i).join(', ')}`.slice(0, 65536)), 'm.json'), 0.6);
  // The raw form of the same: [ts ns, action, bytes, category].
  const raw = JSON.stringify([
    [-1, 1, 1048576, 0],
    [-1, 1, 4096, 2],
    [(t0 + 100) * 1000, 2, 512 * 2 ** 20, 3],
    [(t0 + 250) * 1000, 4, -512 * 2 ** 20, 3],
    [(t0 + 1500) * 1000, 2, 2097152, 5],
  ]);
  for (const [name, text] of [['memory.json', coalesced], ['memory.raw.json', raw]]) {
    const t = tempStore();
    try {
      const file = join(t.dir, name);
      writeFileSync(file, text);
      const r = await importFiles(t.store, [file], { importers: [memoryTimelineImporter] });
      assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
      const sql = storeSql(t.store);
      const series = (n: string, labels: string) => sql.prepare('SELECT ts_ms, value FROM samples WHERE series_id = (SELECT id FROM series WHERE name = ? AND labels_json = ?) ORDER BY ts_ms').all(n, labels) as { ts_ms: number; value: number }[];
      const ms = t0 / 1000;
      assert.deepEqual(series('torch.allocated', '{"from":"memory_timeline"}'), [
        { ts_ms: ms, value: 1048576 + 4096 + 512 * 2 ** 20 },
        { ts_ms: ms + 2, value: 1048576 + 4096 + 2097152 },
      ], name);
      assert.deepEqual(series('torch.category_bytes', '{"category":"temporary"}').map((x) => x.value), [512 * 2 ** 20, 0], name);
    } finally {
      t.dispose();
    }
  }
});
