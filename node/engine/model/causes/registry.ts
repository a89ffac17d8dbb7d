// Every cause of docs/root-causes.md §3, each declared in its own file with defineCause(). The mapped type
// makes the compiler check that each id is listed exactly once and under its own definition; the order is
// the order the rules are evaluated and reported in when nothing else separates them.
import type { CauseId } from '../../../../common/contract/diagnosis';
import type { CauseDefinition } from './context';
import { allocatorFragmentation } from './allocator-fragmentation';
import { cpuFrontendBottleneck } from './cpu-frontend-bottleneck';
import { cudaGraphFallback } from './cuda-graph-fallback';
import { deployRegression } from './deploy-regression';
import { engineHang } from './engine-hang';
import { gpuHardwareFault } from './gpu-hardware-fault';
import { gpuMemoryLeak } from './gpu-memory-leak';
import { gpuThrottling } from './gpu-throttling';
import { hostMemoryLeak } from './host-memory-leak';
import { kvBloat } from './kv-bloat';
import { kvBlockLeak } from './kv-block-leak';
import { kvExhaustion } from './kv-exhaustion';
import { longPromptInterference } from './long-prompt-interference';
import { loraThrash } from './lora-thrash';
import { networkClientSlowness } from './network-client-slowness';
import { oomCrashLoop } from './oom-crash-loop';
import { prefixCacheCollapse } from './prefix-cache-collapse';
import { specDecodeDegradation } from './spec-decode-degradation';
import { tpStraggler } from './tp-straggler';
import { trafficSurge } from './traffic-surge';
import { workloadDrift } from './workload-drift';

export const CAUSES: { readonly [Id in CauseId]: CauseDefinition<Id> } = {
  kv_exhaustion: kvExhaustion,
  kv_bloat: kvBloat,
  kv_block_leak: kvBlockLeak,
  prefix_cache_collapse: prefixCacheCollapse,
  gpu_memory_leak: gpuMemoryLeak,
  allocator_fragmentation: allocatorFragmentation,
  oom_crash_loop: oomCrashLoop,
  traffic_surge: trafficSurge,
  long_prompt_interference: longPromptInterference,
  cpu_frontend_bottleneck: cpuFrontendBottleneck,
  gpu_throttling: gpuThrottling,
  gpu_hardware_fault: gpuHardwareFault,
  engine_hang: engineHang,
  tp_straggler: tpStraggler,
  host_memory_leak: hostMemoryLeak,
  network_client_slowness: networkClientSlowness,
  deploy_regression: deployRegression,
  spec_decode_degradation: specDecodeDegradation,
  lora_thrash: loraThrash,
  cuda_graph_fallback: cudaGraphFallback,
  workload_drift: workloadDrift,
};
