// The four alert families of docs/four-quadrant-model.md §6. An alert fires once its condition has held for
// `for` consecutive windows (first_fired_ms = the start of the window that completed the streak) and
// resolves at the first window where it no longer holds; it can fire again later.
import type { Alert, AlertFamily } from '../../../common/contract/diagnosis';

/**
 * `holds[i]` null is a window without data (a lost scrape, a gap in the recording, an idle stretch with no
 * request to time): it neither extends a streak nor resolves an alert. An alert that holds on both sides of a
 * gap spans it, and counts the gap as `unobserved_ms` (light on/off traffic: a minute's blip, minutes idle and
 * another blip are not a symptom that lasted for all of it); one found resolved after a gap is dated resolved
 * where the gap began — the earliest it can have ended — so a gap never lengthens an alert that did not
 * outlast it. Windows without data after the last one that held, while the alert is still on at the end,
 * stay in its span: the data ended, not the symptom (an engine that died slow).
 */
export function alertLifecycle(family: AlertFamily, t: ArrayLike<number>, holds: ArrayLike<boolean | null>, forWindows: number): Alert[] {
  const out: Alert[] = [];
  let streak = 0;
  let open: Alert | null = null;
  let lastHeld = -1;
  /** Time of the windows without data since the open alert last held. */
  let pending = 0;
  const width = (i: number) => (i + 1 < t.length ? t[i + 1] - t[i] : i > 0 ? t[i] - t[i - 1] : 0);
  for (let i = 0; i < holds.length; i++) {
    const h = holds[i];
    if (h === null) {
      if (open) pending += width(i);
      continue;
    }
    if (h) {
      streak++;
      lastHeld = i;
      if (open && pending > 0) open.unobserved_ms = (open.unobserved_ms ?? 0) + pending;
      pending = 0;
      if (!open && streak >= forWindows) {
        open = { family, first_fired_ms: t[i], resolved_ms: null };
        out.push(open);
      }
    } else {
      streak = 0;
      pending = 0;
      if (open) {
        open.resolved_ms = t[Math.min(i, lastHeld + 1)];
        open = null;
      }
    }
  }
  return out;
}

/** Consecutive windows a condition must hold before its alert fires: the configured `for` time over the grid's step. */
export const forWindows = (forMs: number, stepMs: number): number => Math.max(1, Math.ceil(forMs / stepMs));

export interface AlertInputs {
  t: ArrayLike<number>;
  /** A latency family's P99 is beyond its baseline band (latency-bands.ts) or its absolute SLO; null: no family measured. */
  latencyHigh: ArrayLike<boolean | null>;
  errFrac: ArrayLike<number>;
  throughputTerm: ArrayLike<number>;
  R: ArrayLike<number>;
}

export interface AlertThresholds {
  error_rate: number;
  theta_R: number;
  /** Consecutive windows a condition must hold: the configured `for` time over the grid's step. */
  for_windows: number;
}

export function evaluateAlerts(x: AlertInputs, th: AlertThresholds): Alert[] {
  const n = x.t.length;
  const cond = (f: (i: number) => boolean | null) => Array.from({ length: n }, (_, i) => f(i));
  const alerts = [
    ...alertLifecycle('latency', x.t, cond((i) => x.latencyHigh[i]), th.for_windows),
    ...alertLifecycle('errors', x.t, cond((i) => x.errFrac[i] > th.error_rate), th.for_windows),
    ...alertLifecycle('throughput', x.t, cond((i) => x.throughputTerm[i] >= 0.5), th.for_windows),
    ...alertLifecycle('resources', x.t, cond((i) => x.R[i] >= th.theta_R), th.for_windows),
  ];
  return alerts.sort((a, b) => a.first_fired_ms - b.first_fired_ms);
}

/**
 * Alerts that overlap in time fold into one incident: the span from the first firing to the last
 * resolution of the group that contains `at` (or the earliest group). Null without alerts.
 */
export function foldAlerts(alerts: Alert[], endMs: number, at?: number): { start_ms: number; end_ms: number } | null {
  if (!alerts.length) return null;
  const groups: { start_ms: number; end_ms: number }[] = [];
  for (const a of [...alerts].sort((x, y) => x.first_fired_ms - y.first_fired_ms)) {
    const end = a.resolved_ms ?? endMs;
    const last = groups[groups.length - 1];
    if (last && a.first_fired_ms <= last.end_ms) last.end_ms = Math.max(last.end_ms, end);
    else groups.push({ start_ms: a.first_fired_ms, end_ms: end });
  }
  if (at === undefined) return groups[0];
  return groups.find((g) => at >= g.start_ms - 1 && at <= g.end_ms) ?? groups.find((g) => g.start_ms >= at) ?? groups[groups.length - 1];
}

/**
 * Symptom alerts that make an incident on their own: latency, errors or throughput (resources alone is
 * pressure, not harm) that were seen to hold at least `minMs` (their span less the windows without data inside
 * it) — near capacity a healthy engine queues for a minute at a traffic peak and recovers by itself. Earliest first.
 */
export function sustainedSymptoms(alerts: readonly Alert[], endMs: number, minMs: number): Alert[] {
  return alerts.filter((a) => a.family !== 'resources' && (a.resolved_ms ?? endMs) - a.first_fired_ms - (a.unobserved_ms ?? 0) >= minMs).sort((a, b) => a.first_fired_ms - b.first_fired_ms);
}
