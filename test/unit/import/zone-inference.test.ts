// The zone of a file's zone-less local times, inferred from the bundle's absolute times: the rule alone,
// then through the pipeline on real files (an epoch-stamped metrics file beside nvidia-smi's local-time CSV).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inferZoneMinutes, zoneText } from '../../../node/engine/import/zone-inference';
import { importFiles, tempStore } from '../../helpers/import-file';

const H = 3_600_000;
const M = 60_000;
const T0 = Date.parse('2025-01-20T13:18:35Z');
const abs = { start_ms: T0, end_ms: T0 + 11 * H };

test('a file whose two ends sit one quarter-hour shift from the bundle\'s was printed in that zone', () => {
  assert.equal(inferZoneMinutes({ start_ms: T0 + 5.5 * H + 2 * M, end_ms: T0 + 16.5 * H - 1 * M }, abs), 330);
  assert.equal(inferZoneMinutes({ start_ms: T0 - 7 * H, end_ms: T0 + 4 * H + 3 * M }, abs), -420);
  assert.equal(inferZoneMinutes({ start_ms: T0 + 5.75 * H, end_ms: T0 + 16.75 * H }, abs), 345, "Nepal's +05:45");
});

test('anything less than both ends lining up keeps UTC', () => {
  assert.equal(inferZoneMinutes({ start_ms: T0 + 1 * M, end_ms: abs.end_ms - 2 * M }, abs), null, 'already in line');
  // A log that began at the engine's start, hours before the metrics, and ends with them.
  assert.equal(inferZoneMinutes({ start_ms: T0 - 9 * H, end_ms: abs.end_ms + 1 * M }, abs), null);
  // Shifted at one end only (it began with the bundle but ran on after it).
  assert.equal(inferZoneMinutes({ start_ms: T0, end_ms: abs.end_ms + 2 * H }, abs), null);
  // Both ends displaced, but by 2 h and 2 h 20 min: no single zone.
  assert.equal(inferZoneMinutes({ start_ms: T0 + 2 * H, end_ms: abs.end_ms + 2 * H + 20 * M }, abs), null);
  // One snapshot: no two ends.
  assert.equal(inferZoneMinutes({ start_ms: T0 + 8 * H, end_ms: T0 + 8 * H }, abs), null);
  // Beyond the zones in use (UTC−12 to UTC+14): a file from another day, not another zone.
  assert.equal(inferZoneMinutes({ start_ms: T0 + 24 * H, end_ms: abs.end_ms + 24 * H }, abs), null);
  assert.equal(inferZoneMinutes({ start_ms: T0 - 13 * H, end_ms: abs.end_ms - 13 * H }, abs), null);
});

test('zone text', () => {
  assert.equal(zoneText(330), 'UTC+05:30');
  assert.equal(zoneText(-420), 'UTC−07:00');
  assert.equal(zoneText(0), 'UTC+00:00');
});

/** 40 minutes of a vLLM gauge, epoch-stamped, and nvidia-smi's CSV from `smiFromMs` to the same end, in `zoneMin`'s local time. */
function files(dir: string, zoneMin: number, smiFromMs = T0): string[] {
  const smiToMs = T0 + 40 * M;
  const prom = ['# TYPE vllm:num_requests_running gauge'];
  for (let t = T0; t <= T0 + 40 * M; t += 15_000) prom.push(`vllm:num_requests_running{engine="0",model_name="m"} 4 ${t}`);
  const smi = ['timestamp, index, memory.used [MiB], memory.total [MiB], utilization.gpu [%]'];
  const p2 = (n: number) => String(n).padStart(2, '0');
  for (let t = smiFromMs; t <= smiToMs; t += 10_000) {
    const d = new Date(t + zoneMin * M);
    const wall = `${d.getUTCFullYear()}/${p2(d.getUTCMonth() + 1)}/${p2(d.getUTCDate())} ${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())}.000`;
    smi.push(`${wall}, 0, 40000 MiB, 81559 MiB, 97 %`);
  }
  const a = join(dir, 'metrics.prom');
  const b = join(dir, 'smi.csv');
  writeFileSync(a, prom.join('\n') + '\n');
  writeFileSync(b, smi.join('\n') + '\n');
  return [b, a];
}

async function smiStart(zoneMin: number, options = {}, smiFromMs = T0): Promise<{ start: number | null; warnings: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'qs-zone-'));
  const t = tempStore();
  try {
    const r = await importFiles(t.store, files(dir, zoneMin, smiFromMs), { options });
    // Read after the metrics, though given first.
    assert.deepEqual(r.sources.map((s) => [s.path, s.status]), [['metrics.prom', 'ok'], ['smi.csv', 'ok']]);
    const used = t.store.listSeries(r.incident_id, 'gpu.mem.used');
    assert.equal(used.length, 1);
    assert.equal(used[0].points, (T0 + 40 * M - smiFromMs) / 10_000 + 1, 'read once: no row twice');
    const src = t.store.listSources(r.incident_id).find((s) => s.path === 'smi.csv')!;
    return { start: used[0].start_ms, warnings: src.warnings };
  } finally {
    t.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}

test('nvidia-smi printed in UTC+05:30 lands beside the metrics, with a warning naming the zone', async () => {
  const { start, warnings } = await smiStart(330);
  assert.equal(start, T0);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /^smi\.csv: its times carry no zone: read in UTC\+05:30, .*5 h 30 min late/);
});

test('a zone west of UTC, and one already UTC, both land beside the metrics; a zone the user gave is kept', async () => {
  assert.equal((await smiStart(-420)).start, T0);
  const utc = await smiStart(0);
  assert.equal(utc.start, T0);
  assert.deepEqual(utc.warnings, []);
  // The user said UTC: the file is read so, even where another zone would line up.
  const told = await smiStart(330, { tzOffsetMinutes: 0 });
  assert.equal(told.start, T0 + 330 * M);
  assert.deepEqual(told.warnings, []);
});

test('a CSV that does not span the metrics\' stretch is left in UTC', async () => {
  // Begun 3 hours before the metrics and ended with them (in UTC+05:30): its ends are displaced by 2 h 30 min
  // and 5 h 30 min, no one zone, so nothing is guessed.
  const early = T0 - 3 * H;
  const r = await smiStart(330, {}, early);
  assert.equal(r.start, early + 330 * M);
  assert.deepEqual(r.warnings, []);
});
