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
