// Readable names for the cause ids of root-causes.md, as a postmortem reader expects them.
import type { CauseId } from '../../contract/diagnosis';

export const CAUSE_NAMES: Record<CauseId, string> = {
  kv_exhaustion: 'KV-cache exhaustion',
  kv_bloat: 'KV-cache bloat',
  kv_block_leak: 'KV block leak',
  prefix_cache_collapse: 'Prefix-cache collapse',
  gpu_memory_leak: 'GPU memory leak',
  allocator_fragmentation: 'Allocator fragmentation',
  oom_crash_loop: 'OOM crash loop',
  traffic_surge: 'Traffic surge',
  long_prompt_interference: 'Long-prompt interference',
  cpu_frontend_bottleneck: 'CPU / frontend bottleneck',
  gpu_throttling: 'GPU throttling',
  gpu_hardware_fault: 'GPU hardware fault',
  engine_hang: 'Engine hang',
  tp_straggler: 'Tensor-parallel straggler',
  host_memory_leak: 'Host memory leak',
  network_client_slowness: 'Network / client slowness',
  deploy_regression: 'Deploy regression',
  spec_decode_degradation: 'Speculative-decoding degradation',
  lora_thrash: 'LoRA adapter thrash',
  cuda_graph_fallback: 'CUDA-graph fallback',
  workload_drift: 'Workload drift',
};

export const causeName = (id: CauseId): string => CAUSE_NAMES[id] ?? id;
