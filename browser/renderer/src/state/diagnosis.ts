// The diagnosis of the open incident (api.analyze), with the window index lookup the replay and the
// gauges use.
import { create } from 'zustand';
import type { Diagnosis, Preset, WindowScore } from '../../../../common/contract/diagnosis';
import { DISRUPTION_KINDS as DISRUPTIONS, onsetOf, type VerdictEvent } from '../../../../common/verdict';
import { api, errorText } from '../api';
import { type Range, useCursor } from './cursor';
import type { LoadState } from './incidents';
import { useMarkers } from './markers';

interface DiagnosisState {
  incidentId: number | null;
  diagnosis: Diagnosis | null;
  state: LoadState;
  error: string | null;
  preset: Preset;
  load(incidentId: number, preset?: Preset): Promise<void>;
  clear(): void;
}

export const useDiagnosis = create<DiagnosisState>((set, get) => ({
  incidentId: null,
  diagnosis: null,
  state: 'idle',
  error: null,
  preset: 'default',
  load: async (incidentId, preset = get().preset) => {
    set({ incidentId, preset, state: 'loading', error: null, ...(get().incidentId === incidentId ? {} : { diagnosis: null }) });
    const t0 = performance.now();
    try {
      const diagnosis = await api.analyze({ incident_id: incidentId, options: { preset } });
      if (get().incidentId !== incidentId) return;
      set({ diagnosis, state: 'ready' });
      const cursor = useCursor.getState();
      if (cursor.cursor_ms === null) cursor.setCursor(initialCursor(diagnosis, cursor.full, useMarkers.getState().events));
      performance.measure('qs:analyze', { start: t0 });
    } catch (e) {
      if (get().incidentId === incidentId) set({ state: 'error', error: errorText(e) });
    }
  },
  clear: () => set({ incidentId: null, diagnosis: null, state: 'idle', error: null }),
}));

const NO_WINDOWS: WindowScore[] = [];

/**
 * Whether the diagnosis was computed over data: early in a recording (or for an incident that holds
 * nothing) the engine answers an empty span at the epoch, which is "not enough data yet", not a verdict.
 */
export function hasData(d: Diagnosis | null): d is Diagnosis {
  return !!d && d.incident.start_ms > 0 && d.incident.end_ms > d.incident.start_ms;
}

/** The windows the replay, the quadrant map and the gauges walk: none for a diagnosis without data. */
export function replayWindows(d: Diagnosis | null): WindowScore[] {
  return hasData(d) ? d.windows : NO_WINDOWS;
}

/** Where the cursor starts: the onset (the verdict's: a crash where nothing else marks one), else the first window, and only ever a time inside the span. */
export function initialCursor(d: Diagnosis, full: Range, events: readonly VerdictEvent[] = []): number | null {
  const inside = (ms: number | null | undefined): ms is number => typeof ms === 'number' && ms >= full[0] && ms <= full[1];
  if (!hasData(d)) return null;
  const onset = onsetOf(d, events.filter((e) => e.kind in DISRUPTIONS));
  if (inside(onset)) return onset;
  return replayWindows(d).find((w) => inside(w.t_ms))?.t_ms ?? null;
}

/** Index of the last window starting at or before `ms` (0 before the first); -1 when there are none. */
export function windowIndexAt(windows: readonly WindowScore[], ms: number | null): number {
  if (!windows.length) return -1;
  if (ms === null) return 0;
  let lo = 0;
  let hi = windows.length - 1;
  if (ms < windows[0].t_ms) return 0;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (windows[mid].t_ms <= ms) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
