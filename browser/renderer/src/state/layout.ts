// Theme, overlays and splitter sizes. The theme is remembered globally, splitter sizes per incident.
import { create } from 'zustand';

export type Theme = 'dark' | 'light';

export interface PaneSizes {
  /** Width of the quadrant-map column, px. */
  left: number;
  /** Height of the timeline, px. */
  timeline: number;
}

/** The quadrant-map column takes about a quarter of the window (360 px on a wide screen), the timeline half the height. */
export const DEFAULT_SIZES: PaneSizes = {
  left: Math.round(Math.max(280, Math.min(360, (typeof window === 'undefined' ? 1600 : window.innerWidth) * 0.25))),
  timeline: Math.round(Math.max(260, Math.min(420, (typeof window === 'undefined' ? 1000 : window.innerHeight) * 0.5))),
};

const THEME_KEY = 'quadscope.theme';
const sizesKey = (incidentId: number) => `quadscope.layout.${incidentId}`;

function readJson<T>(key: string): T | null {
  try {
    const s = localStorage.getItem(key);
    return s ? (JSON.parse(s) as T) : null;
  } catch {
    return null;
  }
}

function initialTheme(): Theme {
  const saved = localStorage.getItem(THEME_KEY);
  if (saved === 'dark' || saved === 'light') return saved;
  return window.matchMedia?.('(prefers-color-scheme: light)').matches ? 'light' : 'dark';
}

interface LayoutState {
  theme: Theme;
  helpOpen: boolean;
  sizes: PaneSizes;
  sizesFor: number | null;
  toggleTheme(): void;
  setHelp(open: boolean): void;
  loadSizes(incidentId: number): void;
  setSize(key: keyof PaneSizes, px: number): void;
}

export const useLayout = create<LayoutState>((set, get) => ({
  theme: initialTheme(),
  helpOpen: false,
  sizes: DEFAULT_SIZES,
  sizesFor: null,
  toggleTheme: () => {
    const theme: Theme = get().theme === 'dark' ? 'light' : 'dark';
    localStorage.setItem(THEME_KEY, theme);
    set({ theme });
  },
  setHelp: (helpOpen) => set({ helpOpen }),
  loadSizes: (incidentId) => set({ sizesFor: incidentId, sizes: { ...DEFAULT_SIZES, ...readJson<Partial<PaneSizes>>(sizesKey(incidentId)) } }),
  setSize: (key, px) => {
    const sizes = { ...get().sizes, [key]: Math.round(px) };
    const id = get().sizesFor;
    if (id !== null) localStorage.setItem(sizesKey(id), JSON.stringify(sizes));
    set({ sizes });
  },
}));
