// Issue 17 §2 and issue 16 §7 at 1280×720 in browser mode: a generated 4-replica bundle, one replica
// leaking GPU memory, dropped as "bundle.tar.gz". The incident is named from its content (engine, model,
// instances, time), not "bundle.tar.gz"; the Fleet tab lists the four instances × time coloured by
// quadrant, sorted by severity with the faulty replica first and marked; choosing it drills the timeline
// into that replica's own series, and "whole fleet" brings the rest back. Screenshots:
// test-results/screenshots/issue17-fleet-*.png.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { buildVariantBundle } from '../../fixtures/gen/build';
import { drawVariant } from '../../fixtures/gen/variant';
import { startServer, type BridgeServer } from '../../node/bridge/server';
import { AppPage } from './helpers/app-page';
import { RENDERER_DIR, rendererMissing } from './helpers/bridge';
import { launchChromium, newPage } from './helpers/browser';

const missing = rendererMissing();
const W = 1280;
const H = 720;
/** A generated 4-replica vLLM incident whose replica 2 leaks GPU memory (21 minutes, cheap to build). */
const SEED = 958;

describe('the fleet view of a 4-replica incident (browser mode)', { skip: missing ?? false, concurrency: 1 }, () => {
  let dir: string;
  let server: BridgeServer;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  let offsite: string[];
  let app: AppPage;
  let faulty: string;
  let instances: string[];
  let incidentId: number;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'quadscope-fleet-'));
    const { truth } = buildVariantBundle(drawVariant(SEED), join(dir, 'gen'));
    assert.equal(truth.instances.length, 4);
    assert.ok(truth.faulty_instance, 'one replica is faulty');
    faulty = truth.faulty_instance;
    instances = truth.instances;
    // As every generated bundle reaches a user: a folder called "bundle", archived as bundle.tar.gz.
    execFileSync('tar', ['czf', join(dir, 'bundle.tar.gz'), '-C', join(dir, 'gen'), 'bundle']);
    server = await startServer({ dbFile: join(dir, 'workspace.db'), port: 0, rendererDir: RENDERER_DIR });
    browser = await launchChromium();
    ({ page, problems, offsite } = await newPage(browser, { width: W, height: H }));
    app = new AppPage(page, server.url);
    await app.open();
    await app.importByInput([join(dir, 'bundle.tar.gz')]);
    await app.waitForIncident();
    await page.waitForSelector('[data-testid="headline"][data-state="ready"]', { timeout: 120_000 });
    incidentId = Number(/#\/incident\/(\d+)/.exec(page.url())?.[1]);
  });

  afterEach(() => assert.deepEqual(offsite, [], 'no request left 127.0.0.1'));

  after(async () => {
    await browser?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const inView = (sel: string) => app.assertInViewport(sel);

  /** The series ids the KV-cache chart draws, and the `instance` label of each. */
  const kvChartInstances = async () => {
    const ids = ((await page.getAttribute('[data-chart="kv"]', 'data-series')) ?? '').split(' ').filter(Boolean).map(Number);
    const all = await server.engine.listSeries({ incident_id: incidentId });
    return ids.map((id) => all.find((s) => s.id === id)?.labels.instance ?? '?').sort();
  };

  test('"bundle.tar.gz" says nothing: the incident is named from its engine, model, instances and time', async () => {
    const row = page.locator(`[data-testid="incident-row"][data-id="${incidentId}"] .incident-name`);
    const name = (await row.textContent()) ?? '';
    assert.match(name, /^vLLM Llama-3\.3-70B-Instruct on 4 instances · \d{4}-\d\d-\d\d \d\d:\d\d–\d\d:\d\d UTC$/);
    assert.match((await page.textContent('.incident-title h1')) ?? '', /^vLLM Llama/);
  });

  test('the Fleet tab lists every instance × time by quadrant, the faulty replica first and marked', async () => {
    await app.tab('fleet');
    await page.waitForSelector('[data-testid="fleet-panel"][data-state="ready"]');
    const rows = page.locator('[data-testid="fleet-row"]');
    assert.equal(await rows.count(), 4);
    const order = await rows.evaluateAll((els) => els.map((e) => [e.getAttribute('data-instance'), e.getAttribute('data-faulty')]));
    assert.deepEqual(new Set(order.map(([i]) => i)), new Set(instances));
    assert.deepEqual(order[0], [faulty, 'true'], 'sorted by severity: the faulty replica leads');
    assert.deepEqual(order.slice(1).map(([, f]) => f), ['false', 'false', 'false'], 'the healthy replicas are not marked');
    const first = rows.first();
    assert.match((await first.textContent()) ?? '', /⚠/);
    assert.match((await first.locator('[data-testid="fleet-causes"]').textContent()) ?? '', /GPU memory leak/i);
    // Each row's strip says what its windows were.
    assert.match((await first.locator('canvas').getAttribute('aria-label')) ?? '', /\d+ healthy/);
    await inView('[data-testid="tab-fleet"]');
    await inView('[data-testid="fleet-table"]');
    await app.screenshot('issue17-fleet-view');

    // Sorted by name, then back by severity.
    await page.selectOption('[data-testid="fleet-sort"]', 'name');
    const byName = await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-instance')));
    assert.deepEqual(byName, [...instances].sort());
    await page.selectOption('[data-testid="fleet-sort"]', 'severity');
    assert.equal(await rows.first().getAttribute('data-instance'), faulty);
  });

  test('choosing the faulty replica drills the timeline into its own series; "whole fleet" brings the others back', async () => {
    await app.waitTimelineIdle();
    assert.deepEqual(await kvChartInstances(), [...instances].sort(), 'the fleet: one KV line per replica');
    await page.locator('[data-testid="fleet-row"]').first().locator('[data-testid="fleet-drill"]').click();
    await page.waitForSelector(`[data-testid="drill-chip"][data-instance="${faulty}"]`);
    await app.waitTimelineIdle();
    assert.deepEqual(await kvChartInstances(), [faulty], "the drilled replica's KV line alone");
    assert.equal(await page.getAttribute('[data-testid="fleet-row"] [data-testid="fleet-drill"][aria-pressed="true"]', 'aria-pressed'), 'true');
    await inView('[data-testid="drill-chip"]');
    await app.screenshot('issue17-fleet-drilled');
    // From the keyboard: the chip's button goes back to the whole fleet.
    await page.focus('[data-testid="drill-clear"]');
    await page.keyboard.press('Enter');
    await page.waitForSelector('[data-testid="drill-chip"]', { state: 'detached' });
    await app.waitTimelineIdle();
    assert.deepEqual(await kvChartInstances(), [...instances].sort());
  });

  test('no page errors, console errors or CSP violations', () => {
    assert.deepEqual(problems, []);
  });
});

if (missing) test('fleet e2e', { skip: missing }, () => {});
