// Deploy regression: a lasting step in a core KPI at a version, config or deploy event, with the
// workload stable around it.
import type { EventRow } from '../../../../common/contract/types';
import { EV, SIG, type EventKind } from '../../../../common/names';
import { mad, median, ratio } from '../baseline';
import { changePoint } from '../change-point';
import {
  cond, defineCause, eventEvidence, events, fmt, notAssessable, seriesEvidence, spanEnd, spanStart, type CauseContext, type RuleResult,
} from './context';
import { CRASH_KINDS } from './shared';
import { densest, metricRestarts } from '../restarts';

export const deployRegression = defineCause({
  id: 'deploy_regression',
  level: 3,
  rule,
});

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

interface DeployCandidate {
  e: EventRow;
  /** Whether the version changed: true, false, or null where the previous one is not in the bundle. */
  changed: boolean | null;
  kpi: string;
  size: number;
  /** The KPI step this candidate had to show. */
  need: number;
  at: number;
  stable: number | null;
  /** Read as a lower batch ceiling since the change (lowerCeiling), not a KPI's step at it. */
  ceiling?: boolean;
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
  // Three windows of data, or every window the deploy window holds where it holds fewer (5-minute scrapes
  // give two windows in ten minutes: a rollout there read as the start of the recording).
  if (before < Math.max(1, Math.min(3, split - a))) return 'no engine data before it (the start of the recording)';
  const changed = versionChanged(e, versions);
  const crashed = crashes.some((x) => x.ts_ms <= e.ts_ms && x.ts_ms >= e.ts_ms - cc.deploy_window_ms);
  if (e.kind !== EV.config && e.kind !== EV.deploy && changed !== true && crashed) return 'a restart after a crash with the same version';
  // A restart that brings back the version it stopped (and no config change logged) redeployed nothing.
  if (e.kind !== EV.config && e.kind !== EV.deploy && changed === false) return 'a restart with the same version';
  return null;
}

/**
 * Whether a KPI came back to the level it had before a change event, at the load it had then, for
 * `deploy_recovery_ms` (at least four windows) within `deploy_recovery_horizon_ms` of the event or before the
 * next change event: medians over stretches of that length, half a stretch apart, from the end of the warm-up.
 * A regression lasts while the new version runs; a restart's backlog (a replica down for a minute leaves a
 * queue that a loaded engine drains for ten), or a bump that passes, does not.
 */
function recovered(c: CauseContext, x: Float64Array, dir: number, back: number, a: number, split: number, warm: number, until: number): boolean {
  const cc = c.cfg.causes;
  const g = c.f.grid;
  const level = median(x.subarray(a, Math.max(a + 1, split)));
  const load = median(c.f.lamIn.subarray(a, Math.max(a + 1, split)));
  if (!(level > 0)) return false;
  const span = Math.max(cc.deploy_recovery_ms, 4 * g.W);
  const width = Math.max(1, Math.round((span - g.W) / g.step) + 1);
  const hop = Math.max(1, Math.floor(width / 2));
  for (let i = warm; i + width <= g.n && c.f.t[i + width - 1] + g.W <= until; i += hop) {
    const kpi = median(x.subarray(i, i + width));
    const lam = median(c.f.lamIn.subarray(i, i + width));
    if (!Number.isFinite(kpi)) continue;
    if (Number.isFinite(load) && !(lam >= (1 - cc.workload_tolerance) * load)) continue;
    if (dir * (kpi / level - 1) < back) return true;
  }
  return false;
}

/** The share of the median request's time (e2e P50 before the change) a queue P99 must rise by to count. */
const QUEUE_MATERIAL = 0.1;

/** Least time requests must have waited at the lower ceiling: a few windows, ten minutes at least. */
const CEILING_MIN_MS = 10 * 60_000;
/** How far below the batch served without a queue before the change the new ceiling must sit. */
const CEILING_CUT = 0.1;

/**
 * A lower concurrency ceiling since a change (a smaller max_num_seqs or concurrency limit, a smaller KV pool):
 * after the warm-up and before `end` (the next change), windows with requests waiting all through them
 * (CEILING_MIN_MS of them at least), at a batch (their median running) CEILING_CUT below the most the engine
 * ran before the change with no queue at all, at arrivals no higher than it served then and requests of the
 * same lengths. Such a change shows at the next peak, hours after the rollout, where no KPI steps at the
 * change itself. Null where not.
 */
function lowerCeiling(c: CauseContext, split: number, warm: number, end: number, tolerance: number): { before: number; after: number; at: number } | null {
  const f = c.f;
  const queued: number[] = [];
  for (let i = warm; i <= end; i++) if (f.waitMin[i] >= 1 && Number.isFinite(f.run[i])) queued.push(i);
  if (queued.length * f.grid.step < Math.max(CEILING_MIN_MS, 3 * f.grid.W)) return null;
  const free: number[] = [];
  for (let i = 0; i < split; i++) if (Number.isFinite(f.run[i]) && f.waitMax[i] === 0) free.push(i);
  if (free.length < 3) return null;
  const pick = (idx: number[], x: Float64Array) => Float64Array.from(idx, (i) => x[i]);
  // A loop, not Math.max(...): a day of windows is more arguments than a call may take.
  const most = (idx: number[], x: Float64Array) => idx.reduce((m, i) => (x[i] > m ? x[i] : m), -Infinity);
  const after = median(pick(queued, f.run));
  const before = most(free, f.runMax);
  if (!(after > 0 && before > 0 && after <= (1 - CEILING_CUT) * before)) return null;
  // The same load: arrivals no higher than those served without a queue, lengths within the tolerance.
  if (!(median(pick(queued, f.lamIn)) <= (1 + tolerance) * most(free, f.lamIn))) return null;
  for (const x of [f.plenMean, f.glenMean]) {
    const r = ratio(median(pick(queued, x)), median(pick(free, x)));
    if (Number.isFinite(r) && Math.abs(r - 1) > tolerance) return null;
  }
  return { before, after, at: f.t[queued[0]] };
}

/** Id of a restart read off the metrics (no row in the events table behind it). */
const FROM_METRICS = -1;

/**
 * Restarts the metrics saw and no log recorded (a bundle without engine logs): each new
 * process_start_time_seconds of an endpoint, as an engine_restart. A loop of them is a crash loop, not a
 * rollout (a rolling deploy restarts each replica once), so an endpoint's restarts count only while it
 * restarted fewer times than a loop takes.
 */
function restartsFromMetrics(c: CauseContext, logged: EventRow[]): EventRow[] {
  const cc = c.cfg.causes;
  const out: EventRow[] = [];
  for (const r of metricRestarts(c.sig)) {
    if (densest(r.times, cc.crash_loop_window_ms).count >= cc.crash_loop_restarts) continue;
    for (const [k, t] of r.times.entries()) {
      if (logged.some((e) => Math.abs(e.ts_ms - t) <= cc.deploy_window_ms)) continue;
      const where = r.labels.instance ? ` (${r.labels.instance})` : '';
      out.push({ id: FROM_METRICS, ts_ms: t, kind: EV.engineRestart, severity: 'info', source_id: null, source_path: null, line: null, text: `a new engine process${where}: process_start_time_seconds moved`, attrs: { from: 'metrics', last_seen_ms: r.lastSeen[k], ...r.labels } });
    }
  }
  return out;
}

/**
 * The end of the last window with engine data (tokens or a batch) at or before `split`, back to `a`; `ts` where
 * the data runs up to the event.
 */
function lastDataBefore(c: CauseContext, a: number, split: number, ts: number): number {
  const has = (i: number) => Number.isFinite(c.f.gtok[i]) || Number.isFinite(c.f.run[i]);
  let k = Math.min(split, c.f.grid.n - 1);
  if (has(k)) return ts;
  while (k > a && !has(k)) k--;
  return has(k) ? Math.min(ts, c.f.t[k] + c.f.grid.W) : ts;
}

/** The KPI's series around its step; a lower ceiling as the running series where requests first waited at it. */
function kpiEvidence(c: CauseContext, found: DeployCandidate) {
  const sig: Record<string, string> = { itl50: SIG.latItl, e2e99: SIG.latE2e, ttft99: SIG.latTtft, 'ttft mean': SIG.latTtft, q99: SIG.latQueue };
  const text = found.ceiling ? `${found.kpi}: ${fmt(found.size * 100)}% below` : `${found.kpi} changed ${fmt(found.size * 100)}% at the change`;
  return seriesEvidence(c, found.ceiling ? SIG.reqRunning : (sig[found.kpi] ?? SIG.tokensGeneration), text, found.at - c.f.grid.W, found.at + c.f.grid.W);
}

/** A logged event as itself; a restart read off the metrics as the start-time series around it. */
function changeEvidence(c: CauseContext, e: EventRow) {
  return e.id === FROM_METRICS ? seriesEvidence(c, SIG.processStart, e.text, e.ts_ms - c.f.grid.W, e.ts_ms + c.f.grid.W) : eventEvidence(e);
}

function rule(c: CauseContext): RuleResult {
  const cc = c.cfg.causes;
  const logged = c.f.have.has('events') ? events(c, ...CHANGE_KINDS, EV.engineStart) : [];
  const fromMetrics = restartsFromMetrics(c, logged);
  if (!c.f.have.has('events') && !fromMetrics.length) return notAssessable('deploy_regression', ['events (version/config/deploy/engine_restart) or process_start_time_seconds']);
  // From the end of the baseline, not only near the span: a rollout that slows decode by half may move
  // e2e P99 past the alert only when the day's peak arrives, long after the deploy. Each candidate still
  // needs a lasting KPI step at its own time, which random events do not bring.
  const from = Math.min(spanStart(c), c.f.t[c.base[1]] + c.f.grid.W) - cc.deploy_window_ms;
  const changes = [...events(c, ...CHANGE_KINDS), ...fromMetrics].filter((e) => e.ts_ms >= from && e.ts_ms <= spanEnd(c));
  const versions = events(c, EV.version, EV.engineStart, EV.engineRestart).sort((x, y) => x.ts_ms - y.ts_ms);
  const crashes = events(c, ...CRASH_KINDS);
  const perRun = new Float64Array(c.f.grid.n);
  for (let i = 0; i < perRun.length; i++) perRun[i] = c.f.run[i] > 0 ? c.f.gtok[i] / c.f.run[i] : NaN;
  // A P99 read off histogram buckets moves within a bucket on the tail's chance (60 requests a window put
  // P99 anywhere in 0.25–0.5 s): where the exact mean (sum ÷ count) is exported it must step the same way,
  // by half the step asked of the quantile at least. A regression slows the body of the requests too.
  // Tokens per running request fall where decode slowed, which the exact ITL mean shows, and as much where
  // more requests run at the same pace (longer outputs, a few more at low concurrency: 5 → 7.5 running at
  // the same tokens/s and ITL read as a 35% fall): where the ITL mean is exported it must rise with it.
  const exact = (x: Float64Array) => (x.some(Number.isFinite) ? x : null);
  const itlMean = exact(c.f.itlMean);
  const kpis: [string, Float64Array, number, Float64Array | null][] = [
    ['itl50', itlMean ?? c.f.itl50, 1, null],
    ['e2e99', c.f.e2e99, 1, exact(c.f.e2eMean)],
    ['ttft99', c.f.ttft99, 1, exact(c.f.ttftMean)],
    // The exact TTFT mean on its own too, as ITL's: a prefill 1.6× slower on every request moved TTFT P99 by
    // 17% at 60 s scrapes (the tail sat inside one bucket, 0.21 → 0.25 s) while the mean rose 56%.
    ...(exact(c.f.ttftMean) ? [['ttft mean', c.f.ttftMean, 1, null] as [string, Float64Array, number, null]] : []),
    ['tokens per running request', perRun, -1, itlMean],
    // Time in the queue: a version or a config that admits fewer requests at once (a lower max_num_seqs, a
    // smaller KV pool) makes requests wait at a load that never queued before, with decode no slower.
    ['q99', c.f.q99, 1, exact(c.f.queueMean)],
  ];
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
    // A restart known only from the metrics brings no version: the step alone must carry the claim, and a
    // restart that changed nothing still costs a cold cache and a warm-up.
    const need = e.id === FROM_METRICS ? cc.deploy_kpi_change_unlogged : cc.deploy_kpi_change;
    // e2e = TTFT + output length × ITL: where TTFT and ITL are measured around the change, a P99 e2e that
    // moves alone moved with the outputs' tail (workload), not with the engine.
    const perTokenKnown = kpis.filter(([k, x]) => (k === 'itl50' || k === 'ttft99') && Number.isFinite(median(x.subarray(a, b + 1)))).length === 2;
    // The next change event (a rollback, another rollout) ends what this one can be blamed for.
    const next = changes.reduce((m, o) => (o.ts_ms > e.ts_ms + cc.deploy_warmup_ms && o.ts_ms < m ? o.ts_ms : m), Infinity);
    const until = Math.min(next, e.ts_ms + cc.deploy_recovery_horizon_ms);
    // When the old process went away: its last scrape where the metrics saw the restart, else the end of the
    // engine data before a logged event (a restart's downtime precedes its first log line).
    const gone = e.id === FROM_METRICS ? Math.min(e.ts_ms, Number(e.attrs.last_seen_ms)) : lastDataBefore(c, a, split, e.ts_ms);
    const persisting = (x: Float64Array) => ratio(median(x.subarray(warm, b + 1)), median(x.subarray(a, Math.max(a + 1, split))));
    let stepped = false;
    for (const [kpi, x, dir, mean] of kpis) {
      if (kpi === 'e2e99' && perTokenKnown) continue;
      const cp = changePoint(x.subarray(a, b + 1), 2);
      if (!cp || !(dir * cp.size >= need)) continue;
      const at = c.f.t[a + cp.index];
      if (Math.abs(at - e.ts_ms) > cc.deploy_window_ms) continue;
      // A regression follows its change: a KPI that stepped while the old process still served, a window's
      // width before it went away, stepped for another reason (a prefix cache that collapsed two minutes before
      // a benign restart read as the restart's regression).
      if (at + c.f.grid.W < gone) continue;
      // A regression persists: the level after the new version has warmed up (caches, CUDA graphs, a cold
      // prefix cache) against the level before, medians — a minute of slow first requests is not one.
      const persist = persisting(x);
      if (!(dir * (persist - 1) >= need)) continue;
      // Time in the queue counts where it is a part of a request's time that matters: a few ms of queue
      // at light load move by 80% on a restart's chance (a P99 of 0.01-0.45 s beside 3 s requests).
      if (kpi === 'q99') {
        const rise = median(x.subarray(warm, b + 1)) - median(x.subarray(a, Math.max(a + 1, split)));
        const typical = median(c.f.e2e50.subarray(a, Math.max(a + 1, split)));
        if (!(rise >= QUEUE_MATERIAL * (Number.isFinite(typical) ? typical : 0) && rise > 0)) continue;
      }
      // The exact counterpart moves up (a latency) wherever the KPI moved the bad way.
      const meanPersist = mean ? persisting(mean) : NaN;
      if (mean && !(meanPersist - 1 >= need / 2)) continue;
      // Back means within a quarter of the step it made (and half the step asked): a regression at the edge
      // of the threshold sits that close to its old level in one stretch or another by chance alone. Where
      // an exact counterpart is exported it must be back too: a P99 read off buckets falls back to a bucket
      // bound (0.25 s) in one stretch or another while every prefill stays 1.5x slower.
      const back = (y: Float64Array, step: number, yDir: number) => recovered(c, y, yDir, Math.min(need / 2, step / 4), a, split, warm, until);
      if (back(x, dir * (persist - 1), dir) && (!mean || back(mean, meanPersist - 1, 1))) continue;
      const cand: DeployCandidate = { e, changed, kpi, size: dir * cp.size, need, at, stable: worst };
      stepped = true;
      if (worst !== null && worst <= cc.workload_tolerance) {
        if (!best || cand.size > best.size) best = cand;
      } else if (!bestUnstable || cand.size > bestUnstable.size) bestUnstable = cand;
    }
    // No KPI stepped at the change: a version or a config that lowered the batch the engine takes shows only
    // when the load next reaches it. A restart that changed neither is not read so (a leak growing after a
    // restart lowers the ceiling as well).
    if (!stepped && (changed === true || e.kind === EV.config || e.kind === EV.deploy)) {
      const end = Math.min(c.f.grid.n - 1, Number.isFinite(next) ? Math.floor((next - c.f.grid.t0) / c.f.grid.step) - 1 : c.f.grid.n - 1);
      const cut = lowerCeiling(c, split, warm, end, cc.workload_tolerance);
      if (cut) {
        const cand: DeployCandidate = { e, changed, kpi: `batch ceiling (running ${fmt(cut.before)} → ${fmt(cut.after)} with requests waiting)`, size: 1 - cut.after / cut.before, need: CEILING_CUT, at: cut.at, stable: worst, ceiling: true };
        if (worst !== null && worst <= cc.workload_tolerance) {
          if (!best || (best.ceiling && cand.size > best.size)) best = cand;
        } else if (!bestUnstable) bestUnstable = cand;
      }
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
      cond(
        `≥ ${cc.deploy_kpi_change * 100}% change-point in a core KPI within ${cc.deploy_window_ms / 60_000} min (≥ ${cc.deploy_kpi_change_unlogged * 100}% at a restart only the metrics saw), or since a version or config change requests wait at a batch ≥ ${CEILING_CUT * 100}% below the most it ran with no queue before, at no more load`,
        found ? `${found.kpi} ${fmt(found.size * 100)}%` : null,
        found !== null,
        found?.need ?? cc.deploy_kpi_change,
      ),
      cond(`workload stable (lam_in, plen, glen within ±${cc.workload_tolerance * 100}% beyond their own noise)`, stable, stable !== null && stable <= cc.workload_tolerance, cc.workload_tolerance),
    ],
    support: [
      cond('the version changed at the event (null: the previous version is not in the bundle)', found?.changed ?? null, found?.changed === true),
      ...rejected.slice(0, 3).map((r) => cond(`event not a deploy: ${r}`, true, false)),
    ],
    veto: [cond('no change event', changes.length === 0, changes.length === 0)],
    evidence: found ? [changeEvidence(c, found.e), kpiEvidence(c, found)] : changes.slice(0, 3).map((e) => changeEvidence(c, e)),
    // A rollout began when the old process went away; a restart read off the metrics knows that moment
    // as the old process's last scrape (a logged deploy event is itself the moment).
    onset_ms: found ? (found.e.id === FROM_METRICS ? Number(found.e.attrs.last_seen_ms) : found.e.ts_ms) : null,
  };
}
