// The one uPlot wrapper. It owns the uPlot instance and talks to the stores directly (transient
// subscriptions, not React props): the visible range re-queries the store downsampled to the chart's
// pixel width, the cursor moves a DOM line, a drag zooms (or drafts a note with shift / armed mode),
// and a click sets the cursor. Hover crosshairs are synchronised across charts by uPlot's sync key.
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { api, errorText } from '../api';
import { formatTicks, formatValue } from '../../../../common/format';
import { useAnnotations } from '../state/annotations';
import { useCursor } from '../state/cursor';
import { useDiagnosis } from '../state/diagnosis';
import { useLayout } from '../state/layout';
import { useMarkers } from '../state/markers';
import { useTimeline } from '../state/timeline';
import { beginInteraction, chartBusy, chartIdle } from './draw-tracker';
import { bucketFor, bufferedWindow, type FetchWindow } from '../../../../common/charts/buffered-window';
import { freshEntry, loadOnce, onChartRefresh } from './chart-data-cache';
import { groupColumns, groupSeriesIds } from '../../../../common/charts/group-columns';
import { alignColumns } from '../../../../common/charts/minmax-columns';
import { drawOverlays, drawThreshold, quantileRange } from './overlays';
import { querySeriesBatched } from './series-batch';
import { deriveInputs, type ChartGroup, type ChartSeries } from '../../../../common/charts/series-groups';
import { readChartColors } from './theme-colors';

export const SYNC_KEY = 'quadscope-time';

let instances = 0;

/**
 * The chart a drag started on, and whether it was a shift-drag. Cursor sync hands the selection to every
 * chart; only this one acts on it, so a note is drawn on the chart under the mouse and a shift-drag
 * never zooms the others.
 */
let dragOwner: { chart: string; shift: boolean } | null = null;

/** A note's panel: the chart's title, as the annotations table keeps it. */
const panelOf = (title: string) => title.slice(0, 100);

export function draftVisibleRange(panel: string): void {
  const [start, end] = useCursor.getState().range;
  useAnnotations.getState().setDraft({ start_ms: start, end_ms: end, panel: panelOf(panel) });
}

interface Props {
  group: ChartGroup;
  height: number;
  highlighted?: boolean;
}

const RIGHT_PAD = 16;
const SPARSE_POINTS = 40;
/** Width of one character of the 11 px axis font, for the room a tick label takes. */
const CHAR_PX = 7.2;

/** 24-hour UTC ticks, with seconds or milliseconds only where the spacing needs them. */
export function timeTicks(u: uPlot, splits: number[]): string[] {
  const step = splits.length > 1 ? splits[1] - splits[0] : 60_000;
  const [from, to] = step < 1000 ? [11, 23] : step < 60_000 ? [11, 19] : [11, 16];
  const half = ((to - from) * CHAR_PX) / 2;
  const right = u.bbox.width / devicePixelRatio + RIGHT_PAD;
  // A label that would run off the right edge of the canvas is left out rather than cut in half.
  return splits.map((v) => (u.valToPos(v, 'x') + half > right ? '' : new Date(v).toISOString().slice(from, to)));
}

/** Pixels between time ticks: room for the longest label the spacing will need (HH:MM:SS.mmm below a second). */
export function timeSpace(span: number, plotPx: number): number {
  const step = (span / Math.max(1, plotPx)) * 60;
  return step < 1000 ? 13 * CHAR_PX : step < 60_000 ? 9.5 * CHAR_PX : 50;
}

/** Lines drawn from counter rates follow the timeline's rate window. */
const usesRate = (s: ChartSeries) => s.asRate || s.derive?.kind === 'sum-rate' || s.derive?.kind === 'arrivals' || (s.derive?.kind === 'ratio' && s.derive.rates);

export function TimeChart({ group, height, highlighted }: Props) {
  const box = useRef<HTMLDivElement>(null);
  const theme = useLayout((s) => s.theme);
  const signal = group.quantiles?.histogram.name ?? '';
  const trigger = useDiagnosis((s) => (signal && s.diagnosis?.trigger?.signal === signal ? s.diagnosis.trigger : undefined));
  const rateWindowMs = useTimeline((s) => (group.series.some(usesRate) ? s.rateWindowMs : 0));
  const seriesKey = group.series.map((s) => `${s.info.id}${s.asRate ? 'r' : ''}${s.derive ? `:${s.derive.kind}(${deriveInputs(s.derive).map((x) => x.id).join('+')})` : ''}`).join(',');

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const chartId = `${group.id}#${++instances}`;
    const colors = readChartColors();
    const cursorLine = document.createElement('div');
    cursorLine.className = 'chart-cursor';
    let downX = 0;
    let seq = 0;
    let scheduled = 0;
    let destroyed = false;
    let asked = 0;

    const xRange = (): [number, number] => {
      const r = useCursor.getState().range;
      return [r[0], r[1]];
    };

    const opts: uPlot.Options = {
      width: Math.max(100, el.clientWidth),
      height,
      ms: 1,
      // Fixed padding: uPlot's automatic padding grows after the first data arrive, which would change
      // the plot width (and the points we asked for) after the fact.
      padding: [8, RIGHT_PAD, 0, 0],
      tzDate: (ts) => uPlot.tzDate(new Date(ts), 'Etc/UTC'),
      cursor: {
        sync: { key: SYNC_KEY },
        drag: { x: true, y: false, setScale: false },
        points: { show: false },
      },
      legend: { show: true, live: true },
      scales: { x: { time: true, range: () => xRange() }, y: group.quantiles ? { auto: true, range: (_u, min, max) => quantileRange(min, max, group.unit, signal) } : { auto: true } },
      axes: [
        {
          stroke: colors.axis,
          grid: { stroke: colors.grid, width: 1 },
          ticks: { stroke: colors.grid },
          space: (_u, _i, min, max, dim) => timeSpace(max - min, dim),
          values: (self, splits) => timeTicks(self, splits),
        },
        {
          stroke: colors.axis,
          grid: { stroke: colors.grid, width: 1 },
          ticks: { stroke: colors.grid },
          // Wide enough for the longest tick ("3 min 20s"), fixed per chart so plot widths stay equal.
          size: 84,
          values: (_u, splits) => formatTicks(splits, group.unit),
        },
      ],
      series: [
        { value: (_u, v) => (v === null ? '—' : new Date(v).toISOString().slice(11, 23)) },
        ...group.series.map((s, i) => ({
          label: s.label,
          stroke: colors.series[i % colors.series.length],
          width: 1.25,
          spanGaps: true,
          // A few samples in view (a recording that just started, a sparse series) draw as dots too:
          // a line of two points close together is all but invisible.
          points: { show: (_u: uPlot, _si: number, i0: number, i1: number) => i1 - i0 < SPARSE_POINTS, size: 5 },
          value: (_u: uPlot, v: number | null) => formatValue(v, group.unit),
        })),
      ],
      hooks: {
        draw: [
          (u) => {
            drawOverlays(u, colors);
            if (group.quantiles) drawThreshold(u, colors, group.unit, signal);
            // The first data change the plot width (the y axis appears once it has ticks): ask again.
            if (asked && plotWidth() !== asked && u.over.clientWidth >= 16) schedule();
          },
        ],
        setSelect: [
          (u) => {
            const { left, width } = u.select;
            if (width < 3) return;
            const owner = dragOwner;
            u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
            if (owner?.chart !== chartId) return;
            dragOwner = null;
            const a = u.posToVal(left, 'x');
            const b = u.posToVal(left + width, 'x');
            const ann = useAnnotations.getState();
            if (owner.shift || ann.armed) ann.setDraft({ start_ms: a, end_ms: b, panel: panelOf(group.title) });
            else {
              beginInteraction('qs:zoom');
              useCursor.getState().setRange([a, b]);
            }
          },
        ],
      },
    };

    const u = new uPlot(opts, [[], ...group.series.map(() => [])], el.querySelector<HTMLDivElement>('.chart-canvas')!);
    u.over.appendChild(cursorLine);

    const placeCursor = () => {
      const c = useCursor.getState().cursor_ms;
      const [s, e] = useCursor.getState().range;
      if (c === null || c < s || c > e) {
        cursorLine.style.display = 'none';
        return;
      }
      cursorLine.style.display = 'block';
      cursorLine.style.transform = `translateX(${u.valToPos(c, 'x')}px)`;
    };

    // Lanes above the charts (event markers) line up with the plotting area of the charts.
    const alignLanes = () => {
      const tl = el.closest<HTMLElement>('.timeline');
      if (!tl) return;
      const r = u.over.getBoundingClientRect();
      const t = tl.getBoundingClientRect();
      tl.style.setProperty('--plot-left', `${r.left - t.left}px`);
      tl.style.setProperty('--plot-width', `${r.width}px`);
    };

    const ids = groupSeriesIds(group);
    const quant = group.quantiles;
    const key = quant ? `q:${quant.histogram.id}:${quant.q.join(',')}` : `s:${seriesKey}@${rateWindowMs}`;
    const load = async (w: FetchWindow): Promise<uPlot.AlignedData> => {
      if (quant) {
        const r = await api.queryQuantiles({ series_id: quant.histogram.id, quantiles: quant.q, start_ms: w.start_ms, end_ms: w.end_ms, points: w.points });
        // NaN crosses JSON as null, which uPlot draws as a gap.
        return [r.t, ...r.values.map((col) => col.map((v) => (Number.isFinite(v) ? v : null)))] as uPlot.AlignedData;
      }
      const byId = await querySeriesBatched(ids, w);
      return alignColumns(groupColumns(group, byId, w, rateWindowMs)) as uPlot.AlignedData;
    };
    const plotWidth = () => Math.max(16, Math.min(20_000, Math.floor(u.over.clientWidth || u.bbox.width / devicePixelRatio)));
    let shown: uPlot.AlignedData | null = null;

    const draw = (data: uPlot.AlignedData) => {
      const t0 = performance.now();
      if (data !== shown) u.setData(data);
      else u.setScale('x', { min: xRange()[0], max: xRange()[1] });
      shown = data;
      placeCursor();
      alignLanes();
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
    const unsubLive = onChartRefresh(schedule);

    const over = u.over;
    const onDown = (ev: MouseEvent) => {
      dragOwner = { chart: chartId, shift: ev.shiftKey };
      downX = ev.clientX;
    };
    const onUp = (ev: MouseEvent) => {
      if (Math.abs(ev.clientX - downX) < 3 && u.cursor.left !== undefined && u.cursor.left >= 0) useCursor.getState().setCursor(u.posToVal(u.cursor.left, 'x'));
    };
    over.addEventListener('mousedown', onDown);
    over.addEventListener('mouseup', onUp);

    const unsubs = [
      useCursor.subscribe((st, prev) => {
        if (st.range !== prev.range) schedule();
        if (st.cursor_ms !== prev.cursor_ms) placeCursor();
      }),
      useAnnotations.subscribe((st, prev) => {
        if (st.list !== prev.list || st.draft !== prev.draft) u.redraw(false);
      }),
      useDiagnosis.subscribe((st, prev) => {
        if (st.diagnosis === prev.diagnosis) return;
        // The quantile chart's y range includes the threshold line, which came with the diagnosis.
        if (group.quantiles && shown) u.setData(shown);
        else u.redraw(false);
      }),
      useMarkers.subscribe((st, prev) => st.events !== prev.events && u.redraw(false)),
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
      unsubs.forEach((f) => f());
      unsubLive();
      ro.disconnect();
      over.removeEventListener('mousedown', onDown);
      over.removeEventListener('mouseup', onUp);
      u.destroy();
    };
    // group.series is captured by seriesKey: a new array with the same series must not rebuild the chart.
  }, [seriesKey, height, theme, group.unit, group.title, group.id, rateWindowMs]);

  const onKey = (e: React.KeyboardEvent) => {
    const c = useCursor.getState();
    if (e.key === '+' || e.key === '=') c.zoom(0.5, c.cursor_ms ?? undefined);
    else if (e.key === '-') c.zoom(2, c.cursor_ms ?? undefined);
    else if (e.key === '0') c.showAll();
    else if (e.key === 'n' || e.key === 'N') {
      // The keyboard's way to a note: the visible range of this chart (zoom to the range first).
      e.preventDefault();
      e.stopPropagation();
      draftVisibleRange(group.title);
      return;
    } else return;
    beginInteraction('qs:zoom');
    e.preventDefault();
  };

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
      <div ref={box} className="chart-box" data-state="loading" tabIndex={0} onKeyDown={onKey} aria-label={`${group.title}: drag to zoom, shift+drag to annotate, + and − zoom, 0 resets, N writes a note for the visible range`}>
        <div className="chart-canvas" />
      </div>
    </section>
  );
}
