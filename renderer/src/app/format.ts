// Text for numbers, sizes, durations and instants. Times are shown in UTC: an incident is read on a
// machine far from where it happened, and everyone on the call must see the same clock.
const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

export function formatBytes(n: number): string {
  if (!Number.isFinite(n)) return '—';
  let v = Math.abs(n);
  let i = 0;
  while (v >= 1024 && i < BYTE_UNITS.length - 1) {
    v /= 1024;
    i++;
  }
  return `${n < 0 ? '−' : ''}${v >= 100 || i === 0 ? v.toFixed(0) : v.toFixed(1)} ${BYTE_UNITS[i]}`;
}

export function formatNumber(n: number | null | undefined, digits = 3): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '—';
  const a = Math.abs(n);
  if (a >= 1e9) return `${Number((n / 1e9).toPrecision(digits))}G`;
  if (a >= 1e6) return `${Number((n / 1e6).toPrecision(digits))}M`;
  if (a >= 1e4) return `${Number((n / 1e3).toPrecision(digits))}k`;
  if (a !== 0 && a < 1e-3) return n.toExponential(2);
  return Number(n.toPrecision(digits)).toLocaleString('en-US');
}

export function formatValue(n: number | null | undefined, unit: string): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '—';
  if (unit === 'bytes') return formatBytes(n);
  if (unit === 'bytes/s') return `${formatBytes(n)}/s`;
  if (unit === 'ratio' || unit === 'fraction' || unit === '0..1') return `${(n * 100).toFixed(1)}%`;
  if (unit === 'seconds' || unit === 's') return formatDuration(n * 1000);
  return `${formatNumber(n)}${unit ? ` ${unit}` : ''}`;
}

export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return '—';
  const a = Math.abs(ms);
  if (a === 0) return '0';
  if (a < 1) return `${(ms * 1000).toFixed(0)} µs`;
  if (a < 1000) return `${ms.toFixed(a < 10 ? 1 : 0)} ms`;
  if (a < 60_000) return `${(ms / 1000).toFixed(a < 10_000 ? 2 : 1)} s`;
  if (a < 3_600_000) return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
  return `${Math.floor(ms / 3_600_000)} h ${Math.round((ms % 3_600_000) / 60_000)} min`;
}

/** "2026-03-04 12:34:56.789Z" */
export function formatTime(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—';
  return new Date(ms).toISOString().replace('T', ' ').replace(/\.000Z$/, 'Z');
}

/** Time of day only, for dense lists. */
export function formatClock(ms: number): string {
  return new Date(ms).toISOString().slice(11, 23);
}

export function formatPercent(x: number | null | undefined): string {
  return x === null || x === undefined || !Number.isFinite(x) ? '—' : `${Math.round(x * 100)}%`;
}

export function causeTitle(id: string): string {
  return id.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase()).replace(/\bkv\b/gi, 'KV').replace(/\bgpu\b/gi, 'GPU').replace(/\boom\b/gi, 'OOM').replace(/\btp\b/gi, 'TP').replace(/\bcpu\b/gi, 'CPU').replace(/\blora\b/gi, 'LoRA').replace(/\bcuda\b/gi, 'CUDA');
}
