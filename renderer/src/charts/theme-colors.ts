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

/** Blue → yellow along a trajectory (0..1), readable on both themes. */
export function timeColor(f: number): string {
  const stops = [
    [68, 1, 84],
    [59, 82, 139],
    [33, 145, 140],
    [94, 201, 98],
    [253, 231, 37],
  ];
  const x = Math.max(0, Math.min(1, f)) * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(x));
  const k = x - i;
  const c = stops[i].map((a, j) => Math.round(a + (stops[i + 1][j] - a) * k));
  return `rgb(${c[0]},${c[1]},${c[2]})`;
}
