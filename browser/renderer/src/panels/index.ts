// The detail panels under the timeline, in tab order (Lichtblick's panels/index.ts). A panel is a folder
// here (its component, hooks, store and tests) whose index.ts declares it with definePanel; adding one is
// that folder, an import and its place in PANELS (docs/adding-a-panel.md).
import { checkRegistry, offeredPanels, type PanelContext, type PanelInfo } from './panel';
import annotations from './annotations';
import diagnosis from './diagnosis';
import fleet from './fleet';
import kernels from './kernels';
import kv from './kv';
import logs from './logs';
import memory from './memory';
import overview from './overview';
import sql from './sql';
import traces from './traces';

export const PANELS: readonly PanelInfo[] = checkRegistry([overview, diagnosis, fleet, logs, traces, kernels, kv, memory, annotations, sql]);

export function panelById(id: string): PanelInfo | undefined {
  return PANELS.find((p) => p.id === id);
}

/** The panels offered for this incident; `current` stays offered (a link asked for it). */
export const availablePanels = (ctx: PanelContext, current: string): PanelInfo[] => offeredPanels(PANELS, ctx, current);
