// Report-only text: compact axis numbers for the SVG charts. Everything else a report prints (times,
// durations, bytes, percentages, condition values) comes from common/format.ts, as in the workstation.

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
