// The report's figures in document order, each with a stable file name: inline in HTML, files beside
// a Markdown report.
import { lineChartSvg, quadrantStripSvg, quadrantSvg, type Overlay } from './charts-svg';
import type { ReportData } from './report-data';

export interface Figure {
  /** "quadrant.svg", "chart-latency.svg": stable, so links and diffs stay put. */
  file: string;
  title: string;
  svg: string;
  kind: 'trajectory' | 'chart';
}

export function reportFigures(d: ReportData, standalone: boolean): Figure[] {
  const overlay: Overlay = {
    span: d.span,
    onset_ms: d.diagnosis.onset_ms,
    alert_bands: d.alert_bands,
    annotations: d.annotations.map((a, i) => ({ n: i + 1, start_ms: a.start_ms, end_ms: a.end_ms })),
  };
  const figs: Figure[] = [];
  const quadTitle = 'Quadrant trajectory (R, S) per window';
  figs.push({
    file: 'quadrant.svg',
    title: quadTitle,
    kind: 'trajectory',
    svg: quadrantSvg(d.diagnosis.windows, d.thresholds.resource_R, d.thresholds.service_S, d.diagnosis.onset_ms, { standalone, title: quadTitle }),
  });
  const stripTitle = 'Quadrant over time';
  figs.push({ file: 'quadrant-timeline.svg', title: stripTitle, kind: 'trajectory', svg: quadrantStripSvg(d.quadrant_path, overlay, { standalone, title: stripTitle }) });
  for (const c of d.charts) figs.push({ file: `chart-${c.id}.svg`, title: c.title, kind: 'chart', svg: lineChartSvg(c, overlay, { standalone, title: c.title }) });
  return figs;
}
