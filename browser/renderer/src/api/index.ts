// The renderer's one handle on the engine: the Electron preload's `window.quadscope` when present,
// else the loopback bridge client (browser mode and tests). Panels never know which.
import type { QuadscopeApi } from '../../../../common/contract/api';
import { createBridgeClient } from '../../../bridge-client';

declare global {
  interface Window {
    quadscope?: QuadscopeApi;
  }
}

export const api: QuadscopeApi = window.quadscope ?? createBridgeClient(window.location);

/** The message of anything thrown across the API, for display. */
export function errorText(e: unknown): string {
  if (e instanceof Error) return e.message;
  return typeof e === 'string' ? e : JSON.stringify(e);
}
