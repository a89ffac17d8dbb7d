// LoRA thrash: more adapters in use than slots, so adapters are loaded on demand and the requests that
// use them slow down (and, where the loads stall whole batches, everyone's).
import { SIG } from '../../../../common/names';
import { max, ratio } from '../baseline';
import type { RequestFact } from '../signals-from-store';
import { cond, defineCause, fmt, medE, notAssessable, rE, seriesEvidence, slice, spanEnd, spanStart, type CauseContext, type Range, type RuleResult } from './context';

/** The share of traced requests on an adapter from which the engine's TTFT is read as theirs. */
const LORA_MOST = 0.5;

export const loraThrash = defineCause({
  id: 'lora_thrash',
  level: 13,
  rule,
});

/**
 * The model the engine serves: the metrics' model label where they carry one, else the model most spans
 * name. vLLM's OpenAI server takes a LoRA adapter as the request's `model`, so any other name is an adapter.
 */
function servedModel(c: CauseContext): string | null {
  const votes = new Map<string, number>();
  const vote = (m: string | null | undefined) => {
    if (m) votes.set(m, (votes.get(m) ?? 0) + 1);
  };
  for (const list of c.sig.series.values()) for (const s of list) vote(s.labels.model_name ?? s.labels.model);
  if (!votes.size) for (const r of c.sig.requests) vote(r.model);
  let best: string | null = null;
  for (const [m, n] of votes) if (best === null || n > votes.get(best)!) best = m;
  return best;
}

/** The adapter a request used: its LoRA attribute, else a model name other than the served one. */
function adapterOf(r: RequestFact, served: string | null): string | null {
  if (r.lora !== null) return r.lora;
  return r.model !== null && served !== null && r.model !== served ? r.model : null;
}

function rule(c: CauseContext): RuleResult {
  const T = c.cfg.causes;
  const served = servedModel(c);
  const server = c.sig.requests.filter((r) => r.side !== 'client');
  const withLora = server.filter((r) => adapterOf(r, served) !== null);
  const maxLoras = c.cfg.causes.max_loras ?? medE(c, c.f.loraMax);
  const missing: string[] = [];
  if (!withLora.length && !c.f.have.has(SIG.loraActive)) missing.push('spans naming a LoRA adapter (request.lora, or a model other than the served one), or lora.active');
  if (!Number.isFinite(maxLoras)) missing.push('lora.max (or causes.max_loras in the config)');
  if (missing.length) return notAssessable('lora_thrash', missing);
  const s0 = spanStart(c);
  const s1 = spanEnd(c);
  const b0 = c.f.t[c.base[0]];
  const b1 = c.f.t[c.base[1]] + c.f.grid.W;
  const byEnd = [...withLora].sort((a, b) => a.end_ms - b.end_ms);
  const active = adaptersInUse(c, c.span, byEnd, served);
  const activeBase = adaptersInUse(c, c.base, byEnd, served);
  const p99 = (rs: typeof withLora) => {
    const v = rs.map((r) => r.ttft_s).filter((x): x is number => x !== null).sort((a, b) => a - b);
    return v.length ? v[Math.min(v.length - 1, Math.ceil(0.99 * v.length) - 1)] : NaN;
  };
  const base = server.filter((r) => adapterOf(r, served) === null);
  const inE = (r: { end_ms: number }) => r.end_ms >= s0 && r.end_ms <= s1;
  const inB = (r: { end_ms: number }) => r.end_ms >= b0 && r.end_ms <= b1;
  // An adapter that is resident serves as fast as the base model, so where the baseline traced no LoRA
  // request (a few % of requests are traced; adapters may have carried little traffic before), all of
  // its traced requests are the reference.
  const loraB = withLora.filter(inB);
  const refB = loraB.some((r) => r.ttft_s !== null) ? loraB : server.filter(inB);
  const rTraced = ratio(p99(withLora.filter(inE)), p99(refB));
  // Where no traced request falls in the baseline (the trace sample covers only part of the recording),
  // the engine's own TTFT P99: adapters that carry most of the traffic move it the same way.
  // Where adapters carry most of the traced traffic, the engine's TTFT P99 is mostly theirs too, read off every
  // request where the trace holds a few: its P99 of 20-odd traced requests is their slowest one (×1.89 beside
  // the engine's ×3.3, three quarters of requests on an adapter).
  const rEngine = rE(c, c.f.ttft99);
  const mostlyLora = withLora.length >= LORA_MOST * server.length;
  const fromEngine = !Number.isFinite(rTraced) || (mostlyLora && rEngine > rTraced);
  const rLora = fromEngine ? rEngine : rTraced;
  const rBase = ratio(p99(base.filter(inE)), p99(base.filter(inB)));
  const alike = rBase >= 0.8 * rLora;
  // Base-model requests as slow as the adapters' own clear the adapters only where they thrashed in the
  // baseline too. A thrash that began in the span stalls every batch (an adapter is loaded inside the
  // engine step) and, where adapters carry most of the traffic, queues everyone behind the lost capacity.
  const thrashedBefore = activeBase > maxLoras;
  return {
    id: 'lora_thrash',
    missing: [],
    require: [
      cond('adapters in use (within a minute, on one engine) > max_loras', `${active} > ${maxLoras}`, active > maxLoras),
      cond(`LoRA requests' r(ttft99) ≥ ${T.lora_ttft_ratio} (the engine's TTFT P99 where no traced request falls in the baseline, or where adapters carry most traced requests and it rose more)`, fromEngine ? `engine ${fmt(rLora)}` : rLora, rLora >= T.lora_ttft_ratio, T.lora_ttft_ratio),
    ],
    support: [
      cond('LoRA requests slower than base-model requests', `LoRA ×${fmt(rLora)}, base ×${fmt(rBase)}`, !alike),
      cond('adapters in use within the slots in the baseline', `${activeBase} ≤ ${maxLoras}`, !thrashedBefore),
    ],
    veto: [cond('base-model requests equally slow, and the adapters already outnumbered the slots in the baseline', rBase, alike && thrashedBefore)],
    evidence: [seriesEvidence(c, SIG.latTtft, `LoRA TTFT ×${fmt(rLora)}, base ×${fmt(rBase)}`)],
    onset_ms: thrashOnset(c, withLora, 2 * p99(refB), thrashedBefore ? null : overSlotsFrom(c, byEnd, served, maxLoras)),
  };
}

/**
 * The most adapters in use on one engine in a range of windows: the frame's count (lora_requests_info),
 * or the distinct adapters of the requests that finished in one window, whichever is larger.
 */
function adaptersInUse(c: CauseContext, r: Range, byEnd: RequestFact[], served: string | null): number {
  let n = max(slice(c.f.loraActive, r));
  const W = c.f.grid.W;
  for (let i = r[0]; i <= r[1]; i++) {
    const t = c.f.t[i];
    const seen = new Set<string | null>();
    for (let k = firstEndingAt(byEnd, t); k < byEnd.length && byEnd[k].end_ms < t + W; k++) seen.add(adapterOf(byEnd[k], served));
    if (seen.size) n = Math.max(Number.isFinite(n) ? n : 0, seen.size);
  }
  return n;
}

/**
 * The start of the first window after the baseline where more adapters were in use than slots (the
 * frame's count, or the distinct adapters of the requests that finished in it), or null.
 */
function overSlotsFrom(c: CauseContext, byEnd: RequestFact[], served: string | null, maxLoras: number): number | null {
  for (let i = c.base[1] + 1; i <= c.span[1]; i++) if (adaptersInUse(c, [i, i], byEnd, served) > maxLoras) return c.f.t[i];
  return null;
}

/**
 * The thrash began where the adapters first outnumbered the slots (`over`), at the first slow LoRA
 * request within a window of it. Slow LoRA requests before it are not the thrash: cold loads after a
 * restart fill the slots one adapter at a time, and an arrival spike queues adapters and base model alike
 * (both dated thrashes up to 70 minutes early); and the first slow request that a few more confirm can
 * come minutes after it where few requests are traced. Where the adapters already outnumbered the slots
 * in the baseline (`over` null), the slow requests alone date it.
 */
function thrashOnset(c: CauseContext, lora: RequestFact[], slow: number, over: number | null): number {
  const W = c.f.grid.W;
  if (over === null) return loraOnset(c, lora, slow, c.f.t[c.base[1]] + W) ?? spanStart(c);
  const first = loraOnset(c, lora, slow, over - W);
  return first !== null && first <= over + W ? first : over;
}

/** Index of the first request (sorted by end) that ended at or after t. */
function firstEndingAt(byEnd: RequestFact[], t: number): number {
  let lo = 0;
  let hi = byEnd.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (byEnd[mid].end_ms < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * An adapter load stalls the request that asked for it: the arrival of the first LoRA request from `after`
 * on slower than `slow`, provided at least half of the LoRA requests arriving from it on (the next few) are
 * slow too: one cold load is not a thrash.
 */
function loraOnset(c: CauseContext, lora: RequestFact[], slow: number, after: number): number | null {
  if (!Number.isFinite(slow)) return null;
  const rs = lora.filter((r) => r.ttft_s !== null && r.start_ms >= after && r.start_ms <= spanEnd(c)).sort((a, b) => a.start_ms - b.start_ms);
  const isSlow = (r: RequestFact) => r.ttft_s! >= slow;
  for (let k = 0; k < rs.length; k++) {
    if (!isSlow(rs[k])) continue;
    const next = rs.slice(k, k + LORA_CONFIRM);
    if (next.length === LORA_CONFIRM && next.filter(isSlow).length * 2 >= LORA_CONFIRM) return rs[k].start_ms;
  }
  return null;
}

/** LoRA requests read from a slow one on to tell a thrash from one cold adapter load. */
const LORA_CONFIRM = 4;
