// The report's charts are the workstation's: the canonical charts the catalog marks for the report
// (common/charts/catalog.ts), grouped by the same code (series-groups.ts: the same series from the same
// source, the same legend text) and read the same way over the whole incident at MAX_POINTS buckets: the
// store's min/max per bucket (store/downsample.ts, the only min/max folding), counters as the rates of
// the bucket maxima and derived lines as the timeline computes them (group-columns.ts), latency histograms
// at P50/P95/P99 by queryQuantiles. So a figure in the postmortem is what the on-call engineer saw.
import { CHARTS, inReport } from '../../../common/charts/catalog';
import type { FetchWindow } from '../../../common/charts/buffered-window';
import { groupColumns, groupSeriesIds } from '../../../common/charts/group-columns';
import { groupSeries, type ChartGroup } from '../../../common/charts/series-groups';
import type { SeriesInfo } from '../../../common/contract/types';
import { formatPercent } from '../../../common/format';
import { SIG } from '../../../common/names';
import { DEFAULT_CONFIG } from '../model/config';
import { queryQuantiles } from '../series/histogram-quantiles';
import type { Store } from '../store/store';

export const MAX_POINTS = 600;
const MAX_LINES = 8;

export interface ChartLine {
  label: string;
  t: number[];
  /** Per point: the bucket's min and max (equal where a bucket holds one value, or for a rate or a quantile). */
  min: number[];
  max: number[];
}

export interface ChartData {
  id: string;
  title: string;
  /** The unit of the values (formatTicks reads it); said under the title. */
  unit: string;
  /** What the lines are, said once under the title. */
  note: string;
  lines: ChartLine[];
  /** Horizontal reference lines (capacity, thresholds). */
  refs: { value: number; label: string }[];
  /** Series that existed but did not fit on the chart. */
  omitted: number;
}

interface Span {
  start_ms: number;
  end_ms: number;
}

/** Reference lines the report draws on a chart: the KV level the model calls full, the GPUs' capacity. */
const REFS: Record<string, (all: SeriesInfo[], store: Store, span: Span) => ChartData['refs']> = {
  [CHARTS.kv.id]: () => [{ value: DEFAULT_CONFIG.causes.kv_full, label: `${formatPercent(DEFAULT_CONFIG.causes.kv_full)} (exhaustion level)` }],
  [CHARTS.gpuMem.id]: (all, store, span) => {
    const totals = all.filter((s) => s.name === SIG.gpuMemTotal && s.points > 0);
    let cap = 0;
    for (const d of store.querySeries(totals.map((s) => s.id), span.start_ms, span.end_ms, MAX_POINTS)) for (const v of d.max) cap = Math.max(cap, v);
    return cap > 0 ? [{ value: cap, label: 'capacity' }] : [];
  },
};

/** The whole incident as one fetch window of MAX_POINTS buckets. */
function reportWindow(span: Span): FetchWindow {
  const bucket = Math.max(1, Math.ceil((span.end_ms - span.start_ms) / MAX_POINTS));
  return { bucket_ms: bucket, start_ms: span.start_ms, end_ms: span.start_ms + bucket * MAX_POINTS, points: MAX_POINTS };
}

/** The report's charts for which the incident has data, in the timeline's order. */
export function gatherCharts(store: Store, incidentId: number, span: Span): ChartData[] {
  const all = store.listSeries(incidentId);
  const w = reportWindow(span);
  const out: ChartData[] = [];
  for (const g of groupSeries(all)) {
    if (!g.canonical || !inReport(g.id)) continue;
    const lines = readLines(store, g, w).filter((l) => l.t.length);
    if (!lines.length) continue;
    out.push({
      id: g.id,
      title: g.title,
      unit: g.unit,
      note: g.quantiles ? `${g.unit}, per window of at least two scrapes` : g.unit,
      lines: lines.slice(0, MAX_LINES),
      refs: REFS[g.id]?.(all, store, span) ?? [],
      omitted: Math.max(0, lines.length - MAX_LINES),
    });
  }
  return out;
}

function readLines(store: Store, g: ChartGroup, w: FetchWindow): ChartLine[] {
  if (g.quantiles) {
    const r = queryQuantiles(store, { series_id: g.quantiles.histogram.id, quantiles: g.quantiles.q, start_ms: w.start_ms, end_ms: w.end_ms, points: w.points });
    return g.series.map((s, i) => {
      // A window without observations is a gap (NaN), not a zero.
      const keep = r.t.map((_, k) => k).filter((k) => Number.isFinite(r.values[i][k]));
      const v = keep.map((k) => r.values[i][k]);
      return { label: s.label, t: keep.map((k) => r.t[k]), min: v, max: v };
    });
  }
  const data = store.querySeries(groupSeriesIds(g), w.start_ms, w.end_ms, w.points);
  const byId = new Map(data.map((d) => [d.series_id, d]));
  const cols = groupColumns(g, byId, w, 0);
  return g.series.map((s, i) => {
    const d = byId.get(s.info.id);
    // A gauge keeps the store's min/max per bucket, drawn as an envelope; rates and derived lines are one value a point.
    if (!s.derive && !s.asRate && d) return { label: s.label, t: d.t, min: d.min, max: d.max };
    const v = Array.from(cols[i].v);
    return { label: s.label, t: Array.from(cols[i].t), min: v, max: v };
  });
}
