// Chart colours come from the CSS variables of the active theme, read when a chart is built.
export interface ChartColors {
  axis: string;
  grid: string;
  text: string;
  cursor: string;
  onset: string;
  alert: string;
  annotation: string;
  event: string;
  series: string[];
}

export function readChartColors(el: Element = document.documentElement): ChartColors {
  const css = getComputedStyle(el);
  const v = (name: string) => css.getPropertyValue(name).trim();
  return {
    axis: v('--fg-muted'),
    grid: v('--grid'),
    text: v('--fg'),
    cursor: v('--cursor'),
    onset: v('--onset'),
    alert: v('--alert-band'),
    annotation: v('--note-band'),
    event: v('--event'),
    series: [1, 2, 3, 4, 5, 6, 7, 8].map((i) => v(`--series-${i}`)),
  };
}

/**
 * Early → late along a trajectory (0..1). Each theme has its own ramp so that every part of it stands
 * out from the background: light colours on the dark theme, dark ones on the light theme.
 */
const TIME_RAMPS: Record<'dark' | 'light', number[][]> = {
  dark: [
    [110, 168, 254],
    [72, 202, 228],
    [120, 220, 130],
    [255, 212, 59],
  ],
  light: [
    [30, 64, 175],
    [14, 116, 144],
    [21, 128, 61],
    [180, 83, 9],
  ],
};

export function timeColor(f: number, theme: 'dark' | 'light'): string {
  const stops = TIME_RAMPS[theme];
  const x = Math.max(0, Math.min(1, f)) * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(x));
  const k = x - i;
  const c = stops[i].map((a, j) => Math.round(a + (stops[i + 1][j] - a) * k));
  return `rgb(${c[0]},${c[1]},${c[2]})`;
}
