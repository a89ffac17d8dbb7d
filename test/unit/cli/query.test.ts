// `quadscope query` prints integers exactly: a time in ns is past 2^53, and printed through a double it
// lost its last digits (1687813258562219690 came out as …219800), in text and in --json alike.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../helpers/corpus';
import { importFiles, tempStore } from '../../helpers/import-file';
import { kinetoImporter } from '../../../node/engine/importers/kineto';

test('integers past 2^53 are printed with every digit, in text and JSON', async () => {
  const t = tempStore();
  try {
    // A kernel at an epoch µs with a ns fraction: its start_ns is 1700000000000000123.
    const trace = join(t.dir, 'trace.json');
    writeFileSync(trace, '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1700000000000000.123, "dur": 1, "args": {"device": 0, "stream": 7}}]}');
    const r = await importFiles(t.store, [trace], { importers: [kinetoImporter] });
    assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
    const db = join(t.dir, 'workspace.db');
    const run = (...extra: string[]) => execFileSync(process.execPath, [join(REPO_ROOT, 'bin/quadscope.mjs'), 'query', db, 'SELECT start_ns, 42 AS small, \'x"y\' AS s FROM kernels', ...extra], { encoding: 'utf8' });
    assert.equal(run().split('\n')[1], '1700000000000000123\t42\tx"y');
    assert.deepEqual(run('--json').trim(), '[{"start_ns":1700000000000000123,"small":42,"s":"x\\"y"}]');
  } finally {
    t.dispose();
  }
});

test('a bundle named where the database goes is refused saying how to query it (it was "disk I/O error")', () => {
  const t = tempStore();
  try {
    writeFileSync(join(t.dir, 'vllm.log'), 'INFO 05-12 10:11:12 [api_server.py:1000] Starting vLLM API server\n');
    const r = spawnSync(process.execPath, [join(REPO_ROOT, 'bin/quadscope.mjs'), 'query', t.dir, 'SELECT 1'], { encoding: 'utf8' });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /is not a SQLite database; to query a bundle, import it first: quadscope import/);
    assert.doesNotMatch(r.stderr, /disk I\/O/);
  } finally {
    t.dispose();
  }
});
