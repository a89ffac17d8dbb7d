// DCGM has no "total memory" field in its default set: the total is FB_USED + FB_FREE (+ FB_RESERVED,
// newer exporters) of one GPU at one time. Collects the three per GPU and scrape, and answers the sums.
import type { Labels } from '../signals/canonical';
import { MIB } from '../signals/canonical';

type Field = 'gpu.mem.used' | 'gpu.mem.free' | 'gpu.mem.reserved';

interface Parts {
  labels: Labels;
  labelsKey: string;
  ts: number;
  used?: number;
  free?: number;
  reserved?: number;
}

export const FB_TOTAL_METRIC = 'DCGM_FI_DEV_FB_USED+FB_FREE+FB_RESERVED';
const FLUSH_AT = 10_000;

export function isFbField(name: string, metric: string): name is Field {
  return metric.startsWith('DCGM_FI_DEV_FB_') && (name === 'gpu.mem.used' || name === 'gpu.mem.free' || name === 'gpu.mem.reserved');
}

export class FbTotals {
  /** GPU (its labels' key, the same string for every line of that GPU) → time → parts. */
  private readonly parts = new Map<string, Map<number, Parts>>();
  private size = 0;

  /** `emit` gets the GPU's labels without `metric` (add FB_TOTAL_METRIC when making its series). */
  constructor(private readonly emit: (labels: Labels, labelsKey: string, ts: number, bytes: number) => void) {}

  /** `labels`: the canonical labels of the GPU without `metric`; `mib`: the raw DCGM value. */
  add(field: Field, labels: Labels, labelsKey: string, ts: number, mib: number): void {
    let byTs = this.parts.get(labelsKey);
    if (!byTs) this.parts.set(labelsKey, (byTs = new Map()));
    let p = byTs.get(ts);
    if (!p) {
      if (this.size >= FLUSH_AT) {
        this.flush();
        this.parts.set(labelsKey, (byTs = new Map()));
      }
      p = { labels, labelsKey, ts };
      byTs.set(ts, p);
      this.size++;
    }
    if (field === 'gpu.mem.used') p.used = mib;
    else if (field === 'gpu.mem.free') p.free = mib;
    else p.reserved = mib;
  }

  /** Emits the totals, GPU by GPU in time order within each. */
  flush(): void {
    for (const byTs of this.parts.values()) {
      for (const p of byTs.values()) {
        if (p.used === undefined || p.free === undefined) continue;
        this.emit(p.labels, p.labelsKey, p.ts, (p.used + p.free + (p.reserved ?? 0)) * MIB);
      }
    }
    this.parts.clear();
    this.size = 0;
  }
}
