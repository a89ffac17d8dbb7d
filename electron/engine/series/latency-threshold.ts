// The latency threshold of the joint trigger, for the timeline's quantile chart: the baseline P99 the
// model compared against (median of the baseline windows' P99, e2e else TTFT, as the model picks it)
// plus the preset's θℓ.
import type { LatencyTrigger } from '../../contract/diagnosis';
import { median } from '../model/baseline';
import type { ModelConfig } from '../model/config';
import type { AnalysisDetail } from '../model/diagnose';
import { windowsWithin } from '../model/windows';

export function latencyTrigger(detail: AnalysisDetail, cfg: ModelConfig): LatencyTrigger | undefined {
  const { frame: f, diagnosis: d } = detail;
  const e2e = f.e2e99.some(Number.isFinite);
  const ref = e2e ? f.e2e99 : f.ttft99;
  const [a, b] = windowsWithin(f.grid, d.baseline.start_ms, d.baseline.end_ms);
  const p99 = median(ref.subarray(a, b + 1)) * 1000;
  if (!Number.isFinite(p99)) return undefined;
  const theta = cfg.presets[d.preset].latency_ms;
  return { signal: e2e ? 'lat.e2e' : 'lat.ttft', baseline_p99_ms: p99, theta_ms: theta, threshold_ms: p99 + theta };
}
