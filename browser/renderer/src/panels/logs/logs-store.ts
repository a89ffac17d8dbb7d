// The logs panel's query (full-text search, severities, visible range) and its answer.
import { create } from 'zustand';
import type { EventRow, Severity } from '../../../../../common/contract/types';
import { api, errorText } from '../../api';
import type { Range } from '../../state/cursor';
import type { LoadState } from '../../state/incidents';
import { searchErrorText, toSearchQuery } from './log-query';

export const SEVERITIES: Severity[] = ['debug', 'info', 'warning', 'error', 'critical'];
const PAGE = 500;

interface LogsState {
  query: string;
  severities: Severity[];
  followRange: boolean;
  rows: EventRow[];
  total: number;
  state: LoadState;
  error: string | null;
  set(p: Partial<Pick<LogsState, 'query' | 'severities' | 'followRange'>>): void;
  load(incidentId: number, range: Range | null, more?: boolean): Promise<void>;
}

let seq = 0;

export const useLogs = create<LogsState>((set, get) => ({
  query: '',
  severities: [],
  followRange: true,
  rows: [],
  total: 0,
  state: 'idle',
  error: null,
  set: (p) => set(p),
  load: async (incidentId, range, more = false) => {
    const my = ++seq;
    const { query, severities } = get();
    set({ state: 'loading' });
    try {
      const res = await api.queryEvents({
        incident_id: incidentId,
        query: toSearchQuery(query) || undefined,
        severities: severities.length ? severities : undefined,
        start_ms: range ? Math.floor(range[0]) : undefined,
        end_ms: range ? Math.ceil(range[1]) : undefined,
        limit: PAGE,
        offset: more ? get().rows.length : 0,
      });
      if (my !== seq) return;
      set({ rows: more ? [...get().rows, ...res.rows] : res.rows, total: res.total, state: 'ready', error: null });
    } catch (e) {
      if (my === seq) set({ state: 'error', error: searchErrorText(errorText(e)) ?? errorText(e), rows: more ? get().rows : [], total: 0 });
    }
  },
}));
