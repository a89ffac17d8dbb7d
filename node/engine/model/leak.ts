// Memory growth over the long span (docs/four-quadrant-model.md §8): ramp or staircase detection on
// torch.allocated (else the worst GPU's used memory), slope in bytes/min, projected time to OOM, the
// allocation sites still alive, and fragmentation from reserved − allocated and OOM texts.
import type { LeakReport, LeakSite } from '../../../common/contract/diagnosis';
import type { AllocationSite, EventRow } from '../../../common/contract/types';
import { max, median } from './baseline';
import type { Frame } from './frame';
import { rampStart } from './change-point';
import { monotonicity, olsSlope } from './trend';
import { SIG } from '../../../common/names';

export type GrowthShape = 'ramp' | 'staircase' | 'sawtooth' | 'flat';

export interface MemoryTrend {
  signal: typeof SIG.torchAllocated | typeof SIG.gpuMemUsed;
  /** Evidence ref: the canonical name with the GPU's labels. */
  ref: string;
  /** Where the growth starts (the ramp's start when it begins mid-incident). */
  start_ms: number;
  end_ms: number;
  slope_bytes_per_min: number;
  mono: number;
  /** Last level − baseline level: growth beyond the preallocated budget. */
  growth_bytes: number;
  shape: GrowthShape;
  /** Slope over the last third ÷ the whole span's slope: near 0 when growth stopped after warm-up. */
  late_slope_ratio: number;
  capacity_bytes: number | null;
  last_bytes: number;
  projected_oom_ms: number | null;
  /** The per-window values the trend was read from. */
  values: ArrayLike<number>;
}

const MAX_POINTS = 2000;

/** Keeps at most MAX_POINTS finite points, evenly spaced, so Spearman stays cheap on a day at 1 s. */
function thin(t: ArrayLike<number>, v: ArrayLike<number>): { t: number[]; v: number[] } {
  const ti: number[] = [];
  const vi: number[] = [];
  for (let i = 0; i < v.length; i++) if (Number.isFinite(v[i])) {
    ti.push(t[i]);
    vi.push(v[i]);
  }
  if (vi.length <= MAX_POINTS) return { t: ti, v: vi };
  const step = vi.length / MAX_POINTS;
  const to: number[] = [];
  const vo: number[] = [];
  for (let k = 0; k < MAX_POINTS; k++) {
    const i = Math.floor(k * step);
    to.push(ti[i]);
    vo.push(vi[i]);
  }
  return { t: to, v: vo };
}

/** Staircase when a tenth of the moves carry most of the growth; sawtooth when drops give most of it back. */
export function growthShape(v: number[]): GrowthShape {
  if (v.length < 3) return 'flat';
  const d: number[] = [];
  for (let i = 1; i < v.length; i++) d.push(v[i] - v[i - 1]);
  const up = d.filter((x) => x > 0).reduce((a, b) => a + b, 0);
  const down = -d.filter((x) => x < 0).reduce((a, b) => a + b, 0);
  const net = v[v.length - 1] - v[0];
  if (up <= 0 || net <= 0) return down > 0 && up > 0 ? 'sawtooth' : 'flat';
  if (down > 0.5 * up) return 'sawtooth';
  const top = [...d].sort((a, b) => b - a).slice(0, Math.max(1, Math.ceil(d.length / 10)));
  return top.reduce((a, b) => a + Math.max(0, b), 0) >= 0.8 * up ? 'staircase' : 'ramp';
}

export function memoryTrend(
  signal: MemoryTrend['signal'],
  ref: string,
  t: ArrayLike<number>,
  v: ArrayLike<number>,
  baselineLevel: number,
  capacity: number | null,
): MemoryTrend | null {
  const p = thin(t, v);
  if (p.v.length < 3) return null;
  // A leak that starts mid-incident: measure the ramp, not the ramp averaged with the flat part before it.
  const hinge = rampStart(p.t, p.v);
  const useRamp = hinge !== null && hinge.slope > 0 && hinge.relative_error < 0.5;
  const from = useRamp ? hinge.index : 0;
  const slopePerMs = useRamp ? hinge.slope : olsSlope(p.t, p.v);
  // "Late" is the last third of the growth itself: a ramp at the end of a long flat span is all late.
  const third = from + Math.floor(((p.v.length - from) * 2) / 3);
  const lateSlope = p.v.length - third >= 2 ? olsSlope(p.t.slice(third), p.v.slice(third)) : slopePerMs;
  const last = p.v[p.v.length - 1];
  const tLast = p.t[p.t.length - 1];
  const slope = slopePerMs * 60_000;
  let projected: number | null = null;
  if (capacity !== null && slopePerMs > 0 && last < capacity) projected = Math.round(tLast + (capacity - last) / slopePerMs);
  return {
    signal,
    ref,
    start_ms: p.t[from],
    end_ms: tLast,
    slope_bytes_per_min: slope,
    // Monotone from where the growth starts: a flat stretch before a ramp is not evidence against it.
    mono: p.v.length - from >= 3 ? monotonicity(p.t.slice(from), p.v.slice(from)) : monotonicity(p.t, p.v),
    growth_bytes: last - (Number.isFinite(baselineLevel) ? baselineLevel : p.v[0]),
    shape: growthShape(p.v),
    late_slope_ratio: slopePerMs > 0 ? lateSlope / slopePerMs : NaN,
    capacity_bytes: capacity,
    last_bytes: last,
    projected_oom_ms: projected,
    values: v,
  };
}

const labelText = (labels: Record<string, string>) => {
  const e = Object.entries(labels).filter(([k]) => k === 'gpu' || k === 'device' || k === 'host');
  return e.length ? `{${e.map(([k, x]) => `${k}="${x}"`).join(',')}}` : '';
};

/** A reading this far below the loaded level (and at least UNLOADED_BYTES below it) is a GPU not (yet) loaded. */
const LOADED_SHARE = 0.9;
const UNLOADED_BYTES = 2 ** 30;
/** Growth of a life that counts (bytes): below it every life is flat and the first one is read. */
const LIFE_GROWTH_MARGIN = 256 * 2 ** 20;

/**
 * The readings of one life of the process, the one the leak rule reads. Lives end where memory is let go:
 * the first CUDA OOM (the process dies and its memory with it; the window holding it averages in the freed
 * GPU and goes with it), a reading that falls by more than half from the one before, or one below the
 * loaded level (LOADED_SHARE of the baseline's level: a process that exits and reloads within half a
 * minute never falls by half in windows that overlap by half, 64 → 56 → 38 → 46 → 64 GiB). A life begins
 * at its first loaded reading: the climb from an empty GPU to the preallocated plateau (weights, then the
 * KV pool) is start-up, not growth, and left in it hides a later ramp.
 * With an OOM known, the life that ran into it is read (a clean restart an hour before the leak began
 * would otherwise end the reading before the ramp). Without one, the first life that grew is read (at
 * least half as far as the one that grew most): a leak that ended in an exit no log recorded sits between a
 * clean restart before it and the reload after it, where neither flat life says anything of it, and a leak
 * that resumed after its restart is dated by its first life.
 */
function lifeRead(t: ArrayLike<number>, v: Float64Array, oomMs: number | null, W: number, level: number): Float64Array {
  const loaded = (x: number) => !(level > 0) || x >= LOADED_SHARE * level || level - x < UNLOADED_BYTES;
  let end = v.length;
  // A window that holds the OOM averages in the freed GPU: the ramp ends with the window before it.
  if (oomMs !== null) for (let i = 0; i < v.length; i++) if (t[i] + W > oomMs) {
    end = i;
    break;
  }
  const lives: [number, number][] = [];
  let from = -1;
  let prev = NaN;
  const close = (at: number) => {
    // The windows before the fall that already average in the emptied GPU (windows overlap by half: the
    // one holding the exit read 85 GB → 42 GB and made a 14 GB ramp a 29 GB fall) are not part of the
    // life either: each one that fell by more than a tenth from the one before goes with it.
    let cut = at;
    for (let j = at - 1, k = j - 1; j > from; j = k, k = j - 1) {
      while (k >= from && !Number.isFinite(v[k])) k--;
      if (k < from || !Number.isFinite(v[j]) || !(v[j] < 0.9 * v[k])) break;
      cut = j;
    }
    if (cut > from) lives.push([from, cut]);
    from = -1;
  };
  for (let i = 0; i < end; i++) {
    const x = v[i];
    if (!Number.isFinite(x)) continue;
    if (from >= 0 && ((prev > 0 && x < 0.5 * prev) || !loaded(x))) close(i);
    if (from < 0 && loaded(x)) from = i;
    prev = x;
  }
  if (from >= 0) lives.push([from, end]);
  if (!lives.length) return new Float64Array(v.length).fill(NaN);
  let pick = lives[lives.length - 1];
  if (oomMs === null) {
    const growth = ([a, b]: [number, number]) => {
      let k = b - 1;
      while (k >= a && !Number.isFinite(v[k])) k--;
      return k < a ? -Infinity : v[k] - (level > 0 ? level : v[a]);
    };
    const most = Math.max(...lives.map(growth));
    pick = most < LIFE_GROWTH_MARGIN ? lives[0] : lives.find((l) => growth(l) >= 0.5 * most)!;
  }
  if (pick[0] === 0 && pick[1] === v.length) return v;
  const out = new Float64Array(v.length).fill(NaN);
  out.set(v.subarray(pick[0], pick[1]), pick[0]);
  return out;
}

/** The trend the leak rule reads: allocated bytes where PyTorch reports them, else the fullest GPU's used memory. */
export function pickMemoryTrend(f: Frame, baseline: [number, number], ooms: EventRow[]): MemoryTrend | null {
  const firstOom = ooms.length ? Math.min(...ooms.map((e) => e.ts_ms)) : null;
  const lifeOf = (v: Float64Array, level: number) => lifeRead(f.t, v, firstOom, f.grid.W, level);
  const capFromOom = max(ooms.map((e) => Number(e.attrs.capacity_bytes)).filter(Number.isFinite));
  const totals = f.gpus.map((g) => max(g.memTotal)).filter(Number.isFinite);
  const cap = Number.isFinite(capFromOom) ? capFromOom : totals.length ? max(totals) : null;
  if (f.torchAlloc.some(Number.isFinite)) {
    const level = median(f.torchAlloc.subarray(baseline[0], baseline[1] + 1));
    const tr = memoryTrend(SIG.torchAllocated, SIG.torchAllocated, f.t, lifeOf(f.torchAlloc, level), level, cap);
    // A couple of readings (a snapshot's summary, one log line) make no trend: the GPU's own series then speaks.
    if (tr) return tr;
  }
  let worst: MemoryTrend | null = null;
  for (const g of f.gpus) {
    if (!g.memUsed.some(Number.isFinite)) continue;
    const total = max(g.memTotal);
    const level = median(g.memUsed.subarray(baseline[0], baseline[1] + 1));
    const tr = memoryTrend(SIG.gpuMemUsed, `gpu.mem.used${labelText(g.labels)}`, f.t, lifeOf(g.memUsed, level), level, Number.isFinite(total) ? total : null);
    if (tr && (!worst || tr.growth_bytes > worst.growth_bytes)) worst = tr;
  }
  return worst;
}

export function leakSites(sites: AllocationSite[], limit = 10): LeakSite[] {
  return sites.slice(0, limit).map((s) => ({ frames: s.frames.slice(0, 8), live_bytes: s.live_bytes, allocs: s.allocs }));
}

/** The leak section of the diagnosis: present when memory grows or allocations were never freed. */
export function leakReport(trend: MemoryTrend | null, sites: AllocationSite[], isLeak: boolean): LeakReport | null {
  if (!isLeak && !sites.length) return null;
  return {
    slope_bytes_per_min: trend && isLeak ? Math.round(trend.slope_bytes_per_min) : 0,
    projected_oom_ms: trend && isLeak ? trend.projected_oom_ms : null,
    sites: leakSites(sites),
  };
}

export interface Fragmentation {
  /** (reserved − allocated) / reserved at the reserved peak. */
  frag: number;
  gap_bytes: number;
  reserved_bytes: number;
  at_ms: number;
  /**
   * From the largest OOM's text: reserved but unallocated, the capacity, and the memory other processes on the
   * GPU held (its "Process N has … in use" sentences; this process's own memory outside the allocator — CUDA
   * context, NCCL buffers, graphs — is not theirs).
   */
  oom_unallocated_bytes: number | null;
  oom_capacity_bytes: number | null;
  oom_others_bytes: number | null;
  /** The allocation the OOM failed on: stranded memory larger than it means the free space was there, in pieces. */
  oom_tried_bytes: number | null;
  oom_event: EventRow | null;
}

export function fragmentation(f: Frame, ooms: EventRow[]): Fragmentation | null {
  let best = -1;
  for (let i = 0; i < f.grid.n; i++) if (Number.isFinite(f.torchResv[i]) && Number.isFinite(f.torchAlloc[i]) && (best < 0 || f.torchResv[i] > f.torchResv[best])) best = i;
  const oom = ooms.filter((e) => Number.isFinite(Number(e.attrs.reserved_unallocated_bytes))).sort((a, b) => Number(b.attrs.reserved_unallocated_bytes) - Number(a.attrs.reserved_unallocated_bytes))[0] ?? null;
  if (best < 0 && !oom) return null;
  const num = (x: unknown) => (Number.isFinite(Number(x)) && x !== null && x !== undefined ? Number(x) : null);
  const resv = best >= 0 ? f.torchResv[best] : (num(oom?.attrs.reserved_unallocated_bytes) ?? 0) + (num(oom?.attrs.allocated_bytes) ?? 0);
  const gap = best >= 0 ? f.torchResv[best] - f.torchAlloc[best] : (num(oom?.attrs.reserved_unallocated_bytes) ?? 0);
  const unalloc = num(oom?.attrs.reserved_unallocated_bytes);
  return {
    frag: resv > 0 ? gap / resv : 0,
    gap_bytes: gap,
    reserved_bytes: resv,
    at_ms: best >= 0 ? f.t[best] : (oom?.ts_ms ?? 0),
    oom_unallocated_bytes: unalloc,
    oom_capacity_bytes: num(oom?.attrs.capacity_bytes),
    oom_others_bytes: num(oom?.attrs.other_processes_bytes),
    oom_tried_bytes: num(oom?.attrs.tried_bytes),
    oom_event: oom,
  };
}
