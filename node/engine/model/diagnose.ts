// The diagnosis entry: an incident in the store → windows, (R, S) and quadrants, onset, alerts, ranked
// causes with their conditions and evidence, the leak section (docs/four-quadrant-model.md §7; the output, §10).
//
// Evaluation span: the rules read the degraded episode, from the joint trigger to the last window with
// S ≥ θS — or, when the trigger never fires, from the strongest shift of a core signal after the
// baseline (change-onset.ts), or a sustained symptom alert's start, to where the last sustained symptom
// resolved (the end while one is on). Without any, they read everything after the baseline, so a
// change that never hurt service (a leak still filling headroom) is judged against the baseline all the
// same. Where nothing explains an abnormal episode, each sustained symptom's own stretch is read in turn
// (streakSpans). The reported onset is where the top cause's chain began (incidentOnset).
import type { Alert, AnalyzeOptions, CauseCheck, Coverage, DiagnosisStatus, CauseId, CauseResult, Diagnosis, Evidence, Quadrant, WindowScore } from '../../../common/contract/diagnosis';
import { evaluateAlerts, forWindows, sustainedSymptoms } from './alerts';
import { EV } from '../../../common/names';
import { defaultBaselineSpan, mad, median, quantile } from './baseline';
import type { CauseContext, CauseDefinition, Range, RuleResult } from './causes/context';
import { rankCauses } from './causes/rank';
import { CAUSES } from './causes/registry';
import { DEFAULT_CONFIG, type ModelConfig, type TriggerThresholds } from './config';
import { changeOnset } from './change-onset';
import { buildFrame, frameReads, type Frame } from './frame';
import { jointOnset, sustainedJointOnset } from './joint-trigger';
import { latencyBands, latencyMeasured, latencyRise, type LatencyBand } from './latency-bands';
import { abnormalEvidence, isOutageEvidence } from './unexplained';
import { engineExtent, instanceGroups, mergeFleet, signalsFor } from './fleet';
import { analyzeKv, type KvAnalysis } from './kvcache';
import { fragmentation, leakReport, pickMemoryTrend, type Fragmentation, type MemoryTrend } from './leak';
import { normalize, type Dimensions, type References } from './normalize';
import { quadrantOf, quadrantPath } from './quadrants';
import { loadSignals, type IncidentSource, type Signals } from './signals-from-store';
import { signalGrid } from './series-buckets';
import { windowAt, windowsWithin } from './windows';

export interface AnalysisDetail {
  diagnosis: Diagnosis;
  frame: Frame;
  dims: Dimensions;
  span: Range;
  episode: boolean;
  /** Time from onset until the top cause stopped changing (null without an onset or a cause). */
  convergence_ms: number | null;
  path: { quadrant: Quadrant; from_ms: number }[];
  kv: KvAnalysis | null;
  trend: MemoryTrend | null;
  frag: Fragmentation | null;
  sampling_interval_ms: number;
}

const r4 = (x: number) => (Number.isFinite(x) ? Math.round(x * 10_000) / 10_000 : 0);

export function analyzeIncident(store: IncidentSource, incidentId: number, options: AnalyzeOptions = {}, config: ModelConfig = DEFAULT_CONFIG): Diagnosis {
  return analyzeSignals(loadSignals(store, incidentId), options, config).diagnosis;
}

export function analyzeIncidentDetailed(store: IncidentSource, incidentId: number, options: AnalyzeOptions = {}, config: ModelConfig = DEFAULT_CONFIG): AnalysisDetail {
  return analyzeSignals(loadSignals(store, incidentId), options, config);
}

/**
 * The diagnosis of an incident: one analysis of everything, and where the incident holds several serving
 * instances, one of each folded in (fleet.ts) so a faulty replica is not averaged away.
 */
export function analyzeSignals(sig: Signals, options: AnalyzeOptions = {}, cfg: ModelConfig = DEFAULT_CONFIG): AnalysisDetail {
  const whole = analyzeOne(sig, options, cfg);
  const groups = instanceGroups(sig);
  if (groups.length < 2 || groups.length > cfg.max_instances) return whole;
  const per = groups.map((group) => {
    const own = signalsFor(sig, group, groups);
    return { group, d: analyzeOne(own, options, cfg).diagnosis, extent: engineExtent(own) };
  });
  return { ...whole, diagnosis: mergeFleet(whole.diagnosis, per) };
}

function analyzeOne(sig: Signals, options: AnalyzeOptions, cfg: ModelConfig): AnalysisDetail {
  const preset = options.preset ?? 'default';
  const th = cfg.presets[preset];
  // The grid covers the dense part of the data only; silent stretches longer than gap_split_ms are reported, not gridded.
  const { dense, startMs, endMs, interval, grid, engineFrom } = signalGrid(sig, cfg, (name) => frameReads(name, cfg.causes.kv_full));
  const f = buildFrame(sig, grid, cfg.causes.kv_full);

  const baselineSpan = options.baseline ?? defaultBaselineSpan(engineFrom, endMs, cfg.baseline_fraction, cfg.baseline_max_ms, interval, cfg.baseline_min_scrapes);
  const base = windowsWithin(grid, baselineSpan.start_ms, baselineSpan.end_ms);
  const inBase = (i: number) => i >= base[0] && i <= base[1];
  const b = (x: Float64Array) => x.subarray(base[0], base[1] + 1);

  const latencyRef = f.e2e99.some(Number.isFinite) ? f.e2e99 : f.ttft99;
  const q95B = b(f.q95);
  const queueSigmaMs = 1.4826 * mad(q95B) * 1000;
  const refs: References = {
    p99: median(b(latencyRef)),
    tps: median(b(f.gtok)),
    lamIn: median(b(f.lamIn)),
    tokenPeak: cfg.token_peak ?? quantile(b(f.gtok), 0.95),
    memUsed: new Map(f.gpus.map((g) => [g.key, median(b(g.memUsed))])),
    q95ms: median(q95B) * 1000,
    queueRiseMs: Math.max(cfg.queue_latency_ms / 2, cfg.trigger_noise_z * (Number.isFinite(queueSigmaMs) ? queueSigmaMs : 0)),
  };
  // ΔP99 and ΔTPS do not depend on the thresholds: a first pass measures the baseline's own spread of
  // them, and the latency and throughput terms then reach 0.5 at θ or at trigger_noise_z spreads,
  // whichever is larger — the same guard as the joint trigger. P99 end-to-end latency of 10 s windows
  // swings by seconds when nothing is wrong, and θℓ = 150 ms alone would keep S high in healthy traffic.
  const spread = normalize(f, refs, cfg, th);
  const latencySigmaMs = 1.4826 * mad(b(spread.dP99ms));
  const tpsSigma = 1.4826 * mad(b(spread.dTps));
  const bands = latencyBands(f, base, cfg, th);
  // The band of the latency the S term and the joint trigger read: e2e, else TTFT.
  const latencyBand = bands.find((b) => b.family === (spread.latencySignal === 'e2e99' ? 'e2e' : 'ttft'));
  const noiseAware: TriggerThresholds = {
    latency_ms: Math.max(th.latency_ms, cfg.trigger_noise_z * (Number.isFinite(latencySigmaMs) ? latencySigmaMs : 0), wholeSpanRiseMs(latencyBand, refs.p99)),
    throughput_drop: Math.max(th.throughput_drop, cfg.trigger_noise_z * (Number.isFinite(tpsSigma) ? tpsSigma : 0)),
  };
  // The P99 the S term and the joint trigger read is backed as the alerts' bands back it: one slow request in a
  // window of thirty is its P99 (a healthy day's e2e P99 toggled between vLLM's 10 s bucket edge and 13 s,
  // its mean flat, and sat "contended" in 40% of its windows).
  const latencyBacked = latencyBand?.backed ?? null;
  const dims = normalize(f, refs, cfg, noiseAware, latencyBacked);
  const quadrants = Array.from({ length: grid.n }, (_, i) => quadrantOf(dims.R[i], dims.S[i], cfg.theta_R, cfg.theta_S));
  const latencyHigh = Array.from({ length: grid.n }, (_, i) => (latencyRise(bands, i) !== null ? true : latencyMeasured(bands, i) ? false : null));
  // The joint trigger (§5): e2e P99 beyond θℓ and its noise guard, or TTFT / ITL / queue beyond their bands, with the token rate down.
  const latRise = Array.from({ length: grid.n }, (_, i) => (dims.dP99ms[i] > noiseAware.latency_ms && (latencyBacked === null || latencyBacked(i))) || latencyHigh[i] === true);
  const tpsFall = Array.from({ length: grid.n }, (_, i) => dims.dTps[i] < -noiseAware.throughput_drop);
  const onsetIndex = jointOnset(latRise, tpsFall, cfg.trigger_hold_windows, 0, inBase);

  const alerts = evaluateAlerts(
    { t: f.t, latencyHigh, errFrac: f.errFrac, throughputTerm: dims.throughputTerm, R: dims.R },
    { error_rate: cfg.error_rate, theta_R: cfg.theta_R, for_windows: forWindows(cfg.alerts.for_ms, grid.step) },
  );

  const ooms = sig.events.filter((e) => e.kind === EV.oom);
  const trend = pickMemoryTrend(f, base, ooms);
  const frag = fragmentation(f, ooms);
  const judgeAgainst = (reference: Range, at: { span: Range; episode: boolean }) => {
    const ctx: CauseContext = { f, dims, cfg, sig, base: reference, ...at, onsetIndex, trend, frag, kv: analyzeKv(f, at.span, cfg.causes.kv_full) };
    const run = runRulesWatchingSpan(ctx);
    return { ctx, ...run, causes: rankCauses(run.results, at.episode ? f.t[at.span[0]] : null, 2 * grid.W) };
  };
  // An episode hours into the data is also judged against the minutes before it (localReference), whose answer
  // stands where it names another cause. The baseline's stands where it is a growth since the data began (a
  // leak: the minutes before the episode lie inside it), or the cause both name: the baseline dates it (a
  // client-side slowdown five hours before its latency episode was dated at the episode against the minutes
  // before it). A baseline the user chose is the only one.
  const judge = (at: { span: Range; episode: boolean }) => {
    const whole = judgeAgainst(base, at);
    const local = options.baseline || !at.episode ? null : localReference(f, base, at.span[0], cfg);
    const top = whole.causes[0]?.id;
    if (!local || (top !== undefined && GROWTHS.has(top))) return whole;
    const near = judgeAgainst(local, at);
    return near.causes.length && near.causes[0].id !== top ? near : whole;
  };
  const sustainedTrigger = onsetIndex < 0 ? -1 : sustainedJointOnset(latRise, tpsFall, f.t, grid.W, cfg.alerts.incident_min_ms, inBase);
  let judged = judge(evaluationSpan(f, dims, cfg, onsetIndex, base, alerts, sustainedTrigger >= 0));
  const abnormal = abnormalEvidence({ f, sig, cfg, base, alerts, onsetIndex: sustainedTrigger });
  // Nothing explains an episode that is one (abnormal evidence): each sustained symptom is read on its own,
  // longest first. A day with an evening peak's alerts hours before a 19-minute surge read the surge's
  // arrivals over both (×1.09).
  if (!judged.causes.length && abnormal.length) {
    for (const at of [...streakSpans(f, cfg, base, alerts, judged.ctx.span), ...faultSpans(f, base, abnormal, judged.ctx.span)]) {
      const alone = judge({ span: at, episode: true });
      if (alone.causes.length) {
        judged = alone;
        break;
      }
    }
  }
  const { ctx, results, spanFree, causes } = judged;
  const { span, episode, kv } = ctx;
  const coverage = coverageOf(sig, f, bands, dense ? dense.end_ms - dense.start_ms : endMs - startMs, cfg);
  const status: DiagnosisStatus = causes.length ? 'explained' : abnormal.length ? 'unexplained' : coverage.span_ms < coverage.need_ms ? 'insufficient' : 'healthy';
  const unexplained = status === 'unexplained' ? { onset_ms: abnormal[0].start_ms, evidence: abnormal } : null;
  const onsetMs = incidentOnset(causes, onsetIndex >= 0 ? f.t[onsetIndex] : null) ?? unexplained?.onset_ms ?? null;
  const leakFires = causes.some((c) => c.id === 'gpu_memory_leak');

  const windows: WindowScore[] = new Array(grid.n);
  for (let i = 0; i < grid.n; i++) {
    windows[i] = { t_ms: f.t[i], R: r4(dims.R[i]), S: r4(dims.S[i]), quadrant: quadrants[i], scores: { gpu_mem: r4(dims.gpuMem[i]), kv: r4(dims.kv[i]), tokens: r4(dims.tokens[i]), queue: r4(dims.queue[i]) } };
  }
  const diagnosis: Diagnosis = {
    incident: { start_ms: startMs, end_ms: endMs },
    baseline: { start_ms: Math.round(baselineSpan.start_ms), end_ms: Math.round(baselineSpan.end_ms) },
    causes_baseline: ctx.base === base ? undefined : { start_ms: f.t[ctx.base[0]], end_ms: f.t[ctx.base[1]] + grid.W },
    preset,
    onset_ms: onsetMs,
    windows,
    quadrant_thresholds: { theta_R: cfg.theta_R, theta_S: cfg.theta_S },
    alerts,
    causes,
    not_assessable: results.filter((r) => r.missing.length).map((r) => ({ id: r.id, missing: r.missing })),
    leak: leakReport(trend, sig.sites, leakFires),
    convergence_ms: onsetMs !== null && causes.length ? convergence(ctx, causes[0].id, onsetMs, results, spanFree) : null,
    trigger: Number.isFinite(refs.p99) && dims.latencySignal
      ? { signal: dims.latencySignal === 'e2e99' ? 'lat.e2e' : 'lat.ttft', baseline_p99_ms: refs.p99 * 1000, theta_ms: th.latency_ms, threshold_ms: refs.p99 * 1000 + th.latency_ms }
      : undefined,
    status,
    checked: checkedCauses(results, causes),
    unexplained,
    coverage,
    window_ms: grid.W,
    step_ms: grid.step,
    gaps: dense?.gaps ?? [],
  };
  return {
    diagnosis,
    frame: f,
    dims,
    span,
    episode,
    convergence_ms: diagnosis.convergence_ms ?? null,
    path: quadrantPath(f.t, quadrants),
    kv,
    trend,
    frag,
    sampling_interval_ms: interval,
  };
}

/**
 * What the series could judge. "Healthy" claims that nothing held long enough to alert after a baseline,
 * so it needs the baseline's share of the span and then an alert's hold (alerts.for_ms): below that
 * (a pasted log fragment, one scrape, a log of events with no series at all) nothing could have alerted,
 * and the verdict says the data are too little instead.
 */
function coverageOf(sig: Signals, f: Frame, bands: readonly LatencyBand[], denseMs: number, cfg: ModelConfig): Coverage {
  const hasSeries = [...sig.series.values(), ...sig.histograms.values()].some((list) => list.length > 0);
  // What a verdict of too little data can still point at: a pasted traceback is an error, if not a crash.
  const errors = sig.events.filter((e) => e.severity === 'error' || e.severity === 'critical').sort((a, b) => a.ts_ms - b.ts_ms);
  return {
    span_ms: hasSeries ? Math.max(0, denseMs) : 0,
    need_ms: Math.ceil(cfg.alerts.for_ms / (1 - cfg.baseline_fraction)),
    latency: bands.some((b) => b.x.some(Number.isFinite)) || f.e2e99.some(Number.isFinite) || f.ttft99.some(Number.isFinite),
    throughput: f.gtok.some(Number.isFinite),
    error_events: errors.length,
    first_error: errors.length ? errors[0].text.split('\n')[0].slice(0, 160) : null,
  };
}

/**
 * The incident began where its causal chain began: the earliest onset among the top cause and the
 * upstream causes of its chain (a surge that filled the KV cache started the incident, not the first
 * preemption). The joint trigger marks when users felt it, which lags a ramp; it is the onset only when
 * no cause explains the episode.
 */
function incidentOnset(causes: CauseResult[], triggerMs: number | null): number | null {
  const top = causes[0];
  if (!top) return triggerMs;
  const onsets = top.chain.map((id) => causes.find((c) => c.id === id)?.onset_ms ?? null).filter((x): x is number => x !== null);
  return onsets.length ? Math.min(...onsets) : triggerMs;
}

/** Every cause as checked: fired in rank order, then not fired (with the conditions that failed), then not assessable. */
function checkedCauses(results: RuleResult[], causes: CauseResult[]): CauseCheck[] {
  const fired: CauseCheck[] = causes.map((c) => ({ id: c.id, verdict: 'fired', failed: [], missing: [] }));
  const firedIds = new Set(causes.map((c) => c.id));
  const rest = results.filter((r) => !firedIds.has(r.id));
  const notFired: CauseCheck[] = rest.filter((r) => !r.missing.length).map((r) => ({ id: r.id, verdict: 'not_fired', failed: [...r.require.filter((c) => !c.held), ...r.veto.filter((c) => c.held)], missing: [] }));
  const na: CauseCheck[] = rest.filter((r) => r.missing.length).map((r) => ({ id: r.id, verdict: 'not_assessable', failed: [], missing: r.missing }));
  return [...fired, ...notFired, ...na];
}

const RULES: readonly CauseDefinition[] = Object.values(CAUSES);

/**
 * Every rule's result, and for each whether it read the evaluation span at all (`ctx.span`, directly or
 * through the helpers in causes/context.ts). A rule is a function of its context alone, so one that never
 * read the span answers the same on any span: the convergence step reuses its result instead of running it
 * again on each of its spans (on the analysis benchmark's 24 h incident, about half of the rules' time).
 */
export function runRulesWatchingSpan(ctx: CauseContext, rules = RULES): { results: RuleResult[]; spanFree: boolean[] } {
  let read = false;
  const watched: CauseContext = {
    ...ctx,
    get span() {
      read = true;
      return ctx.span;
    },
  };
  const spanFree: boolean[] = [];
  const results = rules.map((d) => {
    read = false;
    const r = d.rule(watched);
    spanFree.push(!read);
    return r;
  });
  return { results, spanFree };
}

/** The rise the whole span's own spread allows (the latency band's floor), ms above the baseline's P99. */
function wholeSpanRiseMs(band: LatencyBand | undefined, baseP99: number): number {
  return band && Number.isFinite(band.floor_s) && Number.isFinite(baseP99) ? (band.floor_s - baseP99) * 1000 : 0;
}

/** The degraded episode (see the header), or the post-baseline stretch when there is none. */
export function evaluationSpan(f: Frame, dims: Dimensions, cfg: ModelConfig, onsetIndex: number, base: Range, alerts: readonly Alert[] = [], jointSustained = true): { span: Range; episode: boolean } {
  const n = f.grid.n;
  const sustained = sustainedSymptoms(alerts, f.t[n - 1] + f.grid.W, cfg.alerts.incident_min_ms);
  const streakStart = (a: Alert) => Math.floor((a.first_fired_ms - f.grid.t0) / f.grid.step) - (forWindows(cfg.alerts.for_ms, f.grid.step) - 1);
  // A joint trigger that held for less than alerts.incident_min_ms, after a symptom had already been sustained,
  // is a moment inside the episode, not its start: a TTFT alert on for 11 hours from the onset, then a
  // 30-second joint trigger at the end, read every rule over those 30 seconds.
  const firstStreak = sustained.length ? streakStart(sustained[0]) : -1;
  const momentary = !jointSustained && firstStreak > base[1] && onsetIndex < n && f.t[firstStreak] + cfg.alerts.incident_min_ms <= f.t[onsetIndex];
  if (onsetIndex >= 0 && onsetIndex < n && !momentary) {
    let end = onsetIndex;
    for (let i = onsetIndex; i < n; i++) if (dims.S[i] >= cfg.theta_S) end = i;
    return { span: [onsetIndex, Math.max(end, Math.min(n - 1, onsetIndex + 1))], episode: true };
  }
  // Either episode below reads to where the last sustained symptom resolved, where every one did: the
  // hours after service recovered would dilute each median of the episode (a surge's arrivals read over
  // the quiet after it). A shift no symptom followed (a leak still filling headroom), or one still
  // hurting, reads to the end.
  const resolved = sustained.length && sustained.every((a) => a.resolved_ms !== null) ? Math.max(...sustained.map((a) => a.resolved_ms!)) : null;
  const endFrom = (start: number) => {
    const end = resolved === null ? n - 1 : Math.min(n - 1, Math.ceil((resolved - f.grid.t0) / f.grid.step));
    return end > start ? end : n - 1;
  };
  const cp = changeOnset(f, base);
  if (cp) return { span: [cp.index, endFrom(cp.index)], episode: true };
  // A symptom that stayed on without the token rate falling (a decode slowdown at steady arrivals: the
  // engine keeps up, every request is slower): the episode starts where its first sustained alert's streak
  // began. Read over the whole day instead, a rise in the last quarter of an hour averages away.
  const first = sustained[0];
  if (first) {
    const at = streakStart(first);
    if (at > base[1] && at < n) return { span: [at, endFrom(at)], episode: true };
  }
  return { span: [Math.min(n - 1, base[1] + 1), n - 1], episode: false };
}

/**
 * Each sustained symptom alert's own stretch, from where its streak began to where it resolved (the end while
 * it is on), the MAX_STREAKS longest, longest first, leaving out `whole` (the span already read) and stretches inside the baseline.
 */
function streakSpans(f: Frame, cfg: ModelConfig, base: Range, alerts: readonly Alert[], whole: Range): Range[] {
  const n = f.grid.n;
  const endMs = f.t[n - 1] + f.grid.W;
  const lead = forWindows(cfg.alerts.for_ms, f.grid.step) - 1;
  const out: { span: Range; ms: number }[] = [];
  for (const a of sustainedSymptoms(alerts, endMs, cfg.alerts.incident_min_ms)) {
    const from = Math.max(base[1] + 1, Math.floor((a.first_fired_ms - f.grid.t0) / f.grid.step) - lead);
    const to = a.resolved_ms === null ? n - 1 : Math.min(n - 1, Math.ceil((a.resolved_ms - f.grid.t0) / f.grid.step));
    if (from >= n || to <= from || (from === whole[0] && to === whole[1])) continue;
    if (out.some((o) => o.span[0] === from && o.span[1] === to)) continue;
    out.push({ span: [from, to], ms: (a.resolved_ms ?? endMs) - a.first_fired_ms });
  }
  return out
    .sort((x, y) => y.ms - x.ms)
    .slice(0, MAX_STREAKS)
    .map((o) => o.span);
}

/**
 * From each fault event and outage of the abnormal evidence (an Xid, a crash, the engine silent) to the end,
 * earliest first, leaving out `whole` and the baseline: the rules that read a fault in their window see it
 * there. An Xid 94 an hour after a latency alert had resolved lay outside the alert's span, and the bundle
 * read "unexplained" with the Xid as its evidence.
 */
function faultSpans(f: Frame, base: Range, abnormal: readonly Evidence[], whole: Range): Range[] {
  const n = f.grid.n;
  const out: Range[] = [];
  for (const e of abnormal) {
    if (e.kind !== 'event' && !isOutageEvidence(e)) continue;
    const from = Math.max(base[1] + 1, windowAt(f.grid, e.start_ms));
    if (from >= n - 1 || (from === whole[0] && n - 1 === whole[1]) || out.some((o) => o[0] === from)) continue;
    out.push([from, n - 1]);
    if (out.length >= MAX_STREAKS) break;
  }
  return out;
}

/** Causes that are a growth since the data began: read against the baseline, however late their episode. */
const GROWTHS: ReadonlySet<CauseId> = new Set<CauseId>(['gpu_memory_leak', 'host_memory_leak', 'kv_block_leak']);

/**
 * The reference an episode's causes are read against when it began long after the baseline: the
 * baseline's length (at most baseline_max_ms), ending local_reference.guard_ms before the episode; null
 * for an episode within local_reference.after_ms of the baseline's end (the baseline is recent enough).
 *
 * The baseline is the first minutes of the data. Hours later, a day's traffic has moved arrivals ×1.5–2.5
 * and prompt lengths with it: every rule's ratio then measures the day as much as the fault (a KV
 * exhaustion hours in read as long prompts, prompts having grown ×2 since the morning). What changed at the
 * episode is what the minutes before it show. The guard keeps a ramp the joint trigger lags (a pool
 * filling, arrivals climbing) out of the reference: at 5 min a surge's own ramp lay in it, and the surge
 * read as the KV exhaustion it caused.
 */
function localReference(f: Frame, base: Range, spanStart: number, cfg: ModelConfig): Range | null {
  const { after_ms, guard_ms } = cfg.local_reference;
  const t = f.t;
  if (spanStart <= base[1] || t[spanStart] - t[base[1]] <= after_ms) return null;
  const length = Math.max(t[base[1]] - t[base[0]], f.grid.step);
  const end = windowAt(f.grid, t[spanStart] - guard_ms);
  const start = windowAt(f.grid, t[end] - length);
  return start > base[1] && end > start ? [start, end] : null;
}

/** Each stretch costs a run of every rule: a month of alerts is read by its longest few. */
const MAX_STREAKS = 8;

/**
 * Time from the onset until the top cause stopped changing: the rules rerun on growing spans (W, 2W,
 * 4W, … after the episode's start) and the answer is the end of the first span from which the top cause
 * is the final one, measured from the onset. `whole` and `spanFree` are runRulesWatchingSpan's answer on
 * the whole span: only the rules that read the span run again.
 */
export function convergence(ctx: CauseContext, finalTop: CauseId, onsetMs: number, whole: RuleResult[], spanFree: boolean[], rules = RULES): number | null {
  const [a, z] = ctx.span;
  const marks: number[] = [];
  for (let k = 1; a + k < z; k *= 2) marks.push(a + k);
  marks.push(z);
  let settled: number | null = null;
  for (const m of marks) {
    // The last span is the whole one, whose results are those already made.
    const at: CauseContext = { ...ctx, span: [a, m] };
    const results = m === z ? whole : rules.map((d, k) => (spanFree[k] ? whole[k] : d.rule(at)));
    const top = rankCauses(results, null, 2 * ctx.f.grid.W)[0]?.id;
    if (top === finalTop) settled ??= m;
    else settled = null;
  }
  return settled === null ? null : Math.max(0, ctx.f.t[settled] + ctx.f.grid.W - onsetMs);
}
