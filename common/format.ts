// Text for numbers, sizes, durations and instants, shared by the workstation and the report so a value
// reads the same in both. Deterministic: no locale, no time zone (times are UTC: an incident is read on
// a machine far from where it happened, and everyone on the call must see the same clock). Nothing
// here ever prints "∞", "NaN" or "1e+308": a value that is not a measurement reads "—".

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** Beyond this a number is a sentinel (an unbounded ratio, a max-double), not a measurement. */
const ABSURD = 1e15;

export const isMeasured = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && Math.abs(v) < ABSURD;

const trimZeros = (s: string) => (s.includes('.') ? s.replace(/\.?0+$/, '') : s);

/** Three significant figures, at most; "12.5", "125", "1.25". */
function sig3(v: number): string {
  const a = Math.abs(v);
  return a >= 100 ? v.toFixed(0) : a >= 10 ? v.toFixed(1) : v.toFixed(2);
}

/** Thousands grouped with commas, whatever the machine's locale. */
export function groupDigits(n: number): string {
  if (!isMeasured(n)) return '—';
  const neg = n < 0 ? '−' : '';
  const [int, frac] = Math.abs(n).toString().split('.');
  return `${neg}${int.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${frac ? `.${frac}` : ''}`;
}

const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

/** Binary units, three significant figures: 1536 → "1.50 KiB", 80 GiB → "80.0 GiB". */
export function formatBytes(n: number | null | undefined): string {
  if (!isMeasured(n)) return '—';
  let v = Math.abs(n);
  let i = 0;
  while (v >= 1024 && i < BYTE_UNITS.length - 1) {
    v /= 1024;
    i++;
  }
  // 1023.9 KiB rounds to "1024 KiB": say "1.00 MiB" instead.
  if (i > 0 && i < BYTE_UNITS.length - 1 && Number(sig3(v)) >= 1024) {
    v /= 1024;
    i++;
  }
  return `${n < 0 ? '−' : ''}${i === 0 ? Math.round(v) : sig3(v)} ${BYTE_UNITS[i]}`;
}

/**
 * "250 ms", "4.25 s", "4 min 5 s", "1 h 2 min", "2 d 3 h". The value is rounded to the shown unit before
 * it is split, so 119.6 s reads "2 min 0 s", never "1 min 60 s". `compact` is for axis ticks: "4m5s".
 */
export function formatDuration(ms: number | null | undefined, opts: { compact?: boolean } = {}): string {
  if (!isMeasured(ms)) return '—';
  const sp = opts.compact ? '' : ' ';
  const neg = ms < 0 ? '−' : '';
  const a = Math.abs(ms);
  if (a === 0) return `0${sp}s`;
  if (a < 1) return `${neg}${Math.round(a * 1000)}${sp}µs`;
  if (a < 999.5) return `${neg}${trimZeros(a < 10 ? a.toFixed(1) : a.toFixed(0))}${sp}ms`;
  if (a < 59_950) return `${neg}${trimZeros((a / 1000).toFixed(a < 9_995 ? 2 : 1))}${sp}s`;
  const join = (big: number, bigUnit: string, small: number, smallUnit: string) =>
    opts.compact ? `${neg}${big}${bigUnit}${small ? `${small}${smallUnit}` : ''}` : `${neg}${big} ${bigUnit} ${small} ${smallUnit}`;
  const s = Math.round(a / 1000);
  if (s < 3600) return join(Math.floor(s / 60), opts.compact ? 'm' : 'min', s % 60, 's');
  const m = Math.round(a / 60_000);
  if (m < 24 * 60) return join(Math.floor(m / 60), 'h', m % 60, opts.compact ? 'm' : 'min');
  const h = Math.round(a / 3_600_000);
  return join(Math.floor(h / 24), 'd', h % 24, 'h');
}

/** "2026-03-14 09:14:22 UTC"; milliseconds only where the time has them. */
export function formatTime(ms: number | null | undefined): string {
  if (!isMeasured(ms)) return '—';
  const d = new Date(Math.round(ms));
  const frac = d.getUTCMilliseconds();
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${clock(d)}${frac ? `.${pad(frac, 3)}` : ''} UTC`;
}

/** "2026-03-14 09:00–09:25 UTC" (one day) or "2026-03-14 23:50 – 2026-03-15 00:20 UTC": a span to the minute. */
export function formatMinuteSpan(startMs: number, endMs: number): string {
  if (!isMeasured(startMs) || !isMeasured(endMs)) return '—';
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const hm = (ms: number) => new Date(ms).toISOString().slice(11, 16);
  return day(startMs) === day(endMs) ? `${day(startMs)} ${hm(startMs)}–${hm(endMs)} UTC` : `${day(startMs)} ${hm(startMs)} – ${day(endMs)} ${hm(endMs)} UTC`;
}

/** "09:14:22" (UTC), for dense lists and axes; `millis` adds ".123". */
export function formatClock(ms: number | null | undefined, millis = false): string {
  if (!isMeasured(ms)) return '—';
  const d = new Date(Math.round(ms));
  return millis ? `${clock(d)}.${pad(d.getUTCMilliseconds(), 3)}` : clock(d);
}

function clock(d: Date): string {
  return `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

/** An instant with its offset from the incident start: "2026-03-14 09:14:22 UTC (T+4 min 5 s)". */
export function formatTimeAt(ms: number | null | undefined, originMs: number): string {
  if (!isMeasured(ms)) return '—';
  const off = ms - originMs;
  return `${formatTime(ms)} (T${off < 0 ? '' : '+'}${formatDuration(off)})`;
}

/** Compact numbers: 950, 12.5k, 3.4M; tiny ones in exponent form (2.50e-4); "—" for non-measurements. */
export function formatNumber(n: number | null | undefined, digits = 3): string {
  if (!isMeasured(n)) return '—';
  // Rounded before the unit is chosen, so 999,999 reads "1M", never "1,000k".
  const r = Number(n.toPrecision(digits));
  const a = Math.abs(r);
  const p = (x: number) => groupDigits(Number(x.toPrecision(digits)));
  if (a >= 1e12) return `${p(r / 1e12)}T`;
  if (a >= 1e9) return `${p(r / 1e9)}G`;
  if (a >= 1e6) return `${p(r / 1e6)}M`;
  if (a >= 1e4) return `${p(r / 1e3)}k`;
  if (a !== 0 && a < 1e-3) return n.toExponential(2);
  return p(r);
}

/** A fraction as a percentage: 0.873 → "87%" (`digits` decimals). */
export function formatPercent(x: number | null | undefined, digits = 0): string {
  return isMeasured(x) ? `${(x * 100).toFixed(digits)}%` : '—';
}

/** A ratio against a baseline: "×2.3"; a ratio over a zero baseline (∞) reads "— (baseline 0)". */
export function formatRatio(x: number | null | undefined): string {
  if (typeof x === 'number' && (x === Infinity || x >= ABSURD)) return '— (baseline 0)';
  return isMeasured(x) ? `×${trimZeros(x.toFixed(Math.abs(x) >= 10 ? 0 : 2))}` : '—';
}

/** A value of a series in its unit (the units the importers write). */
export function formatValue(n: number | null | undefined, unit: string): string {
  if (!isMeasured(n)) return '—';
  switch (unit) {
    case 'bytes':
      return formatBytes(n);
    case 'bytes/s':
      return `${formatBytes(n)}/s`;
    case 'ratio':
    case 'fraction':
    case '0..1':
      return formatPercent(n, 1);
    case 'seconds':
    case 's':
      return formatDuration(n * 1000);
    case 'ms':
      return formatDuration(n);
    default:
      return `${formatNumber(n)}${unit ? ` ${unit}` : ''}`;
  }
}

/**
 * Axis tick labels, for the workstation's charts and the report's alike: short (the unit is named beside
 * the chart) and one unit for the whole axis. Durations compact ("250ms", "4m5s"), bytes in one binary
 * unit with the decimals the step needs, fractions as percentages, anything else as a compact number.
 */
export function formatTicks(splits: readonly number[], unit: string): string[] {
  if (unit === 'seconds' || unit === 's') return splits.map((v) => formatDuration(v * 1000, { compact: true }));
  if (unit === 'ms') return splits.map((v) => formatDuration(v, { compact: true }));
  if (unit === 'bytes') return bytesTicks(splits);
  if (unit === 'fraction' || unit === 'ratio' || unit === '0..1') return splits.map((v) => formatPercent(v, 1));
  return splits.map((v) => formatNumber(v));
}

/** One binary unit for the whole axis, with the decimals its tick step needs ("71.80 GiB", "71.85 GiB"). */
export function bytesTicks(splits: readonly number[]): string[] {
  const max = Math.max(1, ...splits.filter(isMeasured).map(Math.abs));
  const k = Math.min(BYTE_UNITS.length - 1, Math.floor(Math.log2(max) / 10));
  const scale = 1024 ** k;
  const step = splits.length > 1 ? Math.abs(splits[1] - splits[0]) / scale : 1;
  // Enough decimals that neighbouring ticks differ: a 2.5 GiB step needs one ("2.5 GiB", not "3 GiB").
  let digits = Math.max(0, Math.min(3, Math.ceil(-Math.log10(step || 1))));
  while (digits < 3 && Math.abs(step * 10 ** digits - Math.round(step * 10 ** digits)) > 1e-6) digits++;
  return splits.map((v) => (isMeasured(v) ? `${(v / scale).toFixed(digits)} ${BYTE_UNITS[k]}` : '—'));
}

/** Times the model writes as condition values (epoch ms between 2001 and 2100). */
const looksLikeEpochMs = (v: number) => v >= 1e12 && v < 4.1e12;

/**
 * A condition's measured value or threshold as the diagnosis gave it, made readable: bytes where the
 * condition speaks of bytes, instants where the value is an epoch time, yes/no for tests, and any
 * "Infinity" or 1e+308 the model wrote in its own text replaced.
 */
export function formatConditionValue(v: number | string | boolean | null | undefined, condition = ''): string {
  if (v === null || v === undefined) return 'no data';
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (typeof v === 'string') return cleanText(v);
  if (!isMeasured(v)) return v === Infinity || v >= ABSURD ? 'unbounded (baseline 0)' : '—';
  if (looksLikeEpochMs(v)) return formatTime(v);
  if (/GiB|MiB|bytes|\bB\b/.test(condition) && Math.abs(v) >= 1024) return formatBytes(v);
  if (Number.isInteger(v)) return groupDigits(v);
  return trimZeros(Number(v.toPrecision(3)).toString());
}

/** Text from the model or a log with the non-measurements it may carry made readable. */
export function cleanText(s: string): string {
  return s
    .replace(/×\s*(?:Infinity|∞)/g, '× — (baseline 0)')
    .replace(/-?(?:Infinity|∞)/g, '—')
    .replace(/\bNaN\b/g, '—')
    .replace(/-?\d+(?:\.\d+)?e\+(\d+)/gi, (m, exp: string) => (Number(exp) >= 15 ? '—' : m));
}
