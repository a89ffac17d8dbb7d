// Shared by every benchmark: one result row per measurement, printed as a `BENCH {json}` line that
// test/bench/run.ts collects. Each row carries a baseline measured in the same process run, so a
// ratio stays comparable on a noisy machine.
import { readFileSync } from 'node:fs';

export interface BenchRow {
  bench: string;
  case: string;
  value: number;
  unit: string;
  baseline?: string;
  baseline_value?: number;
  /** value ÷ baseline_value */
  ratio?: number;
  peak_rss_mb?: number;
  target?: string;
  /** Whether `value` meets `target` (when one is set). */
  met?: boolean;
}

export function emit(row: BenchRow): void {
  if (row.baseline_value !== undefined && row.ratio === undefined && row.baseline_value !== 0) row.ratio = row.value / row.baseline_value;
  if (row.peak_rss_mb === undefined) row.peak_rss_mb = peakRssMb();
  console.log(`BENCH ${JSON.stringify(row)}`);
}

/**
 * Peak RSS of this process image, for a benchmark's child process. Linux carries getrusage's maxRSS over
 * fork and exec, so a child of a large parent (the bench, after writing a 72 h incident or generating a
 * day-long bundle) would report the parent's size: VmHWM is this image's own high-water mark.
 */
export function ownPeakRssMb(): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    if (m) return Math.round(Number(m[1]) / 1024);
  } catch {
    /* not Linux: getrusage's */
  }
  return peakRssMb();
}

export function peakRssMb(): number {
  return Math.round(process.resourceUsage().maxRSS / 1024);
}

export async function time<T>(fn: () => Promise<T> | T): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
}

/** Sizes in bytes from QUADSCOPE_BENCH_SIZES ("100MB,1GB"); `small` for a quick run. */
export function benchSizes(defaults = '100MB'): number[] {
  const spec = process.env.QUADSCOPE_BENCH_SIZES ?? defaults;
  return spec.split(',').map((s) => {
    const m = /^(\d+(?:\.\d+)?)\s*(KB|MB|GB)?$/i.exec(s.trim());
    if (!m) throw new Error(`bad size ${s}`);
    const mult = { KB: 1e3, MB: 1e6, GB: 1e9 }[(m[2] ?? 'MB').toUpperCase() as 'KB' | 'MB' | 'GB'];
    return Math.round(Number(m[1]) * mult);
  });
}

export { rng } from '../helpers/rng';
