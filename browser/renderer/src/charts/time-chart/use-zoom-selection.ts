// Zoom and selection: a drag zooms every chart to the range (or drafts a note with shift or the armed
// note mode), a click sets the cursor, and + / − / 0 zoom from the keyboard, N writes a note for the
// visible range.
import { useEffect, type DependencyList, type KeyboardEvent, type MutableRefObject } from 'react';
import type uPlot from 'uplot';
import { useAnnotations } from '../../state/annotations';
import { useCursor } from '../../state/cursor';
import { beginInteraction } from '../draw-tracker';
import { draftNote, draftVisibleRange } from './use-chart-notes';
import type { Plot } from './use-plot';

/**
 * The chart a drag started on, and whether it was a shift-drag. Cursor sync hands the selection to every
 * chart; only this one acts on it, so a note is drawn on the chart under the mouse and a shift-drag
 * never zooms the others.
 */
let dragOwner: { chart: string; shift: boolean } | null = null;

export function useZoomSelection(plot: MutableRefObject<Plot | null>, title: string, deps: DependencyList): void {
  useEffect(() => {
    const p = plot.current;
    if (!p) return;
    const { u, chartId } = p;
    let downX = 0;

    const onSelect = (x: uPlot) => {
      const { left, width } = x.select;
      if (width < 3) return;
      const owner = dragOwner;
      x.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
      if (owner?.chart !== chartId) return;
      dragOwner = null;
      const a = x.posToVal(left, 'x');
      const b = x.posToVal(left + width, 'x');
      if (owner.shift || useAnnotations.getState().armed) draftNote(title, a, b);
      else {
        beginInteraction('qs:zoom');
        useCursor.getState().setRange([a, b]);
      }
    };
    const onDown = (ev: MouseEvent) => {
      dragOwner = { chart: chartId, shift: ev.shiftKey };
      downX = ev.clientX;
    };
    const onUp = (ev: MouseEvent) => {
      if (Math.abs(ev.clientX - downX) < 3 && u.cursor.left !== undefined && u.cursor.left >= 0) useCursor.getState().setCursor(u.posToVal(u.cursor.left, 'x'));
    };
    const over = u.over;
    p.onSelect.add(onSelect);
    over.addEventListener('mousedown', onDown);
    over.addEventListener('mouseup', onUp);
    return () => {
      p.onSelect.delete(onSelect);
      over.removeEventListener('mousedown', onDown);
      over.removeEventListener('mouseup', onUp);
    };
  }, deps);
}

/** The chart's keys: + / − zoom around the cursor, 0 shows everything, N writes a note for the visible range. */
export function chartKeys(title: string): (e: KeyboardEvent) => void {
  return (e) => {
    const c = useCursor.getState();
    if (e.key === '+' || e.key === '=') c.zoom(0.5, c.cursor_ms ?? undefined);
    else if (e.key === '-') c.zoom(2, c.cursor_ms ?? undefined);
    else if (e.key === '0') c.showAll();
    else if (e.key === 'n' || e.key === 'N') {
      // The keyboard's way to a note: the visible range of this chart (zoom to the range first).
      e.preventDefault();
      e.stopPropagation();
      draftVisibleRange(title);
      return;
    } else return;
    beginInteraction('qs:zoom');
    e.preventDefault();
  };
}
