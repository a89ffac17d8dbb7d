// The Prometheus text importer beside the tools a user would load the same file into instead: one file of
// concatenated scrapes with a timestamp on every sample (OpenMetrics: seconds, ending `# EOF`), which
// Quadscope, VictoriaMetrics (`/api/v1/import/prometheus`) and promtool (`tsdb create-blocks-from
// openmetrics`) all read as it is. Two shapes:
//   mix:  one vLLM + DCGM exporter mix (gauges, counters, four 17-bucket histograms, 40 app gauges, 8 GPUs)
//         scraped every second: 183 samples a scrape;
//   wide: 64 replicas, each with 5 vLLM series and 8 GPUs × 4 DCGM fields, scraped every 15 s: 2,368 series.
// Cases, medians of QUADSCOPE_BENCH_RUNS (3) interleaved runs, each import in a process of its own:
// Quadscope's import as `quadscope import` runs it (the pipeline decides the worker thread), beside
// VictoriaMetrics and promtool, and beside its own parse alone (the floor of what storing costs).
// Time ratios: Quadscope ÷ the other (≤ 1.0 is as fast or faster).
// Run: npm run bench -- prometheus   (QUADSCOPE_BENCH_SIZES=100MB,1GB; QUADSCOPE_BENCH_PROM_SHAPES=mix,wide)
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchSizes, emit } from './lib';
import { medianOf, promtoolBlocks, quadscopeImport, RUNS, victoriaMetricsImport, type Measure } from './peers';

const BOUNDS = ['0.001', '0.005', '0.01', '0.02', '0.04', '0.06', '0.08', '0.1', '0.25', '0.5', '0.75', '1.0', '2.5', '5.0', '7.5', '10.0', '+Inf'];
const T0_S = Date.UTC(2026, 0, 1) / 1000;

/** One scrape of the mix shape at `ts` (epoch seconds). */
function mixScrape(i: number, ts: number): string {
  const out: string[] = [];
  const m = 'model_name="meta-llama/Llama-3.1-8B-Instruct",engine="0"';
  out.push('# TYPE vllm:num_requests_running gauge\n', `vllm:num_requests_running{${m}} ${i % 64} ${ts}\n`);
  out.push('# TYPE vllm:kv_cache_usage_perc gauge\n', `vllm:kv_cache_usage_perc{${m}} ${(i % 100) / 100} ${ts}\n`);
  out.push('# TYPE vllm:generation_tokens counter\n', `vllm:generation_tokens_total{${m}} ${i * 1234} ${ts}\n`);
  for (const h of ['time_to_first_token_seconds', 'inter_token_latency_seconds', 'e2e_request_latency_seconds', 'request_queue_time_seconds']) {
    out.push(`# TYPE vllm:${h} histogram\n`);
    BOUNDS.forEach((le, k) => out.push(`vllm:${h}_bucket{${m},le="${le}"} ${i * (k + 1)}.0 ${ts}\n`));
    out.push(`vllm:${h}_sum{${m}} ${i * 0.37} ${ts}\n`, `vllm:${h}_count{${m}} ${i * BOUNDS.length}.0 ${ts}\n`);
  }
  for (const f of ['SM_CLOCK', 'GPU_TEMP', 'POWER_USAGE', 'GPU_UTIL', 'FB_USED', 'FB_FREE', 'PROF_SM_ACTIVE', 'MEM_CLOCK']) {
    out.push(`# TYPE DCGM_FI_DEV_${f} gauge\n`);
    for (let g = 0; g < 8; g++) {
      out.push(`DCGM_FI_DEV_${f}{gpu="${g}",UUID="GPU-${g}0c56d28-0da5-6d26-a36a-e7af1ce2586e",device="nvidia${g}",modelName="NVIDIA H100 80GB HBM3",Hostname="node-17"} ${(i * 7 + g) % 1500} ${ts}\n`);
    }
  }
  for (let k = 0; k < 40; k++) out.push(`# TYPE app_metric_${k} gauge\n`, `app_metric_${k}{shard="${k % 4}"} ${i + k} ${ts}\n`);
  return out.join('');
}

/** One scrape of the wide shape: 64 replicas' vLLM and DCGM series. */
function wideScrape(i: number, ts: number): string {
  const out: string[] = [];
  for (let r = 0; r < 64; r++) {
    const pod = `pod="vllm-${r}",namespace="llm-prod"`;
    out.push(`vllm:num_requests_running{${pod},model_name="llama-3-70b"} ${(i + r) % 48} ${ts}\n`);
    out.push(`vllm:num_requests_waiting{${pod},model_name="llama-3-70b"} ${(i * r) % 7} ${ts}\n`);
    out.push(`vllm:kv_cache_usage_perc{${pod},model_name="llama-3-70b"} ${((i + r) % 100) / 100} ${ts}\n`);
    out.push(`vllm:generation_tokens_total{${pod},model_name="llama-3-70b"} ${i * 1931 + r} ${ts}\n`);
    out.push(`vllm:prompt_tokens_total{${pod},model_name="llama-3-70b"} ${i * 5113 + r} ${ts}\n`);
    for (let g = 0; g < 8; g++) {
      const gpu = `gpu="${g}",Hostname="node-${r}",${pod}`;
      out.push(`DCGM_FI_DEV_GPU_UTIL{${gpu}} ${(i + g + r) % 100} ${ts}\n`);
      out.push(`DCGM_FI_DEV_FB_USED{${gpu}} ${60000 + ((i * 13 + g) % 9000)} ${ts}\n`);
      out.push(`DCGM_FI_DEV_FB_FREE{${gpu}} ${21000 - ((i * 13 + g) % 9000)} ${ts}\n`);
      out.push(`DCGM_FI_DEV_POWER_USAGE{${gpu}} ${300 + ((i + g) % 400)}.5 ${ts}\n`);
    }
  }
  return out.join('');
}

const TYPES_WIDE =
  '# TYPE vllm:num_requests_running gauge\n# TYPE vllm:num_requests_waiting gauge\n# TYPE vllm:kv_cache_usage_perc gauge\n# TYPE vllm:generation_tokens counter\n# TYPE vllm:prompt_tokens counter\n' +
  '# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n# TYPE DCGM_FI_DEV_FB_USED gauge\n# TYPE DCGM_FI_DEV_FB_FREE gauge\n# TYPE DCGM_FI_DEV_POWER_USAGE gauge\n';

const SHAPES = {
  mix: { intervalS: 1, scrape: mixScrape, head: '' },
  wide: { intervalS: 15, scrape: wideScrape, head: TYPES_WIDE },
} as const;
type Shape = keyof typeof SHAPES;

/** Writes about `bytes` of the shape's scrapes to `file` (OpenMetrics, ending `# EOF`); answers its size. */
function writeScrapes(file: string, shape: Shape, bytes: number): number {
  const { intervalS, scrape, head } = SHAPES[shape];
  const fd = openSync(file, 'w');
  let total = 0;
  let text = head;
  for (let i = 0; total + text.length < bytes; i++) {
    text += scrape(i, T0_S + i * intervalS);
    if (text.length > 1 << 20) {
      total += writeSync(fd, text);
      text = '';
    }
  }
  total += writeSync(fd, `${text}# EOF\n`);
  closeSync(fd);
  return total;
}

const shapes = (process.env.QUADSCOPE_BENCH_PROM_SHAPES ?? 'mix,wide').split(',').map((s) => s.trim()) as Shape[];
for (const shape of shapes) {
  if (!SHAPES[shape]) throw new Error(`QUADSCOPE_BENCH_PROM_SHAPES: unknown shape ${shape} (mix, wide)`);
  for (const size of benchSizes('100MB')) {
    const dir = mkdtempSync(join(tmpdir(), 'qs-bench-prom-'));
    try {
      const file = join(dir, `${shape}.om`);
      const bytes = writeScrapes(file, shape, size);
      const label = `${(bytes / 1e6).toFixed(0)} MB, ${shape}`;
      const runs: Record<'qs' | 'parse' | 'vm' | 'promtool', Measure[]> = { qs: [], parse: [], vm: [], promtool: [] };
      for (let k = 0; k < RUNS; k++) {
        runs.qs.push(quadscopeImport('prometheus-text', file));
        runs.parse.push(quadscopeImport('prometheus-text', file, 'parse'));
        const vm = await victoriaMetricsImport(file);
        if (vm) runs.vm.push(vm);
        const pt = promtoolBlocks(file);
        if (pt) runs.promtool.push(pt);
      }
      const qs = medianOf(runs.qs);
      const parse = medianOf(runs.parse);
      const rows = qs.rows ?? 0;
      const what = `${label} (${rows.toLocaleString('en-US')} samples + buckets)`;
      emit({ bench: 'prometheus-text', case: `${what}: Quadscope import`, value: rows / (qs.ms / 1000), unit: 'samples/s', baseline: 'its parse alone, storing nothing', baseline_value: (parse.rows ?? 0) / (parse.ms / 1000), peak_rss_mb: qs.rss_mb ?? undefined });
      if (runs.vm.length) {
        const vm = medianOf(runs.vm);
        emit({ bench: 'prometheus-text', case: `${label}: Quadscope ÷ VictoriaMetrics import (${(vm.rows ?? 0).toLocaleString('en-US')} samples), time`, value: qs.ms / 1000, unit: 's', baseline: 'VictoriaMetrics: POST /api/v1/import/prometheus + force_flush', baseline_value: vm.ms / 1000, peak_rss_mb: qs.rss_mb ?? undefined, target: '≤ 1.0× (1 GB)', met: qs.ms <= vm.ms });
      }
      if (runs.promtool.length) {
        const pt = medianOf(runs.promtool);
        emit({ bench: 'prometheus-text', case: `${label}: Quadscope ÷ promtool, time`, value: qs.ms / 1000, unit: 's', baseline: `promtool tsdb create-blocks-from openmetrics (peak RSS ${pt.rss_mb ?? '?'} MB)`, baseline_value: pt.ms / 1000, peak_rss_mb: qs.rss_mb ?? undefined, target: '< 1.0× (100 MB)', met: qs.ms < pt.ms });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}
