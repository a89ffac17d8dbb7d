// The Chrome-trace scanner on hostile shapes: an event that never closes is read in linear time and
// refused at the cap with its offset; deep nesting is refused by depth, not by a stack overflow; long
// but legal events still read whole in any chunking.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_DEPTH, ScanError, scanChromeTrace, type ScanItem } from '../../../node/engine/importers/json-event-scanner';

async function collect(src: AsyncIterable<Buffer>, opts = {}): Promise<ScanItem[]> {
  const out: ScanItem[] = [];
  for await (const it of scanChromeTrace(src, opts)) out.push(it);
  return out;
}

async function* chunked(b: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let i = 0; i < b.length; i += size) yield b.subarray(i, i + size);
}

test('an unclosed 128 MiB event: linear time, refused at the 64 MiB cap naming where it opened', async () => {
  const head = Buffer.from('{"schemaVersion":1,"traceEvents":[{"ph":"X","name":"');
  const piece = Buffer.alloc(64 * 1024, 'x');
  async function* src(): AsyncGenerator<Buffer> {
    yield head;
    for (let i = 0; i < 2048; i++) yield piece;
  }
  // A linear floor measured in the same run on the same machine (a loaded 2-core box runs everything
  // slower alike): copying every chunk once into one buffer.
  const f0 = performance.now();
  const all: Buffer[] = [];
  for await (const b of src()) all.push(b);
  Buffer.concat(all).indexOf(10);
  const floor = performance.now() - f0;
  const t0 = performance.now();
  // Concatenating the open event to every chunk (the old scanner) copied ~1,000 times that: 35 s here.
  await assert.rejects(collect(src()), (e: unknown) => e instanceof ScanError && e.offset === head.indexOf('{"ph"') && /a trace event longer than 64 MiB is still open/.test(e.message));
  const ms = performance.now() - t0;
  assert.ok(ms < 50 * floor + 1000, `took ${ms.toFixed(0)} ms against a ${floor.toFixed(0)} ms copy of the input`);
});

test('under the cap, a long event with newlines inside still reads whole, one line at a time too', async () => {
  const big = { ph: 'X', name: 'n\n'.repeat(200_000), ts: 1, dur: 2, args: { s: 'q'.repeat(300_000) } };
  const small = (i: number) => ({ ph: 'X', name: `k${i}`, ts: i, dur: 1 });
  const text = `{"traceEvents":[\n${JSON.stringify(small(0))},\n${JSON.stringify(big)},\n${JSON.stringify(small(1))}\n]}`;
  for (const size of [1000, 65536, 1 << 20]) {
    const items = await collect(chunked(Buffer.from(text), size));
    const events = items.flatMap((it) => (it.kind === 'events' ? it.events : []));
    assert.deepEqual(events, [small(0), big, small(1)], `chunks of ${size}`);
  }
  // A smaller cap refuses the same event.
  await assert.rejects(collect(chunked(Buffer.from(text), 4096), { maxOpenBytes: 100_000 }), /longer than 0\.095\d* MiB is still open/);
});

test('an open top-level value is capped too', async () => {
  const text = Buffer.concat([Buffer.from('{"deviceProperties":['), Buffer.alloc(300_000, '1,'.charCodeAt(0))]);
  await assert.rejects(collect(chunked(text, 4096), { maxOpenBytes: 100_000 }), (e: unknown) => e instanceof ScanError && e.key === 'deviceProperties' && e.offset === 20);
});

test('100 k levels of nesting in an event are refused by depth at their byte, not by a stack overflow', async () => {
  const deep = `{"traceEvents":[{"ph":"X","args":${'['.repeat(100_000)}${']'.repeat(100_000)}}]}`;
  await assert.rejects(collect(chunked(Buffer.from(deep), 65536)), (e: unknown) => e instanceof ScanError && /nested deeper than 512 levels/.test(e.message) && e.offset === deep.indexOf('"args":') + 7 + MAX_DEPTH - 1);
  // Depth that real traces have reads fine.
  const ok = `{"traceEvents":[{"ph":"X","args":${'['.repeat(100)}${']'.repeat(100)}}]}`;
  assert.equal((await collect(chunked(Buffer.from(ok), 7))).flatMap((it) => (it.kind === 'events' ? it.events : [])).length, 1);
});
