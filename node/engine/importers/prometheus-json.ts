// Prometheus HTTP API answers: `/api/v1/query_range` (resultType "matrix", `values: [[t_s, "v"]…]`)
// and `/api/v1/query` (resultType "vector", `value: [t_s, "v"]`). The answer carries no `# TYPE`:
// a family is a histogram when the answer holds `<family>_bucket` series with `le`; anything else
// takes its kind from the canonical table, else gauge. Names and units go through the same canonical
// mapping as the text format. An answer to an expression (no `__name__`) is named by the expression
// where the file keeps it (Grafana's inspector download, a `query` member), else by the file's name, with
// a label `expr` of the same and a warning. The answer is one JSON document, so it is read whole (Prometheus caps an
// answer at 11,000 points per series; a bundle's answers are megabytes, not gigabytes).
import type { Labels } from '../signals/canonical';
import { classify, parsePromNumber, PromSeriesMapper, type PromType } from './prom-series';
import { ImportError, type EntryInput, type ImportContext, type Importer, type Sink } from './types';
import { MAX_VALUE_DEPTH, jsonErrorOffset, jsonTooDeep } from './json-error-offset';
import { lineOf } from './read-text';
import { startsWithBom } from './line-reader';
import { isObj, type Json } from './json-object';
import { LOOKBACK_MS, lookbackCuts, targetKey, type TailSeries } from './lookback-tail';

interface Result {
  metric?: Record<string, unknown>;
  values?: unknown[];
  value?: unknown;
  /** Native histograms: [[t, {count, sum, buckets}]…] in a matrix, one [t, {…}] in a vector. */
  histograms?: unknown;
  histogram?: unknown;
}

/** The answer's text, without the UTF-8 byte-order mark a Windows editor puts first (`bom`: its bytes, for offsets). */
async function readAll(input: EntryInput): Promise<{ text: string; bom: number }> {
  const parts: Buffer[] = [];
  for await (const c of input.stream()) parts.push(c);
  const all = Buffer.concat(parts);
  const bom = startsWithBom(all) ? 3 : 0;
  return { text: all.toString('utf8', bom), bom };
}

/** A native histogram's point ([t, {count, sum, buckets}]): its time in s, count and sum, or null. */
function nativePoint(p: unknown): [number, number, number] | null {
  if (!Array.isArray(p) || p.length < 2 || typeof p[0] !== 'number' || !isObj(p[1])) return null;
  const count = Number(p[1].count);
  const sum = Number(p[1].sum);
  return Number.isFinite(count) && !Number.isNaN(sum) ? [p[0], count, sum] : null;
}

export async function importPrometheusJson(input: EntryInput, sink: Sink, ctx: ImportContext): Promise<void> {
  let doc: unknown;
  const { text, bom } = await readAll(input);
  const deep = jsonTooDeep(text, MAX_VALUE_DEPTH);
  if (deep >= 0) throw new ImportError(ctx.path, { line: lineOf(text, deep), offset: bom + Buffer.byteLength(text.slice(0, deep)) }, `nested deeper than ${MAX_VALUE_DEPTH} levels: refused`);
  try {
    doc = JSON.parse(text);
  } catch (e) {
    const offset = jsonErrorOffset(text);
    // V8's own position is in characters and not always given: the byte and line, as other importers say them.
    const message = (e as Error).message.replace(/ in JSON at position \d+( \(line \d+ column \d+\))?/, '');
    throw new ImportError(ctx.path, { line: lineOf(text, offset), offset: bom + Buffer.byteLength(text.slice(0, offset)) }, `not JSON: ${message}`);
  }
  // Grafana's query inspector ("Download data") wraps the answer: {request: {url …}, response: {…}}.
  const wrapped = isObj(doc) && isObj(doc.response) && isObj(doc.response.data) ? doc : null;
  const root = (wrapped ? wrapped.response : doc) as { status?: unknown; data?: { resultType?: unknown; result?: unknown }; error?: unknown; warnings?: unknown; infos?: unknown };
  if (root?.status === 'error') throw new ImportError(ctx.path, { key: 'error' }, `the Prometheus answer is an error: ${String(root.error ?? '')}`);
  // What the server said about its own answer (partial data, a query limit hit): the user's to know.
  for (const k of ['warnings', 'infos'] as const) {
    const said = root?.[k];
    if (Array.isArray(said)) for (const m of said.slice(0, 20)) ctx.warn(`the server's answer ${k === 'warnings' ? 'warns' : 'notes'}: ${String(m)}`, { key: k });
  }
  const type = root?.data?.resultType;
  const results = root?.data?.result;
  if ((type !== 'matrix' && type !== 'vector') || !Array.isArray(results)) {
    throw new ImportError(ctx.path, { key: 'data.resultType' }, `expected a matrix or vector answer, found ${JSON.stringify(type)}`);
  }

  const histograms = new Set<string>();
  for (const r of results as Result[]) {
    const name = r?.metric?.__name__;
    if (typeof name !== 'string') continue;
    if (name.endsWith('_bucket') && r.metric?.le !== undefined) histograms.add(name.slice(0, -7));
    else if (r.histograms !== undefined || r.histogram !== undefined) histograms.add(name);
  }
  let native = 0;
  const typeOf = (f: string): PromType | undefined => (histograms.has(f) ? 'histogram' : undefined);
  const mapper = new PromSeriesMapper(sink);
  let unnamed: { name: string; from: string } | null = null;

  // A native histogram (`histograms: [[t, {count, sum, buckets}]]`, or `histogram` in a vector): its
  // count and sum as the classic `_count` and `_sum` would be.
  function nativeHistogram(r: Result, name: string, labels: Labels, key: string): void {
    const points = type === 'matrix' ? r.histograms : [r.histogram];
    if (!Array.isArray(points)) {
      ctx.warn(`no ${type === 'matrix' ? 'histograms' : 'histogram'} array, skipped`, { key });
      return;
    }
    const count = mapper.target(`${name}_count`, labels, classify(`${name}_count`, labels, typeOf));
    const sum = mapper.target(`${name}_sum`, labels, classify(`${name}_sum`, labels, typeOf));
    let bad = 0;
    for (const p of points) {
      const x = nativePoint(p);
      if (!x) {
        bad++;
        continue;
      }
      mapper.write(count, x[0] * 1000, x[1]);
      mapper.write(sum, x[0] * 1000, x[2]);
    }
    if (bad) ctx.warn(`${bad} malformed native histogram points skipped`, { key });
  }

  const cuts = type === 'matrix' ? lookbackTails(results as Result[]) : null;
  if (cuts?.size) {
    const names = [...cuts.keys()].map((k) => k.split('\u0000')[0]);
    ctx.warn(
      `${cuts.size} target${cuts.size === 1 ? '' : 's'} (${names.slice(0, 3).join(', ')}${names.length > 3 ? ', …' : ''}) repeat their last reading for up to ${LOOKBACK_MS / 60_000} min, then vanish before the answer ends or hand over to a successor: a range query's lookback over a target that stopped without a staleness marker; the repeats were not read`,
      { key: 'data.result' },
    );
  }

  results.forEach((r: Result, i: number) => {
    const key = `data.result[${i}]`;
    const metric = r?.metric;
    if (!metric || typeof metric !== 'object') {
      ctx.warn('result without a "metric" object, skipped', { key });
      return;
    }
    const labels: Labels = {};
    for (const [k, v] of Object.entries(metric)) if (k !== '__name__') labels[k] = String(v);
    const cut = cuts?.get(targetKey(labels)) ?? Infinity;
    let name: string;
    if (typeof metric.__name__ === 'string') name = metric.__name__;
    else {
      // The answer to an expression (histogram_quantile(…), rate(…)) names no metric: the expression
      // names it when the file carries it, else the file's own name.
      unnamed ??= expressionOf(doc, wrapped) ?? fileStem(ctx.path);
      name = unnamed.name;
      labels.expr = unnamed.name;
    }
    if (r.histograms !== undefined || r.histogram !== undefined) {
      native++;
      nativeHistogram(r, name, labels, key);
      return;
    }
    let target;
    try {
      target = mapper.target(name, labels, classify(name, labels, typeOf));
    } catch (e) {
      ctx.warn((e as Error).message, { key });
      return;
    }
    const points = type === 'matrix' ? r.values : [r.value];
    if (!Array.isArray(points)) {
      ctx.warn(`no ${type === 'matrix' ? 'values' : 'value'} array, skipped`, { key });
      return;
    }
    let bad = 0;
    for (const p of points) {
      if (!Array.isArray(p) || p.length < 2 || typeof p[0] !== 'number') {
        bad++;
        continue;
      }
      let v: number;
      try {
        v = parsePromNumber(String(p[1]));
      } catch {
        bad++;
        continue;
      }
      if (p[0] * 1000 > cut) continue;
      mapper.write(target, p[0] * 1000, v);
    }
    if (bad) ctx.warn(`${bad} malformed points skipped`, { key });
  });
  mapper.flush();
  if (native) ctx.warn(`${native} native histogram series: their count and sum are kept, their sparse buckets are not read`, { key: 'data.result' });
  // (Set inside the callback above, which the compiler does not follow.)
  const named = unnamed as { name: string; from: string } | null;
  if (named) ctx.warn(`results without __name__ (the answer to an expression) are named after ${named.from}: "${named.name}"`);
}

/**
 * A matrix answer's lookback tails (lookback-tail.ts): per target, the time after which its points only repeat
 * the last scrape of a target that went away. Points that are not `[number, value]` are left out here; the
 * import warns about them.
 */
function lookbackTails(results: Result[]): Map<string, number> {
  const series: TailSeries[] = [];
  let answerEnd = -Infinity;
  for (const r of results) {
    if (!isObj(r?.metric) || !Array.isArray(r.values)) continue;
    const labels: Record<string, string> = {};
    for (const [k, v] of Object.entries(r.metric)) if (k !== '__name__') labels[k] = String(v);
    const times: number[] = [];
    const values: string[] = [];
    for (const p of r.values) {
      if (!Array.isArray(p) || p.length < 2 || typeof p[0] !== 'number') continue;
      times.push(p[0] * 1000);
      values.push(String(p[1]));
    }
    if (times.length) answerEnd = Math.max(answerEnd, times[times.length - 1]);
    series.push({ labels, times, values });
  }
  return lookbackCuts(series, answerEnd);
}

/**
 * The query an answer was asked with, where the file keeps it: Grafana's inspector (`request.url`'s
 * `query=`, or `request.data.queries[].expr`), or a `query`/`expr` member beside `data` (scripts that save
 * what they asked).
 */
function expressionOf(doc: unknown, wrapped: Json | null): { name: string; from: string } | null {
  if (wrapped && isObj(wrapped.request)) {
    const req = wrapped.request;
    if (typeof req.url === 'string') {
      const q = /[?&]query=([^&]*)/.exec(req.url);
      if (q) {
        try {
          return { name: decodeURIComponent(q[1].replace(/\+/g, ' ')), from: 'its query' };
        } catch {
          // not URL-encoded text: fall through
        }
      }
    }
    const queries = isObj(req.data) && Array.isArray(req.data.queries) ? req.data.queries : [];
    for (const q of queries) if (isObj(q) && typeof q.expr === 'string' && q.expr) return { name: q.expr, from: 'its query' };
  }
  if (isObj(doc)) {
    for (const k of ['query', 'expr']) {
      const v = doc[k];
      if (typeof v === 'string' && v.trim()) return { name: v.trim(), from: 'its query' };
    }
  }
  return null;
}

/** `answers/p99_ttft.json` (or `.json.txt`, …) → p99_ttft. */
export function fileStem(path: string): { name: string; from: string } {
  const base = path.split(/[\\/]/).pop() ?? path;
  const stem = base.replace(/(\.json)?(\.\w+)?$/i, '') || 'value';
  return { name: stem, from: 'the file' };
}

export function detectPrometheusJson(head: Buffer): number {
  const text = head.toString('utf8').trimStart();
  if (!text.startsWith('{')) return 0;
  if (/"resultType"\s*:\s*"(matrix|vector)"/.test(text)) return 0.95;
  // Keys sorted (`jq -S`, json.dumps(sort_keys=True)): `result` comes before `resultType`, which a long
  // answer pushes out of the head.
  return /^\{\s*"data"\s*:\s*\{\s*"result"\s*:\s*\[\s*(\]|\{\s*"(histograms?|metric)"\s*:)/.test(text) ? 0.9 : 0;
}

export const prometheusJsonImporter: Importer = {
  format: 'prometheus-json',
  detect: (head) => detectPrometheusJson(head),
  import: importPrometheusJson,
};
