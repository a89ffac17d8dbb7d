// Pull an incident from a Prometheus-compatible server: discover the series Quadscope understands
// under the user's selectors, plan query_range requests on one step grid within the servers' limits,
// fetch them a few at a time (retrying what is worth retrying, halving a request the server finds too
// big) and write every answer, as it arrives, into one source of a new incident — one transaction, so a
// cancel or a crash leaves nothing half-visible. Requests that still fail leave their range empty and
// are reported (in the result, and as the source's warnings): a partial answer is never passed off as
// a whole one. The provenance (server, selectors, queries, step, range, time of the pull) goes with the
// incident; the credential goes nowhere but the Authorization header.
import { readFile } from 'node:fs/promises';
import type { PullFailure, PullProgress, PullRequest, PullResult } from '../../../common/contract/types';
import { PromSeriesMapper } from '../importers/prom-series';
import type { Store } from '../store/store';
import { AuthError, loadCredential } from './auth';
import { discover, estimateIntervalMs, type Group } from './discover';
import { planPull, type PlannedRequest } from './plan';
import { ApiError, DEFAULT_RETRIES, DEFAULT_TIMEOUT_MS, PromApi, apiRoot, rootText } from './prom-api';
import { parseSelector } from './selector';
import { histogramTypes, writeMatrix } from './write-answer';

export const DEFAULT_MAX_SERIES = 50_000;
export const DEFAULT_MAX_SAMPLES = 200_000_000;
export const DEFAULT_STEP_MS = 15_000;
const DEFAULT_CONCURRENCY = 4;
const PROGRESS_EVERY_MS = 100;
const MAX_WARNINGS = 200;

export interface PullRunOptions {
  jobId?: string;
  signal?: AbortSignal;
  onProgress?: (p: PullProgress) => void;
  /** Requests in flight at once. */
  concurrency?: number;
  retries?: number;
  backoffBaseMs?: number;
  /** Below the servers' 11,000 (tests; servers configured lower). */
  maxPointsPerSeries?: number;
  samplesPerRequest?: number;
}

export class PullError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PullError';
  }
}

/** An answer the server refuses for its size: asked again in two halves. */
const TOO_BIG = /maximum resolution|too many points|maxPointsPerTimeseries|too many samples|maxSamplesPerQuery|maxSamplesPerSeries/i;

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

function defaultName(server: URL, startMs: number, endMs: number): string {
  const day = (ms: number) => iso(ms).slice(0, 10);
  const hm = (ms: number) => iso(ms).slice(11, 16);
  const span = day(startMs) === day(endMs) ? `${day(startMs)} ${hm(startMs)}–${hm(endMs)}` : `${day(startMs)} ${hm(startMs)} – ${day(endMs)} ${hm(endMs)}`;
  return `${server.host} ${span} UTC`;
}

export async function pullIncident(store: Store, req: PullRequest, opts: PullRunOptions = {}): Promise<PullResult> {
  const t0 = performance.now();
  const pulledMs = Date.now();
  const jobId = opts.jobId ?? 'pull';
  const signal = opts.signal ?? new AbortController().signal;
  const base = apiRoot(req.url);
  if (!(req.end_ms > req.start_ms)) throw new PullError(`the range must end after it starts (${iso(req.start_ms)} – ${iso(req.end_ms)})`);
  if (req.step_s !== undefined && !(req.step_s >= 0.001)) throw new PullError('the step must be at least 1 ms');
  const selectors = (req.match ?? []).map(parseSelector);
  const credential = await loadCredential(req.auth);
  let ca: Buffer | null = null;
  if (req.ca_file) {
    try {
      ca = await readFile(req.ca_file);
    } catch (e) {
      throw new AuthError(`cannot read the CA file ${req.ca_file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
  }
  const concurrency = Math.max(1, opts.concurrency ?? DEFAULT_CONCURRENCY);
  const timeoutMs = req.timeout_s !== undefined ? req.timeout_s * 1000 : DEFAULT_TIMEOUT_MS;
  // Requests stop on the caller's cancel, and also when one of them fails the whole pull.
  const stop = new AbortController();
  const onCancel = () => stop.abort();
  signal.addEventListener('abort', onCancel, { once: true });
  if (signal.aborted) stop.abort();
  const api = new PromApi(base, { credential, ca, tenant: req.tenant, timeoutMs, retries: opts.retries ?? DEFAULT_RETRIES, backoffBaseMs: opts.backoffBaseMs, sockets: concurrency }, stop.signal);
  const server = rootText(base);

  const progress: PullProgress = { job_id: jobId, state: 'discovering', requests_done: 0, requests_total: null, series: 0, samples: 0, bytes: 0 };
  let lastEmit = 0;
  const emit = (force = false) => {
    const now = Date.now();
    if (!force && now - lastEmit < PROGRESS_EVERY_MS) return;
    lastEmit = now;
    progress.bytes = api.stats.bytes;
    opts.onProgress?.({ ...progress });
  };
  const cancelledResult = (extra: Partial<PullResult> = {}): PullResult => ({
    incident_id: null,
    server,
    start_ms: req.start_ms,
    end_ms: req.end_ms,
    step_ms: 0,
    queries: [],
    series: 0,
    samples: 0,
    rows: 0,
    requests: api.stats.requests,
    retries: api.stats.retries,
    bytes: api.stats.bytes,
    partial: false,
    failures: [],
    warnings: [],
    cancelled: true,
    timings: { discover_ms: 0, fetch_ms: Math.round(api.stats.waitMs), write_ms: 0, total_ms: Math.round(performance.now() - t0) },
    ...extra,
  });

  try {
    emit(true);
    const version = api.call<{ version?: unknown }>('GET', 'status/buildinfo', []).then(
      (a) => (typeof a.data?.version === 'string' ? a.data.version : null),
      () => null,
    );
    let groups: Group[];
    try {
      groups = await discover(api, selectors, req.start_ms, req.end_ms, req.max_series ?? DEFAULT_MAX_SERIES, concurrency, stop.signal);
    } catch (e) {
      if (isCancel(e, signal)) return finishCancelled();
      throw e;
    }
    const warnings: string[] = [];
    let stepMs = req.step_s !== undefined ? Math.round(req.step_s * 1000) : null;
    if (stepMs === null) {
      const cheapest = groups.reduce((a, b) => (b.series < a.series ? b : a));
      stepMs = await estimateIntervalMs(api, cheapest, req.start_ms, req.end_ms).catch((e: unknown) => {
        if (isCancel(e, signal)) throw e;
        return null;
      });
      if (stepMs === null) {
        stepMs = DEFAULT_STEP_MS;
        warnings.push(`the scrape interval could not be read from the server; pulled at a ${DEFAULT_STEP_MS / 1000} s step (give --step to choose)`);
      }
    }
    const plan = planPull(groups, req.start_ms, req.end_ms, stepMs, {
      maxSamples: req.max_samples ?? DEFAULT_MAX_SAMPLES,
      maxPointsPerSeries: opts.maxPointsPerSeries,
      samplesPerRequest: opts.samplesPerRequest,
    });
    const discoverMs = performance.now() - t0;
    if (signal.aborted) return finishCancelled();

    const queries = groups.map((g) => g.expr);
    progress.state = 'pulling';
    progress.series = plan.series;
    progress.requests_total = plan.requests.length;
    emit(true);

    const incidentId = store.createIncident(req.name?.trim() || defaultName(base, plan.startMs, plan.endMs), 'prometheus', {
      pull: {
        server,
        server_version: await version,
        selectors: selectors.map((s) => s.text),
        queries,
        step_ms: plan.stepMs,
        start_ms: plan.startMs,
        end_ms: plan.endMs,
        requested: { start_ms: req.start_ms, end_ms: req.end_ms },
        pulled_ms: pulledMs,
        series: plan.series,
        requests: plan.requests.length,
        auth: credential?.kind ?? null,
        tenant: req.tenant ?? null,
      },
    });
    const writer = store.beginSource(incidentId, { path: server, format: 'prometheus-pull', bytes: 0 });
    const mapper = new PromSeriesMapper(writer);
    const typeOf = histogramTypes(groups.flatMap((g) => g.names));
    const failures: PullFailure[] = [];
    const serverWarnings = api.warnings;
    let warningCount = 0;
    const warn = (m: string) => {
      warningCount++;
      if (warnings.length < MAX_WARNINGS) warnings.push(m);
    };
    let samples = 0;
    let writeMs = 0;
    let answered = 0;

    const queue: PlannedRequest[] = [...plan.requests];
    const one = async (r: PlannedRequest): Promise<void> => {
      let answer;
      try {
        answer = await api.call<{ resultType?: unknown; result?: unknown }>('POST', 'query_range', [
          ['query', r.expr],
          ['start', String(r.startMs / 1000)],
          ['end', String(r.endMs / 1000)],
          ['step', String(plan.stepMs / 1000)],
          // Seconds as a plain number: Prometheus reads "1.5" but not "1.5s".
          ['timeout', String(timeoutMs / 1000)],
        ]);
      } catch (e) {
        if (isCancel(e, signal)) throw e;
        const err = e as Error;
        if (e instanceof ApiError && TOO_BIG.test(err.message) && r.points > 1) {
          // Asked again as two halves, at the front, so the pieces land near each other.
          const half = Math.ceil(r.points / 2);
          const first = { ...r, endMs: r.startMs + (half - 1) * plan.stepMs, points: half };
          const second = { ...r, startMs: first.endMs + plan.stepMs, points: r.points - half };
          queue.unshift(first, second);
          progress.requests_total = (progress.requests_total ?? 0) + 2;
          return;
        }
        failures.push({ query: r.expr, start_ms: r.startMs, end_ms: r.endMs, error: err.message });
        return;
      }
      if (answer.data?.resultType !== 'matrix') {
        failures.push({ query: r.expr, start_ms: r.startMs, end_ms: r.endMs, error: `expected a matrix answer, got ${JSON.stringify(answer.data?.resultType)}` });
        return;
      }
      answered++;
      const w0 = performance.now();
      const written = writeMatrix(answer.data.result, mapper, typeOf, (m) => warn(`${r.expr} ${iso(r.startMs)}–${iso(r.endMs)}: ${m}`));
      writeMs += performance.now() - w0;
      samples += written.samples;
      progress.samples = samples;
    };
    // A failure that is not a request's own (the store refusing a write) ends the pull: the other
    // workers stop at once instead of writing into a transaction about to be rolled back.
    let fatal: unknown = null;
    const worker = async () => {
      for (let r = queue.shift(); r && !stop.signal.aborted; r = queue.shift()) {
        try {
          await one(r);
        } catch (e) {
          if (!isCancel(e, signal) && fatal === null) fatal = e;
          stop.abort();
          return;
        }
        progress.requests_done++;
        emit();
      }
    };

    try {
      await Promise.all(Array.from({ length: concurrency }, worker));
      if (fatal !== null) throw fatal;
      if (signal.aborted) throw new ApiError('cancelled', 'cancelled');
      if (failures.length && !answered) {
        throw new PullError(`every query_range request failed, nothing was kept; the first: ${failures[0].error}`);
      }
      const notes: string[] = [];
      if (failures.length) {
        notes.push(`partial: ${failures.length} of ${failures.length + answered} query_range requests failed; their ranges are empty`);
        for (const f of failures.slice(0, 50)) notes.push(`no data for ${f.query} ${iso(f.start_ms)}–${iso(f.end_ms)}: ${f.error}`);
      }
      for (const w of serverWarnings) notes.push(`the server warned: ${w}`);
      if (warningCount > warnings.length) warnings.push(`… and ${warningCount - warnings.length} more problems`);
      const w0 = performance.now();
      writer.commit([...notes, ...warnings]);
      store.refreshIncidentSpan(incidentId);
      writeMs += performance.now() - w0;
    } catch (e) {
      writer.rollback();
      store.deleteIncidentWriter(incidentId);
      if (isCancel(e, signal)) return finishCancelled({ step_ms: plan.stepMs, queries, series: plan.series });
      throw e;
    }

    const result: PullResult = {
      incident_id: incidentId,
      server,
      start_ms: plan.startMs,
      end_ms: plan.endMs,
      step_ms: plan.stepMs,
      queries,
      series: plan.series,
      samples,
      rows: writer.rows,
      requests: api.stats.requests,
      retries: api.stats.retries,
      bytes: api.stats.bytes,
      partial: failures.length > 0 || serverWarnings.size > 0,
      failures,
      warnings: [...[...serverWarnings].map((w) => `the server warned: ${w}`), ...warnings],
      cancelled: false,
      timings: { discover_ms: Math.round(discoverMs), fetch_ms: Math.round(api.stats.waitMs), write_ms: Math.round(writeMs), total_ms: Math.round(performance.now() - t0) },
    };
    progress.state = 'done';
    opts.onProgress?.({ ...progress, bytes: api.stats.bytes, result });
    return result;
  } catch (e) {
    // A failure is the caller's to report (it is thrown); a cancel is an answer.
    if (isCancel(e, signal)) return finishCancelled();
    throw e;
  } finally {
    signal.removeEventListener('abort', onCancel);
    api.close();
  }

  function finishCancelled(extra: Partial<PullResult> = {}): PullResult {
    const result = cancelledResult(extra);
    progress.state = 'cancelled';
    opts.onProgress?.({ ...progress, bytes: api.stats.bytes, result });
    return result;
  }
}

function isCancel(e: unknown, signal: AbortSignal): boolean {
  return signal.aborted || (e instanceof ApiError && e.kind === 'cancelled');
}
