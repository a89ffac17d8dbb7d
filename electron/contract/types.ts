// Plain data types shared by the renderer and the engine. No Node or DOM imports: this folder is
// "common" code (see docs/architecture.md §2).

export type FormatId =
  | 'prometheus-text'
  | 'prometheus-json'
  | 'nvidia-smi-csv'
  | 'nvidia-smi-apps-csv'
  | 'nvidia-smi-dmon'
  | 'nvidia-smi-pmon'
  | 'vllm-log'
  | 'sglang-log'
  | 'tgi-log'
  | 'torch-log'
  | 'kernel-log'
  | 'jsonl-log'
  | 'kineto-json'
  | 'torch-memory-snapshot'
  | 'torch-memory-timeline'
  | 'nsys-sqlite'
  | 'nsys-rep'
  | 'ncu-csv'
  | 'otlp-json'
  | 'jaeger-json'
  | 'live-nvml'
  | 'live-scrape'
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

export type EngineEvent =
  | { type: 'import-progress'; progress: ImportProgress }
  | { type: 'live-status'; status: LiveStatus }
  | { type: 'incidents-changed' };
