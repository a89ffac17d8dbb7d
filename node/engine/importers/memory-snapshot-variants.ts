// Older PyTorch memory snapshots, for memory-snapshot.ts: what they lack and how it is made up, each
// guess said in a warning.
//   - Trace entries without `time_us` (torch ≤ 2.1): placed in their order, 1 µs apart, the last at the
//     bundle's time (else the file's mtime) — never at 1970, which dragged a whole bundle's year-less
//     logs back 56 years. An entry without a time among timed ones takes the time before it.
//   - Blocks without `address` (torch 2.0, and its `history` entries): the segment's address plus the
//     sizes of the blocks before it, as PyTorch's own viewer computes them.
//   - A snapshot with segments but no trace: torch.allocated / torch.reserved at dump time only (the
//     trace's last time, else the anchor above).
import type { PyDict, PyValue } from './pickle';
import type { TraceColumns } from './memory-snapshot-trace';
import { isDict } from './pickle';
import { LogClock } from './log-time';
import { toHexAddr } from './hex-address';
import type { ImportContext } from './types';
import { unitsToNs } from './ns-time';

const num = (v: PyValue | undefined): number => (typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : NaN);

/**
 * An entry's time_us as whole µs, NaN when it has none, or one that is no time (1e308, a 40-digit LONG: past
 * 2^63 ns). The double is the one whose BigInt × 1000 is the row's ns: every entry's time is kept as a number
 * and only the times written as rows become BigInts (two BigInts an entry, made and thrown away, were a
 * tenth of a 1 M-entry snapshot's import, most of it in the scavenger).
 */
export function usOf(v: PyValue | undefined): number {
  const x = num(v);
  if (!Number.isFinite(x)) return NaN;
  const us = Math.round(x);
  // Below 2^53 µs the ns are below 2^63: in range without asking.
  if (Math.abs(us) <= 2 ** 53) return us;
  return unitsToNs(x, 1000n) === null ? NaN : us;
}

/** µs (as usOf gives them) in ns, as the store keeps them. */
export const usToNs = (us: number): bigint => BigInt(us) * 1000n;

/** The times of one snapshot's trace entries, and its dump time. */
export class SnapshotTimes {
  private anchorUs: number | null = null;
  private untimed = 0;
  private lastUs = -Infinity;
  /** Entries whose time_us is there but no time, and the key of the first. */
  private badTimes = 0;
  private firstBad = '';
  private readonly clock: LogClock;

  constructor(private readonly ctx: ImportContext) {
    this.clock = new LogClock(ctx);
  }

  /** The instant guesses are placed at (bundle time, else mtime, else now), in µs, warned once with `what`. */
  private anchor(what: string): number {
    this.anchorUs ??= Math.round(this.clock.anchor(what)) * 1000;
    return this.anchorUs;
  }

  /**
   * The µs of each entry of one device's trace, in order (usToNs gives a row's ns). Entries with `time_us`
   * keep it; a trace with none ends at the anchor, 1 µs apart; a lone entry without one takes the time before it.
   */
  device(trace: TraceColumns, device = 0): Float64Array {
    const n = trace.length;
    const out = trace.us.slice(0, n);
    if (trace.badTimes > 0 && this.badTimes === 0) this.firstBad = `device_traces[${device}][${trace.firstBad}].time_us`;
    this.badTimes += trace.badTimes;
    let timed = 0;
    for (let i = 0; i < n; i++) if (out[i] === out[i]) timed++;
    if (timed === 0 && n > 0) {
      this.untimed += n;
      const end = this.anchor(`memory snapshot trace entries carry no time_us (torch ≤ 2.1): placed in their order, 1 µs apart; the last`);
      for (let i = 0; i < n; i++) out[i] = end - (n - 1 - i);
    } else if (timed < n) {
      // Entries before the first timed one take its time.
      let prev = this.firstTimed(out);
      for (let i = 0; i < n; i++) {
        if (out[i] === out[i]) prev = out[i];
        else {
          this.untimed++;
          out[i] = prev;
        }
      }
    }
    for (let i = 0; i < n; i++) if (out[i] > this.lastUs) this.lastUs = out[i];
    return out;
  }

  private firstTimed(us: Float64Array): number {
    for (const t of us) if (t === t) return t;
    return NaN;
  }

  /** When the snapshot was taken, in µs: its trace's last time, else (no trace at all) the anchor, warned. */
  dumpUs(): number {
    return this.lastUs > -Infinity ? this.lastUs : this.anchor('the memory snapshot has no trace (segments only): its totals are known at dump time, and the dump');
  }

  /** Says, once, that some entries among timed ones had no time of their own. */
  finish(): void {
    if (this.badTimes > 0) this.ctx.warn(`${this.badTimes} memory snapshot trace entries have a time_us that is no time (past 2^63 ns): taken as untimed`, { key: this.firstBad });
    if (this.untimed > 0 && this.anchorUs === null) this.ctx.warn(`${this.untimed} memory snapshot trace entries carry no time_us: each took the time of the entry before it`);
  }
}

/** Per block of a segment, its address: its own, else the segment's plus the sizes of the blocks before it. */
export function blockAddresses(seg: PyDict, blocks: PyValue[]): { addrs: string[]; computed: number } {
  const addrs: string[] = [];
  let computed = 0;
  const base = seg.address;
  let offset = 0n;
  const baseBig = typeof base === 'bigint' ? base : typeof base === 'number' && Number.isSafeInteger(base) ? BigInt(base) : null;
  for (const b of blocks) {
    const d = isDict(b) ? b : null;
    const own = d ? d.address : undefined;
    if (own !== undefined && own !== null) addrs.push(toHexAddr(own));
    else if (baseBig !== null) {
      addrs.push(`0x${(baseBig + offset).toString(16)}`);
      computed++;
    } else addrs.push(toHexAddr(undefined));
    const size = d ? num(d.size) : NaN;
    if (Number.isFinite(size) && size > 0) offset += BigInt(Math.round(size));
  }
  return { addrs, computed };
}

/** A block's frames: its own (torch ≥ 2.1), else its last history entry's (torch 2.0). */
export function blockFrames(b: PyDict): PyValue | undefined {
  if (b.frames !== undefined) return b.frames;
  const h = b.history;
  if (Array.isArray(h) && h.length) {
    const last = h[h.length - 1];
    if (isDict(last)) return last.frames;
  }
  return undefined;
}
