// Wall-clock times of log lines. Many logs print local time without a year (vLLM "MM-DD HH:MM:SS",
// syslog "May 18 19:02:39"); the year and zone then come from, in order:
//   1. ctx.options.year / ctx.options.tzOffsetMinutes (the user said so);
//   2. the bundle's own time span (ctx.bundleEndMs: metrics and traces imported before the logs carry
//      absolute times), else the file's mtime: that instant's year, one year earlier when the date
//      would fall after it (a log written across New Year, or an old file copied late, still lands
//      before it). A checkout or copy resets mtimes, so the bundle's span comes first;
//   3. neither: the current year, with one warning per file, so a guessed year is never silent.
// The zone defaults to UTC (tzOffsetMinutes 0) when the user gave none: logs from containers mostly are.
import type { ImportContext } from './types';

const DAY_MS = 86_400_000;
const MONTHS: Record<string, number> = { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 };

export function monthNumber(name: string): number | undefined {
  return MONTHS[name.slice(0, 3).toLowerCase()];
}

export class LogClock {
  private readonly tzMs: number;
  private yearOf = NaN;
  private anchorYear = 0;
  private warned = false;

  constructor(private readonly ctx: ImportContext) {
    this.tzMs = (ctx.options.tzOffsetMinutes ?? 0) * 60_000;
  }

  /** A local wall-clock time with its year, as epoch ms. */
  local(year: number, month: number, day: number, h: number, m: number, s: number, ms = 0): number {
    return Date.UTC(year, month - 1, day, h, m, s, ms) - this.tzMs;
  }

  /** A local wall-clock time without a year, as epoch ms (year chosen by the rules above). */
  yearless(month: number, day: number, h: number, m: number, s: number, ms = 0, line?: number): number {
    const given = this.ctx.options.year;
    if (given !== undefined) return this.local(given, month, day, h, m, s, ms);
    const anchor = this.ctx.bundleEndMs;
    const mtime = anchor !== null && anchor !== undefined && Number.isFinite(anchor) ? anchor : this.ctx.mtimeMs;
    if (mtime !== null && Number.isFinite(mtime)) {
      // Asked once a line: the anchor's year is worked out once.
      if (mtime !== this.yearOf) {
        this.yearOf = mtime;
        this.anchorYear = new Date(mtime + this.tzMs).getUTCFullYear();
      }
      const year = this.anchorYear;
      const t = this.local(year, month, day, h, m, s, ms);
      // A day of slack: the mtime can trail the last line by clock skew or a late copy within a day.
      return t > mtime + DAY_MS ? this.local(year - 1, month, day, h, m, s, ms) : t;
    }
    if (!this.warned) {
      this.warned = true;
      this.ctx.warn('timestamps carry no year and the file has no modification time: assumed the current year (set the year in the import options)', line === undefined ? undefined : { line });
    }
    return this.local(new Date().getUTCFullYear(), month, day, h, m, s, ms);
  }

  /** When the file says nothing about time at all: its mtime, else now (warned once). */
  fallback(line?: number): number {
    const mtime = this.ctx.mtimeMs;
    if (mtime !== null && Number.isFinite(mtime)) return mtime;
    if (!this.warned) {
      this.warned = true;
      this.ctx.warn('no timestamps in the file and no modification time: used the import time', line === undefined ? undefined : { line });
    }
    return Date.now();
  }
}

/** RFC 3339 / ISO 8601 with a zone ("2026-05-12T08:01:39.331095044Z", "+02:00", "+0200"); NaN if not. */
export function parseIsoZoned(s: string): number {
  const m = /^(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d):(\d\d)(?:[.,](\d+))?(Z|[+-]\d\d:?\d\d)$/.exec(s);
  if (!m) return NaN;
  const ms = m[7] ? Number((m[7] + '00').slice(0, 3)) : 0;
  const t = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6], ms);
  if (m[8] === 'Z') return t;
  const sign = m[8][0] === '-' ? -1 : 1;
  const digits = m[8].slice(1).replace(':', '');
  return t - sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000;
}
