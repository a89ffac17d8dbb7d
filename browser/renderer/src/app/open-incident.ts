// Opening an incident loads every per-incident store and puts the time axis on its span.
import { beginInteraction, whenIdle } from '../charts/draw-tracker';
import { useAnnotations } from '../state/annotations';
import { useCursor } from '../state/cursor';
import { useDiagnosis } from '../state/diagnosis';
import { useFleet } from '../state/fleet';
import { useIncidents } from '../state/incidents';
import { useLayout } from '../state/layout';
import { useLive } from '../state/live';
import { useMarkers } from '../state/markers';
import { useReplay } from '../state/replay';
import { useSeries } from '../state/series';
import { linkedRange } from './routing';

export async function openIncident(id: number | null): Promise<void> {
  useReplay.getState().pause();
  // A drill-down into one instance belongs to the incident it was made in.
  useFleet.getState().drillInto(null);
  if (id === null) {
    // Synchronously: an incident opened right after must not be cleared by this.
    useDiagnosis.getState().clear();
    await useIncidents.getState().open(null);
    return;
  }
  beginInteraction('qs:open');
  useLayout.getState().loadSizes(id);
  const incidents = useIncidents.getState();
  const detailLoaded = incidents.open(id).then(() => {
    const d = useIncidents.getState().detail;
    if (d && d.id === id) {
      // An incident without data yet (a recording that just started) has no span: its axis starts now,
      // never at the epoch.
      const live = useLive.getState().status;
      const start = d.start_ms ?? (live?.incident_id === id ? live.started_ms : null) ?? Date.now();
      const end = d.end_ms !== null && d.end_ms > start ? d.end_ms : start + 1000;
      useCursor.getState().reset([start, end]);
      // A shared link names the range it was zoomed to.
      const linked = linkedRange(id);
      if (linked) useCursor.getState().setRange(linked);
    }
  });
  void useAnnotations.getState().load(id);
  void useMarkers.getState().load(id);
  // The charts are built only once the range is the incident's, so they query once.
  await detailLoaded;
  await useSeries.getState().load(id);
  // The analysis keeps the engine busy for a while: let the charts' first queries through first, so
  // the timeline is interactive before the diagnosis arrives.
  await new Promise((r) => requestAnimationFrame(r));
  await whenIdle();
  if (useIncidents.getState().openId === id) void useDiagnosis.getState().load(id);
}
