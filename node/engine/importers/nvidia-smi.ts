// nvidia-smi output, three formats (and the captures of nvidia_gpu_exporter, which hold them):
//   'nvidia-smi-csv'       `--query-gpu=… --format=csv[,nounits][,noheader]`
//   'nvidia-smi-apps-csv'  `--query-compute-apps=… --format=csv` (memory per process)
//   'nvidia-smi-dmon'      `nvidia-smi dmon [-o DT]` fixed-width text
//   'nvidia-smi-pmon'      `nvidia-smi pmon [-s um] [-o DT]` fixed-width text, one row per process: per-process
//                          series proc.sm_util, proc.mem_util, proc.enc_util, proc.dec_util, proc.jpg_util,
//                          proc.ofa_util (fractions), proc.gpu_mem.used, proc.gpu_mem.ccpm (bytes) {gpu, pid, process}
// Times: the `timestamp` column ("2026/07/03 22:11:09.763") and dmon's Date/Time columns are the
// machine's local time: read in ctx.options.tzOffsetMinutes, UTC when not given. A CSV without a
// timestamp column takes the file's mtime (warned). dmon/pmon without Date/Time columns: one row per GPU
// (pmon: per process) per second (the default interval), the last interval ending at the file's mtime
// (warned); with a Time column but no Date, the bundle's date (warned). A CSV whose header repeats
// (`-l 1 >> file` run several times) is one table, said in one warning.
// Values: units in the header ("memory.used [MiB]") or on the value ("32362 MiB") are converted to
// canonical units; "[N/A]", "[Not Supported]", "N/A", "[…deprecated]" and dmon's "-" are no reading.
// A GPU nvidia-smi cannot reach — a row of `[Unknown Error]` / `[GPU requires reset]` cells, or its own
// "Unable to determine the device handle for GPU…" line — is a gpu_lost event (critical), once each time.
// Throttle reasons: clocks_event_reasons.active (older clocks_throttle_reasons.active), a hex bitmask,
// else the bitmask built from the per-reason Active/Not Active columns.
// CSV without a header needs the field list: it is read from a `--query-gpu=a,b,…` command line
// earlier in the file, else the file fails with an error saying so.
// Captures ("# nvidia_gpu_exporter GPU capture"): their --query-gpu and --query-compute-apps CSV
// sections are imported; the other sections (-q, pmon, dmon without times, help text) are skipped.
import { applyScale, canonicalLabels, kernelBusId, MIB, type Labels } from '../signals/canonical';
import { SIG } from '../../../common/names';
import { GarbageGuard } from './garbage-guard';
import { headLines, lineBatches } from './line-reader';
import { LogClock } from './log-time';
import { ImportError, type EntryInput, type ImportContext, type Importer, type Sink } from './types';
import type { SeriesKind } from '../../../common/contract/types';

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
  // Yes (1) where the driver asks for a reset after an uncorrectable error (nvidia-smi-snapshot.ts recoveryActionCode).
  'reset_status.reset_required': { name: 'gpu.recovery_action', unit: 'code' },
  'reset_status.drain_and_reset_recommended': { name: 'gpu.recovery_action', unit: 'code' },
  pstate: { name: 'gpu.pstate', unit: '' },
};

/** NVML clocks-event reason bits, by the column suffix nvidia-smi uses. */
export const REASON_BITS: Record<string, number> = {
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

const CELL_UNITS = new Set(['MiB', 'KiB', 'GiB', '%', 'W', 'MHz', 'C', 'us', 'ms', 's']);
/** A number with an optional unit of CELL_UNITS after optional blanks: the general form the fast path below narrows. */
const CELL_NUMBER = new RegExp(`^(-?[0-9]+(?:\\.[0-9]+)?)(?:\\s*(${[...CELL_UNITS].join('|')}))?$`);

/** Where `-?[0-9]+(\.[0-9]+)?` ends at the start of `s`, or -1 where it does not match. */
function numberEnd(s: string): number {
  let i = s.charCodeAt(0) === 45 /* - */ ? 1 : 0;
  const from = i;
  while (i < s.length && s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57) i++;
  if (i === from) return -1;
  if (s.charCodeAt(i) !== 46 /* . */) return i;
  let j = i + 1;
  while (j < s.length && s.charCodeAt(j) >= 48 && s.charCodeAt(j) <= 57) j++;
  return j === i + 1 ? i : j;
}

/** A cell as a number in canonical units; null for no reading or text. */
export function cellNumber(cell: string, headerUnit: string): number | null {
  const s = cell.trim();
  if (s === '' || s[0] === '[' || s === 'N/A' || s === '-') return null;
  if (s === 'Yes' || s === 'Active') return 1;
  if (s === 'No' || s === 'Not Active') return 0;
  // The common cells ("71", "45 %", "1234 MiB") without a regular expression: 29% of a day-long 8-GPU
  // CSV's import went to the one below. Anything else takes it, so both read the same.
  const end = numberEnd(s);
  if (end === s.length) return Number(s) * (SCALE[headerUnit] ?? 1);
  if (end > 0) {
    let u = end;
    while (s.charCodeAt(u) === 32) u++;
    const unit = s.slice(u);
    if (CELL_UNITS.has(unit)) return Number(s.slice(0, end)) * (SCALE[unit] ?? 1);
  }
  const m = CELL_NUMBER.exec(s);
  if (m) return Number(m[1]) * (SCALE[m[2] ?? headerUnit] ?? 1);
  const p = /^P(\d+)$/.exec(s);
  return p ? Number(p[1]) : null;
}

/** nvidia-smi's "2026/07/03 22:11:09.763" in the clock's zone, NaN if not one. */
function smiTime(s: string, clock: LogClock, line?: number): number {
  const m = /^(\d{4})\/(\d\d)\/(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d+))?$/.exec(s.trim());
  if (!m) return NaN;
  return clock.local(+m[1], +m[2], +m[3], +m[4], +m[5], +m[6], m[7] ? Number((m[7] + '00').slice(0, 3)) : 0, line);
}

interface Column {
  field: string;
  unit: string;
}

/**
 * A header's fields and units. A field written without its bracket (a collector or a script that stripped
 * the units) is in the unit nvidia-smi prints it in: memory.used 32002 is MiB, not 32 kB of bytes.
 */
function parseHeader(line: string): Column[] {
  return line.split(',').map((h) => {
    const m = /^\s*([^[]+?)\s*(?:\[(.*)\])?\s*$/.exec(h);
    const field = (m?.[1] ?? h).trim();
    return { field, unit: m?.[2] !== undefined ? m[2].trim() : defaultUnit(field) };
  });
}

const isHeader = (line: string) => /^\s*[a-z_][a-z0-9_.]*(\s*\[[^\]]*\])?\s*(,\s*[a-z_][a-zA-Z0-9_.]*(\s*\[[^\]]*\])?\s*)*$/.test(line) && line.includes(',');

/** What a column is, worked out once per header (not once per cell). */
type Plan =
  | { t: 'time' }
  | { t: 'seconds' }
  | { t: 'identity'; label: string }
  | { t: 'skip' }
  | { t: 'reason-active' }
  | { t: 'reason-bit'; bit: number }
  | { t: 'value'; name: string; unit: string; kind: SeriesKind; metric: string | null; reason: string | null };

/**
 * Fields that stand in for another where the query lacks it: `power.limit` (the limit set) for the cap,
 * `enforced.power.limit` (beside it, the enforced one is the cap: they differ when a lower limit is imposed from
 * outside, and power.limit keeps its name); `power.draw.average` for `power.draw` (on Ampere and later
 * power.draw is that 1-second average; beside it, the average keeps its own series).
 */
const STANDS_FOR: Record<string, string> = { 'power.limit': 'enforced.power.limit', 'power.draw.average': 'power.draw' };

function planOf(c: Column, apps: boolean, fields: ReadonlySet<string>): Plan {
  const stand = STANDS_FOR[c.field];
  const f = stand && !fields.has(stand) ? stand : c.field;
  if (f === 'timestamp') return { t: 'time' };
  if (!fields.has('timestamp') && SECONDS_FIELD.test(f) && SECONDS_UNIT.test(c.unit)) return { t: 'seconds' };
  if (IDENTITY[f]) return { t: 'identity', label: IDENTITY[f] };
  if (apps) return f === 'used_gpu_memory' || f === 'used_memory' ? { t: 'value', name: 'proc.gpu_mem.used', unit: 'bytes', kind: 'gauge', metric: `nvidia-smi:${f}`, reason: null } : { t: 'skip' };
  const reason = /^clocks_(?:event|throttle)_reasons\.(.+)$/.exec(f);
  if (reason) {
    if (reason[1] === 'active') return { t: 'reason-active' };
    return REASON_BITS[reason[1]] !== undefined ? { t: 'reason-bit', bit: REASON_BITS[reason[1]] } : { t: 'skip' };
  }
  const counter = /^clocks_(?:event|throttle)_reasons_counters\.(.+)$/.exec(f);
  if (counter) return { t: 'value', name: 'gpu.throttle_time', unit: 'seconds', kind: 'counter', metric: `nvidia-smi:${f}`, reason: counter[1] };
  const rule = GPU_FIELDS[f];
  if (rule) return { t: 'value', name: rule.name, unit: rule.unit, kind: rule.kind ?? 'gauge', metric: `nvidia-smi:${c.field}`, reason: null };
  if (NOT_A_READING.test(f)) return { t: 'skip' };
  // A field Quadscope has no name for: under its own name, without a metric label.
  return { t: 'value', name: f, unit: SCALED_UNIT[c.unit] ?? c.unit, kind: 'gauge', metric: null, reason: null };
}

const GPU_NAMING = new Set(['gpu', 'gpu_uuid', 'bus_id']);

/**
 * A script's own time column beside the --query-gpu fields where nvidia-smi's timestamp is not queried
 * (`time [s]`, `elapsed`, `epoch`): epoch seconds or ms where the numbers are that large, else seconds from the
 * run's start, which the file's end places (secondsBase).
 */
const SECONDS_FIELD = /^(?:time|elapsed|elapsed_time|relative_time|epoch|unix_time|t)(?:_s|_sec)?$/i;
const SECONDS_UNIT = /^(?:|s|sec|secs|seconds)$/i;
/** Epoch seconds from 1973 on, epoch ms from then on; anything smaller is seconds since the run began. */
const EPOCH_S_FROM = 1e8;
const EPOCH_MS_FROM = 1e11;

/** A script's time cell in ms since the epoch; relative seconds are placed after `base` (NaN: not a number). */
function secondsCell(cell: string, base: number): number {
  const v = Number(cell.trim());
  if (!cell.trim() || !Number.isFinite(v)) return NaN;
  return v >= EPOCH_MS_FROM ? v : v >= EPOCH_S_FROM ? v * 1000 : base + v * 1000;
}

/** Cells nvidia-smi writes for a GPU it lost (as against `[N/A]` / `[Not Supported]`: a reading it does not have). */
const LOST_CELL = /^\[(?:Unknown Error|GPU requires reset|GPU is lost|GPU Lost)\]$/i;
/** nvidia-smi's own line (stderr, often redirected with the CSV) for a GPU it cannot open. */
export const LOST_LINE = /^\s*Unable to determine the device handle for (?:GPU\s*\d*:?)?\s*([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}(?:\.[0-9A-Fa-f])?)\s*:\s*(.+)$/i;

const sameColumns = (a: Column[], b: Column[]) => a.length === b.length && a.every((c, i) => c.field === b[i].field && c.unit === b[i].unit);

/** One --query-gpu or --query-compute-apps table: a header, then rows of cells. */
class QueryTable {
  private cols: Column[] = [];
  private plans: Plan[] = [];
  private idCols: number[] = [];
  private timeCol = -1;
  /** A script's seconds column (SECONDS_FIELD) where nvidia-smi's timestamp is not queried; -1 none. */
  secondsCol = -1;
  /** Where a seconds column's 0 is (relative seconds); set by the importer once the file's last one is known. */
  secondsBase = NaN;
  /** Rows that had no time at all, and whether one of them repeated a GPU an earlier one had written. */
  private untimed = 0;
  private untimedRepeat = false;
  /**
   * Series ids per identity (the row's identity cells joined): one slot per column, and one more for
   * gpu.throttle_reasons; -1 until first written. A row costs one string key and one map lookup, not a
   * label object and a JSON key per cell.
   */
  private readonly series = new Map<string, Int32Array>();
  private ordinal = 0;
  private lastTs = '';
  private lastTsValue = NaN;
  /** Header lines repeated in the body (runs appended to one file with `-l … >> log`). */
  repeats = 0;
  /**
   * The GPUs now lost, by bus (kernelBusId; by row identity where a row names no bus), so that each loss is
   * one gpu_lost event whether the rows or nvidia-smi's own line says it, at every poll; a row that reads
   * again ends it.
   */
  private readonly lost = new Set<string>();
  /** The time of the last row read (a lost-GPU line of nvidia-smi's own comes between rows and has none). */
  lastRowTs = NaN;

  constructor(private readonly apps: boolean, private readonly sink: Sink, private readonly ctx: ImportContext, private readonly clock: LogClock) {}

  get ready(): boolean {
    return this.cols.length > 0;
  }

  header(cols: Column[]): void {
    this.cols = cols;
    const fields = new Set(cols.map((c) => c.field));
    this.plans = cols.map((c) => planOf(c, this.apps, fields));
    this.idCols = [];
    this.timeCol = -1;
    this.secondsCol = -1;
    this.plans.forEach((p, i) => {
      if (p.t === 'identity') this.idCols.push(i);
      else if (p.t === 'time') this.timeCol = i;
      else if (p.t === 'seconds') this.secondsCol = i;
    });
    this.series.clear();
  }

  /** A script's seconds cell (secondsCell); one that is no number (a date in some script's own form) dates nothing, as if absent. */
  private secondsTime(text: string, no: number): number {
    const t = secondsCell(text, this.secondsBase);
    if (Number.isFinite(t)) return t;
    this.untimed++;
    return this.clock.fallback(no, `a "${this.cols[this.secondsCol].field}" column that is no number of seconds`);
  }

  /** Said once at the end: rows without a time that read a GPU again each replaced the one before. */
  untimedNote(): string | null {
    if (!this.untimedRepeat) return null;
    return `${this.untimed} rows without a time (no timestamp column: query it with --query-gpu=timestamp,…): each GPU's rows share one time, so only its last row is kept`;
  }

  /** A header line met after rows: the same header again is skipped (counted); another one replaces it. */
  maybeHeader(line: string): boolean {
    if (!isHeader(line)) return false;
    const cols = parseHeader(line);
    if (sameColumns(cols, this.cols)) this.repeats++;
    else if (cols.some((c) => c.field === 'timestamp' || c.field in GPU_FIELDS || c.field in IDENTITY)) this.header(cols);
    else return false;
    return true;
  }

  /** Answers false when the row does not fit the header. */
  row(line: string, no: number): boolean {
    let cells = line.split(', ');
    if (cells.length !== this.cols.length) cells = line.split(',');
    if (cells.length !== this.cols.length) return false;
    let ts: number;
    let tsText = '';
    const col = this.timeCol >= 0 ? this.timeCol : this.secondsCol;
    if (col >= 0) {
      tsText = cells[col].trim();
      if (tsText === this.lastTs) ts = this.lastTsValue;
      else {
        ts = col === this.timeCol ? smiTime(tsText, this.clock, no) : this.secondsTime(tsText, no);
        if (!Number.isFinite(ts)) return false;
        this.ordinal = 0;
        this.lastTs = tsText;
        this.lastTsValue = ts;
      }
    } else {
      ts = this.clock.fallback(no, 'no timestamp column in the CSV');
      this.untimed++;
    }
    // The row's identity: its cells as written (no reading: empty), and a key of them.
    let key = '';
    let named = false;
    const ids: string[] = [];
    for (const i of this.idCols) {
      const v = cells[i].trim();
      const id = v && v[0] !== '[' && v !== 'N/A' ? v : '';
      ids.push(id);
      key += `${id}\u0001`;
      if (id && GPU_NAMING.has((this.plans[i] as { label: string }).label)) named = true;
    }
    // A GPU without index, uuid or bus id is told apart by its place among the rows of one timestamp.
    if (!this.apps && !named) key += String(this.ordinal);
    this.ordinal++;
    this.lastRowTs = ts;
    this.lostRow(cells, key, ids, ts, no);
    let slots = this.series.get(key);
    if (slots !== undefined && this.untimed > 1) this.untimedRepeat = true;
    if (slots === undefined) {
      slots = new Int32Array(this.cols.length + 1).fill(-1);
      this.series.set(key, slots);
    }
    let activeMask: number | null = null;
    let bits = 0;
    let sawBits = false;
    for (let i = 0; i < cells.length; i++) {
      const p = this.plans[i];
      if (p.t === 'value') {
        const v = cellNumber(cells[i], this.cols[i].unit);
        if (v === null) continue;
        let id = slots[i];
        if (id < 0) {
          const l = this.labels(ids);
          if (p.reason !== null) l.reason = p.reason;
          if (p.metric !== null) l.metric = p.metric;
          slots[i] = id = this.sink.series({ name: p.name, labels: l, unit: p.unit, kind: p.kind });
        }
        this.sink.sample(id, ts, v);
      } else if (p.t === 'reason-active') {
        const raw = cells[i].trim();
        if (/^0x[0-9a-fA-F]+$/.test(raw)) activeMask = Number.parseInt(raw, 16);
      } else if (p.t === 'reason-bit') {
        const raw = cells[i].trim();
        if (raw === 'Active' || raw === 'Not Active') {
          sawBits = true;
          if (raw === 'Active') bits |= p.bit;
        }
      }
    }
    const mask: number | null = activeMask ?? (sawBits ? bits : null);
    if (mask !== null) {
      const k = this.cols.length;
      if (slots[k] < 0) slots[k] = this.sink.series({ name: 'gpu.throttle_reasons', labels: { ...this.labels(ids), metric: 'nvidia-smi:clocks_event_reasons' }, unit: 'bitmask', kind: 'gauge' });
      this.sink.sample(slots[k], ts, mask);
    }
    return true;
  }

  /**
   * A row whose readings are mostly `[Unknown Error]` / `[GPU requires reset]` / `[GPU is lost]` is the GPU
   * gone (an Xid 79, a fallen-off bus): one gpu_lost event when it goes, again only after it came back.
   */
  private lostRow(cells: string[], key: string, ids: string[], ts: number, no: number): void {
    if (this.apps) return;
    let values = 0;
    let lost = 0;
    for (let i = 0; i < cells.length; i++) {
      const p = this.plans[i].t;
      if (p === 'identity' || p === 'time' || p === 'skip') continue;
      values++;
      if (LOST_CELL.test(cells[i].trim())) lost++;
    }
    const labels = this.labels(ids);
    const gone = labels.bus_id !== undefined ? kernelBusId(labels.bus_id) : `row:${key}`;
    if (values === 0 || lost * 2 < values) {
      this.lost.delete(gone);
      return;
    }
    if (this.lost.has(gone)) return;
    this.lost.add(gone);
    const what = labels.bus_id ?? labels.gpu_uuid ?? labels.gpu ?? '?';
    const attrs = { ...labels, ...(labels.bus_id !== undefined ? { bus_id: kernelBusId(labels.bus_id) } : {}), source: 'nvidia-smi' };
    this.sink.event({ ts_ms: ts, kind: 'gpu_lost', severity: 'critical', line: no, text: `nvidia-smi: GPU ${what} answers no query (${lost} of ${values} readings: ${[...new Set(cells.map((c) => c.trim()).filter((c) => LOST_CELL.test(c)))].join(', ')})`, attrs });
  }

  /** nvidia-smi's own line for a GPU it cannot reach (`Unable to determine the device handle for GPU0000:B1:00.0: Unknown Error`), as a gpu_lost event. */
  lostLine(line: string, no: number, clock: LogClock): boolean {
    const m = LOST_LINE.exec(line);
    if (!m || this.apps) return false;
    const bus = kernelBusId(m[1]);
    if (this.lost.has(bus)) return true;
    this.lost.add(bus);
    const ts = Number.isFinite(this.lastRowTs) ? this.lastRowTs : clock.fallback(no, 'no timestamp before the lost GPU line');
    this.sink.event({ ts_ms: ts, kind: 'gpu_lost', severity: 'critical', line: no, text: line.trim(), attrs: { bus_id: bus, error: m[2].trim(), source: 'nvidia-smi' } });
    return true;
  }

  /** The canonical identity labels of a row (built only when one of its series is new). */
  private labels(ids: string[]): Labels {
    const identity: Labels = {};
    this.idCols.forEach((c, k) => {
      if (ids[k]) identity[(this.plans[c] as { label: string }).label] = ids[k];
    });
    if (!this.apps && identity.gpu === undefined) identity.gpu = identity.gpu_uuid ?? identity.bus_id ?? String(this.ordinal - 1);
    return canonicalLabels(identity);
  }
}

// The field list of a command line as people write it: `--query-gpu=a,b`, `--query-gpu "a,b"`, quoted or not.
const QUERY_GPU_RE = /--query-gpu[= ]["']?([A-Za-z0-9_.,]+)/;
const QUERY_APPS_RE = /--query-compute-apps[= ]["']?([A-Za-z0-9_.,]+)/;
/** The nvidia-smi command itself on a line of its own, as pasted or traced: `$ nvidia-smi …`, `+ nvidia-smi …` (set -x), `sudo nvidia-smi …`. */
const COMMAND_LINE = /^\s*(?:[$#+>]\s*)?(?:sudo\s+)?(?:\S*\/)?nvidia-smi\s/;

/**
 * The unit nvidia-smi prints a field in (`--format=csv` writes it in the header, `nounits` nowhere): a
 * header field without its bracket gets it — one taken from the command line, or one whose units a script
 * stripped — so that `noheader,nounits` rows read as the header would have said. A cell's own unit
 * ("32362 MiB") still wins.
 */
function defaultUnit(field: string): string {
  if (/^memory\.(used|total|free|reserved)$/.test(field) || field === 'used_gpu_memory' || field === 'used_memory') return 'MiB';
  if (field.startsWith('utilization.') || field === 'fan.speed') return '%';
  if (/^clocks\.(?!.*reasons)/.test(field)) return 'MHz';
  if (field.startsWith('power.') || field.endsWith('power.limit')) return 'W';
  if (field.startsWith('temperature.')) return 'C';
  return '';
}

/**
 * The largest relative seconds in a script's time column (a pass of its own over the file): a run's seconds
 * count from its start, which nothing in the file dates; its last row is placed at the anchor (the bundle's
 * end, else the file's mtime: when the script stopped writing), the others before it.
 */
async function lastSeconds(input: EntryInput, col: number): Promise<number> {
  let last = 0;
  for await (const batch of lineBatches(input.stream())) {
    for (const line of batch) {
      const cells = line.split(',');
      if (cells.length <= col) continue;
      const v = Number(cells[col].trim());
      if (cells[col].trim() && Number.isFinite(v) && v < EPOCH_S_FROM && v > last) last = v;
    }
  }
  return last;
}

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
      if (line.startsWith('#') || COMMAND_LINE.test(line)) {
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
      if (table.ready && line.charCodeAt(0) > 57 && table.maybeHeader(line)) {
        // A header again (runs appended to one file), or a new one: not a malformed row.
        guard.ok();
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
        table.header(parseHeader(commandFields.join(',')));
      }
      if (table.secondsCol >= 0 && Number.isNaN(table.secondsBase)) table.secondsBase = clock.anchor('seconds since the run began (a script\'s time column, no timestamp queried): the last row', no) - 1000 * (await lastSeconds(input, table.secondsCol));
      if (table.row(line, no) || table.lostLine(line, no, clock)) guard.ok();
      else guard.malformed(no, 'row does not match the CSV header');
    }
  }
  const untimed = table.untimedNote();
  if (untimed) ctx.warn(untimed);
  if (table.repeats > 0) ctx.warn(`the CSV header is repeated ${table.repeats} time${table.repeats === 1 ? '' : 's'} in the file (several runs appended to one file, as \`-l … >> file\` does): read as one table`);
  guard.finish(no);
}

/** dmon columns → canonical series; MB columns are MiB in nvidia-smi's usage. */
const DMON: Record<string, { name: string; unit: string; scale: number; kind?: SeriesKind }> = {
  pwr: { name: 'gpu.power', unit: 'W', scale: 1 },
  gtemp: { name: 'gpu.temp', unit: 'C', scale: 1 },
  // Older drivers' one temperature column.
  temp: { name: 'gpu.temp', unit: 'C', scale: 1 },
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
  // tviol is a flag (its units row says `bool`), not a percentage as pviol is.
  tviol: { name: 'gpu.thermal_violation', unit: 'fraction', scale: 1 },
  enc: { name: 'gpu.enc_util', unit: 'fraction', scale: 0.01 },
  dec: { name: 'gpu.dec_util', unit: 'fraction', scale: 0.01 },
  jpg: { name: 'gpu.jpg_util', unit: 'fraction', scale: 0.01 },
  ofa: { name: 'gpu.ofa_util', unit: 'fraction', scale: 0.01 },
};

/** pmon columns → per-process series (labels gpu, pid, process); % → fraction, MB (MiB) → bytes. */
const PMON: Record<string, { name: string; unit: string; scale: number }> = {
  sm: { name: SIG.procSmUtil, unit: 'fraction', scale: 0.01 },
  mem: { name: SIG.procMemUtil, unit: 'fraction', scale: 0.01 },
  enc: { name: SIG.procEncUtil, unit: 'fraction', scale: 0.01 },
  dec: { name: SIG.procDecUtil, unit: 'fraction', scale: 0.01 },
  jpg: { name: SIG.procJpgUtil, unit: 'fraction', scale: 0.01 },
  ofa: { name: SIG.procOfaUtil, unit: 'fraction', scale: 0.01 },
  fb: { name: SIG.procGpuMemUsed, unit: 'bytes', scale: MIB },
  ccpm: { name: SIG.procGpuMemCcpm, unit: 'bytes', scale: MIB },
};
/** Columns that name a row rather than measure it. */
const MONITOR_KEYS = new Set(['gpu', 'Date', 'Time', 'pid', 'type', 'command']);

/**
 * `nvidia-smi dmon` (one row per GPU per interval) and `nvidia-smi pmon` (one row per process per GPU per
 * interval; a GPU without processes prints one row of `-`): fixed-width text under `# gpu …` / `# Idx …`
 * header rows, with optional Date (YYYYMMDD) and Time (HH:MM:SS) columns from `-o D`/`-o T`/`-o DT`.
 * Without a date, times of day take the bundle's date (log-time.ts timeOfDay, warned); without times,
 * rows are one interval of 1 s (the tools' default) each, the last ending at the mtime (warned): a new
 * interval starts when the GPU index goes back (pmon: or a GPU/pid pair repeats).
 */
async function importMonitor(pmon: boolean, input: EntryInput, sink: Sink, ctx: ImportContext): Promise<void> {
  const tool = pmon ? 'pmon' : 'dmon';
  const clock = new LogClock(ctx);
  const guard = new GarbageGuard(ctx, `nvidia-smi ${tool} output`);
  const ids = new Map<string, number>();
  let cols: string[] = [];
  let gi = -1;
  let pi = -1;
  let ci = -1;
  let di = -1;
  let ti = -1;
  // Rows without a time wait for the end, when their interval's time is known.
  const untimed: { interval: number; gpu: string; pid: string; process: string; values: (number | null)[] }[] = [];
  let interval = -1;
  let lastGpu = Infinity;
  const inInterval = new Set<string>();
  let no = 0;

  const write = (gpu: string, pid: string, process: string, ts: number, values: (number | null)[]) => {
    values.forEach((v, k) => {
      if (v === null) return;
      const col = cols[k];
      const rule = pmon ? PMON[col] : DMON[col];
      const name = rule?.name ?? `${tool}.${col}`;
      const key = `${col}\u0000${gpu}\u0000${pid}\u0000${process}`;
      let id = ids.get(key);
      if (id === undefined) {
        const labels: Labels = pmon ? { gpu, pid, process, metric: `nvidia-smi-pmon:${col}` } : { gpu, metric: `nvidia-smi-dmon:${col}` };
        const kind: SeriesKind = (!pmon && DMON[col]?.kind) || 'gauge';
        id = sink.series({ name, labels, unit: rule?.unit ?? '', kind });
        ids.set(key, id);
      }
      sink.sample(id, ts, applyScale(v, rule?.scale ?? 1));
    });
  };

  for await (const batch of lineBatches(input.stream())) {
    for (const line of batch) {
      no++;
      if (!line.trim()) continue;
      if (line.startsWith('#')) {
        const tokens = line.slice(1).trim().split(/\s+/);
        if (tokens.includes('gpu') && !tokens.includes('Idx')) {
          cols = tokens;
          gi = cols.indexOf('gpu');
          pi = cols.indexOf('pid');
          ci = cols.indexOf('command');
          di = cols.indexOf('Date');
          ti = cols.indexOf('Time');
        }
        guard.ok();
        continue;
      }
      const cells = line.trim().split(/\s+/);
      // pmon's command name is the last column and may hold spaces.
      const fits = ci >= 0 && ci === cols.length - 1 ? cells.length >= cols.length : cells.length === cols.length;
      if (!cols.length || !fits) {
        guard.malformed(no, cols.length ? `expected ${cols.length} columns, found ${cells.length}` : 'data row before the "# gpu …" header');
        continue;
      }
      const gpu = cells[gi];
      const pid = pi >= 0 ? cells[pi] : '';
      if (pmon && !/^\d+$/.test(pid)) {
        // "-": no process on this GPU in this interval.
        guard.ok();
        continue;
      }
      const process = ci >= 0 ? cells.slice(ci).join(' ') : '';
      const values = cols.map((c, k) => (MONITOR_KEYS.has(c) ? null : cellNumber(cells[k], '')));
      let ts = NaN;
      if (di >= 0 || ti >= 0) {
        const d = di >= 0 ? /^(\d{4})(\d\d)(\d\d)$/.exec(cells[di]) : null;
        const t = ti >= 0 ? /^(\d\d):(\d\d):(\d\d)$/.exec(cells[ti]) : null;
        if ((di >= 0 && !d) || (ti >= 0 && !t)) {
          guard.malformed(no, `bad date/time "${[di >= 0 ? cells[di] : '', ti >= 0 ? cells[ti] : ''].join(' ').trim()}"`);
          continue;
        }
        if (d && t) ts = clock.local(+d[1], +d[2], +d[3], +t[1], +t[2], +t[3], 0, no);
        else if (t) ts = clock.timeOfDay(+t[1], +t[2], +t[3], 0, no);
        // A date without a time of day: the rows of one day can only be told apart by order.
        else if (d) ts = clock.local(+d[1], +d[2], +d[3], 0, 0, 0, 0, no);
      }
      if (Number.isFinite(ts) && !(di >= 0 && ti < 0)) write(gpu, pid, process, ts, values);
      else {
        const g = Number(gpu);
        const pair = `${gpu}/${pid}`;
        if (!(g > lastGpu) && !(pmon && g === lastGpu && !inInterval.has(pair))) {
          interval++;
          inInterval.clear();
        }
        inInterval.add(pair);
        lastGpu = g;
        untimed.push({ interval, gpu, pid, process, values });
      }
      guard.ok();
    }
  }
  if (untimed.length) {
    const end = clock.fallback(no, `no Time column (nvidia-smi ${tool} without -o DT): one row per ${pmon ? 'process' : 'GPU'} per second assumed, the last second`);
    for (const r of untimed) write(r.gpu, r.pid, r.process, end - (interval - r.interval) * 1000, r.values);
  }
  guard.finish(no);
}

function firstContentLine(head: Buffer): string {
  return headLines(head, 50).find((l) => l.trim() && !l.startsWith('#') && !COMMAND_LINE.test(l)) ?? '';
}

/** Cells of a CSV row as nvidia-smi writes them (", " apart; "," where a tool re-wrote it). */
const cellCount = (row: string) => Math.max(row.split(', ').length, row.split(',').length);

/** Whether a headerless first row fits the field list of a command line in the head (same number of cells). */
function fitsCommand(lines: string[], re: RegExp, first: string): boolean {
  for (const l of lines) {
    const q = re.exec(l);
    if (q) return first.includes(',') && q[1].split(',').length === cellCount(first);
  }
  return false;
}

const SMI_TIME_CELL = /^\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d\.\d{3}, /;

export function detectQueryGpuCsv(head: Buffer): number {
  const lines = headLines(head, 20);
  if (lines.some((l) => l.includes('nvidia_gpu_exporter GPU capture'))) return 0.85;
  const first = firstContentLine(head);
  if (isHeader(first)) {
    const fields = parseHeader(first).map((c) => c.field);
    if (fields.includes('pid')) return 0;
    return fields.some((f) => f in GPU_FIELDS || f === 'pci.bus_id' || f === 'uuid' || f.startsWith('clocks')) ? 0.9 : 0;
  }
  if (fitsCommand(lines, QUERY_GPU_RE, first)) return 0.8;
  // nvidia-smi's own time first and no field list anywhere: claimed, so that the import says what is
  // missing instead of the file being skipped unexplained.
  return SMI_TIME_CELL.test(first) ? 0.5 : 0;
}

export function detectAppsCsv(head: Buffer): number {
  const first = firstContentLine(head);
  if (!isHeader(first)) return fitsCommand(headLines(head, 20), QUERY_APPS_RE, first) ? 0.8 : 0;
  const fields = parseHeader(first).map((c) => c.field);
  return fields.includes('pid') && (fields.includes('used_gpu_memory') || fields.includes('used_memory')) ? 0.9 : 0;
}

/** The `# gpu …` header of dmon or pmon output (and whether it is pmon's, with a pid column), or null. */
function monitorHeader(head: Buffer): 'dmon' | 'pmon' | null {
  const lines = headLines(head, 10);
  const i = lines.findIndex((l) => /^#\s*(Date\s+)?(Time\s+)?gpu\s+\S/.test(l));
  if (i < 0 || !/^#\s*(YYYYMMDD\s+)?(HH:MM:SS\s+)?Idx\b/.test(lines[i + 1] ?? '')) return null;
  return /\bpid\b/.test(lines[i]) ? 'pmon' : 'dmon';
}

export function detectDmon(head: Buffer): number {
  return monitorHeader(head) === 'dmon' ? 0.9 : 0;
}

export function detectPmon(head: Buffer): number {
  return monitorHeader(head) === 'pmon' ? 0.9 : 0;
}

export const nvidiaSmiCsvImporter: Importer = {
  format: 'nvidia-smi-csv',
  detect: (head) => detectQueryGpuCsv(head),
  localTime: true,
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
  yearless: true,
  import: (input, sink, ctx) => importMonitor(false, input, sink, ctx),
};

export const nvidiaSmiPmonImporter: Importer = {
  format: 'nvidia-smi-pmon',
  detect: (head) => detectPmon(head),
  yearless: true,
  import: (input, sink, ctx) => importMonitor(true, input, sink, ctx),
};
