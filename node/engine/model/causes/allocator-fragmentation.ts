// Allocator fragmentation: free blocks stranded across segments; reserved ≫ allocated.
import { SIG } from '../../../../common/names';
import { max } from '../baseline';
import { cond, defineCause, eventEvidence, fmt, fmtBytes, notAssessable, seriesEvidence, slice, type CauseContext, type RuleResult } from './context';
import { GiB, isHostOom, ooms, reservedOutgrowsAllocated, reservedTrend, growthIsStranded } from './shared';

export const allocatorFragmentation = defineCause({
  id: 'allocator_fragmentation',
  level: 7.5,
  rule,
});

function rule(c: CauseContext): RuleResult {
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
  // Stranded enough to matter. The OOM text is the allocator's own account: memory reserved but unallocated
  // beyond the request it refused would have served it, had it been contiguous — that is fragmentation at any
  // capacity. Without the text (no engine log; a memory snapshot or allocator series), reserved − allocated
  // must be a tenth of the GPU: a few GiB of a large pool sit in the caching allocator's free lists normally.
  const need = unalloc !== null ? Math.max(GiB, tried ?? 0) : Math.max(GiB, 0.1 * (Number.isFinite(capacity) ? capacity : 0));
  const nearCap = fr.oom_event ? 1 : Number.isFinite(capacity) ? fr.reserved_bytes / capacity : NaN;
  const allocRising =
    c.trend?.signal === SIG.torchAllocated && c.trend.mono >= cc.leak_mono && c.trend.growth_bytes >= cc.leak_min_growth_bytes && !reservedOutgrowsAllocated(c) && !growthIsStranded(c, c.trend);
  // The stranded reserve began to build where reserved started to climb, not where it peaked.
  const resv = reservedTrend(c);
  // Without allocator series, the GPU's used memory shows where the stranded reserve began to build.
  const usedTr = c.trend?.signal === SIG.gpuMemUsed && growthIsStranded(c, c.trend) && c.trend.mono >= cc.leak_mono ? c.trend : null;
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
      cond('reserved but unallocated ≥ max(1 GiB, the failed allocation) in the OOM text; without the text, reserved − allocated ≥ max(1 GiB, 10% of capacity)', stranded, stranded >= need, need),
    ],
    support: [],
    veto: [
      cond('reserved-but-unallocated < 0.5 GiB in the OOM text (a real shortfall)', unalloc, unalloc !== null && unalloc < 0.5 * GiB, 0.5 * GiB),
      cond('allocated rising (→ gpu_memory_leak)', allocRising, allocRising),
      // Another process holding more of the GPU than the stranded reserve is the bigger shortfall (an orphan, a
      // second job); this process's own memory outside the allocator (a CUDA context, NCCL, graphs: 6 GiB beside
      // 7 GiB stranded in a generator's TGI OOM) is its runtime, not a look-alike.
      cond('other processes hold ≥ max(1 GiB, the stranded reserve) ("Process X has Y in use")', fr.oom_others_bytes, (fr.oom_others_bytes ?? 0) >= Math.max(GiB, stranded), Math.max(GiB, stranded)),
    ],
    evidence: [
      ...(c.f.have.has(SIG.torchReserved) ? [seriesEvidence(c, SIG.torchReserved, `${fmtBytes(fr.gap_bytes)} reserved but not allocated (${(fragAbove * 100).toFixed(0)}% above the preallocated budget)`, fr.at_ms, fr.at_ms + c.f.grid.W)] : []),
      ...(ev ? [eventEvidence(ev)] : []),
    ],
    onset_ms: onset,
    endsInOom: ooms(c).some((e) => !isHostOom(e)),
  };
}
