// Wall-clock readings that name no instant are no time: Date.UTC would roll them silently into another.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LogClock, parseIsoZoned, validWallClock } from '../../../node/engine/importers/log-time';
import type { ImportContext } from '../../../node/engine/importers/types';
import { kernelLogImporter } from '../../../node/engine/importers/kernel-log';
import { vllmLogImporter } from '../../../node/engine/importers/vllm-log';
import { events, runImporter, values } from './run-importer';

function clockWith(mtimeMs: number | null): { clock: LogClock; warnings: string[] } {
  const warnings: string[] = [];
  const ctx = { options: {}, mtimeMs, bundleEndMs: null, path: 'x.log', warn: (m: string) => warnings.push(m) } as unknown as ImportContext;
  return { clock: new LogClock(ctx), warnings };
}

test('validWallClock: month lengths, leap years, hours, a leap second', () => {
  assert.equal(validWallClock(2024, 2, 29, 0, 0, 0), true);
  assert.equal(validWallClock(2023, 2, 29, 0, 0, 0), false);
  assert.equal(validWallClock(1900, 2, 29, 0, 0, 0), false);
  assert.equal(validWallClock(2000, 2, 29, 0, 0, 0), true);
  assert.equal(validWallClock(2024, 4, 31, 0, 0, 0), false);
  assert.equal(validWallClock(2024, 13, 1, 0, 0, 0), false);
  assert.equal(validWallClock(2024, 1, 0, 0, 0, 0), false);
  assert.equal(validWallClock(2024, 1, 1, 24, 0, 0), false);
  assert.equal(validWallClock(2024, 1, 1, 23, 60, 0), false);
  assert.equal(validWallClock(2016, 12, 31, 23, 59, 60), true);
});

test('an impossible date is NaN and warned once, naming it and its line; a real one is unchanged', () => {
  const { clock, warnings } = clockWith(null);
  assert.equal(clock.local(2024, 2, 29, 10, 0, 0), Date.UTC(2024, 1, 29, 10));
  assert.ok(Number.isNaN(clock.local(2024, 2, 31, 10, 0, 0, 0, 7)));
  assert.ok(Number.isNaN(clock.local(2024, 6, 1, 25, 0, 0, 0, 9)));
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /"2024-02-31 10:00:00"/);
  assert.ok(Number.isNaN(parseIsoZoned('2024-02-30T00:00:00Z')));
  assert.ok(Number.isNaN(parseIsoZoned('2024-01-01T24:00:00+02:00')));
  assert.equal(parseIsoZoned('2024-02-29T23:00:00-01:00'), Date.UTC(2024, 2, 1, 0));
});

test('a yearless Feb 29 takes the last leap year where the anchor year has none', () => {
  // mtime in March 2025: Feb 29 cannot be 2025's; 2024's is before the mtime.
  const { clock, warnings } = clockWith(Date.UTC(2025, 2, 10));
  assert.equal(clock.yearless(2, 29, 8, 0, 0), Date.UTC(2024, 1, 29, 8));
  assert.equal(clock.yearless(3, 1, 8, 0, 0), Date.UTC(2025, 2, 1, 8));
  assert.deepEqual(warnings, []);
});

test('engine log: a line dated 2024-02-31 takes the time before it, warned with its line (it had been March 2)', async () => {
  const text = [
    'INFO 02-28 10:00:00 [loggers.py:271] Engine 000: Avg prompt throughput: 1.0 tokens/s, Avg generation throughput: 2.0 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 10.0%, Prefix cache hit rate: 0.0%',
    'INFO 02-31 10:00:10 [loggers.py:271] Engine 000: Avg prompt throughput: 1.0 tokens/s, Avg generation throughput: 2.0 tokens/s, Running: 2 reqs, Waiting: 0 reqs, GPU KV cache usage: 20.0%, Prefix cache hit rate: 0.0%',
  ].join('\n');
  const r = await runImporter(vllmLogImporter, { text, name: 'vllm.log', options: { year: 2024 } });
  try {
    assert.equal(r.error, null);
    const ts = values(r, 'req.running').map((s) => s.ts);
    // (Lines within one printed second are spread by the importer: the second line stays in Feb 28's 10:00:00.)
    assert.ok(ts.length === 2 && ts.every((t) => t >= Date.UTC(2024, 1, 28, 10) && t < Date.UTC(2024, 1, 28, 10, 0, 1)), `times ${ts.map((t) => new Date(t).toISOString())}`);
    assert.match(r.warnings.join('\n'), /line 2\): no such date or time "2024-02-31 10:00:10"/);
  } finally {
    r.dispose();
  }
});

test('kernel log: dmesg -T of a day that does not exist is not placed on another', async () => {
  const text = [
    '[Fri Feb 28 10:00:00 2025] NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.',
    '[Sat Feb 29 10:00:05 2025] NVRM: Xid (PCI:0000:3b:00): 48, pid=1234, An uncorrectable double bit error (DBE) has been detected on GPU.',
  ].join('\n');
  const r = await runImporter(kernelLogImporter, { text, name: 'dmesg.log', mtimeMs: Date.UTC(2025, 2, 5) });
  try {
    assert.equal(r.error, null);
    const x = events(r, 'xid');
    assert.deepEqual(x.map((e) => e.attrs.code), [79, 48]);
    assert.equal(x[1].ts_ms, Date.UTC(2025, 1, 28, 10), 'the impossible line takes the time before it, not March 1');
    assert.match(r.warnings.join('\n'), /no such date or time "2025-02-29 10:00:05"/);
  } finally {
    r.dispose();
  }
});
