// Thresholds of the four-quadrant model and the root-cause rules, with the three trigger presets.
// Everything a user may tune lives here; a JSON config file (`quadscope analyze --config F`) overrides
// any subset, keyed exactly as below.
import { DEFAULT_QUADRANT_THRESHOLDS, type Preset } from '../../../common/contract/diagnosis';

export interface TriggerThresholds {
  /** θℓ: P99 e2e latency rise over the baseline, ms. */
  latency_ms: number;
  /** θt: token-rate fall over the baseline, as a fraction (0.3 = 30%). */
  throughput_drop: number;
}

export interface ModelConfig {
  window_ms: number;
  step_ms: number;
  /** A window holds at least this many scrape intervals (15 s scrapes → W ≥ 30 s). */
  min_samples_per_window: number;
  /** The grid never holds more windows than this: a 30-day span gets a wider step, not 500 k windows. */
  max_windows: number;
  /** Data silent for longer than this (every source) splits the incident; the dense part is analysed, the rest reported as gaps. */
  gap_split_ms: number;
  /** Instances analysed one by one in a fleet (beyond it, the fleet is analysed as a whole only). */
  max_instances: number;
  /** Default baseline: this share of the incident's span, capped at baseline_max_ms. */
  baseline_fraction: number;
  baseline_max_ms: number;
  /** …but at least this many scrape intervals where the span allows (sparse scrapes). */
  baseline_min_scrapes: number;
  /**
   * An episode beginning more than after_ms past the baseline's end has its causes read first against the
   * baseline's length of data ending guard_ms before it (diagnose.ts, localReference).
   */
  local_reference: { after_ms: number; guard_ms: number };
  /** The whole span's own spread floors the latency bands only over a span this long (a day's swing; see latency-bands.ts). */
  whole_span_floor_min_ms: number;
  presets: Record<Preset, TriggerThresholds>;
  /** The joint trigger must hold this many consecutive windows, beyond trigger_noise_z baseline spreads. */
  trigger_hold_windows: number;
  trigger_noise_z: number;
  theta_R: number;
  theta_S: number;
  /** θe: error rate that puts the error term at 0.5. */
  error_rate: number;
  /** Queue P95 at which the queue score reaches 0, ms. */
  queue_latency_ms: number;
  /** Token-rate peak for the token score; null = the baseline's p95. */
  token_peak: number | null;
  memory_epsilon_bytes: number;
  /** Above this used/total, memory pressure is the absolute share (the headroom is gone). */
  memory_absolute_above: number;
  alerts: {
    /** How long a condition must hold before the alert fires (Prometheus' `for`), ms. */
    for_ms: number;
    /** Absolute TTFT P99 SLO, ms: counts only where the baseline sat below 80% of it. */
    latency_p99_ms: number;
    /** A latency family's P99 must also rise by this share of its baseline median to count. */
    latency_rel_rise: number;
    /** A symptom alert that stays firing this long makes the incident abnormal (never healthy) even with no rule firing.
     * Five minutes: a healthy fleet absorbs a traffic spike of two or three minutes (a batch job, a retry wave)
     * with its latency alert on a little longer than the spike, and recovers by itself. */
    incident_min_ms: number;
  };
  causes: {
    kv_full: number;
    kv_high: number;
    kv_max_veto: number;
    /** Share of a window's KV samples at or above kv_full that makes the window "full" (median over the span). */
    kv_full_share: number;
    /** Requests waiting (median over the span) that, at a full pool, mean the pool blocks admission. */
    kv_blocked_wait: number;
    /** A latency family's r() that counts as a KV-exhaustion symptom, and the token-rate ratio that does. */
    kv_symptom_ratio: number;
    kv_tokens_ratio: number;
    hang_min_ms: number;
    /** engine_hang: KV held with nothing running at which a stalled queue is a pool no one can enter (a KV cause), not a wedge. */
    hang_held_kv: number;
    /** The engine silent this long after the baseline is an outage (the status is never healthy). */
    outage_min_ms: number;
    throttle_min_ms: number;
    throttle_clock_ratio: number;
    /** The clock cut that counts in a window where the GPU sets a slowdown bit (throttle_bits) itself. */
    throttle_clock_ratio_flagged: number;
    /** Throttle bits that mean a real slowdown: HW_SLOWDOWN 0x8, SW_THERMAL 0x20, HW_THERMAL 0x40, POWER_BRAKE 0x80. */
    throttle_bits: number;
    hw_xids: number[];
    software_xids: number[];
    deploy_window_ms: number;
    deploy_kpi_change: number;
    /** The step a restart known only from the metrics must show: no version or config is known to have changed. */
    deploy_kpi_change_unlogged: number;
    /** After a deploy, the KPI is judged from this long after it (warm-up: caches, graphs, a cold prefix cache). */
    deploy_warmup_ms: number;
    /** A KPI back at its level from before the change for this long (at the load it had) ends a would-be regression. */
    deploy_recovery_ms: number;
    /** How long after a change event the KPI is watched for that return (or until the next change event). */
    deploy_recovery_horizon_ms: number;
    workload_tolerance: number;
    crash_loop_window_ms: number;
    crash_loop_restarts: number;
    leak_min_growth_bytes: number;
    /** Host RSS growth that counts as a leak: at least this many bytes and this share of the baseline RSS. */
    host_leak_min_bytes: number;
    host_leak_min_share: number;
    /** A host leak's RSS slope over the incident must reach this multiple of the baseline's (a drift from the start is no leak). */
    host_leak_speedup: number;
    /** A jump of host RSS by more than this share between two readings is a new process, not growth. */
    host_rss_jump: number;
    /** The most of a host RSS climb one window's span may carry for it to be a leak (more: a level that stepped). */
    host_leak_step_share: number;
    leak_mono: number;
    frag_ratio: number;
    frag_min_bytes: number;
    /** Largest batch CUDA graphs were captured for (vLLM's max capture size). */
    cuda_graph_max_batch: number;
    /** Adapter slots (vLLM --max-loras); null = read a `lora.max` series. */
    max_loras: number | null;
    straggler_spread: number;
    hardware_lookback_ms: number;
    /** traffic_surge: arrivals ÷ baseline, queue P99 ÷ baseline, Δqueue's share of Δe2e, and the arrival ratio below which it is capacity loss. */
    surge_arrival_ratio: number;
    surge_queue_ratio: number;
    surge_queue_share: number;
    surge_arrival_veto: number;
    /** long_prompt_interference: prompt p90 (or prompt tokens/s) ÷ baseline, and TTFT ÷ baseline. */
    long_prompt_ratio: number;
    long_prompt_ttft_ratio: number;
    /** workload_drift: output length ÷ baseline, the ITL ratio it stays under, and the e2e ratio it reaches. */
    drift_gen_ratio: number;
    drift_itl_max: number;
    drift_e2e_ratio: number;
    /** kv_bloat: the KV median that counts as a pool full of reservations (below kv_high: a pool of a few
     * large reservations refuses the next one with a reservation's worth still free), running ÷ baseline at
     * most, total length ÷ baseline, or KV held ÷ tokens. */
    bloat_kv: number;
    bloat_run_share: number;
    bloat_len_ratio: number;
    bloat_held_ratio: number;
    /** kv_block_leak: the idle KV floor that counts, and the late idle minimum that means it came back. */
    block_leak_floor: number;
    block_leak_idle_min: number;
    /** prefix_cache_collapse: baseline hit rate at least, misses (1 − hit) ÷ the baseline's, TTFT and computed prompt tokens ÷ baseline, prompt-length veto. */
    prefix_hit_base_min: number;
    prefix_miss_ratio: number;
    prefix_ttft_ratio: number;
    prefix_computed_ratio: number;
    prefix_prompt_veto: number;
    /** network_client_slowness: the server's latency counts as risen at this ratio to the baseline (with z ≥ 2). */
    network_server_rise_ratio: number;
    /** cuda_graph_fallback and spec_decode_degradation: ITL ratios; the acceptance-length fall. */
    cuda_graph_itl_ratio: number;
    spec_acc_fall: number;
    spec_itl_ratio: number;
    lora_ttft_ratio: number;
    /** cpu_frontend_bottleneck: SM active at most, util ratio at most, TTFT ratio, KV at most, the token ratio below which the engine is down. */
    frontend_sm_max: number;
    frontend_util_ratio: number;
    frontend_ttft_ratio: number;
    frontend_kv_max: number;
    frontend_down_ratio: number;
    /** TTFT beyond queue time and prefill (tokenizing, the API server's own queue) ÷ baseline. */
    frontend_gap_ratio: number;
    /** cpu_frontend_bottleneck: the serving process's CPU (cores) at or above this is pinned (one Python thread holds the GIL). */
    frontend_cpu_pinned: number;
    /** gpu_throttling: the GPU must be this busy. */
    throttle_util_min: number;
    /**
     * tp_straggler: the ITL ratio. Below straggler_spread on purpose: a rank 1.15× slower makes every step
     * at most 1.15× slower (less where the step waits on memory or the network, not on the SMs).
     */
    straggler_itl_ratio: number;
  };
}

export const DEFAULT_CONFIG: ModelConfig = {
  window_ms: 10_000,
  step_ms: 5_000,
  min_samples_per_window: 2,
  max_windows: 20_000,
  gap_split_ms: 60 * 60_000,
  max_instances: 256,
  baseline_fraction: 0.2,
  baseline_max_ms: 10 * 60_000,
  baseline_min_scrapes: 10,
  local_reference: { after_ms: 60 * 60_000, guard_ms: 30 * 60_000 },
  whole_span_floor_min_ms: 3600_000,
  presets: {
    default: { latency_ms: 150, throughput_drop: 0.3 },
    'high-qps': { latency_ms: 120, throughput_drop: 0.25 },
    'long-context': { latency_ms: 300, throughput_drop: 0.4 },
  },
  trigger_hold_windows: 3,
  trigger_noise_z: 3,
  theta_R: DEFAULT_QUADRANT_THRESHOLDS.theta_R,
  theta_S: DEFAULT_QUADRANT_THRESHOLDS.theta_S,
  error_rate: 0.05,
  queue_latency_ms: 500,
  token_peak: null,
  memory_epsilon_bytes: 1 << 20,
  memory_absolute_above: 0.97,
  alerts: { for_ms: 120_000, latency_p99_ms: 800, latency_rel_rise: 0.25, incident_min_ms: 300_000 },
  causes: {
    kv_full: 0.95,
    kv_high: 0.9,
    kv_max_veto: 0.85,
    kv_full_share: 0.5,
    kv_blocked_wait: 1,
    kv_symptom_ratio: 1.5,
    kv_tokens_ratio: 0.8,
    hang_min_ms: 60_000,
    hang_held_kv: 0.1,
    outage_min_ms: 5 * 60_000,
    throttle_min_ms: 60_000,
    throttle_clock_ratio: 0.85,
    throttle_clock_ratio_flagged: 0.95,
    throttle_bits: 0x8 | 0x20 | 0x40 | 0x80,
    // The hardware class of NVIDIA's Xid catalogue (importers/xid-codes.ts) less the warnings (63, 92, 121: a row-remap recorded, a high single-bit rate, a corrected link error).
    hw_xids: [48, 62, 64, 74, 79, 94, 95, 119, 120, 140, 143, 144, 145, 146, 147, 148, 149, 150],
    software_xids: [13, 31, 43, 45],
    deploy_window_ms: 10 * 60_000,
    deploy_kpi_change: 0.2,
    deploy_kpi_change_unlogged: 0.4,
    deploy_warmup_ms: 120_000,
    deploy_recovery_ms: 240_000,
    deploy_recovery_horizon_ms: 30 * 60_000,
    workload_tolerance: 0.15,
    crash_loop_window_ms: 30 * 60_000,
    crash_loop_restarts: 2,
    leak_min_growth_bytes: 256 * 2 ** 20,
    host_leak_min_bytes: 2 ** 30,
    host_leak_min_share: 0.25,
    host_leak_speedup: 2,
    host_rss_jump: 0.25,
    host_leak_step_share: 0.5,
    leak_mono: 0.8,
    frag_ratio: 0.25,
    frag_min_bytes: 2 ** 30,
    cuda_graph_max_batch: 512,
    max_loras: null,
    straggler_spread: 1.15,
    hardware_lookback_ms: 5 * 60_000,
    surge_arrival_ratio: 1.3,
    surge_queue_ratio: 3,
    surge_queue_share: 0.5,
    surge_arrival_veto: 1.1,
    long_prompt_ratio: 2,
    long_prompt_ttft_ratio: 2,
    drift_gen_ratio: 1.5,
    drift_itl_max: 1.1,
    drift_e2e_ratio: 1.3,
    bloat_kv: 0.8,
    bloat_run_share: 0.5,
    bloat_len_ratio: 1.5,
    bloat_held_ratio: 2,
    block_leak_floor: 0.05,
    block_leak_idle_min: 0.02,
    prefix_hit_base_min: 0.3,
    prefix_miss_ratio: 1.5,
    network_server_rise_ratio: 1.3,
    prefix_ttft_ratio: 1.5,
    prefix_computed_ratio: 1.5,
    prefix_prompt_veto: 1.5,
    cuda_graph_itl_ratio: 1.3,
    spec_acc_fall: 0.75,
    spec_itl_ratio: 1.15,
    lora_ttft_ratio: 2,
    frontend_sm_max: 0.5,
    frontend_util_ratio: 0.7,
    frontend_ttft_ratio: 1.5,
    frontend_kv_max: 0.8,
    frontend_down_ratio: 0.1,
    frontend_gap_ratio: 2,
    frontend_cpu_pinned: 0.9,
    throttle_util_min: 0.5,
    straggler_itl_ratio: 1.1,
  },
};

export const PRESETS = Object.keys(DEFAULT_CONFIG.presets) as Preset[];

export function isPreset(x: string): x is Preset {
  return (PRESETS as string[]).includes(x);
}

/**
 * Overlays a parsed JSON config on the defaults. Unknown keys and wrongly typed values are errors
 * naming the key, so a typo never silently keeps a default.
 */
export function mergeConfig(overrides: unknown, base: ModelConfig = DEFAULT_CONFIG, where = 'config'): ModelConfig {
  return overlay(base, overrides, where) as ModelConfig;
}

function overlay(base: unknown, over: unknown, path: string): unknown {
  if (over === undefined) return base;
  if (base === null || typeof base === 'number') {
    if (over === null && base === null) return null;
    if (typeof over !== 'number' || !Number.isFinite(over)) throw new Error(`${path}: expected a number, got ${JSON.stringify(over)}`);
    return over;
  }
  if (Array.isArray(base)) {
    if (!Array.isArray(over) || over.some((x) => typeof x !== 'number')) throw new Error(`${path}: expected an array of numbers`);
    return [...over];
  }
  if (typeof base === 'object') {
    if (typeof over !== 'object' || over === null || Array.isArray(over)) throw new Error(`${path}: expected an object`);
    const out: Record<string, unknown> = { ...(base as Record<string, unknown>) };
    for (const [k, v] of Object.entries(over)) {
      if (!(k in out)) throw new Error(`${path}.${k}: unknown setting (known: ${Object.keys(out).join(', ')})`);
      out[k] = overlay(out[k], v, `${path}.${k}`);
    }
    return out;
  }
  return over;
}
