// Notes on time ranges of the open incident, and the range being drafted into a new note.
import { create } from 'zustand';
import type { Annotation } from '../../../../common/contract/types';
import { api, errorText } from '../api';
import type { LoadState } from './incidents';

export interface Draft {
  start_ms: number;
  end_ms: number;
  panel: string;
}

interface AnnotationsState {
  incidentId: number | null;
  list: Annotation[];
  state: LoadState;
  error: string | null;
  /** When armed, the next drag on a chart drafts a note instead of zooming. */
  armed: boolean;
  draft: Draft | null;
  load(incidentId: number): Promise<void>;
  arm(on: boolean): void;
  setDraft(d: Draft | null): void;
  save(text: string): Promise<void>;
  update(id: number, text: string): Promise<void>;
  remove(id: number): Promise<void>;
}

export const useAnnotations = create<AnnotationsState>((set, get) => ({
  incidentId: null,
  list: [],
  state: 'idle',
  error: null,
  armed: false,
  draft: null,
  load: async (incidentId) => {
    set({ incidentId, state: 'loading', ...(get().incidentId === incidentId ? {} : { list: [] }) });
    try {
      const list = await api.listAnnotations({ incident_id: incidentId });
      if (get().incidentId === incidentId) set({ list, state: 'ready', error: null });
    } catch (e) {
      set({ state: 'error', error: errorText(e) });
    }
  },
  arm: (armed) => set({ armed }),
  setDraft: (draft) => set({ draft, armed: false }),
  save: async (text) => {
    const { draft, incidentId } = get();
    if (!draft || incidentId === null) return;
    const start = Math.min(draft.start_ms, draft.end_ms);
    const end = Math.max(draft.start_ms, draft.end_ms);
    const a = await api.addAnnotation({ incident_id: incidentId, start_ms: start, end_ms: end, panel: draft.panel, text });
    set({ draft: null, list: [...get().list, a].sort((x, y) => x.start_ms - y.start_ms || x.id - y.id) });
  },
  update: async (id, text) => {
    const a = await api.updateAnnotation({ id, text });
    set({ list: get().list.map((x) => (x.id === id ? a : x)) });
  },
  remove: async (id) => {
    await api.deleteAnnotation({ id });
    set({ list: get().list.filter((x) => x.id !== id) });
  },
}));
