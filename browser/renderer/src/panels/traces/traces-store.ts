// Request traces of the open incident and the spans of the one being looked at.
import { create } from 'zustand';
import type { SpanRow } from '../../../../../common/contract/types';
import { api, errorText } from '../../api';
import type { LoadState } from '../../state/incidents';

export interface TraceSummary {
  trace_id: string;
  root: string;
  start_ms: number;
  end_ms: number;
  spans: number;
}

interface TracesState {
  incidentId: number | null;
  traces: TraceSummary[];
  state: LoadState;
  error: string | null;
  traceId: string | null;
  spans: SpanRow[];
  spansState: LoadState;
  load(incidentId: number): Promise<void>;
  open(traceId: string | null): Promise<void>;
}

export const useTraces = create<TracesState>((set, get) => ({
  incidentId: null,
  traces: [],
  state: 'idle',
  error: null,
  traceId: null,
  spans: [],
  spansState: 'idle',
  load: async (incidentId) => {
    if (get().incidentId === incidentId && get().state === 'ready') return;
    set({ incidentId, traces: [], state: 'loading', error: null, traceId: null, spans: [] });
    try {
      const traces = await api.listTraces({ incident_id: incidentId, limit: 2000 });
      if (get().incidentId === incidentId) set({ traces, state: 'ready' });
    } catch (e) {
      set({ state: 'error', error: errorText(e) });
    }
  },
  open: async (traceId) => {
    const incidentId = get().incidentId;
    set({ traceId, spans: [], spansState: traceId ? 'loading' : 'idle' });
    if (!traceId || incidentId === null) return;
    try {
      const spans = await api.querySpans({ incident_id: incidentId, trace_id: traceId, limit: 5000 });
      if (get().traceId === traceId) set({ spans, spansState: 'ready' });
    } catch (e) {
      set({ spansState: 'error', error: errorText(e) });
    }
  },
}));

/** Depth of each span under its parent (roots and orphans at 0), in start order. */
export function spanDepths(spans: SpanRow[]): Map<string, number> {
  const byId = new Map(spans.map((s) => [s.span_id, s]));
  const depth = new Map<string, number>();
  const of = (s: SpanRow, guard = 0): number => {
    const known = depth.get(s.span_id);
    if (known !== undefined) return known;
    const parent = s.parent_id ? byId.get(s.parent_id) : undefined;
    const d = parent && guard < 64 ? of(parent, guard + 1) + 1 : 0;
    depth.set(s.span_id, d);
    return d;
  };
  spans.forEach((s) => of(s));
  return depth;
}
