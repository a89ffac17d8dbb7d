// OOM crash loop: out-of-memory kills the engine and the restarts fail or OOM again.
import { EV, SIG } from '../../../../common/names';
import { cond, defineCause, eventEvidence, events, notAssessable, type CauseContext, type RuleResult } from './context';
import { hardwareEvents, isHostOom, ooms } from './shared';
import { densest, worstRestartLoop } from '../restarts';

export const oomCrashLoop = defineCause({
  id: 'oom_crash_loop',
  level: 2,
  upstream: ['gpu_memory_leak', 'allocator_fragmentation', 'host_memory_leak'],
  rule,
});

/** Lines only the engine's own log gives: where none was read, the engine's log was not collected. */
const ENGINE_LOG_KINDS = [EV.engineStart, EV.engineRestart, EV.version, EV.engineCrash, EV.oom, EV.traceback];

function rule(c: CauseContext): RuleResult {
  const metricLoop = worstRestartLoop(c.sig, c.cfg.causes.crash_loop_window_ms);
  if (!c.f.have.has('events') && !metricLoop) return notAssessable('oom_crash_loop', ['events (oom, engine_restart), or process_start_time_seconds']);
  const gpuOoms = ooms(c).filter((e) => !isHostOom(e));
  const hostOoms = c.sig.events.filter(isHostOom);
  const restarts = events(c, EV.engineRestart);
  // Restarts the logs name, or (where the logs missed them) the worst endpoint's restarts in its metrics.
  const fromLogs = densest(restarts.map((e) => e.ts_ms), c.cfg.causes.crash_loop_window_ms).count;
  const loop = Math.max(fromLogs, metricLoop?.count ?? 0);
  // Without the engine's log no OOM can be logged. A loop of restarts read off the metrics, with no
  // hardware fault and no host OOM kill where the kernel log was collected (the vetoes below), is the
  // common crash of an engine under load; named as inferred (the SUPPORT below stays unmet).
  // Kubernetes' account of a container (its exits and restarts) is not the engine's own log.
  // (engine_restart is one of those kinds: no engine log, no restart the engine's log read.)
  const engineLogged = events(c, ...ENGINE_LOG_KINDS).some((e) => e.attrs.from !== 'kubernetes');
  const inferred = gpuOoms.length === 0 && !engineLogged && (metricLoop?.count ?? 0) >= c.cfg.causes.crash_loop_restarts;
  const firstOom = gpuOoms[0]?.ts_ms ?? (inferred ? metricLoop!.from : Infinity);
  const xidBefore = hardwareEvents(c).filter((e) => e.ts_ms <= firstOom);
  return {
    id: 'oom_crash_loop',
    missing: [],
    require: [
      cond('CUDA OOM logged ≥ 1, OR no engine log collected and the restart loop read off process_start_time_seconds', inferred ? `inferred: ${metricLoop!.count} restarts, no engine log` : gpuOoms.length, gpuOoms.length >= 1 || inferred),
      cond(`≥ ${c.cfg.causes.crash_loop_restarts} restarts in ${c.cfg.causes.crash_loop_window_ms / 60_000} min`, loop, loop >= c.cfg.causes.crash_loop_restarts),
    ],
    support: [cond('the CUDA OOM itself logged', gpuOoms.length, gpuOoms.length >= 1)],
    veto: [
      cond('OOM-killed by the host kernel (→ host_memory_leak)', hostOoms.length, hostOoms.length > 0 && gpuOoms.length === 0),
      cond('HW Xid before the crash (→ gpu_hardware_fault)', xidBefore.length, xidBefore.length > 0),
    ],
    evidence: [
      ...[...gpuOoms.slice(0, 3), ...restarts.slice(0, 5)].map((e) => eventEvidence(e)),
      ...(inferred ? [{ kind: 'series' as const, ref: SIG.processStart, start_ms: metricLoop!.from, end_ms: metricLoop!.to, text: `the engine restarted ${metricLoop!.count} times (its process start time moved); no engine log to name the crash` }] : []),
    ],
    // Inferred: the loop began where the first crashed process was last scraped.
    onset_ms: gpuOoms[0]?.ts_ms ?? (inferred ? metricLoop!.firstLastSeen : null),
  };
}
