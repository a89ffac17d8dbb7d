// A small uPlot chart of points the engine has already thinned (api.memoryTimeline), on the shared
// visible range, with the shared cursor line.
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import { formatValue } from '../../../../common/format';
import { useCursor } from '../state/cursor';
import { useLayout } from '../state/layout';
import { SYNC_KEY, timeSpace, timeTicks } from './TimeChart';
import { readChartColors } from './theme-colors';

interface Props {
  title: string;
  unit: string;
  t: Float64Array;
  v: Float64Array;
  height?: number;
}

export function PointsChart({ title, unit, t, v, height = 140 }: Props) {
  const box = useRef<HTMLDivElement>(null);
  const theme = useLayout((s) => s.theme);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const colors = readChartColors();
    const line = document.createElement('div');
    line.className = 'chart-cursor';
    const u = new uPlot(
      {
        width: Math.max(100, el.clientWidth),
        height,
        ms: 1,
        tzDate: (ts) => uPlot.tzDate(new Date(ts), 'Etc/UTC'),
        cursor: { sync: { key: SYNC_KEY }, drag: { x: false, y: false } },
        scales: { x: { time: true, range: () => [useCursor.getState().range[0], useCursor.getState().range[1]] } },
        axes: [
          // The same 24-hour UTC clock as the timeline (uPlot's own ticks would read 12-hour local time).
          { stroke: colors.axis, grid: { stroke: colors.grid }, space: (_u, _i, min, max, dim) => timeSpace(max - min, dim), values: (self, splits) => timeTicks(self, splits) },
          { stroke: colors.axis, grid: { stroke: colors.grid }, size: 84, values: (_u, s) => s.map((x) => formatValue(x, unit)) },
        ],
        series: [{}, { label: title, stroke: colors.series[0], width: 1.25, points: { show: false }, value: (_u, x) => formatValue(x, unit) }],
      },
      [t, v],
      el,
    );
    u.over.appendChild(line);
    const place = () => {
      const c = useCursor.getState().cursor_ms;
      line.style.display = c === null ? 'none' : 'block';
      if (c !== null) line.style.transform = `translateX(${u.valToPos(c, 'x')}px)`;
    };
    place();
    const unsub = useCursor.subscribe((s, p) => {
      if (s.range !== p.range) {
        u.setScale('x', { min: s.range[0], max: s.range[1] });
        place();
      } else if (s.cursor_ms !== p.cursor_ms) place();
    });
    const ro = new ResizeObserver(() => u.setSize({ width: Math.max(100, el.clientWidth), height }));
    ro.observe(el);
    return () => {
      unsub();
      ro.disconnect();
      u.destroy();
    };
  }, [t, v, title, unit, height, theme]);
  return (
    <section className="chart" aria-label={`${title} chart`}>
      <header className="chart-title">{title}</header>
      <div ref={box} className="chart-box" data-state="ready" />
    </section>
  );
}
