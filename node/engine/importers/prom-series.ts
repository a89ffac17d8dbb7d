// Shared by the Prometheus text and JSON importers: which family and role a sample name has
// (`foo_bucket` of histogram `foo`, `_created` to skip, …), the series it lands in (canonical or as
// given), and writing its value in canonical units. Resolved once per distinct series, then cached
// by the caller.
import type { SeriesKind } from '../../../common/contract/types';
import { SIG } from '../../../common/names';
import { applyScale, canonicalLabels, canonicalMetric, isBlankSentinel, type Labels } from '../signals/canonical';
import { FB_TOTAL_METRIC, FbTotals, isFbField, type FbGpu } from './fb-total';
import type { Sink } from './types';

/** A `# TYPE` kind as written (OpenMetrics adds gaugehistogram, stateset, info, unknown). */
export type PromType = 'counter' | 'gauge' | 'histogram' | 'gaugehistogram' | 'summary' | 'info' | 'stateset' | 'unknown' | 'untyped';

export type Role = 'value' | 'bucket' | 'sum' | 'count' | 'skip';

export interface Classified {
  family: string;
  role: Role;
  kind: SeriesKind;
}

const SERIES_KIND: Record<PromType, SeriesKind> = {
  counter: 'counter',
  gauge: 'gauge',
  histogram: 'histogram',
  gaugehistogram: 'histogram',
  summary: 'summary',
  info: 'info',
  stateset: 'gauge',
  unknown: 'unknown',
  untyped: 'unknown',
};

const SUFFIXES = ['_bucket', '_count', '_sum', '_created', '_total', '_info', '_gcount', '_gsum'] as const;

/**
 * The family and role of a sample: `# TYPE` decides (vllm:iteration_tokens_total is a histogram
 * whatever its suffix says), except that `_created` is skipped unless typed as something other than a
 * gauge; without a TYPE (or typed untyped/unknown), `_bucket` with `le` is a histogram bucket, and
 * `_sum`/`_count` are its parts once the caller's typeOf says the family is a histogram (the text reader
 * says so after its first bucket); the rest are of kind 'unknown' (the canonical table, else 'gauge',
 * decides later).
 */
export function classify(name: string, labels: Labels, typeOf: (family: string) => PromType | undefined): Classified {
  const own = typeOf(name);
  // `_created` is the creation time (epoch seconds) of a counter, histogram or summary: never a reading.
  // prometheus_client's 0.0.4 text writes it with its own `# TYPE …_created gauge`, which must not win.
  if (name.endsWith('_created') && (own === undefined || own === 'gauge' || own === 'unknown' || own === 'untyped')) {
    return { family: name.slice(0, -8), role: 'skip', kind: 'gauge' };
  }
  // An untyped sample name may still be a histogram's part: Prometheus' /federate types every sample
  // name `untyped` (`# TYPE x_bucket untyped`), and its buckets carry `le` all the same.
  const loose = own === undefined || own === 'untyped' || own === 'unknown';
  if (!loose && own !== 'histogram' && own !== 'gaugehistogram') return { family: name, role: 'value', kind: SERIES_KIND[own] };
  for (const suf of SUFFIXES) {
    if (!name.endsWith(suf)) continue;
    const family = name.slice(0, -suf.length);
    const t = typeOf(family);
    if (!t) continue;
    const kind = SERIES_KIND[t];
    if (suf === '_created') return { family, role: 'skip', kind };
    if (suf === '_bucket' && kind === 'histogram') return { family, role: 'bucket', kind };
    if ((suf === '_sum' || suf === '_gsum') && (kind === 'histogram' || kind === 'summary')) return { family, role: 'sum', kind };
    if ((suf === '_count' || suf === '_gcount') && (kind === 'histogram' || kind === 'summary')) return { family, role: 'count', kind };
    if (suf === '_total' && kind === 'counter') return { family, role: 'value', kind };
    if (suf === '_info' && kind === 'info') return { family, role: 'value', kind };
  }
  if (name.endsWith('_created')) return { family: name, role: 'skip', kind: 'gauge' };
  if (name.endsWith('_bucket') && labels.le !== undefined) return { family: name.slice(0, -7), role: 'bucket', kind: 'histogram' };
  return { family: name, role: 'value', kind: own ? SERIES_KIND[own] : 'unknown' };
}

export interface Target {
  role: Role;
  series: number;
  /** Upper bound of a bucket, in canonical units. */
  le: number;
  scale: number;
  /** A second series the value also goes to (TGI token-histogram sums → tokens.*), or -1. */
  alias: number;
  /** vllm:lora_requests_info: the adapters this label set names, their lora.adapter series, and when a set is history. */
  lora: { adapters: string[]; series: number[]; staleAfterS: number } | null;
  /** DCGM sentinel values are checked only for DCGM metrics. */
  dcgm: boolean;
  /**
   * A share (canonical unit `fraction`): below 0 it is a sentinel, not a reading — vLLM V0 exports
   * gpu_prefix_cache_hit_rate −1 where prefix caching is off, which read as a hit rate of −100%.
   */
  fraction?: boolean;
  metric: string;
  fb: { field: 'gpu.mem.used' | 'gpu.mem.free' | 'gpu.mem.reserved'; gpu: FbGpu } | null;
  /** The code a count stands for (Canonical.codeLabel): written while the count is above zero, else 0. */
  code?: number;
}

/**
 * A Prometheus-family time below this is in seconds, above it in ms: 1e11 s is the year 5138, 1e11 ms is 1973
 * (OpenMetrics writes seconds, Prometheus text ms; files made by hand either).
 */
export const SECONDS_BELOW = 1e11;

/** A time in seconds or ms (by SECONDS_BELOW) as ms. */
export const promMs = (t: number): number => (t < SECONDS_BELOW ? t * 1000 : t);

export const SKIP: Target = { role: 'skip', series: -1, le: NaN, scale: 1, alias: -1, lora: null, dcgm: false, metric: '', fb: null };

export function parsePromNumber(s: string): number {
  const n = Number(s);
  if (!Number.isNaN(n)) return n;
  switch (s) {
    case '+Inf':
    case 'Inf':
    case '+inf':
    case 'inf':
      return Infinity;
    case '-Inf':
    case '-inf':
      return -Infinity;
    case 'NaN':
    case 'nan':
      return NaN;
  }
  throw new Error(`not a number: "${s}"`);
}

function unitFromName(name: string): string {
  // `…_tokens_seconds` is a rate (llama.cpp's `prompt_tokens_seconds`, tokens/s), not a duration.
  if (/tokens?_(?:per_)?seconds?(?:_|$)/.test(name)) return 'tokens/s';
  if (name.endsWith('_seconds') || name.includes('_seconds_')) return 'seconds';
  if (name.endsWith('_bytes') || name.includes('_bytes_')) return 'bytes';
  return '';
}

/** Maps classified samples onto series in a sink, with DCGM's derived memory total. */
export class PromSeriesMapper {
  private readonly fb: FbTotals;
  /** lora.active: the adapters the present label sets named, per series and time, until flush. */
  private readonly loraPool = new Map<number, Map<number, Set<string>>>();

  constructor(private readonly sink: Sink) {
    // gpu.mem.total's series is made once per GPU, not once a scrape.
    this.fb = new FbTotals((gpu, ts, bytes) => {
      if (gpu.series < 0) gpu.series = this.sink.series({ name: 'gpu.mem.total', labels: { ...gpu.labels, metric: FB_TOTAL_METRIC }, unit: 'bytes', kind: 'gauge' });
      this.sink.sample(gpu.series, ts, bytes);
    });
  }

  /** The target of one series; throws on a bucket without a readable `le`. */
  target(name: string, labels: Labels, cls: Classified): Target {
    if (cls.role === 'skip') return SKIP;
    let le = NaN;
    let own = labels;
    if (cls.role === 'bucket') {
      if (labels.le === undefined) throw new Error(`histogram bucket ${name} without an "le" label`);
      le = parsePromNumber(labels.le);
      own = { ...labels };
      delete own.le;
    }
    const canon = canonicalMetric(cls.family, own, cls.kind);
    const dcgm = /^dcgm_/i.test(cls.family);
    // A histogram's count and sum only grow; a gaugehistogram's (`_gcount`, `_gsum`) go up and down.
    const partKind: SeriesKind = name.endsWith('_gcount') || name.endsWith('_gsum') ? 'gauge' : 'counter';
    if (!canon) {
      // A counter's sample is `foo_total` whether the exposition typed family `foo` (OpenMetrics) or `foo_total`
      // (0.0.4 text): the series keeps the sample's name, as Prometheus stores it, so both read alike.
      const seriesName = cls.role === 'sum' || cls.role === 'count' || (cls.kind === 'counter' && name.endsWith('_total')) ? name : cls.family;
      const kind: SeriesKind = cls.role === 'sum' || cls.role === 'count' ? partKind : cls.kind === 'unknown' ? 'gauge' : cls.kind;
      const series = this.sink.series({ name: seriesName, labels: own, unit: cls.role === 'count' ? 'count' : unitFromName(cls.family), kind });
      return { role: cls.role, series, le, scale: 1, alias: -1, lora: null, dcgm, metric: cls.family, fb: null };
    }
    const suffix = cls.role === 'sum' ? '.sum' : cls.role === 'count' ? '.count' : '';
    const kind: SeriesKind = suffix ? partKind : canon.kind === 'unknown' ? 'gauge' : canon.kind;
    const unit = cls.role === 'count' ? 'count' : canon.unit;
    const series = this.sink.series({ name: canon.name + suffix, labels: canon.labels, unit, kind });
    const alias = cls.role === 'sum' && canon.sumAs ? this.sink.series({ name: canon.sumAs, labels: canon.labels, unit: canon.unit, kind: 'counter' }) : -1;
    let fb: Target['fb'] = null;
    if (cls.role === 'value' && isFbField(canon.name, cls.family)) {
      const gpu = canonicalLabels(own);
      fb = { field: canon.name as 'gpu.mem.used', gpu: this.fb.gpu(gpu, JSON.stringify(gpu)) };
    }
    const code = canon.codeLabel !== undefined ? Number(labels[canon.codeLabel]) : NaN;
    return {
      ...(Number.isFinite(code) ? { code } : {}),
      role: cls.role,
      series,
      le: cls.role === 'bucket' ? applyScale(le, canon.scale) : le,
      scale: cls.role === 'count' ? 1 : canon.scale,
      alias,
      lora: canon.adapters && cls.role === 'value' ? this.loraTarget(canon.adapters(labels), canon.labels, canon.staleAfterS ?? Infinity) : null,
      dcgm,
      metric: cls.family,
      fb,
      fraction: cls.role === 'value' && canon.unit === 'fraction',
    };
  }

  /** A series of its own name, unit and labels, never mapped (a value whose unit is not the metric's). */
  raw(name: string, labels: Labels, unit: string): Target {
    const series = this.sink.series({ name, labels, unit, kind: 'gauge' });
    return { role: 'value', series, le: NaN, scale: 1, alias: -1, lora: null, dcgm: false, metric: name, fb: null };
  }

  write(t: Target, ts: number, raw: number): void {
    if (t.role === 'skip') return;
    if (raw >= 9.2e18 || (t.dcgm && isBlankSentinel(t.metric, raw)) || (t.fraction && raw < 0)) return;
    if (t.lora) {
      this.loraSample(t.series, t.lora, ts, raw);
      return;
    }
    if (t.role === 'bucket') {
      this.sink.histogram(t.series, ts, t.le, raw);
      return;
    }
    const v = t.code !== undefined ? (raw > 0 ? t.code : 0) : t.scale === 1 ? raw : applyScale(raw, t.scale);
    this.sink.sample(t.series, ts, v);
    if (t.alias >= 0) this.sink.sample(t.alias, ts, v);
    if (t.fb) this.fb.add(t.fb.field, t.fb.gpu, ts, raw);
  }

  private loraTarget(adapters: string[], labels: Labels, staleAfterS: number): NonNullable<Target['lora']> {
    const series = adapters.map((adapter) => this.sink.series({ name: SIG.loraAdapter, labels: { ...labels, adapter }, unit: '', kind: 'gauge' }));
    return { adapters, series, staleAfterS };
  }

  /**
   * One label set of lora_requests_info. Its value is when vLLM last set it; vLLM never removes a set, so
   * a scrape lists every adapter combination since start-up and only the recent ones are the present (a
   * value too small to be a Unix time is some other exporter's count: always present). The present sets'
   * adapters are pooled until the scrape ends, when their number is the series' sample.
   */
  private loraSample(series: number, lora: NonNullable<Target['lora']>, ts: number, raw: number): void {
    if (raw > 1e9 && raw < ts / 1000 - lora.staleAfterS) return;
    let at = this.loraPool.get(series);
    if (!at) this.loraPool.set(series, (at = new Map()));
    let names = at.get(ts);
    if (!names) at.set(ts, (names = new Set()));
    for (let i = 0; i < lora.adapters.length; i++) {
      names.add(lora.adapters[i]);
      this.sink.sample(lora.series[i], ts, 1);
    }
  }

  /** Ends a scrape: derived series of the samples so far are written. */
  flush(): void {
    this.fb.flush();
    for (const [series, at] of this.loraPool) for (const [ts, names] of at) this.sink.sample(series, ts, names.size);
    this.loraPool.clear();
  }
}
