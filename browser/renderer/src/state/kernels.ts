// GPU kernels in the visible range and their summary.
import { create } from 'zustand';
import type { KernelRow, KernelSummaryRow } from '../../../../common/contract/types';
import { api, errorText } from '../api';
import type { Range } from './cursor';
import type { LoadState } from './incidents';

interface KernelsState {
  rows: KernelRow[];
  summary: KernelSummaryRow[];
  state: LoadState;
  error: string | null;
  load(incidentId: number, range: Range): Promise<void>;
}

let seq = 0;

export const useKernels = create<KernelsState>((set) => ({
  rows: [],
  summary: [],
  state: 'idle',
  error: null,
  load: async (incidentId, range) => {
    const my = ++seq;
    set({ state: 'loading' });
    try {
      const [rows, summary] = await Promise.all([
        api.queryKernels({ incident_id: incidentId, start_ms: range[0], end_ms: range[1], limit: 50_000 }),
        api.kernelSummary({ incident_id: incidentId, start_ms: range[0], end_ms: range[1], limit: 200 }),
      ]);
      if (my === seq) set({ rows, summary, state: 'ready', error: null });
    } catch (e) {
      if (my === seq) set({ state: 'error', error: errorText(e) });
    }
  },
}));
