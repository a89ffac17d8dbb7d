// VictoriaMetrics' JSON-lines export (`/api/v1/export`, also a cluster's
// `/select/<tenant>/prometheus/api/v1/export`, and what `/api/v1/import` takes back): one series a line,
//   {"metric":{"__name__":"vllm:num_requests_waiting","job":"vllm",…},"values":[0,3,…],"timestamps":[1773478805000,…]}
// times in ms, values as numbers — except that VictoriaMetrics writes infinities bare (`+Inf`, `-Inf`), which
// is not JSON: such a line is read with them quoted. A series may take several lines (`max_rows_per_line`,
// `reduce_mem_usage=1`), and series come in the store's order, not by name: a histogram's `_sum` or `_count`
// may come before any of its buckets. There is no `# TYPE`: as in the Prometheus API answers, a family is a
// histogram when a `<family>_bucket` series with `le` is in the file, so a `_sum`/`_count` line whose family
// has shown no bucket yet is held (as its text) and read at the end, when every bucket has been seen.
// Everything else goes through the Prometheus mapping (prom-series, the canonical table) as it comes.
import type { Labels } from '../signals/canonical';
import { GarbageGuard } from './garbage-guard';
import { MAX_VALUE_DEPTH, jsonTooDeep } from './json-error-offset';
import { lineBatches } from './line-reader';
import { classify, parsePromNumber, promMs, PromSeriesMapper, type PromType, type Target } from './prom-series';
import type { EntryInput, ImportContext, Importer, Sink } from './types';

/**
 * The longest series line read (256 MiB: about ten million points); a longer one is skipped, named. V8's
 * strings stop at 512 MiB, and VictoriaMetrics splits a series over lines when asked (`max_rows_per_line`).
 */
const MAX_SERIES_LINE = 256 * 2 ** 20;

interface SeriesLine {
  metric: Record<string, unknown>;
  values: unknown[];
  timestamps: unknown[];
}


/** The infinities VictoriaMetrics writes unquoted in `values`, quoted so that JSON.parse takes the line. */
const BARE_SPECIAL = /([[,]\s*)([+-]?Inf|NaN)(?=\s*[,\]])/g;

function parseLine(s: string): SeriesLine | string {
  let o: unknown;
  try {
    o = JSON.parse(s);
  } catch {
    // Only past the metric object (its first `},`), so its label values are left as written.
    const at = s.indexOf('},');
    if (at < 0) return 'not JSON';
    try {
      o = JSON.parse(s.slice(0, at) + s.slice(at).replace(BARE_SPECIAL, '$1"$2"'));
    } catch {
      return 'not JSON';
    }
  }
  if (!o || typeof o !== 'object' || Array.isArray(o)) return 'not a JSON object';
  const r = o as Record<string, unknown>;
  if (!r.metric || typeof r.metric !== 'object' || Array.isArray(r.metric)) return 'no "metric" object';
  if (!Array.isArray(r.values) || !Array.isArray(r.timestamps)) return 'no "values" and "timestamps" arrays';
  if (r.values.length !== r.timestamps.length) return `${r.values.length} values for ${r.timestamps.length} timestamps`;
  return r as unknown as SeriesLine;
}

/** A histogram part (`_sum`, `_count`) whose family is not yet known to be a histogram: its role waits for the end. */
const PART = /_(?:g?sum|g?count)$/;

export async function importVictoriaExport(input: EntryInput, sink: Sink, ctx: ImportContext): Promise<void> {
  const guard = new GarbageGuard(ctx, 'a VictoriaMetrics export');
  const mapper = new PromSeriesMapper(sink);
  const histograms = new Set<string>();
  const typeOf = (family: string): PromType | undefined => (histograms.has(family) ? 'histogram' : undefined);
  /** Each series' target, by its line's metric object as written (one series over several lines is one key). */
  const targets = new Map<string, Target>();
  const held: { line: number; text: string }[] = [];
  let badPoints = 0;
  let unnamed = 0;

  const read = (no: number, s: string, atEnd: boolean): void => {
    const r = parseLine(s);
    if (typeof r === 'string') {
      guard.malformed(no, r);
      return;
    }
    const name = r.metric.__name__;
    if (typeof name !== 'string' || !name) {
      unnamed++;
      guard.ok();
      return;
    }
    const labels: Labels = {};
    for (const [k, v] of Object.entries(r.metric)) if (k !== '__name__') labels[k] = String(v);
    if (name.endsWith('_bucket') && labels.le !== undefined) histograms.add(name.slice(0, -7));
    else if (!atEnd && PART.test(name) && !histograms.has(name.replace(PART, ''))) {
      held.push({ line: no, text: s });
      return;
    }
    guard.ok();
    const key = JSON.stringify(r.metric);
    let target = targets.get(key);
    if (!target) {
      try {
        target = mapper.target(name, labels, classify(name, labels, typeOf));
      } catch (e) {
        ctx.warn((e as Error).message, { line: no });
        return;
      }
      targets.set(key, target);
    }
    const { values, timestamps } = r;
    for (let i = 0; i < values.length; i++) {
      const t = timestamps[i];
      const x = values[i];
      let v: number;
      if (typeof x === 'number') v = x;
      else if (typeof x === 'string') {
        try {
          v = parsePromNumber(x);
        } catch {
          badPoints++;
          continue;
        }
      } else {
        badPoints++;
        continue;
      }
      if (typeof t !== 'number' || !Number.isFinite(t)) {
        badPoints++;
        continue;
      }
      // VictoriaMetrics writes ms; a hand-made file may write seconds.
      mapper.write(target, promMs(t), v);
    }
  };

  let no = 0;
  for await (const batch of lineBatches(input.stream(), ctx, { maxLineBytes: MAX_SERIES_LINE })) {
    for (const line of batch) {
      no++;
      const s = line.trim();
      if (!s) continue;
      if (jsonTooDeep(s, MAX_VALUE_DEPTH) >= 0) {
        guard.malformed(no, `nested deeper than ${MAX_VALUE_DEPTH} levels`);
        continue;
      }
      read(no, s, false);
    }
  }
  for (const h of held) read(h.line, h.text, true);
  mapper.flush();
  guard.finish(no);
  if (badPoints) ctx.warn(`${badPoints} points with an unreadable value or timestamp skipped`);
  if (unnamed) ctx.warn(`${unnamed} series without "__name__" skipped`);
}

/** `{"metric":{…},"values":[` opening the file's first line (`timestamps` first where keys were sorted); the rest may lie past the head. */
export function detectVictoriaExport(head: Buffer): number {
  const text = head.toString('utf8', 0, Math.min(head.length, 16 * 1024)).replace(/^\uFEFF/, '').trimStart();
  // A value or a time, not a `[t, "v"]` pair: Prometheus' result lines (`jq -c '.data.result[]'`) are not this.
  return /^\{\s*"metric"\s*:\s*\{[^\n]*?\}\s*,\s*"(?:values|timestamps)"\s*:\s*\[\s*(?:[-+\d.]|Inf|NaN|null|"|\])/.test(text) ? 0.95 : 0;
}

export const victoriaExportImporter: Importer = {
  format: 'victoriametrics-jsonl',
  detect: (head) => detectVictoriaExport(head),
  import: importVictoriaExport,
};
