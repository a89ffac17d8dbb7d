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
//   counter or histogram holds in Prometheus (up-down counters too); a cumulative point whose start time
//   moved on (a restart) writes a 0 at its new start, so the counter's reset is seen;
// - labels: the point's attributes, plus `job`/`instance` from the resource (resourceLabels below), as the
//   collector's Prometheus exporters write them;
// - a name whose unit suffix was trimmed (the receiver's `trim_metric_suffixes`) is looked up with the
//   suffix its unit stands for, so `vllm:e2e_request_latency` with unit "s" is the vLLM histogram;
// - OTLP 0.8's typed members (`intSum`, …, `labels`) and the SDKs' console exporters' shape (one `data`
//   member, attributes as an object, `value`) are read alike.
// Points flagged "no recorded value" (a stale series) are skipped, as Prometheus' stale markers are.
import { canonicalMetric, type Labels } from '../signals/canonical';
import { classify, PromSeriesMapper, type PromType, type Target } from './prom-series';
import type { Position, Sink } from './types';
import { attributes, isObj, otlpNanos, type Json } from './otlp-values';

type Warn = (message: string, where: Position) => void;

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

/** How a series' points add up: as readings, as changes to sum (delta), or as totals since their start. */
type Accumulation = 'gauge' | 'delta' | 'cumulative';
const acc = (delta: boolean): Accumulation => (delta ? 'delta' : 'cumulative');

type Kind = 'gauge' | 'sum' | 'histogram' | 'summary' | 'exponentialHistogram';

/** OTLP ≤ 0.8's typed members (2020–21 collectors and SDKs), as the kinds that replaced them. */
const OLD_KINDS: Record<string, Kind> = { intGauge: 'gauge', doubleGauge: 'gauge', intSum: 'sum', doubleSum: 'sum', intHistogram: 'histogram', doubleHistogram: 'histogram' };

/**
 * The kind of a metric, and its data: by which of OTLP's data members it has, or, where the SDKs' console
 * exporters print one `data` member (opentelemetry-python's `to_json()`), by what its points hold.
 */
function dataOf(m: Json): { kind: Kind; data: Json } | null {
  for (const kind of ['gauge', 'sum', 'histogram', 'summary', 'exponentialHistogram'] as const) if (isObj(m[kind])) return { kind, data: m[kind] as Json };
  for (const old in OLD_KINDS) if (isObj(m[old])) return { kind: OLD_KINDS[old], data: m[old] as Json };
  const data = m.data;
  if (!isObj(data)) return null;
  const p = Array.isArray(data.dataPoints) && isObj(data.dataPoints[0]) ? data.dataPoints[0] : {};
  const kind: Kind = 'bucketCounts' in p ? 'histogram' : 'quantileValues' in p ? 'summary' : 'scale' in p ? 'exponentialHistogram' : 'isMonotonic' in data ? 'sum' : 'gauge';
  return { kind, data };
}

export class OtlpMetrics {
  private readonly mapper: PromSeriesMapper;
  /** Targets by sample name and label set: resolving one makes its series. */
  private readonly targets = new Map<string, Target>();
  /** Running totals of delta series, by target. */
  private readonly totals = new Map<Target, number>();
  /** The start time (ns) of each cumulative series' last point: a later start is a restart. */
  private readonly starts = new Map<Target, bigint>();
  /** The first warning, for the error of a file with no readable point. */
  firstProblem: string | null = null;
  private unmatchedBuckets = 0;
  /** What each family was typed as, for classify(). */
  private readonly types = new Map<string, PromType>();
  private readonly typeOf = (family: string) => this.types.get(family);
  /** The start time (ns) of the point being written, for cumulative series; null for delta ones or none given. */
  private start: bigint | null = null;
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

  private say(message: string, where: Position): void {
    this.firstProblem ??= message;
    this.warn(message, where);
  }

  /** One `resourceMetrics` element; `where` places its warnings. */
  resourceMetrics(rm: unknown, resource: Record<string, unknown>, where: Position): void {
    if (!isObj(rm)) return;
    const base = resourceLabels(resource);
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
      this.say('metric without a name or data (gauge, sum, histogram, summary), skipped', at);
      return;
    }
    const name = this.lookupName(m.name, typeof m.unit === 'string' ? m.unit : '');
    const points = Array.isArray(of.data.dataPoints) ? of.data.dataPoints : [];
    const delta = isDelta(of.data.aggregationTemporality);
    let bad = 0;
    for (const p of points) {
      if (!isObj(p) || (typeof p.flags === 'number' && p.flags & NO_RECORDED_VALUE)) continue;
      const ns = otlpNanos(p.timeUnixNano);
      if (ns === null) {
        bad++;
        continue;
      }
      const ts = Number(ns) / 1e6;
      const labels: Labels = { ...base };
      for (const [k, v] of Object.entries(attributes(p.attributes ?? p.labels))) labels[k] = labelValue(v);
      this.start = delta ? null : otlpNanos(p.startTimeUnixNano);
      if (!this.point(of.kind, of.data, name, labels, p, ts, delta)) bad++;
    }
    if (bad) this.say(`${bad} data points without a readable time or value skipped`, at);
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
        // asDouble / asInt; `value` in OTLP ≤ 0.8 and the console exporters.
        const v = num(p.asDouble ?? p.asInt ?? p.value);
        if (v === null) return false;
        const counter = kind === 'sum' && data.isMonotonic === true;
        if (!counter) {
          this.types.set(name, 'gauge');
          // A delta up-down counter (a sum, not monotonic) holds changes: summed, as a monotonic one's are.
          this.write(name, labels, ts, v, delta && kind === 'sum' ? 'delta' : 'gauge');
          return true;
        }
        // A counter's samples are `foo_total` of family `foo`, however the metric was named.
        const family = name.endsWith('_total') ? name.slice(0, -6) : name;
        this.types.set(family, 'counter');
        this.write(`${family}_total`, labels, ts, v, acc(delta));
        return true;
      }
      case 'histogram': {
        const count = num(p.count ?? 0);
        const bounds = Array.isArray(p.explicitBounds) ? p.explicitBounds.map(num) : [];
        const counts = Array.isArray(p.bucketCounts) ? p.bucketCounts.map(num) : [];
        if (count === null) return false;
        this.types.set(name, 'histogram');
        // bucketCounts has one more entry than explicitBounds (the last is the +Inf bucket); none at all
        // means the point has only count and sum. Buckets that do not fit their bounds are not read (the
        // count and sum still are; warned once).
        const fits = counts.length === bounds.length + 1 && !bounds.some((b) => b === null) && !counts.some((c) => c === null);
        if (counts.length && !fits) this.unmatchedBuckets++;
        if (fits) {
          let cum = 0;
          for (let i = 0; i < counts.length; i++) {
            cum += counts[i]!;
            this.write(`${name}_bucket`, { ...labels, le: i < bounds.length ? String(bounds[i]) : '+Inf' }, ts, cum, acc(delta));
          }
        }
        this.countAndSum(name, labels, ts, count, p, acc(delta));
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
            if (quantile !== null && v !== null) this.write(name, { ...labels, quantile: String(quantile) }, ts, v, 'gauge');
          }
        }
        this.countAndSum(name, labels, ts, count, p, 'cumulative');
        return true;
      }
      case 'exponentialHistogram': {
        const count = num(p.count ?? 0);
        if (count === null) return false;
        this.exponential++;
        this.types.set(name, 'histogram');
        this.countAndSum(name, labels, ts, count, p, acc(delta));
        return true;
      }
    }
  }

  /** A histogram's or summary's `_count`, and its `_sum` where the point has one (it is optional in OTLP). */
  private countAndSum(name: string, labels: Labels, ts: number, count: number, p: Json, how: Accumulation): void {
    this.write(`${name}_count`, labels, ts, count, how);
    const sum = num(p.sum);
    if (sum !== null) this.write(`${name}_sum`, labels, ts, sum, how);
  }

  private write(sample: string, labels: Labels, ts: number, v: number, how: Accumulation): void {
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
    if (how === 'delta') {
      v += this.totals.get(t) ?? 0;
      this.totals.set(t, v);
    } else if (how === 'cumulative' && this.start !== null) {
      // A cumulative series whose start time moved on was reset (the process restarted): a 0 at the new
      // start says so, as Prometheus' created timestamps do, so that 100 → 130 across it counts as 130.
      const start = this.start;
      const last = this.starts.get(t);
      if (last !== undefined && start > last) {
        const startMs = Number(start) / 1e6;
        if (startMs < ts) this.mapper.write(t, startMs, 0);
      }
      this.starts.set(t, start);
    }
    this.mapper.write(t, ts, v);
    this.points++;
  }

  /** Warnings that concern the whole file, once at its end. */
  finish(where: Position): void {
    if (this.unmatchedBuckets) this.say(`${this.unmatchedBuckets} histogram points whose bucketCounts do not fit their explicitBounds (one more count than bounds): their count and sum are kept, their buckets are not read`, where);
    if (this.exponential) this.warn(`${this.exponential} exponential histogram points: their count and sum are kept, their sparse buckets are not read`, where);
  }
}

/**
 * The labels a resource gives its points, as the collector's Prometheus exporters write them: `job` from
 * service.name (with its namespace), `instance` from service.instance.id. Where those are missing (the
 * hostmetrics receiver; the prometheus receiver before it set service.instance.id, which kept the scrape's
 * own `job` and `instance`), what the resource has instead, so two hosts' series stay two.
 */
function resourceLabels(resource: Record<string, unknown>): Labels {
  const str = (k: string): string | null => {
    const v = resource[k];
    return typeof v === 'string' && v ? v : typeof v === 'number' ? String(v) : null;
  };
  const out: Labels = {};
  const service = str('service.name');
  const ns = str('service.namespace');
  const job = service && !service.startsWith('unknown_service') ? (ns ? `${ns}/${service}` : service) : str('job') ?? service;
  if (job) out.job = job;
  const host = str('host.name');
  const port = str('server.port') ?? str('port');
  const instance = str('service.instance.id') ?? str('instance') ?? (host ? (port ? `${host}:${port}` : host) : null);
  if (instance) out.instance = instance;
  return out;
}
