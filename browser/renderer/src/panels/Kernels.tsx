// GPU kernels: one named lane per device and stream over the visible range (drag to zoom, click for the
// cursor, hover for the kernel under the mouse: its name, duration, start and correlation id), kernels
// named inside their bars where they are wide enough, and the per-kernel summary of the range (count,
// total, mean, p99) in a table whose numbers always fit: the long C++ names are shortened, in full on hover.
import { useEffect, useMemo, useRef, useState } from 'react';
import type { KernelRow } from '../../../../common/contract/types';
import { formatDuration, formatTime, groupDigits } from '../../../../common/format';
import { beginInteraction } from '../charts/draw-tracker';
import { readChartColors } from '../charts/theme-colors';
import { useCursor } from '../state/cursor';
import { useIncidents } from '../state/incidents';
import { useKernels } from '../state/kernels';
import { useLayout } from '../state/layout';

const LANE_H = 20;
const LABEL_W = 118;

interface Lane {
  key: string;
  device: number;
  stream: number;
  label: string;
}

function lanesOf(rows: KernelRow[]): Lane[] {
  const seen = new Map<string, Lane>();
  for (const r of rows) {
    const key = `${r.device}/${r.stream}`;
    if (!seen.has(key)) seen.set(key, { key, device: r.device, stream: r.stream, label: `GPU ${r.device} · stream ${r.stream}` });
  }
  return [...seen.values()].sort((a, b) => a.device - b.device || a.stream - b.stream);
}

/**
 * "void flash::flash_fwd_splitkv_kernel<Traits<128, …>>(Params)" → "flash::flash_fwd_splitkv_kernel": the
 * template arguments and the parameter list folded away, the return type dropped.
 */
export function shortKernelName(name: string): string {
  let s = name.trim();
  let prev = '';
  while (prev !== s) {
    prev = s;
    s = s.replace(/<[^<>]*>/g, '').replace(/\([^()]*\)/g, '');
  }
  s = s.replace(/^(void|auto|static|__global__)\s+/, '').trim();
  return s || name;
}

function hash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) | 0;
  return h;
}

interface Hover {
  row: KernelRow;
  x: number;
  y: number;
}

function KernelLanes({ rows }: { rows: KernelRow[] }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const range = useCursor((s) => s.range);
  const theme = useLayout((s) => s.theme);
  const lanes = useMemo(() => lanesOf(rows), [rows]);
  const byLane = useMemo(() => {
    const m = new Map<string, KernelRow[]>();
    for (const r of rows) (m.get(`${r.device}/${r.stream}`) ?? m.set(`${r.device}/${r.stream}`, []).get(`${r.device}/${r.stream}`)!).push(r);
    for (const list of m.values()) list.sort((a, b) => a.start_ms - b.start_ms);
    return m;
  }, [rows]);
  const drag = useRef<number | null>(null);
  const [hover, setHover] = useState<Hover | null>(null);

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
      ctx.textBaseline = 'middle';
      lanes.forEach((l, i) => {
        ctx.fillStyle = colors.text;
        ctx.fillText(l.label, 4, i * LANE_H + LANE_H / 2);
        ctx.fillStyle = colors.grid;
        ctx.fillRect(LABEL_W, i * LANE_H + LANE_H - 1, pw, 1);
      });
      const laneIndex = new Map(lanes.map((l, i) => [l.key, i]));
      // Kernels shorter than a pixel still get one pixel: a busy stream must look busy.
      for (const r of rows) {
        const i = laneIndex.get(`${r.device}/${r.stream}`)!;
        const x0 = Math.max(LABEL_W, X(r.start_ms));
        const x1 = Math.min(w, X(r.end_ms));
        if (x1 < LABEL_W || x0 > w) continue;
        ctx.fillStyle = colors.series[Math.abs(hash(r.name)) % colors.series.length];
        ctx.fillRect(x0, i * LANE_H + 2, Math.max(1, x1 - x0), LANE_H - 5);
        if (x1 - x0 > 70) {
          ctx.save();
          ctx.beginPath();
          ctx.rect(x0, i * LANE_H, x1 - x0, LANE_H);
          ctx.clip();
          ctx.fillStyle = '#000';
          ctx.fillText(shortKernelName(r.name), x0 + 3, i * LANE_H + LANE_H / 2 - 1);
          ctx.restore();
        }
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

  /** The kernel under the mouse: in its lane, the one covering the time, else the nearest within 4 px. */
  const kernelAt = (clientX: number, clientY: number): KernelRow | null => {
    const c = canvas.current!;
    const rect = c.getBoundingClientRect();
    const lane = lanes[Math.floor((clientY - rect.top) / LANE_H)];
    if (!lane || clientX - rect.left < LABEL_W) return null;
    const list = byLane.get(lane.key) ?? [];
    const t = toTime(clientX);
    const [s, e] = useCursor.getState().range;
    const slack = (4 / Math.max(1, rect.width - LABEL_W)) * (e - s);
    let best: KernelRow | null = null;
    let bestD = Infinity;
    for (const r of list) {
      if (r.start_ms > t + slack) break;
      const d = t < r.start_ms ? r.start_ms - t : t > r.end_ms ? t - r.end_ms : 0;
      if (d <= slack && d < bestD) {
        best = r;
        bestD = d;
      }
    }
    return best;
  };

  if (!lanes.length) return null;
  return (
    <div className="kernel-lanes-wrap">
      <canvas
        ref={canvas}
        className="kernel-lanes"
        role="img"
        data-testid="kernel-lanes"
        aria-label={`Kernels on ${lanes.length} streams (${lanes.map((l) => l.label).join(', ')}); hover a kernel for its name, drag to zoom, click to move the cursor`}
        onMouseMove={(e) => {
          const r = kernelAt(e.clientX, e.clientY);
          const rect = e.currentTarget.getBoundingClientRect();
          setHover(r ? { row: r, x: e.clientX - rect.left, y: e.clientY - rect.top } : null);
        }}
        onMouseLeave={() => setHover(null)}
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
      {hover ? (
        <div className="kernel-tooltip" role="tooltip" data-testid="kernel-tooltip" style={{ left: Math.min(hover.x + 12, (canvas.current?.clientWidth ?? 400) - 300), top: hover.y + 14 }}>
          <div className="mono kernel-tooltip-name">{shortKernelName(hover.row.name)}</div>
          <div className="small">
            {formatDuration(hover.row.duration_us / 1000)} · GPU {hover.row.device} · stream {hover.row.stream}
            {hover.row.correlation_id !== null ? ` · correlation ${hover.row.correlation_id}` : ''}
          </div>
          <div className="small muted">{formatTime(hover.row.start_ms)}</div>
          {shortKernelName(hover.row.name) !== hover.row.name ? <div className="mono small muted kernel-tooltip-full">{hover.row.name}</div> : null}
        </div>
      ) : null}
    </div>
  );
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
  let first = Infinity;
  let last = -Infinity;
  for (const r of rows) {
    first = Math.min(first, r.start_ms);
    last = Math.max(last, r.end_ms);
  }
  const span = rows.length ? last - first : 0;
  const narrow = rows.length > 0 && span < (range[1] - range[0]) / 50;
  return (
    <div className="panel kernels" data-state={state} data-testid="kernels-panel">
      {error ? <div className="error-text">{error}</div> : null}
      <div className="muted small">
        {rows.length.toLocaleString('en-US')} kernels in the visible range{rows.length >= 50_000 ? ' (first 50 000; zoom in for all)' : ''}
        {narrow ? ` — they span ${formatDuration(span)}` : ''}
        {narrow ? (
          <>
            {' '}
            <button
              type="button"
              className="link small"
              data-testid="zoom-to-kernels"
              onClick={() => {
                beginInteraction('qs:zoom');
                const pad = Math.max(span * 0.02, 0.01);
                useCursor.getState().setRange([first - pad, last + pad]);
              }}
            >
              zoom to them
            </button>
          </>
        ) : null}
      </div>
      <KernelLanes rows={rows} />
      <div className="table-scroll">
        <table className="kernel-table" data-testid="kernel-table">
          <colgroup>
            <col />
            <col className="num-col" />
            <col className="num-col" />
            <col className="num-col" />
            <col className="num-col" />
          </colgroup>
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
                <td className="mono kernel-name" title={k.name}>
                  {shortKernelName(k.name)}
                </td>
                <td className="num">{groupDigits(k.count)}</td>
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
