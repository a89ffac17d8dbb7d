// Plain data types shared by the renderer and the engine. No Node or DOM imports: this folder is
// "common" code (see docs/architecture.md §2).

export type FormatId =
  | 'prometheus-text'
  | 'prometheus-json'
  | 'victoriametrics-jsonl'
  | 'grafana-csv'
  | 'nvidia-smi-csv'
  | 'nvidia-smi-apps-csv'
  | 'nvidia-smi-dmon'
  | 'nvidia-smi-pmon'
  | 'nvidia-smi-text'
  | 'nvidia-smi-xml'
  | 'dcgmi-dmon'
  | 'vllm-log'
  | 'sglang-log'
  | 'tgi-log'
  | 'torch-log'
  | 'kernel-log'
  | 'jsonl-log'
  | 'kubernetes'
  | 'access-log'
  | 'kineto-json'
  | 'torch-memory-snapshot'
  | 'torch-memory-timeline'
  | 'nsys-sqlite'
  | 'nsys-rep'
  | 'ncu-csv'
  | 'nsys-stats-csv'
  | 'nvprof-csv'
  | 'otlp-json'
  | 'jaeger-json'
  | 'zipkin-json'
  | 'live-nvml'
  | 'live-scrape'
  | 'prometheus-pull'
  | 'unknown';

export type SourceStatus = 'ok' | 'failed' | 'skipped';
export type SeriesKind = 'gauge' | 'counter' | 'histogram' | 'summary' | 'info' | 'unknown';
export type Severity = 'debug' | 'info' | 'warning' | 'error' | 'critical';

export interface Incident {
  id: number;
  name: string;
  created_ms: number;
  start_ms: number | null;
  end_ms: number | null;
  source: string;
}

export interface SourceInfo {
  id: number;
  incident_id: number;
  path: string;
  format: FormatId;
  bytes: number;
  rows: number;
  status: SourceStatus;
  error: string | null;
  warnings: string[];
}

export interface IncidentDetail extends Incident {
  sources: SourceInfo[];
  counts: { series: number; samples: number; events: number; spans: number; kernels: number; allocations: number };
}

export interface SeriesInfo {
  id: number;
  name: string;
  labels: Record<string, string>;
  unit: string;
  kind: SeriesKind;
  points: number;
  start_ms: number | null;
  end_ms: number | null;
}

/** One downsampled series: per bucket the first timestamp, min and max (min === max when a bucket holds one sample). */
export interface SeriesData {
  series_id: number;
  t: number[];
  min: number[];
  max: number[];
  /** true when the range held more samples than buckets and they were folded. */
  downsampled: boolean;
}

export interface EventRow {
  id: number;
  ts_ms: number;
  kind: string;
  severity: Severity;
  source_id: number | null;
  source_path: string | null;
  line: number | null;
  text: string;
  attrs: Record<string, unknown>;
}

export interface SpanRow {
  trace_id: string;
  span_id: string;
  parent_id: string | null;
  name: string;
  start_ms: number;
  end_ms: number;
  attrs: Record<string, unknown>;
}

export interface KernelRow {
  device: number;
  stream: number;
  name: string;
  start_ms: number;
  end_ms: number;
  duration_us: number;
  correlation_id: number | null;
}

export interface KernelSummaryRow {
  name: string;
  count: number;
  total_us: number;
  mean_us: number;
  p99_us: number;
}

export interface AllocationSite {
  stack_id: number | null;
  frames: string[];
  live_bytes: number;
  allocs: number;
}

export interface MemoryPoint { t_ms: number; live_bytes: number }

/**
 * One CPU → GPU flow: the runtime call that launched a kernel (joined on the correlation id, as Kineto's
 * ac2g flows and Nsight's correlationId do), the CPU op around that call, and the kernel.
 */
export interface KernelFlow {
  correlation_id: number;
  /** The launching thread, e.g. "pid 4242 · tid 4242" (one CPU lane each). */
  thread: string;
  launch_name: string;
  launch_start_ms: number;
  launch_end_ms: number;
  /** The CPU op (aten::mm, …) the launch was made from, where the trace records it. */
  op_name: string | null;
  op_start_ms: number | null;
  op_end_ms: number | null;
  device: number;
  stream: number;
  kernel_name: string;
  kernel_start_ms: number;
  kernel_end_ms: number;
}

export interface KernelFlows {
  flows: KernelFlow[];
  /** Kernels in the range that carry a correlation id (flows are drawn for the first `limit`). */
  kernels: number;
  /** Of the kernels looked at, those whose launching call is not in the incident (a trace cut short). */
  unmatched: number;
  /** More kernels than `limit` in the range: zoom in for all of them. */
  truncated: boolean;
}

/** A stacked active-memory timeline from the allocation records (PyTorch memory_viz's "Active Memory Timeline"). */
export interface MemoryBySite {
  /** The device drawn, and every device with records. */
  device: number | null;
  devices: number[];
  /** Bucket times (ms); each bucket holds the state at its peak total, so a short spike survives. */
  t: number[];
  /** The `top` sites by their own peak, largest first: live bytes per bucket. */
  sites: { stack_id: number | null; frames: string[]; peak_bytes: number; bytes: number[] }[];
  /** Every other site summed: nothing is dropped, however many sites there are. */
  other: { sites: number; bytes: number[] };
  /** Live bytes of all sites per bucket (sites + other). */
  total: number[];
  /** Allocation records read (every one, no cap). */
  records: number;
}

/** A selected time range as a Chrome trace-event JSON (what Perfetto and chrome://tracing open). */
export interface TraceExport {
  content: string;
  file_name: string;
  /** Events written (kernels, spans, flow starts and ends). */
  events: number;
  /** The range held more than fits one file: the first events by time were kept. */
  truncated: boolean;
}

export interface Annotation {
  id: number;
  incident_id: number;
  start_ms: number;
  end_ms: number;
  panel: string;
  text: string;
  author: string;
  created_ms: number;
}

export interface ImportOptions {
  /** Year for log timestamps that carry none (vLLM "MM-DD HH:MM:SS"). */
  year?: number;
  /** Minutes east of UTC for local-time log timestamps. */
  tzOffsetMinutes?: number;
}

export interface ImportSourceResult {
  path: string;
  format: FormatId;
  rows: number;
  status: SourceStatus;
  error: string | null;
}

export interface ImportResult {
  incident_id: number;
  sources: ImportSourceResult[];
  cancelled: boolean;
}

export interface ImportProgress {
  job_id: string;
  /** The entry being imported now. */
  path: string;
  format: FormatId | null;
  entry_bytes_done: number;
  entry_bytes_total: number | null;
  entries_done: number;
  entries_total: number | null;
  state: 'running' | 'done' | 'failed' | 'cancelled';
  /** Per-entry outcome once an entry is finished. */
  finished?: ImportSourceResult;
  result?: ImportResult;
  error?: string;
}

export interface SqlResult {
  columns: string[];
  rows: unknown[][];
  truncated: boolean;
}

export type ReportFormat = 'html' | 'md' | 'pdf';

export interface LiveEndpoint { url: string; interval_s?: number }

export interface LiveConfig {
  name?: string;
  nvml: boolean;
  rate_hz?: number;
  endpoints: LiveEndpoint[];
}

export interface EndpointHealth {
  url: string;
  ok: boolean;
  last_scrape_ms: number | null;
  last_error: string | null;
  scrapes: number;
  failures: number;
}

export interface LiveStatus {
  recording: boolean;
  incident_id: number | null;
  started_ms: number | null;
  nvml: { available: boolean; reason: string | null; devices: { index: number; name: string; uuid: string }[] };
  endpoints: EndpointHealth[];
  samples: number;
}

/**
 * Where a pull's credential is on the engine's machine: an environment variable or a file holding a
 * bearer token or `user:password`. Never the secret itself, so no request, event or log carries it.
 */
export interface PullAuth {
  kind: 'bearer' | 'basic';
  env?: string;
  file?: string;
}

/** Pull an incident from a Prometheus-compatible HTTP API (Prometheus, Thanos, Mimir, Cortex, VictoriaMetrics). */
export interface PullRequest {
  /** The API root: http(s)://host:9090, or with a path prefix (Mimir: …/prometheus). */
  url: string;
  start_ms: number;
  end_ms: number;
  /** Series selectors, OR-ed; none: every series Quadscope understands in the range. */
  match?: string[];
  /** The query_range step; default: the scrape interval the server's samples show. */
  step_s?: number;
  name?: string;
  auth?: PullAuth;
  /** PEM file of the CA that signed the server's certificate. */
  ca_file?: string;
  /** Sent as X-Scope-OrgID (Mimir, Cortex, Loki-style multi-tenancy). */
  tenant?: string;
  /** Per request; the server is asked to stop at the same time. */
  timeout_s?: number;
  max_series?: number;
  max_samples?: number;
}

/** A query_range request that failed after its retries: the range it leaves empty. */
export interface PullFailure {
  query: string;
  start_ms: number;
  end_ms: number;
  error: string;
}

export interface PullResult {
  /** null when nothing was kept (cancelled). */
  incident_id: number | null;
  server: string;
  start_ms: number;
  end_ms: number;
  step_ms: number;
  /** The distinct query_range expressions. */
  queries: string[];
  series: number;
  /** Values and bucket counts the server answered with. */
  samples: number;
  /** Rows stored (a histogram scrape is one row). */
  rows: number;
  requests: number;
  retries: number;
  bytes: number;
  /** Some ranges of some queries are missing (see failures) or the server said its answer was partial (see warnings). */
  partial: boolean;
  failures: PullFailure[];
  warnings: string[];
  cancelled: boolean;
  timings: { discover_ms: number; fetch_ms: number; write_ms: number; total_ms: number };
}

export interface PullProgress {
  job_id: string;
  state: 'discovering' | 'pulling' | 'done' | 'failed' | 'cancelled';
  requests_done: number;
  requests_total: number | null;
  series: number;
  samples: number;
  bytes: number;
  result?: PullResult;
  error?: string;
}

export type EngineEvent =
  | { type: 'import-progress'; progress: ImportProgress }
  | { type: 'pull-progress'; progress: PullProgress }
  | { type: 'live-status'; status: LiveStatus }
  | { type: 'incidents-changed' };
