// What nvidia-smi's snapshot outputs share — the table and `-q` text (nvidia-smi-text.ts) and `-q -x` XML
// (nvidia-smi-xml.ts): the readings' canonical names and the --query-gpu field each stands for (the CSV
// importer's `metric` labels), values as nvidia-smi prints them, one series per reading and GPU, lost GPUs
// as one event each, and one query GPU whose throttle reasons, ECC counts and processes come in pieces.
import { canonicalLabels, kernelBusId, MIB, type Labels } from '../signals/canonical';
import { EV, SIG } from '../../../common/names';
import type { SeriesKind } from '../../../common/contract/types';
import { REASON_BITS } from './nvidia-smi';
import { monthNumber, type LogClock } from './log-time';
import type { Sink } from './types';

/** `Fri Jul  3 22:10:45 2026` (C's ctime: the table's first line, the query's Timestamp, a watch header's end). */
export const CTIME = /(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)\s+([A-Z][a-z]{2})\s+(\d{1,2})\s+(\d{1,2}):(\d\d):(\d\d)\s+(\d{4})\s*$/;

/** A ctime match as epoch ms, in the machine's local time (the clock's zone). */
export const ctimeMs = (m: RegExpExecArray, clock: LogClock): number => clock.local(+m[6], monthNumber(m[1]) ?? 1, +m[2], +m[3], +m[4], +m[5]);

/** nvidia-smi's messages when it reaches no GPU, or not this one. */
export const NO_GPU = /^\s*(No devices were found|NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.*|Unable to determine the device handle for (?:GPU|gpu)\s*[0-9A-Fa-f:.]+\s*:.*)\s*$/;

export interface Reading {
  name: string;
  unit: string;
  kind?: SeriesKind;
  /** The --query-gpu field it stands for, as the `metric` label (the CSV importer's names). */
  field: string;
  scale?: number;
}

const R = (name: string, unit: string, field: string, scale = 1, kind?: SeriesKind): Reading => ({ name, unit, field, scale, kind });

/** The readings, by the --query-gpu field they stand for. */
export const READ = {
  memTotal: R(SIG.gpuMemTotal, 'bytes', 'memory.total', MIB),
  memReserved: R(SIG.gpuMemReserved, 'bytes', 'memory.reserved', MIB),
  memUsed: R(SIG.gpuMemUsed, 'bytes', 'memory.used', MIB),
  memFree: R(SIG.gpuMemFree, 'bytes', 'memory.free', MIB),
  bar1Used: R('gpu.bar1_used', 'bytes', 'bar1.used', MIB),
  util: R(SIG.gpuUtil, 'fraction', 'utilization.gpu', 0.01),
  memUtil: R(SIG.gpuMemUtil, 'fraction', 'utilization.memory', 0.01),
  encUtil: R('gpu.enc_util', 'fraction', 'utilization.encoder', 0.01),
  decUtil: R('gpu.dec_util', 'fraction', 'utilization.decoder', 0.01),
  jpgUtil: R('gpu.jpg_util', 'fraction', 'utilization.jpeg', 0.01),
  ofaUtil: R('gpu.ofa_util', 'fraction', 'utilization.ofa', 0.01),
  temp: R(SIG.gpuTemp, 'C', 'temperature.gpu'),
  memTemp: R('gpu.mem_temp', 'C', 'temperature.memory'),
  power: R(SIG.gpuPower, 'W', 'power.draw'),
  powerAvg: R('gpu.power_avg', 'W', 'power.draw.average'),
  powerInstant: R('gpu.power_instant', 'W', 'power.draw.instant'),
  powerLimit: R(SIG.gpuPowerLimit, 'W', 'enforced.power.limit'),
  grClock: R('gpu.gr_clock', 'MHz', 'clocks.current.graphics'),
  smClock: R(SIG.gpuSmClock, 'MHz', 'clocks.current.sm'),
  memClock: R(SIG.gpuMemClock, 'MHz', 'clocks.current.memory'),
  pstate: R('gpu.pstate', '', 'pstate'),
  fan: R('gpu.fan', 'fraction', 'fan.speed', 0.01),
  remapPending: R(SIG.gpuRowRemapPending, 'count', 'remapped_rows.pending'),
  remapFailure: R('gpu.row_remap_failure', 'count', 'remapped_rows.failure'),
  pcieReplays: R('gpu.pcie_replays', 'count', 'pcie.replay_counter', 1, 'counter'),
  pcieTx: R('gpu.pcie_tx', 'bytes/s', 'pcie.tx', 1000),
  pcieRx: R('gpu.pcie_rx', 'bytes/s', 'pcie.rx', 1000),
  eccSbe: R(SIG.gpuEccSbe, 'count', 'ecc.errors.corrected.volatile.total', 1, 'counter'),
  eccDbe: R(SIG.gpuEccDbe, 'count', 'ecc.errors.uncorrected.volatile.total', 1, 'counter'),
  throttle: R(SIG.gpuThrottleReasons, 'bitmask', 'clocks_event_reasons.active'),
  procMem: R(SIG.procGpuMemUsed, 'bytes', 'used_gpu_memory', MIB),
} as const;

/** n in a reading's unit: percentages divided by 100 (47 % is 0.47, where 47 × 0.01 is 0.47000000000000003). */
export const scaled = (n: number, scale: number): number => (scale < 1 ? n / Math.round(1 / scale) : n * scale);

/** A reading as nvidia-smi prints it ("143771 MiB", "52 C", "77.67 W", "0 %", "P0", "Yes"), in the reading's unit; null for none. */
export function readingValue(text: string, r: Reading): number | null {
  const s = text.trim();
  if (s === 'Yes' || s === 'Active') return 1;
  if (s === 'No' || s === 'Not Active') return 0;
  const p = /^P(\d+)$/.exec(s);
  if (p) return Number(p[1]);
  const m = /^(-?\d+(?:\.\d+)?)/.exec(s);
  return m ? scaled(Number(m[1]), r.scale ?? 1) : null;
}

/** The series of one file, its lost GPUs, and the GPU indexes its tables gave. */
export class SnapshotWriter {
  private readonly ids = new Map<string, number>();
  /** GPUs lost, by bus: one gpu_lost event per GPU and file however many snapshots show it. */
  private readonly lost = new Set<string>();
  /** GPU indexes by bus (kernel spelling), from the tables: a query in the same file names its GPUs as they did. */
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

  /** A GPU nvidia-smi cannot reach (bus null: none at all), once per GPU and file. */
  lostGpu(ts: number, line: number | null, text: string, bus: string | null): void {
    const key = bus === null ? '*' : kernelBusId(bus);
    if (this.lost.has(key)) return;
    this.lost.add(key);
    this.sink.event({ ts_ms: ts, kind: EV.gpuLost, severity: 'critical', line, text, attrs: { ...(bus === null ? {} : { bus_id: kernelBusId(bus) }), source: 'nvidia-smi' } });
  }
}

/** The volatile ECC counters a query prints, by what they count. */
export type EccCounter = 'sbe-total' | 'dbe-total' | 'sram-correctable' | 'dram-correctable' | 'sram-uncorrectable' | 'sram-uncorrectable-part' | 'dram-uncorrectable';

/**
 * One GPU of a query (`-q` text or `-q -x` XML): readings are written as they come; the throttle reasons,
 * the ECC counters and each process's fields come in pieces and are written at its end.
 */
export class QueryGpu {
  readonly labels: Labels;
  private reasons: number | null = null;
  private readonly ecc = new Map<EccCounter, number>();
  private pid: string | null = null;
  private process = '';

  constructor(private readonly w: SnapshotWriter, bus: string) {
    this.labels = { gpu: w.indexOf.get(kernelBusId(bus)) ?? bus, bus_id: bus };
  }

  reading(r: Reading, text: string, ts: number): void {
    const v = readingValue(text, r);
    if (v !== null) this.w.write(r, this.labels, ts, v);
  }

  /** A clocks event (throttle) reason by its NVML name (`sw_power_cap`), shown Active or Not Active. */
  reason(name: string, text: string): void {
    const bit = REASON_BITS[name];
    const t = text.trim();
    if (bit !== undefined && (t === 'Active' || t === 'Not Active')) this.reasons = (this.reasons ?? 0) | (t === 'Active' ? bit : 0);
  }

  eccCount(counter: EccCounter, text: string): void {
    const t = text.trim();
    if (/^\d+$/.test(t)) this.ecc.set(counter, (this.ecc.get(counter) ?? 0) + Number(t));
  }

  processPid(text: string): void {
    this.pid = text.trim();
    this.process = '';
  }

  processName(text: string): void {
    this.process = text.trim();
  }

  /** A process's memory (its last field): written with the pid and name before it. */
  processMemory(text: string, ts: number): void {
    const v = readingValue(text, READ.procMem);
    if (this.pid !== null && v !== null) this.w.write(READ.procMem, { gpu: this.labels.gpu, pid: this.pid, process: this.process }, ts, v);
  }

  end(ts: number): void {
    if (this.reasons !== null) this.w.write(READ.throttle, this.labels, ts, this.reasons);
    const e = this.ecc;
    const sum = (...ks: EccCounter[]): number | null => (ks.some((k) => e.has(k)) ? ks.reduce((s, k) => s + (e.get(k) ?? 0), 0) : null);
    // Old drivers print Single/Double Bit totals; newer ones SRAM and DRAM counters, SRAM uncorrectable
    // whole (R470–R550) or split into parity and SEC-DED (R555+): a split one is not added to a whole one.
    const sbe = e.get('sbe-total') ?? sum('sram-correctable', 'dram-correctable');
    const dbe = e.get('dbe-total') ?? sum(e.has('sram-uncorrectable-part') ? 'sram-uncorrectable-part' : 'sram-uncorrectable', 'dram-uncorrectable');
    if (sbe !== null) this.w.write(READ.eccSbe, this.labels, ts, sbe);
    if (dbe !== null) this.w.write(READ.eccDbe, this.labels, ts, dbe);
  }
}
