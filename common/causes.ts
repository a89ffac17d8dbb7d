// The causes of docs/root-causes.md as people read them: one name and one line of mechanism per id, used by
// the workstation and the report alike, so a cause is called the same everywhere.
import type { CauseId, CauseResult } from './contract/diagnosis';

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

/** What happens, in one line (docs/root-causes.md §3, "Mechanism"). */
export const CAUSE_MECHANISMS: Record<CauseId, string> = {
  kv_exhaustion: 'KV blocks run out; running requests are preempted and recomputed',
  kv_bloat: 'each request holds far more KV cache than its tokens need',
  kv_block_leak: 'KV blocks are never returned, so the idle floor of KV usage rises',
  prefix_cache_collapse: 'the prefix-cache hit rate collapses and prompts are recomputed',
  gpu_memory_leak: 'tensors kept alive by references grow GPU memory until OOM',
  allocator_fragmentation: 'free blocks are stranded across segments; reserved grows while allocated stays flat',
  oom_crash_loop: 'out-of-memory kills the engine and the restarts fail or OOM again',
  traffic_surge: 'arrivals exceed the service rate and the queue grows',
  long_prompt_interference: 'long prefill chunks share steps with decodes, which stall',
  cpu_frontend_bottleneck: 'tokenizer, detokenizer or preprocessing on the CPU starve the GPU',
  gpu_throttling: 'the SM clock is cut by a thermal or power slowdown',
  gpu_hardware_fault: 'a GPU hardware error (Xid, double-bit ECC, row remap) takes a replica down',
  engine_hang: 'a rank blocks in a collective or the scheduler wedges: zero tokens with requests in flight',
  tp_straggler: 'the slowest tensor-parallel rank sets the step time',
  host_memory_leak: 'host RSS grows until swap or an OOM kill',
  network_client_slowness: 'a proxy, connection pool or slow client adds latency the server does not see',
  deploy_regression: 'a new version, kernel, default or flag made the service slower',
  spec_decode_degradation: 'fewer draft tokens are accepted, or verification costs more at high batch',
  lora_thrash: 'more active LoRA adapters than slots: adapters are loaded on demand',
  cuda_graph_fallback: 'batches beyond the captured CUDA-graph sizes run in eager mode',
  workload_drift: 'outputs got longer: a capacity question, not a fault',
};

export function causeName(id: string): string {
  return (CAUSE_NAMES as Record<string, string>)[id] ?? id.replace(/_/g, ' ');
}

export function causeMechanism(id: string): string {
  return (CAUSE_MECHANISMS as Record<string, string>)[id] ?? '';
}

/**
 * The causal chain from the root cause (what the on-call engineer fixes) to the mechanism that hurt,
 * ending with the cause itself: `traffic_surge → kv_exhaustion`.
 */
export function causeChain(c: Pick<CauseResult, 'id' | 'chain'>): string[] {
  const chain = c.chain.length ? [...c.chain] : [c.id];
  if (!chain.includes(c.id)) chain.push(c.id);
  return chain;
}

export const chainText = (c: Pick<CauseResult, 'id' | 'chain'>): string => causeChain(c).map(causeName).join(' → ');
