// Fetched chart data kept per chart (by its query key) across redraws and chart rebuilds: a few windows
// each, newest first, so zooming back out finds the coarser windows again. Live recording bumps the
// generation: older entries may still be drawn while loading but never count as fresh.
import { covers, type FetchWindow } from '../../../../common/charts/buffered-window';

export interface CacheEntry<T> {
  w: FetchWindow;
  generation: number;
  data: T;
}

const KEEP = 6;
const entries = new Map<string, CacheEntry<unknown>[]>();
let generation = 0;

const refreshers = new Set<() => void>();

/** New data arrived (live recording): every entry becomes stale and every chart fetches again. */
export function refreshCharts(): void {
  generation++;
  refreshers.forEach((f) => f());
}

export function onChartRefresh(f: () => void): () => void {
  refreshers.add(f);
  return () => refreshers.delete(f);
}

export function freshEntry<T>(key: string, range: readonly [number, number], bucket: number): CacheEntry<T> | null {
  const list = entries.get(key) ?? [];
  return (list.find((e) => e.generation === generation && covers(e.w, range, bucket)) as CacheEntry<T> | undefined) ?? null;
}

const inflight = new Map<string, { w: FetchWindow; generation: number; done: Promise<unknown> }[]>();

/**
 * Fetches `w` once: a request already in flight whose window covers `range` at the same bucket width
 * answers this one too (a prefetch the user overtook), so the engine never computes a window twice.
 */
export function loadOnce<T>(key: string, w: FetchWindow, range: readonly [number, number], load: (w: FetchWindow) => Promise<T>): Promise<CacheEntry<T>> {
  const list = inflight.get(key) ?? [];
  const running = list.find((x) => x.generation === generation && covers(x.w, range, w.bucket_ms));
  if (running) return running.done as Promise<CacheEntry<T>>;
  const gen = generation;
  const done = load(w).then((data) => {
    const e: CacheEntry<T> = { w, generation: gen, data };
    putEntry(key, e);
    return e;
  });
  const item = { w, generation: gen, done };
  inflight.set(key, [...list, item]);
  const drop = () => inflight.set(key, (inflight.get(key) ?? []).filter((x) => x !== item));
  done.then(drop, drop);
  return done;
}

export function putEntry<T>(key: string, e: CacheEntry<T>): void {
  const list = (entries.get(key) ?? []).filter((x) => x.w.bucket_ms !== e.w.bucket_ms || x.generation !== e.generation || !covers(e.w, [x.w.start_ms, x.w.end_ms], x.w.bucket_ms));
  list.unshift(e as CacheEntry<unknown>);
  entries.set(key, list.slice(0, KEEP));
}
