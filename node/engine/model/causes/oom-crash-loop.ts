// OOM crash loop: out-of-memory kills the engine and the restarts fail or OOM again.
import { EV } from '../../../../common/names';
import { cond, defineCause, eventEvidence, events, notAssessable, type CauseContext, type RuleResult } from './context';
import { isHostOom, ooms } from './shared';
import { densest, worstRestartLoop } from '../restarts';

export const oomCrashLoop = defineCause({
  id: 'oom_crash_loop',
  level: 2,
  upstream: ['gpu_memory_leak', 'allocator_fragmentation', 'host_memory_leak'],
  rule,
});

function rule(c: CauseContext): RuleResult {
  if (!c.f.have.has('events')) return notAssessable('oom_crash_loop', ['events (oom, engine_restart)']);
  const gpuOoms = ooms(c).filter((e) => !isHostOom(e));
  const hostOoms = c.sig.events.filter(isHostOom);
  const restarts = events(c, EV.engineRestart);
  // Restarts the logs name, or (where the logs missed them) the worst endpoint's restarts in its metrics.
  const fromLogs = densest(restarts.map((e) => e.ts_ms), c.cfg.causes.crash_loop_window_ms).count;
  const loop = Math.max(fromLogs, worstRestartLoop(c.sig, c.cfg.causes.crash_loop_window_ms)?.count ?? 0);
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
}
