// GPU kernels in the visible range, their summary, and the CPU → GPU flows (correlation ids) between the
// launching calls and the kernels.
import { create } from 'zustand';
import type { KernelFlows, KernelRow, KernelSummaryRow } from '../../../../../common/contract/types';
import { api, errorText } from '../../api';
import type { Range } from '../../state/cursor';
import type { LoadState } from '../../state/incidents';

/** Flows asked for per range: beyond this an arrow per kernel is a smear, and the view says to zoom in. */
export const FLOW_LIMIT = 2000;

interface KernelsState {
  rows: KernelRow[];
  summary: KernelSummaryRow[];
  flows: KernelFlows | null;
  showFlows: boolean;
  state: LoadState;
  error: string | null;
  load(incidentId: number, range: Range): Promise<void>;
  setShowFlows(on: boolean): void;
}

let seq = 0;

export const useKernels = create<KernelsState>((set) => ({
  rows: [],
  summary: [],
  flows: null,
  showFlows: true,
  state: 'idle',
  error: null,
  load: async (incidentId, range) => {
    const my = ++seq;
    set({ state: 'loading' });
    try {
      const [rows, summary, flows] = await Promise.all([
        api.queryKernels({ incident_id: incidentId, start_ms: range[0], end_ms: range[1], limit: 50_000 }),
        api.kernelSummary({ incident_id: incidentId, start_ms: range[0], end_ms: range[1], limit: 200 }),
        api.kernelFlows({ incident_id: incidentId, start_ms: range[0], end_ms: range[1], limit: FLOW_LIMIT }),
      ]);
      if (my === seq) set({ rows, summary, flows, state: 'ready', error: null });
    } catch (e) {
      if (my === seq) set({ state: 'error', error: errorText(e) });
    }
  },
  setShowFlows: (showFlows) => set({ showFlows }),
}));
