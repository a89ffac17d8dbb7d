// nvidia-smi output, three formats (and the captures of nvidia_gpu_exporter, which hold them):
//   'nvidia-smi-csv'       `--query-gpu=… --format=csv[,nounits][,noheader]`
//   'nvidia-smi-apps-csv'  `--query-compute-apps=… --format=csv` (memory per process)
//   'nvidia-smi-dmon'      `nvidia-smi dmon [-o DT]` fixed-width text
// Times: the `timestamp` column ("2026/07/03 22:11:09.763") and dmon's Date/Time columns are the
// machine's local time: read in ctx.options.tzOffsetMinutes, UTC when not given. A CSV without a
// timestamp column takes the file's mtime. dmon without Date/Time columns: one row per GPU per second
// (dmon's default interval), the last interval ending at the file's mtime.
// Values: units in the header ("memory.used [MiB]") or on the value ("32362 MiB") are converted to
// canonical units; "[N/A]", "[Not Supported]", "N/A", "[…deprecated]" and dmon's "-" are no reading.
// Throttle reasons: clocks_event_reasons.active (older clocks_throttle_reasons.active), a hex bitmask,
// else the bitmask built from the per-reason Active/Not Active columns.
// CSV without a header needs the field list: it is read from a `--query-gpu=a,b,…` command line
// earlier in the file, else the file fails with an error saying so.
// Captures ("# nvidia_gpu_exporter GPU capture"): their --query-gpu and --query-compute-apps CSV
// sections are imported; the other sections (-q, pmon, dmon without times, help text) are skipped.
import { canonicalLabels, MIB, type Labels } from '../signals/canonical';
import { GarbageGuard } from './garbage-guard';
import { headLines, lineBatches } from './line-reader';
import { LogClock } from './log-time';
import { ImportError, type EntryInput, type ImportContext, type Importer, type Sink } from './types';
import type { SeriesKind } from '../../contract/types';

interface FieldRule {
  name: string;
  unit: string;
  kind?: SeriesKind;
}

/** --query-gpu fields → canonical series (canonical/unit). Old names (clocks.sm) and new ones alike. */
const GPU_FIELDS: Record<string, FieldRule> = {
  'memory.used': { name: 'gpu.mem.used', unit: 'bytes' },
  'memory.total': { name: 'gpu.mem.total', unit: 'bytes' },
  'memory.free': { name: 'gpu.mem.free', unit: 'bytes' },
  'memory.reserved': { name: 'gpu.mem.reserved', unit: 'bytes' },
  'utilization.gpu': { name: 'gpu.util', unit: 'fraction' },
  'utilization.memory': { name: 'gpu.mem_util', unit: 'fraction' },
  'fan.speed': { name: 'gpu.fan', unit: 'fraction' },
  'clocks.sm': { name: 'gpu.sm_clock', unit: 'MHz' },
  'clocks.current.sm': { name: 'gpu.sm_clock', unit: 'MHz' },
  'clocks.mem': { name: 'gpu.mem_clock', unit: 'MHz' },
  'clocks.current.memory': { name: 'gpu.mem_clock', unit: 'MHz' },
  'clocks.gr': { name: 'gpu.gr_clock', unit: 'MHz' },
  'clocks.current.graphics': { name: 'gpu.gr_clock', unit: 'MHz' },
  'power.draw': { name: 'gpu.power', unit: 'W' },
  'power.draw.instant': { name: 'gpu.power_instant', unit: 'W' },
  'power.draw.average': { name: 'gpu.power_avg', unit: 'W' },
  'enforced.power.limit': { name: 'gpu.power_limit', unit: 'W' },
  'temperature.gpu': { name: 'gpu.temp', unit: 'C' },
  'temperature.memory': { name: 'gpu.mem_temp', unit: 'C' },
  'ecc.errors.uncorrected.volatile.total': { name: 'gpu.ecc_dbe', unit: 'count', kind: 'counter' },
  'ecc.errors.corrected.volatile.total': { name: 'gpu.ecc_sbe', unit: 'count', kind: 'counter' },
  'remapped_rows.pending': { name: 'gpu.row_remap_pending', unit: 'count' },
  'remapped_rows.failure': { name: 'gpu.row_remap_failure', unit: 'count' },
  pstate: { name: 'gpu.pstate', unit: '' },
};

/** NVML clocks-event reason bits, by the column suffix nvidia-smi uses. */
const REASON_BITS: Record<string, number> = {
  gpu_idle: 0x1,
  applications_clocks_setting: 0x2,
  sw_power_cap: 0x4,
  hw_slowdown: 0x8,
  sync_boost: 0x10,
  sw_thermal_slowdown: 0x20,
  hw_thermal_slowdown: 0x40,
  hw_power_brake_slowdown: 0x80,
  display_clock_setting: 0x100,
};

const IDENTITY: Record<string, string> = {
  index: 'gpu',
  uuid: 'gpu_uuid',
  gpu_uuid: 'gpu_uuid',
  name: 'gpu_model',
  gpu_name: 'gpu_model',
  'pci.bus_id': 'bus_id',
  gpu_bus_id: 'bus_id',
  hostname: 'host',
  pid: 'pid',
  process_name: 'process',
};

const SCALE: Record<string, number> = { MiB: MIB, KiB: 1024, GiB: 1024 * MIB, '%': 0.01, us: 1e-6, ms: 1e-3 };
const SCALED_UNIT: Record<string, string> = { MiB: 'bytes', KiB: 'bytes', GiB: 'bytes', '%': 'fraction', us: 'seconds', ms: 'seconds' };

/** Columns that look numeric but are names or versions ("466.63", a masked serial "0000000000000"). */
const NOT_A_READING = /^(serial|gpu_serial|driver_version|vbios_version|inforom\.|platform\.|fabric\.|gpu_recovery_action)/;

/** A cell as a number in canonical units; null for no reading or text. */
export function cellNumber(cell: string, headerUnit: string): number | null {
  const s = cell.trim();
  if (s === '' || s[0] === '[' || s === 'N/A' || s === '-') return null;
  if (s === 'Yes' || s === 'Active') return 1;
  if (s === 'No' || s === 'Not Active') return 0;
  const m = /^(-?[0-9]+(?:\.[0-9]+)?)(?:\s*(MiB|KiB|GiB|%|W|MHz|C|us|ms|s))?$/.exec(s);
  if (m) return Number(m[1]) * (SCALE[m[2] ?? headerUnit] ?? 1);
  const p = /^P(\d+)$/.exec(s);
  return p ? Number(p[1]) : null;
}

/** nvidia-smi's "2026/07/03 22:11:09.763" in the clock's zone, NaN if not one. */
function smiTime(s: string, clock: LogClock): number {
  const m = /^(\d{4})\/(\d\d)\/(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d+))?$/.exec(s.trim());
  if (!m) return NaN;
  return clock.local(+m[1], +m[2], +m[3], +m[4], +m[5], +m[6], m[7] ? Number((m[7] + '00').slice(0, 3)) : 0);
}

interface Column {
  field: string;
  unit: string;
}

function parseHeader(line: string): Column[] {
  return line.split(',').map((h) => {
    const m = /^\s*([^[]+?)\s*(?:\[(.*)\])?\s*$/.exec(h);
    return { field: (m?.[1] ?? h).trim(), unit: (m?.[2] ?? '').trim() };
  });
}

const isHeader = (line: string) => /^\s*[a-z_][a-z0-9_.]*(\s*\[[^\]]*\])?\s*(,\s*[a-z_][a-zA-Z0-9_.]*(\s*\[[^\]]*\])?\s*)*$/.test(line) && line.includes(',');

/** One --query-gpu or --query-compute-apps table: a header, then rows of cells. */
class QueryTable {
  private cols: Column[] = [];
  private readonly series = new Map<string, number>();
  private ordinal = 0;
  private lastTs = '';

  constructor(private readonly apps: boolean, private readonly sink: Sink, private readonly ctx: ImportContext, private readonly clock: LogClock) {}

  get ready(): boolean {
    return this.cols.length > 0;
  }

  header(cols: Column[]): void {
    this.cols = cols;
  }

  private id(name: string, labels: Labels, unit: string, kind: SeriesKind): number {
    const key = `${name}\u0000${JSON.stringify(labels)}`;
    let id = this.series.get(key);
    if (id === undefined) {
      id = this.sink.series({ name, labels, unit, kind });
      this.series.set(key, id);
    }
    return id;
  }

  /** Answers false when the row does not fit the header. */
  row(line: string, no: number): boolean {
    let cells = line.split(', ');
    if (cells.length !== this.cols.length) cells = line.split(',');
    if (cells.length !== this.cols.length) return false;
    const identity: Labels = {};
    let ts = NaN;
    let tsText = '';
    this.cols.forEach((c, i) => {
      const v = cells[i].trim();
      if (c.field === 'timestamp') {
        tsText = v;
        ts = smiTime(v, this.clock);
      } else if (IDENTITY[c.field] && v && v[0] !== '[' && v !== 'N/A') identity[IDENTITY[c.field]] = v;
    });
    if (tsText && !Number.isFinite(ts)) return false;
    if (!tsText) ts = this.clock.fallback(no);
    if (tsText !== this.lastTs) {
      this.ordinal = 0;
      this.lastTs = tsText;
    }
    if (!this.apps && identity.gpu === undefined) identity.gpu = identity.gpu_uuid ?? identity.bus_id ?? String(this.ordinal);
    this.ordinal++;
    const labels = canonicalLabels(identity);
    if (this.apps) this.appRow(cells, labels, ts);
    else this.gpuRow(cells, labels, ts);
    return true;
  }

  private appRow(cells: string[], labels: Labels, ts: number): void {
    this.cols.forEach((c, i) => {
      if (c.field !== 'used_gpu_memory' && c.field !== 'used_memory') return;
      const v = cellNumber(cells[i], c.unit);
      if (v !== null) this.sink.sample(this.id('proc.gpu_mem.used', { ...labels, metric: `nvidia-smi:${c.field}` }, 'bytes', 'gauge'), ts, v);
    });
  }

  private gpuRow(cells: string[], labels: Labels, ts: number): void {
    let activeMask: number | null = null;
    let bits = 0;
    let sawBits = false;
    this.cols.forEach((c, i) => {
      const f = c.field;
      const raw = cells[i].trim();
      if (f === 'timestamp' || IDENTITY[f]) return;
      const reason = /^clocks_(?:event|throttle)_reasons\.(.+)$/.exec(f);
      if (reason) {
        if (reason[1] === 'active') {
          if (/^0x[0-9a-fA-F]+$/.test(raw)) activeMask = Number.parseInt(raw, 16);
        } else if (REASON_BITS[reason[1]] !== undefined && (raw === 'Active' || raw === 'Not Active')) {
          sawBits = true;
          if (raw === 'Active') bits |= REASON_BITS[reason[1]];
        }
        return;
      }
      const v = cellNumber(raw, c.unit);
      if (v === null) return;
      const counter = /^clocks_(?:event|throttle)_reasons_counters\.(.+)$/.exec(f);
      if (counter) {
        this.sink.sample(this.id('gpu.throttle_time', { ...labels, reason: counter[1], metric: `nvidia-smi:${f}` }, 'seconds', 'counter'), ts, v);
        return;
      }
      const rule = GPU_FIELDS[f];
      if (rule) this.sink.sample(this.id(rule.name, { ...labels, metric: `nvidia-smi:${f}` }, rule.unit, rule.kind ?? 'gauge'), ts, v);
      else if (!/^0x/.test(raw) && !NOT_A_READING.test(f)) this.sink.sample(this.id(f, labels, SCALED_UNIT[c.unit] ?? c.unit, 'gauge'), ts, v);
    });
    const mask: number | null = activeMask ?? (sawBits ? bits : null);
    if (mask !== null) this.sink.sample(this.id('gpu.throttle_reasons', { ...labels, metric: 'nvidia-smi:clocks_event_reasons' }, 'bitmask', 'gauge'), ts, mask);
  }
}

const QUERY_GPU_RE = /--query-gpu=([A-Za-z0-9_.,]+)/;
const QUERY_APPS_RE = /--query-compute-apps=([A-Za-z0-9_.,]+)/;

async function importQueryCsv(apps: boolean, input: EntryInput, sink: Sink, ctx: ImportContext): Promise<void> {
  const clock = new LogClock(ctx);
  const guard = new GarbageGuard(ctx, apps ? 'nvidia-smi --query-compute-apps CSV' : 'nvidia-smi --query-gpu CSV');
  let table = new QueryTable(apps, sink, ctx, clock);
  let capture = false;
  // In a capture: the kind of table the next CSV block is, from the command line above it (null: skip).
  let next: 'gpu' | 'apps' | null = null;
  let inBlock = false;
  let commandFields: string[] | null = null;
  let no = 0;
  for await (const batch of lineBatches(input.stream(), ctx)) {
    for (const line of batch) {
      no++;
      if (no <= 3 && line.includes('nvidia_gpu_exporter GPU capture')) capture = true;
      if (!line.trim()) {
        inBlock = false;
        continue;
      }
      if (line.startsWith('#')) {
        inBlock = false;
        const q = (apps ? QUERY_APPS_RE : QUERY_GPU_RE).exec(line);
        if (q) commandFields = q[1].split(',');
        if (line.startsWith('# $ ')) next = QUERY_GPU_RE.test(line) ? 'gpu' : QUERY_APPS_RE.test(line) ? 'apps' : null;
        continue;
      }
      if (capture) {
        if (!inBlock) {
          inBlock = true;
          table = new QueryTable(next === 'apps', sink, ctx, clock);
          if (next !== null && isHeader(line)) table.header(parseHeader(line));
          next = null;
          continue;
        }
        if (!table.ready) continue;
        if (table.row(line, no)) guard.ok();
        else guard.malformed(no, 'row does not match the CSV header');
        continue;
      }
      if (!table.ready) {
        if (isHeader(line)) {
          table.header(parseHeader(line));
          guard.ok();
          continue;
        }
        if (!commandFields) {
          throw new ImportError(ctx.path, { line: no }, 'CSV without a header: export with --format=csv (with the header), or keep the nvidia-smi command line (--query-gpu=…) above the rows');
        }
        table.header(commandFields.map((field) => ({ field, unit: '' })));
      }
      if (table.row(line, no)) guard.ok();
      else guard.malformed(no, 'row does not match the CSV header');
    }
  }
  guard.finish(no);
}

/** dmon columns → canonical series; MB columns are MiB in nvidia-smi's usage. */
const DMON: Record<string, { name: string; unit: string; scale: number; kind?: SeriesKind }> = {
  pwr: { name: 'gpu.power', unit: 'W', scale: 1 },
  gtemp: { name: 'gpu.temp', unit: 'C', scale: 1 },
  mtemp: { name: 'gpu.mem_temp', unit: 'C', scale: 1 },
  sm: { name: 'gpu.util', unit: 'fraction', scale: 0.01 },
  mem: { name: 'gpu.mem_util', unit: 'fraction', scale: 0.01 },
  mclk: { name: 'gpu.mem_clock', unit: 'MHz', scale: 1 },
  pclk: { name: 'gpu.sm_clock', unit: 'MHz', scale: 1 },
  fb: { name: 'gpu.mem.used', unit: 'bytes', scale: MIB },
  bar1: { name: 'gpu.bar1_used', unit: 'bytes', scale: MIB },
  sbecc: { name: 'gpu.ecc_sbe', unit: 'count', scale: 1, kind: 'counter' },
  dbecc: { name: 'gpu.ecc_dbe', unit: 'count', scale: 1, kind: 'counter' },
  pci: { name: 'gpu.pcie_replays', unit: 'count', scale: 1, kind: 'counter' },
  rxpci: { name: 'gpu.pcie_rx', unit: 'bytes/s', scale: 1e6 },
  txpci: { name: 'gpu.pcie_tx', unit: 'bytes/s', scale: 1e6 },
  pviol: { name: 'gpu.power_violation', unit: 'fraction', scale: 0.01 },
  tviol: { name: 'gpu.thermal_violation', unit: 'fraction', scale: 0.01 },
};

async function importDmon(input: EntryInput, sink: Sink, ctx: ImportContext): Promise<void> {
  const clock = new LogClock(ctx);
  const guard = new GarbageGuard(ctx, 'nvidia-smi dmon output');
  const ids = new Map<string, number>();
  let cols: string[] = [];
  // Rows without a time wait for the end, when their interval's time is known.
  const untimed: { interval: number; gpu: string; values: (number | null)[] }[] = [];
  let interval = -1;
  let lastGpu = Infinity;
  let no = 0;

  const write = (gpu: string, ts: number, values: (number | null)[]) => {
    values.forEach((v, k) => {
      const col = cols[k];
      if (v === null || col === 'gpu' || col === 'Date' || col === 'Time') return;
      const rule = DMON[col];
      const name = rule?.name ?? `dmon.${col}`;
      const labels = { gpu, metric: `nvidia-smi-dmon:${col}` };
      const key = `${name}\u0000${col}\u0000${gpu}`;
      let id = ids.get(key);
      if (id === undefined) {
        id = sink.series({ name, labels, unit: rule?.unit ?? '', kind: rule?.kind ?? 'gauge' });
        ids.set(key, id);
      }
      sink.sample(id, ts, v * (rule?.scale ?? 1));
    });
  };

  for await (const batch of lineBatches(input.stream(), ctx)) {
    for (const line of batch) {
      no++;
      if (!line.trim()) continue;
      if (line.startsWith('#')) {
        const tokens = line.slice(1).trim().split(/\s+/);
        if (tokens.includes('gpu') && !tokens.includes('Idx')) cols = tokens;
        guard.ok();
        continue;
      }
      const cells = line.trim().split(/\s+/);
      if (!cols.length || cells.length !== cols.length) {
        guard.malformed(no, cols.length ? `expected ${cols.length} columns, found ${cells.length}` : 'data row before the "# gpu …" header');
        continue;
      }
      const gi = cols.indexOf('gpu');
      const gpu = cells[gi];
      const values = cells.map((c, k) => (k === gi || cols[k] === 'Date' || cols[k] === 'Time' ? null : cellNumber(c, '')));
      const di = cols.indexOf('Date');
      const ti = cols.indexOf('Time');
      if (di >= 0 && ti >= 0) {
        const d = /^(\d{4})(\d\d)(\d\d)$/.exec(cells[di]);
        const t = /^(\d\d):(\d\d):(\d\d)$/.exec(cells[ti]);
        if (!d || !t) {
          guard.malformed(no, `bad date/time "${cells[di]} ${cells[ti]}"`);
          continue;
        }
        write(gpu, clock.local(+d[1], +d[2], +d[3], +t[1], +t[2], +t[3]), values);
      } else {
        const g = Number(gpu);
        if (!(g > lastGpu)) interval++;
        lastGpu = g;
        untimed.push({ interval, gpu, values });
      }
      guard.ok();
    }
  }
  if (untimed.length) {
    const end = clock.fallback(no);
    for (const r of untimed) write(r.gpu, end - (interval - r.interval) * 1000, r.values);
  }
  guard.finish(no);
}

function firstContentLine(head: Buffer): string {
  return headLines(head, 50).find((l) => l.trim() && !l.startsWith('#')) ?? '';
}

export function detectQueryGpuCsv(head: Buffer): number {
  const lines = headLines(head, 20);
  if (lines.some((l) => l.includes('nvidia_gpu_exporter GPU capture'))) return 0.85;
  const first = firstContentLine(head);
  if (isHeader(first)) {
    const fields = parseHeader(first).map((c) => c.field);
    if (fields.includes('pid')) return 0;
    return fields.some((f) => f in GPU_FIELDS || f === 'pci.bus_id' || f === 'uuid' || f.startsWith('clocks')) ? 0.9 : 0;
  }
  return /^\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d\.\d{3}, /.test(first) && lines.some((l) => QUERY_GPU_RE.test(l)) ? 0.8 : 0;
}

export function detectAppsCsv(head: Buffer): number {
  const first = firstContentLine(head);
  if (!isHeader(first)) return 0;
  const fields = parseHeader(first).map((c) => c.field);
  return fields.includes('pid') && (fields.includes('used_gpu_memory') || fields.includes('used_memory')) ? 0.9 : 0;
}

export function detectDmon(head: Buffer): number {
  const lines = headLines(head, 10);
  const i = lines.findIndex((l) => /^#\s*(Date\s+Time\s+)?gpu\s+\S/.test(l));
  return i >= 0 && /^#\s*(YYYYMMDD\s+HH:MM:SS\s+)?Idx\b/.test(lines[i + 1] ?? '') ? 0.9 : 0;
}

export const nvidiaSmiCsvImporter: Importer = {
  format: 'nvidia-smi-csv',
  detect: (head) => detectQueryGpuCsv(head),
  import: (input, sink, ctx) => importQueryCsv(false, input, sink, ctx),
};

export const nvidiaSmiAppsCsvImporter: Importer = {
  format: 'nvidia-smi-apps-csv',
  detect: (head) => detectAppsCsv(head),
  import: (input, sink, ctx) => importQueryCsv(true, input, sink, ctx),
};

export const nvidiaSmiDmonImporter: Importer = {
  format: 'nvidia-smi-dmon',
  detect: (head) => detectDmon(head),
  import: importDmon,
};
