// The impact of an incident, for the report's summary: how long it lasted, the requests and tokens it
// touched and the errors it produced, read from the counters and histograms over the impact window (the
// onset to the last alert's resolution, or to the end of the data when something is still firing). Each
// figure is null where the bundle lacks the series that would give it.
import type { Diagnosis } from '../../../common/contract/diagnosis';
import type { SeriesInfo } from '../../../common/contract/types';
import { bestSource } from '../../../common/series-source';
import { counterIncrease } from '../../../common/counters';
import type { Store } from '../store/store';

export interface Impact {
  start_ms: number;
  end_ms: number;
  /** Still degraded when the data end: an alert never resolved, or nothing resolved at all. */
  ongoing: boolean;
  requests_finished: number | null;
  /** Requests that ended aborted or in error, plus the error counter. */
  requests_failed: number | null;
  /** Requests slower than `slow_over_s` (the first histogram bucket at or above the latency trigger). */
  requests_slow: number | null;
  slow_over_s: number | null;
  tokens_generated: number | null;
  /** Generation tokens per second in the window and in the baseline. */
  tokens_per_s: number | null;
  baseline_tokens_per_s: number | null;
  /** Error and critical log events in the window. */
  error_events: number;
}

type Span = { start_ms: number; end_ms: number };

/** Index range [from, to) of the samples at or after the last one before `start`, through `end`. */
function window(t: ArrayLike<number>, start: number, end: number): [number, number] {
  let from = 0;
  while (from + 1 < t.length && t[from + 1] <= start) from++;
  let to = from;
  while (to < t.length && t[to] <= end) to++;
  return [from, to];
}

function increase(store: Store, list: SeriesInfo[], w: Span): number | null {
  if (!list.length) return null;
  let sum = 0;
  for (const s of list) {
    const { t, v } = store.samples(s.id);
    const [from, to] = window(t, w.start_ms, w.end_ms);
    sum += counterIncrease(v, from, to);
  }
  return sum;
}

function perSecond(store: Store, list: SeriesInfo[], w: Span): number | null {
  const inc = increase(store, list, w);
  return inc === null || w.end_ms <= w.start_ms ? null : inc / ((w.end_ms - w.start_ms) / 1000);
}

export function impactOf(store: Store, incidentId: number, d: Diagnosis, onsetMs: number | null, span: Span): Impact | null {
  if (onsetMs === null) return null;
  const resolved = d.alerts.map((a) => a.resolved_ms);
  const ongoing = !resolved.length || resolved.some((r) => r === null);
  const end = ongoing ? span.end_ms : Math.max(...(resolved as number[]));
  const w = { start_ms: onsetMs, end_ms: Math.max(onsetMs, end) };
  const all = store.listSeries(incidentId);
  const counters = (name: string) => bestSource(all, name, (s) => s.points > 0 && s.kind === 'counter');

  const finished = counters('req.finished');
  const failedFinishes = finished.filter((s) => /^(abort|error)$/.test(s.labels.reason ?? ''));
  const errors = counters('req.errors');
  const failed = failedFinishes.length || errors.length ? (increase(store, failedFinishes, w) ?? 0) + (increase(store, errors, w) ?? 0) : null;

  const slow = slowRequests(store, all, d, w);
  const tokens = counters('tokens.generation');
  const errorEvents = store.queryEvents({ incident_id: incidentId, severities: ['error', 'critical'], start_ms: w.start_ms, end_ms: w.end_ms, limit: 1 }).total;
  return {
    ...w,
    ongoing,
    requests_finished: increase(store, finished.length ? finished : counters('lat.e2e.count'), w),
    requests_failed: failed,
    requests_slow: slow?.count ?? null,
    slow_over_s: slow?.over_s ?? null,
    tokens_generated: increase(store, tokens, w),
    tokens_per_s: perSecond(store, tokens, w),
    baseline_tokens_per_s: perSecond(store, tokens, d.baseline),
    error_events: errorEvents,
  };
}

/** Requests in the window slower than the first bucket bound at or above the latency trigger. */
function slowRequests(store: Store, all: SeriesInfo[], d: Diagnosis, w: Span): { count: number; over_s: number } | null {
  const trigger = d.trigger;
  if (!trigger) return null;
  const hist = bestSource(all, trigger.signal, (s) => s.kind === 'histogram')[0];
  if (!hist) return null;
  const snaps = store.histogramSnapshots(hist.id);
  const [from, to] = window(
    snaps.map((s) => s.t),
    w.start_ms,
    w.end_ms,
  );
  if (to - from < 2) return null;
  const a = snaps[from];
  const b = snaps[to - 1];
  if (a.le.length !== b.le.length || !a.le.every((x, i) => x === b.le[i])) return null;
  const threshold = trigger.threshold_ms / 1000;
  const k = b.le.findIndex((le) => le >= threshold && Number.isFinite(le));
  if (k < 0) return null;
  const n = b.le.length - 1;
  const total = b.counts[n] - a.counts[n];
  const under = b.counts[k] - a.counts[k];
  return total >= 0 && under >= 0 ? { count: Math.max(0, total - under), over_s: b.le[k] } : null;
}
