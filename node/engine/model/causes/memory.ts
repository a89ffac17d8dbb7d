// Memory causes: a GPU memory leak (growth beyond the preallocated budget), allocator fragmentation
// (reserved ≫ allocated), an OOM crash loop, and a host memory leak.
import type { EventRow } from '../../../../common/contract/types';
import { max, median } from '../baseline';
import { memoryTrend, type MemoryTrend } from '../leak';
import { olsSlope } from '../trend';
import {
  cond, eventEvidence, events, fmt, fmtBytes, medB, missingInputs, notAssessable, rE, seriesEvidence, slice,
  type CauseContext, type Rule,
} from './context';
import { EV, SIG } from '../../../../common/names';

const GiB = 2 ** 30;

export const ooms = (c: CauseContext): EventRow[] => events(c, EV.oom);

/** The oom events that were the host kernel's OOM killer rather than CUDA running out. */
const isHostOom = (e: EventRow) => e.kind === EV.hostOomKill || e.attrs.host === true || /Out of memory: Kill|oom-kill|OOMKilled/i.test(e.text);

export const gpuMemoryLeak: Rule = (c) => {
  const missing = missingInputs(c.f, [[SIG.torchAllocated, SIG.gpuMemUsed]]);
  if (missing.length) return notAssessable('gpu_memory_leak', missing);
  const tr = c.trend;
  if (!tr) return notAssessable('gpu_memory_leak', ['torch.allocated or gpu.mem.used with ≥ 3 windows']);
  const min = c.cfg.causes.leak_min_growth_bytes;
  const oomAfter = ooms(c).filter((e) => e.ts_ms >= tr.start_ms && !isHostOom(e));
  const fragInstead = (tr.signal === SIG.torchAllocated && reservedOutgrowsAllocated(c)) || usedGrowthIsStranded(c, tr);
  // What load explains: memory regressed on the running batch; the leak is what grows beyond that. A
  // batch that grew with traffic lifts activations and allocated bytes with it, and a few arrival spikes
  // must not hide a monotone climb into an OOM (testing "batch peaks flat" did).
  const resid = loadResidual(c, tr.values, tr.start_ms);
  const rtr = resid ? memoryTrend(tr.signal, tr.ref, c.f.t, resid.values, median(slice(resid.values, c.base)), null) : null;
  const residMono = rtr?.mono ?? tr.mono;
  const residGrowth = rtr?.growth_bytes ?? tr.growth_bytes;
  const require = [
    cond(`slope(${tr.signal} beyond the baseline level) > 0 bytes/min`, tr.slope_bytes_per_min, tr.slope_bytes_per_min > 0),
    cond(`mono(${tr.signal} beyond what the running batch explains) ≥ ${c.cfg.causes.leak_mono}`, residMono, residMono >= c.cfg.causes.leak_mono, c.cfg.causes.leak_mono),
    cond(`growth beyond the baseline and the load ≥ ${fmtBytes(min)}`, residGrowth, residGrowth >= min, min),
  ];
  const projected = tr.projected_oom_ms;
  return {
    id: 'gpu_memory_leak',
    missing: [],
    require,
    support: [
      cond('memory explained by the running batch (share of variance)', resid?.r2 ?? null, resid !== null && resid.r2 < 0.5),
      cond('growth shape', tr.shape, tr.shape === 'ramp' || tr.shape === 'staircase'),
      cond('projected OOM (ms since epoch)', projected, projected !== null),
      cond('OOM after the growth began', oomAfter.length, oomAfter.length > 0),
      cond('allocation sites alive at the end', c.sig.sites.length, c.sig.sites.length > 0),
    ],
    veto: [
      cond('reserved grows with allocated flat, or the OOM text calls the growth reserved-but-unallocated (→ allocator_fragmentation)', fragInstead, fragInstead),
      cond('growth stopped after warm-up (late slope ÷ slope < 0.1)', tr.late_slope_ratio, tr.late_slope_ratio < 0.1),
    ],
    evidence: [
      seriesEvidence(c, tr.ref, `${tr.shape}: ${fmtBytes(tr.slope_bytes_per_min)}/min, +${fmtBytes(tr.growth_bytes)} over the baseline`, tr.start_ms, tr.end_ms),
      ...oomAfter.slice(0, 3).map((e) => eventEvidence(e)),
      ...c.sig.sites.slice(0, 3).filter((s) => s.stack_id !== null).map((s) => ({ kind: 'allocation' as const, ref: String(s.stack_id), start_ms: tr.start_ms, end_ms: tr.end_ms, text: `${fmtBytes(s.live_bytes)} live in ${s.allocs} allocations at ${s.frames[0] ?? '?'}` })),
    ],
    onset_ms: tr.start_ms,
    endsInOom: oomAfter.length > 0,
  };
};

/**
 * Memory minus what the running batch explains, or null without a load signal that varies. The batch's
 * effect is learnt where memory did not grow (before `growthFrom`, else the whole span): fitted over the
 * growth too, a leak that coincides with a queue building up (a leaking engine slows, running climbs)
 * would be taken for load and subtracted away. `r2` is the share of memory's variance the batch explains.
 */
function loadResidual(c: CauseContext, mem: ArrayLike<number>, growthFrom: number): { values: Float64Array; r2: number } | null {
  const load = c.f.run;
  const before = (i: number) => c.f.t[i] < growthFrom;
  let fitAll = 0;
  for (let i = 0; i < mem.length; i++) if (before(i) && Number.isFinite(mem[i]) && Number.isFinite(load[i])) fitAll++;
  const inFit = fitAll >= 10 ? before : () => true;
  let n = 0;
  let sx = 0;
  let sy = 0;
  for (let i = 0; i < mem.length; i++) if (inFit(i) && Number.isFinite(mem[i]) && Number.isFinite(load[i])) {
    n++;
    sx += load[i];
    sy += mem[i];
  }
  if (n < 10) return null;
  const mx = sx / n;
  const my = sy / n;
  let sxx = 0;
  let sxy = 0;
  let syy = 0;
  for (let i = 0; i < mem.length; i++) if (inFit(i) && Number.isFinite(mem[i]) && Number.isFinite(load[i])) {
    sxx += (load[i] - mx) ** 2;
    sxy += (load[i] - mx) * (mem[i] - my);
    syy += (mem[i] - my) ** 2;
  }
  if (!(sxx > 0)) return null;
  // Only a positive dependence is load: more running requests hold more memory.
  const beta = Math.max(0, sxy / sxx);
  const values = new Float64Array(mem.length).fill(NaN);
  for (let i = 0; i < mem.length; i++) if (Number.isFinite(mem[i])) values[i] = mem[i] - beta * ((Number.isFinite(load[i]) ? load[i] : mx) - mx);
  return { values, r2: syy > 0 ? (beta * sxy) / syy : 0 };
}

/** torch.reserved's trend (reported under gpu.mem.used's signal kind: bytes the GPU holds). */
function reservedTrend(c: CauseContext): MemoryTrend | null {
  return c.f.torchResv.some(Number.isFinite) ? memoryTrend(SIG.gpuMemUsed, SIG.torchReserved, c.f.t, c.f.torchResv, NaN, null) : null;
}

/**
 * "Reserved grows with allocated flat": reserved climbs steadily while allocated is either not monotone
 * or grew by a small part of reserved's growth. Small tensors that pin fragmented segments keep
 * allocated creeping up by a few MiB per segment; what sets fragmentation apart is that reserved grows
 * many times more than that.
 */
function reservedOutgrowsAllocated(c: CauseContext): boolean {
  const resv = reservedTrend(c);
  const tr = c.trend;
  if (!resv || resv.mono < c.cfg.causes.leak_mono || !(resv.growth_bytes > 0)) return false;
  if (!tr || tr.signal !== SIG.torchAllocated) return false;
  return tr.mono < 0.5 || tr.growth_bytes <= ALLOC_SHARE_OF_RESERVED_GROWTH * resv.growth_bytes;
}

/**
 * Seen from the GPU alone (used memory, no allocator series), a caching allocator that strands blocks
 * grows exactly like a leak. The OOM text tells them apart: when most of the growth is "reserved by
 * PyTorch but unallocated", the growth was stranded blocks, not live tensors.
 */
function usedGrowthIsStranded(c: CauseContext, tr: MemoryTrend): boolean {
  const unalloc = c.frag?.oom_unallocated_bytes ?? null;
  return tr.signal === SIG.gpuMemUsed && unalloc !== null && unalloc >= Math.max(GiB, 0.5 * tr.growth_bytes);
}

/** Allocated growth at most this share of reserved growth still reads as "allocated flat". */
const ALLOC_SHARE_OF_RESERVED_GROWTH = 0.1;

export const allocatorFragmentation: Rule = (c) => {
  const fr = c.frag;
  if (!fr) return notAssessable('allocator_fragmentation', ['torch.reserved and torch.allocated, or an OOM text (events kind oom with reserved_unallocated_bytes)']);
  const cc = c.cfg.causes;
  const totals = c.f.gpus.map((g) => max(g.memTotal)).filter(Number.isFinite);
  const capacity = fr.oom_capacity_bytes ?? (totals.length ? max(totals) : NaN);
  const unalloc = fr.oom_unallocated_bytes;
  // vLLM preallocates its KV pool (and the weights) as allocated tensors: measured over all of reserved,
  // stranded memory is a few percent even when gigabytes of it are stranded. Fragmentation is read
  // above that budget — the lowest allocated level of the baseline — and the OOM text's own figures win.
  const prealloc = slice(c.f.torchAlloc, c.base).some(Number.isFinite) ? Math.min(...Array.from(slice(c.f.torchAlloc, c.base)).filter(Number.isFinite)) : NaN;
  const stranded = unalloc ?? fr.gap_bytes;
  const dynamic = Number.isFinite(prealloc) ? fr.reserved_bytes - prealloc : fr.reserved_bytes;
  const fragAbove = dynamic > 0 ? stranded / dynamic : 0;
  const tried = fr.oom_tried_bytes;
  const wouldHaveFit = unalloc !== null && tried !== null && unalloc >= tried;
  const need = Math.max(GiB, 0.1 * (Number.isFinite(capacity) ? capacity : 0));
  const nearCap = fr.oom_event ? 1 : Number.isFinite(capacity) ? fr.reserved_bytes / capacity : NaN;
  const allocRising = c.trend?.signal === SIG.torchAllocated && c.trend.mono >= cc.leak_mono && c.trend.growth_bytes >= cc.leak_min_growth_bytes && !reservedOutgrowsAllocated(c);
  // The stranded reserve began to build where reserved started to climb, not where it peaked.
  const resv = reservedTrend(c);
  // Without allocator series, the GPU's used memory shows where the stranded reserve began to build.
  const usedTr = c.trend && usedGrowthIsStranded(c, c.trend) && c.trend.mono >= cc.leak_mono ? c.trend : null;
  const onset = resv && resv.mono >= cc.leak_mono && resv.growth_bytes > 0 ? resv.start_ms : usedTr ? usedTr.start_ms : fr.at_ms;
  const ev = fr.oom_event;
  return {
    id: 'allocator_fragmentation',
    missing: [],
    require: [
      cond(
        `stranded ÷ (reserved − preallocated) ≥ ${cc.frag_ratio}, OR the OOM text's reserved-but-unallocated ≥ the failed allocation`,
        `${fmt(fragAbove)}${tried !== null ? `; unallocated ${fmtBytes(unalloc ?? 0)} vs tried ${fmtBytes(tried)}` : ''}`,
        fragAbove >= cc.frag_ratio || wouldHaveFit,
        cc.frag_ratio,
      ),
      cond(`stranded (reserved − allocated) ≥ ${fmtBytes(cc.frag_min_bytes)}`, stranded, stranded >= cc.frag_min_bytes, cc.frag_min_bytes),
      cond('reserved near capacity (an OOM, or reserved ÷ capacity ≥ 0.9)', nearCap, nearCap >= 0.9, 0.9),
      cond('OOM text "reserved but unallocated" ≥ max(1 GiB, 10% of capacity)', unalloc, unalloc !== null && unalloc >= need, need),
    ],
    support: [],
    veto: [
      cond('reserved-but-unallocated < 0.5 GiB in the OOM text (a real shortfall)', unalloc, unalloc !== null && unalloc < 0.5 * GiB, 0.5 * GiB),
      cond('allocated rising (→ gpu_memory_leak)', allocRising, allocRising),
      cond('≥ 1 GiB held outside PyTorch ("Process X has Y in use")', fr.oom_outside_bytes, (fr.oom_outside_bytes ?? 0) >= GiB, GiB),
    ],
    evidence: [
      ...(c.f.have.has(SIG.torchReserved) ? [seriesEvidence(c, SIG.torchReserved, `${fmtBytes(fr.gap_bytes)} reserved but not allocated (${(fragAbove * 100).toFixed(0)}% above the preallocated budget)`, fr.at_ms, fr.at_ms + c.f.grid.W)] : []),
      ...(ev ? [eventEvidence(ev)] : []),
    ],
    onset_ms: onset,
    endsInOom: ooms(c).some((e) => !isHostOom(e)),
  };
};

/** Most restarts inside any window of `windowMs`. */
export function maxInWindow(times: number[], windowMs: number): number {
  const t = [...times].sort((a, b) => a - b);
  let best = 0;
  for (let i = 0, j = 0; i < t.length; i++) {
    while (t[i] - t[j] > windowMs) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
}

export const oomCrashLoop: Rule = (c) => {
  if (!c.f.have.has('events')) return notAssessable('oom_crash_loop', ['events (oom, engine_restart)']);
  const gpuOoms = ooms(c).filter((e) => !isHostOom(e));
  const hostOoms = c.sig.events.filter(isHostOom);
  const restarts = events(c, EV.engineRestart);
  const loop = maxInWindow(restarts.map((e) => e.ts_ms), c.cfg.causes.crash_loop_window_ms);
  const firstOom = gpuOoms[0]?.ts_ms ?? Infinity;
  const xidBefore = events(c, EV.xid).filter((e) => c.cfg.causes.hw_xids.includes(Number(e.attrs.code)) && e.ts_ms <= firstOom);
  return {
    id: 'oom_crash_loop',
    missing: [],
    require: [
      cond('CUDA OOM logged ≥ 1', gpuOoms.length, gpuOoms.length >= 1),
      cond(`≥ ${c.cfg.causes.crash_loop_restarts} restarts in ${c.cfg.causes.crash_loop_window_ms / 60_000} min`, loop, loop >= c.cfg.causes.crash_loop_restarts),
    ],
    support: [],
    veto: [
      cond('OOM-killed by the host kernel (→ host_memory_leak)', hostOoms.length, hostOoms.length > 0 && gpuOoms.length === 0),
      cond('HW Xid before the crash (→ gpu_hardware_fault)', xidBefore.length, xidBefore.length > 0),
    ],
    evidence: [...gpuOoms.slice(0, 3), ...restarts.slice(0, 5)].map((e) => eventEvidence(e)),
    onset_ms: gpuOoms[0]?.ts_ms ?? null,
  };
};

/**
 * RSS per process lifetime: a jump of more than `jump` (a share of the level) between two readings is a
 * new process (a restart loads weights and warms caches at another level; an OOM kill empties it), not
 * growth or release, so the series is cut there into one series per process, oldest first.
 */
function processLifetimes(x: Float64Array, jump: number): Float64Array[] {
  const cuts: number[] = [0];
  let prev = NaN;
  for (let i = 0; i < x.length; i++) {
    if (!Number.isFinite(x[i])) continue;
    if (Number.isFinite(prev) && prev > 0 && Math.abs(x[i] - prev) / prev > jump) cuts.push(i);
    prev = x[i];
  }
  if (cuts.length === 1) return [x];
  return cuts.map((from, k) => {
    const out = new Float64Array(x.length).fill(NaN);
    out.set(x.subarray(from, k + 1 < cuts.length ? cuts[k + 1] : x.length), from);
    return out;
  });
}

export const hostMemoryLeak: Rule = (c) => {
  const missing = missingInputs(c.f, [[SIG.hostRss, SIG.hostSwap, SIG.hostMemAvailable]]);
  if (missing.length) return notAssessable('host_memory_leak', missing);
  // A process's RSS creeps up by allocator caching and fragmentation when nothing is wrong: a leak is a
  // monotone climb that is also large, in bytes and against where it started.
  const cc = c.cfg.causes;
  const rssB = medB(c, c.f.rss);
  const need = Math.max(cc.host_leak_min_bytes, cc.host_leak_min_share * (Number.isFinite(rssB) ? rssB : 0));
  // The leak began in the first process that grew like one (a leak killed by the OOM killer grows again
  // in its successor); without one, the current process is the one to read.
  const lives = processLifetimes(c.f.rss, cc.host_rss_jump).filter((x) => x.some(Number.isFinite));
  const trendOf = (x: Float64Array) => memoryTrend(SIG.gpuMemUsed, SIG.hostRss, c.f.t, x, medB(c, x), null);
  const trends = lives.map((x) => ({ rss: x, tr: trendOf(x) }));
  const grew = trends.find(({ tr: t }) => !!t && t.slope_bytes_per_min > 0 && t.mono >= cc.leak_mono && t.growth_bytes >= need);
  const chosen = grew ?? trends[trends.length - 1] ?? { rss: c.f.rss, tr: null };
  const rss = chosen.rss;
  const tr = chosen.tr;
  // Python servers' RSS drifts up for hours (allocator caching, fragmentation, import-time growth); a leak
  // is growth that began or sped up during the recording: the span's slope at least twice the baseline's.
  const slopeB = olsSlope(slice(c.f.t, c.base), slice(rss, c.base)) * 60_000;
  const after = c.span[1] > c.base[1] ? ([c.base[1] + 1, c.span[1]] as const) : c.span;
  const slopeE = olsSlope(c.f.t.subarray(after[0], after[1] + 1), rss.subarray(after[0], after[1] + 1)) * 60_000;
  const floorB = cc.host_leak_speedup * Math.max(0, Number.isFinite(slopeB) ? slopeB : 0);
  // The span may begin after the growth ended (the incident is the OOM kill that ended it): a ramp that
  // began after the baseline, faster than the baseline's drift, counts as well.
  const rampAfterBase = !!tr && tr.start_ms >= c.f.t[c.base[1]] && tr.slope_bytes_per_min > 0 && tr.slope_bytes_per_min >= floorB;
  const sped = (slopeE > 0 && slopeE >= floorB) || rampAfterBase;
  const rssLeak = !!tr && tr.slope_bytes_per_min > 0 && tr.mono >= cc.leak_mono && tr.growth_bytes >= need && sped;
  const swap = max(c.f.swap);
  const avail = Math.min(...Array.from(c.f.memAvail).filter(Number.isFinite));
  const swapping = swap > 0 && avail <= 0.05;
  const killed = c.sig.events.filter(isHostOom);
  return {
    id: 'host_memory_leak',
    missing: [],
    require: [
      cond(
        `slope(rss) > 0 with mono ≥ ${cc.leak_mono}, growth ≥ max(${fmtBytes(cc.host_leak_min_bytes)}, ${cc.host_leak_min_share * 100}% of the baseline) and a slope ≥ ${cc.host_leak_speedup}× the baseline's, OR swap in/out > 0 with MemAvailable ≤ 5%`,
        `rss mono ${fmt(tr?.mono ?? NaN)}, growth ${fmtBytes(tr?.growth_bytes ?? 0)} (need ${fmtBytes(need)}), slope ${fmtBytes(slopeE)}/min vs baseline ${fmtBytes(slopeB)}/min, swap ${fmt(swap)}, avail ${fmt(avail)}`,
        rssLeak || swapping,
        need,
      ),
    ],
    support: [cond('host OOM kills', killed.length, killed.length > 0), cond('r(rss)', rE(c, c.f.rss), rE(c, c.f.rss) > 1.2)],
    veto: [cond('RSS plateau (late slope ÷ slope < 0.1)', tr?.late_slope_ratio ?? null, !!tr && tr.late_slope_ratio < 0.1)],
    evidence: [...(tr ? [seriesEvidence(c, SIG.hostRss, `RSS +${fmtBytes(tr.growth_bytes)}`, tr.start_ms, tr.end_ms)] : []), ...killed.slice(0, 3).map((e) => eventEvidence(e))],
    onset_ms: tr?.start_ms ?? null,
  };
};
