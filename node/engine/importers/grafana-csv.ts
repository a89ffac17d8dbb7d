// Grafana's panel data as CSV (Inspect → Data → Download CSV), what an on-call engineer saves from the
// dashboard the fleet's metrics already live in:
//
// - "Series joined by time" (and a single series): `"Time","<series>",…`, a time column, one column a series;
// - Grafana ≤ 7's graph panel export, series as rows: `Series;Time;Value`, or as columns, `;`-separated.
//
// A column is named as the panel displays it: Prometheus' `vllm:num_requests_waiting{instance="…", job="…"}`,
// `{__name__="up", instance="…"}`, or a legend of the user's (`p99 TTFT`), which names a series as written. A
// metric name found there goes through the Prometheus mapping (prom-series, the canonical table); an
// expression's answer without one keeps its legend, or the file's name where the legend is only labels.
// Times are epoch ms, or the dashboard's formatted time (`2024-04-09 03:14:00`, in its zone: read in the
// import's zone option, UTC without one, warned), or ISO with a zone. "Formatted data" writes values with
// their display unit (`45.3%`, `1.2 s`, `3.4 GiB`): the number is kept without the unit, warned once — the
// unit is the panel's choice, not the metric's, so it is not converted.
import type { Labels } from '../signals/canonical';
import { csvFields } from './csv-fields';
import { GarbageGuard } from './garbage-guard';
import { headLines } from './line-reader';
import { LogClock, parseIsoZoned, validWallClock } from './log-time';
import { fileStem } from './prometheus-json';
import { classify, promMs, PromSeriesMapper, type Target } from './prom-series';
import { parseLabels } from './prometheus-text';
import { readText } from './read-text';
import { ImportError, type EntryInput, type ImportContext, type Importer, type Sink } from './types';

/** `"Time"` (or `Time`) then the delimiter: joined series; `Series;Time;Value`: Grafana ≤ 7's rows. */
const HEADER = /^\uFEFF?"?Time"?([,;])/;
const ROWS_HEADER = /^\uFEFF?"?Series"?([,;])"?Time"?\1"?Value"?\s*$/;

/** `vllm:x{a="b"}`, `{__name__="x", a="b"}` or a legend: the metric's name (null for a legend) and labels. */
export function seriesOfColumn(title: string): { name: string | null; labels: Labels } {
  const t = title.trim();
  const open = t.indexOf('{');
  if (open >= 0 && t.endsWith('}')) {
    try {
      const labels = parseLabels(t, open, t.length - 1);
      const name = open > 0 ? t.slice(0, open).trim() : labels.__name__ ?? null;
      delete labels.__name__;
      if (name === null || /^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(name)) return { name, labels };
    } catch {
      // Not a label set: a legend with braces in it.
    }
  }
  return /^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(t) ? { name: t, labels: {} } : { name: null, labels: { legend: t } };
}

/** A time cell: epoch ms (or s), ISO with a zone, or Grafana's formatted `YYYY-MM-DD HH:mm:ss` in the dashboard's zone; NaN for none. */
function timeOf(cell: string, clock: LogClock, noZone: () => void): number {
  const t = cell.trim();
  if (/^\d{9,13}(\.\d+)?$/.test(t)) {
    const n = Number(t);
    return promMs(n);
  }
  const iso = parseIsoZoned(t.replace(' ', 'T'));
  if (Number.isFinite(iso)) return iso;
  const m = /^(\d{4})-(\d\d)-(\d\d)[ T](\d\d):(\d\d)(?::(\d\d)(?:\.(\d{1,3}))?)?$/.exec(t);
  // A field out of its range (`2024-13-45 99:99:99`, 2024-02-31) is no time: this cell's own error says so.
  const ms = +(m?.[7] ?? '0').padEnd(3, '0');
  if (!m || !validWallClock(+m[1], +m[2], +m[3], +m[4], +m[5], +(m[6] ?? 0), ms)) return NaN;
  noZone();
  return clock.local(+m[1], +m[2], +m[3], +m[4], +m[5], +(m[6] ?? 0), ms);
}

/** A number as Grafana prints it, thousands separators allowed (`1,024.5`); the parts cannot overlap, so the match is linear. */
const DISPLAY_NUMBER = /^(-?(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d+)?(?:[eE][-+]?\d+)?)\s*([%a-zA-Zµ/]{1,12})$/;

/** A value cell: a number, or one formatted with its display unit (`45.3%`, `1.2 s`, `1,024 MiB`); null for none, `bad` for text. */
function valueOf(cell: string): { v: number; unit: string | null } | null | 'bad' {
  // A plain number first, as most cells are: no trim, no regex.
  const n0 = cell === '' ? NaN : +cell;
  if (n0 === n0 && Number.isFinite(n0) && cell.charCodeAt(0) > 32) return { v: n0, unit: null };
  const t = cell.trim();
  if (!t || t === 'null' || t === 'NaN' || t === 'undefined' || t === '-') return null;
  const n = Number(t);
  if (Number.isFinite(n)) return { v: n, unit: null };
  const m = t.length <= 64 ? DISPLAY_NUMBER.exec(t) : null;
  const v = m && m[1] !== '' && m[1] !== '-' ? Number(m[1].replace(/,/g, '')) : NaN;
  return Number.isFinite(v) ? { v, unit: m![2] } : 'bad';
}

async function importGrafanaCsv(input: EntryInput, sink: Sink, ctx: ImportContext): Promise<void> {
  const lines = (await readText(input.stream())).replace(/^\uFEFF/, '').split(/\r?\n/);
  const head = lines[0] ?? '';
  const rowsShape = ROWS_HEADER.exec(head);
  const joined = HEADER.exec(head);
  if (!rowsShape && !joined) throw new ImportError(ctx.path, { line: 1 }, 'no Grafana CSV header ("Time",… or Series;Time;Value)');
  const delimiter = (rowsShape ?? joined)![1];
  const split = (line: string) => csvFields(line, delimiter);
  const clock = new LogClock(ctx);
  const mapper = new PromSeriesMapper(sink);
  const guard = new GarbageGuard(ctx, 'Grafana CSV');
  const targets = new Map<string, Target>();
  let zoneWarned = false;
  let formatted = false;
  let unnamed: string | null = null;
  const noZone = () => {
    if (zoneWarned) return;
    zoneWarned = true;
    const tz = ctx.options.tzOffsetMinutes;
    ctx.warn(`times without a zone (the dashboard's): read as ${tz === undefined ? 'UTC (give the import the dashboard\'s zone)' : `UTC${tz >= 0 ? '+' : '-'}${Math.abs(tz / 60)}`}`);
  };
  /**
   * A column's target: through the Prometheus mapping for raw values; for values with a display unit, a series of
   * the column's own name in that unit — the panel's unit is not the metric's, and 45.3 is no fraction of 1.
   */
  const targetOf = (title: string, displayUnit: string | null): Target | null => {
    const key = `${displayUnit ?? ''}\u0000${title}`;
    let t = targets.get(key);
    if (t) return t;
    const s = seriesOfColumn(title);
    let name = s.name;
    const labels = s.labels;
    if (!name) {
      // An expression's answer: its legend names it, else (labels only) the file does, as for API answers.
      unnamed ??= fileStem(ctx.path).name;
      name = labels.legend ?? unnamed;
      if (!labels.legend) labels.expr = unnamed;
    }
    if (displayUnit !== null) {
      t = mapper.raw(name, { ...labels, display_unit: displayUnit }, displayUnit);
    } else {
      try {
        t = mapper.target(name, labels, classify(name, labels, () => undefined));
      } catch (e) {
        ctx.warn(`column "${title}": ${(e as Error).message}`, { line: 1 });
        return null;
      }
    }
    targets.set(key, t);
    return t;
  };
  let bad = 0;
  const columns = rowsShape ? [] : split(head).slice(1);
  /** Each column's target for raw values, found once (a key string a cell cost a third of a large file's time). */
  const rawTargets: (Target | null | undefined)[] = [];
  const value = (cell: string, line: number, title: string, ts: number, column = -1) => {
    const x = valueOf(cell);
    if (x === null) return;
    if (x === 'bad') {
      if (++bad <= 20) ctx.warn(`column "${title.slice(0, 60)}": "${cell.trim().slice(0, 40)}" is no number, skipped`, { line });
      return;
    }
    let t: Target | null;
    if (x.unit === null && column >= 0) {
      const known = rawTargets[column];
      t = known === undefined ? (rawTargets[column] = targetOf(title, null)) : known;
    } else t = targetOf(title, x.unit);
    if (!t) return;
    formatted ||= x.unit !== null;
    mapper.write(t, ts, x.v);
  };

  let lastLine = 1;
  for (let no = 1; no < lines.length; no++) {
    const line = lines[no];
    if (!line.trim()) continue;
    lastLine = no + 1;
    const f = split(line);
    const ts = timeOf(f[rowsShape ? 1 : 0] ?? '', clock, noZone);
    if (!Number.isFinite(ts)) {
      guard.malformed(no + 1, `unreadable time "${(f[rowsShape ? 1 : 0] ?? '').slice(0, 40)}"`);
      continue;
    }
    guard.ok();
    if (rowsShape) {
      value(f[2] ?? '', no + 1, f[0] ?? '', ts);
      continue;
    }
    for (let j = 0; j < columns.length; j++) value(f[j + 1] ?? '', no + 1, columns[j], ts, j);
  }
  mapper.flush();
  guard.finish(lastLine);
  if (bad > 20) ctx.warn(`${bad - 20} more cells that are no number skipped`);
  if (formatted) ctx.warn('values carry the panel\'s display units ("Formatted data"): kept as shown under their column\'s own name and unit (label display_unit), not mapped to a signal; download with Formatted data off for the raw values');
  if (unnamed) ctx.warn(`columns without a metric name (an expression's answer) are named after the file: "${unnamed}"`);
}

export function detectGrafanaCsv(head: Buffer): number {
  const lines = headLines(head, 3);
  const first = lines[0] ?? '';
  if (ROWS_HEADER.test(first)) return 0.85;
  const m = HEADER.exec(first);
  if (!m || lines.length < 2) return 0;
  const cell = (lines[1].split(m[1])[0] ?? '').replace(/"/g, '').trim();
  return /^\d{12,13}$/.test(cell) || /^\d{4}-\d\d-\d\d[ T]\d\d:\d\d/.test(cell) ? 0.85 : 0;
}

export const grafanaCsvImporter: Importer = {
  format: 'grafana-csv',
  detect: (head) => detectGrafanaCsv(head),
  localTime: true,
  import: importGrafanaCsv,
};
