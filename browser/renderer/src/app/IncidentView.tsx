// One incident: the quadrant map and replay on the left, the timeline and the detail tabs on the right,
// all on the shared time axis. Splitter sizes are remembered per incident.
import { useEffect, useRef } from 'react';
import { formatTime } from '../../../../common/format';
import { Splitter } from './Splitter';
import { useCursor } from '../state/cursor';
import { useDiagnosis } from '../state/diagnosis';
import { useIncidents } from '../state/incidents';
import { useLayout } from '../state/layout';
import { TAB_LABELS, TABS, type Tab, useNavigation } from '../state/navigation';
import { Annotations } from '../panels/Annotations';
import { DiagnosisPanel } from '../panels/Diagnosis';
import { Fleet } from '../panels/Fleet';
import { Headline } from '../panels/Headline';
import { Kernels } from '../panels/Kernels';
import { KvCache } from '../panels/KvCache';
import { Logs } from '../panels/Logs';
import { Memory } from '../panels/Memory';
import { Overview } from '../panels/Overview';
import { QuadrantMap } from '../panels/QuadrantMap';
import { Replay } from '../panels/Replay';
import { ReportExport } from '../panels/ReportExport';
import { SqlConsole } from '../panels/SqlConsole';
import { Timeline } from '../panels/Timeline';
import { Traces } from '../panels/Traces';

function TabBody({ tab, incidentId }: { tab: Tab; incidentId: number }) {
  switch (tab) {
    case 'overview':
      return <Overview />;
    case 'diagnosis':
      return <DiagnosisPanel />;
    case 'fleet':
      return <Fleet />;
    case 'logs':
      return <Logs />;
    case 'traces':
      return <Traces />;
    case 'kernels':
      return <Kernels />;
    case 'kv':
      return <KvCache />;
    case 'memory':
      return <Memory />;
    case 'annotations':
      return <Annotations />;
    case 'sql':
      return <SqlConsole incidentId={incidentId} />;
  }
}

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
  // The fleet tab is there when the incident holds several serving instances (or a link asked for it).
  const fleet = useDiagnosis((s) => (s.diagnosis?.instances?.length ?? 0) >= 2);
  const tabs = TABS.filter((t) => t !== 'fleet' || fleet || tab === 'fleet');
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
            {tabs.map((t, i) => (
              <button
                key={t}
                ref={(b) => {
                  tabRefs.current[i] = b;
                }}
                type="button"
                role="tab"
                id={`tab-${t}`}
                aria-selected={t === tab}
                aria-controls="tab-body"
                tabIndex={t === tab ? 0 : -1}
                data-testid={`tab-${t}`}
                onClick={() => setTab(t)}
                onKeyDown={(e) => {
                  if (e.key !== 'ArrowRight' && e.key !== 'ArrowLeft') return;
                  e.preventDefault();
                  e.stopPropagation();
                  const next = (i + (e.key === 'ArrowRight' ? 1 : tabs.length - 1)) % tabs.length;
                  setTab(tabs[next]);
                  tabRefs.current[next]?.focus();
                }}
              >
                {TAB_LABELS[t]}
              </button>
            ))}
          </div>
          <div className="tab-body" id="tab-body" role="tabpanel" aria-labelledby={`tab-${tab}`}>
            <TabBody tab={tab} incidentId={incidentId} />
          </div>
        </div>
      </div>
    </div>
  );
}
