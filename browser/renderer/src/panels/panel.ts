// What a detail panel is to the incident view: an id (the tab's place in the URL, `#/incident/3/<id>`, and
// its `data-testid="tab-<id>"`), the tab's title, the component drawn under the tabs, and when the panel is
// offered. Each panel folder's index.ts declares one; panels/index.ts lists them in tab order
// (docs/adding-a-panel.md).
import type { ComponentType } from 'react';
import type { Diagnosis } from '../../../../common/contract/diagnosis';

export interface PanelProps {
  /** The open incident. */
  incidentId: number;
}

/** What the incident view knows when it decides which panels to offer. */
export interface PanelContext {
  diagnosis: Diagnosis | null;
}

export interface PanelInfo {
  /** Lower-case words joined by '-': it is part of links people share. */
  id: string;
  title: string;
  component: ComponentType<PanelProps>;
  /** Offered only where this holds (a link that names the panel opens it anyway); always when absent. */
  available?: (ctx: PanelContext) => boolean;
}

/** Checks the id's shape where the panel is declared, so a bad id fails at start, naming the panel. */
export function definePanel(p: PanelInfo): PanelInfo {
  if (!/^[a-z][a-z0-9-]*$/.test(p.id)) throw new Error(`panel "${p.title}": id "${p.id}" must be lower-case letters, digits and '-' (it is part of the URL)`);
  return p;
}

/** The panels offered for this incident, in registry order; `current` stays offered (a link asked for it). */
export function offeredPanels(panels: readonly PanelInfo[], ctx: PanelContext, current: string): PanelInfo[] {
  return panels.filter((p) => p.id === current || !p.available || p.available(ctx));
}

/** Refuses a registry with two panels of one id (the second could never be opened by its link). */
export function checkRegistry(panels: readonly PanelInfo[]): readonly PanelInfo[] {
  const duplicate = panels.find((p, i) => panels.findIndex((q) => q.id === p.id) !== i);
  if (duplicate) throw new Error(`panels/index.ts: two panels have the id "${duplicate.id}"`);
  if (!panels.length) throw new Error('panels/index.ts: no panel registered');
  return panels;
}
