// A range query answers every step with the newest sample at most the lookback old (Prometheus'
// `--query.lookback-delta`, 5 minutes by default). A target that goes away with a staleness marker (Prometheus
// writes one when a scrape fails or the target leaves discovery) ends at its last scrape; one that goes away
// without (a store fed by remote write or federation that dropped the marker, Prometheus itself restarted,
// VictoriaMetrics' staleness interval) goes on for up to the lookback as its last scrape, repeated: every one
// of its series frozen, then gone before the answer ends. Read as samples, those repeats are a process with
// requests in flight that produces nothing for five minutes — an engine hang — where the process had simply
// stopped (a rollout, a crash).
//
// The tail is recognised per target, never per series: all of a target's series froze at one step (the latest
// step where any of them still changed), stay frozen to its end, the end comes before the answer's, and the
// frozen stretch is the lookback's own length — the first step at or after the last scrape to the last step
// within the lookback of it: more than the lookback less two steps, no more than the lookback. What follows that
// step is then no reading at all, and is not written (the import warns, naming the targets). A target that went
// on changing, or that froze for some other length (a hung engine's frozen readings, then scrapes that time out
// and are marked stale) is kept whole: there a frozen reading may be real. So is one frozen to the answer's end —
// unless a successor of its job began reporting within two steps of the freeze: a rollout's replacement taking
// over where the old pod's last scrape is still being repeated (a hung engine's successor comes minutes later,
// once a probe or an autoscaler has acted).

/** Prometheus' default `--query.lookback-delta`. */
export const LOOKBACK_MS = 300_000;

export interface TailSeries {
  /** Its labels (the target it came from is `targetKey` of them). */
  labels: Record<string, string>;
  /** Its times (ms, ascending) and a key per value (two equal keys are one reading repeated). */
  times: number[];
  values: string[];
}

/** A target's identity among an answer's series: its `instance` (and `job`) where it has one, else its labels but `le`. */
export function targetKey(labels: Record<string, string>): string {
  if (labels.instance !== undefined) return `instance=${labels.instance}\u0000job=${labels.job ?? ''}`;
  return Object.keys(labels)
    .filter((k) => k !== 'le')
    .sort()
    .map((k) => `${k}=${labels[k]}`)
    .join('\u0000');
}

/** One target's series seen together: where they began and ended, the step from which all stayed frozen. */
interface Target {
  first: number;
  end: number;
  frozenFrom: number;
  repeats: boolean;
  unordered: boolean;
  step: number;
  job: string | null;
}

/** The job whose targets may succeed this one: its `job` where the target is an `instance`, else none. */
const jobOf = (labels: Record<string, string>): string | null => (labels.instance !== undefined ? (labels.job ?? '') : null);

/**
 * For each target whose last readings are the lookback's repeats, the time of its last real reading (points
 * after it are repeats): target key → cut time (ms). `answerEnd`: the answer's last step over all its series.
 */
export function lookbackCuts(series: TailSeries[], answerEnd: number, lookbackMs = LOOKBACK_MS): Map<string, number> {
  const groups = new Map<string, Target>();
  for (const s of series) {
    const n = s.times.length;
    if (!n) continue;
    let k = n - 1;
    while (k > 0 && s.values[k - 1] === s.values[n - 1]) k--;
    // An answer's steps ascend; a series whose do not was edited by hand, and its end says nothing.
    const unordered = s.times.some((t, i) => i > 0 && !(t > s.times[i - 1]));
    // The answer's step: the spacing of its points (a range query's are evenly spaced).
    const step = n > 1 ? s.times[n - 1] - s.times[n - 2] : Infinity;
    const key = targetKey(s.labels);
    const g = groups.get(key);
    const end = s.times[n - 1];
    if (!g) groups.set(key, { first: s.times[0], end, frozenFrom: s.times[k], repeats: k < n - 1, unordered, step, job: jobOf(s.labels) });
    else {
      g.first = Math.min(g.first, s.times[0]);
      g.end = Math.max(g.end, end);
      g.frozenFrom = Math.max(g.frozenFrom, s.times[k]);
      g.repeats ||= k < n - 1;
      g.unordered ||= unordered;
      g.step = Math.min(g.step, step);
    }
  }
  // Each job's targets by when they began reporting, for the successor test (once, not once a target).
  const byJob = new Map<string, Target[]>();
  for (const g of groups.values()) if (g.job !== null) (byJob.get(g.job) ?? byJob.set(g.job, []).get(g.job)!).push(g);
  const cuts = new Map<string, number>();
  for (const [key, g] of groups) {
    if (g.unordered || !g.repeats || g.frozenFrom >= g.end) continue;
    const frozen = g.end - g.frozenFrom;
    if (g.end >= answerEnd) {
      const successor = g.job !== null && byJob.get(g.job)!.some((o) => o !== g && Math.abs(o.first - g.frozenFrom) <= 2 * g.step);
      if (!successor || frozen > lookbackMs) continue;
    } else if (frozen > lookbackMs || frozen <= lookbackMs - 2 * g.step) continue;
    cuts.set(key, g.frozenFrom);
  }
  return cuts;
}
