// Drawing: the uPlot instance of one chart — axes, legend, series strokes, and what is drawn over the
// series (alert and note bands, onset, event markers, the latency trigger line) — plus the DOM cursor line
// and the lanes above the charts lined up with the plot. The other hooks of TimeChart reach the instance
// through the Plot this returns: they run their effects after this one in the same commit, on the same
// dependencies, so they always see the instance of the current chart.
import { useEffect, useRef, type DependencyList, type MutableRefObject, type RefObject } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { formatTicks, formatValue } from '../../../../../common/format';
import type { ChartGroup } from '../../../../../common/charts/series-groups';
import { useCursor } from '../../state/cursor';
import { useMarkers } from '../../state/markers';
import { drawOverlays, drawThreshold, quantileRange } from '../overlays';
import { readChartColors } from '../theme-colors';
import { RIGHT_PAD, SYNC_KEY, timeSpace, timeTicks } from './time-axis';

const SPARSE_POINTS = 40;

let instances = 0;

export interface Plot {
  u: uPlot;
  /** The chart's box (`data-state`, `data-points` and `title` say how its data stand). */
  el: HTMLDivElement;
  /** Unique per chart instance, for the draw tracker. */
  chartId: string;
  /** Called after every draw, once the overlays are drawn. */
  onDraw: Set<(u: uPlot) => void>;
  /** Called when a drag selection ends (u.select holds it). */
  onSelect: Set<(u: uPlot) => void>;
  /** The visible range, from the shared cursor store. */
  xRange(): [number, number];
  /** The plot's width in CSS pixels: how many points to ask for. */
  plotWidth(): number;
  placeCursor(): void;
  alignLanes(): void;
}

/** The quantile chart's signal (the latency trigger is drawn on its chart only). */
export const signalOf = (group: ChartGroup) => group.quantiles?.histogram.name ?? '';

export function usePlot(box: RefObject<HTMLDivElement | null>, group: ChartGroup, height: number, deps: DependencyList): MutableRefObject<Plot | null> {
  const plot = useRef<Plot | null>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const signal = signalOf(group);
    const colors = readChartColors();
    const cursorLine = document.createElement('div');
    cursorLine.className = 'chart-cursor';
    const onDraw = new Set<(u: uPlot) => void>();
    const onSelect = new Set<(u: uPlot) => void>();

    const xRange = (): [number, number] => {
      const r = useCursor.getState().range;
      return [r[0], r[1]];
    };

    const opts: uPlot.Options = {
      width: Math.max(100, el.clientWidth),
      height,
      ms: 1,
      // Fixed padding: uPlot's automatic padding grows after the first data arrive, which would change
      // the plot width (and the points we asked for) after the fact.
      padding: [8, RIGHT_PAD, 0, 0],
      tzDate: (ts) => uPlot.tzDate(new Date(ts), 'Etc/UTC'),
      cursor: {
        sync: { key: SYNC_KEY },
        drag: { x: true, y: false, setScale: false },
        points: { show: false },
      },
      legend: { show: true, live: true },
      scales: { x: { time: true, range: () => xRange() }, y: group.quantiles ? { auto: true, range: (_u, min, max) => quantileRange(min, max, group.unit, signal) } : { auto: true } },
      axes: [
        {
          stroke: colors.axis,
          grid: { stroke: colors.grid, width: 1 },
          ticks: { stroke: colors.grid },
          space: (_u, _i, min, max, dim) => timeSpace(max - min, dim),
          values: (self, splits) => timeTicks(self, splits),
        },
        {
          stroke: colors.axis,
          grid: { stroke: colors.grid, width: 1 },
          ticks: { stroke: colors.grid },
          // Wide enough for the longest tick ("3 min 20s"), fixed per chart so plot widths stay equal.
          size: 84,
          values: (_u, splits) => formatTicks(splits, group.unit),
        },
      ],
      series: [
        { value: (_u, v) => (v === null ? '—' : new Date(v).toISOString().slice(11, 23)) },
        ...group.series.map((s, i) => ({
          label: s.label,
          stroke: colors.series[i % colors.series.length],
          width: 1.25,
          spanGaps: true,
          // A few samples in view (a recording that just started, a sparse series) draw as dots too:
          // a line of two points close together is all but invisible.
          points: { show: (_u: uPlot, _si: number, i0: number, i1: number) => i1 - i0 < SPARSE_POINTS, size: 5 },
          value: (_u: uPlot, v: number | null) => formatValue(v, group.unit),
        })),
      ],
      hooks: {
        draw: [
          (u) => {
            drawOverlays(u, colors);
            if (group.quantiles) drawThreshold(u, colors, group.unit, signal);
            onDraw.forEach((f) => f(u));
          },
        ],
        setSelect: [(u) => onSelect.forEach((f) => f(u))],
      },
    };

    const u = new uPlot(opts, [[], ...group.series.map(() => [])], el.querySelector<HTMLDivElement>('.chart-canvas')!);
    u.over.appendChild(cursorLine);

    const placeCursor = () => {
      const c = useCursor.getState().cursor_ms;
      const [s, e] = useCursor.getState().range;
      if (c === null || c < s || c > e) {
        cursorLine.style.display = 'none';
        return;
      }
      cursorLine.style.display = 'block';
      cursorLine.style.transform = `translateX(${u.valToPos(c, 'x')}px)`;
    };

    // Lanes above the charts (event markers) line up with the plotting area of the charts.
    const alignLanes = () => {
      const tl = el.closest<HTMLElement>('.timeline');
      if (!tl) return;
      const r = u.over.getBoundingClientRect();
      const t = tl.getBoundingClientRect();
      tl.style.setProperty('--plot-left', `${r.left - t.left}px`);
      tl.style.setProperty('--plot-width', `${r.width}px`);
    };

    const plotWidth = () => Math.max(16, Math.min(20_000, Math.floor(u.over.clientWidth || u.bbox.width / devicePixelRatio)));

    plot.current = { u, el, chartId: `${group.id}#${++instances}`, onDraw, onSelect, xRange, plotWidth, placeCursor, alignLanes };

    const unsubs = [
      useCursor.subscribe((st, prev) => st.cursor_ms !== prev.cursor_ms && placeCursor()),
      useMarkers.subscribe((st, prev) => st.events !== prev.events && u.redraw(false)),
    ];
    return () => {
      unsubs.forEach((f) => f());
      plot.current = null;
      u.destroy();
    };
    // The caller's dependencies: group.series is captured by its series key, so a new array with the same
    // series does not rebuild the chart.
  }, deps);
  return plot;
}
