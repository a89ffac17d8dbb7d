// Routes engine events to the stores that follow them.
import { api } from '../api';
import { useImports } from '../state/imports';
import { useIncidents } from '../state/incidents';
import { useLive } from '../state/live';
import { useLiveFollow } from '../state/live-follow';
import { openIncident } from './open-incident';

/**
 * The open incident changed under the view (an import into it finished after it was opened, as the demo
 * does on a first start): open it again. A recording grows on its own terms (live-follow.ts).
 */
function reopenIfChanged(): void {
  const { openId, detail, list } = useIncidents.getState();
  const now = list.find((i) => i.id === openId);
  if (!now || !detail || useLiveFollow.getState().active) return;
  if (now.start_ms !== detail.start_ms || now.end_ms !== detail.end_ms) void openIncident(now.id);
}

export function installEngineEvents(): () => void {
  return api.onEvent((e) => {
    switch (e.type) {
      case 'import-progress':
        useImports.getState().apply(e.progress);
        break;
      case 'live-status':
        useLive.getState().apply(e.status);
        break;
      case 'incidents-changed':
        void useIncidents.getState().refresh().then(reopenIfChanged);
        break;
    }
  });
}
