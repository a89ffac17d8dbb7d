// The one time axis every panel shares: the cursor (a point in time) and the visible range.
import { create } from 'zustand';

export type Range = readonly [number, number];

interface CursorState {
  /** The incident's whole span; neither the visible range nor the cursor ever leaves it. */
  full: Range;
  range: Range;
  cursor_ms: number | null;
  reset(full: Range): void;
  setCursor(ms: number | null): void;
  setRange(r: Range): void;
  /** Shows `[start, end]` with some margin and puts the cursor at `start` (evidence links). */
  focus(start: number, end: number): void;
  zoom(factor: number, around?: number): void;
  pan(fraction: number): void;
  showAll(): void;
}

const MIN_SPAN_MS = 1;

export function clampRange(r: Range, full: Range): Range {
  const fullSpan = full[1] - full[0];
  let span = Math.max(MIN_SPAN_MS, Math.min(r[1] - r[0], fullSpan));
  if (!(span > 0)) span = MIN_SPAN_MS;
  let start = Math.max(full[0], Math.min(r[0], full[1] - span));
  if (!Number.isFinite(start)) start = full[0];
  return [start, start + span];
}

/** `ms` inside the span (null stays null): nothing may put the cursor before the data start, at 1970. */
export function clampCursor(ms: number | null, full: Range): number | null {
  if (ms === null || !Number.isFinite(ms)) return null;
  return Math.max(full[0], Math.min(full[1], ms));
}

export const useCursor = create<CursorState>((set, get) => ({
  full: [0, 1],
  range: [0, 1],
  cursor_ms: null,
  reset: (full) => set({ full, range: full, cursor_ms: null }),
  setCursor: (ms) => set({ cursor_ms: clampCursor(ms, get().full) }),
  setRange: (r) => set({ range: clampRange(r, get().full) }),
  focus: (start, end) => {
    const span = Math.max(end - start, 1);
    const pad = Math.max(span * 2, 60_000);
    set({ cursor_ms: clampCursor(start, get().full), range: clampRange([start - pad, end + pad], get().full) });
  },
  zoom: (factor, around) => {
    const [s, e] = get().range;
    const c = around ?? (s + e) / 2;
    set({ range: clampRange([c - (c - s) * factor, c + (e - c) * factor], get().full) });
  },
  pan: (fraction) => {
    const [s, e] = get().range;
    const d = (e - s) * fraction;
    set({ range: clampRange([s + d, e + d], get().full) });
  },
  showAll: () => set({ range: get().full }),
}));
