import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { corpusFile, skipUnlessCorpus } from '../../helpers/corpus';
import { detectImporter } from '../../../node/engine/importers/registry';
import { kernelLogImporter, parseXid } from '../../../node/engine/importers/kernel-log';
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
  assert.deepEqual(parseXid('NVRM: Xid (PCI:0000:3b:00.0): 79, pid=123, name=python, GPU has fallen off the bus.'), { code: 79, bus_id: '0000:3b:00', pid: 123, name: 'python', message: 'GPU has fallen off the bus.', caused_by: null });
  assert.deepEqual(parseXid('NVRM: Xid (0000:3B:00): 48, An uncorrectable double bit error'), { code: 48, bus_id: '0000:3b:00', pid: null, name: null, message: 'An uncorrectable double bit error', caused_by: null });
  assert.equal(parseXid('kernel: NVRM: Xid (PCI:0000:dc:00): 45, pid=1818990, name=python3, Ch 00000001 caused by previous Xid 149')!.caused_by, 149);
  assert.equal(parseXid('NVRM: GPU at PCI:0000:01:00: GPU-8a47'), null);
  // The Xid is the fault, whatever wrote the address: a domain and bus with the device cut off (a log shipper's
  // or a script's rewrite) still names the code, the address kept as written.
  assert.deepEqual(parseXid('NVRM: Xid (PCI:0000:18:): 120, pid=89610, name=pt_main_thread, GSP task timeout @ pc:0x8eda08c, task: 1'), { code: 120, bus_id: '0000:18:', pid: 89610, name: 'pt_main_thread', message: 'GSP task timeout @ pc:0x8eda08c, task: 1', caused_by: null });
  assert.equal(parseXid('NVRM: Xid (PCI:00000000:18:00.0): 79, GPU has fallen off the bus.')!.bus_id, '00000000:18:00');
});

test("an Xid whose address is cut short is still an Xid, joined to its GPU's uuid by the same address", async () => {
  const text = [
    '[906446.873842] NVRM: GPU at PCI:0000:18:: GPU-d672572b-db72-3c34-e3ee-01b4d9ca1a84',
    '[906447.073843] NVRM: Xid (PCI:0000:18:): 79, GPU has fallen off the bus.',
  ].join('\n') + '\n';
  const r = await runImporter(kernelLogImporter, { text, name: 'dmesg.txt', mtimeMs: MTIME });
  try {
    assert.equal(r.error, null);
    const x = events(r, 'xid');
    assert.equal(x.length, 1);
    assert.equal(x[0].attrs.code, 79);
    assert.equal(x[0].attrs.class, 'hardware');
    assert.equal(x[0].attrs.gpu_uuid, 'GPU-d672572b-db72-3c34-e3ee-01b4d9ca1a84');
  } finally {
    r.dispose();
  }
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
  // A container's memory limit: the cgroup's OOM killer words it in lower case (kernels since 4.19).
  const cgroup = await runImporter(kernelLogImporter, {
    text: 'Dec 11 05:17:51 gpu-node-21 kernel: Memory cgroup out of memory: Killed process 936 (python3) total-vm:72351744kB, anon-rss:57671680kB, file-rss:559104kB, shmem-rss:11264kB, UID:0 pgtables:126976kB oom_score_adj:999',
    mtimeMs: Date.UTC(2026, 11, 12),
  });
  try {
    assert.deepEqual(events(cgroup, 'host_oom_kill').map((e) => e.attrs), [{ pid: 936, name: 'python3', anon_rss_bytes: 57671680 * 1024 }]);
  } finally {
    cgroup.dispose();
  }
  assert.equal(kernelLogImporter.detect(Buffer.from(text), 'kern.log'), 0.9);
  assert.equal(kernelLogImporter.detect(Buffer.from('INFO 05-19 10:13:11 [x.py:1] hi\n'), 'x'), 0);
});

const variant = (name: string) => new URL(`../../samples/variants/${name}`, import.meta.url).pathname;

test('dmesg --decode --time-format=iso: each line at its own time and level (they all took the mtime, unwarned)', async () => {
  const r = await runImporter(kernelLogImporter, { file: variant('dmesg-decode-iso.log'), mtimeMs: Date.UTC(2025, 5, 1) });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(r.warnings, []);
    const xid = events(r, 'xid');
    assert.deepEqual(xid.map((e) => [e.ts_ms, e.attrs.code, e.attrs.pid, e.attrs.bus_id]), [[Date.UTC(2025, 0, 21, 4, 41, 44, 283), 79, 23145, '0000:3b:00']]);
    assert.deepEqual(events(r, 'gpu_fallen_off').map((e) => e.ts_ms), [Date.UTC(2025, 0, 21, 4, 41, 44, 283)]);
    const logs = events(r, 'log');
    assert.deepEqual(
      logs.map((e) => [e.ts_ms, e.severity, e.attrs.level]),
      [
        [Date.UTC(2025, 0, 21, 4, 41, 40, 100), 'warning', 6],
        [Date.UTC(2025, 0, 21, 4, 41, 44, 500), 'info', 5],
      ],
    );
    assert.ok(logs[0].text.startsWith('nvidia-peermem'));
  } finally {
    r.dispose();
  }
});

test('/dev/kmsg records: µs since boot, priorities, continuation lines skipped, the GPU uuid joined', async () => {
  const head = readFileSync(variant('kmsg-records.txt'));
  assert.equal(kernelLogImporter.detect(head, 'kmsg.txt'), 0.9);
  const mtime = Date.UTC(2025, 0, 21, 5, 0, 0);
  const r = await runImporter(kernelLogImporter, { file: variant('kmsg-records.txt'), mtimeMs: mtime });
  try {
    assert.equal(r.error, null);
    const boot = mtime - 1127_000;
    const xid = events(r, 'xid');
    assert.deepEqual(xid.map((e) => [e.ts_ms, e.attrs.code, e.attrs.gpu_uuid, e.line]), [[boot + 1126_630, 48, 'GPU-5e1b3a5c-0000-1111-2222-333344445555', 4]]);
    const logs = events(r, 'log');
    assert.equal(logs.length, 2);
    assert.deepEqual([logs[1].severity, logs[1].text], ['error', 'nvidia 0000:3b:00.0: device reset required']);
    assert.equal(r.all<{ n: number }>("SELECT COUNT(*) n FROM events WHERE text LIKE '%SUBSYSTEM%'")[0].n, 0);
    assert.equal(r.warnings.length, 1);
    assert.match(r.warnings[0], /seconds since boot/);
  } finally {
    r.dispose();
  }
});

test('a pstore dump: detected though its NVRM lines come after 260 boot lines, priorities read', async () => {
  const head = readFileSync(variant('pstore-dmesg-ramoops.txt'));
  assert.equal(kernelLogImporter.detect(head, 'dmesg-ramoops-0'), 0.9);
  assert.equal(detectImporter(head, 'dmesg-ramoops-0')?.format, 'kernel-log');
  const r = await runImporter(kernelLogImporter, { file: variant('pstore-dmesg-ramoops.txt'), mtimeMs: Date.UTC(2025, 0, 21, 5) });
  try {
    assert.equal(r.error, null);
    const xid = events(r, 'xid');
    assert.deepEqual(xid.map((e) => [e.attrs.code, e.severity, e.line]), [[95, 'critical', 262]]);
    const panic = events(r, 'log').find((e) => e.text.startsWith('Kernel panic'))!;
    assert.equal(panic.severity, 'critical');
    assert.equal(panic.ts_ms - xid[0].ts_ms, 70);
    assert.equal(events(r, 'log')[0].attrs.pstore, true);
  } finally {
    r.dispose();
  }
});

test('a bare number in brackets ([80746], not dmesg seconds) does not make a kernel log', () => {
  const text = '[80746] [rank0]:[E321 02:07:08.408271257 ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught collective operation timeout\n[80747] [rank1]: Traceback (most recent call last):\n';
  assert.equal(kernelLogImporter.detect(Buffer.from(text), 'train.log'), 0);
});

test('RFC 5424 syslog and journalctl short-full at their own times; NVSwitch SXid errors; the three-line "fallen off the bus"', async () => {
  const rfc5424 = [
    '<6>1 2025-02-14T05:03:41.123456+00:00 gpu-node-17 kernel - - - mlx5_core 0000:ab:00.0 mlx5_5: Port: 1 Link ACTIVE',
    '<4>1 2025-02-14T05:03:42.654321+00:00 gpu-node-17 kernel - - [meta sequenceId="7"] NVRM: Xid (PCI:0000:2b:00): 79, pid=2911, name=python3, GPU has fallen off the bus.',
  ].join('\n');
  const shortFull = [
    'Fri 2025-02-14 05:03:42 UTC gpu-node-17 kernel: NVRM: Xid (PCI:0000:2b:00): 79, pid=2911, name=python3, GPU has fallen off the bus.',
    'Fri 2025-02-14 06:03:43 +0100 gpu-node-17 kernel: NVRM: Xid (PCI:0000:2b:00): 48, pid=2911, name=python3, An uncorrectable double bit error (DBE) has been detected.',
  ].join('\n');
  for (const text of [rfc5424, shortFull]) assert.equal(detectImporter(Buffer.from(text), 'kern.log')?.format, 'kernel-log');
  const a = await runImporter(kernelLogImporter, { text: rfc5424, mtimeMs: MTIME });
  const b = await runImporter(kernelLogImporter, { text: shortFull, mtimeMs: MTIME });
  try {
    assert.deepEqual(a.warnings, []);
    assert.deepEqual(events(a).map((e) => [e.ts_ms, e.kind, e.text.slice(0, 9)]), [
      [Date.UTC(2025, 1, 14, 5, 3, 41, 123), 'log', 'mlx5_core'],
      [Date.UTC(2025, 1, 14, 5, 3, 42, 654), 'xid', 'NVRM: Xid'],
    ]);
    // Two Xids on one bus a second apart: both kept (at the mtime, one replaced the other).
    assert.deepEqual(values(b, 'gpu.xid').map((x) => [x.ts, x.v]), [
      [Date.UTC(2025, 1, 14, 5, 3, 42), 79],
      [Date.UTC(2025, 1, 14, 5, 3, 43), 48],
    ]);
  } finally {
    a.dispose();
    b.dispose();
  }
  const nvswitch = [
    'kern  :err   : 2025-01-25T10:34:54,859532+00:00 nvidia-nvswitch1: SXid (PCI:0000:84:00.0): 12028, Non-fatal, Link 32 egress non-posted PRIV error (First)',
    'kern  :err   : 2025-01-25T10:34:54,859540+00:00 nvidia-nvswitch1: SXid (PCI:0000:84:00.0): 12028, Data {0x000001c0, 0x00bd5c8a}',
    'kern  :err   : 2025-01-25T10:34:55,000100+00:00 nvidia-nvswitch3: SXid (PCI:0000:c3:00.0): 20034, Fatal, Link 62 LTSSM Fault Up',
    '[ 1843.308145] NVRM: The NVIDIA GPU 0000:b3:00.0',
    '               NVRM: (PCI ID: 10de:26b5) installed in this system has',
    '               NVRM: fallen off the bus and is not responding to commands.',
  ].join('\n');
  const c = await runImporter(kernelLogImporter, { text: nvswitch, mtimeMs: MTIME });
  try {
    assert.deepEqual(events(c, 'sxid').map((e) => [e.severity, e.attrs.code, e.attrs.bus_id, e.attrs.fatal]), [
      ['warning', 12028, '0000:84:00', false],
      ['critical', 20034, '0000:c3:00', true],
    ]);
    assert.deepEqual(events(c, 'gpu_fallen_off').map((e) => [e.severity, e.attrs.bus_id]), [['critical', '0000:b3:00']]);
  } finally {
    c.dispose();
  }
});

test("review: an SXid's detail lines (Severity … Engine instance …, Data {…}) are not second SXids", async () => {
  const text = [
    '[ 1200.000001] nvidia-nvswitch3: SXid (PCI:0000:c3:00.0): 20034, Fatal, Link 62 LTSSM Fault Up',
    '[ 1200.000002] nvidia-nvswitch3: SXid (PCI:0000:c3:00.0): 20034, Severity 5 Engine instance 62 Sub-engine instance 00',
    '[ 1200.000003] nvidia-nvswitch3: SXid (PCI:0000:c3:00.0): 20034, Data {0x00000000, 0x00000001}',
  ].join('\n');
  const r = await runImporter(kernelLogImporter, { text, mtimeMs: MTIME });
  try {
    assert.deepEqual(events(r, 'sxid').map((e) => [e.attrs.code, e.attrs.fatal]), [[20034, true]]);
  } finally {
    r.dispose();
  }
});

test("SXids: a verdict line is the error, its switch's detail lines after it are not; a detail line alone is the error, its verdict unknown", async () => {
  const text = [
    '[6781753.400584] nvidia-nvswitch1: SXid (PCI:0000:06:00.0): 20034, Fatal, Link 48 LTSSM Fault Up',
    '[6781753.400600] nvidia-nvswitch1: SXid (PCI:0000:06:00.0): 20034, Severity 1 Engine instance 48 Sub-engine instance 00',
    '[6781753.400700] nvidia-nvswitch1: SXid (PCI:0000:06:00.0): 20034, Data {0x10000000, 0x10000000}',
    '[6781754.000000] nvidia-nvswitch2: SXid (PCI:0000:84:00.0): 12028, Data {0x000001c0, 0x00bd5c8a}',
  ].join('\n');
  const r = await runImporter(kernelLogImporter, { text, mtimeMs: MTIME });
  try {
    assert.deepEqual(events(r, 'sxid').map((e) => [e.line, e.attrs.bus_id, e.attrs.code, e.attrs.fatal, e.severity]), [
      [1, '0000:06:00', 20034, true, 'critical'],
      [4, '0000:84:00', 12028, null, 'error'],
    ]);
    assert.equal(events(r, 'log').length, 2);
  } finally {
    r.dispose();
  }
});

test("a burst of Xids in one ms keeps the hardware one in gpu.xid; the OOM killer's RHEL 6 wording, a comm in parentheses, anon-rss with commas", async () => {
  const text = [
    '[Mon Mar  3 10:00:00 2025] NVRM: Xid (PCI:0000:3b:00): 62, pid=1, name=python3, Internal micro-controller halt',
    '[Mon Mar  3 10:00:00 2025] NVRM: Xid (PCI:0000:3b:00): 45, pid=1, name=python3, Ch 00000010',
    '[Mon Mar  3 10:00:01 2025] Out of memory: Killed process 123, UID 48, (httpd).',
    '[Mon Mar  3 10:00:02 2025] Out of memory: Killed process 77 ((resolved)) total-vm:1kB, anon-rss:153,700,88kB, file-rss:0kB',
  ].join('\n');
  const r = await runImporter(kernelLogImporter, { text, mtimeMs: MTIME });
  try {
    assert.deepEqual(values(r, 'gpu.xid', { bus_id: '0000:3b:00' }), [{ ts: Date.UTC(2025, 2, 3, 10), v: 62 }]);
    assert.equal(events(r, 'xid').length, 2, 'both Xids stay events');
    assert.deepEqual(events(r, 'host_oom_kill').map((e) => e.attrs), [
      { pid: 123, name: 'httpd', anon_rss_bytes: null },
      { pid: 77, name: '(resolved)', anon_rss_bytes: 15370088 * 1024 },
    ]);
  } finally {
    r.dispose();
  }
});

test("Xids of one ms that rank alike keep the first (a double-bit ECC error before the page retirement it set off); a later one of a higher class replaces it", async () => {
  const text = [
    'Dec  2 11:38:47 worker4 kernel: [  219.470994] NVRM: Xid (PCI:0000:3b:00): 48, pid=1, name=python3, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 1, subpartition 0.',
    'Dec  2 11:38:47 worker4 kernel: [  219.471050] NVRM: Xid (PCI:0000:3b:00): 64, pid=1, name=python3, Dynamic Page Retirement: Page failed to retire.',
    'Dec  2 11:40:00 worker4 kernel: [  292.000000] NVRM: Xid (PCI:0000:3b:00): 45, pid=1, name=python3, Ch 00000010',
    'Dec  2 11:40:00 worker4 kernel: [  292.000100] NVRM: Xid (PCI:0000:3b:00): 79, pid=1, name=python3, GPU has fallen off the bus.',
  ].join('\n');
  const r = await runImporter(kernelLogImporter, { text, mtimeMs: MTIME, name: 'syslog' });
  try {
    assert.deepEqual(values(r, 'gpu.xid', { bus_id: '0000:3b:00' }).map((s) => s.v), [48, 79]);
    assert.equal(events(r, 'xid').length, 4, 'every Xid stays an event');
  } finally {
    r.dispose();
  }
});

test("review: an older kernel's two-line OOM kill (verdict, then `Killed process`) is one kill; a `Killed process` line alone is a kill", async () => {
  const text = [
    '[Mon Mar  3 10:00:00 2025] Out of memory: Kill process 2574 (httpd) score 105 or sacrifice child',
    '[Mon Mar  3 10:00:00 2025] Killed process 2574, UID 48, (httpd) total-vm:1548120kB, anon-rss:524288kB, file-rss:0kB',
    '[Mon Mar  3 10:05:00 2025] Killed process 3100 (python3) total-vm:81234567kB, anon-rss:60000000kB, file-rss:0kB',
  ].join('\n');
  const r = await runImporter(kernelLogImporter, { text, mtimeMs: MTIME });
  try {
    assert.deepEqual(events(r, 'host_oom_kill').map((e) => [e.attrs.pid, e.attrs.name]), [
      [2574, 'httpd'],
      [3100, 'python3'],
    ]);
  } finally {
    r.dispose();
  }
});

test("boot-relative dmesg saved with the bundle is placed from its modification time; one whose modification time is a copy's, from the bundle's end", async () => {
  const text = '[ 1000.000000] NVRM: Xid (PCI:0000:3b:00): 79, pid=123, GPU has fallen off the bus.\n[ 1060.500000] nvidia-modeset: ERROR: GPU:0: Idling display engine timed out\n';
  const bundleEnd = Date.UTC(2025, 7, 26, 14, 21, 32);
  // Saved a minute after the metrics ended: the modification time is the save's.
  const saved = await runImporter(kernelLogImporter, { text, mtimeMs: bundleEnd + 60_000, bundleEndMs: bundleEnd });
  try {
    assert.equal(events(saved, 'xid')[0].ts_ms, bundleEnd + 60_000 - 60_500);
    assert.match(saved.warnings.join('\n'), /the file's modification time minus 1060\.5 s/);
  } finally {
    saved.dispose();
  }
  // Unpacked fifteen months later: the bundle's end stands for the save, and the warning says why.
  const copied = await runImporter(kernelLogImporter, { text, mtimeMs: Date.UTC(2026, 11, 7), bundleEndMs: bundleEnd });
  try {
    assert.equal(events(copied, 'xid')[0].ts_ms, bundleEnd - 60_500);
    assert.match(copied.warnings.join('\n'), /end of the bundle's other sources \(2025-08-26T14:21:32\.000Z\) minus 1060\.5 s .*copied since it was saved/);
  } finally {
    copied.dispose();
  }
});
