// Live recording: status from api.liveStatus and 'live-status' events.
import { create } from 'zustand';
import type { LiveConfig, LiveStatus } from '../../../../common/contract/types';
import { api, errorText } from '../api';

interface LiveState {
  status: LiveStatus | null;
  busy: boolean;
  error: string | null;
  refresh(): Promise<void>;
  start(cfg: LiveConfig): Promise<void>;
  stop(): Promise<void>;
  apply(s: LiveStatus): void;
}

export const useLive = create<LiveState>((set) => {
  const run = async (fn: () => Promise<LiveStatus>) => {
    set({ busy: true, error: null });
    try {
      set({ status: await fn(), busy: false });
    } catch (e) {
      set({ busy: false, error: errorText(e) });
    }
  };
  return {
    status: null,
    busy: false,
    error: null,
    refresh: () => run(() => api.liveStatus()),
    start: (cfg) => run(() => api.startLive(cfg)),
    stop: () => run(() => api.stopLive()),
    apply: (status) => set({ status }),
  };
});
