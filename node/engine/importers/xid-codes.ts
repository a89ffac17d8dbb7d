// What an NVIDIA Xid code means and whose fault it usually is (NVIDIA's Xid catalogue, condensed):
// 'hardware' — the GPU, its memory, NVLink or the bus; 'software' — usually the application or driver
// state (illegal address, bad push buffer); 'secondary' — cleanup after an earlier error.
import type { Severity } from '../../../common/contract/types';

export type XidClass = 'hardware' | 'software' | 'secondary';

interface XidInfo {
  meaning: string;
  class: XidClass;
  severity: Severity;
}

const hw = (meaning: string, severity: Severity = 'critical'): XidInfo => ({ meaning, class: 'hardware', severity });
const sw = (meaning: string): XidInfo => ({ meaning, class: 'software', severity: 'error' });

const XID: Record<number, XidInfo> = {
  8: sw('GPU stopped processing (driver timeout)'),
  13: sw('Graphics engine exception (usually the application)'),
  31: sw('GPU memory page fault (MMU fault)'),
  32: sw('Invalid or corrupted push buffer stream'),
  38: hw('Driver firmware error', 'error'),
  43: sw('GPU stopped processing'),
  45: { meaning: 'Preemptive cleanup, due to previous errors', class: 'secondary', severity: 'warning' },
  48: hw('Double-bit ECC error'),
  61: hw('Internal micro-controller breakpoint/warning', 'error'),
  62: hw('Internal micro-controller halt'),
  63: hw('ECC page retirement or row-remap recording event', 'warning'),
  64: hw('ECC page retirement or row-remap recording failure'),
  68: sw('Video processor exception'),
  69: sw('Graphics engine class error'),
  74: hw('NVLink error'),
  79: hw('GPU has fallen off the bus'),
  92: hw('High single-bit ECC error rate', 'warning'),
  94: hw('Contained ECC error', 'error'),
  95: hw('Uncontained ECC error'),
  109: sw('Context switch timeout'),
  119: hw('GSP RPC timeout'),
  120: hw('GSP error'),
  121: hw('C2C link corrected error', 'warning'),
  140: hw('Unrecovered ECC error'),
  143: hw('GPU initialization failure'),
  144: hw('NVLink SAW error', 'error'),
  145: hw('NVLink RLW error', 'error'),
  146: hw('NVLink TLW error', 'error'),
  147: hw('NVLink TREX error', 'error'),
  148: hw('NVLink NVLPW_CTRL error', 'error'),
  149: hw('NVLink NETIR error'),
  150: hw('NVLink MSE error', 'error'),
  154: { meaning: 'GPU recovery action changed', class: 'secondary', severity: 'warning' },
};

/** Known codes answer their entry; unknown ones count as hardware errors, the cautious reading. */
export function xidInfo(code: number): XidInfo & { known: boolean } {
  const known = XID[code];
  return known ? { ...known, known: true } : { meaning: `Xid ${code}`, class: 'hardware', severity: 'error', known: false };
}
