// Samples every GPU through NVML at a fixed rate into a live stream as canonical series (gpu.mem.used,
// gpu.util, …; labels gpu, gpu_uuid, gpu_model as the importers write them), with Xid events and a
// 'gpu_lost' event when a device falls off the bus — sampling goes on for the others. The cost of every
// sample is measured, so the overhead of watching is known.
import type { NvmlDeviceSample, NvmlSample, NvmlSession } from '../../../native/nvml/index';
import type { SeriesDef } from '../importers/types';
import type { LiveStream } from './recorder';
import { xidInfo } from '../importers/xid-codes';
import { kernelBusId } from '../signals/canonical';

export const DEFAULT_RATE_HZ = 1;
export const MAX_RATE_HZ = 50;

export interface SamplerOptions {
  rate_hz?: number;
  /** The clock samples are stamped with (tests pass a simulated one). */
  now?: () => number;
}

export interface SamplerStats {
  samples: number;
  rate_hz: number;
  /** Per sample: the whole tick (native call + conversion + buffering), µs. */
  mean_us: number;
  p50_us: number;
  p99_us: number;
  max_us: number;
  /** Per sample: the native NVML call alone, µs. */
  native_mean_us: number;
  /** Ticks that started late by more than one period (the event loop was busy). */
  late: number;
}

const RECENT = 1024;

type Field = (d: NvmlDeviceSample) => number | null;

interface Signal {
  name: string;
  unit: string;
  kind?: 'gauge' | 'counter';
  read: Field;
}

const pct = (v: number | null) => (v === null ? null : v / 100);

const SIGNALS: readonly Signal[] = [
  { name: 'gpu.mem.used', unit: 'bytes', read: (d) => d.mem_used },
  { name: 'gpu.mem.total', unit: 'bytes', read: (d) => d.mem_total },
  { name: 'gpu.mem.free', unit: 'bytes', read: (d) => d.mem_free },
  { name: 'gpu.util', unit: 'fraction', read: (d) => pct(d.util_gpu) },
  { name: 'gpu.mem_util', unit: 'fraction', read: (d) => pct(d.util_mem) },
  { name: 'gpu.sm_clock', unit: 'MHz', read: (d) => d.sm_clock_mhz },
  { name: 'gpu.mem_clock', unit: 'MHz', read: (d) => d.mem_clock_mhz },
  { name: 'gpu.power', unit: 'W', read: (d) => d.power_w },
  { name: 'gpu.temp', unit: 'C', read: (d) => d.temp_c },
  { name: 'gpu.throttle_reasons', unit: 'bitmask', read: (d) => d.clocks_event_reasons },
  { name: 'gpu.ecc_dbe', unit: 'count', kind: 'counter', read: (d) => d.ecc_dbe_volatile },
];


function deviceLabels(d: { index: number; uuid: string; name: string }): Record<string, string> {
  return { gpu: String(d.index), gpu_uuid: d.uuid, gpu_model: d.name, metric: 'nvml' };
}

export class NvmlSampler {
  readonly rateHz: number;
  private readonly periodMs: number;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | null = null;
  private nextAt = 0;
  /** Per device: local series ids in SIGNALS order, plus gpu.xid. */
  private readonly ids = new Map<number, number[]>();
  private readonly procIds = new Map<string, number>();
  private readonly lost = new Set<number>();
  private readonly warned = new Set<string>();
  private readonly recent = new Float64Array(RECENT);
  private count = 0;
  private totalUs = 0;
  private nativeUs = 0;
  private maxUs = 0;
  private late = 0;

  constructor(
    private readonly nvml: NvmlSession,
    private readonly out: LiveStream,
    opts: SamplerOptions = {},
  ) {
    const rate = opts.rate_hz ?? DEFAULT_RATE_HZ;
    if (!(rate > 0 && rate <= MAX_RATE_HZ)) throw new RangeError(`the NVML sampling rate must be above 0 and at most ${MAX_RATE_HZ} Hz (got ${rate})`);
    this.rateHz = rate;
    this.periodMs = 1000 / rate;
    this.now = opts.now ?? Date.now;
  }

  start(): void {
    if (this.timer) return;
    this.nextAt = performance.now();
    this.tick();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Devices NVML reports lost right now. */
  lostDevices(): number[] {
    return [...this.lost].sort((a, b) => a - b);
  }

  private tick = (): void => {
    this.sampleOnce();
    this.nextAt += this.periodMs;
    const t = performance.now();
    if (t - this.nextAt > this.periodMs) {
      this.late++;
      this.nextAt = t; // do not burst to catch up
    }
    this.timer = setTimeout(this.tick, Math.max(0, this.nextAt - t));
  };

  /** Takes one sample now and writes it; answers what NVML said. */
  sampleOnce(): NvmlSample {
    const t0 = performance.now();
    const ts = this.now();
    const s = this.nvml.sample();
    for (const d of s.devices) this.record(d, ts);
    for (const x of s.xids) this.recordXid(x.gpu, x.xid, ts);
    if (s.xid_error) this.warnOnce('xid', s.xid_error);
    const us = (performance.now() - t0) * 1000;
    this.recent[this.count % RECENT] = us;
    this.count++;
    this.totalUs += us;
    this.nativeUs += s.cost_us;
    if (us > this.maxUs) this.maxUs = us;
    return s;
  }

  private idsFor(d: NvmlDeviceSample): number[] {
    let ids = this.ids.get(d.index);
    if (!ids) {
      const labels = deviceLabels(d);
      ids = SIGNALS.map((sig) => this.out.series({ name: sig.name, unit: sig.unit, kind: sig.kind ?? 'gauge', labels }));
      ids.push(this.out.series({ name: 'gpu.xid', unit: 'code', kind: 'gauge', labels }));
      this.ids.set(d.index, ids);
    }
    return ids;
  }

  private record(d: NvmlDeviceSample, ts: number): void {
    if (d.lost) {
      if (!this.lost.has(d.index)) {
        this.lost.add(d.index);
        this.out.event({
          ts_ms: ts,
          kind: 'gpu_lost',
          severity: 'critical',
          text: `GPU ${d.index} (${d.name || 'unknown'}, ${d.uuid || 'no UUID'}) is lost: NVML answers NVML_ERROR_GPU_IS_LOST (fallen off the bus or inaccessible); sampling continues for the other GPUs`,
          attrs: { gpu: d.index, gpu_uuid: d.uuid, gpu_model: d.name },
        });
      }
      return;
    }
    if (this.lost.delete(d.index)) {
      this.out.event({ ts_ms: ts, kind: 'gpu_recovered', severity: 'warning', text: `GPU ${d.index} (${d.name}) answers NVML again`, attrs: { gpu: d.index, gpu_uuid: d.uuid } });
    }
    const ids = this.idsFor(d);
    for (let i = 0; i < SIGNALS.length; i++) {
      const v = SIGNALS[i].read(d);
      if (v !== null) this.out.sample(ids[i], ts, v);
    }
    if (d.processes) {
      for (const p of d.processes) {
        if (p.used_bytes === null) continue;
        this.out.sample(this.procSeries(d, p.pid), ts, p.used_bytes);
      }
    }
    for (const field in d.errors) this.warnOnce(`${d.index}:${field}`, `GPU ${d.index}: ${d.errors[field]}`);
  }

  private procSeries(d: NvmlDeviceSample, pid: number): number {
    const key = `${d.index}:${pid}`;
    let id = this.procIds.get(key);
    if (id === undefined) {
      const def: SeriesDef = { name: 'proc.gpu_mem.used', unit: 'bytes', kind: 'gauge', labels: { ...deviceLabels(d), pid: String(pid) } };
      id = this.out.series(def);
      this.procIds.set(key, id);
    }
    return id;
  }

  private recordXid(gpu: number, code: number, ts: number): void {
    const info = xidInfo(code);
    const dev = this.nvml.devices[gpu];
    this.out.event({
      ts_ms: ts,
      kind: 'xid',
      severity: info.severity,
      text: `Xid ${code} on GPU ${gpu >= 0 ? gpu : '?'}${dev ? ` (${dev.name}, ${dev.pci_bus_id})` : ''}: ${info.meaning}`,
      attrs: { code, gpu, class: info.class, meaning: info.meaning, ...(dev ? { gpu_uuid: dev.uuid, bus_id: kernelBusId(dev.pci_bus_id) } : {}) },
    });
    if (dev) {
      const ids = this.ids.get(gpu);
      const xidSeries = ids ? ids[ids.length - 1] : this.out.series({ name: 'gpu.xid', unit: 'code', kind: 'gauge', labels: deviceLabels(dev) });
      this.out.sample(xidSeries, ts, code);
    }
  }

  private warnOnce(key: string, message: string): void {
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.out.warn(message);
  }

  stats(): SamplerStats {
    const n = Math.min(this.count, RECENT);
    const sorted = Array.from(this.recent.subarray(0, n)).sort((a, b) => a - b);
    const q = (p: number) => (n ? sorted[Math.min(n - 1, Math.ceil(p * n) - 1)] : 0);
    return {
      samples: this.count,
      rate_hz: this.rateHz,
      mean_us: this.count ? this.totalUs / this.count : 0,
      p50_us: q(0.5),
      p99_us: q(0.99),
      max_us: this.maxUs,
      native_mean_us: this.count ? this.nativeUs / this.count : 0,
      late: this.late,
    };
  }
}
