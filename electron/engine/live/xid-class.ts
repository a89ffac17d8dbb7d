// What an Xid code says about the fault (formats.md, "Kernel log: NVRM Xid"): hardware faults point at
// the GPU (gpu_hardware_fault), software ones usually at the application, secondary ones follow others.
export type XidClass = 'hardware' | 'software' | 'secondary' | 'unknown';

const HARDWARE = new Set([48, 63, 64, 74, 79, 92, 94, 95, 119, 120]);
const SOFTWARE = new Set([13, 31, 43]);
const SECONDARY = new Set([45]);

const MEANING: Record<number, string> = {
  13: 'graphics engine exception',
  31: 'GPU memory page fault (MMU)',
  43: 'GPU stopped processing',
  45: 'preemptive cleanup, due to a previous error',
  48: 'double-bit ECC error',
  63: 'ECC page retirement or row remapping recorded',
  64: 'ECC page retirement or row remapping failure',
  74: 'NVLink error',
  79: 'GPU has fallen off the bus',
  92: 'high single-bit ECC error rate',
  94: 'contained ECC error',
  95: 'uncontained ECC error',
  119: 'GSP RPC timeout',
  120: 'GSP error',
};

export function xidClass(code: number): XidClass {
  if (HARDWARE.has(code)) return 'hardware';
  if (SOFTWARE.has(code)) return 'software';
  if (SECONDARY.has(code)) return 'secondary';
  return 'unknown';
}

export function xidMeaning(code: number): string | null {
  return MEANING[code] ?? null;
}
