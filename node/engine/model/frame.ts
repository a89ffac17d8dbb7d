// The feature table: every canonical signal reduced to one value per window (NaN = no data), read in
// one pass per series. Several series of one name are combined as the signal demands: counters and
// queue gauges add up across engines, KV usage takes the fullest engine, GPUs stay separate so the
// worst one can drive R and their spread can reveal a straggler.
import { median } from './baseline';
import { histogramEntropy, histogramQuantile } from './quantiles';
import { sizeOf, type LoadedHistogram, type LoadedSeries, type RequestFact, type Signals } from './signals-from-store';
import { bitsBucketsOf, counterBucketsOf, gaugeBucketsOf, histogramDeltas, inOneRead } from './series-buckets';
import { gaugeWindows, rateWindows, windowStart, type FoldKinds, type GaugeWindows, type WindowGrid } from './windows';
import { SIG, countOf } from '../../../common/names';

export interface GpuWindows {
  key: string;
  /** The series' labels, for evidence refs. */
  labels: Record<string, string>;
  memUsed: Float64Array;
  memTotal: Float64Array;
  clk: Float64Array;
  temp: Float64Array;
  power: Float64Array;
  smAct: Float64Array;
  util: Float64Array;
  /** Throttle bits seen in the window, OR-ed; NaN without the series. */
  thr: Float64Array;
}

export interface Frame {
  grid: WindowGrid;
  /** Window start times. */
  t: Float64Array;
  /** Canonical inputs present (series and histogram names, `spans`, `events`). */
  have: Set<string>;
  kv: Float64Array;
  kvMax: Float64Array;
  kvFrac: Float64Array;
  run: Float64Array;
  runMax: Float64Array;
  runMin: Float64Array;
  wait: Float64Array;
  waitMax: Float64Array;
  waitMin: Float64Array;
  gtok: Float64Array;
  ptok: Float64Array;
  /** Finished requests per second. */
  lamOut: Float64Array;
  /** Arrivals per second ≈ lam_out + d(run + wait)/dt (Little's law bookkeeping). */
  lamIn: Float64Array;
  abort: Float64Array;
  errFrac: Float64Array;
  preempt: Float64Array;
  hit: Float64Array;
  e2e99: Float64Array;
  e2e50: Float64Array;
  ttft99: Float64Array;
  ttft50: Float64Array;
  itl50: Float64Array;
  itl99: Float64Array;
  /** ITL P98: what backs a P99 rise (latency-bands.ts: a bimodal ITL's P99 flips mode as its tail crosses 1%). */
  itl98: Float64Array;
  /** Mean ITL from the histogram's sum and count: exact where a bucket-interpolated median cannot move. */
  itlMean: Float64Array;
  q95: Float64Array;
  q99: Float64Array;
  ttftMean: Float64Array;
  e2eMean: Float64Array;
  queueMean: Float64Array;
  prefillMean: Float64Array;
  /** Mean time a router spent tokenizing and checking a request before queueing it (TGI's validation). */
  validationMean: Float64Array;
  plenMean: Float64Array;
  /** Prompt length P10: where every prompt grew (longer conversations) the body's low end moves; a tail of documents leaves it. */
  plenP10: Float64Array;
  plenP90: Float64Array;
  /** Prompt length P99: where a few requests carry long documents, the tail moves and the body does not. */
  plenP99: Float64Array;
  glenMean: Float64Array;
  /**
   * Where nothing counts output tokens (TGI scraped without its generated-tokens histogram): the mean inference
   * time over the mean time per token (timedOutputLength); NaN elsewhere. Read by workload_drift alone: a length
   * derived from times moves with anything that moves them apart, and the other rules' "workload stable" reads
   * only lengths counted.
   */
  glenTimed: Float64Array;
  glenP90: Float64Array;
  lenEntropy: Float64Array;
  util: Float64Array;
  smAct: Float64Array;
  smClk: Float64Array;
  temp: Float64Array;
  thr: Float64Array;
  gpus: GpuWindows[];
  torchAlloc: Float64Array;
  torchResv: Float64Array;
  accLen: Float64Array;
  loraActive: Float64Array;
  loraMax: Float64Array;
  rss: Float64Array;
  /** The hosts' memory in use, MemTotal − MemAvailable summed over hosts (node_exporter), bytes. */
  hostUsed: Float64Array;
  /** The lowest available share of a host's memory (exported as a share, else MemAvailable ÷ MemTotal). */
  memAvail: Float64Array;
  swap: Float64Array;
  /** CPU cores the serving process used (rate of process_cpu_seconds_total), the busiest process where there are several. */
  hostCpu: Float64Array;
  /** KV pool size in tokens (num_gpu_blocks × block_size from vLLM's cache_config_info), NaN unknown. */
  kvCapacityTokens: number;
  /** Largest batch CUDA graphs were captured for, from the engine's startup log; NaN unknown. */
  cudaGraphMax: number;
  /** Share of decode passes that ran eager, no CUDA graph (SGLang's cuda_graph_passes_total, or its decode log lines); NaN where none were counted. */
  eager: Float64Array;
  /**
   * Engine steps (forward passes) a second where the engine counts them: TGI's forward passes, vLLM's
   * iteration-token observations, SGLang's graph passes. TGI counts generated tokens only when a request
   * ends, so a few long requests and none finishing read 0 tokens/s while the engine steps on. NaN unknown.
   */
  steps: Float64Array;
  /** Seconds a gateway held a served request beyond its engine's answer (access logs' request_time − upstream_response_time), mean; NaN unknown. */
  gatewayExtra: Float64Array;
  /** 1 where no request finished, none produced a token, the engine made no step and some were in flight: the latency is a lower bound. */
  stalled: Uint8Array;
}

const nan = (n: number) => new Float64Array(n).fill(NaN);

/** Whether the engine counted a step in window i: it is at work, whatever its token counter says. */
export const stepping = (f: Frame, i: number): boolean => f.steps[i] > 0;

/** Decode time per token, on the exact mean where the engine exports one (a median read off buckets moves in bucket jumps). */
export const itlReading = (f: Frame): Float64Array => (f.itlMean.some(Number.isFinite) ? f.itlMean : f.itl50);

/** Series read off log lines: `vllm-log:…` (vLLM and TGI), `sglang-log:…`, `kernel-log:…`. */
const LOG_METRIC = /^[a-z]+-log:/;

/**
 * Where a series came from, most direct first: a scraped metric, a value parsed from a log line
 * (`metric` "vllm-log:…", "sglang-log:…"), a figure derived from sampled spans (`from` "spans").
 */
function sourceRank(labels: Record<string, string>): number {
  if (labels.from === 'spans') return 2;
  if (labels.metric !== undefined && LOG_METRIC.test(labels.metric)) return 1;
  return 0;
}

/** The most direct source a signal has (sourceRank), Infinity where it has none. */
function bestRank(sig: Signals, name: string): number {
  return Math.min(...(sig.series.get(name) ?? []).map((s) => sourceRank(s.labels)));
}

/**
 * One reading per signal and engine. The same quantity often arrives twice — the Prometheus gauge and
 * the log line's `Running:`, the V0 and V1 spelling of one metric (told apart only by `metric`), span
 * figures over a sample of the requests — and adding those would double it. Keep the most direct
 * source present, and within it one series per label set once `metric` is set aside (the longest).
 */
export function pickSources<T extends { labels: Record<string, string> }>(list: readonly T[] | undefined, size: (x: T) => number): T[] {
  if (!list?.length) return [];
  const best = Math.min(...list.map((x) => sourceRank(x.labels)));
  const by = new Map<string, T>();
  for (const x of list) {
    if (sourceRank(x.labels) !== best) continue;
    const key = engineKey(x.labels);
    const had = by.get(key);
    if (!had || size(x) > size(had)) by.set(key, x);
  }
  return [...by.values()];
}

/** The series of one canonical name, one source each (see pickSources). */
const seriesOf = (sig: Signals, name: string): LoadedSeries[] => pickSources(sig.series.get(name), sizeOf);
const histogramsOf = (sig: Signals, name: string): LoadedHistogram[] => pickSources(sig.histograms.get(name), sizeOf);

/** The threshold a gauge's share of samples is counted against (frac): KV usage at `kvFull`, no other. */
export const gaugeAbove = (name: string, kvFull: number): number => (name === SIG.kvUsage ? kvFull : Infinity);

/** Signals buildFrame buckets as gauges (gauges(), perGpu()). */
const GAUGE_READS: ReadonlySet<string> = new Set([
  SIG.kvUsage, SIG.reqRunning, SIG.reqWaiting, SIG.tokensPromptRate, SIG.tokensGenerationRate, SIG.kvPrefixHitRate, SIG.gpuMemUsed, SIG.gpuMemTotal,
  SIG.gpuSmClock, SIG.gpuTemp, SIG.gpuPower, SIG.gpuSmActive, SIG.gpuUtil, SIG.gpuGrActive, SIG.torchAllocated, SIG.torchReserved, SIG.specAcceptLen, SIG.loraActive,
  SIG.loraAdapter, SIG.hostRss, SIG.hostMemAvailable, SIG.hostMemAvailableBytes, SIG.hostMemTotal, SIG.gatewayExtra,
]);

/** Signals buildFrame reads as counters (rates(), histogramMean()'s `.sum` and `.count`). */
const COUNTER_READS: ReadonlySet<string> = new Set([
  SIG.reqFinished, SIG.reqArrivals, countOf(SIG.latE2e), SIG.reqErrors, SIG.kvPrefixHits, SIG.kvPrefixQueries, SIG.tokensPrompt, SIG.tokensGeneration, SIG.kvPreemptions,
  SIG.specAcceptedTokens, SIG.specDrafts, SIG.hostSwap, SIG.hostCpuSeconds, SIG.engineGraphPasses, countOf(SIG.batchForward), countOf(SIG.batchTokens),
  ...[SIG.latItl, SIG.latTtft, SIG.latE2e, SIG.latQueue, SIG.latPrefill, SIG.latValidation, SIG.reqPromptLen, SIG.reqGenLen].flatMap((h) => [`${h}.sum`, `${h}.count`]),
]);

/**
 * How buildFrame buckets a signal, so a series scanned before the frame (series-buckets.ts signalGrid)
 * keeps what the frame will ask for, no more; null for a signal it does not bucket. A signal missing
 * here is still read right, by a second scan: test/unit/model/series-buckets.test.ts counts them.
 */
export function frameReads(name: string, kvFull: number): FoldKinds | null {
  if (GAUGE_READS.has(name)) return { gauge: { above: gaugeAbove(name, kvFull) } };
  if (COUNTER_READS.has(name)) return { counter: true };
  if (name === SIG.gpuThrottleReasons) return { bits: true };
  return null;
}

/**
 * Host memory from node_exporter: each host's MemAvailable paired with its MemTotal by their labels less the
 * metric's name (one host, one pair); used = total − available, summed over hosts; the available share the
 * lowest host's, where no share is exported as such.
 */
function hostMemory(sig: Signals, g: WindowGrid): { hostUsed: Float64Array; memAvail: Float64Array } {
  const key = (s: LoadedSeries) => JSON.stringify(Object.entries(s.labels).filter(([k]) => k !== 'metric').sort());
  const totals = new Map(seriesOf(sig, SIG.hostMemTotal).map((s) => [key(s), s]));
  const used: Float64Array[] = [];
  const shares: Float64Array[] = [];
  for (const avail of seriesOf(sig, SIG.hostMemAvailableBytes)) {
    const total = totals.get(key(avail));
    if (!total) continue;
    const [a] = gauges([avail], g);
    const [t] = gauges([total], g);
    used.push(a.mean.map((x, i) => t.mean[i] - x));
    shares.push(a.mean.map((x, i) => (t.mean[i] > 0 ? x / t.mean[i] : NaN)));
  }
  const given = seriesOf(sig, SIG.hostMemAvailable);
  return {
    hostUsed: combine(used, g, 'sum'),
    memAvail: combine(given.length ? gauges(given, g).map((w) => w.mean) : shares, g, 'min'),
  };
}

/**
 * Combines per-series window arrays (replicas, devices) as PromQL's sum/max/min/avg combine instant
 * vectors: NaN where every series is NaN, and where some reported, a series that missed the window inside
 * its own cadence counts with its last value (heldWithinCadence). Without that, replicas scraped every 60 s at their own
 * phases, in 20 s windows timed by the engines' 10 s log lines, each report in one window of three, and
 * a sum over whichever reported swings by a whole replica from window to window (a fleet's RSS read as
 * a host leak).
 */
function combine(parts: Float64Array[], g: WindowGrid, op: 'sum' | 'max' | 'min' | 'mean'): Float64Array {
  const n = g.n;
  const out = nan(n);
  if (!parts.length) return out;
  const held = parts.length > 1 ? parts.map((p) => heldWithinCadence(p, g)) : parts;
  // A sum over the series that reported is another quantity where one that reported before and after the
  // window is silent in it: that window's sum is unknown. After a scrape gap the replicas' readings came
  // back one by one over a minute, and their RSS summed 5.6 → 15.0 → 17.6 → 21.0 GiB read as a host leak.
  const spans = op === 'sum' && held !== parts ? held.map(finiteSpan) : null;
  for (let i = 0; i < n; i++) {
    // A window where no series reported stays unknown, as one series' would.
    if (held !== parts && !parts.some((p) => Number.isFinite(p[i]))) continue;
    if (spans && held.some((p, k) => !Number.isFinite(p[i]) && spans[k][0] < i && i < spans[k][1])) continue;
    let acc = NaN;
    let cnt = 0;
    for (const p of held) {
      const x = p[i];
      if (!Number.isFinite(x)) continue;
      cnt++;
      if (Number.isNaN(acc)) acc = x;
      else if (op === 'sum' || op === 'mean') acc += x;
      else if (op === 'max') acc = Math.max(acc, x);
      else acc = Math.min(acc, x);
    }
    out[i] = op === 'mean' && cnt ? acc / cnt : acc;
  }
  return out;
}

/** The first and last window with a value, [-1, -1] where none has one. */
function finiteSpan(p: Float64Array): [number, number] {
  let a = 0;
  while (a < p.length && !Number.isFinite(p[a])) a++;
  if (a === p.length) return [-1, -1];
  let b = p.length - 1;
  while (!Number.isFinite(p[b])) b--;
  return [a, b];
}

/**
 * A series' windows with each silence no longer than its own cadence filled by the value before it: the
 * cadence is 1.5× the median length of its silences between values (a regular 60 s scrape in 20 s windows
 * leaves runs of the same few empty windows), at most PromQL's 5-minute look-back. A longer silence is
 * not a cadence but an outage or a gap, and stays unknown from its start. The last reading holds to the data's
 * end where that is within the cadence.
 */
export function heldWithinCadence(p: Float64Array, g: WindowGrid): Float64Array {
  const runs: number[] = [];
  let last = -1;
  for (let i = 0; i < p.length; i++) {
    if (!Number.isFinite(p[i])) continue;
    if (last >= 0 && i - last > 1) runs.push(i - last - 1);
    last = i;
  }
  if (!runs.length) return p;
  const hold = Math.min(Math.ceil(1.5 * median(runs)), Math.floor(LOOKBACK_MS / g.step));
  if (hold < 1) return p;
  const out = Float64Array.from(p);
  last = -1;
  for (let i = 0; i < p.length; i++) {
    if (!Number.isFinite(p[i])) continue;
    if (last >= 0 && i - last - 1 <= hold) out.fill(p[last], last + 1, i);
    last = i;
  }
  // The data's end is no silence: a series whose last reading came within its cadence of it was still there.
  if (p.length - 1 - last <= hold) out.fill(p[last], last + 1);
  return out;
}

/** PromQL's default look-back: the longest a replica's last value stands in for it in a combination. */
const LOOKBACK_MS = 5 * 60_000;

function gauges(list: LoadedSeries[] | undefined, g: WindowGrid, above = Infinity): GaugeWindows[] {
  return (list ?? []).map((s) => gaugeWindows(gaugeBucketsOf(s, g, above), g));
}

function rates(list: LoadedSeries[] | undefined, g: WindowGrid, filter?: (s: LoadedSeries) => boolean): Float64Array[] {
  return (list ?? []).filter((s) => !filter || filter(s)).map((s) => {
    const b = counterBucketsOf(s, g);
    return rateWindows(b.inc, b.dt, g);
  });
}

/** Rate of a counter, else the mean of a rate gauge (vLLM's log lines give tokens/s). */
function rateOrGauge(sig: Signals, counter: string, gauge: string, g: WindowGrid): Float64Array {
  const c = rates(seriesOf(sig, counter), g);
  if (c.length) return combine(c, g, 'sum');
  return combine(gauges(seriesOf(sig, gauge), g).map((w) => w.mean), g, 'sum');
}

export interface HistogramWindows {
  quantile(q: number): Float64Array;
  count: Float64Array;
  entropy: Float64Array;
  /** The first bucket's upper bound (the smallest finite `le`) over the layouts. */
  firstBound: number;
}

/**
 * Per window, the bucket counts added between the last snapshot at or before the window's start and the
 * last at or before its end. Series with the same bucket layout add up; different layouts are kept apart
 * and their quantiles combined by max (the slowest engine's tail).
 */
export function histogramWindows(list: LoadedHistogram[], g: WindowGrid): HistogramWindows | null {
  if (!list.length) return null;
  // Per layout, every window's counts summed over the series that share it (a window without a scrape
  // pair, or whose scrapes had another layout, adds nothing), window i's L counts from i·L.
  const groups = new Map<string, { le: number[]; cum: Float64Array }>();
  for (const h of list) {
    const d = histogramDeltas(h, g);
    const key = d.le.join(',');
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { le: d.le, cum: new Float64Array(g.n * d.le.length) }));
    const { cum } = group;
    const L = group.le.length;
    for (let i = 0; i < g.n; i++) {
      const from = d.at[i];
      if (from < 0 || d.len[i] !== L) continue;
      for (let j = 0, o = i * L; j < L; j++) cum[o + j] += d.buf[from + j];
    }
  }
  const merged = [...groups.values()];
  const count = new Float64Array(g.n);
  const entropy = nan(g.n);
  const L0 = merged[0].le.length;
  for (let i = 0; i < g.n; i++) {
    for (const m of merged) count[i] += m.cum[i * m.le.length + m.le.length - 1] ?? 0;
    entropy[i] = histogramEntropy(merged[0].cum, i * L0, L0);
  }
  return {
    count,
    entropy,
    firstBound: Math.min(...merged.map((m) => m.le.find((x) => Number.isFinite(x)) ?? Infinity)),
    quantile(q: number) {
      const out = nan(g.n);
      for (let i = 0; i < g.n; i++) for (const m of merged) {
        const x = histogramQuantile(q, m.le, m.cum, i * m.le.length);
        if (Number.isFinite(x) && !(out[i] >= x)) out[i] = x;
      }
      return out;
    },
  };
}

/** Mean per window from a histogram's `.sum` and `.count` companion counters. */
function histogramMean(sig: Signals, name: string, g: WindowGrid): Float64Array {
  const s = combine(rates(seriesOf(sig, `${name}.sum`), g), g, 'sum');
  const c = combine(rates(seriesOf(sig, `${name}.count`), g), g, 'sum');
  const out = nan(g.n);
  for (let i = 0; i < g.n; i++) if (c[i] > 0) out[i] = s[i] / c[i];
  return out;
}

/**
 * Where nothing counts output tokens (TGI scraped without its generated-tokens histogram), the mean inference
 * time over the mean time per token: TGI's router observes a request's time per token as its inference time
 * divided by its generated tokens, so the two sums' quotient is the requests' output length weighted by their
 * time per token — what a drift in lengths moves, at the same ITL. NaN throughout where lengths are counted.
 */
function timedOutputLength(counted: Float64Array, inference: () => Float64Array, itlMean: Float64Array): Float64Array {
  if (counted.some(Number.isFinite)) return nan(counted.length);
  const inferenceMean = inference();
  const out = nan(counted.length);
  for (let i = 0; i < out.length; i++) if (itlMean[i] > 0 && Number.isFinite(inferenceMean[i])) out[i] = inferenceMean[i] / itlMean[i];
  return out;
}

/** The request facts read per window (RequestFact fields holding a number). */
type RequestField = 'e2e_s' | 'ttft_s' | 'queue_s' | 'prompt_tokens' | 'output_tokens';

/**
 * Requests bucketed by their end: per window the values of its k buckets, ascending (for quantiles,
 * means and the length entropy). Each bucket is sorted once and a window's values are its buckets merged
 * in bucket order, equal values from the earlier bucket first: the very array a stable sort of the
 * window's values in bucket order gives, for k merges a window instead of a sort of the whole window
 * (half a million spans over a day sorted every window's values again, k times over).
 */
function requestWindows(reqs: RequestFact[], g: WindowGrid, field: RequestField): number[][] {
  const perBucket: number[][] = Array.from({ length: g.nb }, () => []);
  for (const r of reqs) {
    const x = r[field];
    if (x === null || !Number.isFinite(x)) continue;
    const b = Math.floor((r.end_ms - g.t0) / g.step);
    if (b >= 0 && b < g.nb) perBucket[b].push(x);
  }
  for (const b of perBucket) if (b.length > 1) b.sort((x, y) => x - y);
  const out: number[][] = new Array(g.n);
  for (let i = 0; i < g.n; i++) {
    let w = perBucket[i];
    for (let j = i + 1; j < i + g.k; j++) w = mergeAscending(w, perBucket[j]);
    out[i] = w;
  }
  return out;
}

/** Two ascending arrays as one, ties taken from `a` first (arrays are shared, never written). */
function mergeAscending(a: number[], b: number[]): number[] {
  if (!b.length) return a;
  if (!a.length) return b;
  const out: number[] = new Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let o = 0;
  while (i < a.length && j < b.length) out[o++] = a[i] - b[j] <= 0 ? a[i++] : b[j++];
  while (i < a.length) out[o++] = a[i++];
  while (j < b.length) out[o++] = b[j++];
  return out;
}

const sortedQuantile = (v: number[], q: number) => (v.length ? v[Math.min(v.length - 1, Math.max(0, Math.ceil(q * v.length) - 1))] : NaN);
const sortedMean = (v: number[]) => (v.length ? v.reduce((a, b) => a + b, 0) / v.length : NaN);

/** Entropy of token lengths over log2 bins, normalised by the log of the bin count. */
const LENGTH_BINS = 24;
function lengthEntropy(v: number[]): number {
  if (v.length < 2) return NaN;
  const bins = new Float64Array(LENGTH_BINS);
  for (const x of v) bins[Math.min(LENGTH_BINS - 1, Math.floor(Math.log2(Math.max(1, x))))]++;
  let h = 0;
  for (const c of bins) if (c > 0) h -= (c / v.length) * Math.log(c / v.length);
  return h / Math.log(LENGTH_BINS);
}

/**
 * One GPU as the model sees it: its index on its machine, and a MIG instance of it apart (dcgm-exporter's
 * GPU_I_ID: each instance has its own memory and load; merged, the last one read stood for all, and a slice 90%
 * full read as an idle one). Machines are told apart by host, else by the exporter or file the reading came
 * from (two nodes both have a GPU 0).
 */
function gpuKey(labels: Record<string, string>): string {
  const gpu = labels.gpu ?? labels.device ?? labels.uuid ?? labels.UUID ?? labels.gpu_uuid ?? labels.minor_number ?? '0';
  const id = labels.GPU_I_ID !== undefined && labels.GPU_I_ID !== '' ? `${gpu}/mig${labels.GPU_I_ID}` : gpu;
  const machine = labels.host || labels.Hostname || labels.instance || labels.node || labels.pod;
  return machine ? `${machine}/${id}` : id;
}

function perGpu(sig: Signals, g: WindowGrid): GpuWindows[] {
  const by = new Map<string, GpuWindows>();
  const slot = (s: LoadedSeries): GpuWindows => {
    const key = gpuKey(s.labels);
    let x = by.get(key);
    if (!x) {
      x = { key, labels: s.labels, memUsed: nan(g.n), memTotal: nan(g.n), clk: nan(g.n), temp: nan(g.n), power: nan(g.n), smAct: nan(g.n), util: nan(g.n), thr: nan(g.n) };
      by.set(key, x);
    }
    return x;
  };
  const fields: [string, keyof GpuWindows, 'mean' | 'max'][] = [
    [SIG.gpuMemUsed, 'memUsed', 'mean'],
    [SIG.gpuMemTotal, 'memTotal', 'max'],
    [SIG.gpuSmClock, 'clk', 'mean'],
    [SIG.gpuTemp, 'temp', 'mean'],
    [SIG.gpuPower, 'power', 'mean'],
    [SIG.gpuSmActive, 'smAct', 'mean'],
    [SIG.gpuUtil, 'util', 'mean'],
  ];
  for (const [name, field, how] of fields)
    for (const s of sig.series.get(name) ?? []) {
      const w = gaugeWindows(gaugeBucketsOf(s, g), g);
      (slot(s)[field] as Float64Array).set(w[how]);
    }
  // A MIG instance has no GPU_UTIL (dcgm-exporter gives it PROF_GR_ENGINE_ACTIVE instead): a GPU with no
  // utilisation reading takes its graphics engine's activity; one with both keeps GPU_UTIL.
  for (const s of sig.series.get(SIG.gpuGrActive) ?? []) {
    const x = slot(s);
    if (!x.util.some(Number.isFinite)) x.util.set(gaugeWindows(gaugeBucketsOf(s, g), g).mean);
  }
  for (const s of sig.series.get(SIG.gpuThrottleReasons) ?? []) {
    const bits = bitsBucketsOf(s, g);
    const out = slot(s).thr;
    for (let i = 0; i < g.n; i++) {
      let acc = NaN;
      for (let j = i; j < i + g.k; j++) if (!Number.isNaN(bits[j])) acc = (Number.isNaN(acc) ? 0 : acc) | bits[j];
      out[i] = acc;
    }
  }
  return [...by.values()].sort((a, b) => (a.key < b.key ? -1 : 1));
}

/** Max over devices of a per-device gauge (the device closest to its limit matters). */
function perDeviceMax(list: LoadedSeries[] | undefined, g: WindowGrid): Float64Array {
  return combine(gauges(list, g).map((w) => w.mean), g, 'max');
}

export function buildFrame(sig: Signals, g: WindowGrid, kvFull: number): Frame {
  return inOneRead(sig, () => frameOf(sig, g, kvFull));
}

function frameOf(sig: Signals, g: WindowGrid, kvFull: number): Frame {
  const n = g.n;
  const have = new Set<string>([...sig.series.keys(), ...sig.histograms.keys()]);
  if (sig.requests.length) have.add('spans');
  if (sig.events.length) have.add('events');
  const t = new Float64Array(n);
  for (let i = 0; i < n; i++) t[i] = windowStart(g, i);

  const kvW = gauges(seriesOf(sig, SIG.kvUsage), g, gaugeAbove(SIG.kvUsage, kvFull));
  const runW = gauges(seriesOf(sig, SIG.reqRunning), g);
  const waitW = gauges(seriesOf(sig, SIG.reqWaiting), g);
  const hist = (name: string) => histogramWindows(histogramsOf(sig, name), g);
  const e2e = hist(SIG.latE2e);
  const ttft = hist(SIG.latTtft);
  const itl = hist(SIG.latItl);
  const queue = hist(SIG.latQueue);
  const plenH = hist(SIG.reqPromptLen);
  const glenH = hist(SIG.reqGenLen);

  // Completions from the most direct source: the engine's own finished counter, else its e2e histogram's
  // count; a finished count derived from traced requests counts only the sampled ones (SGLang exports no
  // finished counter, and a 1% trace sample read as the completion rate made arrivals 1/100 of the truth).
  let lamOut = combine(rates(seriesOf(sig, SIG.reqFinished), g), g, 'sum');
  if (!have.has(SIG.reqFinished) || bestRank(sig, SIG.reqFinished) > bestRank(sig, countOf(SIG.latE2e))) {
    const c = combine(rates(seriesOf(sig, countOf(SIG.latE2e)), g), g, 'sum');
    if (c.some(Number.isFinite)) lamOut = c;
    else if (e2e) lamOut = e2e.count.map((x) => x / (g.W / 1000));
  }
  const abort = combine(rates(seriesOf(sig, SIG.reqFinished), g, (s) => s.labels.reason === 'abort' || s.labels.finished_reason === 'abort'), g, 'sum');
  const errRate = combine(rates(seriesOf(sig, SIG.reqErrors), g), g, 'sum');
  const errFrac = nan(n);
  for (let i = 0; i < n; i++) {
    if (!Number.isFinite(errRate[i])) continue;
    const done = Number.isFinite(lamOut[i]) ? lamOut[i] : 0;
    errFrac[i] = errRate[i] > 0 ? errRate[i] / Math.max(errRate[i], done) : 0;
  }
  const hits = combine(rates(seriesOf(sig, SIG.kvPrefixHits), g), g, 'sum');
  const queries = combine(rates(seriesOf(sig, SIG.kvPrefixQueries), g), g, 'sum');
  const hit = nan(n);
  for (let i = 0; i < n; i++) if (queries[i] > 0) hit[i] = Math.min(1, hits[i] / queries[i]);
  // Without the counters (SGLang exports only cache_hit_rate; vLLM's log line), the engine's own windowed
  // hit-rate gauge is the reading: less exact (it covers the engine's recent queries), better than none.
  if (!hit.some(Number.isFinite)) hit.set(combine(gauges(seriesOf(sig, SIG.kvPrefixHitRate), g).map((w) => w.mean), g, 'mean'));

  // Each fact's windows are made once and read by every quantile, mean and entropy of it.
  const served = sig.requests.filter((r) => r.side !== 'client');
  const windowsOf = new Map<RequestField, number[][]>();
  const spansBy = (f: RequestField): number[][] => {
    let w = windowsOf.get(f);
    if (!w) windowsOf.set(f, (w = requestWindows(served, g, f)));
    return w;
  };
  const fromSpans = (f: RequestField, q: number | 'mean') => (sig.requests.length ? spansBy(f).map((v) => (q === 'mean' ? sortedMean(v) : sortedQuantile(v, q))) : nan(n));
  const histOr = (h: HistogramWindows | null, q: number, f: RequestField) => (h ? h.quantile(q) : Float64Array.from(fromSpans(f, q)));

  const ptok = rateOrGauge(sig, SIG.tokensPrompt, SIG.tokensPromptRate, g);
  const gtok = rateOrGauge(sig, SIG.tokensGeneration, SIG.tokensGenerationRate, g);
  const lengthMean = (name: string, h: HistogramWindows | null, f: RequestField, tokRate: Float64Array) => {
    const m = histogramMean(sig, name, g);
    if (m.some(Number.isFinite)) return m;
    if (sig.requests.some((r) => r[f] !== null)) return Float64Array.from(fromSpans(f, 'mean'));
    if (h) return nan(n);
    const out = nan(n);
    for (let i = 0; i < n; i++) if (lamOut[i] > 0) out[i] = tokRate[i] / lamOut[i];
    return out;
  };
  const promptOf: RequestField = 'prompt_tokens';
  const outputOf: RequestField = 'output_tokens';
  const itlMean = histogramMean(sig, SIG.latItl, g);
  const glenMean = lengthMean(SIG.reqGenLen, glenH, outputOf, gtok);
  const spanLengths = sig.requests.some((r) => r.prompt_tokens !== null) ? spansBy(promptOf) : null;

  const gpus = perGpu(sig, g);
  const frame: Frame = {
    grid: g,
    t,
    have,
    kv: combine(kvW.map((w) => w.mean), g, 'max'),
    kvMax: combine(kvW.map((w) => w.max), g, 'max'),
    kvFrac: combine(kvW.map((w) => w.frac), g, 'max'),
    run: combine(runW.map((w) => w.mean), g, 'sum'),
    runMax: combine(runW.map((w) => w.max), g, 'sum'),
    runMin: combine(runW.map((w) => w.min), g, 'sum'),
    wait: combine(waitW.map((w) => w.mean), g, 'sum'),
    waitMax: combine(waitW.map((w) => w.max), g, 'sum'),
    waitMin: combine(waitW.map((w) => w.min), g, 'sum'),
    gtok,
    ptok,
    lamOut,
    lamIn: nan(n),
    abort,
    errFrac,
    preempt: combine(rates(seriesOf(sig, SIG.kvPreemptions), g), g, 'sum'),
    gatewayExtra: combine(gauges(seriesOf(sig, SIG.gatewayExtra), g).map((w) => w.mean), g, 'mean'),
    steps: combine([SIG.batchForward, SIG.batchTokens].flatMap((h) => rates(seriesOf(sig, countOf(h)), g)).concat(rates(seriesOf(sig, SIG.engineGraphPasses), g)), g, 'sum'),
    hit,
    e2e99: histOr(e2e, 0.99, 'e2e_s'),
    e2e50: histOr(e2e, 0.5, 'e2e_s'),
    ttft99: histOr(ttft, 0.99, 'ttft_s'),
    ttft50: histOr(ttft, 0.5, 'ttft_s'),
    itl50: itl ? itl.quantile(0.5) : nan(n),
    itl99: itl ? itl.quantile(0.99) : nan(n),
    itl98: itl ? itl.quantile(0.98) : nan(n),
    itlMean,
    q95: histOr(queue, 0.95, 'queue_s'),
    q99: histOr(queue, 0.99, 'queue_s'),
    ttftMean: histogramMean(sig, SIG.latTtft, g),
    e2eMean: histogramMean(sig, SIG.latE2e, g),
    queueMean: histogramMean(sig, SIG.latQueue, g),
    prefillMean: histogramMean(sig, SIG.latPrefill, g),
    validationMean: histogramMean(sig, SIG.latValidation, g),
    plenMean: lengthMean(SIG.reqPromptLen, plenH, promptOf, ptok),
    plenP10: plenH ? plenH.quantile(0.1) : Float64Array.from(fromSpans(promptOf, 0.1)),
    plenP90: plenH ? plenH.quantile(0.9) : Float64Array.from(fromSpans(promptOf, 0.9)),
    plenP99: plenH ? plenH.quantile(0.99) : Float64Array.from(fromSpans(promptOf, 0.99)),
    glenMean,
    glenTimed: timedOutputLength(glenMean, () => histogramMean(sig, SIG.latInference, g), itlMean),
    glenP90: glenH ? glenH.quantile(0.9) : Float64Array.from(fromSpans(outputOf, 0.9)),
    lenEntropy: plenH ? plenH.entropy : spanLengths ? Float64Array.from(spanLengths.map(lengthEntropy)) : nan(n),
    util: combine(gpus.map((x) => x.util), g, 'mean'),
    smAct: combine(gpus.map((x) => x.smAct), g, 'mean'),
    smClk: combine(gpus.map((x) => x.clk), g, 'min'),
    temp: combine(gpus.map((x) => x.temp), g, 'max'),
    thr: combineBits(gpus.map((x) => x.thr), n),
    gpus,
    torchAlloc: perDeviceMax(seriesOf(sig, SIG.torchAllocated), g),
    torchResv: perDeviceMax(seriesOf(sig, SIG.torchReserved), g),
    accLen: accLen(sig, g),
    loraActive: loraInUse(sig, g),
    loraMax: loraSlots(sig, g),
    rss: combine(gauges(seriesOf(sig, SIG.hostRss), g).map((w) => w.mean), g, 'sum'),
    ...hostMemory(sig, g),
    swap: combine(rates(seriesOf(sig, SIG.hostSwap), g), g, 'sum'),
    hostCpu: combine(rates(seriesOf(sig, SIG.hostCpuSeconds), g), g, 'max'),
    kvCapacityTokens: kvCapacity(sig),
    cudaGraphMax: lastValue(seriesOf(sig, SIG.engineCudaGraphMax)),
    eager: eagerShare(sig, g),
    stalled: new Uint8Array(n),
  };
  markovBound(frame.q95, frame.queueMean, 0.95);
  markovBound(frame.q99, frame.queueMean, 0.99);
  if (queue) {
    firstBucketTail(frame.q95, frame.queueMean, 0.95, queue.firstBound);
    firstBucketTail(frame.q99, frame.queueMean, 0.99, queue.firstBound);
  }
  arrivals(frame, combine(rates(seriesOf(sig, SIG.reqArrivals), g), g, 'sum'));
  applyStallBound(frame);
  return frame;
}

/**
 * A quantile interpolated inside the first bucket [0, b] says only "below b": vLLM's queue-time buckets
 * start at 0.3 s, so a healthy queue reads P95 = 0.285 s whatever it is, and the queue score alone would
 * call every healthy window degraded. There the mean carries the information: waiting times in a queue
 * have a near-exponential tail, whose q-quantile is −mean·ln(1 − q).
 */
function firstBucketTail(qx: Float64Array, mean: Float64Array, q: number, firstBound: number): void {
  const k = -Math.log(1 - q);
  for (let i = 0; i < qx.length; i++) if (Number.isFinite(qx[i]) && qx[i] <= firstBound && mean[i] >= 0) qx[i] = Math.min(qx[i], mean[i] * k);
}

/**
 * Caps a quantile of a non-negative latency by Markov's inequality, P(X ≥ x) ≤ mean/x, so the q-quantile
 * is at most mean/(1 − q). Interpolating inside a histogram's first bucket places the quantile near that
 * bucket's bound (vLLM's queue buckets start at 0.3 s, so a queue of a few ms reads ~0.29 s); the mean
 * from the `.sum`/`.count` counters is exact and bounds it honestly.
 */
function markovBound(qx: Float64Array, mean: Float64Array, q: number): void {
  for (let i = 0; i < qx.length; i++) if (Number.isFinite(qx[i]) && mean[i] >= 0) qx[i] = Math.min(qx[i], mean[i] / (1 - q));
}

/**
 * Arrivals from the engine's own counter where it has one (TGI's request_count), else lam_in ≈ lam_out +
 * d(run + wait)/dt: the inference misses requests that leave unfinished (a client that gave up in the
 * queue is in neither the finished count nor the occupancy), and a surge that drove clients to time out
 * read as 1.2× where 1.7× arrived. The occupancy difference is taken between the nearest windows on either
 * side that have data: a window without a scrape is unknown, and reading it as an empty engine would
 * swing the arrival rate by ±occupancy/W around every gap.
 */
function arrivals(f: Frame, counted: Float64Array): void {
  const n = f.grid.n;
  if (counted.some(Number.isFinite)) {
    for (let i = 0; i < n; i++) f.lamIn[i] = counted[i];
    return;
  }
  const occ = new Float64Array(n).fill(NaN);
  for (let i = 0; i < n; i++) {
    const r = f.run[i];
    const w = f.wait[i];
    if (Number.isFinite(r) || Number.isFinite(w)) occ[i] = (Number.isFinite(r) ? r : 0) + (Number.isFinite(w) ? w : 0);
  }
  for (let i = 0; i < n; i++) {
    if (!Number.isFinite(f.lamOut[i])) continue;
    let a = i - 1;
    while (a >= 0 && i - a <= ARRIVAL_REACH && !Number.isFinite(occ[a])) a--;
    let b = i + 1;
    while (b < n && b - i <= ARRIVAL_REACH && !Number.isFinite(occ[b])) b++;
    if (!(a >= 0 && i - a <= ARRIVAL_REACH && Number.isFinite(occ[a]))) a = Number.isFinite(occ[i]) ? i : -1;
    if (!(b < n && b - i <= ARRIVAL_REACH && Number.isFinite(occ[b]))) b = Number.isFinite(occ[i]) ? i : -1;
    const dOcc = a >= 0 && b > a ? ((occ[b] - occ[a]) / ((f.t[b] - f.t[a]) / 1000)) : 0;
    f.lamIn[i] = Math.max(0, f.lamOut[i] + dOcc);
  }
}

/** Windows searched on either side for an occupancy reading (a missed scrape or two). */
const ARRIVAL_REACH = 3;

/** Sum over engines of num_gpu_blocks × block_size, read off the cache-config info series' labels. */
function kvCapacity(sig: Signals): number {
  let total = 0;
  for (const s of seriesOf(sig, SIG.engineCacheConfig)) {
    const blocks = Number(s.labels.num_gpu_blocks);
    const size = Number(s.labels.block_size);
    if (blocks > 0 && size > 0) total += blocks * size;
  }
  return total > 0 ? total : kvCapacityFromUse(sig);
}

/**
 * The pool's size where no cache config says it (SGLang): tokens in use ÷ the pool's usage, read at the
 * same instant on the same engine (SGLang's num_used_tokens and token_usage, or one log line's "#token"
 * and "token usage"), the median per engine, summed over engines. NaN without such pairs.
 */
function kvCapacityFromUse(sig: Signals): number {
  const usage = new Map<string, LoadedSeries>();
  for (const s of seriesOf(sig, SIG.kvUsage)) usage.set(engineKey(s.labels), s);
  let total = 0;
  for (const used of seriesOf(sig, SIG.kvUsedTokens)) {
    const u = usage.get(engineKey(used.labels));
    if (!u) continue;
    const at = new Map<number, number>();
    for (let i = 0; i < u.t.length; i++) if (u.v[i] >= 0.05) at.set(u.t[i], u.v[i]);
    const sizes: number[] = [];
    for (let i = 0; i < used.t.length; i++) {
      const frac = at.get(used.t[i]);
      if (frac !== undefined && used.v[i] > 0) sizes.push(used.v[i] / frac);
    }
    if (sizes.length) total += median(sizes);
  }
  return total > 0 ? total : NaN;
}

/** One engine's labels, as pickSources keys them: the `metric` that tells spellings apart set aside. */
function engineKey(labels: Record<string, string>): string {
  const { metric: _metric, ...rest } = labels;
  return JSON.stringify(Object.entries(rest).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/**
 * A configured limit per window: logged once at startup, it holds until the next value (a restart with
 * other flags), so each window takes the latest value at or before its end.
 */
function holdLimit(list: LoadedSeries[], g: WindowGrid): Float64Array {
  const pts = list.flatMap((s) => Array.from(s.t, (t, i) => [t, s.v[i]] as const)).filter(([, v]) => Number.isFinite(v)).sort((a, b) => a[0] - b[0]);
  const out = nan(g.n);
  let k = -1;
  for (let i = 0; i < g.n; i++) {
    const end = windowStart(g, i) + g.W;
    while (k + 1 < pts.length && pts[k + 1][0] <= end) k++;
    if (k >= 0) out[i] = pts[k][1];
  }
  return out;
}

/** How far back an adapter named by lora_requests_info still counts as in use. */
const LORA_IN_USE_MS = 60_000;

/**
 * Adapters in use per window. Slots are per engine: replicas' adapters are neither additive nor pooled, so
 * the busiest engine is compared with its slots (vLLM's lora_requests_info carries them as its max_lora
 * label). vLLM lists only the adapters of the batch and of the queue, never more running than it has
 * slots: a thrash shows as more adapters taking turns in them, so an engine's count is the adapters it
 * named within the last minute (lora.adapter); without those series, the listed count (lora.active).
 */
function loraInUse(sig: Signals, g: WindowGrid): Float64Array {
  const out = combine(gauges(seriesOf(sig, SIG.loraActive), g).map((w) => w.max), g, 'max');
  const engines = new Map<string, Float64Array[]>();
  for (const s of seriesOf(sig, SIG.loraAdapter)) {
    const { adapter: _a, ...engine } = s.labels;
    const key = engineKey(engine);
    const seen = gaugeWindows(gaugeBucketsOf(s, g, Infinity), g).max;
    const list = engines.get(key);
    if (list) list.push(seen);
    else engines.set(key, [seen]);
  }
  for (const adapters of engines.values()) {
    const last = new Float64Array(adapters.length).fill(-Infinity);
    for (let i = 0; i < g.n; i++) {
      let any = false;
      for (let a = 0; a < adapters.length; a++) if (!Number.isNaN(adapters[a][i])) {
        last[a] = windowStart(g, i);
        any = true;
      }
      let inUse = 0;
      for (let a = 0; a < adapters.length; a++) if (windowStart(g, i) - last[a] < Math.max(LORA_IN_USE_MS, g.W)) inUse++;
      if (any || inUse) out[i] = Math.max(Number.isNaN(out[i]) ? 0 : out[i], inUse);
    }
  }
  return out;
}

/** Adapter slots: a lora.max series (from the engine's log), else the max_lora label of lora.active, held over the span. */
function loraSlots(sig: Signals, g: WindowGrid): Float64Array {
  const own = holdLimit(seriesOf(sig, SIG.loraMax), g);
  if (own.some(Number.isFinite)) return own;
  const fromLabel = seriesOf(sig, SIG.loraActive).map((s) => Number(s.labels.max_lora)).filter((x) => Number.isFinite(x) && x > 0);
  return nan(g.n).fill(fromLabel.length ? Math.min(...fromLabel) : NaN);
}

/** The latest sample over a set of series (a configured limit: the last start's value holds). */
function lastValue(list: LoadedSeries[]): number {
  let t = -Infinity;
  let v = NaN;
  for (const s of list) for (let i = 0; i < s.t.length; i++) if (s.t[i] >= t && Number.isFinite(s.v[i])) {
    t = s.t[i];
    v = s.v[i];
  }
  return v;
}

function combineBits(parts: Float64Array[], n: number): Float64Array {
  const out = nan(n);
  for (const p of parts) for (let i = 0; i < n; i++) if (!Number.isNaN(p[i])) out[i] = (Number.isNaN(out[i]) ? 0 : out[i]) | p[i];
  return out;
}

/**
 * The share of decode passes that ran eager: SGLang counts each forward pass by whether it replayed a CUDA
 * graph (mode decode_cuda_graph) or not (decode_none). A batch past the largest captured size runs eager,
 * so this is the fallback read directly, where vLLM's capture size must be read off its log or inferred.
 */
function eagerShare(sig: Signals, g: WindowGrid): Float64Array {
  const passes = (mode: string) => combine(rates(seriesOf(sig, SIG.engineGraphPasses), g, (s) => s.labels.mode === mode), g, 'sum');
  const eager = passes('decode_none');
  const graph = passes('decode_cuda_graph');
  const out = nan(g.n);
  for (let i = 0; i < g.n; i++) {
    const all = (Number.isFinite(eager[i]) ? eager[i] : 0) + (Number.isFinite(graph[i]) ? graph[i] : 0);
    if (all > 0) out[i] = (Number.isFinite(eager[i]) ? eager[i] : 0) / all;
  }
  return out;
}

/** Mean accepted length of speculative decoding: a gauge, or 1 + accepted ÷ drafts from counters. */
function accLen(sig: Signals, g: WindowGrid): Float64Array {
  const direct = combine(gauges(seriesOf(sig, SIG.specAcceptLen), g).map((w) => w.mean), g, 'mean');
  if (direct.some(Number.isFinite)) return direct;
  const acc = combine(rates(seriesOf(sig, SIG.specAcceptedTokens), g), g, 'sum');
  const drafts = combine(rates(seriesOf(sig, SIG.specDrafts), g), g, 'sum');
  const out = nan(g.n);
  for (let i = 0; i < g.n; i++) if (drafts[i] > 0) out[i] = 1 + acc[i] / drafts[i];
  return out;
}

/**
 * A stalled engine finishes nothing, so its latency histograms say nothing. Requests in flight since the
 * stall began are at least that old, so over a streak of windows with no completions, no tokens and
 * requests present, the elapsed time is a lower bound of the e2e (and, with a waiting queue, queue) latency.
 */
export function applyStallBound(f: Frame): void {
  const { n, W } = f.grid;
  let streakStart = NaN;
  for (let i = 0; i < n; i++) {
    const inFlight = (Number.isFinite(f.runMin[i]) ? f.runMin[i] : 0) + (Number.isFinite(f.waitMin[i]) ? f.waitMin[i] : 0);
    const noneDone = f.lamOut[i] === 0;
    const noTokens = (!Number.isFinite(f.gtok[i]) || f.gtok[i] === 0) && !stepping(f, i);
    const known = Number.isFinite(f.runMin[i]) || Number.isFinite(f.waitMin[i]);
    if (!(known && inFlight > 0 && noneDone && noTokens)) {
      streakStart = NaN;
      continue;
    }
    if (Number.isNaN(streakStart)) streakStart = f.t[i];
    const bound = (f.t[i] + W - streakStart) / 1000;
    f.stalled[i] = 1;
    f.e2e99[i] = Math.max(Number.isFinite(f.e2e99[i]) ? f.e2e99[i] : 0, bound);
    if (f.waitMin[i] > 0) {
      f.q95[i] = Math.max(Number.isFinite(f.q95[i]) ? f.q95[i] : 0, bound);
      f.q99[i] = Math.max(Number.isFinite(f.q99[i]) ? f.q99[i] : 0, bound);
    }
  }
}
