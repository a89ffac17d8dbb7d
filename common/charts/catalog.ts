// The canonical charts of LLM serving, in reading order (docs/four-quadrant-model.md §1, docs/root-causes.md
// §0): what each chart is called, in which unit it reads, which canonical signals it draws, and whether the
// report draws it too. The workstation's timeline and the report both build their charts from this one
// table through series-groups.ts, so a chart is called, ordered and fed the same way in both. How a line is
// read (a histogram's quantiles, a counter's rate, a mean from `.sum` ÷ `.count`, a ratio) is
// series-groups.ts's part; adding a chart is an entry here and its case there.
import { SIG, type SignalName } from '../names';

export interface ChartDef {
  /** Stable: the timeline's `data-chart`, the report's `chart-<id>.svg`. */
  id: string;
  /** What the chart shows; a latency chart says after it how it was read ("P50 / P95 / P99"). */
  title: string;
  /** The unit the values are in (common/format.ts formatValue / formatTicks read it). */
  unit: string;
  /** The canonical signals drawn, in legend order. */
  signals: readonly SignalName[];
  /** One of the report's figures too (the report holds the key charts, not every view). */
  report: boolean;
}

/** The quantiles a latency histogram is drawn at. */
export const LATENCY_QUANTILES = [0.5, 0.95, 0.99];

/** A latency chart: the histogram at LATENCY_QUANTILES, else the mean per request. `short` names its mean line. */
export interface LatencyChartDef extends ChartDef {
  short: string;
}

const latency = (id: string, title: string, short: string, signal: SignalName, report: boolean): LatencyChartDef => ({ id, title, short, unit: 'seconds', signals: [signal], report });

export const LATENCY_CHARTS: readonly LatencyChartDef[] = [
  latency('latency-e2e', 'E2E latency', 'E2E latency', SIG.latE2e, true),
  latency('latency-ttft', 'Time to first token (TTFT)', 'Time to first token', SIG.latTtft, true),
  latency('latency-itl', 'Inter-token latency (ITL)', 'Inter-token latency', SIG.latItl, true),
  latency('latency-queue', 'Queue time', 'Queue time', SIG.latQueue, false),
];

/** The charts after the latencies, by id. */
export const CHARTS = {
  requests: { id: 'requests', title: 'Requests: arrivals and finishes', unit: 'req/s', signals: [SIG.reqFinished, SIG.reqRunning, SIG.reqWaiting], report: true },
  tokens: { id: 'tokens', title: 'Tokens: prompt (in) and generation (out)', unit: 'tokens/s', signals: [SIG.tokensPrompt, SIG.tokensGeneration], report: true },
  queue: { id: 'queue', title: 'Requests running / waiting', unit: 'count', signals: [SIG.reqRunning, SIG.reqWaiting], report: true },
  kv: { id: 'kv', title: 'KV-cache usage', unit: 'fraction', signals: [SIG.kvUsage], report: true },
  kvPerRequest: { id: 'kv-per-request', title: 'KV cache per running request (KV usage ÷ running)', unit: 'fraction', signals: [SIG.kvUsage, SIG.reqRunning], report: false },
  lengths: { id: 'lengths', title: 'Prompt and output length, mean per request', unit: 'tokens', signals: [SIG.reqPromptLen, SIG.reqGenLen], report: false },
  preemptions: { id: 'preemptions', title: 'Preemptions', unit: 'count/s', signals: [SIG.kvPreemptions], report: true },
  errors: { id: 'errors', title: 'Errors and aborted requests', unit: 'count/s', signals: [SIG.reqErrors, SIG.reqFinished], report: true },
  prefix: { id: 'prefix', title: 'Prefix-cache hit rate', unit: 'fraction', signals: [SIG.kvPrefixHits, SIG.kvPrefixQueries], report: false },
  gpuMem: { id: 'gpu-mem', title: 'GPU memory used (per GPU)', unit: 'bytes', signals: [SIG.gpuMemUsed], report: true },
  torchMem: { id: 'torch-mem', title: 'PyTorch allocated / reserved', unit: 'bytes', signals: [SIG.torchAllocated, SIG.torchReserved], report: true },
  gpuUtil: { id: 'gpu-util', title: 'GPU utilisation and SM active (per GPU)', unit: 'fraction', signals: [SIG.gpuUtil, SIG.gpuSmActive], report: true },
  gpuClock: { id: 'gpu-clock', title: 'SM clock (per GPU)', unit: 'MHz', signals: [SIG.gpuSmClock], report: true },
  gpuPower: { id: 'gpu-power', title: 'GPU power (per GPU)', unit: 'W', signals: [SIG.gpuPower], report: false },
  gpuTemp: { id: 'gpu-temp', title: 'GPU temperature (per GPU)', unit: 'C', signals: [SIG.gpuTemp], report: false },
} as const satisfies Record<string, ChartDef>;

/** Gauges drawn one line per GPU (and per signal where a chart has several). */
export const PER_GPU_CHARTS: readonly ChartDef[] = [CHARTS.gpuMem, CHARTS.torchMem, CHARTS.gpuUtil, CHARTS.gpuClock, CHARTS.gpuPower, CHARTS.gpuTemp];

/** Every canonical chart, in the timeline's order. */
export const CHART_CATALOG: readonly ChartDef[] = [...LATENCY_CHARTS, ...Object.values(CHARTS)];

/** Whether the report draws the chart of this id. */
export const inReport = (id: string): boolean => CHART_CATALOG.some((c) => c.id === id && c.report);
