// What the model reads of one incident, made into its Signals: the canonical series (deduplicated),
// histogram snapshots, the events the rules look for, request facts from spans, and allocation sites.
// The reading is the store's (store/model-reads.ts: one call, one read transaction for the catalog,
// events and spans); the model states what it asks for (IncidentSource, checked against the Store where
// the model is called) and never imports the store.
//
// A series read from the store holds no samples until something asks: the frame folds each into its
// window buckets in one scan (series-buckets.ts), the window grid seeks where series begin and fall silent,
// and `t`/`v` (or a histogram's `snaps`) are read whole only where a rule reads them. So the model's memory
// follows its windows, not the samples, and a year between two bursts costs nothing.
import type { AllocationSite, EventRow, SeriesKind, SpanRow } from '../../../common/contract/types';
import { EV, type EventKind } from '../../../common/names';
import { spanSide } from '../../../common/span-side';
import { ENGINE_FAMILY } from './windows';

export interface LoadedSeries {
  id: number;
  name: string;
  labels: Record<string, string>;
  kind: SeriesKind;
  /** Every sample's time and value (read from the store when first asked for). */
  readonly t: Float64Array;
  readonly v: Float64Array;
}

export interface HistogramSnapshot {
  t: number;
  le: number[];
  counts: number[];
}

export interface LoadedHistogram {
  id: number;
  name: string;
  labels: Record<string, string>;
  /** Every scrape (read from the store when first asked for). */
  readonly snaps: HistogramSnapshot[];
}

/** One request as spans describe it (attribute names listed in REQUEST_ATTRS). */
export interface RequestFact {
  ref: string;
  start_ms: number;
  end_ms: number;
  prompt_tokens: number | null;
  output_tokens: number | null;
  ttft_s: number | null;
  /** The caller's first token (a client span's own reading, the network included), or null. */
  first_token_s?: number | null;
  queue_s: number | null;
  e2e_s: number;
  side: 'client' | 'server' | null;
  request_id: string | null;
  /** The parent span's `trace/span` ref (W3C trace context: a server span's parent is the client call that reached it), or null. */
  parent_ref?: string | null;
  lora: string | null;
  /** The model the request named (a LoRA adapter's name when it was one), or null. */
  model: string | null;
  /** Where a client's call went (its span's server.address), or which process served it (a server span's pod or host); null where neither is said. */
  peer?: string | null;
}

export interface Signals {
  incidentId: number;
  start_ms: number;
  end_ms: number;
  series: Map<string, LoadedSeries[]>;
  histograms: Map<string, LoadedHistogram[]>;
  events: EventRow[];
  requests: RequestFact[];
  sites: AllocationSite[];
  meta: Record<string, unknown>;
}

/** Span attributes read as request facts, first present wins. */
export const REQUEST_ATTRS = {
  prompt_tokens: ['request.prompt_tokens', 'gen_ai.usage.prompt_tokens', 'gen_ai.usage.input_tokens', 'llm.input_tokens'],
  output_tokens: ['request.output_tokens', 'request.completion_tokens', 'gen_ai.usage.completion_tokens', 'gen_ai.usage.output_tokens', 'llm.output_tokens'],
  ttft_s: ['request.ttft_s', 'gen_ai.latency.time_to_first_token'],
  first_token_s: ['request.first_token_s'],
  queue_s: ['request.queue_s', 'gen_ai.latency.time_in_queue'],
  e2e_s: ['request.e2e_s', 'gen_ai.latency.e2e'],
  request_id: ['request.id', 'gen_ai.request.id'],
  lora: ['request.lora', 'gen_ai.request.lora', 'lora.name'],
  model: ['request.model', 'gen_ai.request.model', 'gen_ai.response.model', 'llm.model'],
  // The address a client called, then the serving process's identity (OTLP resource, Jaeger process tags).
  peer: ['server.address', 'net.peer.name', 'server.socket.address', 'net.peer.ip', 'k8s.pod.name', 'service.instance.id', 'host.name'],
} as const;

/** Event kinds the rules read. */
export const EVENT_KINDS: EventKind[] = [
  EV.oom, EV.hostOomKill, EV.xid, EV.gpuFallenOff, EV.gpuLost, EV.engineStart, EV.engineRestart, EV.engineStop, EV.engineCrash, EV.version, EV.config, EV.deploy,
  EV.ncclTimeout, EV.ncclError, EV.preemption, EV.traceback, EV.abort, EV.sxid,
];

/** Labels that name where a series came from rather than what it measures. */
const PROVENANCE_LABELS = new Set(['source', 'job', 'file']);

const MAX_REQUEST_SPANS = 500_000;
const MAX_EVENTS = 100_000;

interface SourceSeries {
  id: number;
  name: string;
  labels: Record<string, string>;
  kind: string;
  source_path: string | null;
}

/** What the model reads of an incident (store/model-reads.ts answers it). */
export interface IncidentInput {
  start_ms: number | null;
  end_ms: number | null;
  /** Series with samples, with their first and last sample's time. */
  series: (SourceSeries & { first_ms: number; last_ms: number })[];
  /** Histograms with scrapes, with their first and last scrape's time. */
  histograms: (SourceSeries & { first_ms: number; last_ms: number })[];
  events: EventRow[];
  spans: SpanRow[];
  sites: AllocationSite[];
  meta: Record<string, unknown>;
  reads: SampleReads;
}

/** Which rows a read is about: a series' samples, or a histogram's scrapes. */
export type SampleTable = 'samples' | 'scrapes';

/** The store's reads of samples and scrapes (store/model-reads.ts ModelReads); the model bounds each by the series' last time. */
export interface SampleReads {
  samples(seriesId: number, to: number): { t: Float64Array; v: Float64Array };
  scanSamples(seriesId: number, from: number, to: number, visit: (t: number, v: number) => void): void;
  scrapes(seriesId: number, to: number): HistogramSnapshot[];
  scanScrapesDown(seriesId: number, to: number, pick: (t: number) => boolean, take: (t: number, le: number[], counts: string) => void): void;
  firstScrape(seriesId: number): { t: number; le: number[]; counts: string } | null;
  seek(table: SampleTable, seriesId: number, op: '<' | '<=' | '>=' | '>', ts: number): number | null;
  firstTimes(table: SampleTable, seriesId: number, n: number, to: number): Float64Array;
  count(table: SampleTable, seriesId: number, to: number): number;
  /** Runs `fn`'s reads as one (one read transaction). */
  batch<T>(fn: () => T): T;
}

/** Where a series' data lie in the store: its table and id, its first and last time, and the reads. */
export interface StoredRows {
  table: SampleTable;
  id: number;
  first: number;
  last: number;
  reads: SampleReads;
}

/**
 * A series read from the store: the rules see `t` and `v` as of any series, read whole on first use;
 * the model's own readers (series-buckets.ts) go through `rows` instead and can hand it the whole
 * series when a scan found it small (`hold`), so it is never read twice.
 */
export class StoredSeries implements LoadedSeries {
  private whole: { t: Float64Array; v: Float64Array } | null = null;
  constructor(
    readonly id: number,
    readonly name: string,
    public labels: Record<string, string>,
    readonly kind: SeriesKind,
    readonly rows: StoredRows,
  ) {}

  get t(): Float64Array {
    return this.read().t;
  }

  get v(): Float64Array {
    return this.read().v;
  }

  /** The whole series when it is in memory already, else null (nothing is read). */
  get held(): { t: Float64Array; v: Float64Array } | null {
    return this.whole;
  }

  hold(whole: { t: Float64Array; v: Float64Array }): void {
    this.whole = whole;
  }

  private read(): { t: Float64Array; v: Float64Array } {
    return (this.whole ??= this.rows.reads.samples(this.id, this.rows.last));
  }
}

/** A histogram read from the store: `snaps` read whole on first use (series-buckets.ts reads only the scrapes its windows need). */
export class StoredHistogram implements LoadedHistogram {
  private whole: HistogramSnapshot[] | null = null;
  constructor(
    readonly id: number,
    readonly name: string,
    public labels: Record<string, string>,
    readonly rows: StoredRows,
  ) {}

  get snaps(): HistogramSnapshot[] {
    return (this.whole ??= this.rows.reads.scrapes(this.id, this.rows.last));
  }
}

/**
 * Whether a series has a sample in [from, to]: one seek where it is stored and not in memory (its samples
 * are read whole only where a rule reads them), else a binary search of its times.
 */
export function hasSampleIn(s: LoadedSeries, from: number, to: number): boolean {
  if (s instanceof StoredSeries && !s.held) {
    const t = s.rows.reads.seek('samples', s.id, '>=', from);
    return t !== null && t <= s.rows.last && t <= to;
  }
  const t = s.t;
  const lo = firstAtOrAfter(t, from);
  return lo < t.length && t[lo] <= to;
}

/** The index of the first time at or after `from` in ascending `t` (t.length where none is). */
function firstAtOrAfter(t: Float64Array, from: number): number {
  let lo = 0;
  let hi = t.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (t[mid] < from) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Visits a series' samples in [from, to], in time order: one ranged read where it is stored and not in memory,
 * else from its arrays.
 */
export function samplesIn(s: LoadedSeries, from: number, to: number, visit: (t: number, v: number) => void): void {
  if (s instanceof StoredSeries && !s.held) {
    const last = Math.min(to, s.rows.last);
    if (last >= from) s.rows.reads.scanSamples(s.id, from, last, visit);
    return;
  }
  const { t, v } = s;
  for (let i = firstAtOrAfter(t, from); i < t.length && t[i] <= to; i++) visit(t[i], v[i]);
}

/** Samples of a series (scrapes of a histogram), counted without reading them where they are not in memory. */
export function sizeOf(x: LoadedSeries | LoadedHistogram): number {
  if (x instanceof StoredSeries) return x.held?.t.length ?? countRows(x.rows);
  if (x instanceof StoredHistogram) return countRows(x.rows);
  return 't' in x ? x.t.length : x.snaps.length;
}

const counted = new WeakMap<StoredRows, number>();
function countRows(r: StoredRows): number {
  let n = counted.get(r);
  if (n === undefined) counted.set(r, (n = r.reads.count(r.table, r.id, r.last)));
  return n;
}

/** First and last time of a series or histogram, without reading it where it is stored. */
export function extentOf(x: LoadedSeries | LoadedHistogram): [number, number] {
  if (x instanceof StoredSeries || x instanceof StoredHistogram) return [x.rows.first, x.rows.last];
  if ('t' in x) return [x.t[0], x.t[x.t.length - 1]];
  return [x.snaps[0].t, x.snaps[x.snaps.length - 1].t];
}

/** Where the model's input comes from: the Store, structurally (the model imports nothing of it). */
export interface IncidentSource {
  readonly file: string;
  modelInput(incidentId: number, opts: { eventKinds: readonly string[]; maxEvents: number; maxSpans: number }): IncidentInput | null;
}

export function loadSignals(source: IncidentSource, incidentId: number): Signals {
  const input = source.modelInput(incidentId, { eventKinds: EVENT_KINDS, maxEvents: MAX_EVENTS, maxSpans: MAX_REQUEST_SPANS });
  if (!input) throw new Error(`no incident ${incidentId} in ${source.file}`);
  return toSignals(incidentId, input);
}

/** The Signals of an incident's input: instances named by file, duplicates dropped, request facts from spans. */
export function toSignals(incidentId: number, input: IncidentInput): Signals {
  const series = new Map<string, LoadedSeries[]>();
  const histograms = new Map<string, LoadedHistogram[]>();
  const origin = new Map<number, string | null>();
  const rows = (table: SampleTable, c: { id: number; first_ms: number; last_ms: number }): StoredRows => ({ table, id: c.id, first: c.first_ms, last: c.last_ms, reads: input.reads });
  for (const h of input.histograms) {
    origin.set(h.id, h.source_path);
    push(histograms, h.name, new StoredHistogram(h.id, h.name, h.labels, rows('scrapes', h)));
  }
  const placed = placedGpus(input.series);
  for (const c of input.series) {
    origin.set(c.id, c.source_path);
    push(series, c.name, new StoredSeries(c.id, c.name, placedLabels(c.labels, placed), c.kind as SeriesKind, rows('samples', c)));
  }
  for (const [name, list] of series) nameInstancesByFile(list, origin, extentOf, ENGINE_FAMILY.test(name));
  for (const [name, list] of histograms) nameInstancesByFile(list, origin, extentOf, ENGINE_FAMILY.test(name));
  for (const [name, list] of series) series.set(name, dedupe(list, sizeOf));
  for (const [name, list] of histograms) histograms.set(name, dedupe(list, sizeOf));

  const requests = input.spans
    .map((s) => requestFact(`${s.trace_id}/${s.span_id}`, s.start_ms, s.end_ms, s.attrs, s.parent_id ? `${s.trace_id}/${s.parent_id}` : null))
    .filter((r): r is RequestFact => r !== null);

  let start = input.start_ms ?? Infinity;
  let end = input.end_ms ?? -Infinity;
  for (const list of series.values())
    for (const s of list) {
      const [a, b] = extentOf(s);
      start = Math.min(start, a);
      end = Math.max(end, b);
    }
  if (!Number.isFinite(start)) start = end = 0;
  return { incidentId, start_ms: start, end_ms: end, series, histograms, events: input.events, requests, sites: input.sites, meta: input.meta };
}

/** Labels that say which machine a reading came from (the frame's GPU key and the fleet's owner read them). */
const MACHINE_KEYS = ['host', 'Hostname', 'node', 'instance', 'pod'] as const;
/** What a GPU reading that names no machine takes from another reading of the same GPU: where it is, and its index there. */
const PLACING_KEYS = [...MACHINE_KEYS, 'exported_pod', 'gpu', 'device', 'minor_number'] as const;
const uuidOf = (labels: Record<string, string>): string | undefined => labels.gpu_uuid || labels.uuid || labels.UUID || undefined;
const placesItself = (labels: Record<string, string>) => MACHINE_KEYS.some((k) => !!labels[k]);

/**
 * Where each GPU a UUID names is, from the readings that say (dcgm-exporter: its node, and the pod the GPU
 * serves). The same GPU read by a tool that names neither (nvidia-smi's CSV, whose index inside a container
 * is not the node's either) is that GPU, not another one on no machine: kept apart, four replicas' GPUs on
 * three nodes read from nvidia-smi were one machine whose lone idle GPU (a replica restarting) read as a
 * tensor-parallel straggler, and every replica's view held all four.
 */
function placedGpus(list: readonly { labels: Record<string, string> }[]): Map<string, Record<string, string>> {
  const out = new Map<string, Record<string, string>>();
  for (const { labels } of list) {
    const u = uuidOf(labels);
    if (u && !out.has(u) && placesItself(labels)) out.set(u, labels);
  }
  return out;
}

/** A GPU reading's labels with the place its UUID was read at elsewhere, where it names no machine itself. */
function placedLabels(labels: Record<string, string>, placed: Map<string, Record<string, string>>): Record<string, string> {
  const u = uuidOf(labels);
  const at = u && !placesItself(labels) ? placed.get(u) : undefined;
  if (!at) return labels;
  const out = { ...labels };
  for (const k of PLACING_KEYS) if (at[k]) out[k] = at[k];
  return out;
}

/**
 * Two files that report the same signal with the same labels over the same time are two processes —
 * one log per replica, one exposition per pod — not one signal seen twice, so each is named after its
 * file (`instance` = the file's name) where no label names it already. Files of the serving engine's own
 * signals (`engine`) that follow each other in time (a rotated log, the pod a rollout replaced and its
 * successor) are one signal in pieces: each keeps its file's name as `piece`, so neither dedupe() nor the
 * frame's choice of one series per engine keeps only the longest piece (a rollout's new pod, 30 minutes of 3
 * hours, was dropped and read as an engine silent with requests in flight), and the frame joins them as it
 * sums series. Other readings that follow each other — a profiler trace's few milliseconds of allocator
 * totals after a memory snapshot's hour — are two tools' captures of one quantity: the longest is kept.
 */
function nameInstancesByFile<T extends { id: number; labels: Record<string, string> }>(list: T[], origin: Map<number, string | null>, span: (x: T) => [number, number], engine: boolean): void {
  const groups = new Map<string, T[]>();
  for (const x of list) {
    if (x.labels.instance || x.labels.pod || x.labels.host) continue;
    const k = identity(x.labels);
    const g = groups.get(k);
    if (g) g.push(x);
    else groups.set(k, [x]);
  }
  for (const g of groups.values()) {
    const files = new Set(g.map((x) => origin.get(x.id) ?? ''));
    if (g.length < 2 || files.size < 2) continue;
    const overlap = g.some((a, i) => g.some((b, j) => j > i && origin.get(a.id) !== origin.get(b.id) && span(a)[0] < span(b)[1] && span(b)[0] < span(a)[1]));
    if (!overlap && !engine) continue;
    for (const x of g) {
      const path = origin.get(x.id);
      if (path) x.labels = { ...x.labels, [overlap ? 'instance' : 'piece']: fileStem(path) };
    }
  }
}

/** `logs/vllm-7d9f-x2k.log.gz` → `vllm-7d9f-x2k`. */
export function fileStem(path: string): string {
  const base = path.split(/[\\/]/).pop() ?? path;
  return base.replace(/(\.(gz|zst|bz2|xz))?$/i, '').replace(/\.[A-Za-z0-9]{1,5}$/, '').replace(/\.(prom|om|txt|log|jsonl?|csv)$/i, '');
}

function push<T>(m: Map<string, T[]>, k: string, x: T): void {
  const l = m.get(k);
  if (l) l.push(x);
  else m.set(k, [x]);
}

const identity = (labels: Record<string, string>): string =>
  JSON.stringify(Object.entries(labels).filter(([k]) => !PROVENANCE_LABELS.has(k)).sort(([a], [b]) => (a < b ? -1 : 1)));

/**
 * The same signal seen by two sources (a Prometheus scrape and the engine's log) must not be counted
 * twice: series whose labels agree apart from provenance keep the densest, and an unlabelled series
 * next to labelled ones is the less specific view of the same engines.
 */
export function dedupe<T extends { labels: Record<string, string> }>(list: T[], size: (x: T) => number): T[] {
  const byId = new Map<string, T>();
  for (const s of list) {
    const k = identity(s.labels);
    const known = byId.get(k);
    if (!known || size(s) > size(known)) byId.set(k, s);
  }
  const kept = [...byId.values()];
  const labelled = kept.filter((s) => identity(s.labels) !== '[]');
  return labelled.length && labelled.length < kept.length ? labelled : kept;
}

function pick(attrs: Record<string, unknown>, keys: readonly string[]): unknown {
  for (const k of keys) if (attrs[k] !== undefined && attrs[k] !== null && attrs[k] !== '') return attrs[k];
  return undefined;
}

function num(x: unknown): number | null {
  const n = typeof x === 'number' ? x : typeof x === 'string' && x.trim() !== '' ? Number(x) : NaN;
  return Number.isFinite(n) ? n : null;
}

/** A span is a request when it carries any request fact; others (internal spans) are skipped. */
export function requestFact(ref: string, start_ms: number, end_ms: number, attrs: Record<string, unknown>, parentRef: string | null = null): RequestFact | null {
  const prompt = num(pick(attrs, REQUEST_ATTRS.prompt_tokens));
  const output = num(pick(attrs, REQUEST_ATTRS.output_tokens));
  const ttft = num(pick(attrs, REQUEST_ATTRS.ttft_s));
  const queue = num(pick(attrs, REQUEST_ATTRS.queue_s));
  const e2e = num(pick(attrs, REQUEST_ATTRS.e2e_s));
  const id = pick(attrs, REQUEST_ATTRS.request_id);
  if (prompt === null && output === null && ttft === null && e2e === null && id === undefined) return null;
  const side = spanSide(attrs);
  const lora = pick(attrs, REQUEST_ATTRS.lora);
  const model = pick(attrs, REQUEST_ATTRS.model);
  const peer = pick(attrs, REQUEST_ATTRS.peer);
  return {
    ref,
    start_ms,
    end_ms,
    prompt_tokens: prompt,
    output_tokens: output,
    ttft_s: ttft,
    first_token_s: num(pick(attrs, REQUEST_ATTRS.first_token_s)),
    queue_s: queue,
    e2e_s: e2e ?? (end_ms - start_ms) / 1000,
    side,
    request_id: id === undefined ? null : String(id),
    parent_ref: parentRef,
    lora: lora === undefined ? null : String(lora),
    model: model === undefined ? null : String(model),
    peer: peer === undefined ? null : String(peer),
  };
}
