// Which charts the timeline stacks: the canonical series present, grouped by meaning (four-quadrant-model.md §1),
// then whatever else the bundle held, grouped by its first name segment.
import type { SeriesInfo } from '../../../electron/contract/types';

export interface ChartSeries {
  info: SeriesInfo;
  label: string;
  asRate: boolean;
  /** A histogram's `.count` counter: the series is then rate(info) / rate(per), the mean per event. */
  per?: SeriesInfo;
}

export interface ChartGroup {
  id: string;
  title: string;
  unit: string;
  series: ChartSeries[];
  /** A quantile chart: api.queryQuantiles over this histogram, one line per quantile (`series` in order). */
  quantiles?: { histogram: SeriesInfo; q: number[] };
}

interface GroupDef {
  id: string;
  title: string;
  match: (name: string) => boolean;
  /** Unit shown on the axis; counters become "<unit>/s". */
  unit?: string;
}

const GROUPS: GroupDef[] = [
  { id: 'latency', title: 'Latency', match: (n) => n.startsWith('lat.') },
  { id: 'tokens', title: 'Token rate', match: (n) => n.startsWith('tokens.') },
  { id: 'queue', title: 'Requests running / waiting', match: (n) => n === 'req.running' || n === 'req.waiting' },
  { id: 'kv', title: 'KV-cache usage', match: (n) => n === 'kv.usage' },
  { id: 'gpu-mem', title: 'GPU memory', match: (n) => n === 'gpu.mem.used' || n === 'gpu.mem.total' },
  { id: 'torch-mem', title: 'PyTorch allocated / reserved', match: (n) => n === 'torch.allocated' || n === 'torch.reserved' },
  { id: 'preemptions', title: 'Preemptions', match: (n) => n === 'kv.preemptions' },
  { id: 'errors', title: 'Errors', match: (n) => n === 'req.errors' || n === 'req.finished' },
  { id: 'prefix', title: 'Prefix cache', match: (n) => n === 'kv.prefix_queries' || n === 'kv.prefix_hits' },
  { id: 'gpu-util', title: 'GPU utilisation', match: (n) => n === 'gpu.util' || n === 'gpu.sm_active' },
  { id: 'gpu-clock', title: 'SM clock', match: (n) => n === 'gpu.sm_clock' },
  { id: 'gpu-power', title: 'GPU power', match: (n) => n === 'gpu.power' },
  { id: 'gpu-temp', title: 'GPU temperature', match: (n) => n === 'gpu.temp' },
];

const MAX_SERIES_PER_CHART = 16;

/** Labels that identify where a series came from rather than what it is: shown only when nothing else differs. */
const PROVENANCE = new Set(['metric', 'gpu_uuid', 'bus_id', 'gpu_model', 'device', 'model_name']);
const MAX_LABEL_CHARS = 60;

/** Short legend text: the name where the chart mixes names, plus the labels that tell series apart. */
export function seriesLabel(s: SeriesInfo, mixedNames: boolean, varying: Set<string>): string {
  const pick = (keep: (k: string) => boolean) =>
    Object.entries(s.labels)
      .filter(([k]) => varying.has(k) && keep(k))
      .map(([k, v]) => `${k}=${v}`)
      .join(' ');
  const labels = pick((k) => !PROVENANCE.has(k)) || pick(() => true);
  const text = !mixedNames ? labels || s.name : labels ? `${s.name} ${labels}` : s.name;
  return text.length > MAX_LABEL_CHARS ? `${text.slice(0, MAX_LABEL_CHARS - 1)}…` : text;
}

function varyingLabels(list: SeriesInfo[]): Set<string> {
  const values = new Map<string, Set<string>>();
  for (const s of list) for (const [k, v] of Object.entries(s.labels)) (values.get(k) ?? values.set(k, new Set()).get(k)!).add(v);
  const out = new Set<string>();
  for (const [k, vs] of values) if (vs.size > 1 || list.some((s) => !(k in s.labels))) out.add(k);
  return out;
}

/** Series the engine derived from other records (labels {from: 'spans'}) rather than read from the engine itself. */
const derivedFrom = (s: SeriesInfo): string | undefined => s.labels.from;

/** The engine's own series before the ones derived from other records, otherwise in the order given. */
function ownFirst<T extends { info: SeriesInfo }>(list: T[]): T[] {
  return list.map((x, i) => [x, i] as const).sort((a, b) => Number(!!derivedFrom(a[0].info)) - Number(!!derivedFrom(b[0].info)) || a[1] - b[1]).map(([x]) => x);
}

const countLabels = (list: ChartSeries[]) => list.reduce((m, s) => m.set(s.label, (m.get(s.label) ?? 0) + 1), new Map<string, number>());

/**
 * Legend entries must tell series apart. Where several share a label, a derived series says where it
 * came from ("lat.e2e mean (spans)") and the engine's own keeps the plain name; engine series still
 * alike get the labels that differ among them (what they are before where they came from); a number
 * is the last resort.
 */
export function uniqueLabels(series: ChartSeries[]): ChartSeries[] {
  const counts = countLabels(series);
  let out = series.map((s) => {
    const from = derivedFrom(s.info);
    return (counts.get(s.label) ?? 0) > 1 && from ? { ...s, label: `${s.label} (${from})` } : s;
  });
  const own = countLabels(out);
  out = out.map((s) => {
    if ((own.get(s.label) ?? 0) < 2) return s;
    const alike = out.filter((o) => o.label === s.label);
    const differing = Object.keys(s.info.labels).filter((k) => alike.some((o) => o.info.labels[k] !== s.info.labels[k]));
    const keys = differing.filter((k) => !PROVENANCE.has(k)).length ? differing.filter((k) => !PROVENANCE.has(k)) : differing;
    return keys.length ? { ...s, label: `${s.label} (${keys.map((k) => `${k}=${s.info.labels[k]}`).join(' ')})` } : s;
  });
  const seen = new Map<string, number>();
  const left = countLabels(out);
  out = out.map((s) => {
    if ((left.get(s.label) ?? 0) < 2) return s;
    const n = (seen.get(s.label) ?? 0) + 1;
    seen.set(s.label, n);
    return n === 1 ? s : { ...s, label: `${s.label} #${n}` };
  });
  return out;
}

function unitOf(list: SeriesInfo[], asRate: boolean): string {
  const u = list[0]?.unit ?? '';
  return asRate ? `${u || 'count'}/s` : u;
}

function build(id: string, title: string, list: SeriesInfo[]): ChartGroup[] {
  // A chart shows one kind of value: counters (as rates) apart from gauges.
  const out: ChartGroup[] = [];
  const byRate = new Map<boolean, SeriesInfo[]>();
  for (const s of list) {
    const r = s.kind === 'counter';
    (byRate.get(r) ?? byRate.set(r, []).get(r)!).push(s);
  }
  for (const [asRate, members] of byRate) {
    const shown = ownFirst(members.map((info) => ({ info }))).map((x) => x.info).slice(0, MAX_SERIES_PER_CHART);
    const mixed = new Set(shown.map((s) => s.name)).size > 1;
    const varying = varyingLabels(shown);
    out.push({
      id: byRate.size > 1 ? `${id}${asRate ? '-rate' : ''}` : id,
      title: asRate ? `${title} (rate)` : title,
      unit: unitOf(shown, asRate),
      series: uniqueLabels(shown.map((info) => ({ info, label: seriesLabel(info, mixed, varying), asRate }))),
    });
  }
  return out;
}

const sameLabels = (a: SeriesInfo, b: SeriesInfo) => JSON.stringify(a.labels) === JSON.stringify(b.labels);

/**
 * Latency histograms arrive as `<name>.sum` and `<name>.count` counters (their buckets are not series
 * points): rate(sum) / rate(count) is the mean latency per window, which is what a chart can honestly show.
 */
function latencyMeans(chartable: SeriesInfo[], used: Set<number>): ChartGroup[] {
  const out: ChartSeries[] = [];
  for (const sum of chartable) {
    if (!sum.name.startsWith('lat.') || !sum.name.endsWith('.sum')) continue;
    const base = sum.name.slice(0, -4);
    const count = chartable.find((c) => c.name === `${base}.count` && sameLabels(c, sum));
    if (!count) continue;
    used.add(sum.id).add(count.id);
    out.push({ info: sum, per: count, label: `${base} mean`, asRate: false });
  }
  if (!out.length) return [];
  return [{ id: 'latency-mean', title: 'Latency, mean per request (histogram sum ÷ count)', unit: 'seconds', series: uniqueLabels(ownFirst(out).slice(0, MAX_SERIES_PER_CHART)) }];
}

export const LATENCY_QUANTILES = [0.5, 0.95, 0.99];

/**
 * P50/P95/P99 of the e2e latency histogram (TTFT when there is none): the engine's own histogram before
 * one derived from spans, then the one whose `.count` counter has the most scrapes, as the model's latency signal.
 */
function latencyQuantiles(all: SeriesInfo[]): ChartGroup[] {
  for (const name of ['lat.e2e', 'lat.ttft']) {
    const scrapes = (h: SeriesInfo) => all.find((c) => c.name === `${name}.count` && sameLabels(c, h))?.points ?? 0;
    const hist = all
      .filter((s) => s.name === name && s.kind === 'histogram' && scrapes(s) >= 2)
      .sort((a, b) => Number(!!derivedFrom(a)) - Number(!!derivedFrom(b)) || scrapes(b) - scrapes(a))[0];
    if (!hist) continue;
    return [
      {
        id: 'latency-quantiles',
        title: `Latency ${name.slice(4)} P50 / P95 / P99`,
        unit: hist.unit || 'seconds',
        series: LATENCY_QUANTILES.map((q) => ({ info: hist, label: `P${Math.round(q * 100)}`, asRate: false })),
        quantiles: { histogram: hist, q: LATENCY_QUANTILES },
      },
    ];
  }
  return [];
}

export function groupSeries(all: SeriesInfo[]): ChartGroup[] {
  const chartable = all.filter((s) => s.points > 0 && s.kind !== 'info');
  const used = new Set<number>();
  const groups: ChartGroup[] = [...latencyQuantiles(all), ...latencyMeans(chartable, used)];
  for (const g of GROUPS) {
    const members = chartable.filter((s) => !used.has(s.id) && g.match(s.name));
    members.forEach((s) => used.add(s.id));
    if (members.length) groups.push(...build(g.id, g.title, members));
  }
  const rest = new Map<string, SeriesInfo[]>();
  for (const s of chartable) {
    if (used.has(s.id)) continue;
    const key = s.name.split(/[.:_]/)[0] || s.name;
    (rest.get(key) ?? rest.set(key, []).get(key)!).push(s);
  }
  for (const [, members] of [...rest].sort((a, b) => a[0].localeCompare(b[0]))) {
    // Series of different names and units get their own charts so an axis means one thing.
    const byName = new Map<string, SeriesInfo[]>();
    for (const s of members) (byName.get(`${s.name}|${s.unit}`) ?? byName.set(`${s.name}|${s.unit}`, []).get(`${s.name}|${s.unit}`)!).push(s);
    for (const [nameUnit, list] of byName) groups.push(...build(`other-${nameUnit}`, list[0].name, list));
  }
  return groups;
}

/** Whether a diagnosis evidence ref ("kv.usage", "gpu.mem.used{gpu=0}") names a series of this chart. */
export function groupHasSeries(g: ChartGroup, ref: string): boolean {
  const name = ref.split('{')[0];
  return g.series.some((s) => s.info.name === name || s.per?.name === name || s.info.name === `${name}.sum`);
}
