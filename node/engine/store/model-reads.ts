// What the diagnosis model reads of one incident, read in one pass and one read transaction (so an
// import or a live recording committing meanwhile cannot give the model half of a batch): every series
// with its samples as typed arrays, every histogram with its scrapes, the events of the kinds the rules
// look for, the spans (request facts are made of their attributes), the allocation sites and the
// incident's metadata. Plain data: the model (node/engine/model/signals-from-store.ts) turns it into its
// Signals and never sees SQL.
import type { AllocationSite, EventRow, SpanRow } from '../../../common/contract/types';
import type { Db } from './db';
import { inReadTransaction, readHistogramSnapshots, readSampleArrays } from './sample-reads';
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
  /** Non-histogram series with at least one sample, in (name, labels, id) order. */
  series: (ModelSeries & { t: Float64Array; v: Float64Array })[];
  /** Histogram series with at least one scrape, in the same order. */
  histograms: (ModelSeries & { snaps: { t: number; le: number[]; counts: number[] }[] })[];
  events: EventRow[];
  spans: SpanRow[];
  sites: AllocationSite[];
  meta: Record<string, unknown>;
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
    };
    const cache = db.pragma('cache_size', { simple: true }) as number;
    db.pragma(`cache_size = -${SCAN_CACHE_KIB}`);
    try {
      for (const c of seriesCatalog(db, incidentId)) {
        if (c.kind === 'histogram') {
          const snaps = readHistogramSnapshots(db, c.id);
          if (snaps.length) out.histograms.push({ ...c, snaps });
          continue;
        }
        const { t, v } = readSampleArrays(db, c.id);
        if (t.length) out.series.push({ ...c, t, v });
      }
    } finally {
      db.pragma(`cache_size = ${cache}`);
    }
    return out;
  });
}
