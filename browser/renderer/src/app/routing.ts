// Keeps the URL hash and the navigation store in step, so reload and back/forward keep the view, and a
// link copied from the address bar opens the same incident, tab and zoomed range for whoever gets it.
import { DEMO_NAME } from '../../../../common/demo';
import { useCursor } from '../state/cursor';
import { useIncidents } from '../state/incidents';
import { panelById } from '../panels';
import { formatHash, parseHash, useNavigation } from '../state/navigation';

/** The visible range when zoomed in, else null (the whole incident needs no parameters). */
function zoomedRange(): readonly [number, number] | null {
  const { range, full } = useCursor.getState();
  return range[0] !== full[0] || range[1] !== full[1] ? range : null;
}

/** The range a link asks for, once the incident it names is open (open-incident.ts applies it). */
export function linkedRange(incidentId: number): [number, number] | null {
  const h = parseHash(location.hash);
  return h.view === 'incident' && h.incidentId === incidentId ? h.range : null;
}

export function installRouting(): () => void {
  const fromHash = () => {
    const { view, incidentId, tab, range } = parseHash(location.hash);
    const nav = useNavigation.getState();
    if (view !== nav.view || incidentId !== (view === 'incident' ? nav.incidentId : incidentId)) nav.go(view, incidentId);
    else if (range && view === 'incident') useCursor.getState().setRange(range);
    if (tab && panelById(tab) && tab !== useNavigation.getState().tab) nav.setTab(tab);
  };
  fromHash();
  const hashNow = () => {
    const s = useNavigation.getState();
    // The zoom belongs to the incident on the axis: going to another one must not hand it the old range
    // (its link would open that range, clamped into the new incident).
    const onAxis = useIncidents.getState().detail?.id === s.incidentId;
    return formatHash(s.view, s.incidentId, s.tab, s.view === 'incident' && onAxis ? zoomedRange() : null);
  };
  const unsub = useNavigation.subscribe(() => {
    const h = hashNow();
    if (h !== location.hash && !(h === '#/' && location.hash === '')) history.pushState(null, '', h);
  });
  // Zooming rewrites the link in place (no history entry per zoom), a moment after the last change.
  let timer: ReturnType<typeof setTimeout> | null = null;
  const unsubRange = useCursor.subscribe((s, p) => {
    if (s.range === p.range || useNavigation.getState().view !== 'incident') return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      const h = hashNow();
      if (h !== location.hash) history.replaceState(null, '', h);
    }, 300);
  });
  window.addEventListener('hashchange', fromHash);
  window.addEventListener('popstate', fromHash);
  return () => {
    unsub();
    unsubRange();
    if (timer) clearTimeout(timer);
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
