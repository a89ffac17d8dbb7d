// The incident library and the incident that is open.
import { create } from 'zustand';
import type { Incident, IncidentDetail } from '../../../../common/contract/types';
import { api, errorText } from '../api';

export type LoadState = 'idle' | 'loading' | 'ready' | 'error';

interface IncidentsState {
  list: Incident[];
  listState: LoadState;
  listError: string | null;
  openId: number | null;
  detail: IncidentDetail | null;
  detailState: LoadState;
  detailError: string | null;
  /** `quiet`: re-lists without the loading state (live recording), so nothing flickers. */
  refresh(quiet?: boolean): Promise<void>;
  open(id: number | null): Promise<void>;
  /** Re-reads the open incident's detail in place (live recording: its span, counts and sources grow). */
  reloadDetail(): Promise<void>;
  rename(id: number, name: string): Promise<void>;
  remove(id: number): Promise<void>;
}

export const useIncidents = create<IncidentsState>((set, get) => ({
  list: [],
  listState: 'idle',
  listError: null,
  openId: null,
  detail: null,
  detailState: 'idle',
  detailError: null,
  refresh: async (quiet = false) => {
    if (!quiet) set({ listState: 'loading' });
    try {
      set({ list: await api.listIncidents(), listState: 'ready', listError: null });
    } catch (e) {
      set({ listState: 'error', listError: errorText(e) });
    }
  },
  open: async (id) => {
    if (id === null) {
      set({ openId: null, detail: null, detailState: 'idle', detailError: null });
      return;
    }
    set({ openId: id, detailState: 'loading', detailError: null, ...(get().detail?.id === id ? {} : { detail: null }) });
    try {
      const detail = await api.getIncident({ id });
      if (get().openId === id) set({ detail, detailState: 'ready' });
    } catch (e) {
      if (get().openId === id) set({ detailState: 'error', detailError: errorText(e) });
    }
  },
  reloadDetail: async () => {
    const id = get().openId;
    if (id === null) return;
    try {
      const detail = await api.getIncident({ id });
      if (get().openId === id) set({ detail, detailState: 'ready', detailError: null });
    } catch {
      // the next live-status event tries again; the overview keeps what it shows
    }
  },
  rename: async (id, name) => {
    await api.renameIncident({ id, name });
    await get().refresh();
    if (get().openId === id) await get().open(id);
  },
  remove: async (id) => {
    await api.deleteIncident({ id });
    if (get().openId === id) await get().open(null);
    await get().refresh();
  },
}));
