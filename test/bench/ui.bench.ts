// The UI in Chromium through the real bridge on a 24 h, 30-series incident: time from navigation to an
// interactive timeline (all charts drawn), zoom (query + redraw, and the redraw alone), and replay
// frame rate. Numbers come from performance marks and measures the app emits (qs:open, qs:zoom,
// qs:chart-draw, qs:replay-frame).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from '../../node/engine/store/store';
import { rendererMissing, startBridge } from '../e2e/helpers/bridge';
import { launchChromium, newPage } from '../e2e/helpers/browser';
import { emit, rng } from './lib';

const missing = rendererMissing();
if (missing) {
  console.error(`ui bench skipped: ${missing}`);
  process.exit(0);
}

const HOURS = Number(process.env.QUADSCOPE_BENCH_HOURS ?? 24);
const STEP_MS = 5000;
const T0 = Date.parse('2026-03-14T00:00:00Z');
const N = Math.round((HOURS * 3600_000) / STEP_MS);

// 30 series of the canonical names the timeline groups: 8 GPUs × (mem, util, power), KV, queue, tokens…
const SERIES: { name: string; labels: Record<string, string>; unit: string; kind: 'gauge' | 'counter' }[] = [];
for (let g = 0; g < 8; g++) {
  SERIES.push({ name: 'gpu.mem.used', labels: { gpu: String(g) }, unit: 'bytes', kind: 'gauge' });
  SERIES.push({ name: 'gpu.util', labels: { gpu: String(g) }, unit: 'fraction', kind: 'gauge' });
  SERIES.push({ name: 'gpu.power', labels: { gpu: String(g) }, unit: 'W', kind: 'gauge' });
}
SERIES.push(
  { name: 'kv.usage', labels: {}, unit: 'fraction', kind: 'gauge' },
  { name: 'req.running', labels: {}, unit: 'count', kind: 'gauge' },
  { name: 'req.waiting', labels: {}, unit: 'count', kind: 'gauge' },
  { name: 'tokens.generation', labels: {}, unit: 'tokens', kind: 'counter' },
  { name: 'tokens.prompt', labels: {}, unit: 'tokens', kind: 'counter' },
  { name: 'kv.preemptions', labels: {}, unit: 'count', kind: 'counter' },
);

const dir = mkdtempSync(join(tmpdir(), 'qs-bench-ui-'));
const dbFile = join(dir, 'ui.db');
const store = new Store(dbFile);
const inc = store.createIncident(`bench ${HOURS} h × ${SERIES.length} series`);
const w = store.beginSource(inc, { path: 'bench.prom', format: 'prometheus-text', bytes: 0 });
const ids = SERIES.map((s) => w.series(s));
const r = rng(7);
const counters = SERIES.map(() => 0);
for (let k = 0; k < N; k++) {
  const ts = T0 + k * STEP_MS;
  const phase = k / N;
  SERIES.forEach((s, i) => {
    let v: number;
    if (s.kind === 'counter') v = counters[i] += 1000 * (1 + r()) * (phase > 0.7 ? 0.5 : 1);
    else if (s.unit === 'bytes') v = 60e9 + phase * 15e9 + r() * 1e8;
    else if (s.unit === 'fraction') v = Math.min(1, 0.4 + (phase > 0.7 ? 0.55 : 0) + r() * 0.05);
    else v = 100 + r() * 50 + (phase > 0.7 ? 200 : 0);
    w.sample(ids[i], ts, v);
  });
}
w.commit([]);
store.refreshIncidentSpan(inc);
// Baseline: what the open asks of the store (every series over the whole range at chart width), in Node.
const q0 = performance.now();
store.querySeries(ids, T0, T0 + N * STEP_MS, 1200);
const storeQueryMs = performance.now() - q0;
store.close();

const bridge = await startBridge({ dbFile });
const browser = await launchChromium();
try {
  const { page, problems } = await newPage(browser);
  await page.goto(`${bridge.url}#/incident/${inc}/overview`);
  await page.waitForSelector('[data-testid="timeline"][data-state="ready"]', { timeout: 60_000 });
  const open = await page.evaluate(() => {
    const m = performance.getEntriesByName('qs:open', 'measure')[0];
    return { measure: m.duration, sinceNavigation: m.startTime + m.duration };
  });
  const charts = await page.locator('[data-testid="timeline"] .chart-box').count();
  emit({ bench: 'ui', case: `open to interactive timeline (${HOURS} h, ${SERIES.length} series, ${charts} charts), from navigation`, value: open.sinceNavigation, unit: 'ms', baseline: 'store query of all series (Node)', baseline_value: storeQueryMs, target: '< 1500', met: open.sinceNavigation < 1500 });
  emit({ bench: 'ui', case: 'open: incident opened → all charts drawn', value: open.measure, unit: 'ms' });

  await page.waitForSelector('[data-testid="headline"]', { timeout: 120_000 });
  const zooms: number[] = [];
  for (let i = 0; i < 6; i++) {
    await page.click(i < 3 ? 'text=Zoom in' : 'text=Zoom out');
    await page.waitForFunction((n) => performance.getEntriesByName('qs:zoom', 'measure').length >= n, i + 1);
  }
  zooms.push(...(await page.evaluate(() => performance.getEntriesByName('qs:zoom', 'measure').map((m) => m.duration))));
  const draws = await page.evaluate(() => performance.getEntriesByName('qs:chart-draw', 'measure').map((m) => m.duration));
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))];
  emit({ bench: 'ui', case: `zoom: query + redraw of all ${charts} charts (median of ${zooms.length})`, value: median(zooms), unit: 'ms', target: '< 50', met: median(zooms) < 50 });
  emit({ bench: 'ui', case: 'zoom: one chart redraw (setData → drawn), p95', value: p95(draws), unit: 'ms', target: '< 50', met: p95(draws) < 50 });

  await page.selectOption('select[aria-label^="Replay speed"]', '60');
  await page.evaluate(() => performance.clearMarks('qs:replay-frame'));
  await page.click('[data-testid="replay-toggle"]');
  await page.waitForFunction(() => performance.getEntriesByName('qs:replay-frame', 'mark').length >= 180, undefined, { timeout: 30_000 });
  await page.click('[data-testid="replay-toggle"]');
  const frames = await page.evaluate(() => performance.getEntriesByName('qs:replay-frame', 'mark').map((m) => m.startTime));
  const gaps = frames.slice(1).map((t, i) => t - frames[i]);
  const fps = ((frames.length - 1) / (frames[frames.length - 1] - frames[0])) * 1000;
  emit({ bench: 'ui', case: `replay frame rate (${frames.length} frames)`, value: fps, unit: 'frames/s', target: '>= 55', met: fps >= 55 });
  emit({ bench: 'ui', case: 'replay frame interval p95', value: p95(gaps), unit: 'ms' });
  if (problems.length) console.error(`page problems: ${problems.join('\n')}`);
} finally {
  await browser.close();
  await bridge.close();
  rmSync(dir, { recursive: true, force: true });
}
