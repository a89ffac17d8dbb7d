// The live view: while the open incident is the one being recorded, the time axis grows to now, the
// visible range follows the newest data (until the user zooms or pans away from the end; the timeline
// then offers "Follow live"), charts and the incident's details refetch at most once a second and the diagnosis re-runs as windows
// close, at most every ANALYZE_EVERY_MS and never two at once. Stopping leaves an ordinary incident.
import { create } from 'zustand';
import type { LiveStatus } from '../../../../common/contract/types';
import { refreshCharts } from '../charts/chart-data-cache';
import { clampCursor, clampRange, type Range, useCursor } from './cursor';
import { useDiagnosis } from './diagnosis';
import { useIncidents } from './incidents';
import { useLive } from './live';
import { useSeries } from './series';

const CHARTS_EVERY_MS = 1000;
const DETAIL_EVERY_MS = 1000;
const ANALYZE_EVERY_MS = 7000;

interface LiveFollowState {
  /** The open incident is being recorded. */
  active: boolean;
  following: boolean;
  setFollowing(on: boolean): void;
}

export const useLiveFollow = create<LiveFollowState>((set) => ({
  active: false,
  following: true,
  setFollowing: (on) => {
    set({ following: on });
    if (on) followNow();
  },
}));

let moving = false;

/** Grows the axis to now and, when following, slides the visible range (same span) to end there. */
function followNow(): void {
  const status = useLive.getState().status;
  const cur = useCursor.getState();
  // A recording's data start when it does (an incident with no data yet has no span of its own).
  const start = status?.started_ms ?? cur.full[0];
  const now = Math.max(Date.now(), cur.full[1]);
  const showingAll = cur.range[0] === cur.full[0] && cur.range[1] === cur.full[1];
  const span = cur.range[1] - cur.range[0];
  moving = true;
  const full: Range = [start, now];
  // The cursor may have been set against the span of an incident with no data yet (at the epoch).
  const cursor_ms = clampCursor(cur.cursor_ms, full);
  if (useLiveFollow.getState().following) useCursor.setState({ full, cursor_ms, range: showingAll ? full : [Math.max(start, now - span), now] });
  else useCursor.setState({ full, cursor_ms, range: clampRange(cur.range, full) });
  moving = false;
}

export function installLiveFollow(): () => void {
  let lastCharts = 0;
  let lastDetail = 0;
  let readingDetail = false;
  let lastAnalyze = 0;
  let analyzing = false;
  let recordingId: number | null = null;

  const analyze = (id: number) => {
    if (analyzing) return;
    analyzing = true;
    lastAnalyze = Date.now();
    void useDiagnosis
      .getState()
      .load(id)
      .finally(() => {
        analyzing = false;
      });
  };

  const onStatus = (s: LiveStatus | null) => {
    const openId = useIncidents.getState().openId;
    const active = !!s?.recording && openId !== null && s.incident_id === openId;
    const wasActive = useLiveFollow.getState().active;
    if (active !== wasActive) useLiveFollow.setState({ active, following: true });
    if (!active) {
      if (wasActive && recordingId !== null && recordingId === openId) {
        // Recording stopped: the incident's final span, data and diagnosis, for replay and the report.
        const id = recordingId;
        void useIncidents
          .getState()
          .open(id)
          .then(() => {
            const d = useIncidents.getState().detail;
            if (d?.id === id && d.start_ms !== null && d.end_ms !== null) useCursor.setState({ full: [Math.min(d.start_ms, useCursor.getState().full[0]), Math.max(d.end_ms, useCursor.getState().full[1])] });
            void useSeries.getState().refresh(id);
            refreshCharts();
            analyze(id);
          });
      }
      recordingId = null;
      return;
    }
    recordingId = openId;
    followNow();
    const now = Date.now();
    if (now - lastCharts >= CHARTS_EVERY_MS) {
      lastCharts = now;
      void useSeries.getState().refresh(openId);
      refreshCharts();
    }
    if (now - lastDetail >= DETAIL_EVERY_MS && !readingDetail) {
      // The overview (span, counts, sources) and the library row grow with the recording.
      lastDetail = now;
      readingDetail = true;
      void Promise.all([useIncidents.getState().reloadDetail(), useIncidents.getState().refresh(true)]).finally(() => {
        readingDetail = false;
      });
    }
    if (now - lastAnalyze >= ANALYZE_EVERY_MS) analyze(openId);
  };

  const offs = [
    useLive.subscribe((st, prev) => st.status !== prev.status && onStatus(st.status)),
    useIncidents.subscribe((st, prev) => st.openId !== prev.openId && onStatus(useLive.getState().status)),
    // A zoom or pan that leaves the newest data stops following.
    useCursor.subscribe((st, prev) => {
      if (moving || st.range === prev.range || !useLiveFollow.getState().active) return;
      const atEnd = st.range[1] >= st.full[1] - (st.range[1] - st.range[0]) * 0.01;
      if (useLiveFollow.getState().following !== atEnd) useLiveFollow.setState({ following: atEnd });
    }),
  ];
  void useLive.getState().refresh();
  return () => offs.forEach((f) => f());
}
