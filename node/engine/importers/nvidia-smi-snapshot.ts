// What nvidia-smi's snapshot outputs share — the table and `-q` text (nvidia-smi-text.ts) and `-q -x` XML
// (nvidia-smi-xml.ts): the readings' canonical names and the --query-gpu field each stands for (the CSV
// importer's `metric` labels), values as nvidia-smi prints them, one series per reading and GPU, lost GPUs
// as one event each, and one query GPU whose throttle reasons, ECC counts and processes come in pieces.
import { applyScale, canonicalLabels, kernelBusId, MIB, type Labels } from '../signals/canonical';
import { EV, SIG } from '../../../common/names';
import type { SeriesKind } from '../../../common/contract/types';
import { REASON_BITS } from './nvidia-smi';
import { monthNumber, type LogClock } from './log-time';
import type { Sink } from './types';

/** `Fri Jul  3 22:10:45 2026` (C's ctime: the table's first line, the query's Timestamp, a watch header's end). */
export const CTIME = /(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)\s+([A-Z][a-z]{2})\s+(\d{1,2})\s+(\d{1,2}):(\d\d):(\d\d)\s+(\d{4})\s*$/;

/** A ctime match as epoch ms, in the machine's local time (the clock's zone). */
export const ctimeMs = (m: RegExpExecArray, clock: LogClock, line?: number): number => clock.local(+m[6], monthNumber(m[1]) ?? 1, +m[2], +m[3], +m[4], +m[5], 0, line);

/**
 * nvidia-smi's messages when it reaches no GPU, or not this one (`Failed to initialize NVML: Driver/library version
 * mismatch`: a driver upgraded under a running system, no GPU usable until a reboot).
 */
export const NO_GPU = /^\s*(No devices were found|NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.*|Failed to initialize NVML: .*|Unable to determine the device handle for (?:GPU|gpu)\s*[0-9A-Fa-f:.]+\s*:.*)\s*$/;

export interface Reading {
  name: string;
  unit: string;
  kind?: SeriesKind;
  /** The --query-gpu field it stands for, as the `metric` label (the CSV importer's names). */
  field: string;
  scale?: number;
  /** Reads a value that is a word, not a figure (null: no reading). */
  parse?: (text: string) => number | null;
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
  powerInstant: R('gpu.power_instant', 'W', 'power.draw.instant'),
  powerLimit: R(SIG.gpuPowerLimit, 'W', 'enforced.power.limit'),
  grClock: R('gpu.gr_clock', 'MHz', 'clocks.current.graphics'),
  smClock: R(SIG.gpuSmClock, 'MHz', 'clocks.current.sm'),
  memClock: R(SIG.gpuMemClock, 'MHz', 'clocks.current.memory'),
  pstate: R('gpu.pstate', '', 'pstate'),
  fan: R('gpu.fan', 'fraction', 'fan.speed', 0.01),
  remapPending: R(SIG.gpuRowRemapPending, 'count', 'remapped_rows.pending'),
  remapFailure: R(SIG.gpuRowRemapFailure, 'count', 'remapped_rows.failure'),
  // R550–565 print whether the driver asks for a reset (Yes/No); R570+ deprecate both for the one recovery action.
  resetRequired: R(SIG.gpuRecoveryAction, 'code', 'reset_status.reset_required'),
  drainAndReset: R(SIG.gpuRecoveryAction, 'code', 'reset_status.drain_and_reset_recommended'),
  recoveryAction: { ...R(SIG.gpuRecoveryAction, 'code', 'gpu_recovery_action'), parse: recoveryActionCode },
  pcieReplays: R('gpu.pcie_replays', 'count', 'pcie.replay_counter', 1, 'counter'),
  pcieTx: R('gpu.pcie_tx', 'bytes/s', 'pcie.tx', 1000),
  pcieRx: R('gpu.pcie_rx', 'bytes/s', 'pcie.rx', 1000),
  eccSbe: R(SIG.gpuEccSbe, 'count', 'ecc.errors.corrected.volatile.total', 1, 'counter'),
  eccDbe: R(SIG.gpuEccDbe, 'count', 'ecc.errors.uncorrected.volatile.total', 1, 'counter'),
  throttle: R(SIG.gpuThrottleReasons, 'bitmask', 'clocks_event_reasons.active'),
  procMem: R(SIG.procGpuMemUsed, 'bytes', 'used_gpu_memory', MIB),
} as const;

/**
 * The recovery action the driver asks for after an uncorrectable error, as NVML numbers it
 * (nvmlDeviceGpuRecoveryAction_t, DCGM's GPU_RECOVERY_ACTION): 0 none, 1 GPU reset, 2 node reboot, 3 drain
 * P2P, 4 drain and reset. nvidia-smi prints the word ("None", "Reset", some drivers "GPU_RESET"); a word
 * not known is no reading rather than a guess.
 */
export function recoveryActionCode(text: string): number | null {
  const w = text.toLowerCase().replace(/^(nvml_)?(gpu_)?recovery_action_/, '').replace(/[^a-z0-9]/g, '');
  const codes: Record<string, number> = { none: 0, reset: 1, gpureset: 1, reboot: 2, nodereboot: 2, drainp2p: 3, drainandreset: 4, drainreset: 4 };
  return Object.prototype.hasOwnProperty.call(codes, w) ? codes[w] : null;
}

/** A reading as nvidia-smi prints it ("143771 MiB", "52 C", "77.67 W", "0 %", "P0", "Yes"), in the reading's unit; null for none. */
export function readingValue(text: string, r: Reading): number | null {
  const s = text.trim();
  if (r.parse) return r.parse(s);
  if (s === 'Yes' || s === 'Active') return 1;
  if (s === 'No' || s === 'Not Active') return 0;
  const p = /^P(\d+)$/.exec(s);
  if (p) return Number(p[1]);
  const m = /^(-?\d+(?:\.\d+)?)/.exec(s);
  return m ? applyScale(Number(m[1]), r.scale ?? 1) : null;
}

/** The series of one file, its GPUs' labels, and its lost GPUs. */
export class SnapshotWriter {
  private readonly ids = new Map<string, number>();
  private readonly byLabels = new WeakMap<Labels, Map<Reading, number>>();
  /** GPUs lost, by bus: one gpu_lost event per GPU and file however many snapshots show it. */
  private readonly lost = new Set<string>();
  /** nvidia-smi's lost-GPU lines waiting for the time of the snapshot they come with. */
  private readonly pendingLost: { line: number | null; text: string; bus: string | null }[] = [];
  /** Each GPU's labels, by bus (kernel spelling), as first written: every later table or query names it alike. */
  private readonly identities = new Map<string, Labels>();
  snapshots = 0;
  samples = 0;

  constructor(private readonly sink: Sink) {}

  /**
   * The labels of the GPU on `bus`: the first ones proposed for it in the file. A table names a GPU by its
   * index, a query (which prints none) by its bus; one GPU in both, or in a full query and a `-d POWER` one,
   * is then one set of series whichever came first.
   */
  identity(bus: string, proposed: Labels): Labels {
    const key = kernelBusId(bus);
    let l = this.identities.get(key);
    if (!l) this.identities.set(key, (l = proposed));
    return l;
  }

  write(r: Reading, labels: Labels, ts: number, v: number): void {
    // A GPU's labels are one object for the whole file (identity()): its series are found by that object and
    // the reading, with no label text built a sample (a day of `-l 1` is millions of them).
    let byReading = this.byLabels.get(labels);
    if (!byReading) this.byLabels.set(labels, (byReading = new Map()));
    let id = byReading.get(r);
    if (id === undefined) byReading.set(r, (id = this.seriesOf(r, labels)));
    this.sink.sample(id, ts, v);
    this.samples++;
  }

  private seriesOf(r: Reading, labels: Labels): number {
    const l = canonicalLabels({ ...labels, metric: `nvidia-smi:${r.field}` });
    const key = `${r.name}\u0000${JSON.stringify(l)}`;
    let id = this.ids.get(key);
    if (id === undefined) this.ids.set(key, (id = this.sink.series({ name: r.name, labels: l, unit: r.unit, kind: r.kind ?? 'gauge' })));
    return id;
  }

  /**
   * A GPU nvidia-smi cannot reach (bus null: none at all), once per GPU and file. Its time is the snapshot's
   * (ts), or, for nvidia-smi's own line (stderr, written before the output it goes with), the next time the
   * file gives (`at`), else the last.
   */
  lostGpu(ts: number | null, line: number | null, text: string, bus: string | null): void {
    const key = bus === null ? '*' : kernelBusId(bus);
    if (this.lost.has(key)) return;
    this.lost.add(key);
    if (ts === null) this.pendingLost.push({ line, text, bus });
    else this.sink.event({ ts_ms: ts, kind: EV.gpuLost, severity: 'critical', line, text, attrs: { ...(bus === null ? {} : { bus_id: kernelBusId(bus) }), source: 'nvidia-smi' } });
  }

  /** A snapshot's time is known: the lost-GPU lines before it take it. */
  at(ts: number): void {
    for (const p of this.pendingLost.splice(0)) {
      this.lost.delete(p.bus === null ? '*' : kernelBusId(p.bus));
      this.lostGpu(ts, p.line, p.text, p.bus);
    }
  }
}

/** The volatile ECC counters a query prints, by what they count. */
export type EccCounter = 'sbe-total' | 'dbe-total' | 'sram-correctable' | 'dram-correctable' | 'sram-uncorrectable' | 'sram-uncorrectable-part' | 'dram-uncorrectable';

/**
 * One GPU of a query (`-q` text or `-q -x` XML): readings are written as they come; the throttle reasons,
 * the ECC counters and each process's fields come in pieces and are written at its end.
 */
export class QueryGpu {
  /** What the query says of the GPU so far (its model and UUID come after its header). */
  readonly labels: Labels;
  private frozen: Labels | null = null;
  private reasons: number | null = null;
  private readonly ecc = new Map<EccCounter, number>();
  private pid: string | null = null;
  private process = '';

  constructor(private readonly w: SnapshotWriter, private readonly bus: string) {
    this.labels = { gpu: bus, bus_id: bus };
  }

  /** The labels its series take: fixed at its first reading (the file's first naming of this GPU wins). */
  private ids(): Labels {
    return (this.frozen ??= this.w.identity(this.bus, { ...this.labels }));
  }

  reading(r: Reading, text: string, ts: number): void {
    const v = readingValue(text, r);
    if (v !== null) this.w.write(r, this.ids(), ts, v);
  }

  /** A clocks event (throttle) reason by its NVML name (`sw_power_cap`), shown Active or Not Active. */
  reason(name: string, text: string): void {
    // The XML says display_clocks_setting where the CSV field and the text say display clock setting.
    const bit = REASON_BITS[name === 'display_clocks_setting' ? 'display_clock_setting' : name];
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
    if (this.pid !== null && v !== null) this.w.write(READ.procMem, { gpu: this.ids().gpu, pid: this.pid, process: this.process }, ts, v);
  }

  end(ts: number): void {
    if (this.reasons !== null) this.w.write(READ.throttle, this.ids(), ts, this.reasons);
    const e = this.ecc;
    const sum = (...ks: EccCounter[]): number | null => (ks.some((k) => e.has(k)) ? ks.reduce((s, k) => s + (e.get(k) ?? 0), 0) : null);
    // Old drivers print Single/Double Bit totals; newer ones SRAM and DRAM counters, SRAM uncorrectable
    // whole (R470–R550) or split into parity and SEC-DED (R555+): a split one is not added to a whole one.
    const sbe = e.get('sbe-total') ?? sum('sram-correctable', 'dram-correctable');
    const dbe = e.get('dbe-total') ?? sum(e.has('sram-uncorrectable-part') ? 'sram-uncorrectable-part' : 'sram-uncorrectable', 'dram-uncorrectable');
    if (sbe !== null) this.w.write(READ.eccSbe, this.ids(), ts, sbe);
    if (dbe !== null) this.w.write(READ.eccDbe, this.ids(), ts, dbe);
  }
}
