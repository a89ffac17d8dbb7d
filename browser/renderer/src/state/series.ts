// The series of the open incident (api.listSeries), from which the timeline builds its charts.
import { create } from 'zustand';
import type { SeriesInfo } from '../../../../common/contract/types';
import { api, errorText } from '../api';
import type { LoadState } from './incidents';

interface SeriesState {
  incidentId: number | null;
  list: SeriesInfo[];
  state: LoadState;
  error: string | null;
  load(incidentId: number): Promise<void>;
  /** Re-lists without clearing (live recording): the list changes only when its series or their presence do. */
  refresh(incidentId: number): Promise<void>;
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
  refresh: async (incidentId) => {
    try {
      const list = await api.listSeries({ incident_id: incidentId });
      const shape = (l: SeriesInfo[]) => l.map((s) => `${s.id}:${s.points > 0 ? 1 : 0}:${s.points >= 2 ? 1 : 0}`).join(',');
      if (get().incidentId === incidentId && shape(list) !== shape(get().list)) set({ list, state: 'ready', error: null });
    } catch {
      // the next refresh tries again; the charts keep what they show
    }
  },
}));
