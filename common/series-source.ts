// Where a series came from decides which copy of a signal a view reads: the engine's own metrics, then
// its log lines (the periodic stats line), then what was derived from other records (spans). The
// timeline and the report pick the same copy.
import type { SeriesInfo } from './contract/types';

/** 0: the engine's own metrics; 1: its log lines; 2: derived from other records (labels {from: …}). */
export function sourceRank(s: Pick<SeriesInfo, 'labels'>): number {
  if (s.labels.from) return 2;
  return /-log:/.test(s.labels.metric ?? '') ? 1 : 0;
}

/** The series of `name` from its best source (every label set of that source: per GPU, per reason). */
export function bestSource<S extends Pick<SeriesInfo, 'name' | 'labels' | 'points'>>(all: S[], name: string, usable: (s: S) => boolean = (s) => s.points > 0): S[] {
  const list = all.filter((s) => s.name === name && usable(s));
  if (!list.length) return [];
  const best = Math.min(...list.map(sourceRank));
  return list.filter((s) => sourceRank(s) === best);
}
