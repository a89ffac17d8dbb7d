// The single most likely change-point of a series: the split that minimises the two segments' squared
// error (a mean shift), found in one pass with prefix sums.

export interface ChangePoint {
  /** Index of the first sample after the change. */
  index: number;
  before: number;
  after: number;
  /** Relative size (after − before) / |before|; Infinity when before is 0 and after is not. */
  size: number;
  /** Share of the series' variance the split explains, 0..1. */
  strength: number;
}

/** NaN entries are skipped; segments have at least `minSegment` finite points. Null when no split exists. */
export function changePoint(v: ArrayLike<number>, minSegment = 2): ChangePoint | null {
  const idx: number[] = [];
  const x: number[] = [];
  for (let i = 0; i < v.length; i++) {
    if (Number.isFinite(v[i])) {
      idx.push(i);
      x.push(v[i]);
    }
  }
  const n = x.length;
  if (n < 2 * minSegment) return null;
  const s = new Float64Array(n + 1);
  const s2 = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) {
    s[i + 1] = s[i] + x[i];
    s2[i + 1] = s2[i] + x[i] * x[i];
  }
  const sse = (a: number, b: number) => s2[b] - s2[a] - (s[b] - s[a]) ** 2 / (b - a);
  const total = sse(0, n);
  let best = -1;
  let bestCost = Infinity;
  for (let k = minSegment; k <= n - minSegment; k++) {
    const c = sse(0, k) + sse(k, n);
    if (c < bestCost - 1e-12) {
      bestCost = c;
      best = k;
    }
  }
  if (best < 0) return null;
  const before = s[best] / best;
  const after = (s[n] - s[best]) / (n - best);
  const size = before === 0 ? (after === 0 ? 0 : Infinity) : (after - before) / Math.abs(before);
  return { index: idx[best], before, after, size, strength: total > 0 ? 1 - bestCost / total : 0 };
}

export interface RampStart {
  /** Index where the ramp begins (flat before it). */
  index: number;
  /** Slope of the ramp, units of v per unit of t. */
  slope: number;
  /** Squared error of the flat-then-ramp fit ÷ that of one straight line (below 1: the hinge fits better). */
  relative_error: number;
}

/**
 * Where a flat stretch turns into a ramp: the split minimising the squared error of "constant, then a
 * straight line", found in one pass with suffix sums. A leak that starts mid-incident gets its true slope
 * from the ramp alone, not diluted by the flat part.
 */
export function rampStart(t: ArrayLike<number>, v: ArrayLike<number>, minSegment = 3): RampStart | null {
  const n = v.length;
  if (n < 2 * minSegment) return null;
  const t0 = t[0];
  const P = { s: new Float64Array(n + 1), s2: new Float64Array(n + 1) };
  const S = { x: new Float64Array(n + 1), y: new Float64Array(n + 1), xx: new Float64Array(n + 1), xy: new Float64Array(n + 1), yy: new Float64Array(n + 1) };
  for (let i = 0; i < n; i++) {
    P.s[i + 1] = P.s[i] + v[i];
    P.s2[i + 1] = P.s2[i] + v[i] * v[i];
  }
  for (let i = n - 1; i >= 0; i--) {
    const x = t[i] - t0;
    S.x[i] = S.x[i + 1] + x;
    S.y[i] = S.y[i + 1] + v[i];
    S.xx[i] = S.xx[i + 1] + x * x;
    S.xy[i] = S.xy[i + 1] + x * v[i];
    S.yy[i] = S.yy[i + 1] + v[i] * v[i];
  }
  const line = (k: number) => {
    const m = n - k;
    const sxx = S.xx[k] - (S.x[k] * S.x[k]) / m;
    const sxy = S.xy[k] - (S.x[k] * S.y[k]) / m;
    const syy = S.yy[k] - (S.y[k] * S.y[k]) / m;
    const slope = sxx > 0 ? sxy / sxx : 0;
    return { sse: Math.max(0, syy - slope * sxy), slope };
  };
  const whole = line(0).sse;
  let best: RampStart | null = null;
  let bestCost = Infinity;
  for (let k = minSegment; k <= n - minSegment; k++) {
    const flat = P.s2[k] - (P.s[k] * P.s[k]) / k;
    const l = line(k);
    const cost = flat + l.sse;
    if (cost < bestCost) {
      bestCost = cost;
      best = { index: k, slope: l.slope, relative_error: whole > 0 ? cost / whole : 1 };
    }
  }
  return best;
}

export interface Knees {
  /** Index where the level starts to move, and where it arrives. */
  start: number;
  end: number;
  before: number;
  after: number;
}

/**
 * Least-squares fit of "level, linear move, level" (a step is a move over one interval, a ramp over
 * many): every pair of knees is tried, the two levels solved in closed form from prefix sums of t, t²,
 * v, v·t and v², so the whole search is O(n²) (it was O(n³), which kept fits to a few dozen samples).
 * NaN samples are skipped.
 */
export function kneeFit(t: ArrayLike<number>, v: ArrayLike<number>): Knees | null {
  const ts: number[] = [];
  const vs: number[] = [];
  const at: number[] = [];
  for (let i = 0; i < v.length; i++) if (Number.isFinite(v[i]) && Number.isFinite(t[i])) {
    ts.push(t[i]);
    vs.push(v[i]);
    at.push(i);
  }
  const n = ts.length;
  if (n < 4) return null;
  // Times relative to the first and scaled to their span keep the sums well conditioned.
  const t0 = ts[0];
  const scale = ts[n - 1] - t0 || 1;
  const P = { t: new Float64Array(n + 1), tt: new Float64Array(n + 1), v: new Float64Array(n + 1), vt: new Float64Array(n + 1), vv: new Float64Array(n + 1) };
  for (let k = 0; k < n; k++) {
    const x = (ts[k] - t0) / scale;
    P.t[k + 1] = P.t[k] + x;
    P.tt[k + 1] = P.tt[k] + x * x;
    P.v[k + 1] = P.v[k] + vs[k];
    P.vt[k + 1] = P.vt[k] + vs[k] * x;
    P.vv[k + 1] = P.vv[k] + vs[k] * vs[k];
  }
  const seg = (a: keyof typeof P, from: number, to: number) => P[a][to] - P[a][from];
  const total = P.vv[n];
  let best: Knees | null = null;
  let bestCost = Infinity;
  for (let a = 1; a < n - 1; a++) for (let b = a; b < n - 1; b++) {
    // Knees at samples a−1 and b: samples ≤ a−1 sit on the first level, ≥ b on the second, the rest on the line.
    const t1 = (ts[a - 1] - t0) / scale;
    const d = (ts[b] - t0) / scale - t1;
    if (!(d > 0)) continue;
    const m = b - a;
    const su = (seg('t', a, b) - m * t1) / d;
    const suu2 = (seg('tt', a, b) - 2 * t1 * seg('t', a, b) + m * t1 * t1) / (d * d);
    const svuMid = (seg('vt', a, b) - t1 * seg('v', a, b)) / d;
    const suu = suu2 + (n - b);
    const sww = a + m - 2 * su + suu2;
    const suw = su - suu2;
    const svu = svuMid + seg('v', b, n);
    const svw = seg('v', 0, a) + seg('v', a, b) - svuMid;
    const det = sww * suu - suw * suw;
    if (!(Math.abs(det) > 1e-12)) continue;
    const before = (svw * suu - svu * suw) / det;
    const after = (svu * sww - svw * suw) / det;
    const cost = total - before * svw - after * svu;
    if (cost < bestCost - 1e-9 * Math.max(1, Math.abs(total))) {
      bestCost = cost;
      best = { start: at[a - 1], end: at[b], before, after };
    }
  }
  return best;
}
