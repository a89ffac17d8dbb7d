// The shared time axis of every chart on the timeline (TimeChart, StackedChart): 24-hour UTC ticks that
// never run off the canvas, spaced for the longest label their step needs, and one cursor-sync key.
import type uPlot from 'uplot';

/** Hover crosshairs of every chart with this key move together (uPlot's cursor sync). */
export const SYNC_KEY = 'quadscope-time';

/** Room right of the plot, fixed so every chart's plot has the same width. */
export const RIGHT_PAD = 16;
/** Width of one character of the 11 px axis font, for the room a tick label takes. */
const CHAR_PX = 7.2;

/** 24-hour UTC ticks, with seconds or milliseconds only where the spacing needs them. */
export function timeTicks(u: uPlot, splits: number[]): string[] {
  const step = splits.length > 1 ? splits[1] - splits[0] : 60_000;
  const [from, to] = step < 1000 ? [11, 23] : step < 60_000 ? [11, 19] : [11, 16];
  const half = ((to - from) * CHAR_PX) / 2;
  const right = u.bbox.width / devicePixelRatio + RIGHT_PAD;
  // A label that would run off the right edge of the canvas is left out rather than cut in half.
  return splits.map((v) => (u.valToPos(v, 'x') + half > right ? '' : new Date(v).toISOString().slice(from, to)));
}

/** Pixels between time ticks: room for the longest label the spacing will need (HH:MM:SS.mmm below a second). */
export function timeSpace(span: number, plotPx: number): number {
  const step = (span / Math.max(1, plotPx)) * 60;
  return step < 1000 ? 13 * CHAR_PX : step < 60_000 ? 9.5 * CHAR_PX : 50;
}
