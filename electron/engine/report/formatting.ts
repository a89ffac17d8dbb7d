// Deterministic text for values in reports: UTC times, fixed precision, no locale. Two runs over the
// same data must give byte-identical documents, so nothing here reads the machine's locale or zone.

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** "2025-03-01 12:04:05 UTC"; milliseconds are shown only where the time has them. */
export function fmtTime(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—';
  const d = new Date(Math.round(ms));
  const frac = d.getUTCMilliseconds();
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${clock(d)}${frac ? `.${pad(frac, 3)}` : ''} UTC`;
}

/** "12:04:05" (UTC), for axes and dense tables. */
export function fmtClock(ms: number): string {
  return clock(new Date(Math.round(ms)));
}

function clock(d: Date): string {
  return `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

/** "1h02m05s", "4m05s", "12.5s", "250ms". */
export function fmtDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—';
  const neg = ms < 0 ? '−' : '';
  const a = Math.abs(ms);
  if (a < 1000) return `${neg}${Math.round(a)}ms`;
  if (a < 60_000) return `${neg}${(a / 1000).toFixed(a < 10_000 ? 2 : 1)}s`;
  const s = Math.round(a / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  return h ? `${neg}${h}h${pad(m)}m${pad(sec)}s` : `${neg}${m}m${pad(sec)}s`;
}

/** A time with its offset from the incident start: "12:04:05 UTC (T+4m05s)". */
export function fmtAt(ms: number | null | undefined, originMs: number): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—';
  const off = ms - originMs;
  return `${fmtTime(ms)} (T${off < 0 ? '' : '+'}${fmtDuration(off)})`;
}

/** Fixed precision by magnitude: integers as they are, small values with three decimals. */
export function fmtNum(v: number): string {
  if (!Number.isFinite(v)) return Number.isNaN(v) ? 'NaN' : v > 0 ? '∞' : '−∞';
  if (Number.isInteger(v)) return String(v);
  const a = Math.abs(v);
  return v.toFixed(a >= 1000 ? 0 : a >= 100 ? 1 : a >= 1 ? 2 : 3);
}

/** Compact axis numbers: 950, 1.2k, 3.4M. */
export function fmtSi(v: number): string {
  const a = Math.abs(v);
  if (a >= 1e9) return `${trim((v / 1e9).toFixed(1))}G`;
  if (a >= 1e6) return `${trim((v / 1e6).toFixed(1))}M`;
  if (a >= 1e4) return `${trim((v / 1e3).toFixed(0))}k`;
  if (a >= 1e3) return `${trim((v / 1e3).toFixed(1))}k`;
  if (a >= 10 || Number.isInteger(v)) return trim(v.toFixed(0));
  return trim(v.toFixed(a >= 1 ? 1 : 2));
}

const trim = (s: string) => (s.includes('.') ? s.replace(/\.?0+$/, '') : s);

const GIB = 2 ** 30;
const MIB = 2 ** 20;

export function fmtBytes(b: number): string {
  const a = Math.abs(b);
  if (a >= GIB) return `${(b / GIB).toFixed(2)} GiB`;
  if (a >= MIB) return `${(b / MIB).toFixed(1)} MiB`;
  if (a >= 1024) return `${(b / 1024).toFixed(1)} KiB`;
  return `${Math.round(b)} B`;
}

export function fmtPct(fraction: number, digits = 1): string {
  return Number.isFinite(fraction) ? `${(fraction * 100).toFixed(digits)}%` : '—';
}

/** A condition's measured value as the diagnosis gave it. */
export function fmtValue(v: number | string | boolean | null): string {
  if (v === null) return '—';
  if (typeof v === 'number') return fmtNum(v);
  return String(v);
}
