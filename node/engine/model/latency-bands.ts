// Each latency family's normal band, from the baseline: a window's P99 is a rise only beyond the
// baseline median by the most of the preset's absolute θℓ, `noise_z` robust spreads of the baseline's
// own windows, and a relative floor. Measured on realistic traffic, e2e P99 of a 10–30 s window swings
// by seconds when nothing is wrong (θℓ = 150 ms alone kept the latency alert on 84–100% of healthy
// incidents), and a single slow request in a low queue bucket moves queue P95 by 0.3 s. All four
// families are read — a long-prompt or prefix-cache incident shows in TTFT while e2e P99 (dominated
// by output length) hardly moves, a decode slowdown in ITL.
import { mad, median } from './baseline';
import { changePoint } from './change-point';
import type { ModelConfig, TriggerThresholds } from './config';
import type { Frame } from './frame';
import type { Range } from './causes/context';
import { SIG, type SignalName } from '../../../common/names';

export type LatencyFamily = 'e2e' | 'ttft' | 'itl' | 'itl_mean' | 'queue';

export interface LatencyBand {
  family: LatencyFamily;
  signal: SignalName;
  /** The per-window P99 it reads, seconds. */
  x: Float64Array;
  baseline_s: number;
  sigma_s: number;
  /** The whole span's own floor (median + z robust spreads), seconds; -Infinity where it is dropped. */
  floor_s: number;
  /** A window above this is a rise, seconds. */
  threshold_s: number;
  /** An absolute SLO that also counts (TTFT P99 > alerts.latency_p99_ms), where the baseline sat well below it. */
  slo_s: number | null;
  /**
   * Whether window i's rise stands: where too few requests lie beyond its P99 to back it (TAIL_BACKING), the
   * family's exact mean must be beyond its own band too; null where the P99 stands alone (no mean exported).
   */
  backed: ((i: number) => boolean) | null;
}

/**
 * Requests beyond a P99 that carry it by themselves. With fewer, the P99 is the slowest request or two: at
 * 1 request/s a two-minute window's TTFT P99 went 0.9 → 2.3 s on one slow request with the mean +12%, and at
 * 2.7/s an e2e P99 read between vLLM's 5 and 10 s buckets jumped ×1.5 with the mean +9% — hours of such
 * flickers read as incidents on healthy days.
 */
const TAIL_BACKING = 5;

/** Bands for the families the bundle measures; a family without baseline data has none. */
export function latencyBands(f: Frame, base: Range, cfg: ModelConfig, th: TriggerThresholds): LatencyBand[] {
  const fams: [LatencyFamily, SignalName, Float64Array, number][] = [
    // ITL is milliseconds per token: θℓ (a per-request figure) does not apply, the relative floor does.
    ['e2e', SIG.latE2e, f.e2e99, th.latency_ms / 1000],
    ['ttft', SIG.latTtft, f.ttft99, th.latency_ms / 1000],
    ['itl', SIG.latItl, f.itl99, 0],
    // The mean from the histogram's sum and count: vLLM's ITL buckets (10, 15, 20, 25, 30, 40, 50 ms …)
    // hold a healthy P99 and one 1.5× slower in the same bucket, so a decode slowdown on every request (a
    // straggling rank, a clock cut) moves the mean and leaves the interpolated P99 where it was.
    ['itl_mean', SIG.latItl, f.itlMean, 0],
    ['queue', SIG.latQueue, f.q99, th.latency_ms / 1000],
  ];
  const means: Partial<Record<LatencyFamily, Float64Array>> = { e2e: f.e2eMean, ttft: f.ttftMean, queue: f.queueMean };
  const rows = [];
  for (const [family, signal, x, abs] of fams) {
    const own = baselineBand(x, base, abs, cfg);
    if (!own) continue;
    // The family's exact mean, where exported (ITL's is a family of its own): a second measure of it.
    const meanX = family === 'itl' ? f.itlMean : means[family];
    const mb = meanX ? meanBand(meanX, base, cfg) : null;
    const stepped = steppedUp(x, base, own.top, f.grid.step);
    const meanStepped = meanX && mb ? steppedUp(meanX, base, mb.top, f.grid.step) : null;
    // Read over the span's later half: a mean that ramps (answers growing longer over twenty minutes, e2e P99
    // ×1.95 and its mean ×1.5 by the end) reaches its level late, its whole-span median still inside the band.
    const meanBeyond = meanX && mb ? median(meanX.subarray(Math.floor(meanX.length / 2))) > mb.top : null;
    rows.push({ family, signal, x, m: own.m, sigma: own.sigma, top: own.top, all: spanSpread(x), stepped, meanStepped, meanBeyond });
  }
  const dropped = degradedMajority(f, rows, cfg);
  const z = cfg.trigger_noise_z;
  const slo = cfg.alerts.latency_p99_ms / 1000;
  return rows.map((r) => {
    const floor = Number.isFinite(r.all.median) && Number.isFinite(r.all.sigma) && !dropped.has(r.family) ? r.all.median + z * r.all.sigma : -Infinity;
    return {
      family: r.family,
      signal: r.signal,
      x: r.x,
      baseline_s: r.m,
      sigma_s: r.sigma,
      floor_s: floor,
      threshold_s: Math.max(r.top, floor),
      slo_s: r.family === 'ttft' && r.m <= SLO_HEADROOM * slo ? slo : null,
      backed: r.family === 'itl' ? tailBacking(f.itl98, base, cfg) : backing(f, means[r.family], base, cfg),
    };
  });
}

/** LatencyBand.backed for a P99 family with exact mean `mean` (its band as the P99's: z spreads, the relative floor). */
function backing(f: Pick<Frame, 'lamOut' | 'grid'>, mean: Float64Array | undefined, base: Range, cfg: ModelConfig): LatencyBand['backed'] {
  const band = mean ? meanBand(mean, base, cfg) : null;
  if (!mean || !band) return null;
  const { top } = band;
  const seconds = f.grid.W / 1000;
  // Requests finished in the window, unknown (NaN) where no rate was read: then the P99 stands alone.
  return (i) => !(f.lamOut[i] * seconds * 0.01 < TAIL_BACKING) || mean[i] > top;
}

/**
 * LatencyBand.backed for ITL: its P98 beyond its own band too. A decode stalled now and then (a long prefill
 * chunk sharing the step) puts a percent or so of tokens in a second mode ten times slower, and the P99 flips
 * between the two as that share crosses 1% with the load — ×12 with the mean ×1.1, for hours of a healthy
 * day scraped every three minutes. A tail that grew, or every token slower, moves the P98 as well.
 */
function tailBacking(p98: Float64Array | undefined, base: Range, cfg: ModelConfig): LatencyBand['backed'] {
  const band = p98 ? baselineBand(p98, base, 0, cfg) : null;
  if (!p98 || !band) return null;
  const { top } = band;
  return (i) => !Number.isFinite(p98[i]) || p98[i] > top;
}

const spanSpread = (x: Float64Array) => ({ median: median(x), sigma: 1.4826 * mad(x) });

/**
 * A family's exact mean's band: z spreads and the relative floor, no θℓ — a per-request figure that a mean of
 * 70 ms moved ×2.4 stays inside. The one band of a mean, for the P99's backing and for its second measure.
 */
const meanBand = (x: Float64Array, base: Range, cfg: ModelConfig) => baselineBand(x, base, 0, cfg);

/** The baseline's median, robust spread and the top of its band (z spreads, θℓ, the relative floor); null without baseline data. */
function baselineBand(x: Float64Array, base: Range, abs: number, cfg: ModelConfig): { m: number; sigma: number; top: number } | null {
  const b = x.subarray(base[0], base[1] + 1);
  const m = median(b);
  if (!Number.isFinite(m)) return null;
  const sigma = 1.4826 * mad(b);
  return { m, sigma, top: m + Math.max(abs, cfg.trigger_noise_z * (Number.isFinite(sigma) ? sigma : 0), cfg.alerts.latency_rel_rise * m) };
}

/** Windows on each side of a step, at least; and the share of the span's variance the step must explain. */
const STEP_MIN_WINDOWS = 5;
const STEP_STRENGTH = 0.3;

/**
 * Whether `x` stepped up after the baseline and stayed: its most likely change-point (one mean shift) falls
 * after the baseline, explains STEP_STRENGTH of the span's variance or more, and parts a level inside the
 * baseline's band (at most `top`) from one beyond it, still beyond it over the last quarter of the stretch after,
 * and rises sharply (STEP_SHARP_MS).
 */
function steppedUp(x: Float64Array, base: Range, top: number, stepMs: number): boolean {
  const cp = changePoint(x, STEP_MIN_WINDOWS);
  if (!cp || cp.index <= base[1] || !(cp.strength >= STEP_STRENGTH)) return false;
  const i = cp.index;
  // Stayed: the last quarter of the stretch after it is beyond the band too (a day's hump comes back down).
  const tail = Math.max(STEP_MIN_WINDOWS, Math.floor((x.length - i) / 4));
  if (!(median(x.subarray(0, i)) <= top && median(x.subarray(i)) > top && median(x.subarray(x.length - tail)) > top)) return false;
  // Sharp: half the shift or more within STEP_SHARP_MS on either side of it. A day's swing takes hours to rise.
  const k = Math.max(STEP_MIN_WINDOWS, Math.round(STEP_SHARP_MS / stepMs));
  const jump = median(x.subarray(i, Math.min(x.length, i + k))) - median(x.subarray(Math.max(0, i - k), i));
  return jump >= STEP_SHARE_SHARP * (cp.after - cp.before);
}

/** How long a step may take to rise, and the share of its shift that must come within that on either side. */
const STEP_SHARP_MS = 15 * 60_000;
const STEP_SHARE_SHARP = 0.5;

/**
 * A long incident's traffic swings through the day: ten quiet minutes at the start say little about the
 * evening peak. So the whole analysed span's own robust spread is a floor of each band too — its median
 * plus `trigger_noise_z` robust spreads: while the degraded part is under half the span, its median and MAD
 * stay at the normal level and a real rise still stands out.
 *
 * On a span shorter than `whole_span_floor_min_ms` that premise is checked, and where it fails the floor
 * goes: the families whose span median is already beyond the baseline's band, when two or more measures
 * agree (an episode that began a third of the way into 25 minutes is most of the span, and the floor sat at
 * the degraded level itself: ITL P99 ×5 and its mean ×2.6 read as noise). One measure alone beyond it is as
 * likely its own coarseness — an interpolated P99 jumping a histogram bucket while the mean stays, TTFT
 * following a load swing — as an episode, and keeps its floor. Returns the families whose floor is dropped.
 */
function degradedMajority(f: Pick<Frame, 't' | 'grid'>, rows: ReadonlyArray<{ family: LatencyFamily; top: number; all: { median: number }; stepped: boolean; meanStepped: boolean | null; meanBeyond: boolean | null }>, cfg: Pick<ModelConfig, 'whole_span_floor_min_ms'>): Set<LatencyFamily> {
  const n = f.grid.n;
  if (!(n > 0)) return new Set();
  const beyond = rows.filter((r) => r.all.median > r.top);
  // Short: two measures beyond their bands — two families, or a family's P99 and its exact mean (a long-prompt
  // hour moved TTFT alone: P99 ×2.5 and its mean ×2.4, the rest flat, and read healthy).
  if (f.t[n - 1] + f.grid.W - f.t[0] < cfg.whole_span_floor_min_ms) return new Set(beyond.filter((r) => beyond.length >= 2 || r.meanBeyond === true).map((r) => r.family));
  // Over hours the day swings through the span, and a swing keeps the floor. A step does not swing: a family
  // that stepped up after the baseline and stayed there (steppedUp), two measures agreeing as above — its
  // exact mean stepped with it (where one is exported, never against it), or another family beyond its band.
  // Long prompts sent from a third of the way into six hours lifted TTFT P99 ×2.4 and its mean alike, and the
  // floor, at the degraded level, read the day healthy.
  // Whether or not the span's median is beyond the band: a step that came past the middle of the span leaves
  // the median at the old level and a spread that straddles both, a floor above the new level (a rollout at
  // 55% of 2.7 h that doubled the TTFT median, P99 ×1.65, its mean with it, read healthy).
  const steps = rows.filter((r) => r.stepped && r.meanStepped !== false);
  const stepped = steps.filter((r) => r.meanStepped === true || steps.length >= 2 || beyond.length >= 2);
  return new Set(stepped.map((r) => r.family));
}

/** Baselines above this share of the SLO already breach it when healthy: the SLO says nothing new there. */
const SLO_HEADROOM = 0.8;

/** Whether any family measured window i (a window without data is unknown, not "no rise"). */
export function latencyMeasured(bands: readonly LatencyBand[], i: number): boolean {
  return bands.some((b) => Number.isFinite(b.x[i]));
}

/** The first family whose P99 is beyond its band in window i, or null. */
export function latencyRise(bands: readonly LatencyBand[], i: number): LatencyBand | null {
  for (const b of bands) {
    const v = b.x[i];
    if (!Number.isFinite(v)) continue;
    if ((v > b.threshold_s || (b.slo_s !== null && v > b.slo_s)) && (b.backed === null || b.backed(i))) return b;
  }
  return null;
}
