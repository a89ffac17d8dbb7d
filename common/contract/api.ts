// The one contract between the renderer and the engine. Every method takes one argument and answers
// a Promise. `requestValidators` is a mapped type over the methods, so a method without a validator
// fails to compile; the preload, the bridge server and the utility-process host all run it.
import type {
  Annotation,
  AllocationSite,
  EngineEvent,
  EventRow,
  ImportOptions,
  ImportResult,
  Incident,
  IncidentDetail,
  KernelFlows,
  KernelRow,
  KernelSummaryRow,
  LiveConfig,
  LiveStatus,
  MemoryBySite,
  MemoryPoint,
  PullRequest,
  PullResult,
  ReportFormat,
  SeriesData,
  SeriesInfo,
  Severity,
  SpanRow,
  SqlResult,
  TraceExport,
} from './types';
import type { AnalyzeOptions, Diagnosis } from './diagnosis';
import { arr, bool, envName, httpUrl, literal, none, num, obj, optional, str, ValidationError, type Check } from './validate';

export interface EngineMethods {
  listIncidents: { req: void; res: Incident[] };
  getIncident: { req: { id: number }; res: IncidentDetail };
  renameIncident: { req: { id: number; name: string }; res: void };
  deleteIncident: { req: { id: number }; res: void };

  /** Starts importing files or folders (paths on the engine's machine) as one incident; progress arrives as events. */
  startImport: { req: { paths: string[]; name?: string; options?: ImportOptions }; res: { job_id: string } };
  cancelImport: { req: { job_id: string }; res: { cancelled: boolean } };
  /** Waits for an import job to finish (used by the CLI and tests; the UI follows progress events). */
  awaitImport: { req: { job_id: string }; res: ImportResult };

  listSeries: { req: { incident_id: number; name_prefix?: string }; res: SeriesInfo[] };
  querySeries: { req: { series_ids: number[]; start_ms: number; end_ms: number; points: number }; res: SeriesData[] };
  /** Quantiles of a histogram series per window of ≥ 2 scrapes; `values[j]` is quantiles[j]'s column, aligned with `t`. */
  queryQuantiles: {
    req: { series_id: number; quantiles: number[]; start_ms: number; end_ms: number; points: number };
    res: { series_id: number; t: number[]; quantiles: number[]; values: number[][] };
  };
  queryEvents: {
    req: {
      incident_id: number;
      query?: string;
      severities?: Severity[];
      kinds?: string[];
      start_ms?: number;
      end_ms?: number;
      limit?: number;
      offset?: number;
    };
    res: { rows: EventRow[]; total: number };
  };
  querySpans: { req: { incident_id: number; trace_id?: string; start_ms?: number; end_ms?: number; limit?: number }; res: SpanRow[] };
  listTraces: { req: { incident_id: number; limit?: number }; res: { trace_id: string; root: string; start_ms: number; end_ms: number; spans: number }[] };
  queryKernels: { req: { incident_id: number; start_ms: number; end_ms: number; limit?: number }; res: KernelRow[] };
  kernelSummary: { req: { incident_id: number; start_ms?: number; end_ms?: number; limit?: number }; res: KernelSummaryRow[] };
  memoryTimeline: { req: { incident_id: number; device?: number; points?: number }; res: MemoryPoint[] };
  allocationSites: { req: { incident_id: number; at_ms?: number; limit?: number }; res: AllocationSite[] };
  /** CPU → GPU flows of the kernels in a range, joined on correlation ids; at most `limit` (default 2000). */
  kernelFlows: { req: { incident_id: number; start_ms: number; end_ms: number; limit?: number }; res: KernelFlows };
  /** Live bytes over time stacked by allocation site: the `top` sites (default 8) and the rest as one. */
  memoryBySite: { req: { incident_id: number; device?: number; points?: number; top?: number }; res: MemoryBySite };
  /** The kernels, spans and CPU → GPU flows of a range as Chrome trace-event JSON, for Perfetto. */
  exportTrace: { req: { incident_id: number; start_ms: number; end_ms: number }; res: TraceExport };

  analyze: { req: { incident_id: number; options?: AnalyzeOptions }; res: Diagnosis };

  listAnnotations: { req: { incident_id: number }; res: Annotation[] };
  addAnnotation: { req: { incident_id: number; start_ms: number; end_ms: number; panel: string; text: string; author?: string }; res: Annotation };
  updateAnnotation: { req: { id: number; text: string }; res: Annotation };
  deleteAnnotation: { req: { id: number }; res: void };

  /**
   * Writes a report and answers its path. Without `out` the report is for download: one self-contained
   * file (Markdown with its charts embedded) in a private folder, answered whole in `content` (base64 for
   * PDF, see `encoding`) with `file_name`, the incident's name, for the browser to save it under.
   */
  exportReport: {
    req: { incident_id: number; format: ReportFormat; out?: string };
    res: { path: string; content?: string; encoding?: 'utf8' | 'base64'; file_name?: string };
  };

  /** Read-only SQL over the documented views. */
  runSql: { req: { sql: string; limit?: number }; res: SqlResult };

  liveStatus: { req: void; res: LiveStatus };
  startLive: { req: LiveConfig; res: LiveStatus };
  stopLive: { req: void; res: LiveStatus };

  /** Starts pulling an incident from a Prometheus-compatible server; progress arrives as 'pull-progress' events. */
  startPull: { req: PullRequest; res: { job_id: string } };
  cancelPull: { req: { job_id: string }; res: { cancelled: boolean } };
  /** Waits for a pull to finish (the CLI and tests; the UI follows progress events). */
  awaitPull: { req: { job_id: string }; res: PullResult };
}

export type Method = keyof EngineMethods;
export type Req<M extends Method> = EngineMethods[M]['req'];
export type Res<M extends Method> = EngineMethods[M]['res'];

/** What the engine implements. */
export type EngineApi = { [M in Method]: (req: Req<M>) => Promise<Res<M>> };

/** A file or folder the user dropped: a path where the host knows it (Electron), else its bytes (browser). */
export interface DroppedFile {
  /** Path relative to the dropped folder ("bundle/metrics.prom"), or the file name. */
  relative_path: string;
  blob: Blob;
}

/** What the renderer sees: the engine methods plus event subscription and dropped-file import. */
export interface QuadscopeApi extends EngineApi {
  onEvent(listener: (e: EngineEvent) => void): () => void;
  /** Imports dropped files. Electron passes their paths; the browser uploads them to the bridge first. */
  importDropped(req: { files: DroppedFile[]; name?: string; options?: ImportOptions }): Promise<{ job_id: string }>;
  /** 'electron' or 'browser': the UI hides what a mode cannot do (e.g. native dialogs). */
  readonly host: 'electron' | 'browser';
}

const id = num({ int: true, min: 0 });
const REPORT_FILE = { re: /^[^\0]*\.(html?|md|pdf)$/i, what: 'a path ending in .html, .md or .pdf' };
const ms = num();
const severity = literal('debug', 'info', 'warning', 'error', 'critical');
const importOptions = obj({ year: optional(num({ int: true, min: 1970, max: 9999 })), tzOffsetMinutes: optional(num({ int: true, min: -900, max: 900 })) });
const analyzeOptions = obj({
  preset: optional(literal('default', 'high-qps', 'long-context')),
  baseline: optional(obj({ start_ms: ms, end_ms: ms })),
});

export const requestValidators: { [M in Method]: Check<Req<M>> } = {
  listIncidents: none,
  getIncident: obj({ id }),
  renameIncident: obj({ id, name: str({ min: 1, max: 200 }) }),
  deleteIncident: obj({ id }),
  startImport: obj({ paths: arr(str({ min: 1, max: 4096 }), { max: 1000 }), name: optional(str({ max: 200 })), options: optional(importOptions) }),
  cancelImport: obj({ job_id: str({ max: 100 }) }),
  awaitImport: obj({ job_id: str({ max: 100 }) }),
  listSeries: obj({ incident_id: id, name_prefix: optional(str({ max: 200 })) }),
  querySeries: obj({ series_ids: arr(id, { max: 200 }), start_ms: ms, end_ms: ms, points: num({ int: true, min: 1, max: 20_000 }) }),
  queryQuantiles: obj({ series_id: id, quantiles: arr(num({ min: 0, max: 1 }), { max: 20 }), start_ms: ms, end_ms: ms, points: num({ int: true, min: 1, max: 20_000 }) }),
  queryEvents: obj({
    incident_id: id,
    query: optional(str({ max: 1000 })),
    severities: optional(arr(severity, { max: 5 })),
    kinds: optional(arr(str({ max: 100 }), { max: 50 })),
    start_ms: optional(ms),
    end_ms: optional(ms),
    limit: optional(num({ int: true, min: 1, max: 10_000 })),
    offset: optional(num({ int: true, min: 0 })),
  }),
  querySpans: obj({ incident_id: id, trace_id: optional(str({ max: 200 })), start_ms: optional(ms), end_ms: optional(ms), limit: optional(num({ int: true, min: 1, max: 100_000 })) }),
  listTraces: obj({ incident_id: id, limit: optional(num({ int: true, min: 1, max: 10_000 })) }),
  queryKernels: obj({ incident_id: id, start_ms: ms, end_ms: ms, limit: optional(num({ int: true, min: 1, max: 200_000 })) }),
  kernelSummary: obj({ incident_id: id, start_ms: optional(ms), end_ms: optional(ms), limit: optional(num({ int: true, min: 1, max: 10_000 })) }),
  memoryTimeline: obj({ incident_id: id, device: optional(num({ int: true, min: 0 })), points: optional(num({ int: true, min: 1, max: 20_000 })) }),
  allocationSites: obj({ incident_id: id, at_ms: optional(ms), limit: optional(num({ int: true, min: 1, max: 10_000 })) }),
  kernelFlows: obj({ incident_id: id, start_ms: ms, end_ms: ms, limit: optional(num({ int: true, min: 1, max: 20_000 })) }),
  memoryBySite: obj({ incident_id: id, device: optional(num({ int: true, min: 0 })), points: optional(num({ int: true, min: 2, max: 5000 })), top: optional(num({ int: true, min: 1, max: 30 })) }),
  exportTrace: obj({ incident_id: id, start_ms: ms, end_ms: ms }),
  analyze: obj({ incident_id: id, options: optional(analyzeOptions) }),
  listAnnotations: obj({ incident_id: id }),
  addAnnotation: obj({ incident_id: id, start_ms: ms, end_ms: ms, panel: str({ max: 100 }), text: str({ min: 1, max: 20_000 }), author: optional(str({ max: 200 })) }),
  updateAnnotation: obj({ id, text: str({ min: 1, max: 20_000 }) }),
  deleteAnnotation: obj({ id }),
  // A page may name where a report goes, but only as a report file: never ~/.bashrc or an autostart entry.
  exportReport: obj({ incident_id: id, format: literal('html', 'md', 'pdf'), out: optional(str({ min: 1, max: 4096, pattern: REPORT_FILE })) }),
  runSql: obj({ sql: str({ min: 1, max: 100_000 }), limit: optional(num({ int: true, min: 1, max: 100_000 })) }),
  liveStatus: none,
  startLive: obj({
    name: optional(str({ max: 200 })),
    nvml: bool,
    rate_hz: optional(num({ min: 0.1, max: 50 })),
    endpoints: arr(obj({ url: str({ min: 1, max: 2048 }), interval_s: optional(num({ min: 0.5, max: 3600 })) }), { max: 64 }),
  }),
  stopLive: none,
  // The credential is named, never sent: a variable or a file on the engine's machine (auth.ts reads only one line of it).
  startPull: obj({
    url: httpUrl,
    start_ms: ms,
    end_ms: ms,
    match: optional(arr(str({ min: 1, max: 10_000 }), { max: 50 })),
    step_s: optional(num({ min: 0.001, max: 86_400 })),
    name: optional(str({ max: 200 })),
    auth: optional(obj({ kind: literal('bearer', 'basic'), env: optional(envName), file: optional(str({ min: 1, max: 4096 })) })),
    ca_file: optional(str({ min: 1, max: 4096 })),
    tenant: optional(str({ min: 1, max: 200, pattern: { re: /^[\x21-\x7e]+$/, what: 'a tenant id of printable characters without spaces' } })),
    timeout_s: optional(num({ min: 0.1, max: 3600 })),
    max_series: optional(num({ int: true, min: 1, max: 10_000_000 })),
    max_samples: optional(num({ int: true, min: 1, max: 10_000_000_000 })),
  }),
  cancelPull: obj({ job_id: str({ max: 100 }) }),
  awaitPull: obj({ job_id: str({ max: 100 }) }),
};

export const METHODS = Object.keys(requestValidators) as Method[];

export function isMethod(x: unknown): x is Method {
  return typeof x === 'string' && Object.prototype.hasOwnProperty.call(requestValidators, x);
}

/** Validates a (method, payload) pair from an untrusted side; throws ValidationError. */
export function validateRequest<M extends Method>(method: M, payload: unknown): Req<M> {
  return requestValidators[method](payload, '') as Req<M>;
}

/**
 * A request from the window (IPC in the desktop app, the WebSocket in browser mode), validated: the
 * window never names a path on the engine's machine. A report it asks for travels back in the answer
 * (the browser saves it; the desktop shows a save dialog in main); `out` is for the CLI and for main's
 * own calls, which do not pass through these doors.
 */
export function validateWindowRequest<M extends Method>(method: M, payload: unknown): Req<M> {
  const req = validateRequest(method, payload);
  if (method === 'exportReport' && (req as Req<'exportReport'>).out !== undefined)
    throw new ValidationError('out', 'absent: a report asked for by the window travels back in the answer, never to a path the window names');
  return req;
}

/** Wire format shared by IPC, the utility-process port and the bridge WebSocket. */
export type Wire =
  | { kind: 'call'; id: number; method: Method; payload: unknown }
  | { kind: 'result'; id: number; ok: true; value: unknown }
  | { kind: 'result'; id: number; ok: false; error: { code: string; message: string } }
  | { kind: 'event'; event: EngineEvent };

/** Errors cross process boundaries as values: thrown errors lose all but `message` across Electron IPC. */
export class EngineError extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
    this.name = 'EngineError';
  }
}
