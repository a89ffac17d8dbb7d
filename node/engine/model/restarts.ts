// Engine restarts read off the metrics. Every Prometheus client library exports
// process_start_time_seconds; a new value in one series is a new process behind the same endpoint. A crash
// loop whose engine logs were never collected (a metrics-only bundle) shows here and nowhere else. Where the
// scrape kept no process_start_time_seconds (a job that keeps only the engine's own families), the engine's
// counters tell the same: only a new process sets them back.
import { SIG } from '../../../common/names';
import { counterResetsOf } from './series-buckets';
import type { Signals } from './signals-from-store';

/** One endpoint's restarts: when each new process started, ms, in order. */
export interface EndpointRestarts {
  labels: Record<string, string>;
  times: number[];
  /** The last scrape of the process each one replaced, ms: the outage began after it. */
  lastSeen: number[];
}

export function metricRestarts(sig: Signals): EndpointRestarts[] {
  let out = memo.get(sig);
  if (!out) {
    const started = startTimeRestarts(sig);
    memo.set(sig, (out = [...started, ...counterRestarts(sig, started.flatMap((r) => r.times))]));
  }
  return out;
}

/** Rules ask for the restarts again and again; the series do not change under them. */
const memo = new WeakMap<Signals, EndpointRestarts[]>();

/** The engine counters a restart sets back, the first the bundle has: tokens out, requests finished, tokens in. */
const RESET_COUNTERS = [SIG.tokensGeneration, SIG.reqFinished, SIG.tokensPrompt];

/** A reading below this share of the one before is a counter set back (not a float printed shorter). */
const RESET_SHARE = 0.9;

/** How near a process_start_time_seconds restart a counter's reset is the same restart. */
const SAME_RESTART_MS = 120_000;

/**
 * Restarts from the engine's counters: a reading well below the one before is a new process (one series per
 * endpoint and label set; an endpoint's series of one counter reset together and count once). Those within
 * SAME_RESTART_MS of a restart process_start_time_seconds saw are that restart.
 */
function counterRestarts(sig: Signals, seen: number[]): EndpointRestarts[] {
  const name = RESET_COUNTERS.find((n) => sig.series.get(n)?.length);
  if (!name) return [];
  const by = new Map<string, EndpointRestarts>();
  for (const s of sig.series.get(name)!) {
    const times: number[] = [];
    const lastSeen: number[] = [];
    for (const r of counterResetsOf(s))
      if (r.share < RESET_SHARE && !seen.some((x) => Math.abs(x - r.t) <= SAME_RESTART_MS)) {
        times.push(r.t);
        lastSeen.push(r.last);
      }
    if (!times.length) continue;
    const key = endpointKey(s.labels);
    const e = by.get(key);
    if (!e) {
      by.set(key, { labels: s.labels, times, lastSeen });
      continue;
    }
    for (const [k, t] of times.entries())
      if (!e.times.includes(t)) {
        e.times.push(t);
        e.lastSeen.push(lastSeen[k]);
      }
  }
  for (const e of by.values()) {
    const order = e.times.map((_, k) => k).sort((a, b) => e.times[a] - e.times[b]);
    e.times = order.map((k) => e.times[k]);
    e.lastSeen = order.map((k) => e.lastSeen[k]);
  }
  return [...by.values()];
}

/** What names the process behind a series: its scrape target and pod, not the counter's own labels. */
const endpointKey = (l: Record<string, string>) => JSON.stringify([l.instance ?? '', l.pod ?? '', l.host ?? '', l.piece ?? '']);

function startTimeRestarts(sig: Signals): EndpointRestarts[] {
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
