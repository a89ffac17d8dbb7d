// Engine restarts read off the metrics. Every Prometheus client library exports
// process_start_time_seconds; a new value in one series is a new process behind the same endpoint. A crash
// loop whose engine logs were never collected (a metrics-only bundle) shows here and nowhere else.
import { SIG } from '../../../common/names';
import type { Signals } from './signals-from-store';

/** One endpoint's restarts: when each new process started, ms, in order. */
export interface EndpointRestarts {
  labels: Record<string, string>;
  times: number[];
  /** The last scrape of the process each one replaced, ms: the outage began after it. */
  lastSeen: number[];
}

export function metricRestarts(sig: Signals): EndpointRestarts[] {
  const out: EndpointRestarts[] = [];
  for (const s of sig.series.get(SIG.processStart) ?? []) {
    const times: number[] = [];
    const lastSeen: number[] = [];
    let prev = NaN;
    let prevT = NaN;
    for (let i = 0; i < s.v.length; i++) {
      const v = s.v[i];
      if (!Number.isFinite(v)) continue;
      // More than a second later: the same process re-reads its start time with rounding, never a jump.
      if (Number.isFinite(prev) && v > prev + 1) {
        const started = v * 1000;
        // The start time itself where it falls between the two scrapes (it should); else the scrape that saw it.
        times.push(started > prevT && started <= s.t[i] ? started : s.t[i]);
        lastSeen.push(prevT);
      }
      prev = v;
      prevT = s.t[i];
    }
    if (times.length) out.push({ labels: s.labels, times, lastSeen });
  }
  return out;
}

/** Most of `times` inside any span of `windowMs`, and where that span starts and ends. */
export function densest(times: number[], windowMs: number): { count: number; from: number; to: number } {
  const t = [...times].sort((a, b) => a - b);
  let best = { count: 0, from: NaN, to: NaN };
  for (let i = 0, j = 0; i < t.length; i++) {
    while (t[i] - t[j] > windowMs) j++;
    if (i - j + 1 > best.count) best = { count: i - j + 1, from: t[j], to: t[i] };
  }
  return best;
}

/** The worst restart loop of any one endpoint (a rolling deploy restarts each replica once: no loop). */
export function worstRestartLoop(sig: Signals, windowMs: number): { count: number; from: number; to: number; labels: Record<string, string>; firstLastSeen: number } | null {
  let worst: { count: number; from: number; to: number; labels: Record<string, string>; firstLastSeen: number } | null = null;
  for (const e of metricRestarts(sig)) {
    const d = densest(e.times, windowMs);
    // The last scrape of the process the loop's first restart replaced: the first crash came after it.
    if (!worst || d.count > worst.count) worst = { ...d, labels: e.labels, firstLastSeen: e.lastSeen[e.times.indexOf(d.from)] ?? d.from };
  }
  return worst;
}
