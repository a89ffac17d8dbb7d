// The fleet-scale pull (issue 17): R replicas × G GPUs over 24 h at a 15 s step from a real
// VictoriaMetrics on 127.0.0.1 (fed through its /api/v1/import, a slice of replicas at a time), into a
// fresh workspace, then the diagnosis and the first query the workstation makes when it opens the
// incident (those in a child process, test/bench/pull-run.ts, so the peak RSS is theirs). The baseline is the server's own answer time in the same run: every planned query_range
// request fetched and parsed, nothing stored. QUADSCOPE_BENCH_PULL sets the size: 16x8x24h by default
// (about a minute), 64x8x24h for the target (about ten minutes on a 2-vCPU machine).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PullResult } from '../../common/contract/types';
import { discover } from '../../node/engine/pull/discover';
import { planPull } from '../../node/engine/pull/plan';
import { PromApi, apiRoot } from '../../node/engine/pull/prom-api';
import { DEFAULT_MAX_SAMPLES, DEFAULT_MAX_SERIES } from '../../node/engine/pull/pull';
import { fleetSeries } from '../helpers/fleet-metrics';
import { httpGet, httpPost, startVictoriaMetrics } from '../helpers/prom-servers';
import { emit } from './lib';

const HERE = fileURLToPath(new URL('.', import.meta.url));

const spec = /^(\d+)x(\d+)x(\d+)h$/.exec(process.env.QUADSCOPE_BENCH_PULL ?? '16x8x24h');
if (!spec) throw new Error('QUADSCOPE_BENCH_PULL must look like 64x8x24h (replicas x GPUs x hours)');
const [REPLICAS, GPUS, HOURS] = spec.slice(1).map(Number);
const STEP_S = 15;
const T0 = Date.parse('2026-03-14T00:00:00Z');
const END = T0 + HOURS * 3600_000;
const label = `${REPLICAS} replicas × ${GPUS} GPUs, ${HOURS} h at ${STEP_S} s`;

const vm = await startVictoriaMetrics([]);
try {
  // Load: JSON lines (one series a line), 4 replicas a request.
  const l0 = performance.now();
  let loaded = 0;
  let seriesCount = 0;
  for (let first = 0; first < REPLICAS; first += 4) {
    const slice = fleetSeries({ startMs: T0, durationS: HOURS * 3600, stepS: STEP_S, replicas: Math.min(4, REPLICAS - first), firstReplica: first, gpusPerReplica: GPUS, seed: first + 1 });
    const body = slice.map((s) => JSON.stringify({ metric: { __name__: s.name, ...s.labels }, values: s.points.map((p) => (p[1] === Infinity ? 'Infinity' : p[1])), timestamps: s.points.map((p) => p[0]) })).join('\n');
    const r = await httpPost(`${vm.url}/api/v1/import`, body);
    if (r.status >= 300) throw new Error(`import: HTTP ${r.status} ${r.body.slice(0, 200)}`);
    loaded += slice.reduce((n, s) => n + s.points.length, 0);
    seriesCount += slice.length;
  }
  await httpGet(`${vm.url}/internal/force_flush`);
  for (let i = 0; i < 600; i++) {
    const r = await httpGet(`${vm.url}/api/v1/series/count`);
    if ((JSON.parse(r.body) as { data: number[] }).data[0] >= seriesCount) break;
    await new Promise((res) => setTimeout(res, 500));
  }
  const loadMs = performance.now() - l0;
  console.log(`loaded ${seriesCount} series, ${loaded.toLocaleString('en-US')} samples into VictoriaMetrics in ${(loadMs / 1000).toFixed(1)} s`);

  // Baseline: the server answers every request of the same plan; the answers are parsed and dropped.
  const api = new PromApi(apiRoot(vm.url), { sockets: 4, timeoutMs: 300_000 });
  const b0 = performance.now();
  const groups = await discover(api, [], T0, END, DEFAULT_MAX_SERIES, 4);
  const plan = planPull(groups, T0, END, STEP_S * 1000, { maxSamples: DEFAULT_MAX_SAMPLES });
  const queue = [...plan.requests];
  let answered = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let r = queue.shift(); r; r = queue.shift()) {
        const a = await api.call<{ result: { values: unknown[] }[] }>('POST', 'query_range', [
          ['query', r.expr],
          ['start', String(r.startMs / 1000)],
          ['end', String(r.endMs / 1000)],
          ['step', String(STEP_S)],
        ]);
        for (const s of a.data.result) answered += s.values.length;
      }
    }),
  );
  const serverMs = performance.now() - b0;
  api.close();
  console.log(`server alone: ${plan.requests.length} requests, ${answered.toLocaleString('en-US')} values, ${(api.stats.bytes / 1e6).toFixed(0)} MB in ${(serverMs / 1000).toFixed(1)} s`);

  // The pull, the first query of the workstation and the diagnosis, in a process of their own (peak RSS).
  const child = spawnSync(process.execPath, ['--import', 'tsx', join(HERE, 'pull-run.ts'), vm.url, String(T0), String(END), String(STEP_S)], { encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
  if (child.status !== 0) throw new Error(`pull-run.ts failed: ${child.stderr.slice(-2000)}`);
  const run = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as { result: PullResult; pullMs: number; pullRss: number; listed: number; listMs: number; analyzeMs: number | null; analyzeError: string | null; peakRss: number };
  const { result, pullMs } = run;
  console.log(`pull: ${result.series} series, ${result.samples.toLocaleString('en-US')} values, ${result.rows.toLocaleString('en-US')} rows in ${(pullMs / 1000).toFixed(1)} s (fetch ${(result.timings.fetch_ms / 1000).toFixed(1)} s summed over 4 connections, write ${(result.timings.write_ms / 1000).toFixed(1)} s), peak RSS ${run.pullRss} MB`);
  emit({ bench: 'pull', case: `pull from VictoriaMetrics into SQLite (${label}: ${result.series} series, ${(result.samples / 1e6).toFixed(1)} M values)`, value: result.samples / (pullMs / 1000), unit: 'values/s', baseline: 'the server answering the same requests, parsed, nothing stored', baseline_value: answered / (serverMs / 1000), peak_rss_mb: run.pullRss });
  emit({ bench: 'pull', case: `pull total (${label})`, value: pullMs / 1000, unit: 's', baseline: 'server answer time alone', baseline_value: serverMs / 1000, peak_rss_mb: run.pullRss });
  emit({ bench: 'pull', case: `open: the series list of the pulled incident (${run.listed} series)`, value: run.listMs, unit: 'ms', peak_rss_mb: run.peakRss });
  if (run.analyzeError) console.log(`analyze failed: ${run.analyzeError}`);
  else emit({ bench: 'pull', case: `analyze the pulled incident (${label})`, value: run.analyzeMs! / 1000, unit: 's', peak_rss_mb: run.peakRss });
} finally {
  await vm.stop();
}
