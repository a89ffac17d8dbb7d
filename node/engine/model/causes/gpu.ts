// GPU causes: throttling (SM clock cut by thermal/power slowdown), hardware faults (Xid, double-bit
// ECC), and a tensor-parallel straggler (one rank slower than the rest).
import type { EventRow } from '../../../../common/contract/types';
import { median } from '../baseline';
import type { GpuWindows } from '../frame';
import {
  cond, departureOnset, eventEvidence, events, fmt, longestRun, medB, medE, missingInputs, notAssessable, rE, seriesEvidence, slice, spanEnd, spanStart,
  type CauseContext, type Rule,
} from './context';
import { EV, SIG } from '../../../../common/names';

const gpuRef = (name: string, g: GpuWindows) => (g.labels.gpu !== undefined ? `${name}{gpu="${g.labels.gpu}"}` : name);

const orBits = (x: Float64Array) => {
  let b = 0;
  for (const v of x) if (Number.isFinite(v)) b |= v;
  return b;
};

export const gpuThrottling: Rule = (c) => {
  const missing = missingInputs(c.f, [SIG.gpuSmClock, [SIG.gpuUtil, SIG.gpuSmActive], SIG.gpuThrottleReasons]);
  if (missing.length) return notAssessable('gpu_throttling', missing);
  const cc = c.cfg.causes;
  let best: { g: GpuWindows; run: ReturnType<typeof longestRun>; clkB: number; clkE: number; bitsE: number; bitsB: number; util: number } | null = null;
  for (const g of c.f.gpus) {
    if (!g.clk.some(Number.isFinite)) continue;
    const clkB = median(slice(g.clk, c.base));
    const busy = g.smAct.some(Number.isFinite) && !g.util.some(Number.isFinite) ? g.smAct : g.util;
    const run = longestRun(c, (i) => (Number.isFinite(g.clk[i]) ? busy[i] >= cc.throttle_util_min && g.clk[i] <= cc.throttle_clock_ratio * clkB : null));
    const bitsE = run.start === null ? orBits(slice(g.thr, c.span)) : orBits(g.thr.subarray(Math.floor((run.start - c.f.grid.t0) / c.f.grid.step), Math.floor((run.end! - c.f.grid.W - c.f.grid.t0) / c.f.grid.step) + 1));
    const cand = { g, run, clkB, clkE: median(slice(g.clk, c.span)), bitsE, bitsB: orBits(slice(g.thr, c.base)), util: median(slice(busy, c.span)) };
    if (!best || run.ms > best.run.ms) best = cand;
  }
  if (!best) return notAssessable('gpu_throttling', [SIG.gpuSmClock]);
  const slow = best.bitsE & cc.throttle_bits;
  const idleOnly = best.bitsE !== 0 && (best.bitsE & ~0x1) === 0;
  const sameAsBaseline = slow !== 0 && (best.bitsB & slow) === slow;
  return {
    id: 'gpu_throttling',
    missing: [],
    require: [
      cond(`util ≥ ${cc.throttle_util_min}`, best.util, best.util >= cc.throttle_util_min, cc.throttle_util_min),
      cond(`sm_clk ≤ ${cc.throttle_clock_ratio}·median_B(sm_clk) for ≥ ${cc.throttle_min_ms / 1000} s (longest run, s)`, best.run.ms / 1000, best.run.ms >= cc.throttle_min_ms),
      cond('throttle bits HW_SLOWDOWN|SW_THERMAL|HW_THERMAL|POWER_BRAKE set', `0x${best.bitsE.toString(16)}`, slow !== 0),
    ],
    support: [cond('median clock in the span ÷ baseline', best.clkE / best.clkB, best.clkE / best.clkB <= cc.throttle_clock_ratio), cond('r(itl50)', rE(c, c.f.itl50), rE(c, c.f.itl50) >= 1.15)],
    veto: [
      cond('only the idle bit', idleOnly, idleOnly),
      cond('the same slowdown bits already in the baseline (a permanent cap is a baseline, not an incident)', `0x${best.bitsB.toString(16)}`, sameAsBaseline),
    ],
    evidence: [
      seriesEvidence(c, gpuRef(SIG.gpuSmClock, best.g), `SM clock ${fmt(best.clkE)} MHz vs baseline ${fmt(best.clkB)} MHz`, best.run.start ?? spanStart(c), best.run.end ?? spanEnd(c)),
      seriesEvidence(c, gpuRef(SIG.gpuThrottleReasons, best.g), `throttle reasons 0x${best.bitsE.toString(16)}`, best.run.start ?? spanStart(c), best.run.end ?? spanEnd(c)),
    ],
    // A heat-soak ramp starts the incident before the clock is cut: date it where the temperature left its baseline.
    onset_ms: best.run.start === null ? null : departureOnset(c, best.g.temp, 1, (i) => c.f.t[i] >= best!.run.start!, 3, 0.01) ?? best.run.start,
  };
};

interface Fault {
  t: number;
  code: number | null;
  text: string;
  event: EventRow | null;
  ref: string | null;
}

const HW_TEXT = /uncorrectable ECC|fallen off the bus|double[- ]bit ECC|row[- ]remap(ping)? (pending|failure)|GSP (error|timeout)|NVLink error/i;

/** Xid/ECC faults from events, the gpu.xid series (value = code) and gpu.ecc_dbe increases. */
function faults(c: CauseContext): Fault[] {
  const out: Fault[] = [];
  for (const e of events(c, EV.xid)) out.push({ t: e.ts_ms, code: Number.isFinite(Number(e.attrs.code)) ? Number(e.attrs.code) : null, text: e.text, event: e, ref: null });
  for (const e of events(c, EV.traceback)) if (HW_TEXT.test(e.text)) out.push({ t: e.ts_ms, code: null, text: e.text, event: e, ref: null });
  // A device off the bus (kernel log without an Xid line) or lost by NVML during a live recording.
  for (const e of events(c, EV.gpuFallenOff, EV.gpuLost)) out.push({ t: e.ts_ms, code: null, text: `fallen off the bus: ${e.text}`, event: e, ref: null });
  for (const s of c.sig.series.get(SIG.gpuXid) ?? []) for (let i = 0; i < s.t.length; i++) if (s.v[i] > 0 && (i === 0 || s.v[i] !== s.v[i - 1])) out.push({ t: s.t[i], code: s.v[i], text: `Xid ${s.v[i]}`, event: null, ref: s.labels.gpu !== undefined ? `gpu.xid{gpu="${s.labels.gpu}"}` : SIG.gpuXid });
  for (const s of c.sig.series.get(SIG.gpuEccDbe) ?? []) for (let i = 1; i < s.t.length; i++) if (s.v[i] > s.v[i - 1]) out.push({ t: s.t[i], code: 48, text: `double-bit ECC errors ${s.v[i - 1]} → ${s.v[i]}`, event: null, ref: s.labels.gpu !== undefined ? `gpu.ecc_dbe{gpu="${s.labels.gpu}"}` : SIG.gpuEccDbe });
  return out.sort((a, b) => a.t - b.t);
}

/** HW-class faults near the symptoms (or anywhere, without an episode); `soft` = the software/secondary Xids. */
export function hardwareFaults(c: CauseContext): { hw: Fault[]; soft: Fault[] } {
  const cc = c.cfg.causes;
  const lo = c.episode ? spanStart(c) - cc.hardware_lookback_ms : -Infinity;
  const hi = c.episode ? spanEnd(c) : Infinity;
  const all = faults(c).filter((x) => x.t >= lo && x.t <= hi);
  return {
    hw: all.filter((x) => (x.code !== null && cc.hw_xids.includes(x.code)) || (x.code === null && HW_TEXT.test(x.text))),
    soft: all.filter((x) => x.code !== null && cc.software_xids.includes(x.code)),
  };
}

export const gpuHardwareFault: Rule = (c) => {
  const missing = missingInputs(c.f, [['events', SIG.gpuXid, SIG.gpuEccDbe]]);
  if (missing.length) return notAssessable('gpu_hardware_fault', missing);
  const { hw, soft } = hardwareFaults(c);
  const codes = [...new Set(hw.map((x) => x.code ?? 'HW text'))].join(', ');
  return {
    id: 'gpu_hardware_fault',
    missing: [],
    require: [cond('HW-class Xid (79/48/94/95/74/119/120…), double-bit ECC or HW CUDA error in the window', hw.length ? codes : 'none', hw.length > 0)],
    support: [cond('GPU stopped producing tokens after the fault', medE(c, c.f.gtok), hw.length > 0 && medE(c, c.f.gtok) < 0.5 * medB(c, c.f.gtok))],
    veto: [cond('only Xid 13/31/43/45 (software bug or secondary cleanup)', soft.map((x) => x.code).join(', ') || 'none', soft.length > 0 && hw.length === 0)],
    evidence: hw.slice(0, 5).map((x) => (x.event ? eventEvidence(x.event) : { kind: 'series' as const, ref: x.ref ?? SIG.gpuXid, start_ms: x.t, end_ms: x.t, text: x.text })),
    onset_ms: hw[0]?.t ?? null,
  };
};

const SPREAD_FIELDS: [keyof GpuWindows, string][] = [['clk', SIG.gpuSmClock], ['temp', SIG.gpuTemp], ['power', SIG.gpuPower], ['smAct', SIG.gpuSmActive]];

/** max ÷ min across GPUs per window for one field. */
/**
 * Per window, max ÷ min of a field across the GPUs of one machine (the widest machine wins). Tensor
 * parallel ranks share a node; GPUs of different replicas' nodes carry different loads and are no ranks
 * of one another.
 */
function spread(gpus: GpuWindows[], field: keyof GpuWindows, n: number): Float64Array {
  const machines = new Map<string, GpuWindows[]>();
  for (const g of gpus) {
    const m = g.key.includes('/') ? g.key.slice(0, g.key.lastIndexOf('/')) : '';
    machines.set(m, [...(machines.get(m) ?? []), g]);
  }
  const out = new Float64Array(n).fill(NaN);
  for (const group of machines.values())
    for (let i = 0; i < n; i++) {
      let hi = -Infinity;
      let lo = Infinity;
      let k = 0;
      for (const g of group) {
        const x = (g[field] as Float64Array)[i];
        if (!Number.isFinite(x)) continue;
        k++;
        hi = Math.max(hi, x);
        lo = Math.min(lo, x);
      }
      if (k >= 2 && lo > 0 && !(out[i] >= hi / lo)) out[i] = hi / lo;
    }
  return out;
}

export const tpStraggler: Rule = (c) => {
  const multi = SPREAD_FIELDS.some(([f]) => c.f.gpus.filter((g) => (g[f] as Float64Array).some(Number.isFinite)).length >= 2);
  const missing = missingInputs(c.f, [SIG.latItl]);
  if (!multi) missing.push('per-GPU gpu.sm_clock / gpu.temp / gpu.power / gpu.sm_active for ≥ 2 GPUs');
  if (missing.length) return notAssessable('tp_straggler', missing);
  let best: { name: string; e: number; b: number; s: Float64Array | null } = { name: '', e: NaN, b: NaN, s: null };
  for (const [field, name] of SPREAD_FIELDS) {
    const s = spread(c.f.gpus, field, c.f.grid.n);
    const e = medE(c, s);
    if (Number.isFinite(e) && !(best.e >= e)) best = { name, e, b: medB(c, s), s };
  }
  // vLLM's ITL buckets (10, 25, 50 ms) put a healthy median and a 25% slower one in the same bucket,
  // where interpolation cannot tell them apart; the histogram mean can.
  const itl = slice(c.f.itlMean, c.base).some(Number.isFinite) ? c.f.itlMean : c.f.itl50;
  const rItl = rE(c, itl);
  const rRun = rE(c, c.f.run);
  const rPlen = rE(c, c.f.plenMean);
  const flat = (x: number) => !Number.isFinite(x) || (x >= 0.8 && x <= 1.25);
  // Slower steps at the same arrivals hold each request longer, so the batch grows by the slowdown
  // (Little's law): that growth is the straggler's consequence, not a bigger workload.
  const rLam = rE(c, c.f.lamIn);
  const runFollows = Number.isFinite(rRun) && rRun <= 1.1 * rItl && flat(rLam) && Math.abs(rLam - 1) <= c.cfg.causes.workload_tolerance;
  const th = c.cfg.causes.straggler_spread;
  const onset = best.s ? departureOnset(c, best.s, 1, (i) => best.s![i] >= th) ?? spanStart(c) : spanStart(c);
  // A rank whose process died (OOM, crash) sits idle beside the others: a spread, but not a slow rank.
  const deadFirst = [...events(c, EV.oom), ...events(c, EV.engineCrash)].filter((e) => e.ts_ms <= onset + c.f.grid.W).length;
  return {
    id: 'tp_straggler',
    missing: [],
    require: [
      cond(`r(itl${itl === c.f.itlMean ? ' mean' : '50'}) ≥ ${c.cfg.causes.straggler_itl_ratio}`, rItl, rItl >= c.cfg.causes.straggler_itl_ratio, c.cfg.causes.straggler_itl_ratio),
      cond('run and plen flat (r within 0.8..1.25; run may grow by the slowdown at flat arrivals)', `run ${fmt(rRun)}, plen ${fmt(rPlen)}, lam_in ${fmt(rLam)}`, (flat(rRun) || runFollows) && flat(rPlen) && Number.isFinite(rRun)),
      cond(`cross-rank spread ≥ ${th} in clock/temperature/power/sm_act`, `${best.name} ${fmt(best.e)}`, best.e >= th),
    ],
    support: [],
    veto: [
      cond('the same spread already in the baseline (ranks were never uniform)', best.b, best.b >= th),
      cond('an OOM or crash at or before the spread began (a dead rank idles, it does not straggle)', deadFirst, deadFirst > 0),
    ],
    evidence: [seriesEvidence(c, best.name || SIG.gpuSmClock, `cross-GPU spread ${fmt(best.e)} (baseline ${fmt(best.b)})`), seriesEvidence(c, SIG.latItl, `median ITL ×${fmt(rItl)}`)],
    onset_ms: onset,
  };
};
