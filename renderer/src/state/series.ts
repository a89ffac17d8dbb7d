// The series of the open incident (api.listSeries), from which the timeline builds its charts.
import { create } from 'zustand';
import type { SeriesInfo } from '../../../electron/contract/types';
import { api, errorText } from '../api';
import type { LoadState } from './incidents';

interface SeriesState {
  incidentId: number | null;
  list: SeriesInfo[];
  state: LoadState;
  error: string | null;
  load(incidentId: number): Promise<void>;
}

export const useSeries = create<SeriesState>((set, get) => ({
  incidentId: null,
  list: [],
  state: 'idle',
  error: null,
  load: async (incidentId) => {
    set({ incidentId, list: [], state: 'loading', error: null });
    try {
      const list = await api.listSeries({ incident_id: incidentId });
      if (get().incidentId === incidentId) set({ list, state: 'ready' });
    } catch (e) {
      set({ state: 'error', error: errorText(e) });
    }
  },
}));
