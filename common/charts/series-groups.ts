// Which charts the timeline stacks and the report draws. First the canonical views of LLM serving
// (catalog.ts: ids, titles, units, signals), each from the best source of its signal (the engine's own
// metrics before its log lines, before what was derived from spans): latency P50/P95/P99 of e2e, TTFT, ITL
// and queue time; arrivals and finishes; tokens in and out; running and waiting; KV usage and KV per
// running request; prompt and output length; preemptions; errors (never successful finishes); prefix-cache
// hit rate; and per GPU memory, utilisation, clock, power and temperature. Everything else, other sources
// of the same signals included, is folded behind the timeline's filter box, grouped by name.
import type { SeriesInfo } from '../contract/types';
import { SIG } from '../names';
import { bestSource, sourceRank } from '../series-source';
import { CHARTS, LATENCY_CHARTS, LATENCY_QUANTILES, PER_GPU_CHARTS, type ChartDef } from './catalog';

/** How a line is computed from several series (see derive-columns.ts). */
export type Derive =
  | { kind: 'sum-rate'; of: SeriesInfo[] }
  | { kind: 'arrivals'; finished: SeriesInfo[]; queue: SeriesInfo[] }
  | { kind: 'ratio'; num: SeriesInfo[]; den: SeriesInfo[]; rates: boolean };

export interface ChartSeries {
  info: SeriesInfo;
  label: string;
  asRate: boolean;
  derive?: Derive;
}

export interface ChartGroup {
  id: string;
  title: string;
  unit: string;
  series: ChartSeries[];
  /** A quantile chart: api.queryQuantiles over this histogram, one line per quantile (`series` in order). */
  quantiles?: { histogram: SeriesInfo; q: number[] };
  /** Shown by default; the others wait behind the filter box. */
  canonical: boolean;
  /** What the filter box matches: names and labels of every series drawn. */
  search: string;
}

const MAX_SERIES_PER_CHART = 16;

/** Labels that identify where a series came from rather than what it is: shown only when nothing else differs. */
const PROVENANCE = new Set(['metric', 'gpu_uuid', 'bus_id', 'gpu_model', 'device', 'model_name', 'model']);
const MAX_LABEL_CHARS = 60;

/** Series the engine derived from other records (labels {from: 'spans'}) rather than read from the engine itself. */
const derivedFrom = (s: SeriesInfo): string | undefined => s.labels.from;

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

/** The engine's own series before the ones derived from other records, otherwise in the order given. */
function ownFirst<T extends { info: SeriesInfo }>(list: T[]): T[] {
  return list.map((x, i) => [x, i] as const).sort((a, b) => sourceRank(a[0].info) - sourceRank(b[0].info) || a[1] - b[1]).map(([x]) => x);
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

const searchText = (series: SeriesInfo[]) =>
  series
    .map((s) => `${s.name} ${Object.entries(s.labels).map(([k, v]) => `${k}=${v}`).join(' ')}`)
    .join('\n')
    .toLowerCase();

function group(id: string, title: string, unit: string, series: ChartSeries[], canonical: boolean, extra: Partial<ChartGroup> = {}): ChartGroup {
  const members = series.flatMap((s) => [s.info, ...(s.derive ? deriveInputs(s.derive) : [])]);
  return { id, title, unit, series: uniqueLabels(series.slice(0, MAX_SERIES_PER_CHART)), canonical, search: searchText(members), ...extra };
}

export function deriveInputs(d: Derive): SeriesInfo[] {
  switch (d.kind) {
    case 'sum-rate':
      return d.of;
    case 'arrivals':
      return [...d.finished, ...d.queue];
    case 'ratio':
      return [...d.num, ...d.den];
  }
}

/** One line per series, labelled by what tells them apart ("gpu=0"), prefixed with `prefix` where several names share a chart. */
function lines(list: SeriesInfo[], asRate: boolean, prefix?: (s: SeriesInfo) => string): ChartSeries[] {
  const mixed = new Set(list.map((s) => s.name)).size > 1;
  const varying = varyingLabels(list);
  return ownFirst(
    list.map((info) => {
      const own = seriesLabel(info, false, varying);
      const label = prefix ? (own === info.name ? prefix(info) : `${prefix(info)} ${own}`) : seriesLabel(info, mixed, varying);
      return { info, label, asRate };
    }),
  );
}

/** The histogram with buckets scraped at least twice, its own `.count` counter deciding. */
function histogram(all: SeriesInfo[], name: string): SeriesInfo | null {
  const scrapes = (h: SeriesInfo) => all.find((c) => c.name === `${name}.count` && JSON.stringify(c.labels) === JSON.stringify(h.labels))?.points ?? 0;
  return bestSource(all, name, (s) => s.kind === 'histogram' && scrapes(s) >= 2).sort((a, b) => scrapes(b) - scrapes(a))[0] ?? null;
}

/** A canonical chart of the catalog, drawn with these lines. */
const canonicalGroup = (def: ChartDef, series: ChartSeries[], opts: { title?: string; unit?: string; extra?: Partial<ChartGroup> } = {}) =>
  group(def.id, opts.title ?? def.title, opts.unit ?? def.unit, series, true, opts.extra);

interface Built {
  groups: ChartGroup[];
  used: Set<number>;
}

/** The canonical views, in reading order, for the signals the incident has. */
function canonicalGroups(all: SeriesInfo[]): Built {
  const used = new Set<number>();
  const groups: ChartGroup[] = [];
  const take = (list: SeriesInfo[]) => list.forEach((s) => used.add(s.id));
  const counter = (name: string) => bestSource(all, name, (s) => s.points > 0 && s.kind === 'counter');
  const gauge = (name: string) => bestSource(all, name, (s) => s.points > 0 && s.kind !== 'counter' && s.kind !== 'histogram' && s.kind !== 'info');

  for (const def of LATENCY_CHARTS) {
    const name = def.signals[0];
    const h = histogram(all, name);
    if (h) {
      take([h, ...all.filter((s) => (s.name === `${name}.count` || s.name === `${name}.sum`) && JSON.stringify(s.labels) === JSON.stringify(h.labels))]);
      const quantiles = LATENCY_QUANTILES.map((q) => ({ info: h, label: `P${Math.round(q * 100)}`, asRate: false }));
      groups.push(canonicalGroup(def, quantiles, { title: `${def.title} P50 / P95 / P99`, unit: h.unit || def.unit, extra: { quantiles: { histogram: h, q: LATENCY_QUANTILES } } }));
      continue;
    }
    const mean = meanLine(all, name, `${def.short} mean`);
    if (mean) {
      take(deriveInputs(mean.derive!));
      groups.push(canonicalGroup(def, [mean], { title: `${def.title}, mean per request` }));
    }
  }

  const finished = counter(SIG.reqFinished);
  const running = gauge(SIG.reqRunning);
  const waiting = gauge(SIG.reqWaiting);
  const finishes = finished.length ? finished : counter(`${SIG.latE2e}.count`);
  if (finishes.length) {
    const series: ChartSeries[] = [];
    if (running.length || waiting.length) series.push({ info: finishes[0], label: 'arrivals (finishes + queue growth)', asRate: true, derive: { kind: 'arrivals', finished: finishes, queue: [...running, ...waiting] } });
    series.push({ info: finishes[0], label: 'finishes', asRate: true, derive: { kind: 'sum-rate', of: finishes } });
    take(finished);
    groups.push(canonicalGroup(CHARTS.requests, series));
  }

  const tokIn = counter(SIG.tokensPrompt);
  const tokOut = counter(SIG.tokensGeneration);
  if (tokIn.length || tokOut.length) {
    take([...tokIn, ...tokOut]);
    groups.push(canonicalGroup(CHARTS.tokens, [...lines(tokIn, true, () => 'prompt'), ...lines(tokOut, true, () => 'generation')]));
  } else {
    // Engines that log their throughput as a rate (vLLM's stats line) rather than count tokens.
    const rIn = gauge(SIG.tokensPromptRate);
    const rOut = gauge(SIG.tokensGenerationRate);
    if (rIn.length || rOut.length) {
      take([...rIn, ...rOut]);
      groups.push(canonicalGroup(CHARTS.tokens, [...lines(rIn, false, () => 'prompt'), ...lines(rOut, false, () => 'generation')]));
    }
  }

  if (running.length || waiting.length) {
    take([...running, ...waiting]);
    groups.push(canonicalGroup(CHARTS.queue, [...lines(running, false, () => 'running'), ...lines(waiting, false, () => 'waiting')]));
  }

  const kv = gauge(SIG.kvUsage);
  if (kv.length) {
    take(kv);
    groups.push(canonicalGroup(CHARTS.kv, lines(kv, false, () => 'KV usage')));
    if (running.length) {
      groups.push(canonicalGroup(CHARTS.kvPerRequest, [{ info: kv[0], label: 'KV per running request', asRate: false, derive: { kind: 'ratio', num: kv, den: running, rates: false } }]));
    }
  }

  const lengths = [meanLine(all, SIG.reqPromptLen, 'prompt length'), meanLine(all, SIG.reqGenLen, 'output length')].filter((x): x is ChartSeries => !!x);
  if (lengths.length) {
    lengths.forEach((l) => take(deriveInputs(l.derive!)));
    groups.push(canonicalGroup(CHARTS.lengths, lengths));
  }

  const preempt = counter(SIG.kvPreemptions);
  if (preempt.length) {
    take(preempt);
    groups.push(canonicalGroup(CHARTS.preemptions, lines(preempt, true, () => 'preemptions')));
  }

  // Errors are errors: the error counter and requests that ended aborted or failed, never successful finishes.
  const errors = all.filter((s) => s.name === SIG.reqErrors && s.kind === 'counter' && s.points > 0);
  const failed = all.filter((s) => s.name === SIG.reqFinished && s.kind === 'counter' && s.points > 0 && /^(abort|error)$/.test(s.labels.reason ?? '') && sourceRank(s) === Math.min(...finished.map(sourceRank), 9));
  if (errors.length || failed.length) {
    take(errors);
    groups.push(canonicalGroup(CHARTS.errors, [...lines(errors, true, () => 'errors'), ...failed.map((info) => ({ info, label: `finished: ${info.labels.reason}`, asRate: true }))]));
  }

  const hits = counter(SIG.kvPrefixHits);
  const queries = counter(SIG.kvPrefixQueries);
  if (hits.length && queries.length) {
    take([...hits, ...queries]);
    groups.push(canonicalGroup(CHARTS.prefix, [{ info: hits[0], label: 'hit rate', asRate: false, derive: { kind: 'ratio', num: hits, den: queries, rates: true } }], { title: `${CHARTS.prefix.title} (hits ÷ queries)` }));
  } else {
    const rate = gauge(SIG.kvPrefixHitRate);
    if (rate.length) {
      take(rate);
      groups.push(canonicalGroup(CHARTS.prefix, lines(rate, false, () => 'hit rate')));
    }
  }

  for (const def of PER_GPU_CHARTS) {
    const list = def.signals.flatMap((n) => gauge(n));
    if (!list.length) continue;
    take(list);
    const mixed = def.signals.length > 1;
    // The series' own unit where it names one (every importer writes the canonical unit).
    groups.push(canonicalGroup(def, lines(list, false, mixed ? (s) => s.name.replace(/^(gpu|torch)\./, '') : undefined), { unit: list[0].unit || def.unit }));
  }
  return { groups, used };
}

/** rate(<name>.sum) ÷ rate(<name>.count): the mean per event of a histogram, from its best source. */
function meanLine(all: SeriesInfo[], name: string, label: string): ChartSeries | null {
  const sums = bestSource(all, `${name}.sum`, (s) => s.points > 0 && s.kind === 'counter');
  const pairs = sums
    .map((sum) => [sum, all.find((c) => c.name === `${name}.count` && c.points > 0 && JSON.stringify(c.labels) === JSON.stringify(sum.labels))] as const)
    .filter((p): p is readonly [SeriesInfo, SeriesInfo] => !!p[1]);
  if (!pairs.length) return null;
  return { info: pairs[0][0], label, asRate: false, derive: { kind: 'ratio', num: pairs.map((p) => p[0]), den: pairs.map((p) => p[1]), rates: true } };
}

/** Every series not drawn by a canonical view: one chart per name and unit (counters as rates). */
function otherGroups(all: SeriesInfo[], used: Set<number>): ChartGroup[] {
  const rest = all.filter((s) => s.points > 0 && s.kind !== 'info' && !used.has(s.id));
  const out: ChartGroup[] = [];
  // Histogram means of the signals without a canonical view (prefill, decode, …) and other sources'.
  const means: ChartSeries[] = [];
  for (const sum of rest) {
    if (!sum.name.endsWith('.sum') || sum.kind !== 'counter') continue;
    const base = sum.name.slice(0, -4);
    const count = rest.find((c) => c.name === `${base}.count` && JSON.stringify(c.labels) === JSON.stringify(sum.labels));
    if (!count) continue;
    used.add(sum.id).add(count.id);
    means.push({ info: sum, label: `${base} mean`, asRate: false, derive: { kind: 'ratio', num: [sum], den: [count], rates: true } });
  }
  if (means.length) {
    const byUnit = new Map<string, ChartSeries[]>();
    const unitOf = (s: SeriesInfo) => (s.unit === 's' ? 'seconds' : s.unit || '');
    for (const m of ownFirst(means)) (byUnit.get(unitOf(m.info)) ?? byUnit.set(unitOf(m.info), []).get(unitOf(m.info))!).push(m);
    for (const [unit, list] of byUnit) out.push(group(`means-${unit || 'count'}`, 'Means per event (histogram sum ÷ count)', unit, list, false));
  }
  const byName = new Map<string, SeriesInfo[]>();
  for (const s of rest) {
    if (used.has(s.id)) continue;
    const k = `${s.name}|${s.unit}|${s.kind === 'counter' ? 'rate' : 'value'}`;
    (byName.get(k) ?? byName.set(k, []).get(k)!).push(s);
  }
  for (const [key, list] of [...byName].sort((a, b) => a[0].localeCompare(b[0]))) {
    const asRate = list[0].kind === 'counter';
    out.push(group(`other-${key}`, asRate ? `${list[0].name} (rate)` : list[0].name, asRate ? `${list[0].unit || 'count'}/s` : list[0].unit, lines(list, asRate), false));
  }
  return out;
}

export function groupSeries(all: SeriesInfo[]): ChartGroup[] {
  const { groups, used } = canonicalGroups(all);
  return [...groups, ...otherGroups(all, used)];
}

/** Groups whose series match every word of `filter` in their names or labels ("dcgm gpu=1"). */
export function matchGroups(groups: ChartGroup[], filter: string): ChartGroup[] {
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  return words.length ? groups.filter((g) => words.every((w) => g.search.includes(w) || g.title.toLowerCase().includes(w))) : groups;
}

/** Whether a diagnosis evidence ref ("kv.usage", "gpu.mem.used{gpu=0}") names a series of this chart. */
export function groupHasSeries(g: ChartGroup, ref: string): boolean {
  const name = ref.split('{')[0];
  return g.series.some((s) => s.info.name === name || s.info.name === `${name}.sum` || (s.derive ? deriveInputs(s.derive).some((x) => x.name === name || x.name === `${name}.sum`) : false)) || (g.quantiles?.histogram.name === name);
}
