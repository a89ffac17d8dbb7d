// The scraper against a real HTTP server on 127.0.0.1: exposition text recorded into a live incident
// with the scrape times, counters advancing; redirects, timeouts, oversized bodies and bad pages fail
// the scrape with a clear message and leave nothing behind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { corpusFile, skipUnlessCorpus } from '../../helpers/corpus';
import { tempLiveStore as tempStore } from './temp-store';
import { EndpointScraper, checkEndpointUrl, fetchExposition, recordScrape } from '../../../node/engine/live/scrape';
import { LiveRecorder } from '../../../node/engine/live/recorder';
import { startMetricsServer } from './metrics-server';

const CORPUS = 'vllm_prometheus/datadog_vllm_metrics_fixture.txt';

function seriesValues(store: import('../../../node/engine/store/store').Store, incidentId: number, name: string, metric: string) {
  const s = store.listSeries(incidentId, name).find((x) => x.name === name && x.labels.metric === metric);
  assert.ok(s, `series ${name} {metric=${metric}} recorded`);
  const { t, v } = store.samples(s.id);
  return { series: s, t: Array.from(t), v: Array.from(v) };
}

test('generated text: each scrape lands at its scrape time, counters advancing, histograms kept', async () => {
  const srv = await startMetricsServer();
  const ts = tempStore();
  try {
    const incident = ts.store.createIncident('live', 'live');
    const rec = new LiveRecorder(ts.store, incident);
    let clock = 1_800_000_000_000;
    const scraper = new EndpointScraper({ url: srv.url('/metrics'), interval_s: 1 }, rec, { now: () => (clock += 5000) });
    for (let i = 0; i < 3; i++) await scraper.scrapeOnce();
    rec.close();
    const times = [1_800_000_005_000, 1_800_000_010_000, 1_800_000_015_000];
    const prompt = seriesValues(ts.store, incident, 'tokens.prompt', 'vllm:prompt_tokens_total');
    assert.deepEqual(prompt.t, times);
    assert.deepEqual(prompt.v, [100, 200, 300]);
    assert.equal(prompt.series.kind, 'counter');
    assert.deepEqual(seriesValues(ts.store, incident, 'req.running', 'vllm:num_requests_running').v, [1, 2, 3]);
    const lat = ts.store.listSeries(incident, 'lat.e2e').find((s) => s.kind === 'histogram');
    assert.ok(lat, 'the latency histogram is recorded');
    const snaps = ts.store.histogramSnapshots(lat.id);
    assert.deepEqual(snaps.map((s) => s.t), times);
    assert.deepEqual(snaps[2].counts, [3, 6]);
    const h = scraper.status();
    assert.deepEqual(h, { url: srv.url('/metrics'), ok: true, last_scrape_ms: 1_800_000_015_000, last_error: null, scrapes: 3, failures: 0 });
    // One batch = one source of format live-scrape, holding the bytes scraped.
    const sources = ts.store.listSources(incident);
    assert.equal(sources.length, 1);
    assert.equal(sources[0].path, `live:scrape:${srv.url('/metrics')}`);
    assert.equal(sources[0].format, 'live-scrape');
    assert.equal(sources[0].status, 'ok');
  } finally {
    ts.dispose();
    await srv.close();
  }
});

test('the vLLM corpus exposition, scraped three times', { skip: skipUnlessCorpus(CORPUS) }, async () => {
  const srv = await startMetricsServer(corpusFile(CORPUS));
  const ts = tempStore();
  try {
    const incident = ts.store.createIncident('live', 'live');
    const rec = new LiveRecorder(ts.store, incident);
    let clock = 1_700_000_000_000;
    const scraper = new EndpointScraper({ url: srv.url('/corpus') }, rec, { now: () => (clock += 15_000) });
    for (let i = 0; i < 3; i++) {
      await scraper.scrapeOnce();
      rec.flush(); // a batch per scrape here: series must keep one id across batches
    }
    rec.close();
    assert.equal(scraper.status().failures, 0);
    const prompt = seriesValues(ts.store, incident, 'tokens.prompt', 'vllm:prompt_tokens_total');
    assert.deepEqual(prompt.v, [5, 15, 25]);
    assert.deepEqual(prompt.t, [1_700_000_015_000, 1_700_000_030_000, 1_700_000_045_000]);
    assert.deepEqual(prompt.series.labels, { model: 'facebook/opt-125m', metric: 'vllm:prompt_tokens_total' });
    assert.deepEqual(seriesValues(ts.store, incident, 'kv.usage', 'vllm:kv_cache_usage_perc').v, [0, 0, 0]);
    // One source for the endpoint, its rows adding up over the three batches.
    const sources = ts.store.listSources(incident);
    assert.equal(sources.length, 1);
    assert.equal(sources[0].rows, rec.rows());
    const names = ts.store.listSeries(incident).map((s) => `${s.name}${JSON.stringify(s.labels)}`);
    assert.equal(new Set(names).size, names.length, 'no series registered twice across batches');
  } finally {
    ts.dispose();
    await srv.close();
  }
});

test('a redirect is an error, not followed', async () => {
  const srv = await startMetricsServer();
  try {
    await assert.rejects(fetchExposition(srv.url('/redirect')), {
      message: `${srv.url('/redirect')}: HTTP 302: redirects are not followed (to /metrics); scrape that URL instead`,
    });
    assert.equal(srv.hits.get('/metrics'), undefined);
  } finally {
    await srv.close();
  }
});

test('a server that does not answer times out', async () => {
  const srv = await startMetricsServer();
  try {
    const t0 = Date.now();
    await assert.rejects(fetchExposition(srv.url('/never'), { timeoutMs: 300 }), { message: `${srv.url('/never')}: timed out after 0.3 s` });
    assert.ok(Date.now() - t0 < 2000);
  } finally {
    await srv.close();
  }
});

test('bodies over the cap are aborted, declared or not', async () => {
  const srv = await startMetricsServer();
  try {
    await assert.rejects(fetchExposition(srv.url('/huge-declared'), { maxBytes: 16 * 1024 }), /the response \(64\.0 KiB\) is over the 16\.0 KiB cap; scraping aborted/);
    await assert.rejects(fetchExposition(srv.url('/huge-chunked'), { maxBytes: 16 * 1024 }), /the response passed the 16\.0 KiB cap; scraping aborted/);
    const ok = await fetchExposition(srv.url('/huge-chunked'), { maxBytes: 1024 * 1024 });
    assert.equal(ok.length, 20 * 100 * 'vllm:num_requests_waiting{model_name="llama"} 1\n'.length);
  } finally {
    await srv.close();
  }
});

test('error statuses, non-http URLs and pages that are not metrics fail cleanly and record nothing', async () => {
  const srv = await startMetricsServer();
  const ts = tempStore();
  try {
    await assert.rejects(fetchExposition(srv.url('/error')), { message: `${srv.url('/error')}: HTTP 500 Internal Server Error` });
    assert.throws(() => checkEndpointUrl('file:///etc/passwd'), { message: 'file:///etc/passwd: only http and https URLs are scraped (got file:)' });
    assert.throws(() => checkEndpointUrl('localhost:8000/metrics'), /only http and https URLs are scraped \(got localhost:\)/);
    assert.throws(() => checkEndpointUrl('not a url'), /not a URL/);

    const incident = ts.store.createIncident('live', 'live');
    const rec = new LiveRecorder(ts.store, incident);
    const scraper = new EndpointScraper({ url: srv.url('/html') }, rec);
    await scraper.scrapeOnce();
    const h = scraper.status();
    assert.equal(h.ok, false);
    assert.equal(h.failures, 1);
    assert.match(h.last_error ?? '', /^http:\/\/127\.0\.0\.1:\d+\/html: /);
    assert.equal(rec.pending(), 0, 'a failed scrape leaves no rows behind');
    // Rows written before the failure are dropped too: a good scrape then garbage keeps only the good one.
    const stream = rec.stream('live:scrape:test', 'live-scrape');
    await recordScrape(Buffer.from('# TYPE up gauge\nup 1\n'), 1000, 'test', stream, new AbortController().signal);
    const before = stream.pending;
    await assert.rejects(recordScrape(Buffer.from(`up 2\n${'<html>\n'.repeat(200)}`), 2000, 'test', stream, new AbortController().signal));
    assert.equal(stream.pending, before);
  } finally {
    ts.dispose();
    await srv.close();
  }
});

test('start/stop scrape on the interval and stop cancels a scrape in flight', async () => {
  const srv = await startMetricsServer();
  const ts = tempStore();
  try {
    const incident = ts.store.createIncident('live', 'live');
    const rec = new LiveRecorder(ts.store, incident);
    const fast = new EndpointScraper({ url: srv.url('/metrics'), interval_s: 0.05 }, rec);
    const stuck = new EndpointScraper({ url: srv.url('/never'), interval_s: 0.05 }, rec, { timeoutMs: 60_000 });
    fast.start();
    stuck.start();
    await new Promise((r) => setTimeout(r, 400));
    const t0 = Date.now();
    await Promise.all([fast.stop(), stuck.stop()]);
    assert.ok(Date.now() - t0 < 1000, 'stop does not wait for the stuck scrape to time out');
    assert.ok(fast.status().scrapes >= 3, `scraped ${fast.status().scrapes} times`);
    assert.equal(stuck.status().scrapes, 0, 'the cancelled scrape is not counted');
    assert.equal(srv.hits.get('/never'), 1, 'a scrape in flight is not doubled up');
  } finally {
    ts.dispose();
    await srv.close();
  }
});

test('a gzip\'d response is read; a bogus gzip or a body without one sample is a failed scrape, not a good one', async () => {
  const srv = await startMetricsServer();
  const ts = tempStore();
  try {
    const rec = new LiveRecorder(ts.store, ts.store.createIncident('live', 'live'));
    const scrape = async (path: string) => {
      const s = new EndpointScraper({ url: srv.url(path) }, rec);
      await s.scrapeOnce();
      return s.status();
    };
    const gz = await scrape('/gzip');
    assert.equal(gz.ok, true, gz.last_error ?? '');
    assert.ok(rec.pending() > 0);
    const bogus = await scrape('/gzip-bogus');
    assert.equal(bogus.ok, false);
    assert.match(bogus.last_error ?? '', /the gzip'd response is corrupt/);
    const binary = await scrape('/binary');
    assert.equal(binary.ok, false);
    assert.match(binary.last_error ?? '', /no samples in the response \(\d+ lines? not understood/);
    assert.equal(binary.failures, 1);
  } finally {
    ts.dispose();
    await srv.close();
  }
});
