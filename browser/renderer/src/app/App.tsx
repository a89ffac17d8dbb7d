// The shell: top bar, library sidebar, the current view, overlays; wires routing, engine events,
// shortcuts, theme and window-wide drops.
import { useEffect } from 'react';
import { api } from '../api';
import { useIncidents } from '../state/incidents';
import { useLayout } from '../state/layout';
import { useNavigation } from '../state/navigation';
import { AnnotationDialog } from '../panels/annotations/Annotations';
import { filesFromDataTransfer, hasFiles } from '../components/drop-files';
import { Home } from '../components/Home';
import { ImportJobs, startImport } from '../components/ImportZone';
import { Library } from '../components/Library';
import { Live } from '../components/Live';
import { SqlConsole } from '../panels/sql/SqlConsole';
import { installLiveFollow } from '../state/live-follow';
import { installEngineEvents } from './engine-events';
import { HelpOverlay } from './HelpOverlay';
import { IncidentView } from './IncidentView';
import { openIncident } from './open-incident';
import { installDemoLanding, installRouting } from './routing';
import { installShortcuts } from './shortcuts';

function useWindowDrops(): void {
  useEffect(() => {
    const over = (e: DragEvent) => {
      if (hasFiles(e.dataTransfer)) e.preventDefault();
    };
    const drop = (e: DragEvent) => {
      if (!e.dataTransfer || !hasFiles(e.dataTransfer)) return;
      e.preventDefault();
      void filesFromDataTransfer(e.dataTransfer).then(startImport);
    };
    window.addEventListener('dragover', over);
    window.addEventListener('drop', drop);
    return () => {
      window.removeEventListener('dragover', over);
      window.removeEventListener('drop', drop);
    };
  }, []);
}

export function App() {
  const theme = useLayout((s) => s.theme);
  const toggleTheme = useLayout((s) => s.toggleTheme);
  const setHelp = useLayout((s) => s.setHelp);
  const { view, incidentId, go } = useNavigation();
  const listState = useIncidents((s) => s.listState);

  useEffect(() => {
    document.documentElement.dataset.theme = theme;
  }, [theme]);
  useEffect(() => {
    const offs = [installEngineEvents(), installRouting(), installDemoLanding(), installShortcuts(), installLiveFollow()];
    void useIncidents.getState().refresh();
    return () => offs.forEach((f) => f());
  }, []);
  useEffect(() => {
    void openIncident(view === 'incident' ? incidentId : null);
  }, [view, incidentId]);
  useWindowDrops();

  return (
    <div className="app" data-state={listState === 'ready' ? 'idle' : listState} data-host={api.host}>
      <header className="topbar">
        <button type="button" className="brand" onClick={() => go('home')}>
          Quadscope
        </button>
        <nav className="row" aria-label="Views">
          <button type="button" aria-current={view === 'live' ? 'page' : undefined} onClick={() => go('live')}>
            Live
          </button>
          <button type="button" aria-current={view === 'sql' ? 'page' : undefined} onClick={() => go('sql')}>
            SQL
          </button>
        </nav>
        <span className="spacer" />
        <button type="button" onClick={toggleTheme} aria-label={`Switch to the ${theme === 'dark' ? 'light' : 'dark'} theme`} data-testid="theme-toggle">
          {theme === 'dark' ? '☀ Light' : '☾ Dark'}
        </button>
        <button type="button" onClick={() => setHelp(true)} aria-label="Keyboard shortcuts">
          ?
        </button>
      </header>
      <div className="body">
        <aside className="sidebar">
          <Library />
          <ImportJobs />
        </aside>
        <main className="main">
          {view === 'incident' && incidentId !== null ? <IncidentView key={incidentId} incidentId={incidentId} /> : null}
          {view === 'home' ? <Home /> : null}
          {view === 'live' ? <Live /> : null}
          {view === 'sql' ? <SqlConsole incidentId={null} /> : null}
        </main>
      </div>
      <HelpOverlay />
      <AnnotationDialog />
    </div>
  );
}
