// Issue 2's done-criterion: the bridge started as `npm start` starts it in browser mode (startServer,
// then ensureDemoIncident, on a fresh workspace), the demo incident listed and opened with its
// diagnosis, and every main panel in both themes saved under test-results/screenshots/ for review.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startServer, type BridgeServer } from '../../node/bridge/server';
import { DEMO_NAME, ensureDemoIncident } from '../../node/engine/demo';
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
    // The map is split where the diagnosis says its windows were classified (the model's defaults here).
    assert.deepEqual(await page.$eval('.quadrant-map', (e) => [(e as HTMLElement).dataset.thetaR, (e as HTMLElement).dataset.thetaS]), ['0.85', '0.5']);
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

  test('a link copied from the address bar opens the same incident, tab and zoomed range elsewhere', async () => {
    await app.tab('logs');
    await app.dragOnChart(0.5, 0.7, { chart: 'kv' });
    await app.waitTimelineIdle();
    const range = page.locator('[data-testid="visible-range"]');
    const want = [await range.getAttribute('data-start'), await range.getAttribute('data-end')];
    await page.waitForFunction(() => /[?&]from=\d+&to=\d+/.test(location.hash));
    const link = page.url();
    assert.match(link, /#\/incident\/\d+\/logs\?from=\d+&to=\d+$/);
    const other = await newPage(browser);
    try {
      await other.page.goto(link);
      await other.page.waitForSelector('[data-testid="timeline"][data-state="ready"]');
      const r = other.page.locator('[data-testid="visible-range"]');
      assert.deepEqual([await r.getAttribute('data-start'), await r.getAttribute('data-end')].map(Number), want.map((x) => Math.round(Number(x))));
      assert.equal(await other.page.getAttribute('[data-testid="tab-logs"]', 'aria-selected'), 'true');
      assert.deepEqual(other.problems, []);
    } finally {
      await other.page.context().close();
    }
    await page.click('[data-testid="zoom-reset"]');
    await app.waitTimelineIdle();
  });

  test('kernel lanes are named, and hovering a kernel shows its name and duration', async () => {
    await app.tab('kernels');
    await page.waitForSelector('[data-testid="kernels-panel"][data-state="ready"]');
    assert.match((await page.getAttribute('[data-testid="kernel-lanes"]', 'aria-label')) ?? '', /GPU 0 · stream \d+/);
    await page.click('[data-testid="zoom-to-kernels"]');
    await page.waitForSelector('[data-testid="kernels-panel"][data-state="ready"]');
    await app.waitTimelineIdle();
    const lanes = page.locator('[data-testid="kernel-lanes"]');
    await lanes.scrollIntoViewIfNeeded();
    const box = (await lanes.boundingBox())!;
    let tip: string | null = null;
    // Sweep the first GPU lane (below the CPU lanes that launched the kernels) from left to right until a kernel is under the mouse.
    const gpuTop = Number(await lanes.getAttribute('data-gpu-top'));
    for (let i = 0; i < 120 && !tip; i++) {
      await page.mouse.move(box.x + 120 + ((box.width - 124) * i) / 120, box.y + gpuTop + 10);
      if (await page.locator('[data-testid="kernel-tooltip"]').count()) tip = await page.textContent('[data-testid="kernel-tooltip"]');
    }
    assert.ok(tip, 'a tooltip appears over a kernel');
    assert.match(tip, /(ms|µs|s) · GPU 0 · stream \d+/);
    assert.doesNotMatch(tip.split('\n')[0], /^void /);
    await app.screenshot('issue16-kernel-tooltip');
    const fits = await page.$eval('[data-testid="kernel-table"]', (t) => t.scrollWidth <= (t.parentElement as HTMLElement).clientWidth + 1);
    assert.ok(fits, 'the kernel table fits its panel');
    await page.click('[data-testid="zoom-reset"]');
    await app.waitTimelineIdle();
  });

  test('at 1280×720 nothing is cut off: the headline, Export report, every tab, the gauges and the tables', async () => {
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.reload();
    await page.waitForSelector('.app[data-state="idle"]');
    await app.waitForIncident();
    await page.waitForSelector('[data-testid="headline"][data-state="ready"]');
    const inView = async (sel: string) => {
      const b = await page.locator(sel).first().boundingBox();
      assert.ok(b, `${sel} is shown`);
      assert.ok(b.x >= 0 && b.y >= 0 && b.x + b.width <= 1280 + 0.5 && b.y + b.height <= 720 + 0.5, `${sel} lies inside 1280×720: ${JSON.stringify(b)}`);
    };
    for (const sel of ['[data-testid="headline"]', '[data-testid="export-report"]', '[data-testid="export-format"]', '[data-testid="zoom-reset"]', '[data-testid="add-note"]']) await inView(sel);
    for (const tab of ['overview', 'diagnosis', 'logs', 'traces', 'kernels', 'kv', 'memory', 'annotations', 'sql']) await inView(`[data-testid="tab-${tab}"]`);
    const overflowing = await page.$$eval('.incident-left *', (els) => els.filter((e) => e.getBoundingClientRect().right > (document.querySelector('.incident-left') as HTMLElement).getBoundingClientRect().right + 1).map((e) => e.className || e.tagName));
    assert.deepEqual(overflowing, [], 'nothing in the left column runs past its edge');
    for (const [tab, sel] of [
      ['kernels', '[data-testid="kernel-table"]'],
      ['overview', '[data-testid="sources"]'],
      ['diagnosis', '.checked-table'],
    ] as const) {
      await app.tab(tab);
      await page.waitForSelector(sel);
      const fits = await page.$eval(sel, (t) => t.getBoundingClientRect().right <= (document.querySelector('.tab-body') as HTMLElement).getBoundingClientRect().right + 1);
      assert.ok(fits, `${sel} fits the panel at 1280 px`);
      await app.screenshot(`issue16-1280-${tab}`);
    }
    const directions = await page.$$eval('[data-testid^="gauge-"]', (els) => els.map((e) => e.querySelector('meter')?.getAttribute('optimum')));
    assert.deepEqual(directions, ['0', '0', '0', '0'], 'every gauge reads the same way: longer is worse');
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  test('no page errors, console errors or CSP violations', () => {
    assert.deepEqual(problems, []);
  });
});

if (missing) test('demo e2e', { skip: missing }, () => {});
