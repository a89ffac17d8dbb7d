// `pull` against real servers on 127.0.0.1 (Debian's prometheus and victoria-metrics, started here on
// free ports with temporary data): a few vLLM and DCGM series over 2 h come back exactly — every
// timestamp and double, histograms as histograms — and land as the same rows as the same data imported
// from a query_range JSON file; the provenance is stored; a range past the servers' 11,000 points per
// series is split (and the server really refuses it whole); the engine API reports progress and cancels.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine } from '../../node/engine/api';
import { importPaths } from '../../node/engine/import/pipeline';
import { pullIncident } from '../../node/engine/pull/pull';
import { Store } from '../../node/engine/store/store';
import type { PullProgress } from '../../common/contract/types';
import { fleetSeries } from '../helpers/fleet-metrics';
import { httpGet, startPrometheus, startProxy, startVictoriaMetrics, type RunningServer, type Series } from '../helpers/prom-servers';
import { storeSql } from '../helpers/store-sql';

const T0 = Date.parse('2026-03-14T09:00:00Z');
const TWO_H = 2 * 3600_000;

function tempDir(): { dir: string; dispose(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'qs-pull-'));
  return { dir, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Every series of an incident with its samples and histogram scrapes, as comparable text. */
export function dump(store: Store, incidentId: number): Map<string, { unit: string; kind: string; samples: string; hist: string }> {
  const rows = storeSql(store)
    .prepare(
      `SELECT s.name, s.labels_json, s.unit, s.kind,
              (SELECT json_group_array(json_array(ts_ms, value)) FROM (SELECT ts_ms, value FROM samples WHERE series_id = s.id ORDER BY ts_ms)) AS samples,
              (SELECT json_group_array(json_array(h.ts_ms, l.le_json, h.counts_json)) FROM (SELECT * FROM histogram_snapshots WHERE series_id = s.id ORDER BY ts_ms) h JOIN histogram_layouts l ON l.id = h.layout_id) AS hist
         FROM series s WHERE s.incident_id = ?`,
    )
    .all(incidentId) as { name: string; labels_json: string; unit: string; kind: string; samples: string; hist: string }[];
  return new Map(rows.map((r) => [`${r.name} ${r.labels_json}`, { unit: r.unit, kind: r.kind, samples: r.samples, hist: r.hist }]));
}

/** The same series as one query_range JSON answer (the prometheus-json importer's input). */
function asQueryRangeJson(series: Series[]): string {
  return JSON.stringify({
    status: 'success',
    data: {
      resultType: 'matrix',
      result: series.map((s) => ({ metric: { __name__: s.name, ...s.labels }, values: s.points.map(([t, v]) => [t / 1000, v === Infinity ? '+Inf' : String(v)]) })),
    },
  });
}

async function assertSameAsFileImport(series: Series[], store: Store, incidentId: number, dir: string): Promise<void> {
  const file = join(dir, 'query_range.json');
  writeFileSync(file, asQueryRangeJson(series));
  const ref = new Store(join(dir, 'reference.db'));
  try {
    const imported = await importPaths(ref, [file]);
    assert.equal(imported.sources[0].status, 'ok', imported.sources[0].error ?? '');
    const want = dump(ref, imported.incident_id);
    const got = dump(store, incidentId);
    assert.deepEqual([...got.keys()].sort(), [...want.keys()].sort(), 'the same series');
    for (const [k, w] of want) assert.deepEqual(got.get(k), w, `series ${k}`);
  } finally {
    ref.close();
  }
}

const raw = (store: Store, name: string, labelsLike: string) =>
  storeSql(store).prepare(`SELECT ts_ms, value FROM samples WHERE series_id = (SELECT id FROM series WHERE name = ? AND labels_json LIKE ?) ORDER BY ts_ms`).raw().all(name, labelsLike) as [number, number][];

describe('pull from Prometheus and VictoriaMetrics', { timeout: 180_000 }, () => {
  // Two replicas of one GPU each over 2 h at 15 s: 21 vLLM series (a histogram of 16 buckets) and 5 DCGM series a replica.
  // Prometheus keeps every double; VictoriaMetrics about 12 significant digits, so it gets values of 10.
  const exact = fleetSeries({ startMs: T0, durationS: 7200, stepS: 15, replicas: 2, gpusPerReplica: 1 });
  const tenDigits = fleetSeries({ startMs: T0, durationS: 7200, stepS: 15, replicas: 2, gpusPerReplica: 1, digits: 10 });
  const servers: { name: string; server: RunningServer; series: Series[] }[] = [];

  before(async () => {
    const [prom, vm] = await Promise.all([startPrometheus(exact), startVictoriaMetrics(tenDigits)]);
    servers.push({ name: 'prometheus', server: prom, series: exact }, { name: 'victoria-metrics', server: vm, series: tenDigits });
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.server.stop()));
  });

  for (const which of ['prometheus', 'victoria-metrics']) {
    test(`${which}: a pull of 2 h round-trips every sample exactly, histograms as histograms, with its provenance`, async () => {
      const { server, series } = servers.find((s) => s.name === which)!;
      const t = tempDir();
      const store = new Store(join(t.dir, 'w.db'));
      try {
        const before = Date.now();
        // A fractional timeout travels as seconds the servers accept.
        const r = await pullIncident(store, { url: server.url, start_ms: T0, end_ms: T0 + TWO_H, timeout_s: 30.5 });
        assert.equal(r.partial, false, JSON.stringify(r.failures));
        assert.equal(r.step_ms, 15_000, 'the step is the scrape interval the server shows');
        assert.equal(r.start_ms, T0);
        assert.equal(r.end_ms, T0 + TWO_H);
        assert.equal(r.series, series.length);
        assert.equal(r.samples, series.length * 481);
        assert.ok(r.incident_id !== null);
        const id = r.incident_id;

        // Gauges: the raw doubles and their timestamps, exactly.
        const kv = series.find((s) => s.name === 'vllm:kv_cache_usage_perc' && s.labels.pod === 'vllm-1')!;
        assert.deepEqual(raw(store, 'kv.usage', '%"pod":"vllm-1"%'), kv.points);
        // Histograms stay histograms: one series of bucket scrapes, plus .sum and .count counters.
        const hist = storeSql(store).prepare("SELECT kind, (SELECT COUNT(*) FROM histogram_snapshots WHERE series_id = s.id) FROM series s WHERE name = 'lat.e2e'").raw().all() as [string, number][];
        assert.deepEqual(hist, [
          ['histogram', 481],
          ['histogram', 481],
        ]);
        // DCGM: MiB into bytes, and the GPU's total derived from FB_USED + FREE + RESERVED per scrape.
        assert.equal(storeSql(store).prepare("SELECT COUNT(*) FROM samples WHERE series_id IN (SELECT id FROM series WHERE name = 'gpu.mem.total')").pluck().get(), 2 * 481);

        // Row for row what the same data imported from a query_range JSON file gives.
        await assertSameAsFileImport(series, store, id, t.dir);

        const inc = store.getIncident(id)!;
        assert.equal(inc.source, 'prometheus');
        assert.equal(inc.start_ms, T0);
        assert.equal(inc.end_ms, T0 + TWO_H);
        assert.deepEqual(
          inc.sources.map((s) => [s.path, s.format, s.status, s.warnings]),
          [[server.url, 'prometheus-pull', 'ok', []]],
        );
        const meta = store.incidentMeta(id).pull as Record<string, unknown>;
        assert.equal(meta.server, server.url);
        assert.equal(meta.step_ms, 15_000);
        assert.equal(meta.start_ms, T0);
        assert.equal(meta.end_ms, T0 + TWO_H);
        assert.ok((meta.pulled_ms as number) >= before && (meta.pulled_ms as number) <= Date.now());
        assert.ok((meta.queries as string[]).includes('vllm:kv_cache_usage_perc'));
        assert.ok((meta.queries as string[]).some((q) => q.includes('vllm:e2e_request_latency_seconds_bucket') && q.includes('_sum') && q.includes('_count')), 'a histogram is read in one query');
        assert.equal(meta.auth, null);
        if (which === 'prometheus') assert.match(String(meta.server_version), /^2\./);
      } finally {
        store.close();
        t.dispose();
      }
    });
  }

  test("victoria-metrics: its /api/v1/export file (one series a line, split lines too) imports as the same rows as the same series' query_range answer", async () => {
    const { server, series } = servers.find((s) => s.name === 'victoria-metrics')!;
    const t = tempDir();
    const store = new Store(join(t.dir, 'w.db'));
    try {
      const q = new URLSearchParams({ 'match[]': '{__name__=~".+"}', start: String(T0 / 1000), end: String((T0 + TWO_H) / 1000) });
      // Whole series a line, and a series cut every 100 points (VictoriaMetrics' max_rows_per_line).
      for (const extra of ['', '&max_rows_per_line=100']) {
        const r = await httpGet(`${server.url}/api/v1/export?${q}${extra}`);
        assert.equal(r.status, 200);
        const lines = r.body.trim().split('\n');
        assert.equal(lines.length, extra ? series.length * 5 : series.length, 'the server wrote what this test reads');
        const file = join(t.dir, `export${extra ? '-split' : ''}.jsonl`);
        writeFileSync(file, r.body);
        const imported = await importPaths(store, [file]);
        assert.deepEqual(
          imported.sources.map((x) => [x.format, x.status, x.error]),
          [['victoriametrics-jsonl', 'ok', null]],
        );
        await assertSameAsFileImport(series, store, imported.incident_id, join(t.dir));
        rmSync(join(t.dir, 'reference.db'), { force: true });
      }
    } finally {
      store.close();
      t.dispose();
    }
  });

  test('a selector narrows the pull, and several selectors are OR-ed', async () => {
    const { server } = servers[0];
    const t = tempDir();
    const store = new Store(join(t.dir, 'w.db'));
    try {
      const r = await pullIncident(store, { url: server.url, start_ms: T0, end_ms: T0 + TWO_H, match: ['vllm:num_requests_running{pod="vllm-0"}', '{__name__=~"DCGM_FI_DEV_FB_.*", pod="vllm-1"}'] });
      const names = storeSql(store).prepare('SELECT name, json_extract(labels_json, \'$.pod\') FROM series WHERE incident_id = ? ORDER BY 1, 2').raw().all(r.incident_id) as [string, string][];
      assert.deepEqual(names, [
        ['gpu.mem.free', 'vllm-1'],
        ['gpu.mem.reserved', 'vllm-1'],
        ['gpu.mem.total', 'vllm-1'],
        ['gpu.mem.used', 'vllm-1'],
        ['req.running', 'vllm-0'],
      ]);
      // A histogram named by its family pulls its parts.
      const h = await pullIncident(store, { url: server.url, start_ms: T0, end_ms: T0 + TWO_H, match: ['vllm:e2e_request_latency_seconds{pod="vllm-0"}'] });
      const hn = storeSql(store).prepare('SELECT name FROM series WHERE incident_id = ? ORDER BY 1').pluck().all(h.incident_id);
      assert.deepEqual(hn, ['lat.e2e', 'lat.e2e.count', 'lat.e2e.sum']);
    } finally {
      store.close();
      t.dispose();
    }
  });

  test('the step is read from the samples even when the series hold data in only part of the range', async () => {
    const { server } = servers[0];
    const t = tempDir();
    const store = new Store(join(t.dir, 'w.db'));
    try {
      // The data covers the first 2 h of 6: the end and the middle of the range hold none.
      const r = await pullIncident(store, { url: server.url, start_ms: T0, end_ms: T0 + 6 * 3600_000, match: ['vllm:kv_cache_usage_perc'] });
      assert.equal(r.step_ms, 15_000);
      assert.equal(r.warnings.length, 0);
    } finally {
      store.close();
      t.dispose();
    }
  });
});

describe('a long range is split under the 11,000 points per series limit', { timeout: 180_000 }, () => {
  // 48 h at 15 s: 11,521 points a series, more than Prometheus answers in one query_range.
  const series = fleetSeries({ startMs: T0, durationS: 48 * 3600, stepS: 15, replicas: 2, gpusPerReplica: 0, only: ['vllm:kv_cache_usage_perc', 'vllm:num_requests_running'] });
  const END = T0 + 48 * 3600_000;
  let prom: RunningServer;
  before(async () => {
    prom = await startPrometheus(series);
  });
  after(async () => {
    await prom.stop();
  });

  test('the server refuses the range whole; the pull splits it and loses no point', async () => {
    const whole = await httpGet(`${prom.url}/api/v1/query_range?query=vllm:kv_cache_usage_perc&start=${T0 / 1000}&end=${END / 1000}&step=15`);
    assert.equal(whole.status, 400);
    assert.match(whole.body, /exceeded maximum resolution of 11,000 points/);

    const proxy = await startProxy(prom.url, () => ({ pass: true }));
    const t = tempDir();
    const store = new Store(join(t.dir, 'w.db'));
    try {
      const r = await pullIncident(store, { url: proxy.url, start_ms: T0, end_ms: END });
      assert.equal(r.partial, false, JSON.stringify(r.failures));
      const ranges = proxy.seen.filter((q) => q.path === '/api/v1/query_range');
      const points = ranges.map((q) => (Number(q.params.get('end')) - Number(q.params.get('start'))) / Number(q.params.get('step')) + 1);
      assert.ok(ranges.length >= 4, `two groups, each in at least two pieces (${ranges.length} requests)`);
      assert.ok(points.every((n) => n <= 11_000), `each piece within the limit: ${points.join(', ')}`);
      for (const s of series) {
        const name = s.name === 'vllm:kv_cache_usage_perc' ? 'kv.usage' : 'req.running';
        assert.deepEqual(raw(store, name, `%"pod":"${s.labels.pod}"%`), s.points, `${s.name} ${s.labels.pod}: 11,521 points, none twice`);
      }

      // A server with a lower limit than assumed: its refusal halves the request until it answers.
      proxy.seen.length = 0;
      const r2 = await pullIncident(store, { url: proxy.url, start_ms: T0, end_ms: END, step_s: 15 }, { maxPointsPerSeries: 20_000 });
      assert.equal(r2.partial, false, JSON.stringify(r2.failures));
      const refused = proxy.seen.filter((q) => q.path === '/api/v1/query_range').length;
      assert.ok(refused >= 6, `2 refused whole, then 4 halves (${refused})`);
      assert.deepEqual(raw(store, 'kv.usage', '%"pod":"vllm-0"%').length, 11_521);
      assert.equal(storeSql(store).prepare('SELECT COUNT(*) FROM samples WHERE series_id IN (SELECT id FROM series WHERE incident_id = ?)').pluck().get(r2.incident_id), 4 * 11_521);
    } finally {
      store.close();
      await proxy.close();
      t.dispose();
    }
  });
});

describe('the engine API', { timeout: 120_000 }, () => {
  const series = fleetSeries({ startMs: T0, durationS: 7200, stepS: 15, replicas: 2, gpusPerReplica: 1 });
  let prom: RunningServer;
  before(async () => {
    prom = await startPrometheus(series);
  });
  after(async () => {
    await prom.stop();
  });

  test('startPull reports progress as events and opens as a normal incident', async () => {
    const t = tempDir();
    const events: PullProgress[] = [];
    let changed = 0;
    const engine = new Engine(join(t.dir, 'w.db'), { emit: (e) => (e.type === 'pull-progress' ? events.push(e.progress) : e.type === 'incidents-changed' ? changed++ : undefined) });
    try {
      const { job_id } = await engine.startPull({ url: prom.url, start_ms: T0, end_ms: T0 + TWO_H, name: 'pulled' });
      const r = await engine.awaitPull({ job_id });
      assert.ok(r.incident_id !== null);
      assert.ok(events.every((e) => e.job_id === job_id));
      assert.equal(events[0].state, 'discovering');
      assert.ok(events.some((e) => e.state === 'pulling'));
      const last = events.at(-1)!;
      assert.equal(last.state, 'done');
      assert.equal(last.result?.incident_id, r.incident_id);
      assert.equal(last.requests_done, last.requests_total);
      assert.equal(changed, 1);
      const inc = await engine.getIncident({ id: r.incident_id });
      assert.equal(inc.name, 'pulled');
      const d = await engine.analyze({ incident_id: r.incident_id });
      assert.ok(d.windows.length > 0, 'the model runs on a pulled incident as on an imported one');
    } finally {
      await engine.close();
      t.dispose();
    }
  });

  test('cancel stops a pull and keeps nothing', async () => {
    const proxy = await startProxy(prom.url, (q) => (q.path === '/api/v1/query_range' ? { pass: true, delayMs: 400 } : { pass: true }));
    const t = tempDir();
    const events: PullProgress[] = [];
    const engine = new Engine(join(t.dir, 'w.db'), { emit: (e) => (e.type === 'pull-progress' ? events.push(e.progress) : undefined) });
    try {
      const { job_id } = await engine.startPull({ url: proxy.url, start_ms: T0, end_ms: T0 + TWO_H });
      while (!events.some((e) => e.state === 'pulling')) await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(await engine.cancelPull({ job_id }), { cancelled: true });
      const r = await engine.awaitPull({ job_id });
      assert.equal(r.cancelled, true);
      assert.equal(r.incident_id, null);
      assert.equal(events.at(-1)?.state, 'cancelled');
      assert.deepEqual(await engine.listIncidents(), []);
      assert.equal(storeSql(engine.store).prepare('SELECT COUNT(*) FROM series').pluck().get(), 0);
    } finally {
      await engine.close();
      await proxy.close();
      t.dispose();
    }
  });

  test('a request the validator refuses never reaches the engine', async () => {
    const { validateRequest } = await import('../../common/contract/api');
    assert.throws(() => validateRequest('startPull', { url: 'file:///etc/passwd', start_ms: 0, end_ms: 1 }), /url must be an http/);
    assert.throws(() => validateRequest('startPull', { url: 'http://x', start_ms: 0, end_ms: 1, auth: { kind: 'bearer', env: 'A;rm -rf' } }), /auth.env must be an environment variable name/);
    assert.throws(() => validateRequest('startPull', { url: 'http://x', start_ms: 0, end_ms: 1, auth: { kind: 'bearer', token: 'x' } }), /auth.token must be absent/);
  });
});
