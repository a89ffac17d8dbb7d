// Issue 16 §7: an incident whose file name says nothing ("bundle.tar.gz", "export.zip", a drop of loose
// files) is named from its content — engine, model, where it ran, when — through the real import
// pipeline on a real SQLite file; a name that says something is kept.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { importPaths } from '../../../node/engine/import/pipeline';
import { saysNothing } from '../../../node/engine/import/incident-name';
import { Store } from '../../../node/engine/store/store';
import { kernelLog, promText } from '../../e2e/helpers/small-bundle';

test('which names say nothing', () => {
  for (const n of ['bundle.tar.gz', 'bundle', 'bundle (2).tar.gz', 'export.zip', 'export_2026-03-14.zip', 'logs', 'incident-3', 'support-bundle.tgz', '3 files (vllm-metrics.prom, dmesg.log)', '1f0c2a9be44d7f1a90c2', 'metrics.tar', 'Downloads'])
    assert.equal(saysNothing(n), true, n);
  for (const n of ['vllm-prod-a-oom', 'node-7 2026-03-14 outage', 'demo', 'gpu-node-3.tar.gz', 'leak under load', 'vllm-metrics.prom', 'kv-exhaustion-bundle'])
    assert.equal(saysNothing(n), false, n);
});

test('a generated bundle.tar.gz is named from its engine, model, host and time; a telling name stays', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'qs-name-'));
  const store = new Store(join(dir, 'ws.db'));
  try {
    const root = join(dir, 'bundle');
    mkdirSync(root);
    writeFileSync(join(root, 'vllm-metrics.prom'), promText());
    writeFileSync(join(root, 'dmesg.log'), kernelLog());
    execFileSync('tar', ['czf', join(dir, 'bundle.tar.gz'), '-C', dir, 'bundle']);
    const a = await importPaths(store, [join(dir, 'bundle.tar.gz')]);
    assert.equal(store.getIncident(a.incident_id)!.name, 'vLLM llama-3-8b · 2026-03-04 12:00–12:09 UTC');

    // The UI's name for loose files says nothing either; a model label and a host are named when known.
    writeFileSync(join(root, 'vllm-metrics.prom'), promText().replace(/model_name="llama-3-8b"/g, 'model="meta-llama/Llama-3.1-8B-Instruct",host="gpu-node-3"'));
    const b = await importPaths(store, [root], { name: '2 files (vllm-metrics.prom, dmesg.log)' });
    assert.equal(store.getIncident(b.incident_id)!.name, 'vLLM Llama-3.1-8B-Instruct on gpu-node-3 · 2026-03-04 12:00–12:09 UTC');

    const c = await importPaths(store, [root], { name: 'vllm-prod-a surge' });
    assert.equal(store.getIncident(c.incident_id)!.name, 'vllm-prod-a surge');

    // Nothing to name an incident by (no span): the file's name stays.
    writeFileSync(join(dir, 'notes.txt'), 'nothing Quadscope reads\n');
    const d = await importPaths(store, [join(dir, 'notes.txt')], { name: 'export' });
    assert.equal(store.getIncident(d.incident_id)!.name, 'export');
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
