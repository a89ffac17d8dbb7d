// The "Connect to Prometheus" dialog in the real workstation (the bridge, the built renderer, system
// Chromium) against real servers on 127.0.0.1: a pull from Prometheus and from VictoriaMetrics opens
// the new incident; a pull can be cancelled while it runs; a partial answer is shown before the
// incident is opened.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { Store } from '../../node/engine/store/store';
import { AppPage } from '../e2e/helpers/app-page';
import { rendererMissing, startBridge, type Bridge } from '../e2e/helpers/bridge';
import { launchChromium, newPage } from '../e2e/helpers/browser';
import { fleetSeries } from '../helpers/fleet-metrics';
import { startPrometheus, startProxy, startVictoriaMetrics, type Proxy, type RunningServer } from '../helpers/prom-servers';

const T0 = Date.parse('2026-03-14T09:00:00Z');
const missing = rendererMissing();

describe('Connect to Prometheus (browser mode)', { skip: missing ?? false, concurrency: 1, timeout: 240_000 }, () => {
  const series = fleetSeries({ startMs: T0, durationS: 7200, stepS: 15, replicas: 2, gpusPerReplica: 1, digits: 10 });
  let prom: RunningServer;
  let vm: RunningServer;
  let slow: Proxy;
  let failing: Proxy;
  let bridge: Bridge;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  let offsite: string[];
  let app: AppPage;

  before(async () => {
    [prom, vm] = await Promise.all([startPrometheus(series), startVictoriaMetrics(series)]);
    slow = await startProxy(prom.url, (r) => (r.path === '/api/v1/query_range' ? { pass: true, delayMs: 1500 } : { pass: true }));
    failing = await startProxy(prom.url, (r) =>
      r.path === '/api/v1/query_range' && (r.params.get('query') ?? '').startsWith('DCGM_FI_DEV_POWER_USAGE') ? { status: 500, body: '{"status":"error","errorType":"internal","error":"injected"}' } : { pass: true },
    );
    bridge = await startBridge();
    browser = await launchChromium();
    ({ page, problems, offsite } = await newPage(browser));
    app = new AppPage(page, bridge.url);
  });

  after(async () => {
    await browser?.close();
    await bridge?.close();
    await Promise.all([slow?.close(), failing?.close(), prom?.stop(), vm?.stop()]);
  });

  /** Opens the dialog and fills the URL and a from/to range of the test data (in the page's own time zone). */
  async function fill(url: string): Promise<void> {
    await app.open();
    await page.click('[data-testid="connect-prometheus"]');
    await page.waitForSelector('[data-testid="pull-dialog"]');
    await page.fill('[data-testid="pull-url"]', url);
    const local = (ms: number) => page.evaluate((t) => new Date(t - new Date(t).getTimezoneOffset() * 60_000).toISOString().slice(0, 16), ms);
    await page.fill('input[aria-label="from"]', await local(T0));
    await page.fill('input[aria-label="to"]', await local(T0 + 2 * 3600_000));
  }

  const incidents = () => {
    const s = new Store(bridge.dbFile);
    try {
      return s.listIncidents();
    } finally {
      s.close();
    }
  };

  for (const which of ['prometheus', 'victoria-metrics']) {
    test(`${which}: a pull from the dialog opens the new incident`, async () => {
      const before = incidents().length;
      await fill(which === 'prometheus' ? prom.url : vm.url);
      await page.click('[data-testid="pull-start"]');
      await app.waitForIncident();
      const list = incidents();
      assert.equal(list.length, before + 1);
      assert.equal(list[0].source, 'prometheus');
      assert.equal(list[0].start_ms, T0);
      assert.match(page.url(), new RegExp(`incident/${list[0].id}|${list[0].id}`));
      assert.equal(await page.$('[data-testid="pull-dialog"]'), null, 'the dialog closed');
    });
  }

  test('a running pull can be cancelled, and nothing is kept', async () => {
    const before = incidents().length;
    await fill(slow.url);
    await page.click('[data-testid="pull-start"]');
    await page.waitForSelector('[data-testid="pull-progress"][data-state="pulling"]');
    await page.click('[data-testid="pull-cancel"]');
    await page.waitForSelector('text=Cancelled: nothing was kept.');
    assert.equal(incidents().length, before);
    await page.click('[data-testid="pull-dialog"] button:has-text("Close")');
  });

  test('a partial answer is shown with what is missing before the incident opens', async () => {
    await fill(failing.url);
    await page.click('[data-testid="pull-start"]');
    const partial = await page.waitForSelector('[data-testid="pull-partial"]');
    assert.match((await partial.textContent()) ?? '', /Partial answer: 1 request\(s\) failed.*DCGM_FI_DEV_POWER_USAGE.*injected/s);
    await page.click('[data-testid="pull-dialog"] button:has-text("Open the incident")');
    await app.waitForIncident();
    assert.deepEqual(problems, []);
    assert.deepEqual(offsite, []);
  });
});
