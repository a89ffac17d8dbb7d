// Allocation records of the open incident: live bytes over time and the stacks holding memory.
import { create } from 'zustand';
import type { AllocationSite } from '../../../../common/contract/types';
import { api, errorText } from '../api';
import type { LoadState } from './incidents';

interface MemoryState {
  incidentId: number | null;
  t: Float64Array;
  live: Float64Array;
  sites: AllocationSite[];
  sitesAt: number | null;
  state: LoadState;
  error: string | null;
  load(incidentId: number): Promise<void>;
  loadSites(atMs: number | null): Promise<void>;
}

export const useMemory = create<MemoryState>((set, get) => ({
  incidentId: null,
  t: new Float64Array(0),
  live: new Float64Array(0),
  sites: [],
  sitesAt: null,
  state: 'idle',
  error: null,
  load: async (incidentId) => {
    set({ incidentId, state: 'loading', error: null, sites: [], t: new Float64Array(0), live: new Float64Array(0) });
    try {
      const [points, sites] = await Promise.all([api.memoryTimeline({ incident_id: incidentId, points: 2000 }), api.allocationSites({ incident_id: incidentId, limit: 50 })]);
      if (get().incidentId !== incidentId) return;
      set({ t: Float64Array.from(points, (p) => p.t_ms), live: Float64Array.from(points, (p) => p.live_bytes), sites, sitesAt: null, state: 'ready' });
    } catch (e) {
      set({ state: 'error', error: errorText(e) });
    }
  },
  loadSites: async (atMs) => {
    const id = get().incidentId;
    if (id === null) return;
    try {
      const sites = await api.allocationSites({ incident_id: id, at_ms: atMs ?? undefined, limit: 50 });
      set({ sites, sitesAt: atMs });
    } catch (e) {
      set({ error: errorText(e) });
    }
  },
}));
