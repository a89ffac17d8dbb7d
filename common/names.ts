// The canonical vocabulary, one typed constant each: signal names (docs/four-quadrant-model.md §1) and the
// event kinds importers write. Importers, features and rules share these, so a misspelt name does not
// compile — `spec.acc_len` read where importers wrote `spec.accept_len` left speculative decoding
// unassessable from every SGLang metric and vLLM log, and `oom_kill` read where the kernel-log importer
// writes `host_oom_kill` hid every host OOM kill.
// Units, kinds and sources of each signal are documented beside their mapping in canonical.ts.

export const SIG = {
  gpuMemUsed: 'gpu.mem.used',
  gpuMemTotal: 'gpu.mem.total',
  gpuMemFree: 'gpu.mem.free',
  gpuMemReserved: 'gpu.mem.reserved',
  gpuUtil: 'gpu.util',
  gpuSmActive: 'gpu.sm_active',
  /** DCGM's graphics-engine activity (PROF_GR_ENGINE_ACTIVE): what MIG instances have instead of GPU_UTIL. */
  gpuGrActive: 'gpu.gr_active',
  gpuMemUtil: 'gpu.mem_util',
  gpuSmClock: 'gpu.sm_clock',
  gpuMemClock: 'gpu.mem_clock',
  gpuPower: 'gpu.power',
  gpuPowerLimit: 'gpu.power_limit',
  gpuTemp: 'gpu.temp',
  gpuThrottleReasons: 'gpu.throttle_reasons',
  gpuThrottleTime: 'gpu.throttle_time',
  gpuXid: 'gpu.xid',
  gpuEccDbe: 'gpu.ecc_dbe',
  gpuEccSbe: 'gpu.ecc_sbe',
  gpuRowRemapPending: 'gpu.row_remap_pending',
  gpuRowRemapFailure: 'gpu.row_remap_failure',
  gpuRecoveryAction: 'gpu.recovery_action',
  procGpuMemUsed: 'proc.gpu_mem.used',
  procGpuMemCcpm: 'proc.gpu_mem.ccpm',
  procSmUtil: 'proc.sm_util',
  procMemUtil: 'proc.mem_util',
  procEncUtil: 'proc.enc_util',
  procDecUtil: 'proc.dec_util',
  procJpgUtil: 'proc.jpg_util',
  procOfaUtil: 'proc.ofa_util',
  kvUsage: 'kv.usage',
  kvCpuUsage: 'kv.cpu_usage',
  kvUsedTokens: 'kv.used_tokens',
  kvSwaUsage: 'kv.swa_usage',
  kvSwaUsedTokens: 'kv.swa_used_tokens',
  kvPrefixQueries: 'kv.prefix_queries',
  kvPrefixHits: 'kv.prefix_hits',
  kvPrefixHitRate: 'kv.prefix_hit_rate',
  kvPreemptions: 'kv.preemptions',
  kvRetracted: 'kv.retracted',
  reqRunning: 'req.running',
  reqWaiting: 'req.waiting',
  reqSwapped: 'req.swapped',
  reqFinished: 'req.finished',
  reqArrivals: 'req.arrivals',
  reqErrors: 'req.errors',
  reqPromptLen: 'req.prompt_len',
  reqGenLen: 'req.gen_len',
  httpRequests: 'http.requests',
  /**
   * Seconds a gateway held a served request beyond its upstream's answer (nginx request_time −
   * upstream_response_time: the client's network, a slow reader, a wait for an upstream connection), the
   * mean of each second's 2xx lines.
   */
  gatewayExtra: 'gateway.extra',
  tokensPrompt: 'tokens.prompt',
  tokensGeneration: 'tokens.generation',
  tokensPromptRate: 'tokens.prompt_rate',
  tokensGenerationRate: 'tokens.generation_rate',
  latE2e: 'lat.e2e',
  latTtft: 'lat.ttft',
  latItl: 'lat.itl',
  latQueue: 'lat.queue',
  latPrefill: 'lat.prefill',
  latDecode: 'lat.decode',
  latInference: 'lat.inference',
  /** TGI's router: tokenizing and checking a request before it is queued (`tgi_request_validation_duration`). */
  latValidation: 'lat.validation',
  specAcceptLen: 'spec.accept_len',
  specAcceptanceRate: 'spec.acceptance_rate',
  specAcceptedTokens: 'spec.accepted_tokens',
  specDraftTokens: 'spec.draft_tokens',
  specDrafts: 'spec.drafts',
  loraActive: 'lora.active',
  /** One series per adapter (label adapter): a sample where vLLM listed it running or waiting. */
  loraAdapter: 'lora.adapter',
  loraMax: 'lora.max',
  engineCacheConfig: 'engine.cache_config',
  engineCudaGraphMax: 'engine.cuda_graph_max',
  /** Forward passes by label mode (SGLang: decode_cuda_graph, decode_none, prefill_cuda_graph, prefill_none). */
  engineGraphPasses: 'engine.graph_passes',
  /** Tokens an engine step scheduled, one observation a step (vLLM's iteration_tokens_total histogram). */
  batchTokens: 'batch.tokens',
  /** One forward pass's time, one observation a pass, by label method prefill|decode (TGI's batch_forward_duration). */
  batchForward: 'batch.forward',
  hostRss: 'host.rss',
  /** The Prometheus client's own gauge, stored under its name (no catalog renames it): a new value is a new process. */
  processStart: 'process_start_time_seconds',
  hostMemAvailable: 'host.mem_available',
  /** node_exporter's MemAvailable and MemTotal (bytes): the host's available share where no fraction is exported, and its used memory. */
  hostMemAvailableBytes: 'host.mem_available_bytes',
  hostMemTotal: 'host.mem_total',
  hostSwap: 'host.swap',
  hostCpuSeconds: 'host.cpu_seconds',
  torchAllocated: 'torch.allocated',
  torchReserved: 'torch.reserved',
} as const;

export type SignalName = (typeof SIG)[keyof typeof SIG];

/** A histogram's companion counter `<name>.count` (its sum is `<name>.sum`). */
export const countOf = (h: SignalName): string => `${h}.count`;

export const EV = {
  oom: 'oom',
  hostOomKill: 'host_oom_kill',
  xid: 'xid',
  gpuFallenOff: 'gpu_fallen_off',
  /** An NVSwitch error (SXid); a fatal one is a hardware fault (model/causes/shared.ts). */
  sxid: 'sxid',
  /** Live NVML recording: a device stopped answering. */
  gpuLost: 'gpu_lost',
  engineStart: 'engine_start',
  engineRestart: 'engine_restart',
  /** A graceful shutdown: the server stopped on request (a rollout, an operator), not a crash. */
  engineStop: 'engine_stop',
  engineCrash: 'engine_crash',
  version: 'version',
  config: 'config',
  deploy: 'deploy',
  ncclTimeout: 'nccl_timeout',
  ncclError: 'nccl_error',
  preemption: 'preemption',
  traceback: 'traceback',
  httpError: 'http_error',
  abort: 'abort',
  log: 'log',
} as const;

export type EventKind = (typeof EV)[keyof typeof EV];
