// The one uPlot wrapper of the timeline. It talks to the stores directly (transient subscriptions, not
// React props), in four hooks that share the chart's uPlot instance: drawing (use-plot: axes, series,
// overlays, the cursor line), data (use-chart-data: the visible range re-queries the store downsampled to
// the chart's pixel width), zoom and selection (use-zoom-selection: a drag zooms, a click sets the
// cursor) and notes (use-chart-notes: shift-drag or N drafts a note). Hover crosshairs are synchronised
// across charts by uPlot's sync key.
import { useRef } from 'react';
import { deriveInputs, type ChartGroup, type ChartSeries } from '../../../../../common/charts/series-groups';
import { formatValue } from '../../../../../common/format';
import { useDiagnosis } from '../../state/diagnosis';
import { useLayout } from '../../state/layout';
import { useTimeline } from '../../state/timeline';
import { useChartData } from './use-chart-data';
import { useChartNotes } from './use-chart-notes';
import { signalOf, usePlot } from './use-plot';
import { chartKeys, useZoomSelection } from './use-zoom-selection';

interface Props {
  group: ChartGroup;
  height: number;
  highlighted?: boolean;
}

/** Lines drawn from counter rates follow the timeline's rate window. */
const usesRate = (s: ChartSeries) => s.asRate || s.derive?.kind === 'sum-rate' || s.derive?.kind === 'arrivals' || (s.derive?.kind === 'ratio' && s.derive.rates);

export function TimeChart({ group, height, highlighted }: Props) {
  const box = useRef<HTMLDivElement>(null);
  const theme = useLayout((s) => s.theme);
  const signal = signalOf(group);
  const trigger = useDiagnosis((s) => (signal && s.diagnosis?.trigger?.signal === signal ? s.diagnosis.trigger : undefined));
  const rateWindowMs = useTimeline((s) => (group.series.some(usesRate) ? s.rateWindowMs : 0));
  const seriesKey = group.series.map((s) => `${s.info.id}${s.asRate ? 'r' : ''}${s.derive ? `:${s.derive.kind}(${deriveInputs(s.derive).map((x) => x.id).join('+')})` : ''}`).join(',');
  // The chart is rebuilt when one of these changes; group.series is captured by seriesKey, so a new array
  // with the same series does not rebuild it. Every hook runs on the same list, in this order.
  const deps = [seriesKey, height, theme, group.unit, group.title, group.id, rateWindowMs];
  const plot = usePlot(box, group, height, deps);
  useChartData(plot, group, seriesKey, rateWindowMs, height, deps);
  useZoomSelection(plot, group.title, deps);
  useChartNotes(plot, deps);

  return (
    <section className={`chart${highlighted ? ' chart-highlight' : ''}`} data-chart={group.id} data-series={group.series.map((x) => x.info.id).join(' ')} aria-label={`${group.title} chart`}>
      <header className="chart-title">
        {group.title}
        {group.unit ? <span className="muted"> · {group.unit}</span> : null}
        {trigger ? (
          <span className="chart-threshold" data-testid="latency-threshold" data-threshold-ms={trigger.threshold_ms}>
            {' '}
            ‒ ‒ trigger {formatValue(trigger.threshold_ms / 1000, 'seconds')} = baseline P99 {formatValue(trigger.baseline_p99_ms / 1000, 'seconds')} + θℓ {trigger.theta_ms} ms
          </span>
        ) : null}
      </header>
      <div ref={box} className="chart-box" data-state="loading" tabIndex={0} onKeyDown={chartKeys(group.title)} aria-label={`${group.title}: drag to zoom, shift+drag to annotate, + and − zoom, 0 resets, N writes a note for the visible range`}>
        <div className="chart-canvas" />
      </div>
    </section>
  );
}
