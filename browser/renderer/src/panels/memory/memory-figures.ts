// The numbers the Memory view draws and states, apart from the view so they can be tested: the growth of
// live bytes, a site's name in a legend, and PyTorch's reserved vs allocated on one time column.
import { orderFrames } from '../../../../../common/frames';

/** Least-squares growth of live bytes per minute over the recorded points. */
export function growthPerMinute(t: ArrayLike<number>, v: ArrayLike<number>): number | null {
  const n = t.length;
  if (n < 3 || t[n - 1] - t[0] < 1000) return null;
  let mt = 0;
  let mv = 0;
  for (let i = 0; i < n; i++) {
    mt += t[i] / n;
    mv += v[i] / n;
  }
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (t[i] - mt) * (v[i] - mv);
    den += (t[i] - mt) ** 2;
  }
  return den > 0 ? (num / den) * 60_000 : null;
}

/** A site's name in a legend: its first Python frame (the code that asked), shortened to the file's name. */
export function siteLabel(frames: string[]): string {
  const first = orderFrames(frames).shown[0] ?? frames[0];
  if (!first) return '(no stack recorded)';
  return first.replace(/^.*\/(?=[^/]+\.py)/, '');
}

export interface Reserved {
  t: Float64Array;
  allocated: Float64Array;
  cached: Float64Array;
  peak: { t: number; reserved: number; allocated: number } | null;
}

/** torch.reserved vs torch.allocated of one GPU on a shared time column (allocated carried to each reserved point). */
export function reservedVsAllocated(rt: ArrayLike<number>, rv: ArrayLike<number>, at: ArrayLike<number>, av: ArrayLike<number>): Reserved {
  const n = rt.length;
  const t = new Float64Array(n);
  const allocated = new Float64Array(n);
  const cached = new Float64Array(n);
  let j = -1;
  let peak: Reserved['peak'] = null;
  for (let i = 0; i < n; i++) {
    while (j + 1 < at.length && at[j + 1] <= rt[i]) j++;
    const a = j >= 0 ? av[j] : 0;
    t[i] = rt[i];
    allocated[i] = Math.min(a, rv[i]);
    cached[i] = Math.max(0, rv[i] - a);
    if (!peak || rv[i] > peak.reserved) peak = { t: rt[i], reserved: rv[i], allocated: allocated[i] };
  }
  return { t, allocated, cached, peak };
}

