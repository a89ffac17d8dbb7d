// Readings more than one cause takes: hardware faults (gpu_hardware_fault, engine_hang), the faults after
// which a restart is recovery (engine_hang, deploy_regression), OOM events and the allocator's reserved
// memory (the memory causes), and the idle KV floor (kv_block_leak, kv_bloat).
import type { EventRow } from '../../../../common/contract/types';
import { EV, SIG, type EventKind } from '../../../../common/names';
import type { Frame } from '../frame';
import { memoryTrend, type MemoryTrend } from '../leak';
import { median } from '../baseline';
import { events, medE, rE, spanEnd, spanStart, type CauseContext } from './context';

interface Fault {
  t: number;
  code: number | null;
  text: string;
  event: EventRow | null;
  ref: string | null;
  /** A hardware fault that has no Xid code (an NVSwitch's fatal SXid). */
  hardware?: boolean;
}

const HW_TEXT = /uncorrectable ECC|fallen off the bus|double[- ]bit ECC|row[- ]remap(ping)? (pending|failure)|GSP (error|timeout)|NVLink error/i;

/** NVML's recovery actions by code (nvidia-smi-snapshot.ts recoveryActionCode). */
const RECOVERY: Record<number, string> = { 1: 'a GPU reset', 2: 'a node reboot', 3: 'a drain of peer-to-peer traffic', 4: 'a drain and a GPU reset' };

const seriesRef = (s: { labels: Record<string, string> }, name: string) => (s.labels.gpu !== undefined ? `${name}{gpu="${s.labels.gpu}"}` : name);

/** Where a series whose value is a code (0: none) takes a new non-zero code, the first sample included. */
function codeChanges(c: CauseContext, name: string, fault: (t: number, code: number, ref: string) => Fault): Fault[] {
  const out: Fault[] = [];
  for (const s of c.sig.series.get(name) ?? []) for (let i = 0; i < s.t.length; i++) if (s.v[i] > 0 && (i === 0 || s.v[i] !== s.v[i - 1])) out.push(fault(s.t[i], s.v[i], seriesRef(s, name)));
  return out;
}

/**
 * Xid/ECC faults from events, the gpu.xid series (value = code), gpu.ecc_dbe increases, the driver's recovery
 * action and row remaps that appear.
 */
function faults(c: CauseContext): Fault[] {
  const out: Fault[] = [];
  for (const e of events(c, EV.xid)) {
    out.push({ t: e.ts_ms, code: Number.isFinite(Number(e.attrs.code)) ? Number(e.attrs.code) : null, text: e.text, event: e, ref: null });
    // A cleanup Xid (45) that names its cause ("caused by previous Xid 149") stands for that one where the
    // log holds only the cleanup.
    const cause = e.attrs.caused_by;
    if (typeof cause === 'number' && Number.isFinite(cause)) out.push({ t: e.ts_ms, code: cause, text: `Xid ${cause}, named by: ${e.text}`, event: e, ref: null });
  }
  // An NVSwitch's fatal error takes the fabric's links down: every GPU on it. (One whose verdict line is not in
  // the log says too little: most SXids are non-fatal.)
  for (const e of events(c, EV.sxid)) if (e.attrs.fatal === true) out.push({ t: e.ts_ms, code: null, text: `NVSwitch SXid ${e.attrs.code ?? '?'}: ${e.text}`, event: e, ref: null, hardware: true });
  for (const e of events(c, EV.traceback)) if (HW_TEXT.test(e.text)) out.push({ t: e.ts_ms, code: null, text: e.text, event: e, ref: null });
  // A device off the bus (kernel log without an Xid line) or lost by NVML during a live recording.
  for (const e of events(c, EV.gpuFallenOff, EV.gpuLost)) out.push({ t: e.ts_ms, code: null, text: `fallen off the bus: ${e.text}`, event: e, ref: null });
  out.push(...codeChanges(c, SIG.gpuXid, (t, code, ref) => ({ t, code, text: `Xid ${code}`, event: null, ref })));
  for (const s of c.sig.series.get(SIG.gpuEccDbe) ?? []) for (let i = 1; i < s.t.length; i++) if (s.v[i] > s.v[i - 1]) out.push({ t: s.t[i], code: 48, text: `double-bit ECC errors ${s.v[i - 1]} → ${s.v[i]}`, event: null, ref: seriesRef(s, SIG.gpuEccDbe) });
  // The driver asking for a reset, a reboot or a drain is NVIDIA's verdict on an uncorrectable error (the GPU
  // cannot be used again without it): a fault wherever it is seen, the first sample included.
  out.push(
    ...codeChanges(c, SIG.gpuRecoveryAction, (t, code, ref) => ({ t, code: null, text: `the driver asks for ${RECOVERY[code] ?? `recovery action ${code}`} (an uncorrectable error)`, event: null, ref, hardware: true })),
  );
  // A row remap pending or failed is an uncorrectable memory error, where it appears during the data: one
  // pending from the first sample is an older error the GPU runs on until its next reset.
  for (const name of [SIG.gpuRowRemapPending, SIG.gpuRowRemapFailure])
    for (const s of c.sig.series.get(name) ?? [])
      for (let i = 1; i < s.t.length; i++) if (s.v[i] > s.v[i - 1]) out.push({ t: s.t[i], code: null, text: `${name === SIG.gpuRowRemapPending ? 'row remap pending' : 'row remapping failure'} ${s.v[i - 1]} → ${s.v[i]}`, event: null, ref: seriesRef(s, name), hardware: true });
  return out.sort((a, b) => a.t - b.t);
}

/**
 * The events that name a hardware fault, anywhere in the incident: an Xid of `causes.hw_xids`, a cleanup Xid
 * that names one as its cause, an NVSwitch's fatal SXid (as hardwareFaults reads them, without its window).
 */
export function hardwareEvents(c: CauseContext): EventRow[] {
  const out = new Set<EventRow>();
  for (const x of faults(c)) if (x.event && (x.event.kind === EV.xid || x.event.kind === EV.sxid) && isHardware(x, c)) out.add(x.event);
  return [...out];
}

/** A fault of the hardware class: flagged so, an Xid of `causes.hw_xids`, or a text that names a hardware error. */
function isHardware(x: Fault, c: CauseContext): boolean {
  return x.hardware === true || (x.code !== null && c.cfg.causes.hw_xids.includes(x.code)) || (x.code === null && HW_TEXT.test(x.text));
}

/** HW-class faults near the symptoms (or anywhere, without an episode); `soft` = the software/secondary Xids. */
export function hardwareFaults(c: CauseContext): { hw: Fault[]; soft: Fault[] } {
  const cc = c.cfg.causes;
  const lo = c.episode ? spanStart(c) - cc.hardware_lookback_ms : -Infinity;
  const hi = c.episode ? spanEnd(c) : Infinity;
  const all = faults(c).filter((x) => x.t >= lo && x.t <= hi);
  return {
    hw: all.filter((x) => isHardware(x, c)),
    soft: all.filter((x) => x.code !== null && cc.software_xids.includes(x.code)),
  };
}

/** Faults after which a restart is recovery, not a rollout. */
export const CRASH_KINDS: EventKind[] = [EV.oom, EV.engineCrash, EV.ncclTimeout, EV.gpuFallenOff, EV.xid, EV.hostOomKill];

export const GiB = 2 ** 30;

export const ooms = (c: CauseContext): EventRow[] => events(c, EV.oom);

/** The oom events that were the host kernel's OOM killer rather than CUDA running out. */
export const isHostOom = (e: EventRow) => e.kind === EV.hostOomKill || e.attrs.host === true || /Out of memory: Kill|oom-kill|OOMKilled/i.test(e.text);

/** torch.reserved's trend (reported under gpu.mem.used's signal kind: bytes the GPU holds). */
export function reservedTrend(c: CauseContext): MemoryTrend | null {
  return c.f.torchResv.some(Number.isFinite) ? memoryTrend(SIG.gpuMemUsed, SIG.torchReserved, c.f.t, c.f.torchResv, NaN, null) : null;
}

/**
 * "Reserved grows with allocated flat": reserved climbs steadily while allocated is either not monotone
 * or grew by a small part of reserved's growth. Small tensors that pin fragmented segments keep
 * allocated creeping up by a few MiB per segment; what sets fragmentation apart is that reserved grows
 * many times more than that.
 */
export function reservedOutgrowsAllocated(c: CauseContext): boolean {
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
export function growthIsStranded(c: CauseContext, tr: MemoryTrend): boolean {
  const unalloc = c.frag?.oom_unallocated_bytes ?? null;
  const tried = c.frag?.oom_tried_bytes ?? null;
  if (unalloc === null) return false;
  // Allocated creeping up too (small tensors that pin fragmented segments; a snapshot's trace over the last
  // minutes) is not the leak that filled the GPU where the OOM's own account strands more than allocated
  // grew, and the refused allocation would have fit in it: 15.8 GiB stranded beside a 2.25 GiB request and
  // 2.1 GB of allocated growth read as a leak.
  if (tr.signal === SIG.torchAllocated) return tried !== null && unalloc >= Math.max(GiB, tried) && unalloc >= tr.growth_bytes;
  if (tr.signal !== SIG.gpuMemUsed) return false;
  // Or the OOM refused an allocation that the reserved-but-unallocated memory would have served (a GiB or
  // more of it): the allocator's own account says stranded blocks, not live tensors, made it fail, and the
  // GPU's used memory cannot say how much of the growth before it was either (reserved ratcheting to
  // capacity, 1.7 GiB stranded beside a 1.7 GiB request, read as a leak of the 7.8 GB it grew).
  return unalloc >= Math.max(GiB, 0.5 * tr.growth_bytes) || (tried !== null && unalloc >= Math.max(GiB, tried));
}

/** Allocated growth at most this share of reserved growth still reads as "allocated flat". */
const ALLOC_SHARE_OF_RESERVED_GROWTH = 0.1;

/**
 * KV usage in windows with nothing running: what the pool keeps when no request holds a block. Waiting
 * requests hold none (vLLM and SGLang give a preempted request's blocks back; cached prefixes count as free),
 * so a queue does not lift the floor — and a pool so leaked that nothing can be admitted shows its floor only
 * there: every request waits, none runs, and the pool reads full (a generator's leak that filled the pool in
 * half an hour read as KV exhaustion: its idle windows had stopped).
 */
export function idleFloor(c: CauseContext): { t: number[]; v: number[] } {
  const t: number[] = [];
  const v: number[] = [];
  for (let i = 0; i < c.f.grid.n; i++) if (c.f.runMax[i] === 0 && Number.isFinite(c.f.kv[i])) {
    t.push(c.f.t[i]);
    v.push(c.f.kv[i]);
  }
  return { t, v };
}

/**
 * Where an engine never idles, its floor shows in busy windows as the KV the running requests do not account
 * for: the pool's usage less the running requests times their tokens (prompt + output, the window's mean)
 * times the KV share a token took in the baseline. Leaked blocks stay in it whatever runs, where requests that
 * hold more (longer, more of them) are accounted for. One point per BUSY_BLOCK_MS, the median of its windows
 * (KV and the batch are scraped apart; one window's difference is noise), a window with nothing running
 * counting its KV whole. Empty where the baseline gives no share (no lengths, no running requests).
 * A pool leaking under steady traffic, KV 0.06 → 0.96 in 2.5 h with the batch and the lengths flat, had no
 * idle window at all; one whose traffic stopped an hour into the leak had one idle stretch, a single level.
 */
export function busyFloor(c: CauseContext): { t: number[]; v: number[] } {
  const len = contextLength(c.f);
  const shares: number[] = [];
  for (let i = c.base[0]; i <= c.base[1]; i++) {
    if (c.f.run[i] > 0 && len[i] > 0 && Number.isFinite(c.f.kv[i])) shares.push(c.f.kv[i] / (c.f.run[i] * len[i]));
  }
  const out = { t: [] as number[], v: [] as number[] };
  if (shares.length < MIN_SHARE_WINDOWS) return out;
  const share = median(shares);
  const block = Math.max(1, Math.round(BUSY_BLOCK_MS / c.f.grid.step));
  for (let a = 0; a < c.f.grid.n; a += block) {
    const u: number[] = [];
    const end = Math.min(c.f.grid.n, a + block);
    for (let i = a; i < end; i++) {
      if (!Number.isFinite(c.f.kv[i])) continue;
      if (c.f.runMax[i] === 0) u.push(c.f.kv[i]);
      else if (c.f.run[i] > 0 && len[i] > 0) u.push(c.f.kv[i] - share * c.f.run[i] * len[i]);
    }
    if (u.length * 2 < end - a) continue;
    out.t.push(c.f.t[a]);
    out.v.push(median(u));
  }
  return out;
}

/** One busy floor point per this much time: a leak is read over hours, its noise over minutes. */
const BUSY_BLOCK_MS = 600_000;
/** Baseline windows with a batch and lengths needed for the KV share of a token. */
const MIN_SHARE_WINDOWS = 5;

const derived = new WeakMap<Frame, Map<string, Float64Array>>();

/**
 * A per-window series derived from the frame alone, made once per frame: the rules run again on every span
 * the convergence reads (on the analysis benchmark's day, these arrays of 17,280 windows were remade each time,
 * 140 ms of its rules).
 */
export function ofFrame(f: Frame, key: string, make: () => Float64Array): Float64Array {
  let m = derived.get(f);
  if (!m) derived.set(f, (m = new Map()));
  let x = m.get(key);
  if (!x) m.set(key, (x = make()));
  return x;
}

/** Per window, the requests' mean prompt + output length (NaN where neither is known). */
export const contextLength = (f: Frame): Float64Array => ofFrame(f, 'contextLength', () => sumArrays(f.plenMean, f.glenMean));

/** Per-window sum of two readings, a missing one counting 0; NaN where both are missing or the sum is 0. */
export function sumArrays(a: Float64Array, b: Float64Array): Float64Array {
  const out = new Float64Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = (Number.isFinite(a[i]) ? a[i] : 0) + (Number.isFinite(b[i]) ? b[i] : 0) || NaN;
  return out;
}

/**
 * Per window, the pool's share held per running request. Each request holds KV in proportion to its context,
 * so this moves with the requests' size, not their number: more requests fill a pool at the same share each,
 * bigger ones fill it at a larger share each.
 */
export function kvPerRunning(c: CauseContext): Float64Array {
  return ofFrame(c.f, 'kvPerRunning', () => {
    const out = new Float64Array(c.f.grid.n);
    for (let i = 0; i < out.length; i++) out[i] = c.f.run[i] > 0 ? c.f.kv[i] / c.f.run[i] : NaN;
    return out;
  });
}

/** How much more the prompt P90 or P99 must grow than the mean prompt for the growth to be a tail of long documents. */
export const TAIL_OVER_BODY = 1.5;

/**
 * Long documents are a tail: a few requests carrying them (3% at 27k tokens) move neither the P90 nor the
 * prompt tokens per request twofold, yet the P99 grows, and well beyond the body (the exact mean).
 * Conversations that simply got longer move quantiles and mean alike, and a P90 read off 1-2-5 buckets
 * reads ×2.3 where every prompt grew ×1.95: a quantile counts as long prompts only where it outgrew the
 * mean by `long_prompt_ratio` and `TAIL_OVER_BODY`× the mean's growth (the mean unknown, it counts alone).
 */
export function promptTail(c: CauseContext): { rP90: number; rP99: number; rMean: number; tail: boolean } {
  const T = c.cfg.causes;
  const rP90 = rE(c, c.f.plenP90);
  const rP99 = rE(c, c.f.plenP99);
  const rMean = rE(c, c.f.plenMean);
  const outgrew = (r: number) => r >= T.long_prompt_ratio && !(r < TAIL_OVER_BODY * rMean);
  return { rP90, rP99, rMean, tail: outgrew(rP90) || outgrew(rP99) };
}

/**
 * kv_bloat's reading of a pool filled by bigger requests, not more of them: full (median KV ≥ `bloat_kv`), each
 * running request holding ≥ `bloat_len_ratio`× the baseline's share of it, at flat arrivals (under
 * `surge_arrival_veto`, traffic_surge's own cut for "no more arrivals") and with no tail of long documents
 * (long_prompt_interference: a share of the requests bigger, not each of them). workload_drift reads it too,
 * to leave it to kv_bloat.
 */
export function biggerRequests(c: CauseContext): { kv: number; rKvPerRun: number; rLam: number; tail: boolean; held: boolean } {
  const T = c.cfg.causes;
  const kv = medE(c, c.f.kv);
  const per = kvPerRunning(c);
  const rKvPerRun = rE(c, per);
  const rLam = rE(c, c.f.lamIn);
  const { tail } = promptTail(c);
  return { kv, rKvPerRun, rLam, tail, held: kv >= T.bloat_kv && rKvPerRun >= T.bloat_len_ratio && !(rLam >= T.surge_arrival_veto) && !tail };
}

/**
 * KV tokens each running request holds ÷ the tokens it has (prompt + output so far ≤ plen + glen), per
 * window: about 1 or less where the pool holds tokens, ≫ 1 where it holds reservations (max_tokens × n
 * set aside at admission). NaN where the pool's size or the lengths are unknown.
 */
export function kvHeldPerToken(c: CauseContext): Float64Array {
  return ofFrame(c.f, 'kvHeldPerToken', () => {
    const len = contextLength(c.f);
    const held = new Float64Array(c.f.grid.n);
    for (let i = 0; i < held.length; i++) held[i] = c.f.run[i] > 0 && len[i] > 0 ? (c.f.kv[i] * c.f.kvCapacityTokens) / c.f.run[i] / len[i] : NaN;
    return held;
  });
}

/**
 * Whether the engine is TGI, by its metrics' names: it never preempts (a request waits for room in its queue,
 * booked as queue time) and captures CUDA graphs up to batch 32 by default.
 */
export function isTgi(c: CauseContext): boolean {
  for (const list of c.sig.series.values()) for (const s of list) if (s.labels.metric?.startsWith('tgi_')) return true;
  return false;
}
