// The workstation end to end: the real bridge, the built renderer, system Chromium, a bundle in real
// formats. Each step waits on the app's idle signals (data-state), never on sleeps, and saves a
// screenshot of the panel it checked under test-results/screenshots/.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { AppPage } from './helpers/app-page';
import { rendererMissing, startBridge, type Bridge } from './helpers/bridge';
import { launchChromium, newPage } from './helpers/browser';
import { SCRAPES, XID_AT_MS, writeSmallBundle } from './helpers/small-bundle';

const missing = rendererMissing();

describe('workstation (browser mode)', { skip: missing ?? false, concurrency: 1 }, () => {
  let dir: string;
  let files: { name: string; path: string; relative: string }[];
  let bridge: Bridge;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  let offsite: string[];
  let app: AppPage;
  let analyzable = true;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'quadscope-ws-'));
    files = writeSmallBundle(dir);
    bridge = await startBridge();
    browser = await launchChromium();
    ({ page, problems, offsite } = await newPage(browser));
    app = new AppPage(page, bridge.url);
  });

  afterEach(() => assert.deepEqual(offsite, [], 'no request left 127.0.0.1'));

  after(async () => {
    await browser?.close();
    await bridge?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('the empty state explains what a bundle can hold', async () => {
    await app.open();
    const text = await page.textContent('[data-testid="home"]');
    for (const f of ['Prometheus', 'nvidia-smi', 'Nsight Systems', 'Nsight Compute', 'OTLP', 'Zipkin', 'Kubernetes', 'CUDA memory snapshots', 'PyTorch profiler']) assert.ok(text?.includes(f), `empty state names ${f}`);
    await app.screenshot('00-home');
  });

  test('a dropped bundle imports, opens and appears in the library', async () => {
    await app.importByDrop(files.map((f) => ({ name: f.name, text: readFileSync(f.path, 'utf8') })));
    await app.waitForIncident();
    const rows = page.locator('[data-testid="incident-row"]');
    assert.equal(await rows.count(), 1);
    // "2 files (…)" says nothing: the incident is named from its engine, model and time (issue 16 §7).
    assert.match((await rows.first().textContent()) ?? '', /vLLM llama-3-8b · 2026-03-04 12:00–12:09 UTC/);
    const job = page.locator('[data-testid="import-job"]').first();
    assert.equal(await job.getAttribute('data-state'), 'done');
    // 15 samples a scrape: 5 gauges/counters, 8 histogram buckets, _sum and _count.
    const prom = page.locator('[data-testid="sources"] tr', { hasText: 'vllm-metrics.prom' });
    assert.match((await prom.textContent()) ?? '', new RegExp(`prometheus-text.*${(SCRAPES * 15).toLocaleString('en-US')}.*ok`));
    const kernel = page.locator('[data-testid="sources"] tr', { hasText: 'dmesg.log' });
    assert.match((await kernel.textContent()) ?? '', /kernel-log/);
    analyzable = (await page.locator('[data-testid="headline"]').count()) > 0;
    await app.screenshot('01-overview');
  });

  test('timeline charts ask the store for no more points than they have pixels', async () => {
    const charts = page.locator('[data-testid="timeline"] .chart-box');
    assert.ok((await charts.count()) >= 4, 'KV, queue, tokens and latency charts');
    for (const id of ['kv', 'queue', 'tokens', 'latency-e2e']) assert.equal(await page.locator(`[data-testid="timeline"] [data-chart="${id}"]`).count(), 1, `chart ${id}`);
    for (let i = 0; i < (await charts.count()); i++) {
      const box = charts.nth(i);
      const width = (await box.locator('.u-over').boundingBox())!.width;
      const points = Number(await box.getAttribute('data-points'));
      assert.ok(points > 0 && points <= Math.ceil(width), `points ${points} ≤ width ${width}`);
    }
    await app.screenshot('02-timeline');
  });

  test('drag zooms every chart to the range; reset shows everything', async () => {
    const before = await page.textContent('[data-testid="visible-range"]');
    await app.dragOnChart(0.4, 0.6, { chart: 'kv' });
    await page.waitForFunction((b) => document.querySelector('[data-testid="visible-range"]')?.textContent !== b, before);
    await app.waitTimelineIdle();
    const zoomed = await page.textContent('[data-testid="visible-range"]');
    assert.match(zoomed ?? '', /\((\d+ min \d+ s|\d+(\.\d+)? s)\)/);
    assert.notEqual(zoomed, before);
    await app.screenshot('03-zoomed');
    await page.click('[data-testid="zoom-reset"]');
    await app.waitTimelineIdle();
    assert.equal(await page.textContent('[data-testid="visible-range"]'), before);
  });

  test('logs: full-text search finds the Xid and a row moves the cursor to it', async () => {
    await app.tab('logs');
    await page.keyboard.press('Escape');
    await page.locator('body').press('/');
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'log-search');
    await page.keyboard.type('Xid');
    await page.waitForFunction(() => document.querySelector('[data-testid="log-count"]')?.textContent?.trim() === '1 of 1');
    await page.locator('.log-table tbody tr').first().click();
    assert.equal(await app.cursorMs(), XID_AT_MS);
    await app.screenshot('04-logs');
  });

  test('the diagnosis ranks causes and an evidence link moves the cursor', async (t) => {
    if (!analyzable) {
      const why = await page.textContent('.headline');
      if (/Cannot find module/.test(why ?? '')) return t.skip(`the engine cannot analyse yet: ${why}`);
      assert.fail(`the analysis failed: ${why}`);
    }
    await app.tab('diagnosis');
    await page.waitForSelector('[data-testid="diagnosis-panel"][data-state="ready"]');
    const links = page.locator('[data-testid="evidence-link"]');
    if ((await links.count()) === 0) return t.skip('the diagnosis gave no evidence to follow');
    const link = links.first();
    const start = Number(await link.getAttribute('data-start'));
    await page.locator('.log-table').count();
    await link.click();
    await page.waitForFunction((s) => document.querySelector('[data-testid="cursor-clock"]')?.getAttribute('data-cursor-ms') === String(Math.round(s)), start);
    await app.screenshot('05-diagnosis');
  });

  test('the replay scrubber and play/pause move the cursor through the windows', async (t) => {
    const scrubber = page.locator('[data-testid="replay-scrubber"]');
    if (await scrubber.isDisabled()) return t.skip('no diagnosis windows to replay (the engine cannot analyse yet)');
    const before = await app.cursorMs();
    await scrubber.focus();
    await page.keyboard.press('End');
    const after = await app.waitCursorNot(before);
    assert.ok(after !== before);
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('Home');
    await page.click('[data-testid="replay-toggle"]');
    await page.waitForSelector('.replay[data-playing="true"]');
    await page.click('[data-testid="replay-toggle"]');
    await page.waitForSelector('.replay[data-playing="false"]');
    await app.screenshot('06-replay');
  });

  test('a note drafted by shift+drag is saved and found again after reload', async () => {
    await app.dragOnChart(0.2, 0.3, { shift: true, chart: 'kv' });
    await page.waitForSelector('[data-testid="annotation-dialog"]');
    await page.fill('[data-testid="annotation-text"]', 'surge starts: queue builds');
    await page.click('[data-testid="annotation-dialog"] button[type="submit"]');
    await page.waitForSelector('[data-testid="annotation-dialog"]', { state: 'detached' });
    await page.reload();
    await page.waitForSelector('.app[data-state="idle"]');
    await app.waitForIncident();
    await app.tab('annotations');
    await page.waitForSelector('[data-testid="annotations-panel"][data-state="ready"]');
    const notes = page.locator('[data-testid="annotation"]');
    assert.equal(await notes.count(), 1);
    assert.match((await notes.first().textContent()) ?? '', /surge starts: queue builds.*|.*surge starts: queue builds/);
    await app.screenshot('07-notes');
  });

  test('the SQL console answers the documented views and shows errors', async () => {
    await app.tab('sql');
    await page.fill('[data-testid="sql-input"]', "SELECT kind, COUNT(*) AS n FROM events WHERE kind = 'xid' GROUP BY kind");
    await page.click('[data-testid="sql-panel"] button.primary');
    await page.waitForSelector('[data-testid="sql-panel"][data-state="ready"]');
    assert.deepEqual(await page.locator('[data-testid="sql-result"] tbody td').allTextContents(), ['xid', '1']);
    await app.screenshot('08-sql');
    await page.fill('[data-testid="sql-input"]', 'SELECT * FROM no_such_view');
    await page.click('[data-testid="sql-panel"] button.primary');
    await page.waitForSelector('[data-testid="sql-panel"][data-state="error"]');
    assert.match((await page.textContent('[data-testid="sql-error"]')) ?? '', /no_such_view/);
  });

  test('every detail panel renders without errors', async () => {
    for (const tab of ['kv', 'memory', 'traces', 'kernels']) {
      await app.tab(tab);
      await page.waitForSelector(`.tab-body .panel`);
      await app.screenshot(`09-${tab}`);
    }
  });

  test('files picked through the input import as a second incident that can be renamed and deleted', async () => {
    await page.click('.brand');
    await page.waitForSelector('[data-testid="home"]');
    await app.importByInput([files[0].path]);
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="incident-row"]').length === 2);
    await app.waitForIncident();
    const id = await page.locator('[data-testid="incident-row"]').filter({ has: page.locator('.incident-name', { hasText: /^vllm-metrics\.prom$/ }) }).getAttribute('data-id');
    const row = page.locator(`[data-testid="incident-row"][data-id="${id}"]`);
    await row.getByRole('button', { name: /^Rename/ }).click();
    await row.getByLabel('Incident name').fill('surge, metrics only');
    await row.getByRole('button', { name: 'Save' }).click();
    await page.waitForSelector('[data-testid="incident-row"]:has-text("surge, metrics only")');
    await app.screenshot('10-library');
    const renamed = page.locator('[data-testid="incident-row"]', { hasText: 'surge, metrics only' });
    await renamed.getByRole('button', { name: /^Delete/ }).click();
    await renamed.getByRole('button', { name: 'Delete for good' }).click();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="incident-row"]').length === 1);
  });

  test('the theme toggle is remembered; ? opens the help and Escape closes it', async () => {
    const before = await page.getAttribute('html', 'data-theme');
    await page.click('[data-testid="theme-toggle"]');
    const flipped = before === 'dark' ? 'light' : 'dark';
    assert.equal(await page.getAttribute('html', 'data-theme'), flipped);
    await page.reload();
    await page.waitForSelector('.app[data-state="idle"]');
    assert.equal(await page.getAttribute('html', 'data-theme'), flipped);
    await page.locator('[data-testid="incident-row"] .incident-open').first().click();
    await app.waitForIncident();
    await app.screenshot(`11-incident-${flipped}`);
    await page.locator('body').press('?');
    await page.waitForSelector('[data-testid="help"]');
    await page.keyboard.press('Escape');
    await page.waitForSelector('[data-testid="help"]', { state: 'detached' });
  });

  test('every control of the incident view is reachable by Tab, named, and shows a focus ring', async () => {
    await app.tab('overview');
    await page.locator('body').click({ position: { x: 700, y: 5 } });
    const seen: { what: string; name: string; ring: boolean }[] = [];
    for (let i = 0; i < 60; i++) {
      await page.keyboard.press('Tab');
      const f = await page.evaluate(() => {
        const el = document.activeElement as HTMLElement | null;
        if (!el || el === document.body) return null;
        const labelledBy = (el.getAttribute('aria-labelledby') ?? '')
          .split(/\s+/)
          .map((id) => document.getElementById(id)?.textContent ?? '')
          .join(' ');
        const labels = (el as HTMLInputElement).labels;
        const name = (el.getAttribute('aria-label') || labelledBy || (labels?.length ? labels[0].textContent : '') || el.textContent || el.title || '').trim();
        const css = getComputedStyle(el);
        const ring = (css.outlineStyle !== 'none' && parseFloat(css.outlineWidth) > 0) || el.matches('.splitter:focus-visible');
        return { what: `${el.tagName.toLowerCase()}${el.getAttribute('role') ? `[role=${el.getAttribute('role')}]` : ''}${el.dataset.testid ? `#${el.dataset.testid}` : ''}`, name, ring };
      });
      if (f) seen.push(f);
    }
    for (const f of seen) {
      assert.ok(f.name.length > 0, `${f.what} has an accessible name`);
      assert.ok(f.ring, `${f.what} "${f.name}" shows a focus ring`);
    }
    const names = seen.map((f) => f.what);
    for (const want of ['button#theme-toggle', 'button[role=tab]#tab-overview', 'button#replay-toggle', 'input#replay-scrubber', 'button#export-report', 'div[role=separator]']) assert.ok(names.includes(want), `Tab reaches ${want}: ${names.join(', ')}`);
    assert.ok(seen.some((f) => f.what === 'div' && /drag to zoom/.test(f.name)), 'Tab reaches a chart');
  });

  test('no page errors, console errors or CSP violations', () => {
    assert.deepEqual(problems, []);
  });
});

if (missing) test('workstation e2e', { skip: missing }, () => {});
