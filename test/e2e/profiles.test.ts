// Issue 16 §5, kernels and memory worth opening, at 1280×720 in browser mode: on the demo incident the
// Kernels view draws the CPU threads that launched the kernels and an arrow from each launch to its
// kernel (correlation ids), a CPU op's tooltip names the kernel it launched, and "Open range in Perfetto"
// downloads the visible range as Chrome trace JSON named after the incident and the range; on a CUDA
// memory snapshot the Memory view stacks live bytes by allocation site (every record, the leak on top)
// with the leak slope drawn along the ramp. Screenshots: test-results/screenshots/issue16-kernels-*.png,
// issue16-memory-*.png.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startServer, type BridgeServer } from '../../node/bridge/server';
import { ensureDemoIncident } from '../../node/engine/demo';
import { AppPage } from './helpers/app-page';
import { RENDERER_DIR, rendererMissing } from './helpers/bridge';
import { launchChromium, newPage } from './helpers/browser';
import { LEAK_FRAME, writeMemoryBundle } from './helpers/memory-bundle';

const missing = rendererMissing();
const W = 1280;
const H = 720;

describe('kernels and memory at 1280×720 (browser mode)', { skip: missing ?? false, concurrency: 1 }, () => {
  let dir: string;
  let server: BridgeServer;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  let offsite: string[];
  let app: AppPage;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'quadscope-profiles-'));
    server = await startServer({ dbFile: join(dir, 'workspace.db'), port: 0, rendererDir: RENDERER_DIR });
    const id = await ensureDemoIncident(server.engine);
    assert.ok(id !== null, 'the demo bundle is in fixtures/demo');
    browser = await launchChromium();
    ({ page, problems, offsite } = await newPage(browser, { width: W, height: H }));
    app = new AppPage(page, server.url);
    await app.open(`#/incident/${id}/kernels`);
    await app.waitForIncident();
  });

  afterEach(() => assert.deepEqual(offsite, [], 'no request left 127.0.0.1'));

  after(async () => {
    await browser?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const inView = (sel: string) => app.assertInViewport(sel);

  test('the Kernels view draws the launching CPU thread and an arrow from every launch to its kernel', async () => {
    await page.waitForSelector('[data-testid="kernels-panel"][data-state="ready"]');
    await page.click('[data-testid="zoom-to-kernels"]');
    await page.waitForSelector('[data-testid="kernels-panel"][data-state="ready"]');
    await app.waitTimelineIdle();
    const lanes = page.locator('[data-testid="kernel-lanes"]');
    await lanes.scrollIntoViewIfNeeded();
    // The demo's profile: 300 kernels, each launched by a cudaLaunchKernel of one Python thread.
    const summary = (await page.textContent('[data-testid="flow-summary"]')) ?? '';
    assert.match(summary, /CPU → GPU flows: 300\b/);
    assert.equal(await lanes.getAttribute('data-cpu-lanes'), '1');
    await page.waitForFunction(() => Number(document.querySelector('[data-testid="kernel-lanes"]')?.getAttribute('data-flows-drawn')) === 300);
    assert.match((await lanes.getAttribute('aria-label')) ?? '', /launched from 1 CPU threads \(CPU tid \d+\), 300 CPU → GPU flows drawn/);

    // Hover the CPU lane until an op is under the mouse: its tooltip names the kernel it launched.
    const box = (await lanes.boundingBox())!;
    let tip: string | null = null;
    for (let i = 0; i < 160 && !tip; i++) {
      await page.mouse.move(box.x + 120 + ((box.width - 124) * i) / 160, box.y + 5);
      if (await page.locator('[data-testid="cpu-tooltip"]').count()) tip = await page.textContent('[data-testid="cpu-tooltip"]');
    }
    assert.ok(tip, 'a tooltip appears over a CPU op');
    assert.match(tip, /(aten::mm|_C::rms_norm|vllm::unified_attention_with_output|_C::silu_and_mul)/);
    assert.match(tip, /cudaLaunchKernel → .+ on GPU 0 · stream 7, .+ after the launch · correlation \d+/);
    await app.screenshot('issue16-kernels-flows');

    // The arrows can be switched off, and on again.
    await page.locator('[data-testid="flow-summary"] input[type="checkbox"]').uncheck();
    await page.waitForFunction(() => document.querySelector('[data-testid="kernel-lanes"]')?.getAttribute('data-flows-drawn') === '0');
    await page.locator('[data-testid="flow-summary"] input[type="checkbox"]').check();
    await page.waitForFunction(() => document.querySelector('[data-testid="kernel-lanes"]')?.getAttribute('data-flows-drawn') === '300');
    for (const sel of ['[data-testid="export-trace"]', '[data-testid="kernel-lanes"]', '[data-testid="flow-summary"]']) await inView(sel);
  });

  test('"Open range in Perfetto" downloads the visible range as Chrome trace JSON, named after the incident and range', async () => {
    const range = page.locator('[data-testid="visible-range"]');
    const from = Number(await range.getAttribute('data-start'));
    const to = Number(await range.getAttribute('data-end'));
    const [download] = await Promise.all([page.waitForEvent('download', { timeout: 60_000 }), page.click('[data-testid="export-trace"]')]);
    const name = download.suggestedFilename();
    assert.match(name, /^quadscope-demo-kv-cache-exhaustion-after-a-traffic-surge-2026-03-14-\d{6}\.\d{3}-to-\d{6}\.\d{3}\.trace\.json$/);
    const file = join(dir, name);
    await download.saveAs(file);
    await page.waitForSelector('[data-testid="export-trace-message"]');
    assert.match((await page.textContent('[data-testid="export-trace-message"]')) ?? '', new RegExp(`Downloaded ${name.replace(/\./g, '\\.')} \\([\\d,]+ events\\): open it at ui\\.perfetto\\.dev`));
    const trace = JSON.parse(readFileSync(file, 'utf8')) as { traceEvents: { ph: string; name: string; pid: number; tid: number; ts: number; dur?: number; id?: number; args?: Record<string, unknown> }[] };
    const ev = trace.traceEvents;
    const kernels = ev.filter((e) => e.ph === 'X' && e.pid === 1_000_000);
    assert.equal(kernels.length, 300, 'every kernel of the range, on its GPU process');
    assert.ok(ev.some((e) => e.ph === 'M' && e.name === 'process_name' && e.args?.name === 'GPU 0'));
    assert.ok(ev.some((e) => e.ph === 'X' && e.name === 'cudaLaunchKernel'), 'the CPU side is there');
    const starts = ev.filter((e) => e.ph === 's');
    assert.equal(starts.length, 300);
    assert.deepEqual(new Set(starts.map((e) => e.id)), new Set(ev.filter((e) => e.ph === 'f').map((e) => e.id)), 'every flow starts and ends');
    // Within the range it was asked for (ts in µs; the page shows the range rounded to the ms), or overlapping its edges.
    for (const e of ev.filter((x) => x.ph === 'X')) assert.ok(e.ts <= (to + 1) * 1000 && e.ts + (e.dur ?? 0) >= (from - 1) * 1000, `${e.name} at ${e.ts} µs`);
    await app.screenshot('issue16-kernels-perfetto-export');
    await inView('[data-testid="export-trace-message"]');
  });

  test('the Memory view of a profile shows PyTorch reserved vs allocated: what the caching allocator holds unused at its peak', async () => {
    await page.click('[data-testid="zoom-reset"]');
    await app.tab('memory');
    await page.waitForSelector('[data-testid="memory-panel"][data-state="ready"]');
    const section = page.locator('[data-testid="reserved-memory"]');
    await section.waitFor();
    await page.waitForSelector('[data-testid="reserved-chart"] .u-over');
    const text = (await page.textContent('[data-testid="fragmentation"]')) ?? '';
    const m = /at peak reserved \(2026-03-14 [\d:.]+ UTC\): ([\d.]+ GiB) reserved, ([\d.]+ GiB) allocated — ([\d.]+ [KMG]iB) \((\d+(\.\d+)?%)\) held but unused/.exec(text);
    assert.ok(m, text);
    const labels = await page.locator('[data-testid="reserved-chart"] .u-legend .u-series:not(:first-child) .u-label').allTextContents();
    assert.deepEqual(labels.sort(), ['allocated (tensors)', 'reserved, not allocated (cache, fragmentation)']);
    // The profile's allocation records are stacked by site too (its CPU ops are the sites).
    assert.ok(Number(await page.getAttribute('[data-testid="active-memory"]', 'data-records')) > 0);
    await page.click('[data-testid="zoom-to-reserved"]');
    await app.waitTimelineIdle();
    await section.scrollIntoViewIfNeeded();
    await app.screenshot('issue16-memory-reserved');
    await page.click('[data-testid="zoom-reset"]');
  });

  test('the Memory view stacks live bytes by allocation site from every record, the leak first, with its slope along the ramp', async () => {
    await page.click('.brand');
    await page.waitForSelector('[data-testid="home"]');
    const before = await page.locator('[data-testid="incident-row"]').count();
    await app.importByInput([writeMemoryBundle(dir)]);
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid="incident-row"]').length === n + 1, before);
    await app.waitForIncident();
    await page.waitForSelector('[data-testid="headline"][data-state="ready"]');
    // The demo was left zoomed into its kernels: the new incident opens whole, not on that zoom.
    const range = page.locator('[data-testid="visible-range"]');
    assert.equal(await range.getAttribute('data-start'), await range.getAttribute('data-full-start'));
    assert.equal(await range.getAttribute('data-end'), await range.getAttribute('data-full-end'));
    assert.doesNotMatch(page.url(), /from=/);
    await app.tab('memory');
    await page.waitForSelector('[data-testid="memory-panel"][data-state="ready"]');
    const active = page.locator('[data-testid="active-memory"]');
    await active.waitFor();
    // 60 leaked blocks and 60 activations, each its own record: all of them read.
    assert.equal(await active.getAttribute('data-records'), '120');
    assert.equal(await active.getAttribute('data-sites'), '2');
    const legend = await page.locator('[data-testid="site-legend-item"]').allTextContents();
    assert.equal(legend[0], LEAK_FRAME.replace(/^.*\//, ''), 'the leaking site leads, named by its Python frame');
    assert.match((await page.textContent('[data-testid="site-legend"]')) ?? '', /peak 1\.88 GiB/);
    // The slope the diagnosis states is the slope of the chart: 32 MiB every 2 s.
    const slope = (await page.textContent('[data-testid="leak-slope"]')) ?? '';
    const growth = (await page.textContent('[data-testid="live-growth"]')) ?? '';
    assert.match(slope, /^9\d\d MiB\/min$/);
    assert.match(growth, /^\+9\d\d MiB\/min/);
    assert.equal(await page.locator('[data-testid="slope-note"]').count(), 0, 'they agree: no note that they are measured differently');
    const chart = page.locator('[data-testid="active-memory-chart"]');
    await chart.scrollIntoViewIfNeeded();
    const labels = await chart.locator('.u-legend .u-series:not(:first-child) .u-label').allTextContents();
    assert.deepEqual(labels.sort(), ['linear.py:1294 forward', 'response_cache.py:88 remember']);
    await inView('[data-testid="active-memory-chart"] .chart-box');
    await app.screenshot('issue16-memory-active-by-site');
    await page.locator('[data-testid="active-memory"]').screenshot({ path: join('test-results', 'screenshots', 'issue16-memory-active-chart.png') });
    const overflow = await page.$eval('[data-testid="memory-panel"]', (p) => p.scrollWidth - p.clientWidth);
    assert.ok(overflow <= 1, `the memory panel does not scroll sideways (${overflow} px)`);
  });

  test('no page errors, console errors or CSP violations', () => {
    assert.deepEqual(problems, []);
  });
});

if (missing) test('profiles e2e', { skip: missing }, () => {});
