// One querySeries call for every chart that asks within the same frame: requests for the same window
// merge their series ids, the answer is split back per request.
import type { SeriesData } from '../../../../common/contract/types';
import { api } from '../api';
import type { FetchWindow } from '../../../../common/charts/buffered-window';

interface Pending {
  w: FetchWindow;
  ids: Set<number>;
  waiters: { resolve(m: Map<number, SeriesData>): void; reject(e: unknown): void }[];
}

const pending = new Map<string, Pending>();
let timer: ReturnType<typeof setTimeout> | null = null;

function flush(): void {
  timer = null;
  const batch = [...pending.values()];
  pending.clear();
  for (const p of batch) {
    api.querySeries({ series_ids: [...p.ids], start_ms: p.w.start_ms, end_ms: p.w.end_ms, points: p.w.points }).then(
      (res) => {
        const byId = new Map(res.map((d) => [d.series_id, d]));
        p.waiters.forEach((w) => w.resolve(byId));
      },
      (e: unknown) => p.waiters.forEach((w) => w.reject(e)),
    );
  }
}

export function querySeriesBatched(ids: number[], w: FetchWindow): Promise<Map<number, SeriesData>> {
  const key = `${w.start_ms}:${w.end_ms}:${w.points}`;
  let p = pending.get(key);
  if (!p) pending.set(key, (p = { w, ids: new Set(), waiters: [] }));
  ids.forEach((id) => p.ids.add(id));
  // A task, not a microtask: every chart's animation-frame callback runs before it.
  timer ??= setTimeout(flush, 0);
  return new Promise((resolve, reject) => p.waiters.push({ resolve, reject }));
}
