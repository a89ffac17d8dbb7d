import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bytesTicks, cleanText, formatBytes, formatConditionValue, formatDuration, formatNumber, formatPercent, formatRatio, formatTicks, formatTime, formatTimeAt, formatValue, groupDigits } from '../../../common/format';

test('bytes: binary units, three significant figures, never 0.00 of a big unit', () => {
  assert.equal(formatBytes(0), '0 B');
  assert.equal(formatBytes(1023), '1023 B');
  assert.equal(formatBytes(1536), '1.50 KiB');
  assert.equal(formatBytes(80 * 2 ** 30), '80.0 GiB');
  assert.equal(formatBytes(1003000000), '957 MiB');
  assert.equal(formatBytes(1024 * 1024 - 1), '1.00 MiB');
  assert.equal(formatBytes(-3 * 2 ** 20), '−3.00 MiB');
  assert.equal(formatBytes(Infinity), '—');
  assert.equal(formatBytes(1e308), '—');
});

test('durations round before they split: never "1 min 60 s"', () => {
  assert.equal(formatDuration(119_600), '2 min 0 s');
  assert.equal(formatDuration(245_000), '4 min 5 s');
  assert.equal(formatDuration(59_970), '1 min 0 s');
  assert.equal(formatDuration(4250), '4.25 s');
  assert.equal(formatDuration(12_500), '12.5 s');
  assert.equal(formatDuration(250), '250 ms');
  assert.equal(formatDuration(0.5), '500 µs');
  assert.equal(formatDuration(3_599_700), '1 h 0 min');
  assert.equal(formatDuration(26 * 3_600_000), '1 d 2 h');
  assert.equal(formatDuration(200_000, { compact: true }), '3m20s');
  assert.equal(formatDuration(Infinity), '—');
});

test('times are UTC with the zone said; offsets from the incident start', () => {
  const t = Date.UTC(2026, 2, 14, 9, 14, 22);
  assert.equal(formatTime(t), '2026-03-14 09:14:22 UTC');
  assert.equal(formatTime(t + 12), '2026-03-14 09:14:22.012 UTC');
  assert.equal(formatTimeAt(t, t - 245_000), '2026-03-14 09:14:22 UTC (T+4 min 5 s)');
  assert.equal(formatTime(null), '—');
});

test('no ∞, NaN or 1e+308 reaches the text', () => {
  for (const v of [Infinity, -Infinity, NaN, 1e308]) {
    for (const s of [formatNumber(v), formatPercent(v), formatValue(v, 'seconds'), formatConditionValue(v)]) assert.doesNotMatch(s, /∞|NaN|e\+/, s);
  }
  assert.equal(formatRatio(Infinity), '— (baseline 0)');
  assert.equal(formatRatio(2.345), '×2.35');
  assert.equal(cleanText('itl99 ×Infinity, e2e 1e+308, kv 2.5e+3'), 'itl99 × — (baseline 0), e2e —, kv 2.5e+3');
});

test('condition values: bytes where the condition speaks of bytes, instants for epoch times, yes/no', () => {
  assert.equal(formatConditionValue(1003000000, 'resv − alloc ≥ 1.00 GiB'), '957 MiB');
  assert.equal(formatConditionValue(Date.UTC(2026, 2, 14, 9, 0, 0), 'ITL change-point'), '2026-03-14 09:00:00 UTC');
  assert.equal(formatConditionValue(true), 'yes');
  assert.equal(formatConditionValue(null), 'no data');
  assert.equal(formatConditionValue(0.01322), '0.0132');
  assert.equal(formatConditionValue(12345), '12,345');
});

// The one set of formatters (issue 14): the workstation, the report, the CLI and the engine's messages all
// print through these, so each edge case reads one way everywhere.
test('edge cases read the same everywhere: 0, 1,536 bytes, 59.6 s, 3,599.5 s, NaN, Infinity', () => {
  assert.equal(formatBytes(0), '0 B');
  assert.equal(formatBytes(1536), '1.50 KiB', 'never "0.00 GiB"');
  assert.equal(formatValue(1536, 'bytes'), '1.50 KiB');
  assert.equal(formatValue(1536, 'bytes/s'), '1.50 KiB/s');
  assert.equal(formatDuration(0), '0 s');
  assert.equal(formatDuration(59_600), '59.6 s');
  assert.equal(formatDuration(59_600, { compact: true }), '59.6s');
  assert.equal(formatValue(59.6, 'seconds'), '59.6 s');
  assert.equal(formatDuration(59_949), '59.9 s');
  assert.equal(formatDuration(59_950), '1 min 0 s', 'what would round to 60.0 s is a minute');
  assert.equal(formatDuration(3_599_500), '1 h 0 min', 'never "59 min 60 s" or "60 min 0 s"');
  assert.equal(formatDuration(3_599_500, { compact: true }), '1h');
  assert.equal(formatNumber(0), '0');
  assert.equal(formatNumber(1536), '1,540');
  assert.equal(formatNumber(999_999), '1M', 'rounded before the unit is chosen: never "1,000k"');
  assert.equal(formatNumber(9_999.5), '10k');
  assert.equal(groupDigits(1536), '1,536');
  assert.equal(groupDigits(-1234567.5), '−1,234,567.5');
  for (const v of [NaN, Infinity, -Infinity]) {
    for (const text of [formatBytes(v), formatDuration(v), formatDuration(v, { compact: true }), formatNumber(v), groupDigits(v), formatPercent(v), formatValue(v, 'bytes'), formatValue(v, 'seconds'), formatValue(v, 'tokens/s')]) {
      assert.equal(text, '—', `${v} → ${text}`);
    }
  }
});

test('axis ticks: one unit for the axis, enough decimals to tell neighbours apart, "—" for a hole', () => {
  assert.deepEqual(formatTicks([0, 1536, 3072], 'bytes'), ['0.0 KiB', '1.5 KiB', '3.0 KiB']);
  assert.deepEqual(bytesTicks([0, 2.5 * 2 ** 30, 5 * 2 ** 30]), ['0.0 GiB', '2.5 GiB', '5.0 GiB'], 'a 2.5 GiB step is not "3 GiB"');
  assert.deepEqual(bytesTicks([71.8 * 2 ** 30, 71.85 * 2 ** 30]), ['71.80 GiB', '71.85 GiB']);
  assert.deepEqual(bytesTicks([0, 2 ** 30, 2 * 2 ** 30]), ['0 GiB', '1 GiB', '2 GiB']);
  assert.deepEqual(formatTicks([0, 59.6, 3599.5], 'seconds'), ['0s', '59.6s', '1h']);
  assert.deepEqual(formatTicks([0.001, 0.25], 'seconds'), ['1ms', '250ms']);
  assert.deepEqual(formatTicks([0, 0.5, 1], 'fraction'), ['0.0%', '50.0%', '100.0%']);
  assert.deepEqual(formatTicks([0, 1536, 20_000], 'tokens/s'), ['0', '1,540', '20k']);
  assert.deepEqual(formatTicks([NaN, Infinity], 'bytes'), ['—', '—']);
  assert.deepEqual(formatTicks([NaN, Infinity], 'seconds'), ['—', '—']);
});
