// Data: what one chart draws for the visible range. The range re-queries the store downsampled to the
// chart's pixel width (a buffered window, cached across zooms, the next zoom level prefetched when idle);
// a quantile chart asks for its histogram's quantiles. The chart's box says how its data stand
// (`data-state` loading / ready / error, `data-points`), and the draw tracker knows when every chart is
// drawn (the timeline's idle signal). A resize, live data and a new diagnosis (the trigger line is part
// of a quantile chart's y range) draw again.
import { useEffect, type DependencyList, type MutableRefObject } from 'react';
import type uPlot from 'uplot';
import { bucketFor, bufferedWindow, type FetchWindow } from '../../../../../common/charts/buffered-window';
import { groupColumns, groupSeriesIds } from '../../../../../common/charts/group-columns';
import { alignColumns } from '../../../../../common/charts/minmax-columns';
import type { ChartGroup } from '../../../../../common/charts/series-groups';
import { api, errorText } from '../../api';
import { useCursor } from '../../state/cursor';
import { useDiagnosis } from '../../state/diagnosis';
import { freshEntry, loadOnce, onChartRefresh } from '../chart-data-cache';
import { chartBusy, chartIdle } from '../draw-tracker';
import { querySeriesBatched } from '../series-batch';
import type { Plot } from './use-plot';

/** The cache key of a chart's data: its series (or histogram and quantiles) and the rate window. */
function dataKey(group: ChartGroup, seriesKey: string, rateWindowMs: number): string {
  const quant = group.quantiles;
  return quant ? `q:${quant.histogram.id}:${quant.q.join(',')}` : `s:${seriesKey}@${rateWindowMs}`;
}

export function useChartData(plot: MutableRefObject<Plot | null>, group: ChartGroup, seriesKey: string, rateWindowMs: number, height: number, deps: DependencyList): void {
  useEffect(() => {
    const p = plot.current;
    if (!p) return;
    const { u, el, chartId, xRange, plotWidth } = p;
    let seq = 0;
    let scheduled = 0;
    let destroyed = false;
    let asked = 0;
    let shown: uPlot.AlignedData | null = null;

    const ids = groupSeriesIds(group);
    const quant = group.quantiles;
    const key = dataKey(group, seriesKey, rateWindowMs);
    const load = async (w: FetchWindow): Promise<uPlot.AlignedData> => {
      if (quant) {
        const r = await api.queryQuantiles({ series_id: quant.histogram.id, quantiles: quant.q, start_ms: w.start_ms, end_ms: w.end_ms, points: w.points });
        // NaN crosses JSON as null, which uPlot draws as a gap.
        return [r.t, ...r.values.map((col) => col.map((v) => (Number.isFinite(v) ? v : null)))] as uPlot.AlignedData;
      }
      const byId = await querySeriesBatched(ids, w);
      return alignColumns(groupColumns(group, byId, w, rateWindowMs)) as uPlot.AlignedData;
    };

    const draw = (data: uPlot.AlignedData) => {
      const t0 = performance.now();
      if (data !== shown) u.setData(data);
      else u.setScale('x', { min: xRange()[0], max: xRange()[1] });
      shown = data;
      p.placeCursor();
      p.alignLanes();
      performance.measure('qs:chart-draw', { start: t0 });
    };

    // When the chart is drawn and idle, the next zoom-in level of the visible range is fetched so the
    // next zoom draws from memory too.
    const prefetch = (my: number) => {
      const range = xRange();
      const bucket = bucketFor(range[1] - range[0], plotWidth()) / 2;
      if (bucket < 1 || freshEntry(key, range, bucket)) return;
      setTimeout(() => {
        if (my !== seq || destroyed || scheduled) return;
        const w = bufferedWindow(range, useCursor.getState().full, plotWidth(), bucket, 0);
        loadOnce(key, w, range, load).catch(() => undefined);
      }, 30);
    };

    const fetchData = async () => {
      scheduled = 0;
      const my = ++seq;
      const range = xRange();
      const width = plotWidth();
      const bucket = bucketFor(range[1] - range[0], width);
      try {
        let entry = freshEntry<uPlot.AlignedData>(key, range, bucket);
        if (!entry) {
          // Stale data at the new scale while the fresh window loads.
          if (shown) u.setScale('x', { min: range[0], max: range[1] });
          entry = await loadOnce(key, bufferedWindow(range, useCursor.getState().full, width, bucket), range, load);
          if (my !== seq || destroyed) return;
        }
        draw(entry.data);
        asked = width;
        el.dataset.points = String(Math.round((range[1] - range[0]) / bucket));
        el.dataset.state = 'ready';
        el.removeAttribute('title');
        prefetch(my);
      } catch (err) {
        if (my !== seq || destroyed) return;
        el.dataset.state = 'error';
        el.title = errorText(err);
      } finally {
        if (my === seq && !destroyed && !scheduled) chartIdle(chartId);
      }
    };
    // Busy from the moment a redraw is due (not when the query starts), so "idle" always means drawn.
    const schedule = () => {
      el.dataset.state = 'loading';
      chartBusy(chartId);
      if (!scheduled) scheduled = requestAnimationFrame(() => void fetchData());
    };

    // The first data change the plot width (the y axis appears once it has ticks): ask again.
    const askAgain = (x: uPlot) => {
      if (asked && plotWidth() !== asked && x.over.clientWidth >= 16) schedule();
    };
    p.onDraw.add(askAgain);
    const unsubs = [
      onChartRefresh(schedule),
      useCursor.subscribe((st, prev) => st.range !== prev.range && schedule()),
      useDiagnosis.subscribe((st, prev) => {
        if (st.diagnosis === prev.diagnosis) return;
        // The quantile chart's y range includes the threshold line, which came with the diagnosis.
        if (group.quantiles && shown) u.setData(shown);
        else u.redraw(false);
      }),
    ];
    const ro = new ResizeObserver(() => {
      const w = Math.max(100, el.clientWidth);
      if (Math.abs(w - u.width) < 1) return;
      u.setSize({ width: w, height });
      schedule();
    });
    ro.observe(el);
    schedule();

    return () => {
      destroyed = true;
      cancelAnimationFrame(scheduled);
      chartIdle(chartId);
      p.onDraw.delete(askAgain);
      unsubs.forEach((f) => f());
      ro.disconnect();
    };
  }, deps);
}
