// nvidia-smi's human-readable output, the GPU file most incident bundles carry: the default table
// (`nvidia-smi`, `nvidia-smi -l N`, `watch nvidia-smi` logs, indented as a whole, inside a container log's
// wrapping) and the full query (`nvidia-smi -q`, with or without `-d MEMORY,UTILIZATION,…`, `-l N`), alone or
// one after the other in one file. Each table or query is a snapshot at its own time: the table's first line
// (`Fri Jul  3 22:10:45 2026`, also after a shell prompt), the query's `Timestamp` (both the machine's local
// time, read in ctx.options.tzOffsetMinutes, UTC when not given); a snapshot without one takes the file's
// mtime (warned).
//
// Table (drivers 418 … 610 lay it out alike: three cells a GPU, two or three lines a GPU): per GPU
// gpu.mem.used / gpu.mem.total, gpu.util, gpu.temp, gpu.power, gpu.power_limit (the cap, enforced),
// gpu.fan, gpu.pstate, gpu.ecc_dbe (volatile uncorrected), labels {gpu: index, bus_id, gpu_model where the
// table did not cut the name}; per process proc.gpu_mem.used {gpu, pid, process}. MIG device rows are
// skipped. A GPU whose name or most readings show `ERR!` is a gpu_lost event (bus in the kernel log's
// spelling) and no readings; one `ERR!` sensor is not.
// Query: the readings of nvidia-smi-snapshot.ts's QueryGpu by section and key below (a MIG-enabled GPU's
// `MIG Devices` block is the slices', skipped). A GPU keeps the labels the file first gave it
// (SnapshotWriter.identity): a table's index, else the query's bus — the query prints no index, and pasted
// output often masks every UUID alike.
// nvidia-smi's own lines for GPUs it cannot reach (`Unable to determine the device handle …`, `No devices
// were found`, `NVIDIA-SMI has failed …`, `Failed to initialize NVML: …`) are gpu_lost events at the time of
// the snapshot they come before; a file of nothing else is claimed for them.
import { MIB, type Labels } from '../signals/canonical';
import { headLines, lineBatches } from './line-reader';
import { LogClock } from './log-time';
import { LOST_LINE } from './nvidia-smi';
import { CTIME, ctimeMs, NO_GPU, QueryGpu, READ, readingValue, SnapshotWriter, type EccCounter, type Reading } from './nvidia-smi-snapshot';
import { unwrapContainerLine } from './vllm-log';
import { ImportError, type EntryInput, type ImportContext, type Importer, type Sink } from './types';

const TABLE_BANNER = /^\|\s*NVIDIA-SMI\s+\d/;
const QUERY_BANNER = /^=+\s*NVSMI LOG\s*=+\s*$/;
/** A query line `    Key      : value` (keys are padded to a column; a section header has no ` : `). */
const KEY_VALUE = /^(\s*)(\S.*?)\s+:(?:\s(.*))?$/;
const MAX_LINE = 1024;
const BUS = /([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f])/;
// One space after the time, as `docker logs -t` writes it: the query's own indentation follows.
const RFC3339_PREFIX = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d) /;

/**
 * A line as nvidia-smi wrote it, out of a container log's wrapping (Docker json-file, CRI, journald, `docker
 * logs -t` / `kubectl logs --timestamps`): an init script's nvidia-smi in a pod's log.
 */
function unwrapped(line: string): string {
  const c0 = line.charCodeAt(0);
  if (!(c0 >= 48 && c0 <= 57) && c0 !== 123 && !(c0 >= 65 && c0 <= 90)) return line;
  const u = unwrapContainerLine(line);
  const m = RFC3339_PREFIX.exec(u);
  return m ? u.slice(m[0].length) : u;
}

/**
 * The container runtime's time of a line as written (NaN: none). Read at a banner only: a snapshot without
 * nvidia-smi's own date line is dated by the log's time of its banner, not by the file's mtime.
 */
function runtimeTime(line: string): number {
  const m = RFC3339_PREFIX.exec(unwrapContainerLine(line));
  return m ? Date.parse(m[0].trim()) : NaN;
}

/** The query's readings by section and key (the section of a GPU-level key is ''). */
const QUERY_READINGS: Record<string, Record<string, Reading>> = {
  '': { 'Performance State': READ.pstate, 'Fan Speed': READ.fan, 'GPU Recovery Action': READ.recoveryAction },
  'GPU Reset Status': { 'Reset Required': READ.resetRequired, 'Drain and Reset Recommended': READ.drainAndReset },
  'FB Memory Usage': { Total: READ.memTotal, Reserved: READ.memReserved, Used: READ.memUsed, Free: READ.memFree },
  'BAR1 Memory Usage': { Used: READ.bar1Used },
  Utilization: { Gpu: READ.util, GPU: READ.util, Memory: READ.memUtil, Encoder: READ.encUtil, Decoder: READ.decUtil, JPEG: READ.jpgUtil, OFA: READ.ofaUtil },
  Temperature: { 'GPU Current Temp': READ.temp, 'Memory Current Temp': READ.memTemp },
  // "Power Readings" before driver 530, "GPU Power Readings" after (with average and instantaneous draw).
  'Power Readings': { 'Power Draw': READ.power, 'Enforced Power Limit': READ.powerLimit },
  'GPU Power Readings': {
    'Power Draw': READ.power,
    // R550+ print only the average and the instantaneous draw; the average is what power.draw reads on Ampere and later.
    'Average Power Draw': READ.power,
    'Instantaneous Power Draw': READ.powerInstant,
    'Enforced Power Limit': READ.powerLimit,
    // Newer drivers print no enforced limit; the current one is it.
    'Current Power Limit': READ.powerLimit,
  },
  Clocks: { Graphics: READ.grClock, SM: READ.smClock, Memory: READ.memClock },
  'Remapped Rows': { Pending: READ.remapPending, 'Remapping Failure Occurred': READ.remapFailure },
  PCI: { 'Replays Since Reset': READ.pcieReplays, 'Tx Throughput': READ.pcieTx, 'Rx Throughput': READ.pcieRx },
};

const REASON_SECTIONS = new Set(['Clocks Event Reasons', 'Clocks Throttle Reasons']);

/** Volatile ECC counters by section and key (under ECC Errors › Volatile). */
const ECC: Record<string, EccCounter> = {
  'Single Bit/Total': 'sbe-total',
  'Double Bit/Total': 'dbe-total',
  'Volatile/SRAM Correctable': 'sram-correctable',
  'Volatile/DRAM Correctable': 'dram-correctable',
  'Volatile/SRAM Uncorrectable': 'sram-uncorrectable',
  'Volatile/SRAM Uncorrectable Parity': 'sram-uncorrectable-part',
  'Volatile/SRAM Uncorrectable SEC-DED': 'sram-uncorrectable-part',
  'Volatile/DRAM Uncorrectable': 'dram-uncorrectable',
};

/** The default table, line by line. */
class TableReader {
  private section: 'none' | 'gpus' | 'mig' | 'procs' = 'none';
  /** The GPU whose first line was read, waiting for its second. */
  private pending: { labels: Labels; index: string; bus: string; ecc: string; errName: boolean; line: number } | null = null;
  /** Each GPU's labels by the index its rows give (process rows name the GPU by index). */
  private readonly byIndex = new Map<string, Labels>();

  constructor(private readonly w: SnapshotWriter) {}

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
      const proposed: Labels = { gpu: first[1], bus_id: bus[1] };
      if (name && !name.endsWith('...')) proposed.gpu_model = name;
      const errName = /ERR!/.test(first[2]);
      const labels = this.w.identity(bus[1], proposed);
      this.byIndex.set(first[1], labels);
      this.pending = { labels, index: first[1], bus: bus[1], ecc: cells[2].trim(), errName, line: no };
      return;
    }
    const g = this.pending;
    if (!g) return;
    this.pending = null;
    const t = ts();
    // A GPU the driver lost shows ERR! for its name or most of its readings; its other cells (its memory) are
    // what the driver last knew, not readings. One ERR! cell (a fan, a power cap) is a sensor, not the GPU.
    const errs = cells.join('|').split('ERR!').length - 1;
    if (g.errName || errs >= 4) {
      this.w.lostGpu(t, g.line, `nvidia-smi: GPU ${g.index} (${g.bus}) shows ERR!`, g.bus);
      return;
    }
    // "N/A   28C    P0             77W /  700W", "30%  45C  P2  150W / 350W"
    const a = /^\s*(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s*\/\s*(\S+)\s*$/.exec(cells[0]);
    if (a) {
      this.put(READ.fan, g.labels, t, a[1]);
      this.put(READ.temp, g.labels, t, a[2]);
      this.put(READ.pstate, g.labels, t, a[3]);
      this.put(READ.power, g.labels, t, a[4]);
      this.put(READ.powerLimit, g.labels, t, a[5]);
    }
    const mem = /(\d+)\s*MiB\s*\/\s*(\d+)\s*MiB/.exec(cells[1]);
    if (mem) {
      this.w.write(READ.memUsed, g.labels, t, Number(mem[1]) * MIB);
      this.w.write(READ.memTotal, g.labels, t, Number(mem[2]) * MIB);
    }
    const util = /^\s*(\d+)\s*%/.exec(cells[2]);
    if (util) this.w.write(READ.util, g.labels, t, Number(util[1]) / 100);
    if (/^\d+$/.test(g.ecc)) this.w.write(READ.eccDbe, g.labels, t, Number(g.ecc));
  }

  /** A cell of the second GPU line ("28C", "77W", "30%", "P0"); ERR! and N/A are no reading. */
  private put(r: Reading, labels: Labels, ts: number, cell: string): void {
    const v = readingValue(cell, r);
    if (v !== null) this.w.write(r, labels, ts, v);
  }

  private processLine(inner: string, ts: () => number): void {
    // "    0   N/A  N/A           10291      C   /root/tools/memhog        2566MiB" (GI/CI since driver 450),
    // "    0      1234      C   python      1234MiB" before.
    const m = /^\s*(\d+)\s+(?:(?:N\/A|\d+)\s+(?:N\/A|\d+)\s+)?(\d+)\s+(C\+G|M\+C|C|G|M)\s+(.*?)\s+(\d+)\s*MiB\s*$/.exec(inner);
    if (m) this.w.write(READ.procMem, { gpu: this.byIndex.get(m[1])?.gpu ?? m[1], pid: m[2], process: m[4] }, ts(), Number(m[5]) * MIB);
  }
}

/** The full query, line by line. */
class QueryReader {
  /** Section headers enclosing the line: their indent and name. */
  private readonly sections: { indent: number; name: string }[] = [];
  private gpu: QueryGpu | null = null;

  constructor(private readonly w: SnapshotWriter) {}

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
        this.gpu = new QueryGpu(this.w, bus[1]);
        this.sections.length = 0;
      } else if (name) this.sections.push({ indent, name });
      return;
    }
    const g = this.gpu;
    if (!g) return;
    const key = kv[2];
    const value = kv[3] ?? '';
    const path = this.sections.map((s) => s.name);
    const section = path.length ? path[path.length - 1] : '';
    if (section === '') {
      if (key === 'Product Name') g.labels.gpu_model = value.trim();
      else if (key === 'GPU UUID') g.labels.gpu_uuid = value.trim();
    }
    // A MIG-enabled GPU's slices print their own memory and ECC (`MIG Devices › MIG Device › FB Memory Usage`): not the GPU's.
    if (path[0] === 'MIG Devices') return;
    const r = QUERY_READINGS[section]?.[key];
    if (r) return g.reading(r, value, ts());
    if (REASON_SECTIONS.has(section)) return g.reason(key === 'Idle' ? 'gpu_idle' : key.toLowerCase().replace(/ /g, '_'), value);
    const ecc = ECC[`${section}/${key}`];
    if (ecc && path.includes('ECC Errors') && path.includes('Volatile')) return g.eccCount(ecc, value);
    if (path[0] === 'Processes') {
      if (key === 'Process ID') g.processPid(value);
      else if (key === 'Name') g.processName(value);
      else if (key === 'Used GPU Memory') g.processMemory(value, ts());
    }
  }

  /** Ends the GPU being read: what it summed is written. */
  end(ts: () => number): void {
    if (this.gpu) this.gpu.end(ts());
    this.gpu = null;
  }
}

async function importSmiText(input: EntryInput, sink: Sink, ctx: ImportContext): Promise<void> {
  const clock = new LogClock(ctx);
  const w = new SnapshotWriter(sink);
  const table = new TableReader(w);
  const query = new QueryReader(w);
  let mode: 'none' | 'table' | 'query' = 'none';
  // The time of the snapshot being read: its date line, else (at its first reading) the mtime, warned.
  let ts = NaN;
  // Whether a date line came since the last table banner (a banner without one is a snapshot of unknown time).
  let dated = false;
  let no = 0;
  const now = (): number => (Number.isFinite(ts) ? ts : (ts = clock.fallback(no, 'nvidia-smi output without its date line')));
  for await (const batch of lineBatches(input.stream(), ctx)) {
    for (let line of batch) {
      no++;
      // nvidia-smi's lines are short (a table is 80–100 columns, a query line under 200): a longer one is
      // none of them, and the lazy patterns below would take time quadratic in its length.
      if (line.length > MAX_LINE || !line.trim()) continue;
      const raw = line;
      line = unwrapped(line);
      // A table may be indented as a whole (a notebook's `!nvidia-smi` output exported as a code block).
      const c0 = line[0] === ' ' ? line.trimStart()[0] : line[0];
      if (c0 === '|' || c0 === '+') {
        line = line.trimStart();
        if (TABLE_BANNER.test(line)) {
          if (!dated) ts = runtimeTime(raw);
          dated = false;
          w.snapshots++;
          mode = 'table';
        }
        if (mode === 'table') table.line(line, no, now);
        continue;
      }
      if (QUERY_BANNER.test(line)) {
        query.reset(now);
        // Its own Timestamp line, further down, dates it where it has one.
        ts = runtimeTime(raw);
        w.snapshots++;
        mode = 'query';
        continue;
      }
      const lost = NO_GPU.exec(line);
      if (lost) {
        // Written to stderr before the output it goes with: the next snapshot's time (w.at), else the last.
        const bus = LOST_LINE.exec(line);
        w.lostGpu(null, no, `nvidia-smi: ${lost[1]}`, bus ? bus[1] : null);
        continue;
      }
      const date = CTIME.exec(line);
      if (date && mode === 'query' && /^\s*Timestamp\s+:/.test(line)) {
        ts = ctimeMs(date, clock, no);
        if (Number.isFinite(ts)) w.at(ts);
        continue;
      }
      // The table's first line (after a shell prompt where a session was pasted), or a `watch` header
      // ("Every 2.0s: nvidia-smi   host: Fri Jul  3 …"): a new snapshot.
      if (date && (date.index === 0 || /^Every\s/.test(line) || /^\s*$|[#$>]\s*$/.test(line.slice(0, date.index)))) {
        if (mode === 'query') query.end(now);
        mode = 'none';
        ts = ctimeMs(date, clock, no);
        if (Number.isFinite(ts)) w.at(ts);
        dated = true;
        continue;
      }
      if (mode === 'query') query.line(line, now);
    }
  }
  query.end(now);
  w.at(now());
  if (w.snapshots === 0 && w.samples === 0 && !Number.isFinite(ts)) {
    throw new ImportError(ctx.path, { line: 1 }, 'no nvidia-smi table (a "| NVIDIA-SMI …" banner) or query ("==NVSMI LOG==") in this file');
  }
  // Read as nvidia-smi's, yet nothing in it is a reading: said, not an "ok" with no rows and no word.
  if (w.samples === 0 && w.snapshots > 0) ctx.warn(`${w.snapshots} nvidia-smi snapshot${w.snapshots === 1 ? '' : 's'} but no GPU readings in them (a vGPU table, or a query cut before its memory, utilisation and power sections)`);
}

/** A line of a table, a query or nvidia-smi's date line (what most of a file of this format is). */
const SMI_LINE = /^(?:\s*[|+]|=+\s*NVSMI LOG|\s+\S.*?\s+:|(?:Timestamp|Driver Version|CUDA Version|Attached GPUs)\s+:|GPU [0-9A-Fa-f]{4,8}:|(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) )/;

export function detectSmiText(head: Buffer): number {
  const lines = headLines(head, 400);
  // nvidia_gpu_exporter's captures hold tables and queries too; their CSV sections are read (nvidia-smi.ts).
  if (lines.some((l) => l.includes('nvidia_gpu_exporter GPU capture'))) return 0;
  const content = lines.filter((l) => l.trim() && l.length <= MAX_LINE).map(unwrapped);
  if (content.some((l) => QUERY_BANNER.test(l) || TABLE_BANNER.test(l.trimStart()))) {
    // A table pasted into a log is the log's: claimed firmly only where nvidia-smi's lines are most of the head.
    // (A 40-line engine log around a table is 60% table: it scores below the log importers.)
    const own = content.filter((l) => SMI_LINE.test(l)).length;
    return own >= content.length * 0.9 ? 0.9 : own >= content.length * 0.6 ? 0.55 : 0.3;
  }
  return content.length > 0 && NO_GPU.test(content[0]) ? 0.6 : 0;
}

export const nvidiaSmiTextImporter: Importer = {
  format: 'nvidia-smi-text',
  detect: (head) => detectSmiText(head),
  localTime: true,
  import: importSmiText,
};
