// One incident: the quadrant map and replay on the left, the timeline and the detail tabs on the right,
// all on the shared time axis. Splitter sizes are remembered per incident.
import { useEffect, useRef } from 'react';
import { formatTime } from '../../../../common/format';
import { Splitter } from './Splitter';
import { useCursor } from '../state/cursor';
import { useDiagnosis } from '../state/diagnosis';
import { useIncidents } from '../state/incidents';
import { useLayout } from '../state/layout';
import { useNavigation } from '../state/navigation';
import { availablePanels, panelById } from '../panels';
import { Headline } from '../components/Headline';
import { QuadrantMap } from '../components/QuadrantMap';
import { Replay } from '../components/Replay';
import { ReportExport } from '../components/ReportExport';
import { Timeline } from '../components/Timeline';

/** The cursor time, updated without re-rendering the view on every replay frame. */
function CursorClock() {
  const el = useRef<HTMLSpanElement>(null);
  useEffect(() => {
    const put = (ms: number | null) => {
      if (!el.current) return;
      el.current.textContent = ms === null ? 'cursor: —' : `cursor: ${formatTime(Math.round(ms))}`;
      el.current.dataset.cursorMs = ms === null ? '' : String(Math.round(ms));
    };
    put(useCursor.getState().cursor_ms);
    return useCursor.subscribe((s, p) => s.cursor_ms !== p.cursor_ms && put(s.cursor_ms));
  }, []);
  return <span ref={el} className="cursor-clock mono small" data-testid="cursor-clock" />;
}

export function IncidentView({ incidentId }: { incidentId: number }) {
  const detail = useIncidents((s) => s.detail);
  const { sizes, setSize } = useLayout();
  const tab = useNavigation((s) => s.tab);
  const setTab = useNavigation((s) => s.setTab);
  const tabRefs = useRef<(HTMLButtonElement | null)[]>([]);
  // The registry's panels this incident offers (the fleet panel only with several instances), selected as
  // one string so a new diagnosis re-renders the view only when the offer changes; an id no panel has (an
  // old link) shows the first.
  const offered = useDiagnosis((s) => availablePanels({ diagnosis: s.diagnosis }, tab).map((p) => p.id).join(' '));
  const panels = offered.split(' ').map((id) => panelById(id)!);
  const current = panels.find((p) => p.id === tab) ?? panels[0];
  const Body = current.component;
  const maxLeft = Math.max(280, window.innerWidth - 480);
  return (
    <div className="incident-view" style={{ gridTemplateColumns: `${sizes.left}px 6px minmax(0, 1fr)` }} data-testid="incident-view">
      <div className="incident-left">
        <div className="incident-title">
          <h1 title={detail?.name}>{detail?.name ?? '…'}</h1>
          <Headline />
          {/* Up here, not under the map: on a laptop screen the end of the column is below the fold. */}
          {detail ? <ReportExport incidentId={incidentId} name={detail.name} /> : null}
          <CursorClock />
        </div>
        <QuadrantMap />
        <Replay />
      </div>
      <Splitter orientation="vertical" value={sizes.left} min={260} max={maxLeft} label="Resize the quadrant-map column" onChange={(px) => setSize('left', px)} />
      <div className="incident-right" style={{ gridTemplateRows: `${sizes.timeline}px 6px minmax(0, 1fr)` }}>
        <Timeline />
        <Splitter orientation="horizontal" value={sizes.timeline} min={160} max={Math.max(200, window.innerHeight - 160)} label="Resize the timeline" onChange={(px) => setSize('timeline', px)} />
        <div className="detail">
          <div className="tabs" role="tablist" aria-label="Detail panels">
            {panels.map((p, i) => (
              <button
                key={p.id}
                ref={(b) => {
                  tabRefs.current[i] = b;
                }}
                type="button"
                role="tab"
                id={`tab-${p.id}`}
                aria-selected={p === current}
                aria-controls="tab-body"
                tabIndex={p === current ? 0 : -1}
                data-testid={`tab-${p.id}`}
                onClick={() => setTab(p.id)}
                onKeyDown={(e) => {
                  if (e.key !== 'ArrowRight' && e.key !== 'ArrowLeft') return;
                  e.preventDefault();
                  e.stopPropagation();
                  const next = (i + (e.key === 'ArrowRight' ? 1 : panels.length - 1)) % panels.length;
                  setTab(panels[next].id);
                  tabRefs.current[next]?.focus();
                }}
              >
                {p.title}
              </button>
            ))}
          </div>
          <div className="tab-body" id="tab-body" role="tabpanel" aria-labelledby={`tab-${current.id}`}>
            <Body incidentId={incidentId} />
          </div>
        </div>
      </div>
    </div>
  );
}
