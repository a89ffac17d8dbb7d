// Every scenario bundle through the real bundle opener and importers: each file must import cleanly
// (status ok, rows written) — the generator writes the real formats, so a failure here means either the
// generator or an importer left the real format (see the corpus).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importPaths } from '../../node/engine/import/pipeline';
import { tempStore } from '../helpers/import-file';
import { SCENARIOS, generateScenario } from '../../fixtures/scenarios/index';

const EXPECTED_FORMAT: Record<string, string> = {
  'prometheus/vllm-metrics.prom': 'prometheus-text',
  'prometheus/dcgm-exporter.prom': 'prometheus-text',
  'nvidia-smi/query-gpu.csv': 'nvidia-smi-csv',
  'logs/vllm-server.log': 'vllm-log',
  'logs/kernel-journal.log': 'kernel-log',
  'logs/dmesg.log': 'kernel-log',
  'traces/otel-spans.jsonl': 'otlp-json',
  'profiles/vllm_profile_rank0.pt.trace.json': 'kineto-json',
  'profiles/memory_snapshot.pickle': 'torch-memory-snapshot',
};

test('every scenario bundle imports with every source ok', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'qs-fx-import-'));
  const ts = tempStore();
  try {
    for (const s of SCENARIOS) {
      const truth = generateScenario(s.id, join(dir, s.id), 5);
      const res = await importPaths(ts.store, [join(dir, s.id)]);
      assert.equal(res.sources.length, truth.files.length, `${s.id}: one source per file`);
      for (const src of res.sources) {
        assert.equal(src.status, 'ok', `${s.id}/${src.path}: ${src.status} ${src.error ?? ''}`);
        assert.ok(src.rows > 0, `${s.id}/${src.path}: no rows`);
        const rel = src.path.replace(/\.gz$/, '');
        const expected = Object.entries(EXPECTED_FORMAT).find(([k]) => rel.endsWith(k))?.[1];
        assert.equal(src.format, expected, `${s.id}/${src.path} detected as ${src.format}`);
      }
      // The span set from the rows as they were written is the one the SQL reads back (row-extent.ts).
      const set = ts.store.incidentSpan(res.incident_id);
      ts.store.refreshIncidentSpan(res.incident_id);
      assert.deepEqual(set, ts.store.incidentSpan(res.incident_id), `${s.id}: incident span`);
    }
  } finally {
    ts.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
});
