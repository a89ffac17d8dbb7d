// Engine-side causes: a hang (no tokens with requests in flight), a deploy regression (a KPI step at a
// change event), CUDA-graph fallback, speculative-decoding degradation, LoRA thrash, and a CPU/frontend
// bottleneck that starves the GPU.
import { mad, median, ratio } from '../baseline';
import { changePoint } from '../change-point';
import {
  computedPromptTokens, cond, departureOnset, maxE, eventEvidence, events, firstE, fmt, longestRun, medB, medE, missingInputs, notAssessable, rAny, rE, seriesEvidence, spanEnd, spanStart,
  type CauseContext, type Rule,
} from './context';
import { hardwareFaults } from './gpu';
import { trafficSurge } from './load';
import { fires } from './rank';
import { engineSpoke } from '../unexplained';
import type { RequestFact } from '../signals-from-store';
import type { EventRow } from '../../../../common/contract/types';
import { EV, SIG, type EventKind } from '../../../../common/names';

export const engineHang: Rule = (c) => {
  const missing = missingInputs(c.f, [[SIG.tokensGeneration, SIG.tokensGenerationRate], [SIG.reqRunning, SIG.reqWaiting]]);
  if (missing.length) return notAssessable('engine_hang', missing);
  const inFlight = (i: number) => (Number.isFinite(c.f.runMin[i]) ? c.f.runMin[i] : 0) + (Number.isFinite(c.f.waitMin[i]) ? c.f.waitMin[i] : 0);
  // A hung engine finishes nothing: tokens/s at zero while requests still complete is a token counter
  // that does not count (an exporter's empty histogram), not a stall.
  const zero = longestRun(c, (i) => (!Number.isFinite(c.f.gtok[i]) && !Number.isFinite(c.f.runMin[i]) && !Number.isFinite(c.f.waitMin[i]) ? null : c.f.gtok[i] === 0 && inFlight(i) > 0 && !(c.f.lamOut[i] > 0)));
  // Where the engine is read from its log, a wedged scheduler stops printing its periodic stats: a silence
  // that begins with requests in flight, and not with a crash, is the same stall.
  const quiet = silentWithWork(c);
  const run = quiet && quiet.ms > zero.ms ? quiet : zero;
  const { hw } = hardwareFaults(c);
  const restarts = run.start === null ? [] : events(c, EV.engineRestart).filter((e) => e.ts_ms >= run.start! && e.ts_ms <= run.end!);
  const nccl = events(c, EV.ncclTimeout).filter((e) => run.start !== null && e.ts_ms >= run.start - 60_000);
  const during = (x: Float64Array) => (run.start === null ? NaN : median(Array.from(x).filter((_, i) => c.f.t[i] >= run.start! && c.f.t[i] < run.end!)));
  const utilDuring = during(c.f.util);
  // Nothing running, a queue, and the pool full: the scheduler has no free blocks to admit anyone
  // (blocks leaked or held), which is a KV cause upstream, not an engine stuck mid-step.
  const runDuring = during(c.f.runMax);
  const kvDuring = during(c.f.kv);
  const noBlocks = runDuring === 0 && kvDuring >= c.cfg.causes.kv_high;
  // One window of no tokens is one pair of equal counter readings (a scrape that repeated, a slow
  // exporter): a stall is read over two windows at least, however long a window is.
  const minMs = Math.max(c.cfg.causes.hang_min_ms, 2 * c.f.grid.W);
  return {
    id: 'engine_hang',
    missing: [],
    require: [cond(`gtok = 0 AND run + wait > 0 (or the engine silent since requests were in flight) for ≥ max(${c.cfg.causes.hang_min_ms / 1000} s, two windows) (longest run, s)`, run.ms / 1000, run.ms >= minMs, minMs / 1000)],
    support: [cond('util pinned ≥ 0.95 (spinning)', utilDuring, utilDuring >= 0.95), cond('NCCL timeout logged', nccl.length, nccl.length > 0)],
    veto: [
      cond('Xid/ECC fault (→ gpu_hardware_fault)', hw.length, hw.length > 0),
      cond('restarts during the stall (→ oom_crash_loop)', restarts.length, restarts.length > 0),
      cond(`none running while requests wait and KV ≥ ${c.cfg.causes.kv_high}: no free blocks to admit (→ kv_block_leak / kv_exhaustion)`, `run ${fmt(runDuring)}, kv ${fmt(kvDuring)}`, noBlocks),
    ],
    evidence: [
      seriesEvidence(c, c.f.have.has(SIG.tokensGeneration) ? SIG.tokensGeneration : SIG.tokensGenerationRate, `no tokens for ${Math.round(run.ms / 1000)} s`, run.start ?? spanStart(c), run.end ?? spanEnd(c)),
      seriesEvidence(c, c.f.have.has(SIG.reqRunning) ? SIG.reqRunning : SIG.reqWaiting, 'requests still in flight', run.start ?? spanStart(c), run.end ?? spanEnd(c)),
      ...nccl.slice(0, 2).map((e) => eventEvidence(e)),
    ],
    // The first wholly silent window starts after the last token; the fall itself began in the windows before it.
    onset_ms: run.start === null ? null : run === quiet ? run.start : (departureOnset(c, c.f.gtok, -1, (i) => c.f.t[i] >= run.start!) ?? run.start),
  };
};

/**
 * The longest stretch of the span where the engine reported nothing at all, begun right after a reading
 * with requests in flight and no crash at its start (a crash's silence is an outage, not a hang), and
 * ended by a fatal error, a watchdog or a restart before the engine spoke again.
 */
function silentWithWork(c: CauseContext): { ms: number; start: number | null; end: number | null } | null {
  const seen = (i: number) => Number.isFinite(c.f.gtok[i]) || Number.isFinite(c.f.run[i]) || Number.isFinite(c.f.wait[i]);
  const ends = events(c, ...CRASH_KINDS, EV.engineRestart, EV.engineStart).map((e) => e.ts_ms).sort((a, b) => a - b);
  let best: { ms: number; start: number | null; end: number | null } | null = null;
  // From the baseline to the end of the data, not the episode: a silent window has no S at all, so an
  // episode never covers the silence it follows.
  const last = c.f.grid.n - 1;
  for (let i = Math.max(c.base[1] + 1, 1); i <= last; i++) {
    if (seen(i) || !seen(i - 1)) continue;
    const busy = (Number.isFinite(c.f.run[i - 1]) ? c.f.run[i - 1] : 0) + (Number.isFinite(c.f.wait[i - 1]) ? c.f.wait[i - 1] : 0);
    if (!(busy > 0)) continue;
    const start = c.f.t[i - 1] + c.f.grid.W;
    let j = i;
    while (j <= last && !seen(j)) j++;
    const next = ends.find((t) => t >= start - c.f.grid.W);
    if (next !== undefined && next <= start + c.f.grid.W) continue;
    // A stall ends in a watchdog, a fatal error or a restart; a silence that just ends (lost scrapes, the
    // end of the recording) is a gap in the data, not evidence of a hang.
    const resumed = j <= last ? c.f.t[j] : Infinity;
    if (next === undefined || next > resumed + c.f.grid.W) continue;
    // Another source (the log beside lost scrapes) still heard the engine: not silent.
    if (engineSpoke(c.sig, start + c.f.grid.W, next - c.f.grid.W)) continue;
    const end = next;
    if (!best || end - start > best.ms) best = { ms: end - start, start, end };
  }
  return best;
}

const CHANGE_KINDS: EventKind[] = [EV.version, EV.config, EV.deploy, EV.engineRestart];

/** Standard errors of noise a workload change must exceed (deploy_regression's stability test). */
const NOISE_Z = 2;

/** Relative standard error of a median: 1.2533 · (1.4826·MAD) / √n ÷ median; 0 without data. */
function relativeSe(x: ArrayLike<number>): number {
  let n = 0;
  for (let i = 0; i < x.length; i++) if (Number.isFinite(x[i])) n++;
  const m = median(x);
  const se = n > 1 && m > 0 ? (1.2533 * 1.4826 * mad(x)) / Math.sqrt(n) / m : 0;
  return Number.isFinite(se) ? se : 0;
}

/** Faults after which a restart is recovery, not a rollout. */
const CRASH_KINDS: EventKind[] = [EV.oom, EV.engineCrash, EV.ncclTimeout, EV.gpuFallenOff, EV.xid, EV.hostOomKill];

interface DeployCandidate {
  e: EventRow;
  /** Whether the version changed: true, false, or null where the previous one is not in the bundle. */
  changed: boolean | null;
  kpi: string;
  size: number;
  at: number;
  stable: number | null;
}

/** Whether the version at a change event differs from the one before it; null where either is unknown. */
function versionChanged(e: EventRow, versions: EventRow[]): boolean | null {
  const prev = [...versions].reverse().find((v) => v.ts_ms < e.ts_ms - 1000 && v.attrs.version);
  const ver = e.attrs.version ?? versions.find((v) => Math.abs(v.ts_ms - e.ts_ms) <= 120_000 && v.attrs.version)?.attrs.version;
  return prev && ver ? String(prev.attrs.version) !== String(ver) : null;
}

/**
 * Whether a change event can be a deploy, and why not: a start with no engine data before it is where
 * the recording began, and a restart with the version it had, shortly after a crash, is the engine
 * coming back. Each event is judged on its own.
 */
function deployable(c: CauseContext, e: EventRow, versions: EventRow[], crashes: EventRow[]): string | null {
  const cc = c.cfg.causes;
  const a = Math.max(0, Math.floor((e.ts_ms - cc.deploy_window_ms - c.f.grid.t0) / c.f.grid.step));
  const split = Math.min(c.f.grid.n, Math.floor((e.ts_ms - c.f.grid.t0) / c.f.grid.step));
  let before = 0;
  for (let i = a; i < split; i++) if (Number.isFinite(c.f.gtok[i]) || Number.isFinite(c.f.run[i])) before++;
  if (before < 3) return 'no engine data before it (the start of the recording)';
  const changed = versionChanged(e, versions);
  const crashed = crashes.some((x) => x.ts_ms <= e.ts_ms && x.ts_ms >= e.ts_ms - cc.deploy_window_ms);
  if (e.kind !== EV.config && e.kind !== EV.deploy && changed !== true && crashed) return 'a restart after a crash with the same version';
  // A restart that brings back the version it stopped (and no config change logged) redeployed nothing.
  if (e.kind !== EV.config && e.kind !== EV.deploy && changed === false) return 'a restart with the same version';
  return null;
}

export const deployRegression: Rule = (c) => {
  if (!c.f.have.has('events')) return notAssessable('deploy_regression', ['events (version/config/deploy/engine_restart)']);
  const cc = c.cfg.causes;
  // From the end of the baseline, not only near the span: a rollout that slows decode by half may move
  // e2e P99 past the alert only when the day's peak arrives, long after the deploy. Each candidate still
  // needs a lasting KPI step at its own time, which random events do not bring.
  const from = Math.min(spanStart(c), c.f.t[c.base[1]] + c.f.grid.W) - cc.deploy_window_ms;
  const changes = events(c, ...CHANGE_KINDS).filter((e) => e.ts_ms >= from && e.ts_ms <= spanEnd(c));
  const versions = events(c, EV.version, EV.engineStart, EV.engineRestart).sort((x, y) => x.ts_ms - y.ts_ms);
  const crashes = events(c, ...CRASH_KINDS);
  const perRun = new Float64Array(c.f.grid.n);
  for (let i = 0; i < perRun.length; i++) perRun[i] = c.f.run[i] > 0 ? c.f.gtok[i] / c.f.run[i] : NaN;
  const kpis: [string, Float64Array, number][] = [['itl50', c.f.itlMean.some(Number.isFinite) ? c.f.itlMean : c.f.itl50, 1], ['e2e99', c.f.e2e99, 1], ['ttft99', c.f.ttft99, 1], ['tokens per running request', perRun, -1]];
  const rejected: string[] = [];
  let best: DeployCandidate | null = null;
  let bestUnstable: DeployCandidate | null = null;
  for (const e of changes) {
    const why = deployable(c, e, versions, crashes);
    if (why) {
      rejected.push(`${e.kind}: ${why}`);
      continue;
    }
    const a = Math.max(0, Math.floor((e.ts_ms - cc.deploy_window_ms - c.f.grid.t0) / c.f.grid.step));
    const b = Math.min(c.f.grid.n - 1, Math.ceil((e.ts_ms + cc.deploy_window_ms - c.f.grid.t0) / c.f.grid.step));
    const split = Math.floor((e.ts_ms - c.f.grid.t0) / c.f.grid.step);
    // After the warm-up: a rollout's downtime leaves a backlog (and retries) that arrive at once when the
    // new version comes up, which is no change of workload.
    const warm = Math.min(b, Math.max(split + 1, Math.ceil((e.ts_ms + cc.deploy_warmup_ms - c.f.grid.t0) / c.f.grid.step)));
    // A change of workload beyond what the two stretches' own noise allows: at one request a second, 40 s
    // windows of arrivals swing by a third, and ±15% on their medians is inside that noise.
    const drift = [c.f.lamIn, c.f.plenMean, c.f.glenMean]
      .map((w) => {
        const after = w.subarray(warm, b + 1);
        const before = w.subarray(a, split);
        const r = ratio(median(after), median(before));
        return Math.abs(r - 1) - NOISE_Z * Math.hypot(relativeSe(after), relativeSe(before));
      })
      .filter(Number.isFinite);
    const worst = drift.length ? Math.max(0, ...drift) : null;
    const changed = e.kind === EV.config || e.kind === EV.deploy ? true : versionChanged(e, versions);
    const need = cc.deploy_kpi_change;
    // e2e = TTFT + output length × ITL: where TTFT and ITL are measured around the change, a P99 e2e that
    // moves alone moved with the outputs' tail (workload), not with the engine.
    const perTokenKnown = kpis.filter(([k, x]) => (k === 'itl50' || k === 'ttft99') && Number.isFinite(median(x.subarray(a, b + 1)))).length === 2;
    for (const [kpi, x, dir] of kpis) {
      if (kpi === 'e2e99' && perTokenKnown) continue;
      const cp = changePoint(x.subarray(a, b + 1), 2);
      if (!cp || !(dir * cp.size >= need)) continue;
      const at = c.f.t[a + cp.index];
      if (Math.abs(at - e.ts_ms) > cc.deploy_window_ms) continue;
      // A regression persists: the level after the new version has warmed up (caches, CUDA graphs, a cold
      // prefix cache) against the level before, medians — a minute of slow first requests is not one.
      const persist = ratio(median(x.subarray(warm, b + 1)), median(x.subarray(a, Math.max(a + 1, split))));
      if (!(dir * (persist - 1) >= need)) continue;
      const cand: DeployCandidate = { e, changed, kpi, size: dir * cp.size, at, stable: worst };
      if (worst !== null && worst <= cc.workload_tolerance) {
        if (!best || cand.size > best.size) best = cand;
      } else if (!bestUnstable || cand.size > bestUnstable.size) bestUnstable = cand;
    }
  }
  const found = best ?? bestUnstable;
  const stable = found?.stable ?? null;
  const deployable_ = changes.length - rejected.length;
  return {
    id: 'deploy_regression',
    missing: [],
    require: [
      cond('a deploy/config/restart event near the symptoms (restarts after a crash with the same version, and starts with no data before, excluded)', found ? `${found.e.kind} at ${new Date(found.e.ts_ms).toISOString()}` : `${deployable_} of ${changes.length}`, deployable_ > 0),
      cond(`≥ ${cc.deploy_kpi_change * 100}% change-point in a core KPI within ${cc.deploy_window_ms / 60_000} min`, found ? `${found.kpi} ${fmt(found.size * 100)}%` : null, found !== null, cc.deploy_kpi_change),
      cond(`workload stable (lam_in, plen, glen within ±${cc.workload_tolerance * 100}% beyond their own noise)`, stable, stable !== null && stable <= cc.workload_tolerance, cc.workload_tolerance),
    ],
    support: [
      cond('the version changed at the event (null: the previous version is not in the bundle)', found?.changed ?? null, found?.changed === true),
      ...rejected.slice(0, 3).map((r) => cond(`event not a deploy: ${r}`, true, false)),
    ],
    veto: [cond('no change event', changes.length === 0, changes.length === 0)],
    evidence: found ? [eventEvidence(found.e), seriesEvidence(c, found.kpi === 'itl50' ? SIG.latItl : found.kpi === 'e2e99' ? SIG.latE2e : found.kpi === 'ttft99' ? SIG.latTtft : SIG.tokensGeneration, `${found.kpi} changed ${fmt(found.size * 100)}% at the change`, found.at - c.f.grid.W, found.at + c.f.grid.W)] : changes.slice(0, 3).map((e) => eventEvidence(e)),
    onset_ms: found?.e.ts_ms ?? null,
  };
};

/** The largest batch any engine captures CUDA graphs for by default (vLLM: 512). */
const MAX_CAPTURE = 512;

/**
 * Median ITL over windows whose running peak sits just above `cap` (up to 1.5×) ÷ over windows just below
 * it (from 2/3 of it): near 1 where ITL only grows with the batch, ≥ the eager slowdown at a graph cap.
 * NaN with fewer than 3 windows on either side.
 */
function cudaGraphJump(c: CauseContext, itl: Float64Array, cap: number): number {
  const below: number[] = [];
  const above: number[] = [];
  for (let i = 0; i < c.f.grid.n; i++) {
    const r = c.f.runMax[i];
    if (!Number.isFinite(itl[i]) || !Number.isFinite(r)) continue;
    if (r > cap && r <= 1.5 * cap) above.push(itl[i]);
    else if (r <= cap && r >= (2 / 3) * cap) below.push(itl[i]);
  }
  return below.length >= 3 && above.length >= 3 ? ratio(median(above), median(below)) : NaN;
}

export const cudaGraphFallback: Rule = (c) => {
  const T = c.cfg.causes;
  const missing = missingInputs(c.f, [SIG.latItl, SIG.reqRunning]);
  if (missing.length) return notAssessable('cuda_graph_fallback', missing);
  // The ITL step, on the exact mean where there is one (a median read off buckets moves in bucket jumps).
  const itl = c.f.itlMean.some(Number.isFinite) ? c.f.itlMean : c.f.itl50;
  const cp = changePoint(itl, 2);
  const cpAt = cp ? c.f.t[cp.index] : null;
  // The capture max: from the engine's startup log where it printed one; else read off the data as the
  // running level the ITL step happened at (logs are often missing or cut) — checked below against what
  // load alone would do to ITL.
  const known = Number.isFinite(c.f.cudaGraphMax);
  let cap = known ? c.f.cudaGraphMax : c.cfg.causes.cuda_graph_max_batch;
  if (!known && cp && cp.size >= T.cuda_graph_itl_ratio - 1) cap = median(c.f.runMax.subarray(Math.max(0, cp.index - 4), cp.index));
  const cross = firstE(c, (i) => c.f.runMax[i] > cap);
  const aligned = cross !== null && cpAt !== null && Math.abs(cpAt - cross) <= 2 * c.f.grid.W;
  const rItl = rE(c, itl);
  // A cap read off the ITL step lines up with that step by construction, so it needs evidence of its
  // own: eager steps are slower at the *same* batch size, a jump in ITL across the cap that load alone
  // (a gentle rise with the batch) does not make; and no engine captures graphs above 512 sequences
  // (vLLM's largest default capture size; TGI's is 32).
  const jump = cudaGraphJump(c, itl, cap);
  const plausible = known || (cap <= MAX_CAPTURE && jump >= T.cuda_graph_itl_ratio);
  return {
    id: 'cuda_graph_fallback',
    missing: [],
    require: [
      cond(`running crosses the CUDA-graph capture max (${fmt(cap)}${known ? '' : ', inferred: the running level at the ITL step'})`, cross, cross !== null),
      cond('ITL change-point aligned with the crossing (within 2 windows)', cpAt, aligned),
      cond(`r(itl) ≥ ${T.cuda_graph_itl_ratio}`, rItl, rItl >= T.cuda_graph_itl_ratio, T.cuda_graph_itl_ratio),
      cond(
        `the capture max is known from the engine log, or the inferred one is ≤ ${MAX_CAPTURE} with ITL ≥ ${T.cuda_graph_itl_ratio}× higher just above it than just below it (same batch size, eager steps)`,
        `${known ? 'known' : `inferred ${fmt(cap)}`}, ITL above ÷ below ${fmt(jump)}`,
        plausible,
        T.cuda_graph_itl_ratio,
      ),
    ],
    support: [cond('capture max from the engine log', known, known)],
    veto: [cond('the ITL jump does not line up with the threshold', !aligned, cross !== null && !aligned)],
    evidence: [seriesEvidence(c, SIG.reqRunning, `running above ${fmt(cap)} from ${cross === null ? 'never' : new Date(cross).toISOString()}`), seriesEvidence(c, SIG.latItl, `ITL ×${fmt(rItl)}`)],
    // The fallback is the end of a rise in load: the incident began where arrivals left their baseline on the way up.
    onset_ms: cross === null ? null : departureOnset(c, c.f.lamIn, 1, (i) => c.f.runMax[i] > cap, 2) ?? cross,
  };
};

export const specDecodeDegradation: Rule = (c) => {
  const T = c.cfg.causes;
  const missing = missingInputs(c.f, [[SIG.specAcceptLen, SIG.specAcceptedTokens], SIG.latItl]);
  if (missing.length) return notAssessable('spec_decode_degradation', missing);
  const accB = medB(c, c.f.accLen);
  const accE = medE(c, c.f.accLen);
  // With drafts, several tokens land per step: the median ITL sits on the bucket of the burst's
  // near-zero gaps, while the mean (step time ÷ tokens accepted) and the tokens each running sequence
  // gets per second move with the acceptance length.
  const rItl = rAny(c, c.f.itl50, c.f.itlMean);
  const perSeq = new Float64Array(c.f.grid.n);
  for (let i = 0; i < perSeq.length; i++) perSeq[i] = c.f.run[i] > 0 ? c.f.gtok[i] / c.f.run[i] : NaN;
  const rPerSeq = rE(c, perSeq);
  const slower = rItl >= T.spec_itl_ratio || rPerSeq <= 1 / T.spec_itl_ratio;
  const stable = Math.abs(ratio(accE, accB) - 1) < 0.1 && Math.abs(rE(c, c.f.run) - 1) < 0.1;
  // The acceptance length counts the bonus token every step yields with or without drafts; what the
  // drafts buy is the rest (accepted drafts per step), and that is what falls when drafts stop matching.
  const draftsB = accB - 1;
  const fell = (x: number) => x - 1 <= T.spec_acc_fall * draftsB;
  return {
    id: 'spec_decode_degradation',
    missing: [],
    require: [
      cond('speculative decoding on (acceptance measured in the baseline)', accB, Number.isFinite(accB)),
      cond(`accepted drafts per step (acc_len − 1) ≤ ${T.spec_acc_fall}·the baseline's`, `${fmt(accE - 1)} vs ${fmt(draftsB)}`, draftsB > 0 && fell(accE), T.spec_acc_fall),
      cond(`r(itl) ≥ ${T.spec_itl_ratio} (median or mean) OR tokens/s per running sequence ≤ 1/${T.spec_itl_ratio} of the baseline`, `itl ×${fmt(rItl)}, per sequence ×${fmt(rPerSeq)}`, slower, T.spec_itl_ratio),
    ],
    support: [],
    veto: [cond('acc_len and run both stable', stable, stable)],
    evidence: [seriesEvidence(c, c.f.have.has(SIG.specAcceptLen) ? SIG.specAcceptLen : SIG.specAcceptedTokens, `acceptance length ${fmt(accE)} vs ${fmt(accB)}`)],
    onset_ms: departureOnset(c, c.f.accLen, -1, (i) => fell(c.f.accLen[i])),
  };
};

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

export const loraThrash: Rule = (c) => {
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
  let active = maxE(c, c.f.loraActive);
  const W = c.f.grid.W;
  for (let t = s0; t < s1; t += W) active = Math.max(Number.isFinite(active) ? active : 0, new Set(withLora.filter((r) => r.end_ms >= t && r.end_ms < t + W).map((r) => adapterOf(r, served))).size);
  const p99 = (rs: typeof withLora) => {
    const v = rs.map((r) => r.ttft_s).filter((x): x is number => x !== null).sort((a, b) => a - b);
    return v.length ? v[Math.min(v.length - 1, Math.ceil(0.99 * v.length) - 1)] : NaN;
  };
  const base = server.filter((r) => adapterOf(r, served) === null);
  const inE = (r: { end_ms: number }) => r.end_ms >= s0 && r.end_ms <= s1;
  const inB = (r: { end_ms: number }) => r.end_ms >= b0 && r.end_ms <= b1;
  const rLora = ratio(p99(withLora.filter(inE)), p99(withLora.filter(inB)));
  const rBase = ratio(p99(base.filter(inE)), p99(base.filter(inB)));
  return {
    id: 'lora_thrash',
    missing: [],
    require: [cond('distinct active adapters > max_loras', `${active} > ${maxLoras}`, active > maxLoras), cond(`LoRA requests' r(ttft99) ≥ ${T.lora_ttft_ratio}`, rLora, rLora >= T.lora_ttft_ratio, T.lora_ttft_ratio)],
    support: [],
    veto: [cond('base-model requests equally slow', rBase, rBase >= 0.8 * rLora)],
    evidence: [seriesEvidence(c, SIG.latTtft, `LoRA TTFT ×${fmt(rLora)}, base ×${fmt(rBase)}`)],
    onset_ms: loraOnset(c, withLora, 2 * p99(withLora.filter(inB))) ?? spanStart(c),
  };
};

/**
 * An adapter load stalls the request that asked for it, so the thrash began at the arrival of the first
 * LoRA request after the baseline slower than `slow`, provided at least half of the LoRA requests
 * arriving from it on (the next few) are slow too: one cold load is not a thrash.
 */
function loraOnset(c: CauseContext, lora: RequestFact[], slow: number): number | null {
  if (!Number.isFinite(slow)) return null;
  const after = c.f.t[c.base[1]] + c.f.grid.W;
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

export const cpuFrontendBottleneck: Rule = (c) => {
  const T = c.cfg.causes;
  // The GPU side (SM active or util falling) or the host side (TTFT growing beyond queue + prefill) can
  // show it; either will do.
  const gpuSide = missingInputs(c.f, [[SIG.gpuSmActive, SIG.gpuUtil]]);
  const hostSide = missingInputs(c.f, [SIG.latTtft, [SIG.latQueue, SIG.latPrefill]]);
  const missing = missingInputs(c.f, [SIG.kvUsage, [SIG.reqWaiting, SIG.latTtft, SIG.latItl, 'spans']]);
  if (gpuSide.length && hostSide.length) missing.push(`${gpuSide.join('; ')}, or ${hostSide.join(' and ')}`);
  if (missing.length) return notAssessable('cpu_frontend_bottleneck', missing);
  const sm = medE(c, c.f.smAct);
  const rSm = rE(c, c.f.smAct);
  const rUtil = rE(c, c.f.util);
  const wait = medE(c, c.f.wait);
  const waitB = medB(c, c.f.wait);
  // A starved engine is slow wherever the host sits in the loop: tokenizing (TTFT), stepping (ITL), or both (e2e).
  const rSym = rAny(c, c.f.ttft99, c.f.ttftMean, c.f.itl99, c.f.itlMean, c.f.e2eMean);
  const kv = medE(c, c.f.kv);
  const rGtok = rE(c, c.f.gtok);
  const gap = new Float64Array(c.f.grid.n);
  for (let i = 0; i < gap.length; i++) gap[i] = c.f.ttftMean[i] - (Number.isFinite(c.f.queueMean[i]) ? c.f.queueMean[i] : 0) - (Number.isFinite(c.f.prefillMean[i]) ? c.f.prefillMean[i] : 0);
  const rGap = rE(c, gap);
  // "Starve the GPU" is a change: an engine that idled at SM active 0.4 before the incident as after it
  // is lightly loaded, not starved. The SM-active level must also have fallen as far as util's ratio.
  const starved = (sm <= T.frontend_sm_max && rSm <= T.frontend_util_ratio) || rUtil <= T.frontend_util_ratio;
  const frontGap = rGap >= T.frontend_gap_ratio;
  const down = rGtok <= T.frontend_down_ratio;
  const busy = c.f.smAct.some(Number.isFinite) ? c.f.smAct : c.f.util;
  const busyB = medB(c, busy);
  // Prompt tokens the GPU computed, after the prefix cache: a cache that stops hitting multiplies prefill work.
  const rWork = rAny(c, c.f.plenMean, c.f.plenP90, c.f.ptok, computedPromptTokens(c));
  const loraE = maxE(c, c.f.loraActive);
  // Demand beyond what the engine serves (the surge rule holds: arrivals up, requests piling up inside a
  // full engine, the queue carrying the latency): the engine, not the frontend, is the limit.
  const demand = fires(trafficSurge(c));
  const loraCap = T.max_loras ?? medE(c, c.f.loraMax);
  const onBusy = busy.some(Number.isFinite) ? departureOnset(c, busy, -1, (i) => busy[i] <= 0.8 * busyB) : null;
  return {
    id: 'cpu_frontend_bottleneck',
    missing: [],
    require: [
      cond(
        `GPU starved: sm_act ≤ ${T.frontend_sm_max} (and fell: r(sm_act) ≤ ${T.frontend_util_ratio}) OR r(util) ≤ ${T.frontend_util_ratio}; OR r(front_gap = TTFT − queue − prefill) ≥ ${T.frontend_gap_ratio}`,
        `sm_act ${fmt(sm)} (×${fmt(rSm)}), r(util) ${fmt(rUtil)}, r(front_gap) ${fmt(rGap)}`,
        starved || frontGap,
        T.frontend_util_ratio,
      ),
      cond(`wait > 0 (above the baseline) OR r(ttft, itl or e2e) ≥ ${T.frontend_ttft_ratio}`, `wait ${fmt(wait)} (baseline ${fmt(waitB)}), r(latency) ${fmt(rSym)}`, (wait > 0 && !(wait <= waitB)) || rSym >= T.frontend_ttft_ratio, T.frontend_ttft_ratio),
      cond(`kv ≤ ${T.frontend_kv_max}`, kv, kv <= T.frontend_kv_max, T.frontend_kv_max),
    ],
    support: [cond(`r(front_gap) ≥ ${T.frontend_gap_ratio} (TTFT − queue − prefill)`, rGap, frontGap), cond('GPU starved', starved, starved)],
    veto: [
      cond('GPU-bound: sm_act ≥ 0.8 and kv ≥ 0.9', `sm_act ${fmt(sm)}, kv ${fmt(kv)}`, sm >= 0.8 && kv >= 0.9),
      cond(`engine not serving (r(gtok) ≤ ${T.frontend_down_ratio}): an idle GPU behind a crash or hang is not a starved one`, rGtok, down, T.frontend_down_ratio),
      // TTFT outgrowing queue + prefill is also what longer prompts (chunked prefill interleaved with
      // decodes) and adapter loads do inside the engine: those are the engine's work, not a starved GPU.
      cond(`the engine's work grew: prompt length, prompt tokens/s or computed (uncached) prompt tokens/s ≥ ${T.prefix_prompt_veto}× (→ long_prompt_interference, prefix_cache_collapse)`, rWork, rWork >= T.prefix_prompt_veto, T.prefix_prompt_veto),
      cond('more LoRA adapters active than slots (→ lora_thrash)', `${fmt(loraE)} > ${fmt(loraCap)}`, loraE > loraCap),
      cond('a traffic surge holds: arrivals up, requests piling up inside a full engine, the queue carrying the latency (→ traffic_surge)', demand, demand),
    ],
    evidence: [
      ...(busy.some(Number.isFinite) ? [seriesEvidence(c, c.f.have.has(SIG.gpuSmActive) ? SIG.gpuSmActive : SIG.gpuUtil, `GPU ${c.f.have.has(SIG.gpuSmActive) ? `SM active ${fmt(sm)}` : `util ×${fmt(rUtil)}`} while requests wait`)] : []),
      ...(Number.isFinite(rGap) ? [seriesEvidence(c, SIG.latTtft, `TTFT beyond queue and prefill ×${fmt(rGap)}`)] : []),
    ],
    onset_ms: onBusy ?? departureOnset(c, gap, 1, (i) => ratio(gap[i], medB(c, gap)) >= T.frontend_gap_ratio),
  };
};
