// What every time chart draws over its series: alert bands, annotation bands (and the one being
// drafted), the incident onset and event markers. Read from the stores at draw time.
import type uPlot from 'uplot';
import { useAnnotations } from '../state/annotations';
import { useDiagnosis } from '../state/diagnosis';
import { useMarkers } from '../state/markers';
import { currentOnset } from '../state/verdict';
import type { ChartColors } from './theme-colors';

function band(u: uPlot, from: number, to: number, fill: string): void {
  const { top, height, left, width } = u.bbox;
  const x0 = Math.max(left, u.valToPos(from, 'x', true));
  const x1 = Math.min(left + width, u.valToPos(to, 'x', true));
  if (x1 <= x0) return;
  u.ctx.fillStyle = fill;
  u.ctx.fillRect(x0, top, Math.max(1, x1 - x0), height);
}

function vline(u: uPlot, at: number, stroke: string, dash: number[], lineWidth = 1): void {
  const { top, height, left, width } = u.bbox;
  const x = Math.round(u.valToPos(at, 'x', true)) + 0.5;
  if (x < left || x > left + width) return;
  const ctx = u.ctx;
  ctx.save();
  ctx.strokeStyle = stroke;
  ctx.lineWidth = lineWidth * devicePixelRatio;
  ctx.setLineDash(dash.map((d) => d * devicePixelRatio));
  ctx.beginPath();
  ctx.moveTo(x, top);
  ctx.lineTo(x, top + height);
  ctx.stroke();
  ctx.restore();
}

export function drawOverlays(u: uPlot, colors: ChartColors): void {
  const diag = useDiagnosis.getState().diagnosis;
  const end = u.scales.x.max ?? 0;
  const ctx = u.ctx;
  ctx.save();
  for (const a of diag?.alerts ?? []) band(u, a.first_fired_ms, a.resolved_ms ?? end, colors.alert);
  const { list, draft } = useAnnotations.getState();
  for (const a of list) band(u, a.start_ms, Math.max(a.end_ms, a.start_ms + 1), colors.annotation);
  if (draft) band(u, Math.min(draft.start_ms, draft.end_ms), Math.max(draft.start_ms, draft.end_ms), colors.annotation);
  ctx.restore();
  for (const e of useMarkers.getState().events) vline(u, e.ts_ms, colors.event, [2, 3]);
  const onset = currentOnset();
  if (onset !== null) vline(u, onset, colors.onset, [6, 3], 2);
}

/** The trigger threshold (ms) in a latency chart's unit, or null before the diagnosis has one or on another signal's chart. */
export function thresholdIn(unit: string, signal: string): number | null {
  const trigger = useDiagnosis.getState().diagnosis?.trigger;
  const th = trigger?.threshold_ms;
  if (trigger?.signal !== signal || th === undefined || !Number.isFinite(th)) return null;
  return unit === 'ms' ? th : th / 1000;
}

/** The quantile chart's y range: from zero, high enough to show the threshold line. */
export function quantileRange(min: number | null, max: number | null, unit: string, signal: string): [number, number] {
  const th = thresholdIn(unit, signal);
  const hi = Math.max(max ?? 0, th !== null ? th * 1.15 : 0);
  return [Math.min(0, min ?? 0), hi > 0 ? hi * 1.05 : 1];
}

/** Dashed horizontal line at baseline P99 + θℓ (the chart title says what it is). */
export function drawThreshold(u: uPlot, colors: ChartColors, unit: string, signal: string): void {
  const th = thresholdIn(unit, signal);
  if (th === null) return;
  const { top, height, left, width } = u.bbox;
  const y = Math.round(u.valToPos(th, 'y', true)) + 0.5;
  if (y < top || y > top + height) return;
  const ctx = u.ctx;
  ctx.save();
  ctx.strokeStyle = colors.onset;
  ctx.lineWidth = 1.5 * devicePixelRatio;
  ctx.setLineDash([6 * devicePixelRatio, 4 * devicePixelRatio]);
  ctx.beginPath();
  ctx.moveTo(left, y);
  ctx.lineTo(left + width, y);
  ctx.stroke();
  ctx.restore();
}
