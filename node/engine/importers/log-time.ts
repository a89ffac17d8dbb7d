// Wall-clock times of log lines. Many logs print local time without a year (vLLM "MM-DD HH:MM:SS",
// syslog "May 18 19:02:39"); the year and zone then come from, in order:
//   1. ctx.options.year / ctx.options.tzOffsetMinutes (the user said so; the year is the one the log starts
//      in, and one that runs across New Year goes on in the next);
//   2. the bundle's own time span (ctx.bundleEndMs: metrics and traces imported before the logs carry
//      absolute times), else the file's mtime: that instant's year, one year earlier when the date
//      would fall after it (a log written across New Year, or an old file copied late, still lands
//      before it). A checkout or copy resets mtimes, so the bundle's span comes first;
//   3. neither: the current year, with one warning per file, so a guessed year is never silent.
// The zone defaults to UTC (tzOffsetMinutes 0) when the user gave none: logs from containers mostly are.
// Times of day without a date (SGLang `[04:40:55 TP0]`, `nvidia-smi dmon -o T`) take the date of the
// bundle's time, else the mtime (timeOfDay), and a file with no times at all takes its mtime (fallback):
// both always with one warning, as the time shown is then a guess.
import type { ImportContext } from './types';

const DAY_MS = 86_400_000;

/** The range of a JS Date (±100 M days around 1970): past it toISOString() throws "Invalid time value". */
const DATE_LIMIT_MS = 8.64e15;

/**
 * An instant given from outside the file (its mtime, the bundle's end) when it is one: a tar header's
 * base-256 mtime or a metrics file's 1e300 ms timestamp is not, and anchoring logs there would throw
 * in toISOString() or place every line at NaN.
 */
export function instantMs(t: number | null | undefined): number | null {
  return t !== null && t !== undefined && Number.isFinite(t) && Math.abs(t) <= DATE_LIMIT_MS ? t : null;
}

/** An instant as ISO text for messages; one out of Date's range as its ms (never throws). */
export function isoOf(t: number): string {
  return Number.isFinite(t) && Math.abs(t) <= DATE_LIMIT_MS ? new Date(t).toISOString() : `${t} ms`;
}
const MONTHS: Record<string, number> = { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 };

export function monthNumber(name: string): number | undefined {
  return MONTHS[name.slice(0, 3).toLowerCase()];
}

/** Days in a month of the Gregorian calendar. */
function daysIn(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/**
 * Whether a wall-clock reading names a real instant. Date.UTC rolls what is not one into another
 * (2024-02-31 → March 2, 25:00 → the next day), so a mangled or mistyped time would be placed silently
 * elsewhere; a leap second (:60) is allowed and lands on the next minute.
 */
export function validWallClock(year: number, month: number, day: number, h: number, m: number, s: number, ms = 0): boolean {
  return month >= 1 && month <= 12 && day >= 1 && day <= daysIn(year, month) && h >= 0 && h <= 23 && m >= 0 && m <= 59 && s >= 0 && s <= 60 && ms >= 0 && ms <= 999;
}

/** A reading as the log would have printed it, for messages. */
const wallText = (year: number, month: number, day: number, h: number, m: number, s: number): string =>
  `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')} ${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}`;

export class LogClock {
  private readonly tzMs: number;
  private yearOf = NaN;
  private anchorYear = 0;
  private warned = false;
  private warnedMtime = false;
  private warnedAnchor = false;
  private warnedInvalid = false;
  /** timeOfDay(): the epoch ms of the current day's local midnight, and the last time of day seen. */
  private dayStart = NaN;
  private lastTod = 0;
  /** yearless() with the user's year: the month of the line before, and the New Years passed since the first. */
  private lastMonth = 0;
  private yearsOn = 0;

  constructor(private readonly ctx: ImportContext) {
    this.tzMs = (ctx.options.tzOffsetMinutes ?? 0) * 60_000;
  }

  /**
   * A local wall-clock time with its year, as epoch ms; NaN (warned once a file, naming the first) where the
   * reading is no real time (validWallClock): each caller then treats the line as one without a time.
   */
  local(year: number, month: number, day: number, h: number, m: number, s: number, ms = 0, line?: number): number {
    if (validWallClock(year, month, day, h, m, s, ms)) return Date.UTC(year, month - 1, day, h, m, s, ms) - this.tzMs;
    if (!this.warnedInvalid) {
      this.warnedInvalid = true;
      this.ctx.warn(`no such date or time "${wallText(year, month, day, h, m, s)}": not read as a time (the first of any)`, line === undefined ? undefined : { line });
    }
    return NaN;
  }

  /** A local wall-clock time without a year, as epoch ms (year chosen by the rules above). */
  yearless(month: number, day: number, h: number, m: number, s: number, ms = 0, line?: number): number {
    const given = this.ctx.options.year;
    if (given !== undefined) {
      // The year the user gave is the one the log starts in: a log that runs across New Year (its month
      // falling back by more than half a year, December to January) goes on in the next one.
      if (month < this.lastMonth - 6) this.yearsOn++;
      this.lastMonth = month;
      return this.local(given + this.yearsOn, month, day, h, m, s, ms, line);
    }
    const mtime = instantMs(this.ctx.bundleEndMs) ?? instantMs(this.ctx.mtimeMs);
    if (mtime !== null) {
      // Asked once a line: the anchor's year is worked out once.
      if (mtime !== this.yearOf) {
        this.yearOf = mtime;
        this.anchorYear = new Date(mtime + this.tzMs).getUTCFullYear();
      }
      const year = this.anchorYear;
      // A day of slack: the mtime can trail the last line by clock skew or a late copy within a day. Feb 29
      // in a common anchor year is the year before's only when that one is a leap year (else no date, warned).
      const fits = validWallClock(year, month, day, h, m, s, ms) && Date.UTC(year, month - 1, day, h, m, s, ms) - this.tzMs <= mtime + DAY_MS;
      return this.local(fits ? year : year - 1, month, day, h, m, s, ms, line);
    }
    if (!this.warned) {
      this.warned = true;
      this.ctx.warn('timestamps carry no year and the file has no modification time: assumed the current year (set the year in the import options)', line === undefined ? undefined : { line });
    }
    return this.local(new Date().getUTCFullYear(), month, day, h, m, s, ms, line);
  }

  /**
   * When the file says nothing about time at all: its mtime, else now. Either is a guess, said once in
   * a warning naming what was used (`what`: what lacked a time, for the message).
   */
  fallback(line?: number, what = 'no timestamps in the file'): number {
    const mtime = instantMs(this.ctx.mtimeMs);
    const where = line === undefined ? undefined : { line };
    if (mtime !== null) {
      if (!this.warnedMtime) {
        this.warnedMtime = true;
        this.ctx.warn(`${what}: used the file's modification time (${isoOf(mtime)})`, where);
      }
      return mtime;
    }
    if (!this.warned) {
      this.warned = true;
      this.ctx.warn(`${what} and no modification time: used the import time`, where);
    }
    return Date.now();
  }

  /**
   * The instant a file without dates is placed at: the bundle's own time (ctx.bundleEndMs), else the
   * file's mtime, else now — or the mtime first (`prefer`), for output whose mtime is when it was printed
   * (`kubectl get events > file`: its ages count back from then). Always a guess: warned once with `what`
   * (what lacked a date).
   */
  anchor(what: string, line?: number, prefer: 'bundle' | 'mtime' = 'bundle'): number {
    const b = instantMs(this.ctx.bundleEndMs);
    const mtime = instantMs(this.ctx.mtimeMs);
    const where = line === undefined ? undefined : { line };
    let t: number;
    let from: string;
    if (b !== null && (prefer === 'bundle' || mtime === null)) {
      t = b;
      from = "the end of the bundle's other sources";
    } else if (mtime !== null) {
      t = mtime;
      from = "the file's modification time";
    } else {
      t = Date.now();
      from = 'the import time (no modification time)';
    }
    if (!this.warnedAnchor) {
      this.warnedAnchor = true;
      this.ctx.warn(`${what}: placed at ${from}, ${isoOf(t)}`, where);
    }
    return t;
  }

  /**
   * A local time of day without a date (`[04:40:55 TP0]`, `dmon -o T`), as epoch ms. The date is the
   * anchor's (see anchor(); the day before when the first time of day falls after the anchor's), and
   * moves a day forward each time the clock goes back by more than an hour (midnight passed).
   */
  timeOfDay(h: number, m: number, s: number, ms = 0, line?: number): number {
    const tod = ((h * 60 + m) * 60 + s) * 1000 + ms;
    if (Number.isNaN(this.dayStart)) {
      const anchor = this.anchor('times of day without a date', line);
      const local = anchor + this.tzMs;
      this.dayStart = local - (((local % DAY_MS) + DAY_MS) % DAY_MS) - this.tzMs;
      if (this.dayStart + tod > anchor + 60_000) this.dayStart -= DAY_MS;
    } else if (tod < this.lastTod - 3_600_000) this.dayStart += DAY_MS;
    this.lastTod = tod;
    return this.dayStart + tod;
  }
}

/** RFC 3339 / ISO 8601 with a zone ("2026-05-12T08:01:39.331095044Z", "+02:00", "+0200"); NaN if not. */
export function parseIsoZoned(s: string): number {
  const m = /^(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d):(\d\d)(?:[.,](\d+))?(Z|[+-]\d\d:?\d\d)$/.exec(s);
  if (!m) return NaN;
  const ms = m[7] ? Number((m[7] + '00').slice(0, 3)) : 0;
  if (!validWallClock(+m[1], +m[2], +m[3], +m[4], +m[5], +m[6])) return NaN;
  const t = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6], ms);
  if (m[8] === 'Z') return t;
  const sign = m[8][0] === '-' ? -1 : 1;
  const digits = m[8].slice(1).replace(':', '');
  return t - sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000;
}
