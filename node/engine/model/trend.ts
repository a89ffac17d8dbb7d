// Trend of a series over a long span: OLS slope and Spearman monotonicity against time.

/** Least-squares slope of v against t (units of v per unit of t); NaN with fewer than two finite points. */
export function olsSlope(t: ArrayLike<number>, v: ArrayLike<number>): number {
  let n = 0;
  let st = 0;
  let sv = 0;
  for (let i = 0; i < v.length; i++) {
    if (!Number.isFinite(v[i])) continue;
    n++;
    st += t[i];
    sv += v[i];
  }
  if (n < 2) return NaN;
  const mt = st / n;
  const mv = sv / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < v.length; i++) {
    if (!Number.isFinite(v[i])) continue;
    num += (t[i] - mt) * (v[i] - mv);
    den += (t[i] - mt) ** 2;
  }
  return den > 0 ? num / den : NaN;
}

/** Ranks 1..n with ties given their average rank. */
function ranks(x: number[]): Float64Array {
  const idx = x.map((_, i) => i).sort((a, b) => x[a] - x[b]);
  const r = new Float64Array(x.length);
  for (let i = 0; i < idx.length; ) {
    let j = i;
    while (j + 1 < idx.length && x[idx[j + 1]] === x[idx[i]]) j++;
    const avg = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) r[idx[k]] = avg;
    i = j + 1;
  }
  return r;
}

/** Spearman's ρ between x and y over pairs where both are finite; NaN with fewer than three pairs or a constant side. */
export function spearman(x: ArrayLike<number>, y: ArrayLike<number>): number {
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < x.length; i++) {
    if (Number.isFinite(x[i]) && Number.isFinite(y[i])) {
      a.push(x[i]);
      b.push(y[i]);
    }
  }
  if (a.length < 3) return NaN;
  const ra = ranks(a);
  const rb = ranks(b);
  const m = (a.length + 1) / 2;
  let num = 0;
  let da = 0;
  let db = 0;
  for (let i = 0; i < a.length; i++) {
    num += (ra[i] - m) * (rb[i] - m);
    da += (ra[i] - m) ** 2;
    db += (rb[i] - m) ** 2;
  }
  return da > 0 && db > 0 ? num / Math.sqrt(da * db) : NaN;
}

/** mono(x): Spearman ρ of the values against their time. */
export const monotonicity = (t: ArrayLike<number>, v: ArrayLike<number>): number => spearman(t, v);
