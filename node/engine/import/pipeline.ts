// Bundle → entries → detect → importer → one transaction per source. Failures stay per file: a bad
// file is recorded with its error and the rest of the bundle imports. Cancel rolls back the source in
// flight; sources already committed stay, and the result says it was cancelled.
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { FormatId, ImportOptions, ImportProgress, ImportResult, ImportSourceResult } from '../../../common/contract/types';
import { openBundle } from '../bundle/open';
import type { Bundle, BundleEntry, BundleLimits } from '../bundle/types';
import { HEAD_BYTES, IMPORTERS, detectImporter } from '../importers/registry';
import { asUtf8, headAsUtf8, utf16Of, type Utf16 } from './utf16';
import { sniffContainer } from '../bundle/sniff';
import { formatPosition, type EntryInput, type ImportContext, type Importer, type Position } from '../importers/types';
import type { Store } from '../store/store';
import { describeStoreError } from '../store/db';
import { RowExtent } from '../store/row-extent';
import { nameFromContent } from './incident-name';
import { runImport } from './parallel-import';
import { inferZoneMinutes, zoneFromCandidates, zoneText } from './zone-inference';
import { STATEMENT_MAX_BYTES, statedZone, zoneOffsetAt, type StatedZone } from './zone-statement';
import { isoOf } from '../importers/log-time';

export interface ImportJobOptions {
  jobId?: string;
  name?: string;
  options?: ImportOptions;
  signal?: AbortSignal;
  onProgress?: (p: ImportProgress) => void;
  limits?: Partial<BundleLimits>;
  importers?: readonly Importer[];
  /** Import into this incident instead of a new one. */
  incidentId?: number;
  incidentSource?: string;
}

const MAX_WARNINGS = 200;
const PROGRESS_EVERY_MS = 100;

export class CancelledError extends Error {
  constructor() {
    super('import cancelled');
    this.name = 'CancelledError';
  }
}

export async function importPaths(store: Store, paths: string[], opts: ImportJobOptions = {}): Promise<ImportResult> {
  const bundle = await openBundle(paths, opts.limits);
  try {
    return await importBundle(store, bundle, opts);
  } finally {
    await bundle.close();
  }
}

export async function importBundle(store: Store, bundle: Bundle, opts: ImportJobOptions = {}): Promise<ImportResult> {
  const signal = opts.signal ?? new AbortController().signal;
  const jobId = opts.jobId ?? 'job';
  const importers = opts.importers ?? IMPORTERS;
  // A new incident is marked in progress until the end: if this process dies first, the next store
  // opened drops it when nothing of it committed (store.ts, sweepAbandoned).
  const incidentId = opts.incidentId ?? store.createIncident(opts.name?.trim() || bundle.name, opts.incidentSource ?? 'import', {}, { inProgress: true });
  try {
    return await importInto(store, bundle, incidentId, opts, signal, jobId, importers);
  } catch (e) {
    // Something beyond one file failed (the store itself): keep no empty incident behind.
    if (opts.incidentId === undefined) {
      try {
        store.finishIncident(incidentId, { dropIfEmpty: true });
      } catch {
        /* the mark stays; the next store opened sweeps it */
      }
    }
    throw e;
  }
}

async function importInto(
  store: Store,
  bundle: Bundle,
  incidentId: number,
  opts: ImportJobOptions,
  signal: AbortSignal,
  jobId: string,
  importers: readonly Importer[],
): Promise<ImportResult> {
  const results: ImportSourceResult[] = [];
  const total = bundle.entries.length + bundle.failures.length;
  let lastEmit = 0;
  const emit = (p: Omit<ImportProgress, 'job_id' | 'entries_done' | 'entries_total'>, force = false) => {
    const now = Date.now();
    if (!force && now - lastEmit < PROGRESS_EVERY_MS) return;
    lastEmit = now;
    opts.onProgress?.({ job_id: jobId, entries_done: results.length, entries_total: total, ...p });
  };

  for (const f of bundle.failures) {
    recordQuietly(store, incidentId, { path: f.path, format: 'unknown', bytes: 0, status: 'failed', error: f.error });
    const r: ImportSourceResult = { path: f.path, format: 'unknown', rows: 0, status: 'failed', error: f.error };
    results.push(r);
    emit({ path: f.path, format: null, entry_bytes_done: 0, entry_bytes_total: null, state: 'running', finished: r }, true);
  }

  // Detect every entry first, so sources with absolute timestamps import before logs whose lines carry
  // no year: those then take their year from the bundle's own time span, not from a file's mtime
  // (which a copy or a fresh checkout resets).
  const detected: { entry: BundleEntry; d: Detection }[] = [];
  for (const entry of bundle.entries) detected.push({ entry, d: await detectEntry(entry, importers) });
  // Then the files whose times may be local without a zone (their zone is inferred from the absolute ones),
  // then those whose times need a year or a date from the bundle.
  const tier = (x: { d: Detection }) => ('importer' in x.d ? timeTier(x.d.importer) : 0);
  const ordered = [0, 1, 2].flatMap((t) => detected.filter((x) => tier(x) === t));
  const span: BundleSpan = { endMs: null, rows: new RowExtent(), absolute: new RowExtent(), zones: await statedZones(detected) };

  let cancelled = false;
  for (const { entry, d } of ordered) {
    if (signal.aborted) {
      cancelled = true;
      break;
    }
    const r = await importEntry(store, incidentId, entry, d, opts.options ?? {}, signal, span, (done, format) =>
      emit({ path: entry.path, format, entry_bytes_done: done, entry_bytes_total: entry.size, state: 'running' }),
    );
    if (r === 'cancelled') {
      cancelled = true;
      break;
    }
    results.push(r);
    emit({ path: entry.path, format: r.format, entry_bytes_done: entry.size ?? 0, entry_bytes_total: entry.size, state: 'running', finished: r }, true);
  }

  try {
    if (cancelled && results.length === 0 && opts.incidentId === undefined) {
      // Nothing was kept: leave no empty incident behind.
      store.deleteIncidentWriter(incidentId);
    } else {
      // A new incident holds this import's rows only: their span was gathered as they were written.
      const known = opts.incidentId === undefined ? span.rows.span() : undefined;
      if (known) store.setIncidentSpan(incidentId, known);
      else store.refreshIncidentSpan(incidentId);
      if (opts.incidentId === undefined) {
        try {
          // "bundle.tar.gz" says nothing: the incident is named from what it holds (incident-name.ts).
          nameFromContent(store, incidentId, opts.name?.trim() || bundle.name);
        } catch {
          /* the file's name stays: a name is no reason to fail an import */
        }
        store.finishIncident(incidentId);
      }
    }
  } catch {
    // A full disk can refuse even this: every file's outcome is in the result; the span is refreshed,
    // and the in-progress mark cleared, by the next import or store opened here.
  }
  const result: ImportResult = { incident_id: incidentId, sources: results, cancelled };
  emit({ path: '', format: null, entry_bytes_done: 0, entry_bytes_total: null, state: cancelled ? 'cancelled' : 'done', result }, true);
  return result;
}

/** What reads an entry: its importer, and where the file is UTF-16 text, that encoding (read as UTF-8). */
type Detection = { importer: Importer; utf16: Utf16 | null } | { failed: string } | { skipped: string };

interface BundleSpan {
  /** The latest time among the sources committed so far (ms), for year-less logs. */
  endMs: number | null;
  /** The span the committed sources' rows give the incident (RowExtent). */
  rows: RowExtent;
  /** The span of the committed sources whose times are absolute (tier 0): what a local file's zone is read against. */
  absolute: RowExtent;
  /** Zones to try on a file that, read as UTC, sits poorly within `absolute`: stated in the bundle, or found for another of its files. */
  zones: ZoneCandidate[];
}

interface ZoneCandidate {
  zone: StatedZone;
  /** Where it came from, for the warning: "stated in collect-info.txt", "found for nvidia-smi.csv". */
  from: string;
}

/**
 * Zones that small text files of the bundle state (zone-statement.ts), in bundle order: unclaimed ones, and
 * claimed ones too — a collection manifest that names the engine (`engine: sglang 0.4.9`) is claimed by the
 * engine-log reader on that word, and its `timezone:` line went unread. A stated zone is only ever a
 * candidate, kept where it places a file better, so a statement inside a log costs nothing. A file that
 * cannot be read here says nothing; its own outcome is recorded when it is read.
 */
async function statedZones(detected: readonly { entry: BundleEntry; d: Detection }[]): Promise<ZoneCandidate[]> {
  const out: ZoneCandidate[] = [];
  for (const { entry, d } of detected) {
    if ('failed' in d || (entry.size ?? entry.storedBytes) > STATEMENT_MAX_BYTES) continue;
    try {
      const zone = statedZone((await entry.head(STATEMENT_MAX_BYTES)).toString('utf8'), basename(entry.path));
      if (zone) out.push({ zone, from: `stated in ${entry.path}` });
    } catch {
      /* unreadable: nothing stated */
    }
  }
  return out;
}

/** Import order: 0 absolute times, 1 local times that may lack a zone, 2 times that need a year or a date from elsewhere. */
function timeTier(importer: Importer): 0 | 1 | 2 {
  return importer.yearless === true ? 2 : importer.localTime === true ? 1 : 0;
}

/**
 * What an unclaimed file is packed in, said so the user can unpack it: compressions Quadscope does not read,
 * and archives or gzip inside what it already opened (it expands one level: an archive in the bundle, a
 * gzip around a file). Null for anything else.
 */
function packedAs(head: Buffer): string | null {
  const starts = (...b: number[]) => b.every((x, i) => head[i] === x);
  if (starts(0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00)) return 'xz-compressed: Quadscope reads gzip, zip and tar; unpack it first (xz -d, or tar -xJf for a .tar.xz)';
  if (starts(0x42, 0x5a, 0x68) && head[3] >= 0x31 && head[3] <= 0x39) return 'bzip2-compressed: Quadscope reads gzip, zip and tar; unpack it first (bunzip2, or tar -xjf for a .tar.bz2)';
  if (starts(0x28, 0xb5, 0x2f, 0xfd)) return 'zstd-compressed: Quadscope reads gzip, zip and tar; unpack it first (zstd -d, or tar --zstd -xf)';
  if (starts(0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c)) return 'a 7-Zip archive: Quadscope reads zip, tar and gzip; extract it first (7z x)';
  if (starts(0x52, 0x61, 0x72, 0x21, 0x1a, 0x07)) return 'a RAR archive: Quadscope reads zip, tar and gzip; extract it first';
  // The bundle reader opens gzip, zip and tar by their bytes (sniff.ts): one that reaches here is nested deeper.
  const c = sniffContainer(head);
  if (c === 'gzip') return 'gzip inside gzip (or inside an archive inside the bundle): Quadscope expands one level; gunzip it first';
  if (c === 'zip' || c === 'tar') return 'an archive nested deeper than Quadscope expands (an archive inside an archive inside the bundle): extract it first';
  return null;
}

/**
 * Documents by their name: a bundle's README or runbook quotes the lines it is about (an OOM, an Xid, a stats
 * line), and read as a log each quote became an event of the incident. Only prose formats; a log saved as .txt
 * is still read.
 */
const DOCUMENT_NAME = /\.(md|markdown|mdown|rst|adoc|asciidoc)$/i;

async function detectEntry(entry: BundleEntry, importers: readonly Importer[]): Promise<Detection> {
  if (DOCUMENT_NAME.test(entry.path)) return { skipped: 'documentation (a Markdown, reStructuredText or AsciiDoc document), not data: the lines it quotes are not events of the incident' };
  let head: Buffer;
  try {
    head = await entry.head(HEAD_BYTES);
  } catch (e) {
    return { failed: errorText(e, entry.path) };
  }
  if (head.length === 0) return { failed: `${entry.path}${formatPosition({ offset: 0 })}: empty file (0 bytes)` };
  const utf16 = utf16Of(head);
  const importer = detectImporter(utf16 ? headAsUtf8(head, utf16) : head, basename(entry.path), importers);
  if (importer) return { importer, utf16 };
  const packed = packedAs(head);
  if (packed) return { failed: `${entry.path}: ${packed}` };
  const config = configurationOf(head);
  if (config) return { skipped: config };
  return { skipped: utf16 ? `UTF-16 text (${utf16.toUpperCase()}) that is not a format Quadscope reads` : 'not a format Quadscope reads' };
}

/**
 * An exporter's configuration collected beside its data, said for what it is so the user knows what to bring
 * instead: dcgm-exporter's counters file (`DCGM_FI_DEV_SM_CLOCK, gauge, SM clock frequency (in MHz).`, the
 * fields it exports) holds no readings. Null for anything else.
 */
function configurationOf(head: Buffer): string | null {
  const lines = head.toString('latin1').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  const counters = lines.filter((l) => DCGM_COUNTER_LINE.test(l)).length;
  if (counters >= 2 && counters >= 0.8 * lines.length) return "a dcgm-exporter counters list (its configuration: the fields it exports), not readings: the exporter's /metrics scrape holds those";
  return null;
}
/** One line of dcgm-exporter's counters CSV: a DCGM field, its Prometheus type, its help text. */
const DCGM_COUNTER_LINE = /^DCGM_(?:FI|EXP)_[A-Z0-9_]+\s*,\s*(?:gauge|counter|histogram|summary|label)\s*,/;

async function importEntry(
  store: Store,
  incidentId: number,
  entry: BundleEntry,
  detection: Detection,
  options: ImportOptions,
  signal: AbortSignal,
  span: BundleSpan,
  progress: (done: number, format: FormatId | null) => void,
): Promise<ImportSourceResult | 'cancelled'> {
  const failed = (format: FormatId, error: string) => failSource(store, incidentId, entry, format, error);
  if ('failed' in detection) return failed('unknown', detection.failed);
  if ('skipped' in detection) {
    recordQuietly(store, incidentId, { path: entry.path, format: 'unknown', bytes: entry.storedBytes, status: 'skipped', error: detection.skipped });
    return { path: entry.path, format: 'unknown', rows: 0, status: 'skipped', error: detection.skipped };
  }
  const { importer, utf16 } = detection;
  const first = await importOnce(store, incidentId, entry, importer, utf16, options, signal, span, progress, null);
  if (first === 'cancelled' || !('zoneMinutes' in first)) return first;
  // Rolled back: its times lined up with the bundle's in another zone, so it is read again in that zone.
  const again = await importOnce(store, incidentId, entry, importer, utf16, { ...options, tzOffsetMinutes: first.zoneMinutes }, signal, span, progress, first.note);
  if (again === 'cancelled') return again;
  // A read given its zone is never sent back (zoneFromBundle asks only where none was given).
  if ('zoneMinutes' in again) return failed(importer.format, `${entry.path}: its zone could not be settled`);
  // A zone both of whose ends lined up is the host's clock: the next file without one may be in it too.
  if (again.status === 'ok' && first.lined) span.zones.push({ zone: { minutes: first.zoneMinutes }, from: `found for ${entry.path}` });
  return again;
}

/** One read of the entry into its own transaction; `note` is a warning the source starts with (why it was read again). */
async function importOnce(
  store: Store,
  incidentId: number,
  entry: BundleEntry,
  importer: Importer,
  utf16: Utf16 | null,
  options: ImportOptions,
  signal: AbortSignal,
  span: BundleSpan,
  progress: (done: number, format: FormatId | null) => void,
  note: string | null,
): Promise<ImportSourceResult | Rezone | 'cancelled'> {
  const failed = (format: FormatId, error: string) => failSource(store, incidentId, entry, format, error);
  const warnings: string[] = [];
  let warningCount = 0;
  let bytesDone = 0;
  const ctx: ImportContext = {
    path: entry.path,
    size: entry.size,
    mtimeMs: entry.mtimeMs,
    bundleEndMs: span.endMs,
    options,
    signal,
    progress: (n) => {
      bytesDone = n;
      progress(n, importer.format);
    },
    warn: (message: string, where?: Position) => {
      warningCount++;
      if (warnings.length < MAX_WARNINGS) warnings.push(`${entry.path}${formatPosition(where)}: ${message}`);
    },
  };
  if (note) ctx.warn(note);
  const input: EntryInput = {
    stream: () => {
      const bytes = counted(entry.stream(), signal, (n) => {
        bytesDone += n;
        progress(bytesDone, importer.format);
      });
      return utf16 ? asUtf8(bytes, utf16) : bytes;
    },
    file: () => entry.file(),
  };
  if (utf16) ctx.warn(`${utf16.toUpperCase()} text (as Windows PowerShell writes it): read as UTF-8; byte offsets in messages count the UTF-8 text`);

  let attachFile: string | undefined;
  let attachDir: string | undefined;
  if (importer.needsFile) {
    // SQLite here takes no URI names, so ATTACH cannot say mode=ro: it attaches a private copy, and the
    // user's evidence file is never opened for writing (a hot journal would otherwise be rolled back).
    try {
      attachDir = await mkdtemp(join(tmpdir(), 'quadscope-attach-'));
      attachFile = join(attachDir, 'source.sqlite');
      await copyFile(await entry.file(), attachFile);
    } catch (e) {
      if (attachDir) await rm(attachDir, { recursive: true, force: true });
      return failed(importer.format, errorText(e, entry.path));
    }
  }
  try {
    const inputBytes = () => Math.max(bytesDone, entry.size ?? entry.storedBytes);
    return await runImporter(store, incidentId, entry, importer, input, ctx, signal, warnings, () => warningCount, attachFile, span, inputBytes);
  } finally {
    if (attachDir) await rm(attachDir, { recursive: true, force: true });
  }
}

async function runImporter(
  store: Store,
  incidentId: number,
  entry: BundleEntry,
  importer: Importer,
  input: EntryInput,
  ctx: ImportContext,
  signal: AbortSignal,
  warnings: string[],
  warningCount: () => number,
  attachFile: string | undefined,
  span: BundleSpan,
  inputBytes: () => number,
): Promise<ImportSourceResult | Rezone | 'cancelled'> {
  const failed = (format: FormatId, error: string) => failSource(store, incidentId, entry, format, error);

  let writer;
  try {
    writer = store.beginSource(incidentId, { path: entry.path, format: importer.format, bytes: entry.storedBytes }, attachFile);
  } catch (e) {
    return failed(importer.format, errorText(e, entry.path));
  }
  writer.limitOutput({ inputBytes });
  try {
    await runImport(importer, input, writer, ctx, entry.size ?? entry.storedBytes);
    if (signal.aborted) throw new CancelledError();
    const rezone = zoneFromBundle(importer, ctx, writer.timeRange, span);
    if (rezone) {
      writer.rollback();
      return rezone;
    }
    if (warningCount() > warnings.length) warnings.push(`… and ${warningCount() - warnings.length} more problems`);
    writer.commit(warnings);
    span.rows.merge(writer.rowExtent);
    if (timeTier(importer) === 0) span.absolute.merge(writer.rowExtent);
    const range = writer.timeRange;
    if (range && importer.yearless !== true) span.endMs = Math.max(span.endMs ?? -Infinity, range.end_ms);
    return { path: entry.path, format: importer.format, rows: writer.rows, status: 'ok', error: null };
  } catch (e) {
    writer.rollback();
    if (e instanceof CancelledError || signal.aborted) return 'cancelled';
    return failed(importer.format, errorText(e, entry.path));
  }
}

/** A read to do again in another zone, and the warning that says so. */
interface Rezone {
  zoneMinutes: number;
  note: string;
  /** Both ends lined up in it (inferZoneMinutes), not only a candidate that fit. */
  lined: boolean;
}

/**
 * Where the user gave no zone and the file's times may be local ones: the zone that lines its range up with
 * the bundle's absolute times (zone-inference.ts), else the first zone the bundle states or another file was
 * found in that places the file better within them (zoneFromCandidates); null to keep UTC.
 */
function zoneFromBundle(importer: Importer, ctx: ImportContext, range: { start_ms: number; end_ms: number } | null, span: BundleSpan): Rezone | null {
  if (timeTier(importer) === 0 || ctx.options.tzOffsetMinutes !== undefined || !range) return null;
  const abs = span.absolute.span();
  if (!abs || abs.start_ms === null || abs.end_ms === null) return null;
  const absolute = { start_ms: abs.start_ms, end_ms: abs.end_ms };
  const over = `the bundle's sources that carry absolute times (${isoOf(abs.start_ms)} to ${isoOf(abs.end_ms)})`;
  const late = (minutes: number) => `read as UTC they ran ${shiftText(minutes)} ${minutes > 0 ? 'late' : 'early'}`;
  const lined = inferZoneMinutes(range, absolute);
  if (lined !== null) {
    const zone = zoneText(lined);
    return { zoneMinutes: lined, lined: true, note: `its times carry no zone: read in ${zone}, where they line up with ${over}; ${late(lined)} (give the zone in the import options if ${zone} is wrong)` };
  }
  const offsets = span.zones.map((c) => zoneOffsetAt(c.zone, range.start_ms));
  const fit = zoneFromCandidates(range, absolute, offsets);
  if (fit === null) return null;
  const from = span.zones[offsets.indexOf(fit)];
  const zone = `${zoneText(fit)}${'name' in from.zone ? ` (${from.zone.name})` : ''}`;
  return { zoneMinutes: fit, lined: false, note: `its times carry no zone: read in ${zone}, ${from.from}, where they fall within ${over}; ${late(fit)} (give the zone in the import options if ${zone} is wrong)` };
}

const shiftText = (minutes: number) => {
  const m = Math.abs(minutes);
  return m % 60 ? `${Math.floor(m / 60)} h ${m % 60} min` : `${m / 60} h`;
};

/** Counts bytes through a stream and stops it promptly on cancel. */
async function* counted(src: AsyncIterable<Buffer>, signal: AbortSignal, onBytes: (n: number) => void): AsyncIterable<Buffer> {
  for await (const chunk of src) {
    if (signal.aborted) throw new CancelledError();
    onBytes(chunk.length);
    yield chunk;
  }
}

function errorText(e: unknown, path: string): string {
  const msg = describeStoreError(e);
  return msg.includes(path) ? msg : `${path}: ${msg}`;
}

/** A file that failed: recorded (quietly, see recordQuietly) and answered as the import's result for it. */
function failSource(store: Store, incidentId: number, entry: BundleEntry, format: FormatId, error: string): ImportSourceResult {
  recordQuietly(store, incidentId, { path: entry.path, format, bytes: entry.storedBytes, status: 'failed', error });
  return { path: entry.path, format, rows: 0, status: 'failed', error };
}

/**
 * Records a failed or skipped source; when the store refuses even that (a full disk), the file's outcome
 * still reaches the result, which is what the user sees.
 */
function recordQuietly(store: Store, incidentId: number, meta: Parameters<Store['recordSource']>[1]): void {
  try {
    store.recordSource(incidentId, meta);
  } catch {
    /* kept in the result only */
  }
}
