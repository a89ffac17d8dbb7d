// The analysis output of docs/four-quadrant-model.md §10: what `quadscope analyze --json` prints, what the
// diagnosis panel and the report read.

export type Quadrant = 'healthy' | 'saturated' | 'exhausted' | 'contended';
export type Preset = 'default' | 'high-qps' | 'long-context';
export type AlertFamily = 'latency' | 'errors' | 'throughput' | 'resources';

export const CAUSE_IDS = [
  'kv_exhaustion',
  'kv_bloat',
  'kv_block_leak',
  'prefix_cache_collapse',
  'gpu_memory_leak',
  'allocator_fragmentation',
  'oom_crash_loop',
  'traffic_surge',
  'long_prompt_interference',
  'cpu_frontend_bottleneck',
  'gpu_throttling',
  'gpu_hardware_fault',
  'engine_hang',
  'tp_straggler',
  'host_memory_leak',
  'network_client_slowness',
  'deploy_regression',
  'spec_decode_degradation',
  'lora_thrash',
  'cuda_graph_fallback',
  'workload_drift',
] as const;
export type CauseId = (typeof CAUSE_IDS)[number];

export interface WindowScore {
  t_ms: number;
  R: number;
  S: number;
  quadrant: Quadrant;
  scores: { gpu_mem: number; kv: number; tokens: number; queue: number };
}

export interface Alert {
  family: AlertFamily;
  first_fired_ms: number;
  resolved_ms: number | null;
  /**
   * Time inside the alert's span whose windows had no data (between two windows where the condition held): a
   * span across an idle stretch is not that long a symptom. Absent where there was none.
   */
  unobserved_ms?: number;
}

export interface Condition {
  condition: string;
  value: number | string | boolean | null;
  held: boolean;
  /** The threshold the value was compared with, as configured for this run (null where the test is not a comparison). */
  threshold?: number | null;
}

export interface Evidence {
  kind: 'series' | 'event' | 'span' | 'allocation';
  /** series: the canonical series name (+ labels); event: event id; span: trace_id/span_id; allocation: stack id. */
  ref: string;
  start_ms: number;
  end_ms: number;
  text: string;
}

export interface CauseResult {
  id: CauseId;
  confidence: number;
  onset_ms: number | null;
  chain: CauseId[];
  require: Condition[];
  support: Condition[];
  veto: Condition[];
  evidence: Evidence[];
  /** Instance label values (instance, else pod, else host) where the cause holds; empty when the whole fleet is affected or there is one instance. */
  instances?: string[];
  /** Memory growth that ran into a CUDA OOM: it ranks with the crashes (docs/root-causes.md §2). */
  ended_in_oom?: boolean;
  /** Its defining figure was read off the symptom itself (an inferred CUDA-graph capture size): it ranks last (docs/root-causes.md §2). */
  inferred?: boolean;
}

/**
 * healthy: nothing abnormal. explained: a rule names the cause (causes[0] is the root cause).
 * unexplained: something is wrong (a crash, an OOM, an Xid, an outage, a stall, the joint trigger or an alert)
 * but no rule fires — never shown as healthy. insufficient: nothing abnormal, but the bundle's time series
 * are too short (or absent) for "healthy" to mean anything — a pasted log fragment, a single scrape.
 */
export type DiagnosisStatus = 'healthy' | 'explained' | 'unexplained' | 'insufficient';

/** What the diagnosis could judge: how much time its series cover and which of the service's signals they hold. */
export interface Coverage {
  /** The span of time series the windows cover (ms); 0 where the bundle holds none (events only). */
  span_ms: number;
  /** The least span that supports "healthy": a baseline, then long enough for an alert to hold. */
  need_ms: number;
  /** Whether request latency (end-to-end, TTFT, ITL or queue time) was measured. */
  latency: boolean;
  /** Whether the token rate was measured. */
  throughput: boolean;
  /** Error and critical log events the rules read (tracebacks, NCCL errors …), and the first one's first line. */
  error_events?: number;
  first_error?: string | null;
}

/** One cause as it was checked: fired (with its conditions), not fired (the conditions that failed), or not assessable. */
export interface CauseCheck {
  id: CauseId;
  verdict: 'fired' | 'not_fired' | 'not_assessable';
  /** REQUIRE conditions that did not hold (not_fired), each with its value and threshold. */
  failed: Condition[];
  /** Signals the rule needs and the bundle lacks (not_assessable). */
  missing: string[];
}

/** What makes an incident abnormal with no rule firing: its evidence and onset. */
export interface Unexplained {
  onset_ms: number | null;
  evidence: Evidence[];
}

/** One serving instance's own diagnosis, in a fleet (four-quadrant model run on its signals alone). */
export interface InstanceDiagnosis {
  instance: string;
  status: DiagnosisStatus;
  onset_ms: number | null;
  /** Its causes, ranked. */
  causes: CauseId[];
  /** The identity label values its series carry (instance, pod, host): the fleet view filters charts by them. */
  ids?: string[];
  /** Its own windows' quadrants and S, thinned to at most FLEET_WINDOWS (the worst S of each run kept). */
  windows?: { t_ms: number; quadrant: Quadrant; S: number }[];
}

/** Windows kept per instance in `InstanceDiagnosis.windows`: a 64-replica day stays a few MB of JSON. */
export const FLEET_WINDOWS = 600;

export interface LeakSite { frames: string[]; live_bytes: number; allocs: number }

export interface LeakReport {
  slope_bytes_per_min: number;
  projected_oom_ms: number | null;
  sites: LeakSite[];
}

/**
 * Where the (R, S) plane is split into quadrants: R ≥ theta_R is high resource pressure, S ≥ theta_S high
 * service degradation (docs/four-quadrant-model.md §5). The model's configuration can move them, so a
 * diagnosis carries the ones its windows were classified with, and whoever draws the plane reads them there.
 */
export interface QuadrantThresholds {
  theta_R: number;
  theta_S: number;
}

/** The model's default split (its configuration's `theta_R`, `theta_S` start from here). */
export const DEFAULT_QUADRANT_THRESHOLDS: Readonly<QuadrantThresholds> = { theta_R: 0.85, theta_S: 0.5 };

/** The split a diagnosis was made with; the default for one saved before diagnoses carried it. */
export const quadrantThresholdsOf = (d: Pick<Diagnosis, 'quadrant_thresholds'> | null | undefined): QuadrantThresholds => d?.quadrant_thresholds ?? DEFAULT_QUADRANT_THRESHOLDS;

export interface Diagnosis {
  incident: { start_ms: number; end_ms: number };
  baseline: { start_ms: number; end_ms: number };
  /**
   * The stretch the causes were judged against where it is not `baseline`: an episode that began hours
   * after the data did is read against the minutes before it (docs/four-quadrant-model.md §2). Absent
   * where the causes read `baseline`.
   */
  causes_baseline?: { start_ms: number; end_ms: number };
  preset: Preset;
  onset_ms: number | null;
  windows: WindowScore[];
  /** θR and θS the windows' quadrants were read with (absent in diagnoses saved before it was added: the defaults). */
  quadrant_thresholds?: QuadrantThresholds;
  alerts: Alert[];
  causes: CauseResult[];
  not_assessable: { id: CauseId; missing: string[] }[];
  leak: LeakReport | null;
  /** The latency side of the joint trigger, for charts: baseline P99 + θℓ of the preset (ms). */
  trigger?: LatencyTrigger;
  /** Time from the onset until the top cause stopped changing (docs/four-quadrant-model.md §6); null without an onset or a cause. */
  convergence_ms?: number | null;
  status: DiagnosisStatus;
  /** Every cause of docs/root-causes.md as checked, fired first (in rank order), then not fired, then not assessable. */
  checked: CauseCheck[];
  /** Set when status is 'unexplained'. */
  unexplained: Unexplained | null;
  /** What the series could judge (absent in diagnoses saved before it was added). */
  coverage?: Coverage;
  /** Window width and step the analysis used (ms), and the gaps it skipped (no data from any source). */
  window_ms?: number;
  step_ms?: number;
  gaps?: { start_ms: number; end_ms: number }[];
  /** Per-instance results where the incident holds several serving instances (replicas, pods). */
  instances?: InstanceDiagnosis[];
}

export interface LatencyTrigger {
  signal: 'lat.e2e' | 'lat.ttft';
  baseline_p99_ms: number;
  theta_ms: number;
  threshold_ms: number;
}

export interface AnalyzeOptions {
  preset?: Preset;
  baseline?: { start_ms: number; end_ms: number };
}
