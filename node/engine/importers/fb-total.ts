// DCGM has no "total memory" field in its default set: the total is FB_USED + FB_FREE (+ FB_RESERVED,
// newer exporters) of one GPU at one time. Collects the three per GPU and scrape, and answers the sums.
import type { Labels } from '../signals/canonical';
import { MIB } from '../signals/canonical';

type Field = 'gpu.mem.used' | 'gpu.mem.free' | 'gpu.mem.reserved';

export const FB_TOTAL_METRIC = 'DCGM_FI_DEV_FB_USED+FB_FREE+FB_RESERVED';
const FLUSH_AT = 10_000;

export function isFbField(name: string, metric: string): name is Field {
  return /^DCGM_FI_DEV_FB_/i.test(metric) && (name === 'gpu.mem.used' || name === 'gpu.mem.free' || name === 'gpu.mem.reserved');
}

/** One time's parts in FbGpu.parts: the time, the three fields, and which of them came (USED | FREE | RESERVED). */
const STRIDE = 5;
const USED = 1;
const FREE = 2;
const RESERVED = 4;

/**
 * One GPU's parts since the last flush, a time per STRIDE numbers in the order the times first came. Its
 * importer asks for it once per series (gpu()) and hands it back with each value: looking the GPU up by
 * its labels' key, the time in a map and an object per time cost a tenth of a wide scrape's parse. Times
 * mostly come in order, each for all the GPU's fields one after another: the last time's place is at
 * hand, a time past the latest is new, and only an earlier one is looked up (in a map made the first time
 * one comes).
 */
export interface FbGpu {
  readonly labels: Labels;
  readonly labelsKey: string;
  /** The emitter's series for the GPU's total (-1 until it makes it). */
  series: number;
  /** The flush window its parts belong to (FbTotals.window while it holds any). */
  window: number;
  parts: number[];
  /** Where the time written last starts in `parts`, and the latest time of all. */
  last: number;
  latest: number;
  /** Places by time, once an earlier time came in this window. */
  byTs: Map<number, number> | null;
}

export class FbTotals {
  /** GPUs by their labels' key (the same string for every line of that GPU). */
  private readonly gpus = new Map<string, FbGpu>();
  /** The GPUs with parts since the last flush, in the order their first part came. */
  private order: FbGpu[] = [];
  private window = 1;
  private size = 0;

  /** `emit` gets the GPU (its labels are without `metric`: add FB_TOTAL_METRIC when making its series). */
  constructor(private readonly emit: (gpu: FbGpu, ts: number, bytes: number) => void) {}

  /** The GPU of `labels` (canonical, without `metric`), for add(). */
  gpu(labels: Labels, labelsKey: string): FbGpu {
    let g = this.gpus.get(labelsKey);
    if (!g) this.gpus.set(labelsKey, (g = { labels, labelsKey, series: -1, window: 0, parts: [], last: -1, latest: -Infinity, byTs: null }));
    return g;
  }

  /** `mib`: the raw DCGM value. */
  add(field: Field, g: FbGpu, ts: number, mib: number): void {
    if (g.window !== this.window) this.open(g);
    const p = g.parts;
    let i = g.last;
    if (i < 0 || p[i] !== ts) {
      i = ts > g.latest ? -1 : this.earlier(g, ts);
      if (i < 0) {
        if (this.size >= FLUSH_AT) {
          this.flush();
          this.open(g);
        }
        i = p.length;
        p.push(ts, 0, 0, 0, 0);
        g.byTs?.set(ts, i);
        if (ts > g.latest) g.latest = ts;
        this.size++;
      }
      g.last = i;
    }
    if (field === 'gpu.mem.used') {
      p[i + 1] = mib;
      p[i + 4] |= USED;
    } else if (field === 'gpu.mem.free') {
      p[i + 2] = mib;
      p[i + 4] |= FREE;
    } else {
      p[i + 3] = mib;
      p[i + 4] |= RESERVED;
    }
  }

  /** The place of a time not after the GPU's latest, if it came in this window, else -1. */
  private earlier(g: FbGpu, ts: number): number {
    if (g.byTs === null) {
      g.byTs = new Map();
      for (let i = 0; i < g.parts.length; i += STRIDE) g.byTs.set(g.parts[i], i);
    }
    return g.byTs.get(ts) ?? -1;
  }

  /** `g`'s first part since the last flush (which emptied it): it joins this window's GPUs. */
  private open(g: FbGpu): void {
    g.window = this.window;
    this.order.push(g);
  }

  /** Emits the totals, GPU by GPU, each in the order its times came. */
  flush(): void {
    for (const g of this.order) {
      const p = g.parts;
      for (let i = 0; i < p.length; i += STRIDE) {
        const has = p[i + 4];
        if ((has & (USED | FREE)) !== (USED | FREE)) continue;
        this.emit(g, p[i], (p[i + 1] + p[i + 2] + (has & RESERVED ? p[i + 3] : 0)) * MIB);
      }
      p.length = 0;
      g.last = -1;
      g.latest = -Infinity;
      g.byTs = null;
    }
    this.order = [];
    this.window++;
    this.size = 0;
  }
}
