// The query_range requests of a pull, and the caps it must stay under. Pure: groups and numbers in,
// requests out. The range is put on the step's grid (start rounded up, end down, both multiples of
// the step since the epoch), so two pulls of the same data answer the same points and a scrape on the
// grid comes back at its own timestamp. Each request stays under the servers' per-series limit
// (Prometheus, Thanos, Mimir: 11,000 points) and under a samples budget per answer, so a wide group
// is read in more, shorter pieces instead of one answer of hundreds of megabytes.
import type { Group } from './discover';
import { TooWideError } from './discover';
import { groupDigits } from '../../../common/format';

/** Prometheus refuses a query_range of more than 11,000 points per series. */
export const MAX_POINTS_PER_SERIES = 11_000;
/** Values per answer (series × points): about 30 MB of JSON. */
export const SAMPLES_PER_REQUEST = 1_000_000;

export interface PlannedRequest {
  group: number;
  expr: string;
  /** ms, on the step grid; both ends are asked for. */
  startMs: number;
  endMs: number;
  points: number;
}

export interface Plan {
  startMs: number;
  endMs: number;
  stepMs: number;
  points: number;
  series: number;
  samples: number;
  requests: PlannedRequest[];
}

export interface PlanLimits {
  maxSamples: number;
  maxPointsPerSeries?: number;
  samplesPerRequest?: number;
}

/** [startMs, endMs] on the grid of `stepMs`; null when no grid point falls inside. */
export function alignRange(startMs: number, endMs: number, stepMs: number): { startMs: number; endMs: number } | null {
  const s = Math.ceil(startMs / stepMs) * stepMs;
  const e = Math.floor(endMs / stepMs) * stepMs;
  return e >= s ? { startMs: s, endMs: e } : null;
}

/** Points of one series per request for a group of `series` series. */
export function pointsPerRequest(series: number, limits: Pick<PlanLimits, 'maxPointsPerSeries' | 'samplesPerRequest'> = {}): number {
  const cap = limits.maxPointsPerSeries ?? MAX_POINTS_PER_SERIES;
  return Math.max(1, Math.min(cap, Math.floor((limits.samplesPerRequest ?? SAMPLES_PER_REQUEST) / Math.max(1, series))));
}

/** Splits [startMs, endMs] (on the grid) into pieces of at most `points` points, with no point twice. */
export function splitRange(startMs: number, endMs: number, stepMs: number, points: number): { startMs: number; endMs: number; points: number }[] {
  const out: { startMs: number; endMs: number; points: number }[] = [];
  const total = Math.round((endMs - startMs) / stepMs) + 1;
  for (let first = 0; first < total; first += points) {
    const n = Math.min(points, total - first);
    out.push({ startMs: startMs + first * stepMs, endMs: startMs + (first + n - 1) * stepMs, points: n });
  }
  return out;
}

export function planPull(groups: Group[], startMs: number, endMs: number, stepMs: number, limits: PlanLimits): Plan {
  const range = alignRange(startMs, endMs, stepMs);
  if (!range) throw new TooWideError(`the range ${new Date(startMs).toISOString()} – ${new Date(endMs).toISOString()} holds no point of a ${stepMs / 1000} s step: widen it or use a smaller --step`);
  const points = Math.round((range.endMs - range.startMs) / stepMs) + 1;
  const series = groups.reduce((n, g) => n + g.series, 0);
  const samples = series * points;
  if (samples > limits.maxSamples) {
    const fit = Math.ceil((series * (range.endMs - range.startMs)) / limits.maxSamples / 1000);
    throw new TooWideError(
      `the pull is too big: ${groupDigits(series)} series × ${groupDigits(points)} points (a ${stepMs / 1000} s step) = ${groupDigits(samples)} samples, over the cap of ${groupDigits(limits.maxSamples)}. ` +
        `Narrow the selector with --match, pull a shorter range, use --step ${fit}s or more, or raise --max-samples.`,
    );
  }
  const requests: PlannedRequest[] = [];
  groups.forEach((g, i) => {
    for (const piece of splitRange(range.startMs, range.endMs, stepMs, pointsPerRequest(g.series, limits))) requests.push({ group: i, expr: g.expr, ...piece });
  });
  return { ...range, stepMs, points, series, samples, requests };
}
