// The report's key charts: which canonical series go on which chart, and how each is turned into
// plotted values (gauges as stored, counters as per-second rates, histograms as a quantile per scrape
// interval), never more than MAX_POINTS per line.
import type { SeriesInfo } from '../../../common/contract/types';
import { bucketDelta, histogramQuantile } from '../model/quantiles';
import type { Store } from '../store/store';
import { bestSource } from '../../../common/series-source';
import { counterRates } from '../../../common/counters';

export const MAX_POINTS = 600;
const MAX_LINES = 8;

export type ChartUnit = 'seconds' | 'bytes' | 'fraction' | 'per_s' | 'count' | 'mhz';

export interface ChartLine {
  label: string;
  t: number[];
  /** Per point: the bucket's min and max (equal where a bucket holds one value). */
  min: number[];
  max: number[];
}

export interface ChartData {
  id: string;
  title: string;
  unit: ChartUnit;
  /** What the lines are, said once under the title ("P99 per scrape interval"). */
  note: string;
  lines: ChartLine[];
  /** Horizontal reference lines (capacity, thresholds). */
  refs: { value: number; label: string }[];
  /** Series that existed but did not fit on the chart. */
  omitted: number;
}

interface ChartSpec {
  id: string;
  title: string;
  unit: ChartUnit;
  note: string;
  series: { name: string; label: string }[];
  refs?: (series: SeriesInfo[], store: Store, span: Span) => { value: number; label: string }[];
}

interface Span {
  start_ms: number;
  end_ms: number;
}

const LATENCY_QUANTILE = 0.99;

const SPECS: ChartSpec[] = [
  {
    id: 'latency',
    title: 'Request latency',
    unit: 'seconds',
    note: 'P99 per scrape interval (histograms) or as recorded',
    series: [
      { name: 'lat.e2e', label: 'e2e P99' },
      { name: 'lat.ttft', label: 'TTFT P99' },
      { name: 'lat.itl', label: 'ITL P99' },
      { name: 'lat.queue', label: 'queue P99' },
    ],
  },
  {
    id: 'tokens',
    title: 'Token throughput',
    unit: 'per_s',
    note: 'tokens per second',
    series: [
      { name: 'tokens.generation', label: 'generation' },
      { name: 'tokens.prompt', label: 'prompt' },
    ],
  },
  {
    id: 'requests',
    title: 'Requests running and waiting',
    unit: 'count',
    note: 'scheduler queue depth',
    series: [
      { name: 'req.running', label: 'running' },
      { name: 'req.waiting', label: 'waiting' },
    ],
  },
  {
    id: 'kv',
    title: 'KV-cache usage',
    unit: 'fraction',
    note: 'share of KV blocks in use',
    series: [{ name: 'kv.usage', label: 'KV usage' }],
    refs: () => [{ value: 0.95, label: '95% (exhaustion level)' }],
  },
  {
    id: 'gpu-memory',
    title: 'GPU memory',
    unit: 'bytes',
    note: 'device memory used, per GPU; PyTorch allocator where recorded',
    series: [
      { name: 'gpu.mem.used', label: 'used' },
      { name: 'torch.allocated', label: 'torch allocated' },
      { name: 'torch.reserved', label: 'torch reserved' },
    ],
    refs: (all, store, span) => {
      const totals = all.filter((s) => s.name === 'gpu.mem.total');
      let cap = 0;
      for (const s of totals) for (const v of store.querySeries([s.id], span.start_ms, span.end_ms, MAX_POINTS)[0].max) cap = Math.max(cap, v);
      return cap > 0 ? [{ value: cap, label: 'capacity' }] : [];
    },
  },
  {
    id: 'errors',
    title: 'Preemptions and errors',
    unit: 'per_s',
    note: 'events per second',
    series: [
      { name: 'kv.preemptions', label: 'preemptions' },
      { name: 'req.errors', label: 'errors' },
    ],
  },
  {
    id: 'gpu-util',
    title: 'GPU utilisation',
    unit: 'fraction',
    note: 'per GPU',
    series: [
      { name: 'gpu.util', label: 'utilisation' },
      { name: 'gpu.sm_active', label: 'SM active' },
    ],
  },
  {
    id: 'sm-clock',
    title: 'SM clock',
    unit: 'mhz',
    note: 'per GPU',
    series: [{ name: 'gpu.sm_clock', label: 'SM clock' }],
  },
];

/** The charts for which the incident has data, in a fixed order. */
export function gatherCharts(store: Store, incidentId: number, span: Span): ChartData[] {
  const all = store.listSeries(incidentId);
  const out: ChartData[] = [];
  for (const spec of SPECS) {
    const lines: ChartLine[] = [];
    let candidates = 0;
    for (const want of spec.series) {
      // One copy of each signal, as the workstation draws it: the engine's metrics before its log lines before spans.
      const matching = bestSource(all, want.name, (s) => s.points > 0 || s.kind === 'histogram');
      const suffixes = distinguishingLabels(matching);
      for (const s of matching) {
        const line = readLine(store, s, span);
        if (!line || !line.t.length) continue;
        candidates++;
        if (lines.length >= MAX_LINES) continue;
        lines.push({ ...line, label: suffixes.get(s.id) ? `${want.label} ${suffixes.get(s.id)}` : want.label });
      }
    }
    if (!lines.length) continue;
    out.push({
      id: spec.id,
      title: spec.title,
      unit: spec.unit,
      note: spec.note,
      lines,
      refs: spec.refs?.(all, store, span) ?? [],
      omitted: candidates - lines.length,
    });
  }
  return out;
}

/** Labels that tell the series of one name apart ("gpu=0"), so a legend is short. */
function distinguishingLabels(series: SeriesInfo[]): Map<number, string> {
  const keys = new Set<string>();
  for (const s of series) for (const k of Object.keys(s.labels)) keys.add(k);
  const varying = [...keys].sort().filter((k) => new Set(series.map((s) => s.labels[k] ?? '')).size > 1);
  return new Map(series.map((s) => [s.id, varying.map((k) => `${k}=${s.labels[k] ?? ''}`).join(' ')]));
}

function readLine(store: Store, s: SeriesInfo, span: Span): Omit<ChartLine, 'label'> | null {
  if (s.points > 0 && s.kind === 'counter') {
    const { t, v } = store.samples(s.id);
    const r = counterRates(t, v);
    return bucket(Array.from(r.t), Array.from(r.v), span);
  }
  if (s.points > 0) {
    const d = store.querySeries([s.id], span.start_ms, span.end_ms, MAX_POINTS)[0];
    return { t: d.t, min: d.min, max: d.max };
  }
  if (s.kind === 'histogram') {
    const snaps = store.histogramSnapshots(s.id);
    const t: number[] = [];
    const v: number[] = [];
    for (let i = 1; i < snaps.length; i++) {
      const q = intervalQuantile(snaps[i - 1], snaps[i], LATENCY_QUANTILE);
      if (q !== null) {
        t.push(snaps[i].t);
        v.push(q);
      }
    }
    return bucket(t, v, span);
  }
  return null;
}

/** The q-quantile of what was observed between two cumulative bucket snapshots; null when nothing was. */
export function intervalQuantile(a: { le: number[]; counts: number[] }, b: { le: number[]; counts: number[] }, q: number): number | null {
  const sameBuckets = a.le.length === b.le.length && a.le.every((x, i) => x === b.le[i]);
  const v = histogramQuantile(q, b.le, bucketDelta(sameBuckets ? a.counts : null, b.counts));
  return Number.isFinite(v) ? v : null;
}

/** Min/max per equal slice of the span, the same folding the store applies to stored series. */
export function bucket(t: number[], v: number[], span: Span, points = MAX_POINTS): Omit<ChartLine, 'label'> {
  const inSpan = t.map((_, i) => i).filter((i) => t[i] >= span.start_ms && t[i] <= span.end_ms);
  if (inSpan.length <= points) return { t: inSpan.map((i) => t[i]), min: inSpan.map((i) => v[i]), max: inSpan.map((i) => v[i]) };
  const width = Math.max(1, span.end_ms - span.start_ms);
  const out = { t: [] as number[], min: [] as number[], max: [] as number[] };
  let current = -1;
  for (const i of inSpan) {
    const k = Math.min(points - 1, Math.floor(((t[i] - span.start_ms) * points) / width));
    if (k !== current) {
      current = k;
      out.t.push(t[i]);
      out.min.push(v[i]);
      out.max.push(v[i]);
    } else {
      const j = out.t.length - 1;
      if (v[i] < out.min[j]) out.min[j] = v[i];
      if (v[i] > out.max[j]) out.max[j] = v[i];
    }
  }
  return out;
}
