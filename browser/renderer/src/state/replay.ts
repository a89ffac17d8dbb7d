// Replay: walks the cursor through the diagnosis windows at a chosen speed (windows per second).
// The loop runs on animation frames and writes only the cursor store, so every panel follows.
import { create } from 'zustand';
import { useCursor } from './cursor';
import { replayWindows, useDiagnosis, windowIndexAt } from './diagnosis';

export const SPEEDS = [1, 2, 5, 10, 30, 60] as const;

interface ReplayState {
  playing: boolean;
  /** Windows per second. */
  speed: number;
  play(): void;
  pause(): void;
  toggle(): void;
  setSpeed(s: number): void;
  /** Moves the cursor by `n` windows. */
  step(n: number): void;
  seek(index: number): void;
}

let frame = 0;
let lastTs = 0;
let position = 0;

function windows() {
  return replayWindows(useDiagnosis.getState().diagnosis);
}

function keepInView(ms: number): void {
  const { range, setRange } = useCursor.getState();
  const span = range[1] - range[0];
  if (ms < range[0] || ms > range[1]) setRange([ms - span * 0.1, ms + span * 0.9]);
}

function moveTo(pos: number): void {
  const w = windows();
  if (!w.length) return;
  position = Math.max(0, Math.min(w.length - 1, pos));
  const i = Math.floor(position);
  const frac = position - i;
  const t = i + 1 < w.length ? w[i].t_ms + (w[i + 1].t_ms - w[i].t_ms) * frac : w[i].t_ms;
  keepInView(t);
  useCursor.getState().setCursor(t);
}

function tick(ts: number): void {
  const dt = lastTs ? Math.min(ts - lastTs, 250) : 0;
  lastTs = ts;
  const w = windows();
  const next = position + (dt / 1000) * useReplay.getState().speed;
  if (next >= w.length - 1) {
    moveTo(w.length - 1);
    useReplay.getState().pause();
    return;
  }
  moveTo(next);
  performance.mark('qs:replay-frame');
  frame = requestAnimationFrame(tick);
}

export const useReplay = create<ReplayState>((set, get) => ({
  playing: false,
  speed: 5,
  play: () => {
    const w = windows();
    if (!w.length || get().playing) return;
    position = windowIndexAt(w, useCursor.getState().cursor_ms);
    if (position >= w.length - 1) position = 0;
    lastTs = 0;
    set({ playing: true });
    frame = requestAnimationFrame(tick);
  },
  pause: () => {
    cancelAnimationFrame(frame);
    set({ playing: false });
  },
  toggle: () => (get().playing ? get().pause() : get().play()),
  setSpeed: (speed) => set({ speed }),
  step: (n) => {
    get().pause();
    moveTo(windowIndexAt(windows(), useCursor.getState().cursor_ms) + n);
  },
  seek: (index) => moveTo(index),
}));
