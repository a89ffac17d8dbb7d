// Routes engine events to the stores that follow them.
import { api } from '../api';
import { useImports } from '../state/imports';
import { useIncidents } from '../state/incidents';
import { useLive } from '../state/live';

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
        void useIncidents.getState().refresh();
        break;
    }
  });
}
