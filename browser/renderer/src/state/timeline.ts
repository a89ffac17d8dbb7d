// How the timeline reads: the window counters are turned into rates over (per scrape, or smoothed over
// 30 s to 5 min), and the filter over the series folded behind the canonical charts.
import { create } from 'zustand';

export const RATE_WINDOWS: { ms: number; label: string }[] = [
  { ms: 0, label: 'per scrape' },
  { ms: 30_000, label: '30 s' },
  { ms: 60_000, label: '1 min' },
  { ms: 300_000, label: '5 min' },
];

interface TimelineState {
  rateWindowMs: number;
  /** Words matched against the names and labels of the other series; empty shows none of them. */
  filter: string;
  /** Every other series shown, filter or not. */
  showAll: boolean;
  setRateWindow(ms: number): void;
  setFilter(text: string): void;
  setShowAll(on: boolean): void;
}

export const useTimeline = create<TimelineState>((set) => ({
  rateWindowMs: 0,
  filter: '',
  showAll: false,
  setRateWindow: (rateWindowMs) => set({ rateWindowMs }),
  setFilter: (filter) => set({ filter }),
  setShowAll: (showAll) => set({ showAll }),
}));
