// A bundle's notes (README.md, a runbook in Markdown) quote the lines they are about: an OOM, an Xid, a
// stats line. Read as a log, a quoted "CUDA out of memory" became an OOM event of the incident and a quoted
// Xid a hardware fault (the corpus's SOURCES.md imported as a vLLM log of 95 events). A Markdown document is
// said to be documentation and skipped; the same lines in a file that is not Markdown are read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { importFiles, tempStore } from '../../helpers/import-file';

const QUOTED = [
  '# Incident 4711: p99 up on the chat pool',
  '',
  'What we saw in the engine log:',
  '',
  '```',
  'INFO 05-12 07:59:00 [loggers.py:1] Engine 000: Avg prompt throughput: 1.0 tokens/s, Avg generation throughput: 2.0 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 1.0%',
  'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.19 GiB of which 1.02 GiB is free.',
  '```',
  '',
  '| host | note |',
  '|---|---|',
  '| gpu-7 | NVRM: Xid (PCI:0000:18:00): 79, pid=1234, GPU has fallen off the bus. |',
  '',
].join('\n');

test('a Markdown document quoting log lines is skipped as documentation; the same lines outside Markdown are read', async () => {
  const t = tempStore();
  try {
    const md = join(t.dir, 'README.md');
    const notes = join(t.dir, 'incident-notes.markdown');
    const log = join(t.dir, 'vllm.log');
    writeFileSync(md, QUOTED);
    writeFileSync(notes, QUOTED);
    writeFileSync(log, QUOTED.split('\n').filter((l) => l.startsWith('INFO') || l.startsWith('torch.')).join('\n') + '\n');
    const r = await importFiles(t.store, [md, notes, log]);
    const by = new Map(r.sources.map((s) => [s.path, s]));
    for (const name of ['README.md', 'incident-notes.markdown']) {
      const s = [...by.values()].find((x) => x.path.endsWith(name));
      assert.equal(s?.status, 'skipped', `${name}: ${JSON.stringify(s)}`);
      assert.match(s?.error ?? '', /documentation/i, name);
    }
    const l = [...by.values()].find((x) => x.path.endsWith('vllm.log'));
    assert.equal(l?.status, 'ok', JSON.stringify(l));
    assert.ok((l?.rows ?? 0) > 0, 'the log is read');
  } finally {
    t.dispose();
  }
});

test("dcgm-exporter's counters file is said to be its configuration, not left as an unknown format", async () => {
  const t = tempStore();
  try {
    const csv = join(t.dir, 'default-counters.csv');
    writeFileSync(csv, ['# Format', '# DCGM FIELD, Prometheus metric type, help message', '', '# Clocks', 'DCGM_FI_DEV_SM_CLOCK,  gauge, SM clock frequency (in MHz).', 'DCGM_FI_DEV_GPU_TEMP,    gauge, GPU temperature (in C).', 'DCGM_FI_DEV_XID_ERRORS,  gauge, Value of the last XID error encountered.', 'DCGM_FI_DRIVER_VERSION,  label, Driver Version', ''].join('\n'));
    const other = join(t.dir, 'notes.csv');
    writeFileSync(other, 'a,b,c\n1,2,3\n');
    const r = await importFiles(t.store, [csv, other]);
    const by = (name: string) => r.sources.find((x) => x.path.endsWith(name));
    assert.equal(by('default-counters.csv')?.status, 'skipped');
    assert.match(by('default-counters.csv')?.error ?? '', /dcgm-exporter counters list/);
    assert.equal(by('notes.csv')?.error, 'not a format Quadscope reads');
  } finally {
    t.dispose();
  }
});
