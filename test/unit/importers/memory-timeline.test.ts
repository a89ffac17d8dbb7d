import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
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
