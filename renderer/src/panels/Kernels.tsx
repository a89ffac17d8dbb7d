// GPU kernels: one lane per device/stream over the visible range (drag to zoom, click for the cursor),
// and the per-kernel summary of the range (count, total, mean, p99).
import { useEffect, useMemo, useRef } from 'react';
import type { KernelRow } from '../../../electron/contract/types';
import { formatDuration } from '../../../common/format';
import { beginInteraction } from '../charts/draw-tracker';
import { readChartColors } from '../charts/theme-colors';
import { useCursor } from '../state/cursor';
import { useIncidents } from '../state/incidents';
import { useKernels } from '../state/kernels';
import { useLayout } from '../state/layout';

const LANE_H = 18;
const LABEL_W = 90;

function lanesOf(rows: KernelRow[]): string[] {
  return [...new Set(rows.map((r) => `${r.device}/${r.stream}`))].sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
}

function KernelLanes({ rows }: { rows: KernelRow[] }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const range = useCursor((s) => s.range);
  const theme = useLayout((s) => s.theme);
  const lanes = useMemo(() => lanesOf(rows), [rows]);
  const drag = useRef<number | null>(null);

  useEffect(() => {
    const c = canvas.current;
    if (!c) return;
    const dpr = devicePixelRatio || 1;
    const draw = () => {
      const w = c.clientWidth;
      const h = lanes.length * LANE_H + 4;
      c.width = w * dpr;
      c.height = h * dpr;
      c.style.height = `${h}px`;
      const ctx = c.getContext('2d')!;
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      const colors = readChartColors();
      ctx.clearRect(0, 0, w, h);
      const [s, e] = useCursor.getState().range;
      const pw = w - LABEL_W;
      const X = (t: number) => LABEL_W + ((t - s) / (e - s)) * pw;
      ctx.font = '11px system-ui, sans-serif';
      lanes.forEach((l, i) => {
        ctx.fillStyle = colors.axis;
        ctx.fillText(`gpu ${l.replace('/', ' · s')}`, 4, i * LANE_H + 13);
        ctx.fillStyle = colors.grid;
        ctx.fillRect(LABEL_W, i * LANE_H + LANE_H - 1, pw, 1);
      });
      const laneIndex = new Map(lanes.map((l, i) => [l, i]));
      // Kernels shorter than a pixel still get one pixel: a busy stream must look busy.
      for (const r of rows) {
        const i = laneIndex.get(`${r.device}/${r.stream}`)!;
        const x0 = Math.max(LABEL_W, X(r.start_ms));
        const x1 = Math.min(w, X(r.end_ms));
        if (x1 < LABEL_W || x0 > w) continue;
        ctx.fillStyle = colors.series[Math.abs(hash(r.name)) % colors.series.length];
        ctx.fillRect(x0, i * LANE_H + 2, Math.max(1, x1 - x0), LANE_H - 5);
      }
      const cur = useCursor.getState().cursor_ms;
      if (cur !== null && cur >= s && cur <= e) {
        ctx.fillStyle = colors.cursor;
        ctx.fillRect(Math.round(X(cur)), 0, 1.5, h);
      }
    };
    draw();
    const unsub = useCursor.subscribe((st, p) => st.cursor_ms !== p.cursor_ms && draw());
    const ro = new ResizeObserver(draw);
    ro.observe(c);
    return () => {
      unsub();
      ro.disconnect();
    };
  }, [rows, lanes, range, theme]);

  const toTime = (clientX: number) => {
    const c = canvas.current!;
    const rect = c.getBoundingClientRect();
    const [s, e] = useCursor.getState().range;
    return s + ((clientX - rect.left - LABEL_W) / (rect.width - LABEL_W)) * (e - s);
  };
  if (!lanes.length) return null;
  return (
    <canvas
      ref={canvas}
      className="kernel-lanes"
      role="img"
      aria-label={`Kernels on ${lanes.length} streams; drag to zoom, click to move the cursor`}
      onMouseDown={(e) => (drag.current = e.clientX)}
      onMouseUp={(e) => {
        const from = drag.current;
        drag.current = null;
        if (from === null) return;
        if (Math.abs(e.clientX - from) < 3) useCursor.getState().setCursor(toTime(e.clientX));
        else {
          beginInteraction('qs:zoom');
          useCursor.getState().setRange([toTime(Math.min(from, e.clientX)), toTime(Math.max(from, e.clientX))]);
        }
      }}
    />
  );
}

function hash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) | 0;
  return h;
}

export function Kernels() {
  const incidentId = useIncidents((s) => s.openId);
  const hasKernels = useIncidents((s) => (s.detail?.counts.kernels ?? 0) > 0);
  const range = useCursor((s) => s.range);
  const { rows, summary, state, error, load } = useKernels();
  useEffect(() => {
    if (incidentId !== null && hasKernels) void load(incidentId, range);
  }, [incidentId, hasKernels, range, load]);
  if (!hasKernels) return <div className="panel muted pad" data-state="empty">This incident has no kernel records (PyTorch profiler trace or Nsight Systems export).</div>;
  return (
    <div className="panel kernels" data-state={state} data-testid="kernels-panel">
      {error ? <div className="error-text">{error}</div> : null}
      <div className="muted small">{rows.length.toLocaleString('en-US')} kernels in the visible range{rows.length >= 50_000 ? ' (first 50 000; zoom in for all)' : ''}</div>
      <KernelLanes rows={rows} />
      <div className="table-scroll">
        <table>
          <thead>
            <tr>
              <th>kernel</th>
              <th className="num">count</th>
              <th className="num">total</th>
              <th className="num">mean</th>
              <th className="num">p99</th>
            </tr>
          </thead>
          <tbody>
            {summary.map((k) => (
              <tr key={k.name}>
                <td className="mono msg" title={k.name}>
                  {k.name}
                </td>
                <td className="num">{k.count.toLocaleString('en-US')}</td>
                <td className="num">{formatDuration(k.total_us / 1000)}</td>
                <td className="num">{formatDuration(k.mean_us / 1000)}</td>
                <td className="num">{formatDuration(k.p99_us / 1000)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
