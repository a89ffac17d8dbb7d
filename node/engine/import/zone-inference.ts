// The zone of a file's wall-clock times, worked out from the bundle when the user gave none.
//
// nvidia-smi's `timestamp` column, `dmesg -T`, vLLM's own "MM-DD HH:MM:SS" and Grafana's CSV print the
// host's local time with no zone. Read as UTC (the default: containers mostly run in UTC), a file from a
// host in UTC+05:30 lands 5 h 30 min after the metrics: the GPU's data then outlive the engine's, and the
// engine reads as silent with requests in flight (a hang) for the hours the clocks disagree.
//
// A zone shifts every time of a file by the same whole number of quarter hours. When a file's first and
// last times each sit that same shift away from the first and last times of the bundle's sources that
// carry absolute times (epoch-stamped metrics, RFC 3339 logs, traces), the file was collected over the
// same stretch on a clock in that zone: both ends line up within ALIGN_MS. Anything less (a log that began
// at the engine's start, hours before the metrics; a snapshot at one instant) says nothing and changes
// nothing: the file stays in UTC as before. What the rule cannot tell apart: a file exactly as long as the
// absolute sources, from a stretch displaced by whole quarter hours; it is read as another zone, and the
// warning names the zone and the shift so the user can give the right one.

/** Both ends of the file must meet the bundle's within this (a collector and nvidia-smi -l started by hand). */
const ALIGN_MS = 5 * 60_000;
/** Zone offsets are whole quarter hours (Nepal's +05:45, India's +05:30, Chatham's +12:45). */
const QUARTER_HOUR_MS = 15 * 60_000;
/** The zones in use run from UTC−12:00 to UTC+14:00. */
const MIN_OFFSET_MS = -12 * 3_600_000;
const MAX_OFFSET_MS = 14 * 3_600_000;
/** A file shorter than this has no two ends to line up (one snapshot, a few seconds of lines). */
const MIN_SPAN_MS = 10 * 60_000;

export interface TimeRange {
  start_ms: number;
  end_ms: number;
}

/**
 * The zone (minutes east of UTC) the file's times were printed in, given its range as read in UTC and the
 * range of the bundle's sources with absolute times; null when the ends do not both line up at one
 * non-zero quarter-hour shift.
 */
export function inferZoneMinutes(file: TimeRange, absolute: TimeRange): number | null {
  if (![file.start_ms, file.end_ms, absolute.start_ms, absolute.end_ms].every(Number.isFinite)) return null;
  if (file.end_ms - file.start_ms < MIN_SPAN_MS || absolute.end_ms - absolute.start_ms < MIN_SPAN_MS) return null;
  // Read as UTC, a local time is the instant plus the zone: each end is displaced by the zone.
  const d0 = file.start_ms - absolute.start_ms;
  const d1 = file.end_ms - absolute.end_ms;
  const offset = Math.round((d0 + d1) / 2 / QUARTER_HOUR_MS) * QUARTER_HOUR_MS;
  if (offset === 0 || offset < MIN_OFFSET_MS || offset > MAX_OFFSET_MS) return null;
  if (Math.abs(d0 - offset) > ALIGN_MS || Math.abs(d1 - offset) > ALIGN_MS) return null;
  return offset / 60_000;
}

/** How long a file's range, as read, lies within the bundle's absolute times. */
const overlapMs = (file: TimeRange, absolute: TimeRange) => Math.max(0, Math.min(file.end_ms, absolute.end_ms) - Math.max(file.start_ms, absolute.start_ms));
/** Whether a file's last time meets the bundle's last absolute time (both collected at once). */
const endMeets = (file: TimeRange, absolute: TimeRange) => Math.abs(file.end_ms - absolute.end_ms) <= ALIGN_MS;
const inside = (ms: number, absolute: TimeRange) => ms >= absolute.start_ms && ms <= absolute.end_ms;

/**
 * The first of `candidates` (minutes east of UTC: a zone the bundle states, or one another of its files was
 * found in) under which a file's times sit better within the bundle's absolute times than read as UTC: they
 * overlap them by more (by ALIGN_MS and a tenth of the file at least), or as much with the file's end now meeting
 * theirs; null where the UTC reading's end already meets theirs (an engine in a container logs in UTC whatever
 * its host's zone) or no candidate places it better. A log begun at the engine's start, 40 minutes before the
 * metrics, has no start to line up (inferZoneMinutes): read as UTC on a host in UTC+08:00 it began and ended
 * 8 h after them, and a day's log on a host in UTC−07:00 ended 7 h before them.
 */
export function zoneFromCandidates(file: TimeRange, absolute: TimeRange, candidates: Iterable<number>): number | null {
  if (![file.start_ms, file.end_ms, absolute.start_ms, absolute.end_ms].every(Number.isFinite) || endMeets(file, absolute)) return null;
  const len = file.end_ms - file.start_ms;
  const asRead = overlapMs(file, absolute);
  for (const minutes of candidates) {
    if (minutes === 0) continue;
    const shift = minutes * 60_000;
    const moved = { start_ms: file.start_ms - shift, end_ms: file.end_ms - shift };
    // One instant (or a few seconds of lines): placed where it falls inside and did not.
    if (len < ALIGN_MS) {
      if (inside(moved.end_ms, absolute) && !inside(file.end_ms, absolute)) return minutes;
      continue;
    }
    const gain = overlapMs(moved, absolute) - asRead;
    if (gain >= Math.max(ALIGN_MS, 0.1 * len) || (gain >= 0 && endMeets(moved, absolute) && overlapMs(moved, absolute) > 0)) return minutes;
  }
  return null;
}

/** "UTC+05:30", "UTC−07:00". */
export function zoneText(minutes: number): string {
  const sign = minutes < 0 ? '−' : '+';
  const m = Math.abs(minutes);
  return `UTC${sign}${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
}
