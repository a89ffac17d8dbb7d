import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyScale, canonicalLabels, canonicalMetric, isBlankSentinel, MIB } from '../../../node/engine/signals/canonical';

test('vLLM V0 and V1 spellings map onto one canonical signal, kept apart by the metric label', () => {
  const v1 = canonicalMetric('vllm:kv_cache_usage_perc', { model_name: 'm', engine: '0' }, 'gauge');
  const v0 = canonicalMetric('vllm:gpu_cache_usage_perc', { model_name: 'm' }, 'gauge');
  assert.deepEqual(v1, { name: 'kv.usage', unit: 'fraction', kind: 'gauge', scale: 1, labels: { model: 'm', engine: '0', metric: 'vllm:kv_cache_usage_perc' }, sumAs: undefined, adapters: undefined, staleAfterS: undefined });
  assert.equal(v0?.name, 'kv.usage');
  assert.equal(v0?.labels.metric, 'vllm:gpu_cache_usage_perc');
  assert.equal(canonicalMetric('vllm:time_per_output_token_seconds', {}, 'histogram')?.name, 'lat.itl');
  assert.equal(canonicalMetric('vllm:inter_token_latency_seconds', {}, 'histogram')?.name, 'lat.itl');
  // V1 before 0.10: gpu_prefix_cache_*; after: prefix_cache_*.
  assert.equal(canonicalMetric('vllm:gpu_prefix_cache_queries_total', {}, 'counter')?.name, 'kv.prefix_queries');
  assert.equal(canonicalMetric('vllm:gpu_prefix_cache_hits', {}, 'counter')?.name, 'kv.prefix_hits');
});

test('counters are found with and without _total, and # TYPE wins over the table', () => {
  assert.equal(canonicalMetric('vllm:num_preemptions_total', {}, 'counter')?.name, 'kv.preemptions');
  assert.equal(canonicalMetric('vllm:num_preemptions', {}, 'counter')?.name, 'kv.preemptions');
  assert.equal(canonicalMetric('vllm:iteration_tokens_total', {}, 'histogram')?.kind, 'histogram');
  assert.equal(canonicalMetric('vllm:prompt_tokens_total', {}, undefined)?.kind, 'counter');
  assert.equal(canonicalMetric('vllm:prompt_tokens_total', {}, 'unknown')?.kind, 'counter');
});

test('finished_reason becomes reason on req.finished; TGI success gets reason "success"', () => {
  assert.deepEqual(canonicalMetric('vllm:request_success_total', { finished_reason: 'abort', model_name: 'm' }, 'counter')?.labels, { reason: 'abort', model: 'm', metric: 'vllm:request_success_total' });
  assert.equal(canonicalMetric('tgi_request_success', {}, 'counter')?.labels.reason, 'success');
  const inLen = canonicalMetric('tgi_request_input_length', {}, 'histogram');
  assert.equal(inLen?.name, 'req.prompt_len');
  assert.equal(inLen?.sumAs, 'tokens.prompt');
  assert.equal(canonicalMetric('tgi_queue_size', {}, 'gauge')?.name, 'req.waiting');
  assert.equal(canonicalMetric('tgi_batch_current_size', {}, 'gauge')?.name, 'req.running');
});

test('SGLang names, including the retraction gauge and counter', () => {
  assert.equal(canonicalMetric('sglang:num_queue_reqs', {}, 'gauge')?.name, 'req.waiting');
  assert.equal(canonicalMetric('sglang:token_usage', {}, 'gauge')?.name, 'kv.usage');
  assert.equal(canonicalMetric('sglang:num_retracted_reqs', {}, 'gauge')?.name, 'kv.retracted');
  assert.equal(canonicalMetric('sglang:num_retracted_requests_total', {}, 'counter')?.name, 'kv.preemptions');
  // Each forward pass counted by whether it replayed a CUDA graph: the mode label is the reading.
  const passes = canonicalMetric('sglang:cuda_graph_passes_total', { mode: 'decode_none', tp_rank: '0' }, 'counter');
  assert.deepEqual([passes?.name, passes?.kind, passes?.labels.mode], ['engine.graph_passes', 'counter', 'decode_none']);
});

test('DCGM units are normalised: MiB → bytes, % → fraction, mJ → J', () => {
  const used = canonicalMetric('DCGM_FI_DEV_FB_USED', { gpu: '0', UUID: 'GPU-1', Hostname: 'h', modelName: 'H100', DCGM_FI_DRIVER_VERSION: '550' }, 'gauge');
  assert.equal(used?.name, 'gpu.mem.used');
  assert.equal(used?.scale, MIB);
  assert.deepEqual(used?.labels, { gpu: '0', gpu_uuid: 'GPU-1', host: 'h', gpu_model: 'H100', metric: 'DCGM_FI_DEV_FB_USED' });
  assert.equal(canonicalMetric('DCGM_FI_DEV_GPU_UTIL', {}, 'gauge')?.scale, 0.01);
  assert.equal(canonicalMetric('DCGM_FI_PROF_SM_ACTIVE', {}, 'gauge')?.scale, 1);
  assert.equal(canonicalMetric('DCGM_FI_DEV_CLOCKS_EVENT_REASONS', {}, 'gauge')?.name, 'gpu.throttle_reasons');
  assert.equal(canonicalMetric('DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION', {}, 'counter')?.scale, 0.001);
  // Field 1523 under both its names: NVML's recovery action code as it is.
  for (const m of ['DCGM_FI_DEV_GET_GPU_RECOVERY_ACTION', 'DCGM_FI_DEV_GPU_RECOVERY_ACTION']) assert.deepEqual([canonicalMetric(m, {}, 'gauge')?.name, canonicalMetric(m, {}, 'gauge')?.scale ?? 1], ['gpu.recovery_action', 1]);
});

test('HTTP 5xx counts as req.errors, other statuses as http.requests', () => {
  assert.equal(canonicalMetric('http_requests_total', { status: '5xx' }, 'counter')?.name, 'req.errors');
  assert.equal(canonicalMetric('http_requests_total', { status: '2xx' }, 'counter')?.name, 'http.requests');
});

test('lora_requests_info names its distinct adapters; the adapter lists leave the labels, the engine stays', () => {
  const c = canonicalMetric('vllm:lora_requests_info', { running_lora_adapters: 'a,b', waiting_lora_adapters: 'b, c', max_lora: '2', instance: 'h:8000' }, 'gauge');
  assert.equal(c?.name, 'lora.active');
  assert.deepEqual(c?.adapters?.({ running_lora_adapters: 'a,b', waiting_lora_adapters: 'b, c' }), ['a', 'b', 'c']);
  assert.deepEqual(c?.adapters?.({ running_lora_adapters: '', waiting_lora_adapters: '' }), []);
  assert.deepEqual(c?.labels, { max_lora: '2', instance: 'h:8000', metric: 'vllm:lora_requests_info' });
  assert.equal(c?.staleAfterS, 60);
});

test('unknown metrics are not mapped; labels of DCGM info fields are dropped', () => {
  assert.equal(canonicalMetric('python_gc_objects_collected_total', {}, 'counter'), null);
  assert.equal(canonicalMetric('vllm:request_params_n', {}, 'histogram'), null);
  assert.deepEqual(canonicalLabels({ DCGM_FI_DEV_SERIAL: 'x', pci_bus_id: '0000:3b:00.0' }), { bus_id: '0000:3b:00.0' });
});

test('DCGM blank sentinels', () => {
  assert.equal(isBlankSentinel('DCGM_FI_DEV_SM_CLOCK', 9223372036854775794), true);
  assert.equal(isBlankSentinel('DCGM_FI_DEV_SM_CLOCK', 2147483632), true);
  assert.equal(isBlankSentinel('DCGM_FI_DEV_SM_CLOCK', 1980), false);
  assert.equal(isBlankSentinel('vllm:prompt_tokens_total', 2147483632), false);
});

test('applyScale gives the decimal the source wrote, not the binary product', () => {
  assert.equal(applyScale(45.3, 0.01), 0.453);
  assert.equal(applyScale(35, 0.01), 0.35);
  assert.equal(applyScale(1234.5678, 0.001), 1.2345678);
  assert.equal(applyScale(1e-7, 0.01), 1e-9);
  assert.equal(applyScale(-12.5, 0.01), -0.125);
  assert.equal(applyScale(Infinity, 0.001), Infinity);
  assert.equal(applyScale(3, MIB), 3 * MIB);
  assert.equal(applyScale(3, 1 / 1024), 3 / 1024);
  // A scale that is no 1/k multiplies.
  assert.equal(applyScale(2, 0.3), 2 * 0.3);
});

test("NVIDIA's servers: Triton's TensorRT-LLM gauges by their label, Triton's GPU metrics, trtllm-serve's vLLM names, NIM 1.x's unprefixed ones", () => {
  const name = (m: string, l: Record<string, string> = {}) => canonicalMetric(m, l)?.name ?? null;
  assert.equal(name('nv_trt_llm_request_metrics', { request_type: 'active', model: 'tensorrt_llm' }), 'req.running');
  assert.equal(name('nv_trt_llm_request_metrics', { request_type: 'waiting' }), 'req.waiting');
  // The other request types keep the metric's name (with their label, each its own series).
  assert.equal(name('nv_trt_llm_request_metrics', { request_type: 'max' }), 'nv_trt_llm_request_metrics');
  assert.equal(name('nv_trt_llm_kv_cache_block_metrics', { kv_cache_block_type: 'fraction' }), 'kv.usage');
  assert.equal(name('nv_trt_llm_kv_cache_block_metrics', { kv_cache_block_type: 'used' }), 'nv_trt_llm_kv_cache_block_metrics');
  assert.equal(name('nv_gpu_utilization', { gpu_uuid: 'GPU-1' }), 'gpu.util');
  assert.equal(name('nv_gpu_memory_used_bytes'), 'gpu.mem.used');
  // Per-model request counters are not read: an ensemble counts a request once per model in it.
  assert.equal(name('nv_inference_request_success'), null);
  assert.equal(name('trtllm_num_requests_waiting'), 'req.waiting');
  assert.equal(name('trtllm:kv_cache_utilization'), 'kv.usage');
  assert.equal(name('trtllm_time_to_first_token_seconds'), 'lat.ttft');
  assert.equal(name('trtllm_request_success_total', { finished_reason: 'stop' }), 'req.finished');
  assert.equal(name('num_requests_running', { model_name: 'meta/llama3-8b-instruct' }), 'req.running');
  assert.equal(name('gpu_cache_usage_perc'), 'kv.usage');
  assert.equal(name('request_finish_total', { finished_reason: 'stop' }), 'req.finished');
  assert.equal(name('request_success_total'), null, 'NIM counts the same requests in request_finish_total');
  assert.equal(name('e2e_request_latency_seconds'), 'lat.e2e');
  // NIM 1.x's token counters (a scrape without them read no throughput at all).
  assert.equal(name('prompt_tokens_total'), 'tokens.prompt');
  assert.equal(name('generation_tokens_total'), 'tokens.generation');
});

test("SGLang 0.5's sliding-window pool and acceptance rate map as its log lines do", () => {
  assert.equal(canonicalMetric('sglang:swa_token_usage', {})?.name, 'kv.swa_usage');
  assert.equal(canonicalMetric('sglang:spec_accept_rate', {})?.name, 'spec.acceptance_rate');
});

test("a gauge split by a label gives each signal its own unit (Triton's KV fraction is a fraction, its block counts no unit)", () => {
  assert.equal(canonicalMetric('nv_trt_llm_kv_cache_block_metrics', { kv_cache_block_type: 'fraction' })?.unit, 'fraction');
  assert.equal(canonicalMetric('nv_trt_llm_kv_cache_block_metrics', { kv_cache_block_type: 'max' })?.unit, '');
  assert.equal(canonicalMetric('nv_trt_llm_request_metrics', { request_type: 'active' })?.unit, 'count');
});

test("nvidia_gpu_exporter's nvidia_smi_* metrics map to the GPU signals, its clocks from Hz to MHz", () => {
  const m = (name: string) => canonicalMetric(name, { uuid: 'GPU-1' });
  assert.equal(m('nvidia_smi_memory_used_bytes')?.name, 'gpu.mem.used');
  assert.equal(m('nvidia_smi_utilization_gpu_ratio')?.name, 'gpu.util');
  assert.equal(m('nvidia_smi_clocks_event_reasons_active')?.name, 'gpu.throttle_reasons');
  const clock = m('nvidia_smi_clocks_current_sm_clock_hz')!;
  assert.deepEqual([clock.name, clock.unit, applyScale(2.52e9, clock.scale)], ['gpu.sm_clock', 'MHz', 2520]);
  assert.equal(m('nvidia_smi_gpu_info'), null);
});

test('DCGM names lower-cased by a pipeline map as DCGM\'s own', () => {
  assert.equal(canonicalMetric('dcgm_fi_prof_gr_engine_active', { gpu: '0' })?.name, 'gpu.gr_active');
  assert.equal(canonicalMetric('dcgm_fi_dev_fb_used', { gpu: '0' })?.scale, MIB);
  assert.equal(isBlankSentinel('dcgm_fi_dev_fb_used', 2147483647), true);
});

test("llama.cpp's llamacpp: metrics map: slots processing running, deferred waiting, token counters, throughputs in tokens/s", () => {
  const m = (name: string, kind?: 'gauge' | 'counter') => canonicalMetric(name, {}, kind);
  assert.deepEqual([m('llamacpp:requests_processing', 'gauge')?.name, m('llamacpp:requests_deferred', 'gauge')?.name], ['req.running', 'req.waiting']);
  assert.deepEqual([m('llamacpp:prompt_tokens_total', 'counter')?.name, m('llamacpp:tokens_predicted_total', 'counter')?.name], ['tokens.prompt', 'tokens.generation']);
  const rate = m('llamacpp:prompt_tokens_seconds', 'gauge')!;
  assert.deepEqual([rate.name, rate.unit], ['tokens.prompt_rate', 'tokens/s']);
  assert.equal(m('llamacpp:prompt_seconds_total', 'counter'), null, 'time spent prompting: no canonical signal');
});

test("SGLang's disaggregation and grammar queues are req.waiting under their own queue label, so they add to the waiting queue", () => {
  const base = { model_name: 'Qwen/Qwen3-0.6B', tp_rank: '0' };
  const main = canonicalMetric('sglang:num_queue_reqs', base)!;
  const pd = canonicalMetric('sglang:num_decode_prealloc_queue_reqs', base)!;
  assert.deepEqual([pd.name, pd.unit, pd.labels.queue, pd.labels.model], ['req.waiting', 'count', 'decode_prealloc', 'Qwen/Qwen3-0.6B']);
  assert.equal(main.labels.queue, undefined);
  assert.equal(canonicalMetric('sglang:num_prefill_inflight_queue_reqs', base), null, 'KV under way to the decode side is work, not waiting');
});

test("TGI's failures are server errors, except a validation failure (the client's bad request)", () => {
  assert.equal(canonicalMetric('tgi_request_failure', { err: 'generation' })?.name, 'req.errors');
  assert.equal(canonicalMetric('tgi_request_failure', { err: 'overloaded' })?.name, 'req.errors');
  assert.equal(canonicalMetric('tgi_request_failure', { err: 'validation' })?.name, 'tgi_request_failure');
});

test("node_exporter's host memory maps: MemAvailable and MemTotal as bytes, pages swapped in and out as one counter", () => {
  const avail = canonicalMetric('node_memory_MemAvailable_bytes', { instance: 'gpu-1:9100' }, 'gauge')!;
  assert.deepEqual([avail.name, avail.unit, avail.kind, avail.labels.instance], ['host.mem_available_bytes', 'bytes', 'gauge', 'gpu-1:9100']);
  assert.equal(canonicalMetric('node_memory_MemTotal_bytes', {}, 'gauge')?.name, 'host.mem_total');
  // node_exporter writes the vmstat fields `untyped`: the table's counter stands.
  for (const m of ['node_vmstat_pswpin', 'node_vmstat_pswpout']) assert.deepEqual([canonicalMetric(m, {}, 'unknown')?.name, canonicalMetric(m, {}, 'unknown')?.kind], ['host.swap', 'counter']);
  assert.equal(canonicalMetric('node_memory_Cached_bytes', {}, 'gauge'), null);
});
