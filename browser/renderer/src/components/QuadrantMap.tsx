// The (R, S) plane: four quadrants split at the diagnosis' θR and θS (quadrant-plane.ts), the trajectory of windows coloured by time, and
// the window at the cursor. A long incident (thousands of windows: a day at a 10 s step) would be a
// solid blob as a line, so past TRAJECTORY_MAX windows the whole incident is drawn as a density (cells
// shaded by how many windows fell in them) and only the visible range as a trajectory, averaged into at
// most TRAJECTORY_MAX points. The static layer is drawn once per data/size/theme/range; cursor moves
// (replay at 60 frames/s) only blit it and draw one marker.
import { useEffect, useRef } from 'react';
import { quadrantThresholdsOf, type QuadrantThresholds, type WindowScore } from '../../../../common/contract/diagnosis';
import { readChartColors, timeColor } from '../charts/theme-colors';
import { type Range, useCursor } from '../state/cursor';
import { hasData, replayWindows, useDiagnosis, windowIndexAt } from '../state/diagnosis';
import { type Theme, useLayout } from '../state/layout';
import { groupDigits } from '../../../../common/format';
import { quadrantPlane } from './quadrant-plane';

// Room under the plot for the tick values and, below them, the axis name.
const PAD = { left: 34, right: 10, top: 10, bottom: 36 };
/** More windows than this read as a density, with the visible range as an averaged trajectory. */
export const TRAJECTORY_MAX = 400;
const CELLS = 48;

/** The windows of the visible range, averaged in time order into at most `max` points. */
export function visibleTrajectory(windows: readonly WindowScore[], range: Range, max = TRAJECTORY_MAX): { R: number; S: number; f: number }[] {
  const inside = windows.filter((w) => w.t_ms >= range[0] && w.t_ms <= range[1]);
  const n = inside.length;
  const per = Math.max(1, Math.ceil(n / max));
  const out: { R: number; S: number; f: number }[] = [];
  for (let i = 0; i < n; i += per) {
    const chunk = inside.slice(i, i + per);
    out.push({ R: chunk.reduce((a, w) => a + w.R, 0) / chunk.length, S: chunk.reduce((a, w) => a + w.S, 0) / chunk.length, f: (i + chunk.length / 2) / Math.max(1, n) });
  }
  return out;
}

function drawStatic(ctx: CanvasRenderingContext2D, w: number, h: number, windows: WindowScore[], theme: Theme, range: Range, th: QuadrantThresholds): void {
  const plane = quadrantPlane(th);
  const css = getComputedStyle(document.documentElement);
  const v = (n: string) => css.getPropertyValue(n).trim();
  const colors = readChartColors();
  const pw = w - PAD.left - PAD.right;
  const ph = h - PAD.top - PAD.bottom;
  const X = (r: number) => PAD.left + r * pw;
  const Y = (s: number) => PAD.top + (1 - s) * ph;
  ctx.clearRect(0, 0, w, h);
  for (const { quadrant, r0, s0, r1, s1 } of plane.areas) {
    ctx.fillStyle = v(`--q-${quadrant}`);
    ctx.fillRect(X(r0), Y(s1), X(r1) - X(r0), Y(s0) - Y(s1));
  }
  ctx.strokeStyle = colors.axis;
  ctx.setLineDash([4, 3]);
  ctx.beginPath();
  ctx.moveTo(X(th.theta_R), Y(0));
  ctx.lineTo(X(th.theta_R), Y(1));
  ctx.moveTo(X(0), Y(th.theta_S));
  ctx.lineTo(X(1), Y(th.theta_S));
  ctx.stroke();
  ctx.setLineDash([]);
  ctx.strokeRect(X(0), Y(1), pw, ph);
  ctx.fillStyle = colors.axis;
  ctx.font = '11px system-ui, sans-serif';
  ctx.textAlign = 'center';
  ctx.fillText('resource pressure R →', X(0.5), h - 4);
  for (const t of plane.ticksR) ctx.fillText(String(t), X(t), Y(0) + 13);
  ctx.save();
  ctx.translate(11, Y(0.5));
  ctx.rotate(-Math.PI / 2);
  ctx.fillText('service degradation S →', 0, 0);
  ctx.restore();
  ctx.textAlign = 'right';
  for (const t of plane.ticksS) ctx.fillText(String(t), PAD.left - 4, Y(t) + 4);
  ctx.fillStyle = colors.text;
  ctx.font = '600 11px system-ui, sans-serif';
  for (const { quadrant: label, vertical, r, s } of plane.labels) {
    if (!vertical) {
      ctx.textAlign = 'left';
      ctx.fillText(label, X(r), s < 0.5 ? Y(s) - 4 : Y(s) + 12);
      continue;
    }
    // The right-hand quadrants are a narrow band (R ≥ θR): their names run vertically inside it.
    ctx.save();
    ctx.translate(X(r) + 4, Y(s));
    ctx.rotate(-Math.PI / 2);
    ctx.textAlign = 'center';
    ctx.fillText(label, 0, 0);
    ctx.restore();
  }
  const dense = windows.length > TRAJECTORY_MAX;
  if (dense) drawDensity(ctx, windows, X, Y, pw, ph, v('--fg'));
  const path = dense ? visibleTrajectory(windows, range) : windows.map((x, i) => ({ R: x.R, S: x.S, f: i / Math.max(1, windows.length - 1) }));
  ctx.lineWidth = dense ? 1.25 : 1.75;
  ctx.lineJoin = 'round';
  for (let i = 1; i < path.length; i++) {
    ctx.strokeStyle = timeColor(path[i].f, theme);
    ctx.beginPath();
    ctx.moveTo(X(path[i - 1].R), Y(path[i - 1].S));
    ctx.lineTo(X(path[i].R), Y(path[i].S));
    ctx.stroke();
  }
  const dot = dense ? 3 : 4;
  for (const p of path) {
    ctx.fillStyle = timeColor(p.f, theme);
    ctx.fillRect(X(p.R) - dot / 2, Y(p.S) - dot / 2, dot, dot);
  }
}

/** Cells of the plane shaded by how many windows fell in them (log scale), in the text colour. */
function drawDensity(ctx: CanvasRenderingContext2D, windows: readonly WindowScore[], X: (r: number) => number, Y: (s: number) => number, pw: number, ph: number, ink: string): void {
  const counts = new Uint32Array(CELLS * CELLS);
  let max = 0;
  for (const x of windows) {
    const i = Math.min(CELLS - 1, Math.max(0, Math.floor(x.R * CELLS)));
    const j = Math.min(CELLS - 1, Math.max(0, Math.floor(x.S * CELLS)));
    max = Math.max(max, ++counts[j * CELLS + i]);
  }
  const cw = pw / CELLS;
  const ch = ph / CELLS;
  ctx.save();
  ctx.fillStyle = ink;
  for (let j = 0; j < CELLS; j++) {
    for (let i = 0; i < CELLS; i++) {
      const c = counts[j * CELLS + i];
      if (!c) continue;
      ctx.globalAlpha = 0.12 + 0.6 * (Math.log1p(c) / Math.log1p(max));
      ctx.fillRect(X(i / CELLS), Y((j + 1) / CELLS), Math.ceil(cw), Math.ceil(ch));
    }
  }
  ctx.restore();
}

export function QuadrantMap() {
  const canvas = useRef<HTMLCanvasElement>(null);
  const wrap = useRef<HTMLDivElement>(null);
  const diagnosis = useDiagnosis((s) => s.diagnosis);
  const state = useDiagnosis((s) => s.state);
  const theme = useLayout((s) => s.theme);
  const windows = replayWindows(diagnosis);
  const th = quadrantThresholdsOf(diagnosis);
  const dense = windows.length > TRAJECTORY_MAX;
  // A dense map redraws its trajectory for the visible range; a sparse one ignores the range.
  const range = useCursor((s) => (dense ? s.range : null));

  useEffect(() => {
    const c = canvas.current;
    const box = wrap.current;
    if (!c || !box) return;
    const layer = document.createElement('canvas');
    let w = 0;
    let h = 0;
    let raf = 0;
    const dpr = window.devicePixelRatio || 1;
    const ctx = c.getContext('2d')!;
    const layout = () => {
      w = Math.max(160, box.clientWidth);
      h = Math.round(Math.min(w, 420) * 0.9);
      for (const k of [c, layer]) {
        k.width = w * dpr;
        k.height = h * dpr;
      }
      c.style.width = `${w}px`;
      c.style.height = `${h}px`;
      const lctx = layer.getContext('2d')!;
      lctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      drawStatic(lctx, w, h, windows, theme, range ?? useCursor.getState().full, th);
      draw();
    };
    const draw = () => {
      raf = 0;
      ctx.setTransform(1, 0, 0, 1, 0, 0);
      ctx.clearRect(0, 0, c.width, c.height);
      ctx.drawImage(layer, 0, 0);
      const i = windowIndexAt(windows, useCursor.getState().cursor_ms);
      c.dataset.windowIndex = String(i);
      if (i < 0) return;
      const pw = w - PAD.left - PAD.right;
      const ph = h - PAD.top - PAD.bottom;
      const x = (PAD.left + windows[i].R * pw) * dpr;
      const y = (PAD.top + (1 - windows[i].S) * ph) * dpr;
      // The cursor colour, ringed in the background then the text colour: it stands out from any part
      // of the trajectory under it, in both themes.
      const css = getComputedStyle(document.documentElement);
      ctx.beginPath();
      ctx.arc(x, y, 6 * dpr, 0, Math.PI * 2);
      ctx.fillStyle = css.getPropertyValue('--cursor').trim();
      ctx.fill();
      ctx.lineWidth = 2.5 * dpr;
      ctx.strokeStyle = css.getPropertyValue('--bg').trim();
      ctx.stroke();
      ctx.beginPath();
      ctx.arc(x, y, 8.5 * dpr, 0, Math.PI * 2);
      ctx.lineWidth = 1.5 * dpr;
      ctx.strokeStyle = css.getPropertyValue('--fg').trim();
      ctx.stroke();
    };
    const ro = new ResizeObserver(layout);
    ro.observe(box);
    const unsub = useCursor.subscribe((s, p) => {
      if (s.cursor_ms !== p.cursor_ms && !raf) raf = requestAnimationFrame(draw);
    });
    return () => {
      ro.disconnect();
      unsub();
      cancelAnimationFrame(raf);
    };
  }, [windows, theme, range, th]);

  const onClick = (e: React.MouseEvent<HTMLCanvasElement>) => {
    const c = e.currentTarget;
    const rect = c.getBoundingClientRect();
    const pw = rect.width - PAD.left - PAD.right;
    const ph = rect.height - PAD.top - PAD.bottom;
    const r = (e.clientX - rect.left - PAD.left) / pw;
    const s = 1 - (e.clientY - rect.top - PAD.top) / ph;
    let best = -1;
    let bestD = Infinity;
    windows.forEach((w, i) => {
      const d = (w.R - r) ** 2 + (w.S - s) ** 2;
      if (d < bestD) {
        bestD = d;
        best = i;
      }
    });
    if (best >= 0) useCursor.getState().setCursor(windows[best].t_ms);
  };

  return (
    <section className="quadrant-map" aria-label="Quadrant map" data-state={state === 'ready' ? (windows.length ? 'ready' : 'empty') : state} data-mode={dense ? 'density' : 'trajectory'} data-theta-r={th.theta_R} data-theta-s={th.theta_S}>
      <h2>Quadrant map</h2>
      <div ref={wrap} className="qmap-wrap">
        <canvas
          ref={canvas}
          data-testid="quadrant-canvas"
          role="img"
          aria-label={`Trajectory of ${windows.length} windows over resource pressure R and service degradation S; click a point to move the cursor there`}
          onClick={onClick}
        />
      </div>
      {dense ? (
        <div className="qmap-legend small muted" data-testid="qmap-density">
          <span className="qmap-density-swatch" /> {groupDigits(windows.length)} windows as density · line: the visible range
        </div>
      ) : null}
      {windows.length > 1 ? (
        <div className="qmap-legend small muted" aria-hidden="true">
          earlier
          <span className="qmap-ramp" style={{ background: `linear-gradient(to right, ${[0, 1 / 3, 2 / 3, 1].map((f) => timeColor(f, theme)).join(', ')})` }} />
          later
          <span className="qmap-cursor-dot" /> cursor
        </div>
      ) : null}
      {state === 'ready' && !windows.length ? (
        <p className="muted">{hasData(diagnosis) ? 'No windows: the bundle lacks the four-quadrant signals.' : 'Not enough data yet for a window.'}</p>
      ) : null}
    </section>
  );
}
