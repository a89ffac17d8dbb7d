// GPU kernels: one named lane per device and stream over the visible range, and above them one lane per
// CPU thread that launched them (its ops and launch calls), with an arrow from each launch to its kernel
// (CPU → GPU flows joined on correlation ids, at most FLOW_LIMIT a range). Drag to zoom, click for the
// cursor, hover for what is under the mouse: a kernel's name, duration, start and correlation id, or a
// CPU op with its launch and the kernel it launched. Kernels are named inside their bars where they are
// wide enough; the per-kernel summary of the range (count, total, mean, p99) sits in a table whose
// numbers always fit: the long C++ names are shortened, in full on hover. "Open in Perfetto" downloads
// the range as Chrome trace JSON.
import { useEffect, useMemo, useRef, useState } from 'react';
import type { KernelFlow, KernelFlows, KernelRow } from '../../../../../common/contract/types';
import { formatDuration, formatTime, groupDigits } from '../../../../../common/format';
import { api, errorText } from '../../api';
import { saveFile } from '../../app/download';
import { beginInteraction } from '../../charts/draw-tracker';
import { readChartColors } from '../../charts/theme-colors';
import { redrawOnCursorAndResize } from '../../charts/canvas-redraw';
import { useCursor } from '../../state/cursor';
import { useIncidents } from '../../state/incidents';
import { FLOW_LIMIT, useKernels } from './kernels-store';
import { useLayout } from '../../state/layout';

const LANE_H = 20;
const LABEL_W = 118;
/** Room between the CPU and GPU lanes for the flow arrows to be seen. */
const FLOW_GAP = 16;
/** CPU lanes drawn: the threads that launched the most kernels in the range. */
const MAX_CPU_LANES = 6;

interface Lane {
  key: string;
  kind: 'cpu' | 'gpu';
  label: string;
  y: number;
}

/** A CPU slice: an op (aten::mm…) or, where no op is recorded, the launch call itself. */
interface CpuSlice {
  name: string;
  start_ms: number;
  end_ms: number;
  flow: KernelFlow;
  launch: boolean;
}

const gpuKey = (device: number, stream: number) => `${device}/${stream}`;

function lanesOf(rows: KernelRow[], flows: KernelFlow[]): { lanes: Lane[]; height: number; gpuTop: number } {
  const threads = new Map<string, number>();
  for (const f of flows) threads.set(f.thread, (threads.get(f.thread) ?? 0) + 1);
  const cpu = [...threads.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, MAX_CPU_LANES)
    .map(([t]) => t)
    .sort();
  const gpu = new Map<string, { device: number; stream: number }>();
  for (const r of rows) gpu.set(gpuKey(r.device, r.stream), { device: r.device, stream: r.stream });
  const lanes: Lane[] = cpu.map((t, i) => ({ key: `cpu:${t}`, kind: 'cpu', label: `CPU ${t.replace(/^pid \S+ · /, '')}`, y: i * LANE_H }));
  const gpuTop = cpu.length ? cpu.length * LANE_H + FLOW_GAP : 0;
  [...gpu.entries()]
    .sort((a, b) => a[1].device - b[1].device || a[1].stream - b[1].stream)
    .forEach(([key, g], i) => lanes.push({ key, kind: 'gpu', label: `GPU ${g.device} · stream ${g.stream}`, y: gpuTop + i * LANE_H }));
  const last = lanes[lanes.length - 1];
  return { lanes, height: last ? last.y + LANE_H + 4 : 0, gpuTop };
}

/** Each thread's ops (one slice per op, however many kernels it launched), else its launch calls. */
function cpuSlices(flows: KernelFlow[]): Map<string, CpuSlice[]> {
  const m = new Map<string, CpuSlice[]>();
  const seen = new Set<string>();
  for (const f of flows) {
    const list = m.get(`cpu:${f.thread}`) ?? m.set(`cpu:${f.thread}`, []).get(`cpu:${f.thread}`)!;
    if (f.op_name !== null && f.op_start_ms !== null && f.op_end_ms !== null) {
      const k = `${f.thread}|${f.op_name}|${f.op_start_ms}`;
      if (!seen.has(k)) {
        seen.add(k);
        list.push({ name: f.op_name, start_ms: f.op_start_ms, end_ms: f.op_end_ms, flow: f, launch: false });
      }
    }
    list.push({ name: f.launch_name, start_ms: f.launch_start_ms, end_ms: f.launch_end_ms, flow: f, launch: true });
  }
  for (const list of m.values()) list.sort((a, b) => a.start_ms - b.start_ms);
  return m;
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

type Hover = { x: number; y: number } & ({ kind: 'gpu'; row: KernelRow } | { kind: 'cpu'; slice: CpuSlice });

/** The item of a lane under time t: the one covering it, else the nearest within `slack`. */
function nearest<T extends { start_ms: number; end_ms: number }>(list: T[], t: number, slack: number): T | null {
  let best: T | null = null;
  let bestD = Infinity;
  for (const r of list) {
    if (r.start_ms > t + slack) break;
    const d = t < r.start_ms ? r.start_ms - t : t > r.end_ms ? t - r.end_ms : 0;
    // Nested slices (a launch inside its op): the innermost, i.e. the later-starting, wins a tie.
    if (d <= slack && d <= bestD) {
      best = r;
      bestD = d;
    }
  }
  return best;
}

function KernelLanes({ rows, flows }: { rows: KernelRow[]; flows: KernelFlows | null }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const range = useCursor((s) => s.range);
  const theme = useLayout((s) => s.theme);
  const showFlows = useKernels((s) => s.showFlows);
  const flowList = useMemo(() => flows?.flows ?? [], [flows]);
  const { lanes, height, gpuTop } = useMemo(() => lanesOf(rows, flowList), [rows, flowList]);
  const byLane = useMemo(() => {
    const m = new Map<string, KernelRow[]>();
    for (const r of rows) (m.get(gpuKey(r.device, r.stream)) ?? m.set(gpuKey(r.device, r.stream), []).get(gpuKey(r.device, r.stream))!).push(r);
    for (const list of m.values()) list.sort((a, b) => a.start_ms - b.start_ms);
    return m;
  }, [rows]);
  const slices = useMemo(() => cpuSlices(flowList), [flowList]);
  const drag = useRef<number | null>(null);
  const [hover, setHover] = useState<Hover | null>(null);
  const [drawn, setDrawn] = useState(0);

  useEffect(() => {
    const c = canvas.current;
    if (!c) return;
    const dpr = devicePixelRatio || 1;
    const draw = () => {
      const w = c.clientWidth;
      const h = height;
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
      for (const l of lanes) {
        ctx.fillStyle = colors.text;
        ctx.save();
        ctx.beginPath();
        ctx.rect(0, l.y, LABEL_W - 4, LANE_H);
        ctx.clip();
        ctx.fillText(l.label, 4, l.y + LANE_H / 2);
        ctx.restore();
        ctx.fillStyle = colors.grid;
        ctx.fillRect(LABEL_W, l.y + LANE_H - 1, pw, 1);
      }
      const laneY = new Map(lanes.map((l) => [l.key, l.y]));
      const bar = (y: number, x0: number, x1: number, fill: string, label: string | null, top = 2, hgt = LANE_H - 5) => {
        ctx.fillStyle = fill;
        ctx.fillRect(x0, y + top, Math.max(1, x1 - x0), hgt);
        if (label && x1 - x0 > 70) {
          ctx.save();
          ctx.beginPath();
          ctx.rect(x0, y, x1 - x0, LANE_H);
          ctx.clip();
          ctx.fillStyle = '#000';
          ctx.fillText(label, x0 + 3, y + LANE_H / 2 - 1);
          ctx.restore();
        }
      };
      // Kernels shorter than a pixel still get one pixel: a busy stream must look busy.
      for (const r of rows) {
        const y = laneY.get(gpuKey(r.device, r.stream))!;
        const x0 = Math.max(LABEL_W, X(r.start_ms));
        const x1 = Math.min(w, X(r.end_ms));
        if (x1 < LABEL_W || x0 > w) continue;
        bar(y, x0, x1, colors.series[Math.abs(hash(r.name)) % colors.series.length], shortKernelName(r.name));
      }
      for (const [key, list] of slices) {
        const y = laneY.get(key);
        if (y === undefined) continue;
        for (const sl of list) {
          const x0 = Math.max(LABEL_W, X(sl.start_ms));
          const x1 = Math.min(w, X(sl.end_ms));
          if (x1 < LABEL_W || x0 > w) continue;
          // Ops fill the lane; their launch calls sit in the lower half, where the arrows leave from.
          if (sl.launch) bar(y, x0, x1, colors.text, null, LANE_H / 2, LANE_H / 2 - 3);
          else bar(y, x0, x1, colors.series[Math.abs(hash(sl.name)) % colors.series.length], sl.name);
        }
      }
      let n = 0;
      if (showFlows && gpuTop > 0) {
        ctx.strokeStyle = colors.cursor;
        ctx.fillStyle = colors.cursor;
        ctx.globalAlpha = 0.75;
        ctx.lineWidth = 1;
        for (const f of flowList) {
          const y0 = laneY.get(`cpu:${f.thread}`);
          const y1 = laneY.get(gpuKey(f.device, f.stream));
          if (y0 === undefined || y1 === undefined) continue;
          const x0 = X(f.launch_start_ms);
          const x1 = X(f.kernel_start_ms);
          if (Math.max(x0, x1) < LABEL_W || Math.min(x0, x1) > w) continue;
          const from = y0 + LANE_H - 3;
          const to = y1 + 2;
          ctx.beginPath();
          ctx.moveTo(x0, from);
          ctx.lineTo(x1, to);
          ctx.stroke();
          // An arrowhead where the kernel starts.
          ctx.beginPath();
          ctx.moveTo(x1, to);
          ctx.lineTo(x1 - 3, to - 5);
          ctx.lineTo(x1 + 3, to - 5);
          ctx.fill();
          n++;
        }
        ctx.globalAlpha = 1;
      }
      setDrawn(n);
      const cur = useCursor.getState().cursor_ms;
      if (cur !== null && cur >= s && cur <= e) {
        ctx.fillStyle = colors.cursor;
        ctx.fillRect(Math.round(X(cur)), 0, 1.5, h);
      }
    };
    return redrawOnCursorAndResize(c, draw);
  }, [rows, lanes, height, gpuTop, slices, flowList, showFlows, range, theme]);

  const toTime = (clientX: number) => {
    const c = canvas.current!;
    const rect = c.getBoundingClientRect();
    const [s, e] = useCursor.getState().range;
    return s + ((clientX - rect.left - LABEL_W) / (rect.width - LABEL_W)) * (e - s);
  };

  /** What is under the mouse: in its lane, the item covering the time, else the nearest within 4 px. */
  const itemAt = (clientX: number, clientY: number): Hover | null => {
    const c = canvas.current!;
    const rect = c.getBoundingClientRect();
    const y = clientY - rect.top;
    const lane = lanes.find((l) => y >= l.y && y < l.y + LANE_H);
    if (!lane || clientX - rect.left < LABEL_W) return null;
    const t = toTime(clientX);
    const [s, e] = useCursor.getState().range;
    const slack = (4 / Math.max(1, rect.width - LABEL_W)) * (e - s);
    const at = { x: clientX - rect.left, y };
    if (lane.kind === 'gpu') {
      const row = nearest(byLane.get(lane.key) ?? [], t, slack);
      return row ? { ...at, kind: 'gpu', row } : null;
    }
    const list = slices.get(lane.key) ?? [];
    // The lower half of a CPU lane holds the launch calls, the upper half their ops.
    const inLower = y - lane.y >= LANE_H / 2;
    const part = list.some((o) => !o.launch) ? list.filter((x) => x.launch === inLower) : list;
    const slice = nearest(part, t, slack) ?? nearest(list, t, slack);
    return slice ? { ...at, kind: 'cpu', slice } : null;
  };

  if (!lanes.length) return null;
  const cpuLanes = lanes.filter((l) => l.kind === 'cpu');
  const gpuLanes = lanes.filter((l) => l.kind === 'gpu');
  return (
    <div className="kernel-lanes-wrap">
      <canvas
        ref={canvas}
        className="kernel-lanes"
        role="img"
        data-testid="kernel-lanes"
        data-cpu-lanes={cpuLanes.length}
        data-gpu-top={gpuTop}
        data-flows-drawn={drawn}
        aria-label={`Kernels on ${gpuLanes.length} streams (${gpuLanes.map((l) => l.label).join(', ')})${cpuLanes.length ? `, launched from ${cpuLanes.length} CPU threads (${cpuLanes.map((l) => l.label).join(', ')}), ${drawn} CPU → GPU flows drawn` : ''}; hover a kernel for its name, drag to zoom, click to move the cursor`}
        onMouseMove={(e) => setHover(itemAt(e.clientX, e.clientY))}
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
      {hover ? <Tooltip hover={hover} width={canvas.current?.clientWidth ?? 400} /> : null}
    </div>
  );
}

function Tooltip({ hover, width }: { hover: Hover; width: number }) {
  const style = { left: Math.max(0, Math.min(hover.x + 12, width - 300)), top: hover.y + 14 };
  if (hover.kind === 'gpu') {
    const r = hover.row;
    return (
      <div className="kernel-tooltip" role="tooltip" data-testid="kernel-tooltip" style={style}>
        <div className="mono kernel-tooltip-name">{shortKernelName(r.name)}</div>
        <div className="small">
          {formatDuration(r.duration_us / 1000)} · GPU {r.device} · stream {r.stream}
          {r.correlation_id !== null ? ` · correlation ${r.correlation_id}` : ''}
        </div>
        <div className="small muted">{formatTime(r.start_ms)}</div>
        {shortKernelName(r.name) !== r.name ? <div className="mono small muted kernel-tooltip-full">{r.name}</div> : null}
      </div>
    );
  }
  const { slice: sl } = hover;
  const f = sl.flow;
  return (
    <div className="kernel-tooltip" role="tooltip" data-testid="cpu-tooltip" style={style}>
      <div className="mono kernel-tooltip-name">{sl.name}</div>
      <div className="small">
        {formatDuration(sl.end_ms - sl.start_ms)} · CPU {f.thread}
      </div>
      <div className="small">
        {sl.launch ? '' : `${f.launch_name} → `}
        <span className="mono">{shortKernelName(f.kernel_name)}</span> on GPU {f.device} · stream {f.stream}, {formatDuration(f.kernel_start_ms - f.launch_start_ms)} after the launch · correlation {f.correlation_id}
      </div>
      <div className="small muted">{formatTime(sl.start_ms)}</div>
    </div>
  );
}

/** Downloads the visible range as Chrome trace JSON, which Perfetto (ui.perfetto.dev) and chrome://tracing open. */
function PerfettoExport({ incidentId }: { incidentId: number }) {
  const [state, setState] = useState<'idle' | 'loading' | 'ready' | 'error'>('idle');
  const [message, setMessage] = useState<string | null>(null);
  const run = async () => {
    setState('loading');
    setMessage(null);
    const [start_ms, end_ms] = useCursor.getState().range;
    try {
      const res = await api.exportTrace({ incident_id: incidentId, start_ms, end_ms });
      saveFile(res.file_name, res.content, 'application/json');
      setMessage(`Downloaded ${res.file_name} (${groupDigits(res.events)} events${res.truncated ? '; the range held more: the earliest were kept, zoom in for the rest' : ''}): open it at ui.perfetto.dev`);
      setState('ready');
    } catch (e) {
      setMessage(errorText(e));
      setState('error');
    }
  };
  return (
    <span className="row perfetto-export" data-state={state}>
      <button type="button" onClick={() => void run()} disabled={state === 'loading'} data-testid="export-trace" title="The kernels, CPU events, spans and flows of the visible range as Chrome trace JSON">
        {state === 'loading' ? 'Exporting…' : 'Open range in Perfetto'}
      </button>
      {message ? (
        <span className={`small ${state === 'error' ? 'error-text' : 'muted'}`} role="status" data-testid="export-trace-message">
          {message}
        </span>
      ) : null}
    </span>
  );
}

export function Kernels() {
  const incidentId = useIncidents((s) => s.openId);
  const hasKernels = useIncidents((s) => (s.detail?.counts.kernels ?? 0) > 0);
  const range = useCursor((s) => s.range);
  const { rows, summary, flows, showFlows, setShowFlows, state, error, load } = useKernels();
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
        {groupDigits(rows.length)} kernels in the visible range{rows.length >= 50_000 ? ' (first 50 000; zoom in for all)' : ''}
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
      <div className="row wrap kernels-tools">
        {flows && flows.kernels > 0 ? (
          <label className="small" data-testid="flow-summary">
            <input type="checkbox" checked={showFlows} onChange={(e) => setShowFlows(e.target.checked)} /> CPU → GPU flows: {groupDigits(flows.flows.length)}
            {flows.truncated ? ` (of the first ${groupDigits(FLOW_LIMIT)} of ${groupDigits(flows.kernels)} kernels; zoom in for all)` : ''}
            {flows.unmatched ? `, ${groupDigits(flows.unmatched)} kernels whose launch is not in the trace` : ''}
          </label>
        ) : (
          <span className="small muted">No CPU → GPU flows: the kernels carry no correlation ids.</span>
        )}
        {incidentId !== null ? <PerfettoExport incidentId={incidentId} /> : null}
      </div>
      <KernelLanes rows={rows} flows={flows} />
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
