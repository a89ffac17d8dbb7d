// Engine metric names → Quadscope's canonical signals (docs/four-quadrant-model.md §1). Pure and
// table-driven: every importer of metrics (Prometheus text and JSON, and by the same names the log,
// nvidia-smi and kernel-log importers) asks here, so one signal has one name whatever produced it.
//
// Canonical series (name — unit — kind — from):
//   gpu.mem.used, gpu.mem.total, gpu.mem.free, gpu.mem.reserved — bytes — gauge — DCGM FB_* (MiB), nvidia-smi
//       (gpu.mem.total from DCGM is FB_TOTAL, or FB_USED+FB_FREE+FB_RESERVED per scrape, metric label
//       "DCGM_FI_DEV_FB_USED+FB_FREE+FB_RESERVED")
//   gpu.util, gpu.sm_active, gpu.gr_active, gpu.mem_util, gpu.dram_active, gpu.tensor_active, gpu.fan — fraction —
//       gauge (gpu.gr_active: DCGM PROF_GR_ENGINE_ACTIVE, the utilisation a MIG instance has)
//   gpu.sm_clock, gpu.mem_clock — MHz — gauge;  gpu.power, gpu.power_limit — W;  gpu.temp, gpu.mem_temp — C
//   gpu.throttle_reasons — bitmask — gauge (NVML clocks-event bits: 0x1 idle, 0x4 SW power cap, 0x8 HW
//       slowdown, 0x20 SW thermal, 0x40 HW thermal, 0x80 power brake)
//   gpu.throttle_time — seconds — counter, label reason (nvidia-smi clocks_event_reasons_counters.*)
//   gpu.xid — code — gauge (value = Xid code; DCGM XID_ERRORS = last Xid, 0 = none; kernel log: label bus_id)
//   gpu.ecc_dbe, gpu.ecc_sbe — count — counter;  gpu.row_remap_pending, gpu.row_remap_failure — count — gauge
//   gpu.recovery_action — code — gauge (NVML's recovery action after an uncorrectable error: 0 none, 1 GPU reset,
//       2 node reboot, 3 drain P2P, 4 drain and reset; nvidia-smi's Reset Required / Drain and Reset Yes = 1)
//   gpu.pcie_replays — count — counter;  gpu.energy — J — counter
//   proc.gpu_mem.used — bytes — gauge, labels pid, process (nvidia-smi --query-compute-apps; pmon fb, with gpu)
//   proc.sm_util, proc.mem_util, proc.enc_util, proc.dec_util, proc.jpg_util, proc.ofa_util — fraction — gauge,
//       labels gpu, pid, process (nvidia-smi pmon: one process's share of the GPU);  proc.gpu_mem.ccpm — bytes
//   kv.usage, kv.cpu_usage — fraction — gauge;  kv.used_tokens — tokens — gauge (SGLang)
//   kv.swa_usage — fraction — gauge;  kv.swa_used_tokens — tokens — gauge (SGLang hybrid models' sliding-window
//       pool, log lines "swa token usage" / "#swa token"; kv.usage is then the full-attention pool's)
//   kv.prefix_queries, kv.prefix_hits — tokens — counter;  kv.prefix_hit_rate — fraction — gauge (SGLang
//       cache_hit_rate, vLLM V0 gpu_prefix_cache_hit_rate, log lines: a windowed rate, not a counter)
//   kv.preemptions — count — counter (vLLM, SGLang num_retracted_requests_total, V0 preemption warnings)
//   kv.retracted — count — gauge (SGLang num_retracted_reqs; pitfall 6: prefer the counter)
//   req.running, req.waiting, req.swapped — count — gauge
//   req.finished — count — counter, label reason (vLLM finished_reason; TGI request_success → reason "success")
//   req.arrivals — count — counter (TGI request_count)
//   req.errors — count — counter (TGI request_failure, HTTP 5xx of http_requests_total, access-log 5xx)
//   http.requests — count — counter, label status (non-5xx http_requests_total)
//   tokens.prompt, tokens.generation — tokens — counter (also the _sum of TGI's token histograms)
//   tokens.prompt_rate, tokens.generation_rate — tokens/s — gauge (vLLM V0 avg_*_throughput, SGLang
//       gen_throughput, stats log lines)
//   lat.e2e, lat.ttft, lat.itl, lat.queue, lat.prefill, lat.decode, lat.inference, lat.tpot_request,
//       lat.validation — seconds — histogram
//   req.prompt_len, req.gen_len, req.max_gen_len, req.prefill_computed — tokens — histogram
//   batch.tokens — tokens — histogram (vllm:iteration_tokens_total);  batch.forward — seconds — histogram
//   batch.max_tokens — tokens — gauge (TGI batch_current_max_tokens)
//   spec.accept_len — tokens — gauge;  spec.acceptance_rate — fraction — gauge
//   spec.accepted_tokens, spec.draft_tokens, spec.drafts — tokens/count — counter (acc_len = 1 + accepted/drafts)
//   lora.active — count — gauge (distinct adapters in vllm:lora_requests_info running+waiting; label max_lora)
//   lora.adapter — 1 — gauge, label adapter (one series per adapter named in lora_requests_info: a sample
//       where that adapter was running or waiting, so the model can count the adapters in use over time)
//   engine.cache_config — info (labels = vLLM cache config: block_size, num_gpu_blocks, …)
//   engine.graph_passes — count — counter, label mode (SGLang cuda_graph_passes_total: decode_cuda_graph, decode_none,
//       prefill_cuda_graph, prefill_none — whether each forward pass replayed a CUDA graph or ran eager; its decode
//       log lines' `cuda graph: True|False`, counted, as a sample of them)
//   host.rss — bytes — gauge;  host.cpu_seconds — seconds — counter (process_* metrics)
//   host.mem_available_bytes, host.mem_total — bytes — gauge;  host.swap — pages — counter (node_exporter)
// Ray Serve LLM's `ray_vllm:<name>` (vLLM's metrics through Ray's exporter, which types counters as gauges)
// maps as `vllm:<name>`, its counters kept counters; label `metric` keeps the ray_vllm: name. TensorRT-LLM's
// trtllm-serve (`trtllm_`/`trtllm:`) maps as vLLM's names plus kv_cache_utilization/hit_rate; Triton's TensorRT-LLM
// backend (`nv_trt_llm_request_metrics{request_type=active|waiting}`, `…kv_cache_block_metrics{…=fraction}`) and
// Triton's GPU metrics (`nv_gpu_*`) map; NIM 1.x's unprefixed vLLM names map as the generic table lists;
// nvidia_gpu_exporter's `nvidia_smi_*` (memory, utilisation, clocks in Hz, power, temperature, throttle bits, ECC) map;
// llama.cpp's `llamacpp:` (slots processing, requests deferred, token counters) maps; SGLang's PD and grammar
// queues are req.waiting under a `queue` label.
// Histograms: one series of kind 'histogram' carries the buckets; `<name>.sum` and `<name>.count` are
// counters. Every canonical series carries label `metric` = the original metric name, so the V0 and
// V1 spellings of one signal stay separate series (the model picks; kv_cache_usage_perc wins).
// Labels renamed: model_name → model, Hostname/hostname → host, UUID → gpu_uuid, modelName → gpu_model,
// pci_bus_id → bus_id, finished_reason → reason; DCGM_FI_* info labels dropped; gpu, engine kept.
import type { SeriesKind } from '../../../common/contract/types';

export type Labels = Record<string, string>;

export interface Canonical {
  name: string;
  unit: string;
  kind: SeriesKind;
  /** Multiplies values (and histogram bounds) into the canonical unit. */
  scale: number;
  labels: Labels;
  /** A histogram whose `_sum` is also this counter (TGI token histograms → tokens.*). */
  sumAs?: string;
  /**
   * vllm:lora_requests_info: the adapters a label set names. The series' value is then how many distinct
   * adapters a scrape's current label sets name together, and each adapter is a `lora.adapter` series.
   */
  adapters?: (labels: Labels) => string[];
  /**
   * The sample's value is the Unix time it was last set (prometheus_client's set_to_current_time): a
   * label set last set longer ago than this, in seconds, is history, not the present.
   */
  staleAfterS?: number;
  /**
   * The value is a count of events whose code a label names (dcgm-exporter's Xid count per `xid`): the series
   * reads that code while the count is above zero, 0 otherwise, as gpu.xid's "last Xid" does.
   */
  codeLabel?: string;
}

export const MIB = 1024 * 1024;

/**
 * n times a unit scale, as the decimal the source wrote: 47 % × 0.01 is 0.47000000000000003 and 45.3 / 100 is
 * 0.45299999999999996 (a 95 % reading would pass a `> 0.95`); a power-of-ten scale shifts the decimal point
 * of n's shortest spelling instead, which is exact, and another 1/k divides by k.
 */
export function applyScale(n: number, scale: number): number {
  if (scale >= 1 || !Number.isFinite(n)) return n * scale;
  const k = Math.round(1 / scale);
  if (k * scale !== 1) return n * scale;
  const digits = Math.log10(k);
  // An integer over k is already the correctly rounded decimal (both exact, one rounding): the common case.
  if (!Number.isInteger(digits) || Number.isInteger(n)) return n / k;
  const [mantissa, exponent = '0'] = String(n).split('e');
  return Number(`${mantissa}e${Number(exponent) - digits}`);
}

interface Rule {
  name: string | ((labels: Labels) => string);
  unit: string;
  /** The unit where it depends on the labels (a gauge split by a label into signals of different units). */
  unitOf?: (labels: Labels) => string;
  kind: SeriesKind;
  scale?: number;
  sumAs?: string;
  labels?: (labels: Labels) => Labels;
  adapters?: (labels: Labels) => string[];
  staleAfterS?: number;
  codeLabel?: string;
}

const g = (name: string, unit: string, scale = 1): Rule => ({ name, unit, kind: 'gauge', scale });
const c = (name: string, unit: string, scale = 1): Rule => ({ name, unit, kind: 'counter', scale });
const h = (name: string, unit: string, scale = 1, sumAs?: string): Rule => ({ name, unit, kind: 'histogram', scale, sumAs });

const adapters = (s: string | undefined): string[] => (s ?? '').split(',').map((x) => x.trim()).filter(Boolean);
/** The distinct adapters a lora_requests_info label set names, running or waiting. */
const loraAdapters = (l: Labels): string[] => [...new Set([...adapters(l.running_lora_adapters), ...adapters(l.waiting_lora_adapters)])];

/** vLLM names without the `vllm:` prefix; counters without `_total`. */
const VLLM: Record<string, Rule> = {
  num_requests_running: g('req.running', 'count'),
  num_requests_waiting: g('req.waiting', 'count'),
  num_requests_swapped: g('req.swapped', 'count'),
  kv_cache_usage_perc: g('kv.usage', 'fraction'),
  gpu_cache_usage_perc: g('kv.usage', 'fraction'),
  cpu_cache_usage_perc: g('kv.cpu_usage', 'fraction'),
  gpu_prefix_cache_hit_rate: g('kv.prefix_hit_rate', 'fraction'),
  num_preemptions: c('kv.preemptions', 'count'),
  prompt_tokens: c('tokens.prompt', 'tokens'),
  generation_tokens: c('tokens.generation', 'tokens'),
  request_success: c('req.finished', 'count'),
  prefix_cache_queries: c('kv.prefix_queries', 'tokens'),
  prefix_cache_hits: c('kv.prefix_hits', 'tokens'),
  // V1 before 0.10 named them gpu_prefix_cache_*; a version that shows both (hidden metrics on) doubles hits and
  // queries alike, and the hit rate read from them is the same.
  gpu_prefix_cache_queries: c('kv.prefix_queries', 'tokens'),
  gpu_prefix_cache_hits: c('kv.prefix_hits', 'tokens'),
  avg_prompt_throughput_toks_per_s: g('tokens.prompt_rate', 'tokens/s'),
  avg_generation_throughput_toks_per_s: g('tokens.generation_rate', 'tokens/s'),
  time_to_first_token_seconds: h('lat.ttft', 'seconds'),
  inter_token_latency_seconds: h('lat.itl', 'seconds'),
  time_per_output_token_seconds: h('lat.itl', 'seconds'),
  request_time_per_output_token_seconds: h('lat.tpot_request', 'seconds'),
  e2e_request_latency_seconds: h('lat.e2e', 'seconds'),
  request_queue_time_seconds: h('lat.queue', 'seconds'),
  request_prefill_time_seconds: h('lat.prefill', 'seconds'),
  request_decode_time_seconds: h('lat.decode', 'seconds'),
  request_inference_time_seconds: h('lat.inference', 'seconds'),
  request_prompt_tokens: h('req.prompt_len', 'tokens'),
  request_generation_tokens: h('req.gen_len', 'tokens'),
  request_max_num_generation_tokens: h('req.max_gen_len', 'tokens'),
  request_prefill_kv_computed_tokens: h('req.prefill_computed', 'tokens'),
  iteration_tokens_total: h('batch.tokens', 'tokens'),
  spec_decode_num_accepted_tokens: c('spec.accepted_tokens', 'tokens'),
  spec_decode_num_draft_tokens: c('spec.draft_tokens', 'tokens'),
  spec_decode_num_drafts: c('spec.drafts', 'count'),
  spec_decode_draft_acceptance_rate: g('spec.acceptance_rate', 'fraction'),
  cache_config_info: { name: 'engine.cache_config', unit: '', kind: 'info' },
  // vLLM sets a new label set of this gauge to the current time whenever the adapters in its batch change
  // and never removes the old ones: a scrape lists every adapter combination since start-up, the current
  // one with the newest time. The adapter lists leave the series' labels (the instance stays: slots are
  // per engine), and label sets older than a minute are history.
  lora_requests_info: {
    name: 'lora.active',
    unit: 'count',
    kind: 'gauge',
    labels: ({ running_lora_adapters: _r, waiting_lora_adapters: _w, ...rest }): Labels => rest,
    adapters: loraAdapters,
    staleAfterS: 60,
  },
};

/** Requests waiting in a queue beside the main one: req.waiting under its own `queue` label (pickSources adds label sets apart). */
const waitingIn = (queue: string): Rule => ({ ...g('req.waiting', 'count'), labels: (l) => ({ ...l, queue }) });

const SGLANG: Record<string, Rule> = {
  num_running_reqs: g('req.running', 'count'),
  num_queue_reqs: g('req.waiting', 'count'),
  // The queues of prefill/decode disaggregation and structured output (0.4.6+): requests waiting there are not
  // in num_queue_reqs, which reads 0 while they queue. The prefill side's in-flight queue (KV being sent) is
  // work under way, not waiting: not mapped.
  num_prefill_prealloc_queue_reqs: waitingIn('prefill_prealloc'),
  num_decode_prealloc_queue_reqs: waitingIn('decode_prealloc'),
  num_decode_transfer_queue_reqs: waitingIn('decode_transfer'),
  num_grammar_queue_reqs: waitingIn('grammar'),
  token_usage: g('kv.usage', 'fraction'),
  num_used_tokens: g('kv.used_tokens', 'tokens'),
  gen_throughput: g('tokens.generation_rate', 'tokens/s'),
  cache_hit_rate: g('kv.prefix_hit_rate', 'fraction'),
  spec_accept_length: g('spec.accept_len', 'tokens'),
  // SGLang 0.5: hybrid models' sliding-window pool, and the draft acceptance rate beside its length.
  swa_token_usage: g('kv.swa_usage', 'fraction'),
  spec_accept_rate: g('spec.acceptance_rate', 'fraction'),
  num_retracted_reqs: g('kv.retracted', 'count'),
  num_retracted_requests: c('kv.preemptions', 'count'),
  cuda_graph_passes: c('engine.graph_passes', 'count'),
  prompt_tokens: c('tokens.prompt', 'tokens'),
  generation_tokens: c('tokens.generation', 'tokens'),
  cached_tokens: c('kv.prefix_hits', 'tokens'),
  time_to_first_token_seconds: h('lat.ttft', 'seconds'),
  time_per_output_token_seconds: h('lat.itl', 'seconds'),
  inter_token_latency_seconds: h('lat.itl', 'seconds'),
  e2e_request_latency_seconds: h('lat.e2e', 'seconds'),
  queue_time_seconds: h('lat.queue', 'seconds'),
  // SGLang ~0.3's names (docs/references/production_metrics.md of then).
  num_requests_running: g('req.running', 'count'),
  num_requests_waiting: g('req.waiting', 'count'),
  waiting_request_latency_seconds: h('lat.queue', 'seconds'),
  request_prompt_tokens: h('req.prompt_len', 'tokens'),
  request_generation_tokens: h('req.gen_len', 'tokens'),
};

/** TGI names without the `tgi_` prefix; durations are seconds without a `_seconds` suffix. */
const TGI: Record<string, Rule> = {
  batch_current_size: g('req.running', 'count'),
  queue_size: g('req.waiting', 'count'),
  batch_current_max_tokens: g('batch.max_tokens', 'tokens'),
  request_count: c('req.arrivals', 'count'),
  request_success: { ...c('req.finished', 'count'), labels: (l) => ({ ...l, reason: 'success' }) },
  // err="validation" is the client's bad request (TGI answers 422): not the server failing; it keeps its name.
  request_failure: { ...c('req.errors', 'count'), name: (l) => (l.err === 'validation' ? 'tgi_request_failure' : 'req.errors') },
  request_duration: h('lat.e2e', 'seconds'),
  request_queue_duration: h('lat.queue', 'seconds'),
  request_inference_duration: h('lat.inference', 'seconds'),
  request_validation_duration: h('lat.validation', 'seconds'),
  request_mean_time_per_token_duration: h('lat.itl', 'seconds'),
  batch_forward_duration: h('batch.forward', 'seconds'),
  request_input_length: h('req.prompt_len', 'tokens', 1, 'tokens.prompt'),
  request_generated_tokens: h('req.gen_len', 'tokens', 1, 'tokens.generation'),
};

/** DCGM names without the `DCGM_FI_` prefix. */
const DCGM: Record<string, Rule> = {
  DEV_FB_USED: g('gpu.mem.used', 'bytes', MIB),
  DEV_FB_FREE: g('gpu.mem.free', 'bytes', MIB),
  DEV_FB_RESERVED: g('gpu.mem.reserved', 'bytes', MIB),
  DEV_FB_TOTAL: g('gpu.mem.total', 'bytes', MIB),
  DEV_GPU_UTIL: g('gpu.util', 'fraction', 0.01),
  DEV_MEM_COPY_UTIL: g('gpu.mem_util', 'fraction', 0.01),
  PROF_SM_ACTIVE: g('gpu.sm_active', 'fraction'),
  PROF_GR_ENGINE_ACTIVE: g('gpu.gr_active', 'fraction'),
  PROF_DRAM_ACTIVE: g('gpu.dram_active', 'fraction'),
  PROF_PIPE_TENSOR_ACTIVE: g('gpu.tensor_active', 'fraction'),
  DEV_SM_CLOCK: g('gpu.sm_clock', 'MHz'),
  DEV_MEM_CLOCK: g('gpu.mem_clock', 'MHz'),
  DEV_POWER_USAGE: g('gpu.power', 'W'),
  DEV_POWER_MGMT_LIMIT: g('gpu.power_limit', 'W'),
  DEV_GPU_TEMP: g('gpu.temp', 'C'),
  DEV_MEMORY_TEMP: g('gpu.mem_temp', 'C'),
  DEV_CLOCK_THROTTLE_REASONS: g('gpu.throttle_reasons', 'bitmask'),
  DEV_CLOCKS_EVENT_REASONS: g('gpu.throttle_reasons', 'bitmask'),
  DEV_XID_ERRORS: g('gpu.xid', 'code'),
  // dcgm-exporter's own count of each Xid within its window (`xid` label; PR 239 printed it as XID_ERRORS_ACTIVE).
  DEV_XID_ERRORS_ACTIVE: { ...g('gpu.xid', 'code'), codeLabel: 'xid' },
  DEV_ECC_DBE_VOL_TOTAL: c('gpu.ecc_dbe', 'count'),
  DEV_ECC_SBE_VOL_TOTAL: c('gpu.ecc_sbe', 'count'),
  DEV_ROW_REMAP_FAILURE: g('gpu.row_remap_failure', 'count'),
  DEV_ROW_REMAP_PENDING: g('gpu.row_remap_pending', 'count'),
  // DCGM 4.x's field 1523 under its first name and the later one: NVML's recovery action code.
  DEV_GET_GPU_RECOVERY_ACTION: g('gpu.recovery_action', 'code'),
  DEV_GPU_RECOVERY_ACTION: g('gpu.recovery_action', 'code'),
  DEV_PCIE_REPLAY_COUNTER: c('gpu.pcie_replays', 'count'),
  DEV_TOTAL_ENERGY_CONSUMPTION: c('gpu.energy', 'J', 0.001),
};

/**
 * TensorRT-LLM's `trtllm-serve` (`trtllm_`, and `trtllm:` under NVIDIA Dynamo): vLLM's names, with its own KV
 * cache fraction and reuse rate (tensorrt_llm/metrics/collector.py).
 */
const TRTLLM: Record<string, Rule> = {
  ...VLLM,
  kv_cache_utilization: g('kv.usage', 'fraction'),
  kv_cache_hit_rate: g('kv.prefix_hit_rate', 'fraction'),
};

/**
 * A gauge whose label says what it counts: the values named here map, each with its unit; the others keep the
 * metric's name and no unit.
 */
const byLabel = (metric: string, label: string, names: Record<string, [string, string]>): Rule => ({
  name: (l) => names[l[label] ?? '']?.[0] ?? metric,
  unit: '',
  unitOf: (l) => names[l[label] ?? '']?.[1] ?? '',
  kind: 'gauge',
});

/**
 * Triton Inference Server (`nv_`): the TensorRT-LLM backend's gauges, split by a label, and Triton's own GPU
 * metrics (utilisation already a fraction, memory in bytes; label gpu_uuid). Its per-model request counters
 * and latency sums are not mapped: an ensemble counts each request once per model in it.
 */
const TRITON: Record<string, Rule> = {
  trt_llm_request_metrics: byLabel('nv_trt_llm_request_metrics', 'request_type', { active: ['req.running', 'count'], waiting: ['req.waiting', 'count'] }),
  trt_llm_kv_cache_block_metrics: byLabel('nv_trt_llm_kv_cache_block_metrics', 'kv_cache_block_type', { fraction: ['kv.usage', 'fraction'] }),
  gpu_utilization: g('gpu.util', 'fraction'),
  gpu_memory_used_bytes: g('gpu.mem.used', 'bytes'),
  gpu_memory_total_bytes: g('gpu.mem.total', 'bytes'),
  gpu_power_usage: g('gpu.power', 'W'),
  gpu_power_limit: g('gpu.power_limit', 'W'),
  energy_consumption: c('gpu.energy', 'J'),
};

const GENERIC: Record<string, Rule> = {
  // NVIDIA NIM for LLMs 1.x: vLLM's names without a prefix (NIM 2 passes the backend's own `vllm:` names).
  num_requests_running: g('req.running', 'count'),
  num_requests_waiting: g('req.waiting', 'count'),
  gpu_cache_usage_perc: g('kv.usage', 'fraction'),
  time_to_first_token_seconds: h('lat.ttft', 'seconds'),
  time_per_output_token_seconds: h('lat.itl', 'seconds'),
  e2e_request_latency_seconds: h('lat.e2e', 'seconds'),
  request_prompt_tokens: h('req.prompt_len', 'tokens'),
  request_generation_tokens: h('req.gen_len', 'tokens'),
  prompt_tokens: c('tokens.prompt', 'tokens'),
  generation_tokens: c('tokens.generation', 'tokens'),
  // NIM's request_success_total counts what request_finish_total does (stop + length): only the latter maps.
  request_finish: c('req.finished', 'count'),
  request_failure: c('req.errors', 'count'),
  process_resident_memory_bytes: g('host.rss', 'bytes'),
  process_cpu_seconds: c('host.cpu_seconds', 'seconds'),
  http_requests: {
    name: (l) => (/^5/.test(l.status ?? '') ? 'req.errors' : 'http.requests'),
    unit: 'count',
    kind: 'counter',
  },
};

const LABEL_RENAMES: Record<string, string> = {
  model_name: 'model',
  Hostname: 'host',
  hostname: 'host',
  UUID: 'gpu_uuid',
  modelName: 'gpu_model',
  pci_bus_id: 'bus_id',
  finished_reason: 'reason',
};

/** Renames the identity labels (see the header) and drops DCGM's constant info labels. */
export function canonicalLabels(labels: Labels): Labels {
  const out: Labels = {};
  for (const k in labels) {
    if (k.startsWith('DCGM_FI_')) continue;
    out[LABEL_RENAMES[k] ?? k] = labels[k];
  }
  return out;
}

/** Ray Serve LLM re-exports vLLM's metrics through Ray's own exporter, as `ray_vllm:<name>`. */
const RAY_VLLM = 'ray_vllm:';

/**
 * utkuozdemir/nvidia_gpu_exporter (`nvidia_smi_`): nvidia-smi's query fields as metrics, already in base units
 * (bytes, ratios, W, °C) but clocks in Hz; a GPU is named by its `uuid` label only.
 */
const NVIDIA_SMI_EXPORTER: Record<string, Rule> = {
  memory_used_bytes: g('gpu.mem.used', 'bytes'),
  memory_total_bytes: g('gpu.mem.total', 'bytes'),
  memory_free_bytes: g('gpu.mem.free', 'bytes'),
  memory_reserved_bytes: g('gpu.mem.reserved', 'bytes'),
  utilization_gpu_ratio: g('gpu.util', 'fraction'),
  utilization_memory_ratio: g('gpu.mem_util', 'fraction'),
  temperature_gpu: g('gpu.temp', 'C'),
  temperature_memory: g('gpu.mem_temp', 'C'),
  power_draw_watts: g('gpu.power', 'W'),
  enforced_power_limit_watts: g('gpu.power_limit', 'W'),
  clocks_current_sm_clock_hz: g('gpu.sm_clock', 'MHz', 1e-6),
  clocks_current_memory_clock_hz: g('gpu.mem_clock', 'MHz', 1e-6),
  fan_speed_ratio: g('gpu.fan', 'fraction'),
  clocks_event_reasons_active: g('gpu.throttle_reasons', 'bitmask'),
  clocks_throttle_reasons_active: g('gpu.throttle_reasons', 'bitmask'),
  ecc_errors_uncorrected_volatile_total: c('gpu.ecc_dbe', 'count'),
  ecc_errors_corrected_volatile_total: c('gpu.ecc_sbe', 'count'),
};

/**
 * llama.cpp's `llama-server --metrics` (`llamacpp:`): slots processing and requests deferred for a free slot,
 * token counters, and its average throughputs in tokens/s over the processing time (the counters win where
 * both are read, see the model's rates).
 */
const LLAMACPP: Record<string, Rule> = {
  requests_processing: g('req.running', 'count'),
  requests_deferred: g('req.waiting', 'count'),
  prompt_tokens: c('tokens.prompt', 'tokens'),
  tokens_predicted: c('tokens.generation', 'tokens'),
  prompt_tokens_seconds: g('tokens.prompt_rate', 'tokens/s'),
  predicted_tokens_seconds: g('tokens.generation_rate', 'tokens/s'),
  kv_cache_usage_ratio: g('kv.usage', 'fraction'),
  kv_cache_tokens: g('kv.used_tokens', 'tokens'),
};


/** dcgm-exporter's computed metrics (`DCGM_EXP_`). */
const DCGM_EXP: Record<string, Rule> = {
  XID_ERRORS_COUNT: { ...g('gpu.xid', 'code'), codeLabel: 'xid' },
};

/**
 * node_exporter's host memory (meminfo and vmstat collectors): what host_memory_leak reads where the server
 * exports no process RSS of its own, and the swapping it ends in. pswpin/pswpout are pages swapped in and
 * out since boot (`untyped` in its exposition).
 */
const NODE: Record<string, Rule> = {
  memory_MemAvailable_bytes: g('host.mem_available_bytes', 'bytes'),
  memory_MemTotal_bytes: g('host.mem_total', 'bytes'),
  vmstat_pswpin: c('host.swap', 'pages'),
  vmstat_pswpout: c('host.swap', 'pages'),
};

/** Prefixed tables after vLLM's, SGLang's, TGI's and DCGM's: the prefix and the table it names. */
const MORE_PREFIXES: [string, Record<string, Rule>][] = [
  ['trtllm_', TRTLLM],
  ['trtllm:', TRTLLM],
  ['nv_', TRITON],
  ['nvidia_smi_', NVIDIA_SMI_EXPORTER],
  ['DCGM_EXP_', DCGM_EXP],
  ['llamacpp:', LLAMACPP],
  ['node_', NODE],
];

function findRule(metric: string): Rule | undefined {
  if (metric.startsWith(RAY_VLLM)) return findRule(metric.slice(4));
  // A pipeline that lower-cases metric names (dcgm-exporter issue 272: `dcgm_fi_prof_gr_engine_active`): DCGM's names are upper case.
  if (metric.startsWith('dcgm_fi_') || metric.startsWith('dcgm_exp_')) return findRule(metric.toUpperCase());
  for (const [prefix, t] of MORE_PREFIXES) {
    if (!metric.startsWith(prefix)) continue;
    const bare = metric.slice(prefix.length);
    return t[bare] ?? (bare.endsWith('_total') ? t[bare.slice(0, -6)] : undefined);
  }
  const table = metric.startsWith('vllm:')
    ? VLLM
    : metric.startsWith('sglang:')
      ? SGLANG
      : metric.startsWith('tgi_')
        ? TGI
        : metric.startsWith('DCGM_FI_')
          ? DCGM
          : GENERIC;
  const bare = table === VLLM ? metric.slice(5) : table === SGLANG ? metric.slice(7) : table === TGI ? metric.slice(4) : table === DCGM ? metric.slice(8) : metric;
  return table[bare] ?? (bare.endsWith('_total') ? table[bare.slice(0, -6)] : undefined);
}

/**
 * The canonical series for one metric family (histogram and summary families without their `_bucket`
 * / `_sum` / `_count` suffix) and its labels, or null when the metric is not one Quadscope knows —
 * such metrics are imported under their own name and labels. `typeKind` is what the exposition's
 * `# TYPE` said; it wins over the table, which only fills in when the source said nothing.
 */
export function canonicalMetric(metric: string, labels: Labels, typeKind?: SeriesKind): Canonical | null {
  const rule = findRule(metric);
  if (!rule) return null;
  const renamed = canonicalLabels(labels);
  const kept = rule.labels ? rule.labels(renamed) : renamed;
  // Ray's exporter writes counters as gauges (without `_total`): for ray_vllm: a counter stays one.
  const rayCounter = rule.kind === 'counter' && typeKind === 'gauge' && metric.startsWith(RAY_VLLM);
  const kind = typeKind && typeKind !== 'unknown' && rule.kind !== 'info' && !rayCounter ? typeKind : rule.kind;
  return {
    name: typeof rule.name === 'function' ? rule.name(labels) : rule.name,
    unit: rule.unitOf ? rule.unitOf(labels) : rule.unit,
    kind,
    scale: rule.scale ?? 1,
    labels: { ...kept, metric },
    sumAs: rule.sumAs,
    adapters: rule.adapters,
    staleAfterS: rule.staleAfterS,
    ...(rule.codeLabel ? { codeLabel: rule.codeLabel } : {}),
  };
}

/** DCGM's "blank" values mean "no reading": int64/fp64 blanks near 9.22e18, and for DCGM fields also
 * the int32 blanks (0x7ffffff0…) and the fp64 blank 2^47. */
export function isBlankSentinel(metric: string, value: number): boolean {
  if (value >= 9.2e18) return true;
  if (!/^dcgm_/i.test(metric)) return false;
  return (value >= 2147483632 && value <= 2147483647) || value >= 140737488355328;
}

/** NVML's and nvidia-smi's "00000000:3B:00.0" in the kernel log's spelling ("0000:3b:00"), so GPU faults from any source join. */
export function kernelBusId(pciBusId: string): string {
  const m = /^(?:[0-9a-f]{4})?([0-9a-f]{4}):([0-9a-f]{2}):([0-9a-f]{2})(?:\.[0-7])?$/i.exec(pciBusId);
  return m ? `${m[1]}:${m[2]}:${m[3]}`.toLowerCase() : pciBusId.toLowerCase();
}
