// Which series to pull. The server is asked for the metric names in the range under the user's
// selectors (`/api/v1/label/__name__/values`), the names are kept when the canonical mapping knows
// them (or when the user named them), grouped so that what belongs together arrives in one answer (a
// histogram's `_bucket`, `_sum` and `_count`; DCGM's FB_USED/FREE/RESERVED, whose sum is the GPU's
// total), and each group's series are counted (`/api/v1/series`) against the series cap before any
// sample moves.
import { canonicalMetric } from '../signals/canonical';
import { isFbField } from '../importers/fb-total';
import type { PromApi } from './prom-api';
import { discoverySelector, selectorFor, type Selector } from './selector';
import { groupDigits } from '../../../common/format';

/** One query_range expression's worth of metric names. */
export interface Group {
  names: string[];
  /** The PromQL of the group: its selector under each user selector that matched it, OR-ed. */
  expr: string;
  /** The selectors `/api/v1/series` is asked with (one per user selector). */
  matchers: string[];
  series: number;
}

export class TooWideError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TooWideError';
  }
}

export class NothingToPullError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NothingToPullError';
  }
}

const HIST_PARTS = ['_bucket', '_sum', '_count'] as const;

/** A name's family and part: `x_bucket` → x; `x_sum`/`x_count` → x; anything else → itself. */
function familyOf(name: string): string {
  for (const p of HIST_PARTS) if (name.endsWith(p)) return name.slice(0, -p.length);
  return name;
}

/** The canonical mapping knows this metric (directly, or as a histogram's part). `_created` never. */
export function understood(name: string): boolean {
  if (name.endsWith('_created')) return false;
  return canonicalMetric(name, {}) !== null || canonicalMetric(familyOf(name), {}) !== null;
}

/** DCGM framebuffer fields, which the mapper sums per GPU and time into gpu.mem.total. */
function isFb(name: string): boolean {
  const c = canonicalMetric(name, {});
  return c !== null && isFbField(c.name, name);
}

const seconds = (ms: number) => (ms / 1000).toFixed(3).replace(/\.?0+$/, '');

/** Names in the range under one selector (or all names when null). */
async function namesUnder(api: PromApi, sel: Selector | null, startMs: number, endMs: number): Promise<string[]> {
  const params: [string, string][] = [
    ['start', seconds(startMs)],
    ['end', seconds(endMs)],
  ];
  if (sel) {
    // A name the user typed may be a histogram's family: its parts are what the server holds.
    const asFamily: Selector = sel.name === null ? sel : { ...sel, name: null, matchers: [{ label: '__name__', op: '=~', raw: JSON.stringify([sel.name, ...HIST_PARTS.map((p) => sel.name + p), `${sel.name}_total`].join('|')) }, ...sel.matchers] };
    params.push(['match[]', discoverySelector(asFamily)]);
  }
  const { data } = await api.call<unknown>('GET', 'label/__name__/values', params);
  if (!Array.isArray(data)) throw new Error('the label values answer is not a list');
  return data.map(String);
}

/**
 * Groups of names to pull and their series counts. Throws NothingToPullError when no known series
 * matches, TooWideError past `maxSeries` (with the biggest groups named).
 */
export async function discover(api: PromApi, selectors: Selector[], startMs: number, endMs: number, maxSeries: number, concurrency: number, signal?: AbortSignal): Promise<Group[]> {
  const perSelector = selectors.length ? selectors : [null];
  // name → the selectors it was found under
  const found = new Map<string, Set<number>>();
  const unknown = new Set<string>();
  const lists = await Promise.all(perSelector.map((s) => namesUnder(api, s, startMs, endMs)));
  lists.forEach((names, i) => {
    const sel = perSelector[i];
    const typed = sel?.name ?? null;
    for (const n of names) {
      const named = typed !== null && (n === typed || familyOf(n) === typed || n === `${typed}_total`);
      if (!named && !understood(n)) {
        unknown.add(n);
        continue;
      }
      if (n.endsWith('_created')) continue;
      let s = found.get(n);
      if (!s) found.set(n, (s = new Set()));
      s.add(i);
    }
  });
  if (!found.size) {
    const where = selectors.length ? `under ${selectors.map((s) => s.text).join(' or ')}` : 'on the server';
    const range = `between ${new Date(startMs).toISOString()} and ${new Date(endMs).toISOString()}`;
    const others = [...unknown].sort().slice(0, 8);
    throw new NothingToPullError(
      `no series Quadscope understands (vLLM, SGLang, TGI, DCGM exporter, process metrics) ${where} ${range}` +
        (others.length ? `; the server holds other metrics there, e.g. ${others.join(', ')}${unknown.size > others.length ? ', …' : ''} (name one with --match to pull it as it is)` : '; check the time range and the selector'),
    );
  }

  // Histogram families: a `_bucket` name makes `_sum` and `_count` of the same family its group.
  const names = [...found.keys()].sort();
  const histFamilies = new Set(names.filter((n) => n.endsWith('_bucket')).map(familyOf));
  const groupKey = (n: string) => (isFb(n) ? '\0dcgm-fb' : histFamilies.has(familyOf(n)) ? `\0h:${familyOf(n)}` : n);
  const byKey = new Map<string, string[]>();
  for (const n of names) {
    const k = groupKey(n);
    const list = byKey.get(k);
    if (list) list.push(n);
    else byKey.set(k, [n]);
  }
  const groups: Group[] = [...byKey.values()].map((g) => {
    const sels = new Set<number>();
    for (const n of g) for (const i of found.get(n)!) sels.add(i);
    const matchers = [...sels].sort((a, b) => a - b).map((i) => selectorFor(g, perSelector[i]));
    return { names: g, expr: matchers.join(' or '), matchers, series: 0 };
  });

  // Count the series of each group; stop as soon as the cap is passed.
  let total = 0;
  let next = 0;
  let tooWide = false;
  let failed: unknown = null;
  const worker = async () => {
    while (next < groups.length && !tooWide && failed === null) {
      if (signal?.aborted) return;
      const g = groups[next++];
      const params: [string, string][] = g.matchers.map((m) => ['match[]', m] as [string, string]);
      params.push(['start', seconds(startMs)], ['end', seconds(endMs)]);
      try {
        const { data } = await api.call<unknown>('POST', 'series', params);
        if (!Array.isArray(data)) throw new Error('the series answer is not a list');
        g.series = data.length;
      } catch (e) {
        // The first failure is the answer; the other workers stop asking.
        failed ??= e;
        return;
      }
      total += g.series;
      if (total > maxSeries) tooWide = true;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, groups.length) }, worker));
  if (failed !== null) throw failed;
  if (tooWide) {
    const counted = groups.filter((g) => g.series > 0).sort((a, b) => b.series - a.series);
    const top = counted.slice(0, 5).map((g) => `${g.names.length > 1 ? `${familyOf(g.names[0])}*` : g.names[0]} ${groupDigits(g.series)}`);
    throw new TooWideError(
      `the selector is too wide: it matches more than ${groupDigits(maxSeries)} series (${groupDigits(total)} counted before stopping; most: ${top.join(', ')}). ` +
        'Narrow it with --match (e.g. \'{namespace="llm-prod", pod=~"vllm-.*"}\'), pull a shorter range, or raise --max-series.',
    );
  }
  return groups.filter((g) => g.series > 0);
}

/**
 * The scrape interval the server's samples show: the median gap between raw samples of the group's
 * series in a window of up to 10 minutes (at the end of the range, else its middle, else its start:
 * pods come and go, so the series may hold samples in only part of it); null when no window holds
 * two samples of a series.
 */
export async function estimateIntervalMs(api: PromApi, group: Group, startMs: number, endMs: number): Promise<number | null> {
  const windowS = Math.max(1, Math.min(600, Math.floor((endMs - startMs) / 1000)));
  const at = [endMs, Math.round((startMs + endMs) / 2), startMs + windowS * 1000];
  for (const t of at) {
    const { data } = await api.call<{ resultType?: string; result?: { values?: [number, string][] }[] }>('GET', 'query', [
      ['query', `${group.matchers[0]}[${windowS}s]`],
      ['time', seconds(t)],
    ]);
    const gaps: number[] = [];
    for (const r of data?.result ?? []) {
      const v = r.values ?? [];
      for (let i = 1; i < v.length; i++) gaps.push(Math.round((v[i][0] - v[i - 1][0]) * 1000));
    }
    if (!gaps.length) continue;
    gaps.sort((a, b) => a - b);
    const median = gaps[gaps.length >> 1];
    // Scrape times jitter by milliseconds: whole seconds, or tenths below 10 s.
    const grain = median < 1000 ? 1 : median < 10_000 ? 100 : 1000;
    return Math.max(1, Math.round(median / grain) * grain);
  }
  return null;
}
