// The diagnosis of the open incident (api.analyze), with the window index lookup the replay and the
// gauges use.
import { create } from 'zustand';
import type { Diagnosis, Preset, WindowScore } from '../../../electron/contract/diagnosis';
import { api, errorText } from '../api';
import { useCursor } from './cursor';
import type { LoadState } from './incidents';

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
      if (cursor.cursor_ms === null) cursor.setCursor(diagnosis.onset_ms ?? diagnosis.windows[0]?.t_ms ?? null);
      performance.measure('qs:analyze', { start: t0 });
    } catch (e) {
      if (get().incidentId === incidentId) set({ state: 'error', error: errorText(e) });
    }
  },
  clear: () => set({ incidentId: null, diagnosis: null, state: 'idle', error: null }),
}));

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
