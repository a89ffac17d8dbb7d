import { test } from 'node:test';
import assert from 'node:assert/strict';
import { scanChromeTrace, ScanError, type ScanItem } from '../../../node/engine/importers/json-event-scanner';

/** Feeds `text` in chunks of `size` bytes. */
async function* chunked(text: string, size: number): AsyncGenerator<Buffer> {
  const b = Buffer.from(text);
  for (let i = 0; i < b.length; i += size) yield b.subarray(i, i + size);
}

async function scan(text: string, size: number): Promise<ScanItem[]> {
  const out: ScanItem[] = [];
  for await (const it of scanChromeTrace(chunked(text, size))) out.push(it);
  return out;
}

const events = Array.from({ length: 300 }, (_, i) => ({ ph: 'X', name: `op "${i}"\n{x}`, ts: 1e15 + i, dur: 2, args: { n: i, list: [i, { k: '}' }] } }));
const lines = `{"schemaVersion":1,"traceEvents":[\n${events.map((e) => JSON.stringify(e)).join(',\n')}\n],"traceName":"t"}`;

test('one event per line, in any chunk size: every event once, in order, each batch offset at its first event', async () => {
  for (const size of [7, 100, 1000, 1 << 16]) {
    const items = await scan(lines, size);
    const got = items.flatMap((it) => (it.kind === 'events' ? it.events : []));
    assert.deepEqual(got, events, `chunks of ${size}`);
    for (const it of items) {
      if (it.kind !== 'events') continue;
      assert.equal(lines[it.offset], '{', `chunks of ${size}: batch offset ${it.offset}`);
      assert.deepEqual(JSON.parse(lines.slice(it.offset, lines.indexOf('\n', it.offset)).replace(/,$/, '')), it.events[0]);
    }
    assert.deepEqual(items.filter((it) => it.kind === 'key').map((it) => (it.kind === 'key' ? [it.key, it.value] : [])), [['schemaVersion', 1], ['traceName', 't']]);
  }
});

test('pretty-printed events and a leading comma read as the byte scanner reads them', async () => {
  const pretty = `{"traceEvents": [\n,${events.slice(0, 20).map((e) => JSON.stringify(e, null, 2)).join(',\n')}\n]}`;
  const items = await scan(pretty, 333);
  assert.deepEqual(items.flatMap((it) => (it.kind === 'events' ? it.events : [])), events.slice(0, 20));
});

test('a non-object among line-separated events is still an error at its offset', async () => {
  const bad = `{"traceEvents":[\n${events.slice(0, 50).map((e) => JSON.stringify(e)).join(',\n')},\n42,\n{"ph":"X"}\n]}`;
  await assert.rejects(scan(bad, 4096), (e: unknown) => e instanceof ScanError && e.offset === bad.indexOf('\n42,') + 1 && /expected an event object/.test(e.message));
});

/** Kineto's own layout: an event over several indented lines, args one a line. */
const kinetoLayout = (evs: object[]) =>
  `{\n  "schemaVersion": 1,\n  "traceEvents": [\n${evs.map((e) => `  {\n    ${Object.entries(e).map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`).join(',\n    ')}\n  }`).join(',\n')}\n  ],\n  "traceName": "t"\n}`;

test("Kineto's own layout (events over several lines), in any chunk size: every event once, in order, each batch offset at its first event", async () => {
  const text = kinetoLayout(events);
  for (const size of [7, 100, 1000, 4096, 1 << 16]) {
    const items = await scan(text, size);
    assert.deepEqual(items.flatMap((it) => (it.kind === 'events' ? it.events : [])), events, `chunks of ${size}`);
    for (const it of items) if (it.kind === 'events') assert.equal(text[it.offset], '{', `chunks of ${size}: batch offset ${it.offset}`);
  }
});

test('a nested object that starts a line (a cut the fast path misses) reads as the byte scanner reads it, and so do the events after it', async () => {
  // Each pretty-printed event has "{" at a line start inside its args: every chunk's last such line may be one.
  const mixed = `{"traceEvents": [\n${events.slice(0, 40).map((e, i) => (i % 10 === 3 ? JSON.stringify(e, null, 2) : JSON.stringify(e))).join(',\n')}\n]}`;
  for (const size of [64, 500, 4096]) {
    const items = await scan(mixed, size);
    assert.deepEqual(items.flatMap((it) => (it.kind === 'events' ? it.events : [])), events.slice(0, 40), `chunks of ${size}`);
  }
});

test("a malformed event in Kineto's own layout is an error at its offset", async () => {
  const good = kinetoLayout(events.slice(0, 100));
  const at = good.indexOf('  {', good.indexOf('"traceEvents"') + 2000);
  const bad = `${good.slice(0, at)}  {\n    "ph": "X",\n    "ts": 1x\n  },\n${good.slice(at)}`;
  await assert.rejects(scan(bad, 1024), (e: unknown) => e instanceof ScanError && e.offset === at + 2 && /malformed trace event/.test(e.message));
});
