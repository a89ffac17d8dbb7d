// Nsight Compute CSV (`ncu --csv`), details page (one row per metric, rule rows in newer versions), raw
// page (one row per kernel, one column per metric, a units row under the header), or the per-kernel
// summary (`--print-summary per-kernel`: no ID, one row per metric of each distinct kernel and launch
// shape, its `Invocations` and the metric's `Minimum`/`Maximum`/`Average`). `==PROF==` lines and the
// program's own output before the header are skipped; ncu's `==WARNING==`/`==ERROR==` lines become the
// source's warnings; rows may be ragged (trailing comma); numbers may carry thousands separators ("1,234.5").
//
// ncu profiles kernels one at a time: kernels are laid back to back in ID order, each as long as its
// "Duration" metric (1 µs when absent), each starting at its own "Kernel Time" where the export has that
// column and it is later than the kernel before ends (older versions: "2020-Apr-07 17:01:05", local time,
// whole seconds: the seconds between kernels stay, the order within one second is the IDs'; each kernel
// keeps its own as attrs.kernel_time), else at the file's mtime (0 when unknown); attrs.time_synthetic = true
// says the layout is Quadscope's and attrs.ordinal holds the ID. A summary's kernel is one row per kernel and
// launch shape, its metrics the averages (attrs.invocations, attrs.ranges {name: [min, max]}).
// kernels attrs: kind 'kernel', source 'ncu', ordinal, pid, process, host, context, block, grid, cc,
// metrics {name: value} (numbers where numeric; a name repeated in two sections becomes "section/name"),
// units {name: unit}, rules [{section, rule, type, speedup_type, speedup}].
// events kind 'ncu_rule' per rule result (severity OPT → info, WRN → warning, ERR → error).
import type { Severity } from '../../../common/contract/types';
import { ImportError, type Importer } from './types';
import { csvFields } from './csv-fields';
import { readText } from './read-text';
import { nsOfNumber, nsSum } from './ns-time';
import { instantMs, LogClock, monthNumber } from './log-time';

/** Older ncu's "Kernel Time" ("2020-Apr-07 17:01:05", local time) as epoch ms, or null. */
function kernelTime(v: string | undefined, clock: LogClock, line?: number): number | null {
  const m = /^(\d{4})-([A-Za-z]{3})-(\d\d) (\d\d):(\d\d):(\d\d)$/.exec(v?.trim() ?? '');
  const month = m ? monthNumber(m[2]) : undefined;
  return m && month ? clock.local(+m[1], month, +m[3], +m[4], +m[5], +m[6], 0, line) : null;
}

const HEADER_START = /^(?:"ID",)?"Process ID","Process Name","Host Name","Kernel Name"/m;

/** ncu's own messages among the rows (`==WARNING== Found outstanding GPU clock reset…`). */
const NCU_MESSAGE = /^==(WARNING|ERROR)==\s*(.*)/;

/** The most of ncu's own messages passed on as warnings. */
const MAX_NCU_MESSAGES = 20;

export function detectNcuCsv(head: Buffer): number {
  return HEADER_START.test(head.toString('utf8')) ? 0.95 : 0;
}

/** A metric value as a number where it is one ("1,234.5" included), else the text. */
export function metricValue(s: string): number | string {
  const t = s.trim();
  if (/^-?\d{1,3}(,\d{3})+(\.\d+)?$/.test(t)) return Number(t.replace(/,/g, ''));
  if (/^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(t)) return Number(t);
  return t;
}

const isDuration = (m: string) => m === 'Duration' || m.endsWith('/Duration') || m === 'gpu__time_duration.sum';

/** A day: ncu replays one kernel many times to profile it; a longer "Duration" is a broken value, not a kernel. */
const MAX_KERNEL_NS = 86_400n * 1_000_000_000n;

const DURATION_NS: Record<string, number> = { ns: 1, nsecond: 1, usecond: 1e3, us: 1e3, msecond: 1e6, ms: 1e6, second: 1e9, s: 1e9 };

const SEVERITY: Record<string, Severity> = { OPT: 'info', INF: 'info', WRN: 'warning', ERR: 'error' };

const IDENTITY = new Set(['ID', 'Process ID', 'Process Name', 'Host Name', 'Kernel Name', 'Kernel Time', 'Context', 'Stream', 'Block Size', 'Grid Size', 'Device', 'CC', 'Section Name', 'Metric Name', 'Metric Unit', 'Metric Value', 'Rule Name', 'Rule Type', 'Rule Description', 'Estimated Speedup Type', 'Estimated Speedup']);

interface Kernel {
  id: number;
  /** The summary's `Invocations` of this kernel and launch shape. */
  invocations?: number;
  ranges?: Record<string, [number | string, number | string]>;
  /** 1-based line of the kernel's row (raw page) or of its duration metric (details page), for messages. */
  line: number;
  row: Record<string, string>;
  metrics: Record<string, number | string>;
  units: Record<string, string>;
  sections: Record<string, string>;
  rules: { section: string; rule: string; type: string; description: string; speedup_type: string; speedup: number | string }[];
}

export const ncuCsvImporter: Importer = {
  format: 'ncu-csv',
  yearless: true,
  detect: (head) => detectNcuCsv(head),
  async import(input, sink, ctx) {
    const lines = (await readText(input.stream())).split(/\r?\n/);
    const h = lines.findIndex((l) => HEADER_START.test(l));
    if (h < 0) throw new ImportError(ctx.path, { line: 1 }, 'no Nsight Compute CSV header ("ID","Process ID",…)');
    const header = csvFields(lines[h]);
    const col = new Map(header.map((name, i) => [name, i]));
    // The per-kernel summary names no ID: a kernel is its process, name and launch shape, numbered as they come.
    const summary = !col.has('ID') && col.has('Invocations') && col.has('Average');
    const details = col.has('Metric Name') && (col.has('Metric Value') || summary);
    const kernels = new Map<number, Kernel>();
    const summaryIds = new Map<string, number>();
    let rawUnits: string[] | null = null;
    let messages = 0;

    for (let i = h + 1; i < lines.length; i++) {
      const line = lines[i];
      if (!line.trim() || line.startsWith('==PROF==')) continue;
      const said = NCU_MESSAGE.exec(line);
      if (said) {
        if (++messages <= MAX_NCU_MESSAGES) ctx.warn(`ncu ${said[1] === 'ERROR' ? 'error' : 'warning'}: ${said[2]}`, { line: i + 1 });
        continue;
      }
      const f = csvFields(line);
      if (!line.startsWith('"')) {
        ctx.warn('not a CSV row, skipped', { line: i + 1 });
        continue;
      }
      const get = (name: string) => {
        const j = col.get(name);
        return j === undefined ? '' : (f[j] ?? '');
      };
      if (!details && rawUnits === null && get('ID') === '') {
        rawUnits = f;
        continue;
      }
      let id: number;
      if (summary) {
        const shape = ['Process ID', 'Kernel Name', 'Block Size', 'Grid Size', 'Device', 'Context', 'Stream'].map(get).join('\u0000');
        id = summaryIds.get(shape) ?? summaryIds.size;
        summaryIds.set(shape, id);
      } else id = Number(get('ID'));
      if (!Number.isInteger(id)) {
        ctx.warn(`bad kernel ID ${JSON.stringify(get('ID'))}`, { line: i + 1 });
        continue;
      }
      let k = kernels.get(id);
      if (!k) {
        const row: Record<string, string> = {};
        for (const name of IDENTITY) if (col.has(name)) row[name] = get(name);
        kernels.set(id, (k = { id, line: i + 1, row, metrics: {}, units: {}, sections: {}, rules: [] }));
        if (summary) {
          k.invocations = Number(get('Invocations').replace(/,/g, '')) || undefined;
          k.ranges = {};
        }
      }
      if (details) {
        const section = get('Section Name');
        const metric = get('Metric Name');
        if (metric) {
          const key = k.metrics[metric] !== undefined && k.sections[metric] !== section ? `${section}/${metric}` : metric;
          k.metrics[key] = metricValue(get(summary ? 'Average' : 'Metric Value'));
          if (k.ranges) k.ranges[key] = [metricValue(get('Minimum')), metricValue(get('Maximum'))];
          k.units[key] = get('Metric Unit');
          k.sections[key] = section;
          if (isDuration(key)) k.line = i + 1;
        }
        const rule = get('Rule Name');
        if (rule) k.rules.push({ section, rule, type: get('Rule Type'), description: get('Rule Description'), speedup_type: get('Estimated Speedup Type'), speedup: metricValue(get('Estimated Speedup')) });
      } else {
        header.forEach((name, j) => {
          if (IDENTITY.has(name) || j >= f.length) return;
          k.metrics[name] = metricValue(f[j]);
          if (rawUnits?.[j]) k.units[name] = rawUnits[j];
        });
      }
    }
    if (kernels.size === 0) throw new ImportError(ctx.path, { line: h + 1 }, 'the CSV has a header but no kernel rows');
    if (messages > MAX_NCU_MESSAGES) ctx.warn(`${messages - MAX_NCU_MESSAGES} more ncu warnings and errors not listed`);

    const ordered = [...kernels.values()].sort((a, b) => a.id - b.id);
    const clock = new LogClock(ctx);
    const ownNs = (k: Kernel): bigint | null => {
      const ms = kernelTime(k.row['Kernel Time'], clock, k.line);
      return ms === null || !Number.isFinite(ms) ? null : BigInt(Math.round(ms)) * 1_000_000n;
    };
    // NaN or a base-256 tar mtime past any date would throw in BigInt() or overflow: 0 (1970) then.
    let t = ownNs(ordered[0]) ?? BigInt(Math.round(instantMs(ctx.mtimeMs) ?? 0)) * 1_000_000n;
    for (const k of ordered) {
      // Its own Kernel Time, whole seconds, where that is past the kernel before: the gaps between launches stay.
      const own = ownNs(k);
      if (own !== null && own > t) t = own;
      const durKey = Object.keys(k.metrics).find(isDuration);
      const d = durKey ? k.metrics[durKey] : undefined;
      const scale = durKey ? DURATION_NS[k.units[durKey]] ?? (durKey === 'gpu__time_duration.sum' ? 1 : undefined) : undefined;
      let durNs = 1000n;
      if (typeof d === 'number' && scale !== undefined) {
        // "1e400" reads as Infinity, "1e300" second is past any clock: such a kernel keeps the 1 µs of one without a duration.
        const ns = nsOfNumber(d * scale);
        if (ns === null || ns > MAX_KERNEL_NS) ctx.warn(`kernel ${k.id}: duration ${d} ${k.units[durKey!]} is no kernel's duration (over a day): laid out as 1 µs`, { line: k.line, key: durKey });
        else durNs = ns;
      }
      const start = t;
      const end = nsSum(t, durNs > 0n ? durNs : 1n);
      if (end === null) throw new ImportError(ctx.path, { line: k.line }, `kernel ${k.id}: laid back to back, the kernels end past the year 2262 (2^63 ns)`);
      t = end;
      const r = k.row;
      sink.kernel({
        device: Number(r.Device) || 0,
        stream: Number(r.Stream) || 0,
        name: r['Kernel Name'] ?? '',
        start_ns: start,
        end_ns: end,
        correlation_id: null,
        attrs: {
          kind: 'kernel',
          source: 'ncu',
          time_synthetic: true,
          ordinal: k.id,
          ...(r['Kernel Time'] ? { kernel_time: r['Kernel Time'] } : {}),
          ...(k.invocations !== undefined ? { invocations: k.invocations } : {}),
          ...(k.ranges ? { ranges: k.ranges } : {}),
          pid: Number(r['Process ID']) || null,
          process: r['Process Name'],
          host: r['Host Name'],
          context: Number(r.Context) || null,
          block: r['Block Size'],
          grid: r['Grid Size'],
          cc: r.CC,
          metrics: k.metrics,
          units: k.units,
          rules: k.rules.map(({ description: _d, ...x }) => x),
        },
      });
      for (const rule of k.rules) {
        sink.event({
          ts_ms: Number(start / 1_000_000n),
          kind: 'ncu_rule',
          severity: SEVERITY[rule.type] ?? 'info',
          text: `${r['Kernel Name']}: ${rule.rule}: ${rule.description}`,
          attrs: { kernel_id: k.id, kernel: r['Kernel Name'], ...rule },
        });
      }
    }
  },
};
