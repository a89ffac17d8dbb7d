// The messages between an import on the engine thread and the importer it runs on a worker thread
// (see parallel-import.ts). The worker parses; the engine thread writes what it sends into the
// source's one SQLite transaction, so commit, rollback and cancel stay where they were.
import type { FormatId, ImportOptions } from '../../../common/contract/types';
import type { EventRecord, Position, SeriesDef } from '../importers/types';
import type { PackedRows } from './packed-rows';

/**
 * What an importer wrote since the last batch. Ids are the worker's own (0, 1, …) until the engine
 * thread maps them onto the writer's. Rows are flat arrays, their strings and JSON already made.
 */
export interface Batch {
  series: [local: number, def: SeriesDef][];
  stacks: [local: number, frames: string[]][];
  /** (series, ts_ms, value) triples, each array full but the last. */
  samples: Float64Array[];
  /** (series, ts_ms, le, count) quadruples. */
  histograms: Float64Array[];
  /** Spans packed (packed-rows.ts): text trace_id, span_id, parent_id, name, attrs_json; ns start, end. */
  packedSpans: PackedRows;
  /** Kernels packed: text name, attrs_json; ns start, end; numbers device, stream, correlation_id (NaN: none). */
  packedKernels: PackedRows;
  /** Rows that do not pack, SPAN_WIDTH values each: trace_id, span_id, parent_id, name, start_ns, end_ns, attrs_json. */
  spans: unknown[];
  /** KERNEL_WIDTH values a row: device, stream, name, start_ns, end_ns, correlation_id, attrs_json. */
  kernels: unknown[];
  /** ALLOCATION_WIDTH values a row: device, addr, size, alloc_ns, free_ns, stack (local id or null), source, correlation_id. */
  allocations: unknown[];
  events: EventRecord[];
}

export const SPAN_WIDTH = 7;
export const KERNEL_WIDTH = 7;
export const ALLOCATION_WIDTH = 8;

export interface WorkerInit {
  format: FormatId;
  path: string;
  size: number | null;
  mtimeMs: number | null;
  bundleEndMs: number | null;
  options: ImportOptions;
}

/**
 * Engine thread → worker. `pass` numbers the reading of the input: an importer that reads its input twice
 * (Kineto, when baseTimeNanoseconds follows the events) asks for a rewind, and chunks of an earlier pass
 * still on their way are dropped.
 */
export type ToWorker = { t: 'init'; init: WorkerInit } | { t: 'chunk'; pass: number; bytes: Uint8Array } | { t: 'end'; pass: number } | { t: 'abort' };

/** Worker → engine thread. `chunks`: input chunks of `pass` fully consumed by the importer before this batch. */
export type FromWorker =
  | { t: 'batch'; batch: Batch; pass: number; chunks: number }
  | { t: 'rewind'; pass: number }
  | { t: 'warn'; message: string; where?: Position }
  | { t: 'progress'; bytes: number }
  | { t: 'done' }
  | { t: 'error'; message: string; name: string };
