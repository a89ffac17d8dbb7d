// Which view and detail tab are showing, and what a cross-panel link selected (an event in the logs,
// a trace, an allocation stack, a series in the timeline). Kept in the URL hash so reload keeps it.
import { create } from 'zustand';
import type { Evidence } from '../../../../common/contract/diagnosis';
import { useCursor } from './cursor';

/**
 * A detail panel's id (panels/index.ts registers them; the incident view shows the first for an id no
 * panel has, and routing ignores such a link).
 */
export type Tab = string;
export type View = 'home' | 'incident' | 'live' | 'sql';

export interface Selection {
  event_id: number | null;
  trace_id: string | null;
  span_id: string | null;
  stack_id: number | null;
  series: string | null;
}

const NONE: Selection = { event_id: null, trace_id: null, span_id: null, stack_id: null, series: null };

interface NavigationState {
  view: View;
  incidentId: number | null;
  tab: Tab;
  selection: Selection;
  /** Bumped when something asks the logs search box to take focus. */
  searchFocus: number;
  go(view: View, incidentId?: number | null): void;
  setTab(tab: Tab): void;
  select(s: Partial<Selection>): void;
  followEvidence(e: Evidence): void;
  focusSearch(): void;
}

const initial = parseHash(typeof location === 'undefined' ? '' : location.hash);

export const useNavigation = create<NavigationState>((set, get) => ({
  view: initial.view,
  incidentId: initial.incidentId,
  tab: initial.tab ?? 'overview',
  selection: NONE,
  searchFocus: 0,
  go: (view, incidentId = null) => set({ view, incidentId: view === 'incident' ? incidentId : get().incidentId, selection: NONE }),
  setTab: (tab) => set({ tab }),
  select: (s) => set({ selection: { ...NONE, ...s } }),
  followEvidence: (e) => {
    useCursor.getState().focus(e.start_ms, Math.max(e.end_ms, e.start_ms));
    switch (e.kind) {
      case 'series':
        set({ selection: { ...NONE, series: e.ref } });
        break;
      case 'event':
        set({ tab: 'logs', selection: { ...NONE, event_id: Number(e.ref) } });
        break;
      case 'span': {
        const [trace_id, span_id = null] = e.ref.split('/');
        set({ tab: 'traces', selection: { ...NONE, trace_id, span_id } });
        break;
      }
      case 'allocation':
        set({ tab: 'memory', selection: { ...NONE, stack_id: Number(e.ref) } });
        break;
    }
  },
  focusSearch: () => set({ tab: 'logs', searchFocus: get().searchFocus + 1 }),
}));

/** `#/incident/3/logs`, `#/incident/3/logs?from=…&to=…` (a zoomed range, epoch ms), `#/live`, `#/sql`, `#/` */
export function parseHash(hash: string): { view: View; incidentId: number | null; tab: Tab | null; range: [number, number] | null } {
  const [path, query = ''] = hash.replace(/^#\/?/, '').split('?');
  const parts = path.split('/').filter(Boolean);
  if (parts[0] === 'incident' && /^\d+$/.test(parts[1] ?? '')) {
    const tab = /^[a-z][a-z0-9-]*$/.test(parts[2] ?? '') ? parts[2] : null;
    const q = new URLSearchParams(query);
    const from = Number(q.get('from'));
    const to = Number(q.get('to'));
    const range: [number, number] | null = q.has('from') && q.has('to') && Number.isFinite(from) && Number.isFinite(to) && to > from ? [from, to] : null;
    return { view: 'incident', incidentId: Number(parts[1]), tab, range };
  }
  if (parts[0] === 'live') return { view: 'live', incidentId: null, tab: null, range: null };
  if (parts[0] === 'sql') return { view: 'sql', incidentId: null, tab: null, range: null };
  return { view: 'home', incidentId: null, tab: null, range: null };
}

/** The link to a view; an incident's carries its tab and, when zoomed, the visible range, so it can be shared. */
export function formatHash(view: View, incidentId: number | null, tab: Tab, range: readonly [number, number] | null = null): string {
  if (view === 'incident' && incidentId !== null) return `#/incident/${incidentId}/${tab}${range ? `?from=${Math.round(range[0])}&to=${Math.round(range[1])}` : ''}`;
  return view === 'home' ? '#/' : `#/${view}`;
}
