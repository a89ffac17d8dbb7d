// Discrete events drawn as markers on the timeline: Xids, OOMs, crashes, restarts, deploys and
// error-level log lines. The verdict reads the disruptions among them.
import { create } from 'zustand';
import type { EventRow } from '../../../../common/contract/types';
import { DISRUPTION_KINDS } from '../../../../common/verdict';
import { api, errorText } from '../api';

/** Crashes, OOMs, Xids and restarts (what makes an incident never "healthy"), and deploys. */
export const MARKER_KINDS = [...Object.keys(DISRUPTION_KINDS), 'deploy'];

interface MarkersState {
  incidentId: number | null;
  events: EventRow[];
  error: string | null;
  load(incidentId: number): Promise<void>;
}

export const useMarkers = create<MarkersState>((set, get) => ({
  incidentId: null,
  events: [],
  error: null,
  load: async (incidentId) => {
    set({ incidentId, events: [], error: null });
    try {
      const [byKind, bySeverity] = await Promise.all([
        api.queryEvents({ incident_id: incidentId, kinds: MARKER_KINDS, limit: 1000 }),
        api.queryEvents({ incident_id: incidentId, severities: ['error', 'critical'], limit: 1000 }),
      ]);
      const seen = new Map<number, EventRow>();
      for (const e of [...byKind.rows, ...bySeverity.rows]) seen.set(e.id, e);
      if (get().incidentId === incidentId) set({ events: [...seen.values()].sort((a, b) => a.ts_ms - b.ts_ms) });
    } catch (e) {
      set({ error: errorText(e) });
    }
  },
}));
