// Notes on a chart: a note is drafted for a range of the chart it was drawn on (shift-drag, the armed
// note mode, or N for the visible range), and every chart redraws when the notes or the draft change
// (overlays.ts draws their bands).
import { useEffect, type DependencyList, type MutableRefObject } from 'react';
import { useAnnotations } from '../../state/annotations';
import { useCursor } from '../../state/cursor';
import type { Plot } from './use-plot';

/** A note's panel: the chart's title, as the annotations table keeps it. */
const panelOf = (title: string) => title.slice(0, 100);

/** Opens the note dialog for [start, end] on the chart titled `title`. */
export function draftNote(title: string, start_ms: number, end_ms: number): void {
  useAnnotations.getState().setDraft({ start_ms, end_ms, panel: panelOf(title) });
}

/** A note for the visible range (the N key: on the focused chart, or the timeline). */
export function draftVisibleRange(panel: string): void {
  const [start, end] = useCursor.getState().range;
  draftNote(panel, start, end);
}

export function useChartNotes(plot: MutableRefObject<Plot | null>, deps: DependencyList): void {
  useEffect(() => {
    const p = plot.current;
    if (!p) return;
    return useAnnotations.subscribe((st, prev) => {
      if (st.list !== prev.list || st.draft !== prev.draft) p.u.redraw(false);
    });
  }, deps);
}
