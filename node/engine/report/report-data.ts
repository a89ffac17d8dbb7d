// Everything a report shows for one incident, gathered once from the Store and a Diagnosis into plain
// data, in a stable order, so the HTML and Markdown renderers only lay it out and agree on every fact.
import type { AlertFamily, Diagnosis, Preset, Quadrant } from '../../../common/contract/diagnosis';
import type { Annotation, EventRow, IncidentDetail, SourceInfo } from '../../../common/contract/types';
import type { Store } from '../store/store';
import { DISRUPTION_KINDS, verdictOf, type Verdict } from '../../../common/verdict';
import { DEFAULT_CONFIG } from '../model/config';
import { impactOf, type Impact } from './impact';
import { counterIncrease, counterRates } from '../../../common/counters';
import { gatherCharts, type ChartData } from './chart-series';

export const LOG_LINE_CAP = 200;
/** Entries of the chronological timeline: every disruption, the first error lines, alerts, notes. */
const TIMELINE_DISRUPTIONS_CAP = 60;
const TIMELINE_ERRORS_CAP = 20;
const LEAK_SITE_CAP = 10;

/** The thresholds of docs/four-quadrant-model.md §4–§6 for a preset. */
export interface Thresholds {
  latency_ms: number;
  throughput_drop: number;
  resource_R: number;
  service_S: number;
  error_rate: number;
}

export function thresholdsFor(preset: Preset): Thresholds {
  const c = DEFAULT_CONFIG;
  return { ...(c.presets[preset] ?? c.presets.default), resource_R: c.theta_R, service_S: c.theta_S, error_rate: c.error_rate };
}

export interface QuadrantRun {
  quadrant: Quadrant;
  start_ms: number;
  end_ms: number;
  windows: number;
}

export interface AlertBand {
  family: AlertFamily;
  start_ms: number;
  end_ms: number;
}

export interface KvRow {
  label: string;
  peak: number;
  mean: number;
  /** Share of samples at or above the level the model calls full (kv_full, 0.95). */
  near_full: number;
}

export interface KvSummary {
  usage: KvRow[];
  /** Preemptions counted over the incident (counter increase), null without the series. */
  preemptions: number | null;
  peak_preemption_rate: number | null;
  prefix_hit_rate: number | null;
}

export interface GpuMemoryRow {
  gpu: string;
  peak_used: number;
  capacity: number | null;
}

export interface LogLine extends EventRow {
  /** The diagnosis points at this line. */
  evidence: boolean;
}

/** One line of the incident's chronology. */
export interface TimelineEntry {
  t_ms: number;
  what: 'data' | 'onset' | 'alert' | 'resolved' | 'event' | 'note' | 'gap';
  text: string;
  /** Where it came from: a log file and line, a note's author, an alert family. */
  source: string;
  bad: boolean;
}

export interface ReportData {
  generated_ms: number;
  /** The verdict every view shows: status, root cause → chain, one onset. */
  verdict: Verdict;
  impact: Impact | null;
  /** Events, alerts and notes in time order. */
  timeline: TimelineEntry[];
  incident: Omit<IncidentDetail, 'sources'>;
  /** The span charts and offsets are drawn against. */
  span: { start_ms: number; end_ms: number };
  diagnosis: Diagnosis;
  thresholds: Thresholds;
  quadrant_path: QuadrantRun[];
  charts: ChartData[];
  alert_bands: AlertBand[];
  annotations: Annotation[];
  kv: KvSummary;
  gpu_memory: GpuMemoryRow[];
  leak_sites: { frames: string[]; live_bytes: number; allocs: number }[];
  leak_sites_from: 'diagnosis' | 'allocations' | null;
  logs: { lines: LogLine[]; matching: number };
  sources: SourceInfo[];
}

export function gatherReportData(store: Store, incidentId: number, diagnosis: Diagnosis, generatedMs: number): ReportData {
  const detail = store.getIncident(incidentId);
  if (!detail) throw new Error(`incident ${incidentId} does not exist in ${store.file}`);
  const { sources, ...incident } = detail;
  const span = {
    start_ms: incident.start_ms ?? diagnosis.incident.start_ms,
    end_ms: Math.max(incident.end_ms ?? diagnosis.incident.end_ms, (incident.start_ms ?? diagnosis.incident.start_ms) + 1),
  };
  const leak = leakSites(store, incidentId, diagnosis);
  const disruptions = store.queryEvents({ incident_id: incidentId, kinds: Object.keys(DISRUPTION_KINDS), limit: TIMELINE_DISRUPTIONS_CAP }).rows;
  const verdict = verdictOf(diagnosis, disruptions);
  const annotations = store.listAnnotations(incidentId);
  return {
    generated_ms: generatedMs,
    verdict,
    impact: impactOf(store, incidentId, diagnosis, verdict.onset_ms, span),
    timeline: chronology(store, incidentId, diagnosis, verdict, disruptions, annotations, span),
    incident,
    span,
    diagnosis,
    thresholds: thresholdsFor(diagnosis.preset),
    quadrant_path: quadrantPath(diagnosis),
    charts: gatherCharts(store, incidentId, span),
    alert_bands: diagnosis.alerts
      .map((a) => ({ family: a.family, start_ms: a.first_fired_ms, end_ms: a.resolved_ms ?? span.end_ms }))
      .sort((a, b) => a.start_ms - b.start_ms || compareText(a.family, b.family)),
    annotations,
    kv: kvSummary(store, incidentId),
    gpu_memory: gpuMemory(store, incidentId),
    leak_sites: leak.sites,
    leak_sites_from: leak.from,
    logs: logLines(store, incidentId, diagnosis),
    sources,
  };
}

/** What happened, in order: data start and end, the onset, alerts firing and resolving, crashes and errors, notes. */
function chronology(store: Store, incidentId: number, d: Diagnosis, v: Verdict, disruptions: EventRow[], notes: Annotation[], span: { start_ms: number; end_ms: number }): TimelineEntry[] {
  const out: TimelineEntry[] = [{ t_ms: span.start_ms, what: 'data', text: 'Data begin', source: '', bad: false }];
  if (v.onset_ms !== null) out.push({ t_ms: v.onset_ms, what: 'onset', text: `Incident onset (${v.status === 'explained' ? v.title : v.title.replace(/^Unexplained incident: /, 'unexplained: ')})`, source: 'diagnosis', bad: true });
  for (const a of d.alerts) {
    out.push({ t_ms: a.first_fired_ms, what: 'alert', text: `${a.family} alert fired`, source: 'alerts', bad: true });
    if (a.resolved_ms !== null) out.push({ t_ms: a.resolved_ms, what: 'resolved', text: `${a.family} alert resolved`, source: 'alerts', bad: false });
  }
  for (const g of d.gaps ?? []) out.push({ t_ms: g.start_ms, what: 'gap', text: `No data from any source until ${new Date(g.end_ms).toISOString().slice(11, 19)} UTC`, source: '', bad: true });
  const seen = new Set<number>();
  const where = (e: EventRow) => (e.source_path ? `${e.source_path}${e.line === null ? '' : `:${e.line}`}` : e.kind);
  for (const e of disruptions) {
    seen.add(e.id);
    out.push({ t_ms: e.ts_ms, what: 'event', text: `${DISRUPTION_KINDS[e.kind] ?? e.kind}: ${e.text}`, source: where(e), bad: true });
  }
  const errors = store.queryEvents({ incident_id: incidentId, severities: ['error', 'critical'], limit: TIMELINE_ERRORS_CAP + seen.size }).rows.filter((e) => !seen.has(e.id));
  for (const e of errors.slice(0, TIMELINE_ERRORS_CAP)) out.push({ t_ms: e.ts_ms, what: 'event', text: `${e.kind === 'log' ? e.severity : e.kind}: ${e.text}`, source: where(e), bad: true });
  notes.forEach((n, i) => out.push({ t_ms: n.start_ms, what: 'note', text: `A${i + 1} ${n.panel ? `(${n.panel}) ` : ''}${n.text}`, source: n.author || 'note', bad: false }));
  out.push({ t_ms: span.end_ms, what: 'data', text: 'Data end', source: '', bad: false });
  const order: Record<TimelineEntry['what'], number> = { data: 0, gap: 1, onset: 2, alert: 3, resolved: 4, event: 5, note: 6 };
  const rank = (e: TimelineEntry) => (e === out[out.length - 1] ? 9 : order[e.what]);
  return out.sort((a, b) => a.t_ms - b.t_ms || rank(a) - rank(b));
}

/** Consecutive windows of one quadrant folded into a run: the path through the quadrants. */
export function quadrantPath(d: Diagnosis): QuadrantRun[] {
  const w = [...d.windows].sort((a, b) => a.t_ms - b.t_ms);
  const runs: QuadrantRun[] = [];
  for (let i = 0; i < w.length; i++) {
    const last = runs[runs.length - 1];
    const end = i + 1 < w.length ? w[i + 1].t_ms : w[i].t_ms;
    if (last && last.quadrant === w[i].quadrant) {
      last.end_ms = end;
      last.windows++;
    } else runs.push({ quadrant: w[i].quadrant, start_ms: w[i].t_ms, end_ms: end, windows: 1 });
  }
  return runs;
}

function leakSites(store: Store, incidentId: number, d: Diagnosis): { sites: ReportData['leak_sites']; from: ReportData['leak_sites_from'] } {
  if (d.leak?.sites.length) return { sites: d.leak.sites.slice(0, LEAK_SITE_CAP), from: 'diagnosis' };
  const sites = store.allocationSites(incidentId, undefined, LEAK_SITE_CAP).filter((s) => s.live_bytes > 0);
  return sites.length ? { sites: sites.map(({ frames, live_bytes, allocs }) => ({ frames, live_bytes, allocs })), from: 'allocations' } : { sites: [], from: null };
}

function kvSummary(store: Store, incidentId: number): KvSummary {
  const series = store.listSeries(incidentId, 'kv.');
  const usage: KvRow[] = [];
  for (const s of series.filter((x) => x.name === 'kv.usage' && x.points > 0)) {
    const { v } = store.samples(s.id);
    let peak = -Infinity;
    let sum = 0;
    let full = 0;
    for (const x of v) {
      if (x > peak) peak = x;
      sum += x;
      if (x >= DEFAULT_CONFIG.causes.kv_full) full++;
    }
    usage.push({ label: labelText(s.labels), peak, mean: sum / v.length, near_full: full / v.length });
  }

  let preemptions: number | null = null;
  let peakRate: number | null = null;
  for (const s of series.filter((x) => x.name === 'kv.preemptions' && x.points > 0)) {
    const { t, v } = store.samples(s.id);
    if (s.kind !== 'counter') {
      preemptions = (preemptions ?? 0) + v.reduce((a, b) => Math.max(a, b), 0);
      continue;
    }
    preemptions = (preemptions ?? 0) + counterIncrease(v);
    for (const r of counterRates(t, v).v) peakRate = Math.max(peakRate ?? 0, r);
  }

  const increase = (name: string) => {
    const found = series.filter((x) => x.name === name && x.points > 0);
    return found.length ? found.reduce((sum, s) => sum + counterIncrease(store.samples(s.id).v), 0) : null;
  };
  const queries = increase('kv.prefix_queries');
  const hits = increase('kv.prefix_hits');
  return { usage, preemptions, peak_preemption_rate: peakRate, prefix_hit_rate: queries && hits !== null ? hits / queries : null };
}

function gpuMemory(store: Store, incidentId: number): GpuMemoryRow[] {
  const series = store.listSeries(incidentId, 'gpu.mem.');
  const byGpu = new Map<string, GpuMemoryRow>();
  const row = (gpu: string) => {
    let r = byGpu.get(gpu);
    if (!r) byGpu.set(gpu, (r = { gpu, peak_used: 0, capacity: null }));
    return r;
  };
  for (const s of series) {
    if (s.points === 0 || (s.name !== 'gpu.mem.used' && s.name !== 'gpu.mem.total')) continue;
    const gpu = [s.labels.host, s.labels.gpu].filter(Boolean).join(' / ') || '—';
    let peak = 0;
    for (const x of store.samples(s.id).v) if (x > peak) peak = x;
    const r = row(gpu);
    if (s.name === 'gpu.mem.used') r.peak_used = Math.max(r.peak_used, peak);
    else r.capacity = Math.max(r.capacity ?? 0, peak);
  }
  return [...byGpu.values()].sort((a, b) => compareNatural(a.gpu, b.gpu));
}

/** Errors and warnings, plus every event the diagnosis cites as evidence, up to LOG_LINE_CAP lines. */
function logLines(store: Store, incidentId: number, d: Diagnosis): ReportData['logs'] {
  const cited = new Map<number, EventRow>();
  for (const c of d.causes) {
    for (const e of c.evidence) {
      const id = Number(e.ref);
      if (e.kind !== 'event' || !Number.isInteger(id) || cited.has(id)) continue;
      const near = store.queryEvents({ incident_id: incidentId, start_ms: e.start_ms - 1, end_ms: e.end_ms + 1, limit: 1000 }).rows;
      const hit = near.find((r) => r.id === id);
      if (hit) cited.set(id, hit);
    }
  }
  const severe = store.queryEvents({ incident_id: incidentId, severities: ['warning', 'error', 'critical'], limit: LOG_LINE_CAP });
  const lines = new Map<number, LogLine>();
  for (const r of [...cited.values()].slice(0, LOG_LINE_CAP)) lines.set(r.id, { ...r, evidence: true });
  for (const r of severe.rows) if (lines.size < LOG_LINE_CAP && !lines.has(r.id)) lines.set(r.id, { ...r, evidence: false });
  const notCited = severe.total - [...cited.values()].filter((r) => r.severity === 'warning' || r.severity === 'error' || r.severity === 'critical').length;
  return {
    lines: [...lines.values()].sort((a, b) => a.ts_ms - b.ts_ms || a.id - b.id),
    matching: cited.size + notCited,
  };
}

export function labelText(labels: Record<string, string>): string {
  const keys = Object.keys(labels).sort();
  return keys.length ? keys.map((k) => `${k}=${labels[k]}`).join(' ') : '—';
}

/** Code-unit order: the same on every machine, unlike localeCompare. */
const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** "gpu 2" before "gpu 10": digit runs compare as numbers, the rest by code unit. */
export function compareNatural(a: string, b: string): number {
  const pa = a.match(/\d+|\D+/g) ?? [];
  const pb = b.match(/\d+|\D+/g) ?? [];
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const na = /^\d/.test(pa[i]) && /^\d/.test(pb[i]);
    const c = na ? Number(pa[i]) - Number(pb[i]) : compareText(pa[i], pb[i]);
    if (c) return c;
  }
  return pa.length - pb.length || compareText(a, b);
}
