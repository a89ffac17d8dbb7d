import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cleanText, formatBytes, formatConditionValue, formatDuration, formatNumber, formatPercent, formatRatio, formatTime, formatTimeAt, formatValue } from '../../../common/format';

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
