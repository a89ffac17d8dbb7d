// What the diagnosis model reads of one incident. In one read transaction: every series and histogram with
// where its data begins and ends, the events of the kinds the rules look for, the spans (request facts are
// made of their attributes), the allocation sites and the incident's metadata. The samples and scrapes
// themselves are read when the model asks (`reads`): it scans each series once into its window buckets,
// seeks where series begin and fall silent, and loads a whole series only where a rule reads one. Every
// later read is bounded by the series' last time as the transaction saw it, so a live recording or an
// import committing meanwhile cannot hand the model half of a batch: appended samples lie after it, and
// a new source's series are not in the list. Plain data and functions: the model
// (node/engine/model/signals-from-store.ts) turns it into its Signals and never sees SQL.
import type { AllocationSite, EventRow, SpanRow } from '../../../common/contract/types';
import type { Db } from './db';
import {
  countTimes,
  firstScrape,
  firstTimes,
  inReadTransaction,
  readHistogramSnapshots,
  readSampleArrays,
  scanSamples,
  scanScrapesDown,
  timeAt,
  type SampleVisitor,
  type SeekOp,
} from './sample-reads';
import { queryEvents } from './event-reads';
import { seriesCatalog } from './series-reads';
import { querySpans } from './trace-reads';
import { allocationSites } from './allocation-reads';
import { parse } from './parse-json';

export interface ModelInputOptions {
  /** Event kinds read (every other kind is left in the store). */
  eventKinds: readonly string[];
  maxEvents: number;
  maxSpans: number;
}

export interface ModelSeries {
  id: number;
  name: string;
  labels: Record<string, string>;
  kind: string;
  /** The file the series came from (null for live recordings without one). */
  source_path: string | null;
}

export interface ModelInput {
  /** The incident's recorded span (null ends where nothing set them). */
  start_ms: number | null;
  end_ms: number | null;
  /** Non-histogram series with at least one sample, in (name, labels, id) order, with their first and last sample's time. */
  series: (ModelSeries & { first_ms: number; last_ms: number })[];
  /** Histogram series with at least one scrape, in the same order, with their first and last scrape's time. */
  histograms: (ModelSeries & { first_ms: number; last_ms: number })[];
  events: EventRow[];
  spans: SpanRow[];
  sites: AllocationSite[];
  meta: Record<string, unknown>;
  /** The samples and scrapes, read when asked. */
  reads: ModelReads;
}

/** Which rows a read is about: a series' samples, or a histogram's scrapes. */
export type ModelTable = 'samples' | 'scrapes';

/**
 * Reads of the samples and scrapes of the series listed in a ModelInput. Each runs in a read transaction
 * of its own (or in the one the caller holds); the caller bounds each by the series' last time.
 */
export interface ModelReads {
  /** Every sample of a series at or before `to`. */
  samples(seriesId: number, to: number): { t: Float64Array; v: Float64Array };
  /** Visits the samples with from ≤ ts ≤ to in time order. */
  scanSamples(seriesId: number, from: number, to: number, visit: SampleVisitor): void;
  /** Every scrape of a histogram at or before `to`. */
  scrapes(seriesId: number, to: number): { t: number; le: number[]; counts: number[] }[];
  /** Visits a histogram's scrapes at or before `to`, newest first; `take` gets the ones `pick` wants, with their bounds and counts. */
  scanScrapesDown(seriesId: number, to: number, pick: (t: number) => boolean, take: (t: number, le: number[], counts: string) => void): void;
  /** A histogram's first scrape, or null. */
  firstScrape(seriesId: number): { t: number; le: number[]; counts: string } | null;
  /** The time nearest `ts` on the side `op` says (`<` the latest before … `>` the earliest after), or null: one seek. */
  seek(table: ModelTable, seriesId: number, op: SeekOp, ts: number): number | null;
  /** The first `n` times at or before `to`. */
  firstTimes(table: ModelTable, seriesId: number, n: number, to: number): Float64Array;
  /** How many samples or scrapes lie at or before `to`. */
  count(table: ModelTable, seriesId: number, to: number): number;
  /** Runs `fn`'s reads as one: one read transaction, the small page cache set once. */
  batch<T>(fn: () => T): T;
}

/**
 * SQLite's page cache while the series are read, in KiB. Their scans visit each page once, in key order:
 * a cache of the connection's usual 64 MiB only adds to the peak RSS (measured on 2.4 M samples: 300 MB
 * at 64 MiB, 245 MB at 2 MiB, the same time). Events and spans are read by index with the usual cache.
 */
const SCAN_CACHE_KIB = 2048;

/** The model's input of an incident, or null when there is no such incident. */
export function readModelInput(db: Db, incidentId: number, opts: ModelInputOptions): ModelInput | null {
  return inReadTransaction(db, () => {
    const inc = db.prepare('SELECT start_ms, end_ms, meta_json FROM incidents WHERE id = ?').get(incidentId) as { start_ms: number | null; end_ms: number | null; meta_json: string } | undefined;
    if (!inc) return null;
    const out: ModelInput = {
      start_ms: inc.start_ms,
      end_ms: inc.end_ms,
      series: [],
      histograms: [],
      events: queryEvents(db, { incident_id: incidentId, kinds: [...opts.eventKinds], limit: opts.maxEvents }).rows,
      spans: querySpans(db, { incident_id: incidentId, limit: opts.maxSpans }),
      sites: db.prepare('SELECT 1 FROM allocations WHERE incident_id = ? LIMIT 1').get(incidentId) ? allocationSites(db, incidentId) : [],
      meta: parse(inc.meta_json, {}),
      reads: modelReads(db),
    };
    for (const c of seriesCatalog(db, incidentId)) {
      const table = c.kind === 'histogram' ? 'histogram_snapshots' : 'samples';
      const first = timeAt(db, table, c.id, '>=', -Infinity);
      if (first === null) continue;
      const entry = { ...c, first_ms: first, last_ms: timeAt(db, table, c.id, '<=', Infinity)! };
      (c.kind === 'histogram' ? out.histograms : out.series).push(entry);
    }
    return out;
  });
}

const tableOf = (t: ModelTable) => (t === 'samples' ? 'samples' : 'histogram_snapshots');

/** The reads of a ModelInput over `db`. */
function modelReads(db: Db): ModelReads {
  // Bucket bounds by layout id, each one array shared by every scrape of that layout. A scan cannot query
  // while it runs: a layout first met there is an empty array filled right after it.
  const layouts = new Map<number, number[]>();
  const unread = new Set<number>();
  const layoutStmt = db.prepare('SELECT le_json FROM histogram_layouts WHERE id = ?').pluck();
  const layout = (id: number): number[] => {
    let le = layouts.get(id);
    if (!le) {
      layouts.set(id, (le = []));
      unread.add(id);
    }
    return le;
  };
  const readLayouts = () => {
    for (const id of unread) {
      const json = layoutStmt.get(id) as string | undefined;
      if (json === undefined) throw new Error(`histogram layout ${id} is missing from histogram_layouts`);
      layouts.get(id)!.push(...(JSON.parse(json) as number[]));
    }
    unread.clear();
  };
  return {
    samples: (id, to) => inReadTransaction(db, () => readSampleArrays(db, id, to)),
    scanSamples: (id, from, to, visit) => scanning(db, () => scanSamples(db, id, from, to, visit)),
    scrapes: (id, to) => inReadTransaction(db, () => readHistogramSnapshots(db, id, to)),
    scanScrapesDown: (id, to, pick, take) =>
      scanning(db, () => {
        try {
          scanScrapesDown(db, id, to, pick, (t, l, counts) => take(t, layout(l), counts));
        } finally {
          readLayouts();
        }
      }),
    firstScrape: (id) =>
      scanning(db, () => {
        const row = firstScrape(db, id);
        if (!row) return null;
        const le = layout(row[1]);
        readLayouts();
        return { t: row[0], le, counts: row[2] };
      }),
    seek: (table, id, op, ts) => scanning(db, () => timeAt(db, tableOf(table), id, op, ts)),
    firstTimes: (table, id, n, to) => scanning(db, () => firstTimes(db, tableOf(table), id, n, to)),
    count: (table, id, to) => scanning(db, () => countTimes(db, tableOf(table), id, to)),
    batch: (fn) => scanning(db, fn),
  };
}

/**
 * Runs a read of samples or scrapes in a read transaction with the small page cache (see SCAN_CACHE_KIB):
 * scans and seeks pass through a series' pages once, and the connection's usual cache would keep them.
 */
function scanning<T>(db: Db, fn: () => T): T {
  if (smallCache.has(db)) return fn();
  return inReadTransaction(db, () => {
    const cache = db.pragma('cache_size', { simple: true }) as number;
    db.pragma(`cache_size = -${SCAN_CACHE_KIB}`);
    smallCache.add(db);
    try {
      return fn();
    } finally {
      smallCache.delete(db);
      db.pragma(`cache_size = ${cache}`);
    }
  });
}

/** Connections inside scanning() now (a batch of reads sets the small cache once). */
const smallCache = new WeakSet<Db>();
