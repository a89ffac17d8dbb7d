// A stacked area chart of layers that add up to a total (live bytes by allocation site, allocated and
// cached-but-free bytes), on the shared visible range with the shared cursor. Each layer is drawn as its
// cumulative sum filled to zero, top layer first, so every band shows one layer; the legend and hover
// read each layer's own value. An optional trend line (the leak slope) continues from the last point,
// so the slope the diagnosis states can be checked against the ramp it is drawn beside.
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import { bytesTicks, formatBytes } from '../../../../common/format';
import { useCursor } from '../state/cursor';
import { useLayout } from '../state/layout';
import { SYNC_KEY, timeSpace, timeTicks } from './time-chart/time-axis';
import { readChartColors } from './theme-colors';

export interface Layer {
  label: string;
  values: ArrayLike<number>;
  color?: string;
}

interface Props {
  title: string;
  t: ArrayLike<number>;
  layers: Layer[];
  height?: number;
  /** A line from the last total onwards at this slope (bytes per minute), labelled. */
  trend?: { slope_per_min: number; label: string } | null;
  /** A horizontal line: the GPU's capacity. */
  ceiling?: { bytes: number; label: string } | null;
  testId?: string;
}

export function StackedChart({ title, t, layers, height = 180, trend = null, ceiling = null, testId }: Props) {
  const box = useRef<HTMLDivElement>(null);
  const theme = useLayout((s) => s.theme);
  useEffect(() => {
    const el = box.current;
    if (!el || !t.length) return;
    const colors = readChartColors();
    const n = t.length;
    // Cumulative sums, top layer (all of them) first.
    const cum: Float64Array[] = [];
    let acc = new Float64Array(n);
    for (const l of layers) {
      const next = new Float64Array(n);
      for (let i = 0; i < n; i++) next[i] = acc[i] + (Number(l.values[i]) || 0);
      cum.push(next);
      acc = next;
    }
    const order = layers.map((_, i) => layers.length - 1 - i);
    const line = document.createElement('div');
    line.className = 'chart-cursor';
    const colorOf = (i: number) => layers[i].color ?? colors.series[i % colors.series.length];
    const u = new uPlot(
      {
        width: Math.max(100, el.clientWidth),
        height,
        ms: 1,
        tzDate: (ts) => uPlot.tzDate(new Date(ts), 'Etc/UTC'),
        cursor: { sync: { key: SYNC_KEY }, drag: { x: false, y: false } },
        legend: { show: true, live: true },
        scales: {
          x: { time: true, range: () => [useCursor.getState().range[0], useCursor.getState().range[1]] },
          y: { range: (_u, _min, max) => [0, Math.max(max, ceiling?.bytes ?? 0, 1) * 1.05] },
        },
        axes: [
          { stroke: colors.axis, grid: { stroke: colors.grid }, space: (_u, _i, min, max, dim) => timeSpace(max - min, dim), values: (self, splits) => timeTicks(self, splits) },
          { stroke: colors.axis, grid: { stroke: colors.grid }, size: 84, values: (_u, s) => bytesTicks(s) },
        ],
        series: [
          {},
          ...order.map((i) => ({
            label: layers[i].label,
            stroke: colorOf(i),
            fill: colorOf(i),
            width: 1,
            points: { show: false },
            value: (_u: uPlot, _v: number | null, _s: number, idx: number | null) => (idx === null ? '—' : formatBytes(Number(layers[i].values[idx]) || 0)),
          })),
        ],
        hooks: {
          draw: [
            (self) => {
              const ctx = self.ctx;
              const dpr = devicePixelRatio || 1;
              ctx.save();
              ctx.lineWidth = 1.5 * dpr;
              ctx.setLineDash([6 * dpr, 4 * dpr]);
              ctx.font = `${11 * dpr}px system-ui, sans-serif`;
              const { left, top, width } = self.bbox;
              if (ceiling) {
                const y = self.valToPos(ceiling.bytes, 'y', true);
                ctx.strokeStyle = colors.alert;
                ctx.beginPath();
                ctx.moveTo(left, y);
                ctx.lineTo(left + width, y);
                ctx.stroke();
                ctx.fillStyle = colors.text;
                ctx.fillText(ceiling.label, left + 4 * dpr, Math.max(top + 11 * dpr, y - 4 * dpr));
              }
              if (trend && n > 0) {
                const t0 = Number(t[n - 1]);
                const v0 = acc[n - 1];
                const tEnd = self.scales.x.max ?? t0;
                const x0 = self.valToPos(t0, 'x', true);
                const y0 = self.valToPos(v0, 'y', true);
                // Drawn backwards from the last point over the chart, and onwards where the range goes past it.
                const tStart = self.scales.x.min ?? Number(t[0]);
                const back = Math.max(tStart, Number(t[0]));
                const x1 = self.valToPos(back, 'x', true);
                const y1 = self.valToPos(v0 - (trend.slope_per_min * (t0 - back)) / 60_000, 'y', true);
                const x2 = self.valToPos(Math.max(t0, tEnd), 'x', true);
                const y2 = self.valToPos(v0 + (trend.slope_per_min * (Math.max(t0, tEnd) - t0)) / 60_000, 'y', true);
                ctx.strokeStyle = colors.text;
                ctx.beginPath();
                ctx.moveTo(x1, y1);
                ctx.lineTo(x0, y0);
                ctx.lineTo(x2, y2);
                ctx.stroke();
                ctx.fillStyle = colors.text;
                const label = trend.label;
                const w = ctx.measureText(label).width;
                ctx.fillText(label, Math.max(left + 4 * dpr, Math.min(x0 - w - 6 * dpr, left + width - w - 4 * dpr)), Math.max(top + 24 * dpr, Math.min(y0 - 8 * dpr, top + self.bbox.height - 6 * dpr)));
              }
              ctx.restore();
            },
          ],
        },
      },
      [Float64Array.from(t, Number), ...order.map((i) => cum[i])],
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
  }, [t, layers, height, trend, ceiling, theme]);
  return (
    <section className="chart stacked-chart" aria-label={`${title} chart: ${layers.map((l) => l.label).join(', ')}`} data-testid={testId}>
      <header className="chart-title">{title}</header>
      <div ref={box} className="chart-box" data-state="ready" />
    </section>
  );
}
