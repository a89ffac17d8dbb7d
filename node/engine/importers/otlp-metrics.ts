// OTLP/JSON metrics (an ExportMetricsServiceRequest: `resourceMetrics` → `scopeMetrics` → `metrics`), as
// the collector's file exporter writes them beside its traces. In an inference fleet they are mostly
// Prometheus scrapes carried through a collector (the prometheus receiver keeps vLLM's, DCGM's, …
// names), so each data point is read as the Prometheus sample it stands for and goes through the same
// family/role classification and canonical mapping as a scrape (prom-series.ts):
// - gauge and non-monotonic sum → a gauge; monotonic sum → a counter (`foo` and `foo_total` alike);
// - histogram → `_bucket{le}` (OTLP's per-bucket counts summed into Prometheus' cumulative ones), `_sum`,
//   `_count`; summary → `{quantile}`, `_sum`, `_count`; exponential histogram → `_count` and `_sum` only
//   (its sparse buckets are not read, as with Prometheus' native histograms; warned);
// - delta temporality (OTel SDKs' choice for some backends) is summed into the cumulative values a
//   counter or histogram holds in Prometheus;
// - labels: the point's attributes, plus `job`/`instance` from the resource's service.name (with its
//   namespace) and service.instance.id, as the collector's Prometheus exporters write them;
// - a name whose unit suffix was trimmed (the receiver's `trim_metric_suffixes`) is looked up with the
//   suffix its unit stands for, so `vllm:e2e_request_latency` with unit "s" is the vLLM histogram.
// Points flagged "no recorded value" (a stale series) are skipped, as Prometheus' stale markers are.
import { canonicalMetric, type Labels } from '../signals/canonical';
import { classify, PromSeriesMapper, type PromType, type Target } from './prom-series';
import type { Position, Sink } from './types';
import { unitsToNs } from './ns-time';
import { attributes } from './otlp-values';

type Json = Record<string, unknown>;
type Warn = (message: string, where: Position) => void;
const isObj = (x: unknown): x is Json => !!x && typeof x === 'object' && !Array.isArray(x);

/** AggregationTemporality: 1 (or its name) is DELTA; CUMULATIVE and unspecified are read as cumulative. */
const isDelta = (t: unknown): boolean => t === 1 || t === 'AGGREGATION_TEMPORALITY_DELTA';

/** DataPointFlags' FLAG_NO_RECORDED_VALUE. */
const NO_RECORDED_VALUE = 1;

/** The Prometheus suffix a UCUM unit stands for (the collector's translator table, the units seen here). */
const UNIT_SUFFIX: Record<string, string> = { s: '_seconds', ms: '_milliseconds', By: '_bytes', '1': '_ratio', '%': '_percent' };

/**
 * A number as OTLP/JSON writes one: a JSON number, or a string (int64 always; "NaN"/"Infinity" for doubles).
 * proto3's JSON leaves out fields at their default, so an absent count or quantile is read as 0 by the caller.
 */
function num(v: unknown): number | null {
  if (typeof v === 'number') return v;
  if (typeof v !== 'string' || v === '') return null;
  if (v === 'Infinity') return Infinity;
  if (v === '-Infinity') return -Infinity;
  const n = Number(v);
  return Number.isNaN(n) && v !== 'NaN' ? null : n;
}

/** An attribute's value as a Prometheus label value. */
function labelValue(v: unknown): string {
  return typeof v === 'string' ? v : v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
}

/** The kind of a metric, and its data, by which of OTLP's data members it has. */
function dataOf(m: Json): { kind: 'gauge' | 'sum' | 'histogram' | 'summary' | 'exponentialHistogram'; data: Json } | null {
  for (const kind of ['gauge', 'sum', 'histogram', 'summary', 'exponentialHistogram'] as const) if (isObj(m[kind])) return { kind, data: m[kind] as Json };
  return null;
}

export class OtlpMetrics {
  private readonly mapper: PromSeriesMapper;
  /** Targets by sample name and label set: resolving one makes its series. */
  private readonly targets = new Map<string, Target>();
  /** Running totals of delta series, by target. */
  private readonly totals = new Map<Target, number>();
  /** What each family was typed as, for classify(). */
  private readonly types = new Map<string, PromType>();
  private readonly typeOf = (family: string) => this.types.get(family);
  /** Metrics met, and data points written. */
  seen = 0;
  points = 0;
  private exponential = 0;

  constructor(
    sink: Sink,
    private readonly warn: Warn,
  ) {
    this.mapper = new PromSeriesMapper(sink);
  }

  /** One `resourceMetrics` element; `where` places its warnings. */
  resourceMetrics(rm: unknown, resource: Record<string, unknown>, where: Position): void {
    if (!isObj(rm)) return;
    const base: Labels = {};
    const service = resource['service.name'];
    if (typeof service === 'string' && service) {
      const ns = resource['service.namespace'];
      base.job = typeof ns === 'string' && ns ? `${ns}/${service}` : service;
    }
    const instance = resource['service.instance.id'];
    if (typeof instance === 'string' && instance) base.instance = instance;
    const scopes = Array.isArray(rm.scopeMetrics) ? rm.scopeMetrics : Array.isArray(rm.instrumentationLibraryMetrics) ? rm.instrumentationLibraryMetrics : [];
    for (const sm of scopes) {
      if (!isObj(sm) || !Array.isArray(sm.metrics)) continue;
      for (const m of sm.metrics) if (isObj(m)) this.metric(m, base, where);
    }
    this.mapper.flush();
  }

  private metric(m: Json, base: Labels, where: Position): void {
    this.seen++;
    const at = { ...where, key: typeof m.name === 'string' ? `metrics.${m.name}` : 'metrics' };
    const of = dataOf(m);
    if (typeof m.name !== 'string' || !m.name || !of) {
      this.warn('metric without a name or data (gauge, sum, histogram, summary), skipped', at);
      return;
    }
    const name = this.lookupName(m.name, typeof m.unit === 'string' ? m.unit : '');
    const points = Array.isArray(of.data.dataPoints) ? of.data.dataPoints : [];
    const delta = isDelta(of.data.aggregationTemporality);
    let bad = 0;
    for (const p of points) {
      if (!isObj(p) || (typeof p.flags === 'number' && p.flags & NO_RECORDED_VALUE)) continue;
      const ns = unitsToNs(p.timeUnixNano, 1n);
      if (ns === null) {
        bad++;
        continue;
      }
      const ts = Number(ns) / 1e6;
      const labels: Labels = { ...base };
      for (const [k, v] of Object.entries(attributes(p.attributes))) labels[k] = labelValue(v);
      if (!this.point(of.kind, of.data, name, labels, p, ts, delta)) bad++;
    }
    if (bad) this.warn(`${bad} data points without a readable time or value skipped`, at);
  }

  /** The name as scraped: a trimmed unit suffix put back where only the suffixed name is a known metric. */
  private lookupName(name: string, unit: string): string {
    const suffix = UNIT_SUFFIX[unit];
    if (!suffix || name.endsWith(suffix) || canonicalMetric(name, {})) return name;
    return canonicalMetric(name + suffix, {}) ? name + suffix : name;
  }

  private point(kind: NonNullable<ReturnType<typeof dataOf>>['kind'], data: Json, name: string, labels: Labels, p: Json, ts: number, delta: boolean): boolean {
    switch (kind) {
      case 'gauge':
      case 'sum': {
        const v = num(p.asDouble ?? p.asInt);
        if (v === null) return false;
        const counter = kind === 'sum' && data.isMonotonic === true;
        if (!counter) {
          this.types.set(name, 'gauge');
          this.write(name, labels, ts, v, false);
          return true;
        }
        // A counter's samples are `foo_total` of family `foo`, however the metric was named.
        const family = name.endsWith('_total') ? name.slice(0, -6) : name;
        this.types.set(family, 'counter');
        this.write(`${family}_total`, labels, ts, v, delta);
        return true;
      }
      case 'histogram': {
        const count = num(p.count ?? 0);
        const bounds = Array.isArray(p.explicitBounds) ? p.explicitBounds.map(num) : [];
        const counts = Array.isArray(p.bucketCounts) ? p.bucketCounts.map(num) : [];
        if (count === null || bounds.some((b) => b === null) || counts.some((c) => c === null)) return false;
        this.types.set(name, 'histogram');
        // bucketCounts has one more entry than explicitBounds (the last is the +Inf bucket); none at all
        // means the point has only count and sum.
        if (counts.length === bounds.length + 1) {
          let cum = 0;
          for (let i = 0; i < counts.length; i++) {
            cum += counts[i]!;
            this.write(`${name}_bucket`, { ...labels, le: i < bounds.length ? String(bounds[i]) : '+Inf' }, ts, cum, delta);
          }
        } else if (counts.length) return false;
        this.countAndSum(name, labels, ts, count, p, delta);
        return true;
      }
      case 'summary': {
        const count = num(p.count ?? 0);
        if (count === null) return false;
        this.types.set(name, 'summary');
        if (Array.isArray(p.quantileValues)) {
          for (const q of p.quantileValues) {
            const quantile = isObj(q) ? num(q.quantile ?? 0) : null;
            const v = isObj(q) ? num(q.value ?? 0) : null;
            if (quantile !== null && v !== null) this.write(name, { ...labels, quantile: String(quantile) }, ts, v, false);
          }
        }
        this.countAndSum(name, labels, ts, count, p, false);
        return true;
      }
      case 'exponentialHistogram': {
        const count = num(p.count ?? 0);
        if (count === null) return false;
        this.exponential++;
        this.types.set(name, 'histogram');
        this.countAndSum(name, labels, ts, count, p, delta);
        return true;
      }
    }
  }

  /** A histogram's or summary's `_count`, and its `_sum` where the point has one (it is optional in OTLP). */
  private countAndSum(name: string, labels: Labels, ts: number, count: number, p: Json, delta: boolean): void {
    this.write(`${name}_count`, labels, ts, count, delta);
    const sum = num(p.sum);
    if (sum !== null) this.write(`${name}_sum`, labels, ts, sum, delta);
  }

  private write(sample: string, labels: Labels, ts: number, v: number, delta: boolean): void {
    const key = `${sample}\u0000${JSON.stringify(labels)}`;
    let t = this.targets.get(key);
    if (!t) {
      try {
        t = this.mapper.target(sample, labels, classify(sample, labels, this.typeOf));
      } catch (e) {
        this.warn((e as Error).message, { key: `metrics.${sample}` });
        return;
      }
      this.targets.set(key, t);
    }
    if (delta) {
      v += this.totals.get(t) ?? 0;
      this.totals.set(t, v);
    }
    this.mapper.write(t, ts, v);
    this.points++;
  }

  /** Warnings that concern the whole file, once at its end. */
  finish(where: Position): void {
    if (this.exponential) this.warn(`${this.exponential} exponential histogram points: their count and sum are kept, their sparse buckets are not read`, where);
  }
}
