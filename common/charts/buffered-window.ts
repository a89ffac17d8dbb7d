// Which data a chart asks for (Perfetto's buffered bounds): the visible range plus one screen each side,
// at a bucket width rounded up to a power of two milliseconds, with both bounds on the bucket grid. Any
// pan or zoom whose range lies inside a fetched window at the same bucket width draws from it at once,
// and windows fetched at different times agree bucket for bucket.
export interface FetchWindow {
  bucket_ms: number;
  start_ms: number;
  end_ms: number;
  points: number;
}

export function bucketFor(span: number, widthPx: number): number {
  const raw = Math.max(1, span / Math.max(1, widthPx));
  return 2 ** Math.ceil(Math.log2(raw));
}

/** `margin`: screens fetched on each side (0 for a prefetch of the next zoom level). */
export function bufferedWindow(range: readonly [number, number], full: readonly [number, number], widthPx: number, bucket = bucketFor(range[1] - range[0], widthPx), margin = 1): FetchWindow {
  const span = (range[1] - range[0]) * margin;
  const lo = Math.floor(full[0] / bucket) * bucket;
  const hi = Math.ceil(full[1] / bucket) * bucket;
  const start = Math.max(lo, Math.floor((range[0] - span) / bucket) * bucket);
  const end = Math.max(start + bucket, Math.min(hi, Math.ceil((range[1] + span) / bucket) * bucket));
  return { bucket_ms: bucket, start_ms: start, end_ms: end, points: Math.min(20_000, Math.round((end - start) / bucket)) };
}

/** Whether data fetched for `w` can draw `range` at the bucket width `bucket`. */
export function covers(w: FetchWindow, range: readonly [number, number], bucket: number): boolean {
  return w.bucket_ms === bucket && w.start_ms <= range[0] && w.end_ms >= range[1];
}
