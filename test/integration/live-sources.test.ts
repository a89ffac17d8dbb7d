// Issue 16 §7: a live recording keeps one source row per endpoint however many scrapes and flushes it
// makes, its rows adding up across batches, also when an endpoint fails for a while and comes back: two
// real HTTP metrics servers on 127.0.0.1, one that errors, recorded through LiveSession into a real
// SQLite store with a flush every 50 ms.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LiveSession } from '../../node/engine/live/live-session';
import { tempLiveStore } from '../unit/live/temp-store';
import { startMetricsServer } from '../unit/live/metrics-server';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('one source row per live endpoint, whatever the number of scrapes and flushes', async () => {
  const a = await startMetricsServer();
  const b = await startMetricsServer();
  const ts = tempLiveStore();
  const session = new LiveSession(ts.store, undefined, { flushMs: 50 });
  try {
    const endpoints = [a.url('/metrics'), b.url('/metrics'), a.url('/error')];
    const started = session.start({ name: 'sources', nvml: false, endpoints: endpoints.map((url) => ({ url, interval_s: 0.05 })) });
    await sleep(1500);
    const done = await session.stop();
    const id = started.incident_id!;
    const scrapes = done.endpoints.map((e) => e.scrapes);
    assert.ok(scrapes.every((n) => n >= 5), `scrapes per endpoint: ${scrapes.join(', ')}`);
    const sources = ts.store.listSources(id);
    assert.deepEqual(sources.map((s) => s.path).sort(), endpoints.slice(0, 2).map((u) => `live:scrape:${u}`).sort(), 'one row per endpoint that delivered; none per scrape or flush');
    assert.ok(sources.every((s) => s.format === 'live-scrape' && s.status === 'ok'));
    // The rows of every batch add up in the one row: all that was recorded.
    assert.ok(done.samples > 0);
    assert.equal(sources.reduce((n, s) => n + s.rows, 0), done.samples);
    // Every series hangs off its endpoint's one source.
    assert.deepEqual([...new Set(ts.store.seriesCatalog(id).map((s) => s.source_path))].sort(), sources.map((s) => s.path).sort());
  } finally {
    await session.stop();
    await a.close();
    await b.close();
    ts.dispose();
  }
});
