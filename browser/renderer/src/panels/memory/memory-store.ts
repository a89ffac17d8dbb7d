// Allocation records of the open incident: live bytes over time stacked by allocation site (every record
// read, the top sites named and the rest as one band), and the stacks holding memory at a moment.
import { create } from 'zustand';
import type { AllocationSite, MemoryBySite } from '../../../../../common/contract/types';
import { api, errorText } from '../../api';
import type { LoadState } from '../../state/incidents';

/** Sites named in the stacked chart; the rest is one "other" band. */
export const TOP_SITES = 8;

interface MemoryState {
  incidentId: number | null;
  /** The stacked timeline of the device shown (null until loaded or without records). */
  bySite: MemoryBySite | null;
  /** Its total live bytes per bucket (what the growth is measured on). */
  t: Float64Array;
  live: Float64Array;
  sites: AllocationSite[];
  sitesAt: number | null;
  state: LoadState;
  error: string | null;
  load(incidentId: number, device?: number): Promise<void>;
  loadSites(atMs: number | null): Promise<void>;
}

export const useMemory = create<MemoryState>((set, get) => ({
  incidentId: null,
  bySite: null,
  t: new Float64Array(0),
  live: new Float64Array(0),
  sites: [],
  sitesAt: null,
  state: 'idle',
  error: null,
  load: async (incidentId, device) => {
    set({ incidentId, state: 'loading', error: null, ...(get().incidentId !== incidentId ? { sites: [], bySite: null, t: new Float64Array(0), live: new Float64Array(0) } : {}) });
    try {
      const [bySite, sites] = await Promise.all([api.memoryBySite({ incident_id: incidentId, device, points: 600, top: TOP_SITES }), api.allocationSites({ incident_id: incidentId, limit: 50 })]);
      if (get().incidentId !== incidentId) return;
      set({ bySite, t: Float64Array.from(bySite.t), live: Float64Array.from(bySite.total), sites, sitesAt: null, state: 'ready' });
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
