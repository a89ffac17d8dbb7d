// The canonical charts of LLM serving stacked on the shared time axis (series-groups.ts), with
// zoom/pan/reset, note drafting, event markers and the rate window of counters; every other series is
// folded behind a filter box (by name and label).
import { useEffect, useMemo, useRef, useState } from 'react';
import { formatDuration, formatTime } from '../../../../common/format';
import { TimeChart } from '../charts/time-chart/TimeChart';
import { draftVisibleRange } from '../charts/time-chart/use-chart-notes';
import { beginInteraction, isIdle, onIdleChange } from '../charts/draw-tracker';
import { groupHasSeries, groupSeries, matchGroups, type ChartGroup } from '../../../../common/charts/series-groups';
import { useAnnotations } from '../state/annotations';
import { useCursor } from '../state/cursor';
import { seriesOfInstance, useFleet } from '../state/fleet';
import { useLiveFollow } from '../state/live-follow';
import { useMarkers } from '../state/markers';
import { useNavigation } from '../state/navigation';
import { useSeries } from '../state/series';
import { RATE_WINDOWS, useTimeline } from '../state/timeline';

const CHART_HEIGHT = 130;

function MarkerLane() {
  const events = useMarkers((s) => s.events);
  const range = useCursor((s) => s.range);
  const select = useNavigation((s) => s.select);
  const setTab = useNavigation((s) => s.setTab);
  const span = range[1] - range[0];
  const visible = events.filter((e) => e.ts_ms >= range[0] && e.ts_ms <= range[1]).slice(0, 300);
  return (
    <div className="marker-lane" aria-label="Events on the timeline">
      <span className="marker-lane-label muted small">events</span>
      <div className="marker-track">
        {visible.map((e) => (
          <button
            key={e.id}
            type="button"
            className={`marker marker-${e.severity}`}
            style={{ left: `${((e.ts_ms - range[0]) / span) * 100}%` }}
            title={`${formatTime(e.ts_ms)} ${e.kind}: ${e.text}`}
            aria-label={`${e.kind} at ${formatTime(e.ts_ms)}: ${e.text}`}
            onClick={() => {
              useCursor.getState().setCursor(e.ts_ms);
              select({ event_id: e.id });
              setTab('logs');
            }}
          />
        ))}
      </div>
    </div>
  );
}

function Toolbar() {
  const range = useCursor((s) => s.range);
  const full = useCursor((s) => s.full);
  const armed = useAnnotations((s) => s.armed);
  const arm = useAnnotations((s) => s.arm);
  const act = (name: string, fn: () => void) => () => {
    beginInteraction(name);
    fn();
  };
  const c = useCursor.getState;
  const zoomed = range[0] !== full[0] || range[1] !== full[1];
  const live = useLiveFollow((s) => s.active);
  const following = useLiveFollow((s) => s.following);
  const rateWindow = useTimeline((s) => s.rateWindowMs);
  const setRateWindow = useTimeline((s) => s.setRateWindow);
  return (
    <div className="toolbar" role="toolbar" aria-label="Timeline controls">
      <button type="button" onClick={act('qs:pan', () => c().pan(-0.25))} aria-label="Pan left">
        ◀
      </button>
      <button type="button" onClick={act('qs:pan', () => c().pan(0.25))} aria-label="Pan right">
        ▶
      </button>
      <button type="button" onClick={act('qs:zoom', () => c().zoom(0.5, c().cursor_ms ?? undefined))}>
        Zoom in
      </button>
      <button type="button" onClick={act('qs:zoom', () => c().zoom(2, c().cursor_ms ?? undefined))}>
        Zoom out
      </button>
      <button type="button" onClick={act('qs:zoom', () => c().showAll())} disabled={!zoomed} data-testid="zoom-reset">
        Reset
      </button>
      <button
        type="button"
        aria-pressed={armed}
        data-testid="add-note"
        // From the keyboard (no pointer, detail 0) the note is for the visible range; with the mouse, drag one.
        onClick={(e) => (e.detail === 0 ? draftVisibleRange('Timeline') : arm(!armed))}
        title="Then drag on a chart (or shift+drag any time); from the keyboard: a note for the visible range"
      >
        {armed ? 'Drag a range…' : 'Add note'}
      </button>
      <label className="row small" title="Counters are drawn as rates over this window (Prometheus rate(x[window]))">
        rate over
        <select value={rateWindow} onChange={(e) => setRateWindow(Number(e.target.value))} aria-label="Rate window for counters" data-testid="rate-window">
          {RATE_WINDOWS.map((r) => (
            <option key={r.ms} value={r.ms}>
              {r.label}
            </option>
          ))}
        </select>
      </label>
      {live ? (
        <button type="button" className="live-follow" aria-pressed={following} onClick={() => useLiveFollow.getState().setFollowing(!following)} data-testid="follow-live" title="Keep the newest data in view">
          ● {following ? 'Following live' : 'Follow live'}
        </button>
      ) : null}
      <span className="muted small" data-testid="visible-range" data-start={Math.round(range[0])} data-end={Math.round(range[1])} data-full-start={Math.round(full[0])} data-full-end={Math.round(full[1])}>
        {formatTime(range[0])} – {formatTime(range[1])} ({formatDuration(range[1] - range[0])})
      </span>
    </div>
  );
}

const MAX_OTHER_CHARTS = 24;

/** The series the canonical charts leave out, drawn only once the filter names them (or "show all"). */
function OtherSeries({ groups, focus }: { groups: ChartGroup[]; focus: string | null }) {
  const { filter, showAll, setFilter, setShowAll } = useTimeline();
  const seriesCount = groups.reduce((n, g) => n + g.series.length, 0);
  const matched = showAll ? groups : filter.trim() ? matchGroups(groups, filter) : [];
  if (!groups.length) return null;
  return (
    <section className="other-series" aria-label="Other series" data-testid="other-series">
      <div className="row wrap other-head">
        <strong className="small">
          {seriesCount} more series in {groups.length} charts
        </strong>
        <input
          type="search"
          className="series-filter"
          placeholder="Filter by name or label: dcgm, gpu=1, prefill…"
          value={filter}
          onChange={(e) => setFilter(e.target.value)}
          aria-label="Filter the other series by name or label"
          data-testid="series-filter"
        />
        <label className="small">
          <input type="checkbox" checked={showAll} onChange={(e) => setShowAll(e.target.checked)} /> show all
        </label>
        {filter.trim() && !showAll ? (
          <span className="muted small" data-testid="series-filter-count">
            {matched.length} of {groups.length} charts match
          </span>
        ) : null}
      </div>
      {matched.length > MAX_OTHER_CHARTS ? <p className="muted small">Showing the first {MAX_OTHER_CHARTS} of {matched.length}; narrow the filter to see the rest.</p> : null}
      {matched.slice(0, MAX_OTHER_CHARTS).map((g) => (
        <TimeChart key={g.id} group={g} height={CHART_HEIGHT} highlighted={!!focus && groupHasSeries(g, focus)} />
      ))}
    </section>
  );
}

/** The instance the charts are drilled into (the fleet view), with the way back to the whole fleet. */
function DrillChip() {
  const drill = useFleet((s) => s.drill);
  if (!drill) return null;
  return (
    <div className="drill-chip small" role="status" data-testid="drill-chip" data-instance={drill.instance}>
      Showing <span className="mono">{drill.instance}</span> only
      <button type="button" className="link small" onClick={() => useFleet.getState().drillInto(null)} data-testid="drill-clear">
        whole fleet
      </button>
    </div>
  );
}

export function Timeline() {
  const { list: all, state, error } = useSeries();
  const drill = useFleet((s) => s.drill);
  const list = useMemo(() => (drill ? all.filter((s) => seriesOfInstance(s.labels, drill.ids)) : all), [all, drill]);
  const focusSeries = useNavigation((s) => s.selection.series);
  const groups = useMemo(() => groupSeries(list), [list]);
  const canonical = useMemo(() => groups.filter((g) => g.canonical), [groups]);
  const others = useMemo(() => groups.filter((g) => !g.canonical), [groups]);
  const root = useRef<HTMLElement>(null);
  const [idle, setIdle] = useState(isIdle());
  useEffect(() => onIdleChange(setIdle), []);
  useEffect(() => {
    if (!focusSeries) return;
    const g = groups.find((x) => groupHasSeries(x, focusSeries));
    // Evidence on a series folded away unfolds it through the filter.
    if (g && !g.canonical) useTimeline.getState().setFilter(focusSeries.split('{')[0]);
    if (g) requestAnimationFrame(() => root.current?.querySelector(`[data-chart="${CSS.escape(g.id)}"]`)?.scrollIntoView({ block: 'nearest' }));
  }, [focusSeries, groups]);
  const dataState = state !== 'ready' ? state : !groups.length ? 'empty' : idle ? 'ready' : 'loading';
  return (
    <section ref={root} className="timeline" aria-label="Timeline" data-state={dataState} data-testid="timeline">
      <Toolbar />
      <DrillChip />
      <MarkerLane />
      <div className="charts">
        {error ? <div className="error-text" role="alert">Could not list series: {error}</div> : null}
        {state === 'ready' && !groups.length ? <p className="muted pad">This incident has no time series; see Logs, Traces and Kernels.</p> : null}
        {canonical.map((g) => (
          <TimeChart key={g.id} group={g} height={CHART_HEIGHT} highlighted={!!focusSeries && groupHasSeries(g, focusSeries)} />
        ))}
        <OtherSeries groups={others} focus={focusSeries} />
      </div>
    </section>
  );
}
