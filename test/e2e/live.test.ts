// The live view end to end: a Prometheus endpoint served by this test on 127.0.0.1 (exposition text that
// changes on every scrape), recording started from the UI's live panel, the recording's incident
// following the newest data, then stopped and found in the library as an ordinary incident.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { AppPage } from './helpers/app-page';
import { rendererMissing, startBridge, type Bridge } from './helpers/bridge';
import { launchChromium, newPage } from './helpers/browser';

const missing = rendererMissing();

/** vLLM-style exposition whose values move on every scrape. */
function exposition(n: number): string {
  const L = 'model_name="live-test"';
  const inBucket = [n * 4, n * 9, n * 10];
  return [
    '# TYPE vllm:num_requests_running gauge',
    `vllm:num_requests_running{${L}} ${10 + (n % 7)}`,
    '# TYPE vllm:kv_cache_usage_perc gauge',
    `vllm:kv_cache_usage_perc{${L}} ${(0.3 + (n % 10) / 20).toFixed(3)}`,
    '# TYPE vllm:generation_tokens_total counter',
    `vllm:generation_tokens_total{${L}} ${n * 500}`,
    '# TYPE vllm:e2e_request_latency_seconds histogram',
    `vllm:e2e_request_latency_seconds_bucket{${L},le="0.5"} ${inBucket[0]}`,
    `vllm:e2e_request_latency_seconds_bucket{${L},le="1"} ${inBucket[1]}`,
    `vllm:e2e_request_latency_seconds_bucket{${L},le="+Inf"} ${inBucket[2]}`,
    `vllm:e2e_request_latency_seconds_sum{${L}} ${n * 6}`,
    `vllm:e2e_request_latency_seconds_count{${L}} ${inBucket[2]}`,
    '',
  ].join('\n');
}

describe('live recording (browser mode)', { skip: missing ?? false, concurrency: 1 }, () => {
  let prom: Server;
  let endpoint: string;
  let scrapes = 0;
  let bridge: Bridge;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  let offsite: string[];
  let app: AppPage;

  before(async () => {
    prom = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
      res.end(exposition(++scrapes));
    });
    await new Promise<void>((r) => prom.listen(0, '127.0.0.1', r));
    endpoint = `http://127.0.0.1:${(prom.address() as AddressInfo).port}/metrics`;
    bridge = await startBridge();
    browser = await launchChromium();
    ({ page, problems, offsite } = await newPage(browser));
    app = new AppPage(page, bridge.url);
  });

  after(async () => {
    await browser?.close();
    await bridge?.close();
    await new Promise((r) => prom?.close(r));
  });

  afterEach(() => assert.deepEqual(offsite, [], 'no request left 127.0.0.1'));

  test('recording started from the live panel follows the newest data, and stops into the library', async () => {
    await app.open('#/live');
    await page.waitForSelector('[data-testid="live-panel"][data-state="ready"]');
    await page.fill('[data-testid="live-panel"] input[placeholder="live recording"]', 'live e2e');
    await page.fill('[data-testid="live-panel"] textarea', endpoint);
    await page.fill('[data-testid="live-panel"] input[type="number"]', '0.5');
    await page.click('[data-testid="live-panel"] button[type="submit"]');
    await page.waitForSelector('[data-testid="live-panel"] button[type="submit"]:has-text("Stop recording")');
    const startedAt = Date.now();
    // Every frame from here on: where the cursor, the visible range and the axis are. (A string: the
    // test's own transpiler would wrap named functions in helpers the page does not have.)
    await page.evaluate(`(() => {
      const log = (window.__axisLog = []);
      const sample = () => {
        const clock = document.querySelector('[data-testid="cursor-clock"]');
        const range = document.querySelector('[data-testid="visible-range"]');
        if (clock && range) {
          const c = clock.getAttribute('data-cursor-ms');
          const d = range.dataset;
          log.push({ cursor: c ? Number(c) : null, start: Number(d.start), end: Number(d.end), fullStart: Number(d.fullStart), fullEnd: Number(d.fullEnd), text: (document.querySelector('.incident-left')?.textContent ?? '') + ' ' + range.textContent });
        }
        requestAnimationFrame(sample);
      };
      requestAnimationFrame(sample);
    })()`);
    await page.click('text=Open the recording');
    await page.waitForSelector('[data-testid="incident-view"]');
    await page.waitForSelector('[data-testid="follow-live"][aria-pressed="true"]');
    // Data appear: the KV chart is drawn with points, and the quantile chart from the histogram.
    await page.waitForSelector('[data-chart="kv"] .chart-box[data-state="ready"]', { timeout: 15_000 });
    await page.waitForSelector('[data-chart="latency-e2e"] .chart-box[data-state="ready"]', { timeout: 15_000 });
    // The overview follows the recording: its span and sample count appear without reopening it.
    await page.waitForFunction(() => /\d+ samples/.test(document.querySelector('[data-testid="overview"]')?.textContent ?? ''), null, { timeout: 10_000 });
    assert.notEqual(await page.textContent('[data-testid="overview-span"]'), 'no data yet');
    const first = await page.textContent('[data-testid="visible-range"]');
    // The visible range slides to now as new scrapes are committed.
    await page.waitForFunction((b) => document.querySelector('[data-testid="visible-range"]')?.textContent !== b, first, { timeout: 10_000 });
    const grown = scrapes;
    assert.ok(grown >= 2, `scraped ${grown} times`);
    // Zooming into the middle leaves the newest data: following stops; the toggle brings it back.
    await page.click('text=Zoom in');
    await page.waitForSelector('[data-testid="follow-live"][aria-pressed="false"]');
    await page.click('[data-testid="follow-live"]');
    await page.waitForSelector('[data-testid="follow-live"][aria-pressed="true"]');
    await app.screenshot('live-01-following');
    // Neither the cursor nor the visible range ever left the recording's span (no jump to 1970).
    const log = await page.evaluate(() => (window as unknown as { __axisLog: { cursor: number | null; start: number; end: number; fullStart: number; fullEnd: number; text: string }[] }).__axisLog);
    assert.ok(log.length > 10, `${log.length} frames sampled`);
    const lo = startedAt - 60_000;
    for (const f of log) {
      assert.ok(f.fullStart >= lo && f.fullEnd >= f.fullStart, `axis ${f.fullStart}–${f.fullEnd} starts at the recording (${lo})`);
      assert.ok(f.start >= f.fullStart && f.end <= f.fullEnd, `visible ${f.start}–${f.end} inside the axis ${f.fullStart}–${f.fullEnd}`);
      if (f.cursor !== null) assert.ok(f.cursor >= f.fullStart && f.cursor <= f.fullEnd, `cursor ${f.cursor} inside ${f.fullStart}–${f.fullEnd}`);
      assert.doesNotMatch(f.text, /1970/, 'no time at the epoch is shown');
    }

    await page.click('button:has-text("Live")');
    await page.click('[data-testid="live-panel"] button[type="submit"]:has-text("Stop recording")');
    await page.waitForSelector('[data-testid="live-panel"] button[type="submit"]:has-text("Start recording")');
    const row = page.locator('[data-testid="incident-row"]', { hasText: 'live e2e' });
    assert.equal(await row.count(), 1);
    await row.locator('.incident-open').click();
    await app.waitForIncident();
    assert.equal(await page.locator('[data-testid="follow-live"]').count(), 0, 'a stopped recording is an ordinary incident');
    const points = Number(await page.getAttribute('[data-chart="kv"] .chart-box', 'data-points'));
    assert.ok(points >= 2, `the KV chart has ${points} points`);
    await app.screenshot('live-02-stopped');
  });

  test('no page errors, console errors or CSP violations', () => {
    assert.deepEqual(problems, []);
  });
});

if (missing) test('live e2e', { skip: missing }, () => {});
