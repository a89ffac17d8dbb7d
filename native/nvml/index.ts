// The NVML addon as the engine sees it: `openNvml()` answers either an open session (`available:
// true`) or why there is none (`available: false, reason`) — no driver, no addon build, a library that
// is not NVML — and never throws for those. This is the only module that loads the native addon.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

export interface NvmlDeviceInfo {
  index: number;
  name: string;
  uuid: string;
  pci_bus_id: string;
}

export interface NvmlProcess {
  pid: number;
  /** null where NVML cannot tell (NVML_VALUE_NOT_AVAILABLE, e.g. under WDDM). */
  used_bytes: number | null;
}

/** One device's readings; a field the device does not support is null. */
export interface NvmlDeviceSample extends NvmlDeviceInfo {
  /** NVML_ERROR_GPU_IS_LOST: the device fell off the bus or became inaccessible; every reading is null. */
  lost: boolean;
  mem_used: number | null;
  mem_total: number | null;
  mem_free: number | null;
  /** Driver/firmware reservation (nvmlDeviceGetMemoryInfo_v2 only; included in mem_used). */
  mem_reserved: number | null;
  /** Percent, 0..100. */
  util_gpu: number | null;
  util_mem: number | null;
  sm_clock_mhz: number | null;
  mem_clock_mhz: number | null;
  power_w: number | null;
  temp_c: number | null;
  /** nvmlClocksEventReason* bitmask (nvmlClocksThrottleReason* on older drivers). */
  clocks_event_reasons: number | null;
  ecc_dbe_volatile: number | null;
  ecc_dbe_aggregate: number | null;
  processes: NvmlProcess[] | null;
  /** Per-field failures other than "not supported": field → "nvmlDeviceGetX: text (NVML_ERROR_…)". */
  errors: Record<string, string>;
}

export interface NvmlXid {
  /** Device index, or -1 when NVML named a device we did not enumerate. */
  gpu: number;
  xid: number;
}

export interface NvmlSample {
  devices: NvmlDeviceSample[];
  /** Xid critical errors that arrived since the previous sample. */
  xids: NvmlXid[];
  /** Why polling events failed this time, if it did. */
  xid_error: string | null;
  /** Wall time the native call took, µs. */
  cost_us: number;
}

export interface NvmlInfo {
  library: string;
  driver_version: string;
  nvml_version: string;
  devices: NvmlDeviceInfo[];
  /** The entry point each versioned call resolved to ("" when absent). */
  symbols: { memory: string; processes: string; clocks_event_reasons: string; event_wait: string };
  missing_symbols: string[];
  /** Why Xid events are not watched, or null when they are. */
  xid_note: string | null;
}

export interface NvmlSession extends NvmlInfo {
  available: true;
  /** Every field of every device, and pending Xid events, in one synchronous call. */
  sample(): NvmlSample;
  /** Releases this session's reference; the last one shuts NVML down and unloads the library. */
  close(): void;
}

export interface NvmlUnavailable {
  available: false;
  reason: string;
}

export type Nvml = NvmlSession | NvmlUnavailable;

interface Addon {
  open(path: string): ({ ok: true } & NvmlInfo) | { ok: false; reason: string };
  sample(): NvmlSample;
  close(): void;
}

// The desktop app bundles this module, so it names the unpacked addon through the environment.
const ADDON_PATH = process.env.QUADSCOPE_NVML_ADDON ?? fileURLToPath(new URL('./build/Release/quadscope_nvml.node', import.meta.url));

export function defaultLibraryPath(): string {
  return process.env.QUADSCOPE_NVML_LIB || (process.platform === 'win32' ? 'nvml.dll' : 'libnvidia-ml.so.1');
}

let addon: Addon | null = null;

function loadAddon(): Addon | string {
  if (addon) return addon;
  if (!existsSync(ADDON_PATH)) return `the NVML addon is not built (${ADDON_PATH} is missing; run npm run build:native)`;
  try {
    addon = createRequire(import.meta.url)(ADDON_PATH) as Addon;
    return addon;
  } catch (e) {
    return `the NVML addon did not load: ${e instanceof Error ? e.message : String(e)}`;
  }
}

/**
 * Loads NVML (default `QUADSCOPE_NVML_LIB`, else libnvidia-ml.so.1 / nvml.dll) and initialises it.
 * Sessions are reference counted: one library per process, so a second path while one is open is
 * refused with a reason.
 */
export function openNvml(opts: { libraryPath?: string } = {}): Nvml {
  const a = loadAddon();
  if (typeof a === 'string') return { available: false, reason: a };
  const r = a.open(opts.libraryPath ?? defaultLibraryPath());
  if (!r.ok) return { available: false, reason: r.reason };
  const { ok: _ok, ...info } = r;
  let closed = false;
  return {
    available: true,
    ...info,
    sample: () => {
      if (closed) throw new Error('this NVML session was closed');
      return a.sample();
    },
    close: () => {
      if (closed) return;
      closed = true;
      a.close();
    },
  };
}

/** Paths of the stub libraries scripts/build-native.mjs builds, for tests and benchmarks. */
export const STUB_LIBRARY = fileURLToPath(new URL('./build/stub/libnvidia-ml.so.1', import.meta.url));
export const LEGACY_STUB_LIBRARY = fileURLToPath(new URL('./build/stub-legacy/libnvidia-ml.so.1', import.meta.url));
