// Host memory leak: host RSS grows until swap or an OOM kill.
import { EV, SIG } from '../../../../common/names';
import { metricRestarts } from '../restarts';
import { max } from '../baseline';
import { memoryTrend } from '../leak';
import { olsSlope } from '../trend';
import {
  cond, defineCause, eventEvidence, events, fmt, fmtBytes, medB, missingInputs, notAssessable, rE, seriesEvidence, slice, type CauseContext, type RuleResult,
} from './context';
import { isHostOom } from './shared';

export const hostMemoryLeak = defineCause({
  id: 'host_memory_leak',
  level: 14,
  rule,
});

/**
 * RSS per process lifetime: a jump of more than `jump` (a share of the level) between two readings is a
 * new process (a restart loads weights and warms caches at another level; an OOM kill empties it), not
 * growth or release, and so is a process start known between them (a start banner in the log, a new
 * process_start_time_seconds): an OOM kill at an 8 GiB limit and a reload to 6 GiB is a 25% drop, no jump.
 * The series is cut there into one series per process, oldest first.
 */
function processLifetimes(t: ArrayLike<number>, W: number, x: Float64Array, jump: number, starts: number[]): Float64Array[] {
  const cuts: number[] = [0];
  let prev = NaN;
  let prevT = -Infinity;
  for (let i = 0; i < x.length; i++) {
    if (!Number.isFinite(x[i])) continue;
    // The first window that holds readings of the new process ([t, t + W) reaches past its start).
    const started = starts.some((s) => s >= prevT + W && s < t[i] + W);
    if (Number.isFinite(prev) && ((prev > 0 && Math.abs(x[i] - prev) / prev > jump) || started)) cuts.push(i);
    prev = x[i];
    prevT = t[i];
  }
  if (cuts.length === 1) return [x];
  return cuts.map((from, k) => {
    const out = new Float64Array(x.length).fill(NaN);
    out.set(x.subarray(from, k + 1 < cuts.length ? cuts[k + 1] : x.length), from);
    return out;
  });
}

/**
 * The most of a climb that one window's span carries, as a share of the climb (from `fromMs` to the life's
 * last reading): near 1 where the level stepped (a process started beside the old one, a pod joined a sum of
 * RSS while a rollout overlapped the old and the new) rather than crept. Rises within one window length are
 * taken together, since overlapping windows split a reading's step between them, and so is the rise from one
 * reading to the next however far apart they are.
 */
function stepShare(t: ArrayLike<number>, x: Float64Array, fromMs: number, W: number): number {
  const ts: number[] = [];
  const vs: number[] = [];
  for (let i = 0; i < x.length; i++) if (Number.isFinite(x[i]) && t[i] >= fromMs) {
    ts.push(t[i]);
    vs.push(x[i]);
  }
  const climb = vs.length ? vs[vs.length - 1] - vs[0] : 0;
  if (!(climb > 0)) return NaN;
  let most = 0;
  for (let j = 1, i = 0; j < vs.length; j++) {
    while (i < j - 1 && ts[j] - ts[i] > W) i++;
    most = Math.max(most, vs[j] - vs[i]);
  }
  return most / climb;
}

function rule(c: CauseContext): RuleResult {
  const missing = missingInputs(c.f, [[SIG.hostRss, SIG.hostSwap, SIG.hostMemAvailable, SIG.hostMemAvailableBytes]]);
  if (missing.length) return notAssessable('host_memory_leak', missing);
  // The server's own RSS where it exports it; else the host's memory in use (node_exporter: MemTotal −
  // MemAvailable), which a leaking server grows as much, on top of what the host held before.
  const ownRss = c.f.rss.some(Number.isFinite);
  const rssOrHost = ownRss ? c.f.rss : c.f.hostUsed;
  // A process's RSS creeps up by allocator caching and fragmentation when nothing is wrong: a leak is a
  // monotone climb that is also large, in bytes and against where it started.
  const cc = c.cfg.causes;
  const rssB = medB(c, rssOrHost);
  const need = Math.max(cc.host_leak_min_bytes, cc.host_leak_min_share * (Number.isFinite(rssB) ? rssB : 0));
  // The share guards against drift on a big host. A climb the OOM killer ended proved it mattered: there the
  // bytes alone are asked (a container's limit killed a server 3 GiB into a climb on a host holding 36 GiB,
  // the host itself still a fifth free). Ended: a kill from the climb's start to two windows past its life's
  // last reading, or any time after it where that life is the last recorded (the exporter's file ended first).
  const killed = c.sig.events.filter(isHostOom);
  const lastAt = (x: Float64Array) => {
    for (let i = x.length - 1; i >= 0; i--) if (Number.isFinite(x[i])) return i;
    return -1;
  };
  const seriesEnd = lastAt(rssOrHost);
  const needOf = (t: { start_ms: number } | null, x: Float64Array) => {
    const last = lastAt(x);
    const until = last < 0 ? -Infinity : last === seriesEnd ? Infinity : c.f.t[last] + 3 * c.f.grid.W;
    return t && killed.some((e) => e.ts_ms >= t.start_ms && e.ts_ms <= until) ? cc.host_leak_min_bytes : need;
  };
  // The leak began in the first process that grew like one (a leak killed by the OOM killer grows again
  // in its successor); without one, the current process is the one to read.
  const starts = [...events(c, EV.engineStart, EV.engineRestart).map((e) => e.ts_ms), ...metricRestarts(c.sig).flatMap((r) => r.times)];
  const lives = processLifetimes(c.f.t, c.f.grid.W, rssOrHost, cc.host_rss_jump, starts).filter((x) => x.some(Number.isFinite));
  const trendOf = (x: Float64Array) => memoryTrend(SIG.gpuMemUsed, SIG.hostRss, c.f.t, x, medB(c, x), null);
  // A leak creeps: growth of which one window's span carries more than half is a level that stepped.
  const trends = lives.map((x) => {
    const tr = trendOf(x);
    return { rss: x, tr, step: tr ? stepShare(c.f.t, x, tr.start_ms, c.f.grid.W) : NaN };
  });
  const crept = (step: number) => !(step > cc.host_leak_step_share);
  const grew = trends.find(({ rss: x, tr: t, step }) => !!t && t.slope_bytes_per_min > 0 && t.mono >= cc.leak_mono && t.growth_bytes >= needOf(t, x) && crept(step));
  const chosen = grew ?? trends[trends.length - 1] ?? { rss: rssOrHost, tr: null, step: NaN };
  const rss = chosen.rss;
  const tr = chosen.tr;
  const step = chosen.step;
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
  const needed = needOf(tr, rss);
  const rssLeak = !!tr && tr.slope_bytes_per_min > 0 && tr.mono >= cc.leak_mono && tr.growth_bytes >= needed && sped && crept(step);
  const swap = max(c.f.swap);
  const avail = Math.min(...Array.from(c.f.memAvail).filter(Number.isFinite));
  const swapping = swap > 0 && avail <= 0.05;
  return {
    id: 'host_memory_leak',
    missing: [],
    require: [
      cond(
        `slope(rss) > 0 with mono ≥ ${cc.leak_mono}, growth ≥ max(${fmtBytes(cc.host_leak_min_bytes)}, ${cc.host_leak_min_share * 100}% of the baseline; the bytes alone where an OOM kill ended it), at most ${cc.host_leak_step_share * 100}% of it within one window, and a slope ≥ ${cc.host_leak_speedup}× the baseline's, OR swap in/out > 0 with MemAvailable ≤ 5%`,
        `rss mono ${fmt(tr?.mono ?? NaN)}, growth ${fmtBytes(tr?.growth_bytes ?? 0)} (need ${fmtBytes(needed)}), ${Number.isFinite(step) ? Math.round(step * 100) : '—'}% within one window, slope ${fmtBytes(slopeE)}/min vs baseline ${fmtBytes(slopeB)}/min, swap ${fmt(swap)}, avail ${fmt(avail)}`,
        rssLeak || swapping,
        needed,
      ),
    ],
    support: [cond('host OOM kills', killed.length, killed.length > 0), cond(ownRss ? 'r(rss)' : "r(the host's memory in use)", rE(c, rssOrHost), rE(c, rssOrHost) > 1.2)],
    veto: [cond('RSS plateau (late slope ÷ slope < 0.1)', tr?.late_slope_ratio ?? null, !!tr && tr.late_slope_ratio < 0.1)],
    evidence: [...(tr ? [seriesEvidence(c, ownRss ? SIG.hostRss : SIG.hostMemAvailableBytes, `${ownRss ? 'RSS' : "the host's memory in use"} +${fmtBytes(tr.growth_bytes)}`, tr.start_ms, tr.end_ms)] : []), ...killed.slice(0, 3).map((e) => eventEvidence(e))],
    onset_ms: tr?.start_ms ?? null,
  };
}
