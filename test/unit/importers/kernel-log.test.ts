import { test } from 'node:test';
import assert from 'node:assert/strict';
import { corpusFile, skipUnlessCorpus } from '../../helpers/corpus';
import { kernelLogImporter, parseXid } from '../../../electron/engine/importers/kernel-log';
import { events, runImporter, values } from './run-importer';

const XID = 'xid_logs/nvrm_xid_lines_collected.log';
const MTIME = Date.UTC(2026, 11, 2, 14, 23);

test('every Xid line of the corpus: codes, bus ids, pids, names, classes', { skip: skipUnlessCorpus(XID) }, async () => {
  const r = await runImporter(kernelLogImporter, { file: corpusFile(XID)!, mtimeMs: MTIME });
  try {
    assert.equal(r.error, null);
    const x = events(r, 'xid');
    assert.deepEqual(
      x.map((e) => e.attrs.code),
      [63, 79, 13, 13, 13, 109, 149, 145, 94, 31, 31, 31, 13, 32],
    );
    assert.deepEqual(x[0].attrs, { code: 63, bus_id: '0000:10:1c', pid: 1896, name: null, meaning: 'ECC page retirement or row-remap recording event', class: 'hardware', message: 'Row Remapper: New row marked for remapping, reset gpu to activate.' });
    assert.equal(x[1].attrs.class, 'hardware');
    assert.equal(x[1].severity, 'critical');
    assert.equal(x[2].attrs.pid, null); // pid='<unknown>'
    assert.equal(x[2].attrs.class, 'software');
    assert.equal(x[5].attrs.name, 'pt_main_thread');
    assert.equal(x[5].attrs.pid, 1797828);
    assert.equal(x[8].attrs.name, 'python3');
    // dmesg -T (local, UTC by default) and syslog without a year (the mtime's year)
    assert.equal(x[2].ts_ms, Date.UTC(2024, 7, 30, 11, 43, 9));
    assert.equal(x[1].ts_ms, Date.UTC(2026, 4, 18, 19, 2, 39));
    // relative dmesg: boot = mtime − the last seconds value; the "GPU at" line names the UUID
    assert.equal(x[13].ts_ms, MTIME);
    assert.equal(x[12].ts_ms, Math.round(MTIME - (31609.615516 - 31609.615230) * 1000));
    assert.equal(x[11].attrs.gpu_uuid, 'GPU-8a47641b-dff6-f09f-618c-c3eb58fb430d');
    assert.match(r.warnings.join('\n'), /seconds since boot/);
    assert.deepEqual(events(r, 'gpu_fallen_off').map((e) => e.attrs.bus_id), ['0000:2b:00']);
    // The store keeps one value per series and millisecond: the three Xid 13 of 11:43:09 are one sample.
    assert.deepEqual(values(r, 'gpu.xid', { bus_id: '0000:cb:00' }), [
      { ts: Date.UTC(2024, 7, 30, 11, 43, 9), v: 13 },
      { ts: Date.UTC(2024, 7, 30, 11, 43, 14), v: 109 },
    ]);
    assert.equal(events(r).length, 19);
  } finally {
    r.dispose();
  }
});

test('Xid message variants', () => {
  assert.deepEqual(parseXid('NVRM: Xid (PCI:0000:3b:00.0): 79, pid=123, name=python, GPU has fallen off the bus.'), { code: 79, bus_id: '0000:3b:00', pid: 123, name: 'python', message: 'GPU has fallen off the bus.' });
  assert.deepEqual(parseXid('NVRM: Xid (0000:3B:00): 48, An uncorrectable double bit error'), { code: 48, bus_id: '0000:3b:00', pid: null, name: null, message: 'An uncorrectable double bit error' });
  assert.equal(parseXid('NVRM: GPU at PCI:0000:01:00: GPU-8a47'), null);
});

test('journald ISO lines and the kernel OOM killer', async () => {
  const text = [
    '2026-03-01T10:00:00+0100 node1 kernel: Out of memory: Killed process 4242 (python3) total-vm:100kB, anon-rss:2048kB, file-rss:0kB',
    '2026-03-01T10:00:01+0100 node1 kernel: NVRM: Xid (PCI:0000:3b:00): 95, pid=4243, name=python3, Uncontained ECC error',
    'a continuation line',
  ].join('\n');
  const r = await runImporter(kernelLogImporter, { text });
  try {
    assert.deepEqual(events(r, 'host_oom_kill').map((e) => [e.ts_ms, e.attrs]), [[Date.UTC(2026, 2, 1, 9), { pid: 4242, name: 'python3', anon_rss_bytes: 2048 * 1024 }]]);
    assert.deepEqual(events(r, 'xid').map((e) => [e.attrs.code, e.attrs.class, e.severity]), [[95, 'hardware', 'critical']]);
    assert.equal(events(r, 'log')[0].ts_ms, Date.UTC(2026, 2, 1, 9, 0, 1));
  } finally {
    r.dispose();
  }
  assert.equal(kernelLogImporter.detect(Buffer.from(text), 'kern.log'), 0.9);
  assert.equal(kernelLogImporter.detect(Buffer.from('INFO 05-19 10:13:11 [x.py:1] hi\n'), 'x'), 0);
});
