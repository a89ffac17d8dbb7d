// A chart's lines from the series the store answered (min/max per bucket of one fetch window): a derived
// line from its inputs, a counter as its rate, a gauge as its min/max columns. The timeline draws these
// columns and the report draws the same, so a report chart is the workstation's chart over the incident.
// (Quantile charts read api.queryQuantiles instead: ChartGroup.quantiles.)
import type { SeriesData } from '../contract/types';
import type { FetchWindow } from './buffered-window';
import { arrivals, ratio, sumRates, type Columns } from './derive-columns';
import { seriesColumns } from './minmax-columns';
import { deriveInputs, type ChartGroup } from './series-groups';

/** Every series a chart's lines read (the inputs of derived lines, else the line's own series). */
export function groupSeriesIds(group: ChartGroup): number[] {
  return [...new Set(group.series.flatMap((x) => (x.derive ? deriveInputs(x.derive).map((s) => s.id) : [x.info.id])))];
}

/** One column pair per line of `group`, in legend order; empty where the store had nothing. */
export function groupColumns(group: ChartGroup, byId: ReadonlyMap<number, SeriesData>, w: FetchWindow, rateWindowMs: number): Columns[] {
  return group.series.map((x) => {
    const data = (list: { id: number }[]) => list.map((s) => byId.get(s.id)).filter((d) => d !== undefined);
    const dv = x.derive;
    if (dv?.kind === 'sum-rate') return sumRates(data(dv.of), w, rateWindowMs);
    if (dv?.kind === 'arrivals') return arrivals(data(dv.finished), data(dv.queue), w, rateWindowMs);
    if (dv?.kind === 'ratio') return ratio(data(dv.num), data(dv.den), w, { rates: dv.rates, windowMs: rateWindowMs });
    const d = byId.get(x.info.id);
    return d ? seriesColumns(d, x.asRate, w.bucket_ms, rateWindowMs) : { t: new Float64Array(0), v: new Float64Array(0) };
  });
}
