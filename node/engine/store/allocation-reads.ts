// The `allocations` and `stacks` tables as the Memory view and the leak analysis read them: live bytes
// over time and the sites holding memory at an instant. (Live bytes stacked by site are in profile-reads.ts.)
import type { AllocationSite, MemoryPoint } from '../../../common/contract/types';
import type { Db } from './db';
import { parse } from './parse-json';

/** Live bytes over time from allocation records (alloc +size, free −size), at most `points` points. */
export function memoryTimeline(db: Db, incidentId: number, device?: number, points = 2000): MemoryPoint[] {
  const devWhere = device === undefined ? '' : 'AND device = @device';
  const rows = db
    .prepare(
      `SELECT ts, delta FROM (
         SELECT alloc_ns AS ts, size AS delta FROM allocations WHERE incident_id = @id AND alloc_ns IS NOT NULL ${devWhere}
         UNION ALL
         SELECT free_ns AS ts, -size AS delta FROM allocations WHERE incident_id = @id AND free_ns IS NOT NULL ${devWhere}
       ) ORDER BY ts`,
    )
    .raw()
    .all({ id: incidentId, device }) as [number, number][];
  if (!rows.length) return [];
  const out: MemoryPoint[] = [];
  const step = Math.max(1, Math.ceil(rows.length / points));
  let live = 0;
  let peak = -Infinity;
  for (let i = 0; i < rows.length; i++) {
    live += rows[i][1];
    if (live > peak) peak = live;
    // Keep each bucket's peak: a leak's sawtooth must survive downsampling.
    if ((i + 1) % step === 0 || i === rows.length - 1) {
      out.push({ t_ms: rows[i][0] / 1e6, live_bytes: step === 1 ? live : peak });
      peak = -Infinity;
    }
  }
  return out;
}

/** Allocations alive at `atMs` (default: the end), grouped by stack, largest first. */
export function allocationSites(db: Db, incidentId: number, atMs?: number, limit = 50): AllocationSite[] {
  const at = atMs === undefined ? null : atMs * 1e6;
  const rows = db
    .prepare(
      `SELECT a.stack_id, s.frames_json, SUM(a.size) AS live_bytes, COUNT(*) AS allocs
         FROM allocations a LEFT JOIN stacks s ON s.id = a.stack_id
        WHERE a.incident_id = @id
          AND (@at IS NULL OR a.alloc_ns IS NULL OR a.alloc_ns <= @at)
          AND (a.free_ns IS NULL OR (@at IS NOT NULL AND a.free_ns > @at))
        GROUP BY a.stack_id ORDER BY live_bytes DESC LIMIT @limit`,
    )
    .all({ id: incidentId, at, limit }) as { stack_id: number | null; frames_json: string | null; live_bytes: number; allocs: number }[];
  return rows.map((r) => ({ stack_id: r.stack_id, frames: parse<string[]>(r.frames_json, []), live_bytes: r.live_bytes, allocs: r.allocs }));
}
