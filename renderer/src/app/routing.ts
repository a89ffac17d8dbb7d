// Keeps the URL hash and the navigation store in step, so reload and back/forward keep the view.
import { DEMO_NAME } from '../../../common/demo';
import { useIncidents } from '../state/incidents';
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

/**
 * A first start (no view in the URL, a workspace holding only the demo incident, perhaps still
 * importing) lands on the demo rather than on an empty page; once the user goes anywhere, never again.
 */
export function installDemoLanding(): () => void {
  if (location.hash.replace(/^#\/?/, '') !== '') return () => undefined;
  let done = false;
  const offs: (() => void)[] = [];
  const check = () => {
    if (done) return;
    const nav = useNavigation.getState();
    const { list } = useIncidents.getState();
    if (nav.view !== 'home') done = true;
    else if (list.length === 1 && list[0].name === DEMO_NAME) {
      done = true;
      nav.go('incident', list[0].id);
    } else if (list.some((i) => i.name !== DEMO_NAME)) done = true;
    if (done) offs.forEach((f) => f());
  };
  offs.push(useIncidents.subscribe(check), useNavigation.subscribe(check));
  check();
  return () => offs.forEach((f) => f());
}
