// Issue 2's done-criterion: the bridge started as `npm start` starts it in browser mode (startServer,
// then ensureDemoIncident, on a fresh workspace), the demo incident listed and opened with its
// diagnosis, and every main panel in both themes saved under test-results/screenshots/ for review.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startServer, type BridgeServer } from '../../electron/bridge/server';
import { DEMO_NAME, ensureDemoIncident } from '../../electron/engine/demo';
import { AppPage } from './helpers/app-page';
import { RENDERER_DIR, rendererMissing } from './helpers/bridge';
import { launchChromium, newPage } from './helpers/browser';

const missing = rendererMissing();

describe('the demo incident (npm start in browser mode)', { skip: missing ?? false, concurrency: 1 }, () => {
  let dir: string;
  let server: BridgeServer;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  let offsite: string[];
  let app: AppPage;
  let demo: Promise<number | null>;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'quadscope-demo-'));
    server = await startServer({ dbFile: join(dir, 'workspace.db'), port: 0, rendererDir: RENDERER_DIR });
    // As `serve --open-demo`: the page is usable at once, the demo appears when its import is done.
    demo = ensureDemoIncident(server.engine);
    browser = await launchChromium();
    ({ page, problems, offsite } = await newPage(browser));
    app = new AppPage(page, server.url);
  });

  after(async () => {
    await browser?.close();
    await demo?.catch(() => undefined);
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  afterEach(() => assert.deepEqual(offsite, [], 'no request left 127.0.0.1'));

  test('npm start lands on the demo incident, which shows its diagnosis headline', async () => {
    // The URL `serve --open-demo` prints, with no view in it: the page must not stop on an empty library.
    await app.open();
    const id = await demo;
    assert.ok(id !== null, 'the demo bundle is in fixtures/demo');
    await app.waitForIncident();
    const row = page.locator(`[data-testid="incident-row"][data-id="${id}"]`);
    assert.match((await row.textContent()) ?? '', new RegExp(DEMO_NAME.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    assert.equal(await row.locator('.incident-open').getAttribute('aria-current'), 'page');
    assert.match(page.url(), new RegExp(`#/incident/${id}/`));
    await page.waitForSelector('[data-testid="headline"][data-state="ready"]');
    assert.equal(await page.getAttribute('[data-testid="headline"]', 'data-status'), 'explained');
    assert.match((await page.textContent('[data-testid="headline-title"]')) ?? '', /Traffic surge → KV-cache exhaustion/);
    await page.waitForSelector('.quadrant-map[data-state="ready"]');
    await page.waitForSelector('[data-chart="latency-e2e"] .chart-box[data-state="ready"]');
  });

  test('the timeline opens on at most 20 charts, the views that tell LLM-serving causes apart', async () => {
    const charts = page.locator('[data-testid="timeline"] .charts > .chart');
    const n = await charts.count();
    assert.ok(n <= 20 && n >= 12, `${n} charts by default`);
    const titles = (await charts.locator('.chart-title').allTextContents()).join('\n');
    for (const want of [
      /E2E latency P50 \/ P95 \/ P99/,
      /TTFT\) P50 \/ P95 \/ P99/,
      /ITL\) P50 \/ P95 \/ P99/,
      /Queue time P50 \/ P95 \/ P99/,
      /arrivals and finishes/,
      /prompt \(in\) and generation \(out\)/,
      /running \/ waiting/,
      /KV-cache usage/,
      /KV cache per running request/,
      /Prompt and output length/,
      /Preemptions/,
      /Errors and aborted requests/,
      /GPU memory used \(per GPU\)/,
      /SM clock/,
      /GPU power/,
      /GPU temperature/,
    ])
      assert.match(titles, want);
    const errors = await page.locator('[data-chart="errors"] .u-legend .u-series:not(:first-child) .u-label').allTextContents();
    assert.ok(!errors.some((l) => /stop|length|finishes/.test(l)), `errors legend: ${errors.join(' | ')}`);
    assert.doesNotMatch(titles, /_created/);
    await page.locator('[data-testid="timeline"]').screenshot({ path: join('test-results', 'screenshots', 'issue16-demo-timeline.png') });
  });

  test('the other series wait behind a filter box (by name and label)', async () => {
    const before = await page.locator('[data-testid="timeline"] .chart').count();
    await page.fill('[data-testid="series-filter"]', 'mean');
    await page.waitForFunction((b) => document.querySelectorAll('[data-testid="timeline"] .chart').length > b, before);
    await app.waitTimelineIdle();
    const legends = await page.$$eval('[data-testid="other-series"] .chart', (els) => els.flatMap((el) => [...el.querySelectorAll('.u-legend .u-series:not(:first-child) .u-label')].map((l) => l.textContent ?? '')));
    const own = legends.indexOf('lat.prefill mean');
    assert.ok(own >= 0, legends.join(' | '));
    await page.locator('[data-testid="other-series"]').scrollIntoViewIfNeeded();
    await app.screenshot('issue16-demo-filtered');
    await page.fill('[data-testid="series-filter"]', '');
    await page.waitForFunction((b) => document.querySelectorAll('[data-testid="timeline"] .chart').length === b, before);
  });

  test('legend names are unique in every chart', async () => {
    const charts = await page.$$eval('.chart', (els) =>
      els.map((el) => ({ id: el.getAttribute('data-chart') ?? el.getAttribute('aria-label'), names: [...el.querySelectorAll('.u-legend .u-series:not(:first-child) .u-label')].map((l) => l.textContent ?? '') })),
    );
    assert.ok(charts.length >= 4, `${charts.length} charts`);
    for (const c of charts) assert.equal(new Set(c.names).size, c.names.length, `${c.id}: ${c.names.join(' | ')}`);
  });

  for (const theme of ['dark', 'light'] as const) {
    test(`every main panel renders with data in the ${theme} theme`, async () => {
      if ((await page.getAttribute('html', 'data-theme')) !== theme) await page.click('[data-testid="theme-toggle"]');
      assert.equal(await page.getAttribute('html', 'data-theme'), theme);
      await app.waitTimelineIdle();
      await app.tab('overview');
      await page.waitForSelector('[data-testid="overview"]');
      await app.screenshot(`demo-${theme}-overview`);
      await page.locator('[data-testid="timeline"]').screenshot({ path: join('test-results', 'screenshots', `demo-${theme}-timeline.png`) });
      await page.locator('.quadrant-map').screenshot({ path: join('test-results', 'screenshots', `demo-${theme}-quadrant-map.png`) });
      for (const [tab, sel] of [
        ['diagnosis', '[data-testid="diagnosis-panel"][data-state="ready"]'],
        ['logs', '[data-testid="logs-panel"][data-state="ready"]'],
        ['memory', '[data-testid="memory-panel"][data-state="ready"]'],
        ['kv', '[data-testid="kv-panel"]'],
      ] as const) {
        await app.tab(tab);
        await page.waitForSelector(sel);
        await app.waitTimelineIdle();
        await app.screenshot(`demo-${theme}-${tab}`);
      }
    });
  }

  test('no page errors, console errors or CSP violations', () => {
    assert.deepEqual(problems, []);
  });
});

if (missing) test('demo e2e', { skip: missing }, () => {});
