// Every cause of docs/root-causes.md §3, by id: the compiler checks none is missing.
import type { CauseId } from '../../../../common/contract/diagnosis';
import { networkClientSlowness } from './client';
import type { Rule } from './context';
import { cpuFrontendBottleneck, cudaGraphFallback, deployRegression, engineHang, loraThrash, specDecodeDegradation } from './engine';
import { gpuHardwareFault, gpuThrottling, tpStraggler } from './gpu';
import { kvBlockLeak, kvBloat, kvExhaustion, prefixCacheCollapse } from './kv';
import { longPromptInterference, trafficSurge, workloadDrift } from './load';
import { allocatorFragmentation, gpuMemoryLeak, hostMemoryLeak, oomCrashLoop } from './memory';

export const RULES: Record<CauseId, Rule> = {
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
