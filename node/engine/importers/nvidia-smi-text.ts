// nvidia-smi's human-readable output, the GPU file most incident bundles carry: the default table
// (`nvidia-smi`, `nvidia-smi -l N`, `watch nvidia-smi` logs) and the full query (`nvidia-smi -q`, with or
// without `-d MEMORY,UTILIZATION,…`, `-l N`), alone or one after the other in one file. Each table or
// query is a snapshot at its own time: the table's first line (`Fri Jul  3 22:10:45 2026`), the query's
// `Timestamp` (both the machine's local time, read in ctx.options.tzOffsetMinutes, UTC when not given);
// a snapshot without one takes the file's mtime (warned).
//
// Table (drivers 384 … 590 lay it out alike: three cells a GPU, two or three lines a GPU): per GPU
// gpu.mem.used / gpu.mem.total, gpu.util, gpu.temp, gpu.power, gpu.power_limit (the cap, enforced),
// gpu.fan, gpu.pstate, gpu.ecc_dbe (volatile uncorrected), labels {gpu: index, bus_id, gpu_model where the
// table did not cut the name}; per process proc.gpu_mem.used {gpu, pid, process}. MIG device rows are
// skipped. A GPU row of `ERR!` is a gpu_lost event, bus in the kernel log's spelling.
// Query: per GPU the readings above plus gpu.mem.reserved / .free, gpu.bar1_used, gpu.mem_util and the
// engine utilisations, gpu.mem_temp, gpu.power_avg / _instant, clocks, gpu.throttle_reasons (the bitmask
// of the Clocks Event / Throttle Reasons that are Active), gpu.ecc_sbe / _dbe (volatile, old "Single/Double
// Bit" and new "SRAM/DRAM (Un)correctable" layouts), remapped-row flags, PCIe replays and throughput,
// labels {gpu, gpu_uuid, bus_id, gpu_model}: the query prints no index, so `gpu` is the index a table in
// the same file gave that bus, else the bus (not the UUID: pasted output often masks every UUID alike).
// nvidia-smi's own lines for GPUs it cannot reach (`Unable to determine the device handle …`, `No devices
// were found`, `NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver`) are
// gpu_lost events; a file of nothing else is claimed for them.
import { canonicalLabels, kernelBusId, MIB, type Labels } from '../signals/canonical';
import { SIG, EV } from '../../../common/names';
import type { SeriesKind } from '../../../common/contract/types';
import { headLines, lineBatches } from './line-reader';
import { LogClock, monthNumber } from './log-time';
import { LOST_LINE, REASON_BITS } from './nvidia-smi';
import { ImportError, type EntryInput, type ImportContext, type Importer, type Sink } from './types';

/** `Fri Jul  3 22:10:45 2026` (C's ctime; the table's first line, the query's Timestamp, a watch header's end). */
const CTIME = /(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)\s+([A-Z][a-z]{2})\s+(\d{1,2})\s+(\d{1,2}):(\d\d):(\d\d)\s+(\d{4})\s*$/;
const TABLE_BANNER = /^\|\s*NVIDIA-SMI\s+\d/;
const QUERY_BANNER = /^=+\s*NVSMI LOG\s*=+\s*$/;
/** nvidia-smi's messages when it reaches no GPU at all. */
const NO_GPU = /^\s*(No devices were found|NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.*|Unable to determine the device handle for (?:GPU|gpu)\s*[0-9A-Fa-f:.]+\s*:.*)\s*$/;
/** A query line `    Key      : value` (keys are padded to a column; a section header has no ` : `). */
const KEY_VALUE = /^(\s*)(\S.*?)\s+:(?:\s(.*))?$/;
const MAX_LINE = 1024;
const BUS = /([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f])/;

interface Reading {
  name: string;
  unit: string;
  kind?: SeriesKind;
  /** The --query-gpu field it stands for, as the `metric` label (the CSV importer's names). */
  field: string;
  scale?: number;
}

const R = (name: string, unit: string, field: string, scale = 1, kind?: SeriesKind): Reading => ({ name, unit, field, scale, kind });

/** The query's readings by section and key (the section of a GPU-level key is ''). */
const QUERY_READINGS: Record<string, Record<string, Reading>> = {
  '': { 'Performance State': R('gpu.pstate', '', 'pstate'), 'Fan Speed': R('gpu.fan', 'fraction', 'fan.speed', 0.01) },
  'FB Memory Usage': {
    Total: R(SIG.gpuMemTotal, 'bytes', 'memory.total', MIB),
    Reserved: R(SIG.gpuMemReserved, 'bytes', 'memory.reserved', MIB),
    Used: R(SIG.gpuMemUsed, 'bytes', 'memory.used', MIB),
    Free: R(SIG.gpuMemFree, 'bytes', 'memory.free', MIB),
  },
  'BAR1 Memory Usage': { Used: R('gpu.bar1_used', 'bytes', 'bar1.used', MIB) },
  Utilization: {
    Gpu: R(SIG.gpuUtil, 'fraction', 'utilization.gpu', 0.01),
    GPU: R(SIG.gpuUtil, 'fraction', 'utilization.gpu', 0.01),
    Memory: R(SIG.gpuMemUtil, 'fraction', 'utilization.memory', 0.01),
    Encoder: R('gpu.enc_util', 'fraction', 'utilization.encoder', 0.01),
    Decoder: R('gpu.dec_util', 'fraction', 'utilization.decoder', 0.01),
    JPEG: R('gpu.jpg_util', 'fraction', 'utilization.jpeg', 0.01),
    OFA: R('gpu.ofa_util', 'fraction', 'utilization.ofa', 0.01),
  },
  Temperature: { 'GPU Current Temp': R(SIG.gpuTemp, 'C', 'temperature.gpu'), 'Memory Current Temp': R('gpu.mem_temp', 'C', 'temperature.memory') },
  // "Power Readings" before driver 530, "GPU Power Readings" after (with average and instantaneous draw).
  'Power Readings': { 'Power Draw': R(SIG.gpuPower, 'W', 'power.draw'), 'Enforced Power Limit': R(SIG.gpuPowerLimit, 'W', 'enforced.power.limit') },
  'GPU Power Readings': {
    'Power Draw': R(SIG.gpuPower, 'W', 'power.draw'),
    'Average Power Draw': R('gpu.power_avg', 'W', 'power.draw.average'),
    'Instantaneous Power Draw': R('gpu.power_instant', 'W', 'power.draw.instant'),
    'Enforced Power Limit': R(SIG.gpuPowerLimit, 'W', 'enforced.power.limit'),
    // Newer drivers print no enforced limit; the current one is it.
    'Current Power Limit': R(SIG.gpuPowerLimit, 'W', 'enforced.power.limit'),
  },
  Clocks: { Graphics: R('gpu.gr_clock', 'MHz', 'clocks.current.graphics'), SM: R(SIG.gpuSmClock, 'MHz', 'clocks.current.sm'), Memory: R(SIG.gpuMemClock, 'MHz', 'clocks.current.memory') },
  'Remapped Rows': { Pending: R(SIG.gpuRowRemapPending, 'count', 'remapped_rows.pending'), 'Remapping Failure Occurred': R('gpu.row_remap_failure', 'count', 'remapped_rows.failure') },
  PCI: {
    'Replays Since Reset': R('gpu.pcie_replays', 'count', 'pcie.replay_counter', 1, 'counter'),
    'Tx Throughput': R('gpu.pcie_tx', 'bytes/s', 'pcie.tx', 1000),
    'Rx Throughput': R('gpu.pcie_rx', 'bytes/s', 'pcie.rx', 1000),
  },
};

const REASON_SECTIONS = new Set(['Clocks Event Reasons', 'Clocks Throttle Reasons']);
const ECC_SBE = R(SIG.gpuEccSbe, 'count', 'ecc.errors.corrected.volatile.total', 1, 'counter');
const ECC_DBE = R(SIG.gpuEccDbe, 'count', 'ecc.errors.uncorrected.volatile.total', 1, 'counter');
const PROC_MEM = R(SIG.procGpuMemUsed, 'bytes', 'used_gpu_memory', MIB);

/** n in a reading's unit: percentages divided by 100 (47 % is 0.47, where 47 × 0.01 is 0.47000000000000003). */
const scaled = (n: number, scale: number): number => (scale < 1 ? n / Math.round(1 / scale) : n * scale);

/** A reading as nvidia-smi prints it ("143771 MiB", "52 C", "77.67 W", "0 %", "P0", "Yes"), in the reading's unit; null for none. */
function readingValue(text: string, r: Reading): number | null {
  const s = text.trim();
  if (s === 'Yes' || s === 'Active') return 1;
  if (s === 'No' || s === 'Not Active') return 0;
  const p = /^P(\d+)$/.exec(s);
  if (p) return Number(p[1]);
  const m = /^(-?\d+(?:\.\d+)?)\s*(\S*)/.exec(s);
  return m ? scaled(Number(m[1]), r.scale ?? 1) : null;
}

/** One GPU of one snapshot: its identity, and what is summed or collected until its block ends. */
interface GpuBlock {
  labels: Labels;
  reasons: number | null;
  sbe: number | null;
  dbe: number | null;
  pid: string | null;
  process: string;
}

class Writer {
  private readonly ids = new Map<string, number>();
  /** GPUs lost, by bus: one gpu_lost event per GPU and file however many snapshots show it. */
  private readonly lost = new Set<string>();
  /** GPU indexes by bus, from the tables: a query in the same file names its GPUs as they did. */
  readonly indexOf = new Map<string, string>();
  snapshots = 0;
  samples = 0;

  constructor(private readonly sink: Sink) {}

  write(r: Reading, labels: Labels, ts: number, v: number): void {
    const l = canonicalLabels({ ...labels, metric: `nvidia-smi:${r.field}` });
    const key = `${r.name}\u0000${JSON.stringify(l)}`;
    let id = this.ids.get(key);
    if (id === undefined) this.ids.set(key, (id = this.sink.series({ name: r.name, labels: l, unit: r.unit, kind: r.kind ?? 'gauge' })));
    this.sink.sample(id, ts, v);
    this.samples++;
  }

  lostGpu(ts: number, line: number, text: string, bus: string | null): void {
    const key = bus === null ? '*' : kernelBusId(bus);
    if (this.lost.has(key)) return;
    this.lost.add(key);
    this.sink.event({ ts_ms: ts, kind: EV.gpuLost, severity: 'critical', line, text, attrs: { ...(bus === null ? {} : { bus_id: kernelBusId(bus) }), source: 'nvidia-smi' } });
  }
}

/** The default table, line by line. */
class TableReader {
  private section: 'none' | 'gpus' | 'mig' | 'procs' = 'none';
  /** The GPU whose first line was read, waiting for its second. */
  private pending: { labels: Labels; ecc: string; lost: boolean; line: number } | null = null;

  constructor(private readonly w: Writer) {}

  /** Takes a table line (`|…` or `+…`); false when it is none. */
  line(line: string, no: number, ts: () => number): boolean {
    if (line[0] === '+') {
      return true;
    }
    if (line[0] !== '|') {
      this.section = 'none';
      return false;
    }
    if (TABLE_BANNER.test(line)) {
      this.section = 'none';
      return true;
    }
    const inner = line.slice(1, line.lastIndexOf('|') > 0 ? line.lastIndexOf('|') : undefined);
    if (/^\s*GPU\s+Name\b/.test(inner)) this.section = 'gpus';
    else if (/^\s*MIG devices:/.test(inner)) this.section = 'mig';
    else if (/^\s*Processes:/.test(inner)) this.section = 'procs';
    else if (this.section === 'gpus') this.gpuLine(inner.split('|'), no, ts);
    else if (this.section === 'procs') this.processLine(inner, ts);
    return true;
  }

  private gpuLine(cells: string[], no: number, ts: () => number): void {
    if (cells.length < 3) return;
    const first = /^\s*(\d+)\s+(.*?)\s*$/.exec(cells[0]);
    const bus = BUS.exec(cells[1]);
    if (first && bus) {
      // "NVIDIA H200      On" (persistence mode, or the driver model on Windows) after the name.
      const words = first[2].split(/\s{2,}/);
      const name = words.length > 1 ? words.slice(0, -1).join(' ') : first[2].replace(/\s+(On|Off|WDDM|TCC)$/, '');
      const labels: Labels = { gpu: first[1], bus_id: bus[1] };
      this.w.indexOf.set(kernelBusId(bus[1]), first[1]);
      if (name && !name.endsWith('...')) labels.gpu_model = name;
      this.pending = { labels, ecc: cells[2].trim(), lost: cells.some((c) => c.includes('ERR!')), line: no };
      return;
    }
    const g = this.pending;
    if (!g) return;
    this.pending = null;
    const t = ts();
    // A lost GPU's other cells (its memory) are what the driver last knew, not readings.
    if (g.lost || cells.some((c) => c.includes('ERR!'))) {
      this.w.lostGpu(t, g.line, `nvidia-smi: GPU ${g.labels.gpu} (${g.labels.bus_id}) shows ERR!`, g.labels.bus_id);
      return;
    }
    // "N/A   28C    P0             77W /  700W", "30%  45C  P2  150W / 350W"
    const a = /^\s*(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s*\/\s*(\S+)\s*$/.exec(cells[0]);
    if (a) {
      this.put(R('gpu.fan', 'fraction', 'fan.speed', 0.01), g.labels, t, a[1]);
      this.put(R(SIG.gpuTemp, 'C', 'temperature.gpu'), g.labels, t, a[2]);
      this.put(R('gpu.pstate', '', 'pstate'), g.labels, t, a[3]);
      this.put(R(SIG.gpuPower, 'W', 'power.draw'), g.labels, t, a[4]);
      this.put(R(SIG.gpuPowerLimit, 'W', 'enforced.power.limit'), g.labels, t, a[5]);
    }
    const mem = /(\d+)\s*MiB\s*\/\s*(\d+)\s*MiB/.exec(cells[1]);
    if (mem) {
      this.w.write(R(SIG.gpuMemUsed, 'bytes', 'memory.used'), g.labels, t, Number(mem[1]) * MIB);
      this.w.write(R(SIG.gpuMemTotal, 'bytes', 'memory.total'), g.labels, t, Number(mem[2]) * MIB);
    }
    const util = /^\s*(\d+)\s*%/.exec(cells[2]);
    if (util) this.w.write(R(SIG.gpuUtil, 'fraction', 'utilization.gpu'), g.labels, t, Number(util[1]) / 100);
    if (/^\d+$/.test(g.ecc)) this.w.write(ECC_DBE, g.labels, t, Number(g.ecc));
  }

  /** A cell of the second GPU line ("28C", "77W", "30%", "P0"); ERR! and N/A are no reading. */
  private put(r: Reading, labels: Labels, ts: number, cell: string): void {
    const m = /^(\d+(?:\.\d+)?)(C|W|%)?$/.exec(cell) ?? /^P(\d+)$/.exec(cell);
    if (m) this.w.write(r, labels, ts, scaled(Number(m[1]), r.scale ?? 1));
  }

  private processLine(inner: string, ts: () => number): void {
    // "    0   N/A  N/A           10291      C   /root/tools/memhog        2566MiB" (GI/CI since driver 450),
    // "    0      1234      C   python      1234MiB" before.
    const m = /^\s*(\d+)\s+(?:(?:N\/A|\d+)\s+(?:N\/A|\d+)\s+)?(\d+)\s+(C\+G|M\+C|C|G|M)\s+(.*?)\s+(\d+)\s*MiB\s*$/.exec(inner);
    if (m) this.w.write(PROC_MEM, { gpu: m[1], pid: m[2], process: m[4] }, ts(), Number(m[5]) * MIB);
  }
}

/** The full query, line by line. */
class QueryReader {
  /** Section headers enclosing the line: their indent and name. */
  private readonly sections: { indent: number; name: string }[] = [];
  private gpu: GpuBlock | null = null;

  constructor(private readonly w: Writer) {}

  /** A new snapshot (`==NVSMI LOG==`): the GPU before it ends. */
  reset(ts: () => number): void {
    this.end(ts);
    this.sections.length = 0;
  }

  line(line: string, ts: () => number): void {
    const indent = line.length - line.trimStart().length;
    const kv = KEY_VALUE.exec(line);
    while (this.sections.length && this.sections[this.sections.length - 1].indent >= indent) this.sections.pop();
    if (!kv) {
      const name = line.trim();
      const bus = indent === 0 ? /^GPU\s+([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f])$/.exec(name) : null;
      if (bus) {
        this.end(ts);
        this.gpu = { labels: { gpu: this.w.indexOf.get(kernelBusId(bus[1])) ?? bus[1], bus_id: bus[1] }, reasons: null, sbe: null, dbe: null, pid: null, process: '' };
        this.sections.length = 0;
      } else if (name) this.sections.push({ indent, name });
      return;
    }
    const g = this.gpu;
    if (!g) return;
    const key = kv[2];
    const value = (kv[3] ?? '').trim();
    const path = this.sections.map((s) => s.name);
    const section = path.length ? path[path.length - 1] : '';
    if (section === '') {
      if (key === 'Product Name') g.labels.gpu_model = value;
      else if (key === 'GPU UUID') g.labels.gpu_uuid = value;
    }
    const r = QUERY_READINGS[section]?.[key];
    if (r) {
      const v = readingValue(value, r);
      if (v !== null) this.w.write(r, g.labels, ts(), v);
      return;
    }
    if (REASON_SECTIONS.has(section)) {
      const bit = REASON_BITS[key === 'Idle' ? 'gpu_idle' : key.toLowerCase().replace(/ /g, '_')];
      if (bit !== undefined && (value === 'Active' || value === 'Not Active')) g.reasons = (g.reasons ?? 0) | (value === 'Active' ? bit : 0);
      return;
    }
    if (path.includes('ECC Errors') && path.includes('Volatile')) {
      const n = /^\d+$/.test(value) ? Number(value) : null;
      if (n === null) return;
      // Old layout: Volatile › Single Bit | Double Bit › Total; new: Volatile › "DRAM Uncorrectable", …
      if (key === 'Total' && section === 'Single Bit') g.sbe = n;
      else if (key === 'Total' && section === 'Double Bit') g.dbe = n;
      else if (section === 'Volatile' && /Uncorrectable/.test(key)) g.dbe = (g.dbe ?? 0) + n;
      else if (section === 'Volatile' && /Correctable/.test(key)) g.sbe = (g.sbe ?? 0) + n;
      return;
    }
    if (path[0] === 'Processes') {
      if (key === 'Process ID') g.pid = value;
      else if (key === 'Name') g.process = value;
      else if (key === 'Used GPU Memory' && g.pid !== null) {
        const v = readingValue(value, PROC_MEM);
        if (v !== null) this.w.write(PROC_MEM, { gpu: g.labels.gpu, pid: g.pid, process: g.process }, ts(), v);
      }
    }
  }

  /** Ends the GPU being read: what it summed is written. */
  end(ts: () => number): void {
    const g = this.gpu;
    this.gpu = null;
    if (!g) return;
    if (g.reasons !== null) this.w.write(R(SIG.gpuThrottleReasons, 'bitmask', 'clocks_event_reasons.active'), g.labels, ts(), g.reasons);
    if (g.sbe !== null) this.w.write(ECC_SBE, g.labels, ts(), g.sbe);
    if (g.dbe !== null) this.w.write(ECC_DBE, g.labels, ts(), g.dbe);
  }
}

async function importSmiText(input: EntryInput, sink: Sink, ctx: ImportContext): Promise<void> {
  const clock = new LogClock(ctx);
  const w = new Writer(sink);
  const table = new TableReader(w);
  const query = new QueryReader(w);
  let mode: 'none' | 'table' | 'query' = 'none';
  // The time of the snapshot being read: its date line, else (at its first reading) the mtime, warned.
  let ts = NaN;
  // Whether a date line came since the last table banner (a banner without one is a snapshot of unknown time).
  let dated = false;
  let no = 0;
  const now = (): number => (Number.isFinite(ts) ? ts : (ts = clock.fallback(no, 'nvidia-smi output without its date line')));
  const dateOf = (m: RegExpExecArray): number => clock.local(+m[6], monthNumber(m[1]) ?? 1, +m[2], +m[3], +m[4], +m[5]);
  for await (const batch of lineBatches(input.stream(), ctx)) {
    for (const line of batch) {
      no++;
      // nvidia-smi's lines are short (a table is 80–100 columns, a query line under 200): a longer one is
      // none of them, and the lazy patterns below would take time quadratic in its length.
      if (line.length > MAX_LINE || !line.trim()) continue;
      const c0 = line[0];
      if (c0 === '|' || c0 === '+') {
        if (TABLE_BANNER.test(line)) {
          if (!dated) ts = NaN;
          dated = false;
          w.snapshots++;
          mode = 'table';
        }
        if (mode === 'table') table.line(line, no, now);
        continue;
      }
      if (QUERY_BANNER.test(line)) {
        query.reset(now);
        ts = NaN;
        w.snapshots++;
        mode = 'query';
        continue;
      }
      const lost = NO_GPU.exec(line);
      if (lost) {
        const bus = LOST_LINE.exec(line);
        w.lostGpu(now(), no, `nvidia-smi: ${lost[1]}`, bus ? bus[1] : null);
        continue;
      }
      const date = CTIME.exec(line);
      if (date && mode === 'query' && /^\s*Timestamp\s+:/.test(line)) {
        ts = dateOf(date);
        continue;
      }
      // The table's first line, or a `watch` header ("Every 2.0s: nvidia-smi   host: Fri Jul  3 …"): a new snapshot.
      if (date && (date.index === 0 || /^Every\s/.test(line))) {
        if (mode === 'query') query.end(now);
        mode = 'none';
        ts = dateOf(date);
        dated = true;
        continue;
      }
      if (mode === 'query') query.line(line, now);
    }
  }
  query.end(now);
  if (w.snapshots === 0 && w.samples === 0 && !Number.isFinite(ts)) {
    throw new ImportError(ctx.path, { line: 1 }, 'no nvidia-smi table (a "| NVIDIA-SMI …" banner) or query ("==NVSMI LOG==") in this file');
  }
}

/** A line of a table, a query or nvidia-smi's date line (what most of a file of this format is). */
const SMI_LINE = /^(?:[|+]|=+\s*NVSMI LOG|\s+\S.*?\s+:|(?:Timestamp|Driver Version|CUDA Version|Attached GPUs)\s+:|GPU [0-9A-Fa-f]{4,8}:|(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) )/;

export function detectSmiText(head: Buffer): number {
  const lines = headLines(head, 400);
  // nvidia_gpu_exporter's captures hold tables and queries too; their CSV sections are read (nvidia-smi.ts).
  if (lines.some((l) => l.includes('nvidia_gpu_exporter GPU capture'))) return 0;
  const content = lines.filter((l) => l.trim() && l.length <= MAX_LINE);
  if (content.some((l) => QUERY_BANNER.test(l) || TABLE_BANNER.test(l))) {
    // A table pasted into a log is the log's: claimed firmly only where nvidia-smi's lines are most of the head.
    const own = content.filter((l) => SMI_LINE.test(l)).length;
    return own >= content.length * 0.6 ? 0.9 : 0.3;
  }
  return content.length > 0 && NO_GPU.test(content[0]) ? 0.6 : 0;
}

export const nvidiaSmiTextImporter: Importer = {
  format: 'nvidia-smi-text',
  detect: (head) => detectSmiText(head),
  import: importSmiText,
};
