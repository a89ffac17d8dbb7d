// A zone the bundle states (timedatectl, a manifest, /etc/timezone) or found for another of its files, tried on a
// file whose zone-less times, read as UTC, fall outside the bundle's absolute times: the rules alone, then
// through the pipeline on real files (epoch-stamped metrics beside a vLLM log begun at the engine's start).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseZoneValue, statedZone, zoneOffsetAt } from '../../../node/engine/import/zone-statement';
import { zoneFromCandidates } from '../../../node/engine/import/zone-inference';
import { importFiles, tempStore } from '../../helpers/import-file';

const H = 3_600_000;
const M = 60_000;
const T0 = Date.parse('2025-08-26T12:21:36Z');

test('a stated zone is read from timedatectl, a manifest line, TZ= or a copy of /etc/timezone', () => {
  assert.deepEqual(statedZone('      Local time: Tue 2025-08-26 20:23:35 CST\n       Time zone: Asia/Shanghai (CST, +0800)\n', 'timedatectl.txt'), { name: 'Asia/Shanghai' });
  assert.deepEqual(statedZone('hosts: gpu-1\ntimezone: America/New_York (EDT, -0400)\n', 'collect-info.txt'), { name: 'America/New_York' });
  assert.deepEqual(statedZone('PATH=/usr/bin\nTZ="Asia/Kolkata"\n', 'env.txt'), { name: 'Asia/Kolkata' });
  assert.deepEqual(statedZone('Europe/Berlin\n', 'timezone'), { name: 'Europe/Berlin' });
  // An offset where no zone name is given or the name is unknown; UTC's words.
  assert.deepEqual(parseZoneValue('UTC+05:30'), { minutes: 330 });
  assert.deepEqual(parseZoneValue('Mars/Olympus (MST, −0700)'), { minutes: -420 });
  assert.deepEqual(parseZoneValue('Etc/UTC (UTC, +0000)'), { name: 'Etc/UTC' });
  assert.deepEqual(parseZoneValue('UTC'), { minutes: 0 });
  // Nothing that names a zone.
  assert.equal(statedZone('timezone: unknown\nthe time zone was set by hand\n', 'notes.txt'), null);
  assert.equal(statedZone('Europe/Berlin\n', 'hosts'), null);
});

test("an IANA zone's offset is the day's: daylight saving moves it", () => {
  assert.equal(zoneOffsetAt({ name: 'America/New_York' }, Date.parse('2025-01-15T12:00:00Z')), -300);
  assert.equal(zoneOffsetAt({ name: 'America/New_York' }, Date.parse('2025-07-15T12:00:00Z')), -240);
  assert.equal(zoneOffsetAt({ name: 'Asia/Kolkata' }, T0), 330);
  assert.equal(zoneOffsetAt({ name: 'UTC' }, T0), 0);
  assert.equal(zoneOffsetAt({ minutes: -420 }, T0), -420);
});

test('a candidate zone moves only a file that read as UTC falls outside the absolute times', () => {
  const abs = { start_ms: T0, end_ms: T0 + 2 * H };
  // A log begun at the engine's start 40 min before the metrics, ending with them, printed in UTC+08:00.
  const local = { start_ms: T0 - 40 * M + 8 * H, end_ms: T0 + 2 * H + 8 * H };
  assert.equal(zoneFromCandidates(local, abs, [0, -240, 480]), 480, 'the first candidate that fits');
  // The same log printed in UTC (an engine in a container on a host in UTC+08:00): it fits as read.
  assert.equal(zoneFromCandidates({ start_ms: T0 - 40 * M, end_ms: T0 + 2 * H }, abs, [480]), null);
  // A log from another day fits no candidate.
  assert.equal(zoneFromCandidates({ start_ms: local.start_ms + 24 * H, end_ms: local.end_ms + 24 * H }, abs, [480]), null);
  // A single instant is placed as a point.
  assert.equal(zoneFromCandidates({ start_ms: T0 + H + 8 * H, end_ms: T0 + H + 8 * H }, abs, [480]), 480);
  // A day's log beside a day of metrics, printed in UTC−07:00 and begun 10 minutes before them: read as UTC it
  // still overlaps them for 17 hours, but ends 7 hours before them; in the stated zone it overlaps all 24.
  const day = { start_ms: T0, end_ms: T0 + 24 * H };
  assert.equal(zoneFromCandidates({ start_ms: T0 - 10 * M - 7 * H, end_ms: T0 + 24 * H - 7 * H }, day, [-420]), -420);
  // Three days of log beside two hours of metrics, printed in UTC+08:00: both readings overlap the two hours,
  // and only the zone's brings its end to theirs.
  assert.equal(zoneFromCandidates({ start_ms: T0 - 70 * H + 8 * H, end_ms: T0 + 2 * H + 8 * H }, abs, [480]), 480);
  // A log that ends with the metrics as read is left as read, whatever the candidates.
  assert.equal(zoneFromCandidates({ start_ms: T0 - 70 * H, end_ms: T0 + 2 * H }, abs, [480, -420]), null);
});

const p2 = (n: number) => String(n).padStart(2, '0');

/** Two hours of a vLLM gauge, epoch-stamped; a vLLM log from 40 min before them to their end, printed `zoneMin` east of UTC. */
function bundle(dir: string, zoneMin: number, extra: Record<string, string> = {}): string[] {
  const prom = ['# TYPE vllm:num_requests_running gauge'];
  for (let t = T0; t <= T0 + 2 * H; t += 15_000) prom.push(`vllm:num_requests_running{engine="0",model_name="m"} 4 ${t}`);
  const log: string[] = [];
  for (let t = T0 - 40 * M; t <= T0 + 2 * H; t += 10_000) {
    const d = new Date(t + zoneMin * M);
    const wall = `${p2(d.getUTCMonth() + 1)}-${p2(d.getUTCDate())} ${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())}`;
    log.push(`(APIServer pid=1) INFO ${wall} [loggers.py:123] Engine 000: Avg prompt throughput: 75.3 tokens/s, Avg generation throughput: 34.4 tokens/s, Running: 3 reqs, Waiting: 0 reqs, GPU KV cache usage: 33.7%, Prefix cache hit rate: 96.3%`);
  }
  const paths = [join(dir, 'metrics.prom'), join(dir, 'vllm.log')];
  writeFileSync(paths[0], prom.join('\n') + '\n');
  writeFileSync(paths[1], log.join('\n') + '\n');
  for (const [name, text] of Object.entries(extra)) {
    writeFileSync(join(dir, name), text);
    paths.push(join(dir, name));
  }
  return paths;
}

/** Where the log's running count starts, and the log's warnings. */
async function logStart(zoneMin: number, extra: Record<string, string> = {}): Promise<{ start: number | null; warnings: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'qs-zone-stated-'));
  const t = tempStore();
  try {
    const r = await importFiles(t.store, bundle(dir, zoneMin, extra));
    const fromLog = t.store.listSeries(r.incident_id, 'req.running').filter((s) => /log/.test(JSON.stringify(s.labels)));
    assert.equal(fromLog.length, 1, JSON.stringify(t.store.listSeries(r.incident_id, 'req.running')));
    const src = t.store.listSources(r.incident_id).find((s) => s.path === 'vllm.log')!;
    return { start: fromLog[0].start_ms, warnings: src.warnings };
  } finally {
    t.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a log printed in the zone the bundle states lands beside the metrics, the warning naming where the zone was stated', async () => {
  const stated = await logStart(480, { 'collect-info.txt': 'host: gpu-1\ntimezone: Asia/Shanghai (CST, +0800)\n' });
  assert.equal(stated.start, T0 - 40 * M);
  assert.equal(stated.warnings.length, 1);
  assert.match(stated.warnings[0], /read in UTC\+08:00 \(Asia\/Shanghai\), stated in collect-info\.txt, .*8 h late/);
  // Without the statement nothing lines up at both ends (the log began before the metrics): read as UTC, as before.
  assert.equal((await logStart(480)).start, T0 - 40 * M + 8 * H);
  // A manifest that names the engine (claimed by the engine-log reader on that word) states the zone as well.
  const claimed = await logStart(480, { 'collect-info.txt': 'engine: sglang 0.4.9\ntimezone: Asia/Shanghai (CST, +0800)\n' });
  assert.equal(claimed.start, T0 - 40 * M);
  assert.match(claimed.warnings[0], /stated in collect-info\.txt/);
  // A log in UTC on a host whose zone is stated otherwise (an engine in a container) is left as read.
  const container = await logStart(0, { 'collect-info.txt': 'timezone: Asia/Shanghai (CST, +0800)\n' });
  assert.equal(container.start, T0 - 40 * M);
  assert.deepEqual(container.warnings, []);
});

test("a zone found for one file of the bundle (both its ends lined up) is tried on the next file that has none", async () => {
  // nvidia-smi's CSV over the metrics' two hours, printed in UTC+05:30: it lines up at both ends, and the log,
  // begun before the metrics, is read in the same zone.
  const smi = ['timestamp, index, memory.used [MiB], memory.total [MiB], utilization.gpu [%]'];
  for (let t = T0; t <= T0 + 2 * H; t += 10_000) {
    const d = new Date(t + 330 * M);
    smi.push(`${d.getUTCFullYear()}/${p2(d.getUTCMonth() + 1)}/${p2(d.getUTCDate())} ${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())}.000, 0, 40000 MiB, 81559 MiB, 97 %`);
  }
  const r = await logStart(330, { 'smi.csv': smi.join('\n') + '\n' });
  assert.equal(r.start, T0 - 40 * M);
  assert.match(r.warnings[0], /read in UTC\+05:30, found for smi\.csv, .*5 h 30 min late/);
});
