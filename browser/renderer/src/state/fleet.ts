// The fleet view's reading of the diagnosis (issue 17 §2): each instance's severity, the orders its rows
// can be sorted in, and the drill-down: the instance whose series alone the timeline shows.
import { create } from 'zustand';
import type { InstanceDiagnosis } from '../../../../common/contract/diagnosis';

/** Labels that name where a series was measured (Prometheus `instance`, Kubernetes `pod`, hosts; DCGM's `Hostname`). */
const IDENTITY_LABELS = ['instance', 'pod', 'host', 'hostname', 'Hostname', 'node'];

const STATUS_RANK = { explained: 2, unexplained: 1, healthy: 0, insufficient: 0 } as const;

/**
 * How bad an instance looks, for sorting: a named cause first, then something wrong without one, then
 * the share of its windows out of the healthy quadrant, then its worst S.
 */
export function severity(i: InstanceDiagnosis): number {
  const ws = i.windows ?? [];
  const off = ws.length ? ws.filter((w) => w.quadrant !== 'healthy').length / ws.length : 0;
  const worst = ws.reduce((m, w) => Math.max(m, w.S), 0);
  return STATUS_RANK[i.status] * 1000 + Math.min(9, i.causes.length) * 100 + off * 10 + Math.min(1, worst);
}

export type FleetSort = 'severity' | 'name' | 'onset';

export function sortInstances(list: InstanceDiagnosis[], by: FleetSort): InstanceDiagnosis[] {
  const out = [...list];
  const name = (a: InstanceDiagnosis, b: InstanceDiagnosis) => (a.instance < b.instance ? -1 : a.instance > b.instance ? 1 : 0);
  if (by === 'name') return out.sort(name);
  if (by === 'onset') return out.sort((a, b) => (a.onset_ms ?? Infinity) - (b.onset_ms ?? Infinity) || name(a, b));
  return out.sort((a, b) => severity(b) - severity(a) || name(a, b));
}

/** Whether a series belongs to the instance: one of its identity labels holds one of the instance's names. */
export function seriesOfInstance(labels: Record<string, string>, ids: readonly string[]): boolean {
  for (const k of IDENTITY_LABELS) {
    const v = labels[k];
    if (v !== undefined && ids.includes(v)) return true;
  }
  return false;
}

export interface Drill {
  instance: string;
  ids: string[];
}

interface FleetState {
  sort: FleetSort;
  /** The instance the timeline is filtered to, or null for the whole fleet. */
  drill: Drill | null;
  setSort(by: FleetSort): void;
  drillInto(d: Drill | null): void;
}

export const useFleet = create<FleetState>((set) => ({
  sort: 'severity',
  drill: null,
  setSort: (sort) => set({ sort }),
  drillInto: (drill) => set({ drill }),
}));
