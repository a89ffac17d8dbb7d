// Keeps the URL hash and the navigation store in step, so reload and back/forward keep the view.
import { formatHash, parseHash, useNavigation } from '../state/navigation';

export function installRouting(): () => void {
  const fromHash = () => {
    const { view, incidentId, tab } = parseHash(location.hash);
    const nav = useNavigation.getState();
    if (view !== nav.view || incidentId !== (view === 'incident' ? nav.incidentId : incidentId)) nav.go(view, incidentId);
    if (tab && tab !== useNavigation.getState().tab) nav.setTab(tab);
  };
  fromHash();
  const unsub = useNavigation.subscribe((s) => {
    const h = formatHash(s.view, s.incidentId, s.tab);
    if (h !== location.hash && !(h === '#/' && location.hash === '')) history.pushState(null, '', h);
  });
  window.addEventListener('hashchange', fromHash);
  window.addEventListener('popstate', fromHash);
  return () => {
    unsub();
    window.removeEventListener('hashchange', fromHash);
    window.removeEventListener('popstate', fromHash);
  };
}
