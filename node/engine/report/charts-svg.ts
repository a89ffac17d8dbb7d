// Static SVG for reports: time-series line charts with the alert bands, the onset and the user's
// annotations drawn on them, and the (R, S) quadrant trajectory. Plain strings, coordinates with
// fixed precision, no scripts and no external references, so the same data give the same bytes and the
// SVG can sit inline in HTML or in its own file beside a Markdown report.
import type { AlertFamily, Quadrant, WindowScore } from '../../../common/contract/diagnosis';
import type { ChartData } from './chart-series';
import type { QuadrantRun } from './report-data';
import { formatClock, formatTicks } from '../../../common/format';

export interface Overlay {
  span: { start_ms: number; end_ms: number };
  onset_ms: number | null;
  alert_bands: { family: AlertFamily; start_ms: number; end_ms: number }[];
  /** Numbered as in the report's annotation list. */
  annotations: { n: number; start_ms: number; end_ms: number }[];
}

export interface SvgOptions {
  /** A file of its own needs the SVG namespace; inline SVG in HTML must not carry it (no URL in the report). */
  standalone: boolean;
  title: string;
}

export const LINE_COLORS = ['#1f4e79', '#c0504d', '#4f8f3a', '#7a5aa6', '#c98a1b', '#2c8c99', '#6d6d6d', '#a0522d'];
export const FAMILY_COLORS: Record<AlertFamily, string> = { latency: '#c9302c', errors: '#8a1f1d', throughput: '#d58512', resources: '#3f6fae' };
export const QUADRANT_COLORS: Record<Quadrant, { fill: string; ink: string }> = {
  healthy: { fill: '#e6f2e6', ink: '#3c8d3c' },
  saturated: { fill: '#fbf0db', ink: '#c98a1b' },
  exhausted: { fill: '#f8dddc', ink: '#c9302c' },
  contended: { fill: '#ebe3f4', ink: '#7a5aa6' },
};
const ANNOTATION_COLOR = '#b8860b';
const ONSET_COLOR = '#a00020';
const FONT = 'font-family="Helvetica, Arial, sans-serif"';

export function escapeXml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

const f = (x: number) => (Math.round(x * 10) / 10).toFixed(1);

function open(w: number, h: number, o: SvgOptions): string {
  const ns = o.standalone ? ' xmlns="http://www.w3.org/2000/svg"' : '';
  return `<svg${ns} viewBox="0 0 ${w} ${h}" width="${w}" height="${h}" role="img" ${FONT} font-size="11">\n<title>${escapeXml(o.title)}</title>\n<rect x="0" y="0" width="${w}" height="${h}" fill="#ffffff"/>\n`;
}

// ---- axes

const TIME_STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400].map((s) => s * 1000);

/** Tick times at a round UTC step, about `target` of them over the span. */
export function timeTicks(start: number, end: number, target = 7): number[] {
  const span = Math.max(1, end - start);
  const step = TIME_STEPS.find((s) => span / s <= target) ?? Math.ceil(span / target / 86_400_000) * 86_400_000;
  const out: number[] = [];
  for (let t = Math.ceil(start / step) * step; t <= end; t += step) out.push(t);
  return out;
}

/** Round value ticks (1-2-5) from `lo` to at least `hi`. */
export function valueTicks(lo: number, hi: number, target = 4): number[] {
  const range = hi - lo || Math.abs(hi) || 1;
  const raw = range / target;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const out: number[] = [];
  const first = Math.floor(lo / step) * step;
  for (let i = 0; first + i * step <= hi + step * 0.999 && i < 20; i++) out.push(first + i * step);
  return out;
}

/** Units read as a share of 1 (drawn as %, up to 100% at least). */
const isShare = (unit: string) => unit === 'fraction' || unit === 'ratio' || unit === '0..1';

/** Ticks are placed at round values of the unit shown (ms, s or min, MiB or GiB, %), then labelled by formatTicks. */
function tickFactor(unit: string, max: number): number {
  if (unit === 'seconds' || unit === 's') return max < 2 ? 1000 : max < 180 ? 1 : 1 / 60;
  if (unit === 'bytes') return max >= 2 ** 30 ? 2 ** -30 : 2 ** -20;
  return isShare(unit) ? 100 : 1;
}

// ---- line chart

const CW = 900;
const PAD = { left: 70, right: 30, top: 46, bottom: 46 };
const PLOT_H = 170;

export function lineChartSvg(chart: ChartData, overlay: Overlay, o: SvgOptions): string {
  const x0 = PAD.left;
  const x1 = CW - PAD.right;
  const y0 = PAD.top;
  const y1 = PAD.top + PLOT_H;
  const families = [...new Set(overlay.alert_bands.map((b) => b.family))];
  const legend = legendLayout(legendItems(chart, overlay, families), x0, x1);
  const legendRows = legend.length ? legend[legend.length - 1].row + 1 : 0;
  const H = y1 + PAD.bottom + legendRows * 16;
  const { start_ms: t0, end_ms: t1 } = overlay.span;
  const X = (t: number) => x0 + ((Math.min(Math.max(t, t0), t1) - t0) / Math.max(1, t1 - t0)) * (x1 - x0);

  let lo = 0;
  let hi = -Infinity;
  for (const l of chart.lines) for (let i = 0; i < l.t.length; i++) {
    if (l.min[i] < lo) lo = l.min[i];
    if (l.max[i] > hi) hi = l.max[i];
  }
  for (const r of chart.refs) hi = Math.max(hi, r.value);
  if (isShare(chart.unit)) hi = Math.max(hi, 1);
  if (!(hi > lo)) hi = lo + 1;
  const factor = tickFactor(chart.unit, hi);
  const yt = valueTicks(lo * factor, hi * factor).map((v) => v / factor);
  const vlo = yt[0];
  const vhi = yt[yt.length - 1];
  const Y = (v: number) => y1 - ((v - vlo) / Math.max(1e-300, vhi - vlo)) * (y1 - y0);

  const parts: string[] = [open(CW, H, o)];
  parts.push(`<text x="${x0}" y="16" font-size="13" font-weight="bold" fill="#1a1a1a">${escapeXml(chart.title)}</text>`);
  parts.push(`<text x="${x1}" y="16" font-size="10" fill="#666666" text-anchor="end">${escapeXml(chart.note)}</text>`);

  // Bands first, so lines draw over them.
  for (const b of overlay.alert_bands) {
    const a = X(b.start_ms);
    const w = Math.max(1, X(b.end_ms) - a);
    parts.push(`<rect x="${f(a)}" y="${y0}" width="${f(w)}" height="${PLOT_H}" fill="${FAMILY_COLORS[b.family]}" fill-opacity="0.08"/>`);
    const row = families.indexOf(b.family);
    parts.push(`<rect x="${f(a)}" y="${22 + row * 4}" width="${f(w)}" height="3" fill="${FAMILY_COLORS[b.family]}"/>`);
  }
  for (const a of overlay.annotations) {
    const xa = X(a.start_ms);
    const xb = X(a.end_ms);
    if (xb - xa >= 1) parts.push(`<rect x="${f(xa)}" y="${y0}" width="${f(xb - xa)}" height="${PLOT_H}" fill="${ANNOTATION_COLOR}" fill-opacity="0.12" stroke="${ANNOTATION_COLOR}" stroke-opacity="0.5" stroke-width="0.8"/>`);
    else parts.push(`<line x1="${f(xa)}" y1="${y0}" x2="${f(xa)}" y2="${y1}" stroke="${ANNOTATION_COLOR}" stroke-width="1.2"/>`);
    parts.push(`<text x="${f(xa + 2)}" y="${y0 - 3}" font-size="10" font-weight="bold" fill="${ANNOTATION_COLOR}">A${a.n}</text>`);
  }

  // Grid and axes.
  const labels = formatTicks(yt, chart.unit);
  yt.forEach((v, i) => {
    const y = Y(v);
    parts.push(`<line x1="${x0}" y1="${f(y)}" x2="${x1}" y2="${f(y)}" stroke="#e2e2e2" stroke-width="0.8"/>`);
    parts.push(`<text x="${x0 - 6}" y="${f(y + 3.5)}" text-anchor="end" fill="#444444">${escapeXml(labels[i])}</text>`);
  });
  for (const t of timeTicks(t0, t1)) {
    const x = X(t);
    parts.push(`<line x1="${f(x)}" y1="${y1}" x2="${f(x)}" y2="${y1 + 4}" stroke="#888888"/>`);
    parts.push(`<text x="${f(x)}" y="${y1 + 16}" text-anchor="${tickAnchor(x, x1)}" fill="#444444">${formatClock(t)}</text>`);
  }
  parts.push(`<rect x="${x0}" y="${y0}" width="${x1 - x0}" height="${PLOT_H}" fill="none" stroke="#9a9a9a" stroke-width="0.8"/>`);

  for (const r of chart.refs) {
    const y = Y(r.value);
    parts.push(`<line x1="${x0}" y1="${f(y)}" x2="${x1}" y2="${f(y)}" stroke="#555555" stroke-width="1" stroke-dasharray="6 3"/>`);
  }

  chart.lines.forEach((l, i) => {
    const color = LINE_COLORS[i % LINE_COLORS.length];
    for (const seg of segments(l.t)) {
      const env = seg.some((k) => l.min[k] !== l.max[k]);
      if (env) {
        const top = seg.map((k) => `${f(X(l.t[k]))},${f(Y(l.max[k]))}`);
        const bottom = [...seg].reverse().map((k) => `${f(X(l.t[k]))},${f(Y(l.min[k]))}`);
        parts.push(`<polygon points="${[...top, ...bottom].join(' ')}" fill="${color}" fill-opacity="0.18" stroke="none"/>`);
      }
      if (seg.length === 1) parts.push(`<circle cx="${f(X(l.t[seg[0]]))}" cy="${f(Y(l.max[seg[0]]))}" r="2" fill="${color}"/>`);
      else parts.push(`<polyline points="${seg.map((k) => `${f(X(l.t[k]))},${f(Y(l.max[k]))}`).join(' ')}" fill="none" stroke="${color}" stroke-width="1.4" stroke-linejoin="round"/>`);
    }
  });

  if (overlay.onset_ms !== null) {
    const x = X(overlay.onset_ms);
    parts.push(`<line x1="${f(x)}" y1="${y0}" x2="${f(x)}" y2="${y1}" stroke="${ONSET_COLOR}" stroke-width="1.5" stroke-dasharray="5 3"/>`);
    parts.push(`<text x="${f(x - 2)}" y="${y0 - 3}" text-anchor="end" font-size="10" font-weight="bold" fill="${ONSET_COLOR}">onset</text>`);
  }

  // Legend: entries flow left to right and wrap, each as wide as its label, so none overprints another.
  for (const it of legend) parts.push(`<g transform="translate(${f(it.x)},${y1 + 34 + it.row * 16})">${it.swatch}<text x="19" y="0" fill="#333333">${escapeXml(it.label)}</text></g>`);
  if (chart.omitted > 0) parts.push(`<text x="${x1}" y="${H - 4}" text-anchor="end" font-size="10" fill="#666666">+${chart.omitted} more series not drawn</text>`);

  parts.push('</svg>');
  return parts.join('\n');
}

interface LegendItem {
  swatch: string;
  label: string;
}

function legendItems(chart: ChartData, overlay: Overlay, families: AlertFamily[]): LegendItem[] {
  return [
    ...chart.lines.map((l, i) => ({ swatch: `<rect width="14" height="3" y="-4" fill="${LINE_COLORS[i % LINE_COLORS.length]}"/>`, label: l.label })),
    ...chart.refs.map((r) => ({ swatch: '<line x1="0" y1="-3" x2="14" y2="-3" stroke="#555555" stroke-dasharray="4 2"/>', label: r.label })),
    ...families.map((fam) => ({ swatch: `<rect width="14" height="8" y="-8" fill="${FAMILY_COLORS[fam]}" fill-opacity="0.35"/>`, label: `${fam} alert` })),
    ...(overlay.annotations.length ? [{ swatch: `<rect width="14" height="8" y="-8" fill="${ANNOTATION_COLOR}" fill-opacity="0.3"/>`, label: 'annotation' }] : []),
    ...(overlay.onset_ms !== null ? [{ swatch: `<line x1="0" y1="-3" x2="14" y2="-3" stroke="${ONSET_COLOR}" stroke-width="1.5" stroke-dasharray="4 2"/>`, label: 'onset' }] : []),
  ];
}

/** Width of one character of the 11 px legend font, generous so that wide letters never collide. */
const LEGEND_CHAR_PX = 6.6;
const SWATCH_PX = 19;
const LEGEND_GAP_PX = 18;

/** Places legend entries in rows: an entry goes on the current row when it fits, else starts the next; a label too long for a whole row is cut. */
export function legendLayout(items: LegendItem[], left: number, right: number): (LegendItem & { x: number; row: number })[] {
  const maxChars = Math.floor((right - left - SWATCH_PX) / LEGEND_CHAR_PX);
  const out: (LegendItem & { x: number; row: number })[] = [];
  let x = left;
  let row = 0;
  for (const it of items) {
    const label = it.label.length > maxChars ? `${it.label.slice(0, maxChars - 1)}…` : it.label;
    const w = SWATCH_PX + label.length * LEGEND_CHAR_PX;
    if (x > left && x + w > right) {
      row++;
      x = left;
    }
    out.push({ ...it, label, x, row });
    x += w + LEGEND_GAP_PX;
  }
  return out;
}

/** A tick label at the right edge ends there instead of running off the figure. */
const tickAnchor = (x: number, right: number) => (x > right - 24 ? 'end' : 'middle');

/** Index runs with no gap wider than 5× the median step, so a missing stretch is not drawn as a line. */
function segments(t: number[]): number[][] {
  if (!t.length) return [];
  const steps = t.slice(1).map((x, i) => x - t[i]).sort((a, b) => a - b);
  const limit = steps.length ? Math.max(1, steps[Math.floor(steps.length / 2)] * 5) : Infinity;
  const out: number[][] = [[0]];
  for (let i = 1; i < t.length; i++) {
    if (t[i] - t[i - 1] > limit) out.push([i]);
    else out[out.length - 1].push(i);
  }
  return out;
}

// ---- quadrant trajectory

const QS = 440;
const QP = { left: 54, right: 16, top: 24, bottom: 46 };

export function quadrantSvg(windows: WindowScore[], thetaR: number, thetaS: number, onsetMs: number | null, o: SvgOptions): string {
  const x0 = QP.left;
  const x1 = QS - QP.right;
  const y0 = QP.top;
  const y1 = QS - QP.bottom;
  const X = (r: number) => x0 + Math.min(1, Math.max(0, r)) * (x1 - x0);
  const Y = (s: number) => y1 - Math.min(1, Math.max(0, s)) * (y1 - y0);
  const w = [...windows].sort((a, b) => a.t_ms - b.t_ms);
  const parts: string[] = [open(QS, QS, o)];

  const quad = (q: Quadrant, ra: number, rb: number, sa: number, sb: number, label: string, anchor: 'start' | 'end', ly: number) => {
    parts.push(`<rect x="${f(X(ra))}" y="${f(Y(sb))}" width="${f(X(rb) - X(ra))}" height="${f(Y(sa) - Y(sb))}" fill="${QUADRANT_COLORS[q].fill}"/>`);
    const lx = anchor === 'start' ? X(ra) + 6 : X(rb) - 6;
    parts.push(`<text x="${f(lx)}" y="${f(ly)}" text-anchor="${anchor}" font-weight="bold" fill="${QUADRANT_COLORS[q].ink}">${label}</text>`);
  };
  quad('healthy', 0, thetaR, 0, thetaS, 'healthy', 'start', Y(0) - 6);
  quad('saturated', thetaR, 1, 0, thetaS, 'saturated', 'end', Y(0) - 6);
  quad('contended', 0, thetaR, thetaS, 1, 'contended', 'start', Y(1) + 14);
  quad('exhausted', thetaR, 1, thetaS, 1, 'exhausted', 'end', Y(1) + 14);

  for (const v of [0, 0.25, 0.5, 0.75, 1]) {
    parts.push(`<text x="${f(X(v))}" y="${y1 + 14}" text-anchor="middle" fill="#444444">${v.toFixed(2)}</text>`);
    parts.push(`<text x="${x0 - 6}" y="${f(Y(v) + 3.5)}" text-anchor="end" fill="#444444">${v.toFixed(2)}</text>`);
  }
  parts.push(`<line x1="${f(X(thetaR))}" y1="${y0}" x2="${f(X(thetaR))}" y2="${y1}" stroke="#777777" stroke-dasharray="4 3"/>`);
  parts.push(`<line x1="${x0}" y1="${f(Y(thetaS))}" x2="${x1}" y2="${f(Y(thetaS))}" stroke="#777777" stroke-dasharray="4 3"/>`);
  parts.push(`<rect x="${x0}" y="${y0}" width="${x1 - x0}" height="${y1 - y0}" fill="none" stroke="#9a9a9a"/>`);
  parts.push(`<text x="${f((x0 + x1) / 2)}" y="${QS - 14}" text-anchor="middle" fill="#222222">resource pressure R (θR = ${thetaR.toFixed(2)})</text>`);
  parts.push(`<text transform="translate(14,${f((y0 + y1) / 2)}) rotate(-90)" text-anchor="middle" fill="#222222">service degradation S (θS = ${thetaS.toFixed(2)})</text>`);

  if (w.length) {
    parts.push(`<polyline points="${w.map((p) => `${f(X(p.R))},${f(Y(p.S))}`).join(' ')}" fill="none" stroke="#555555" stroke-width="1" stroke-opacity="0.6"/>`);
    for (const p of w) parts.push(`<circle cx="${f(X(p.R))}" cy="${f(Y(p.S))}" r="2.6" fill="${QUADRANT_COLORS[p.quadrant].ink}"/>`);
    const first = w[0];
    const last = w[w.length - 1];
    const label = (r: number, s: number, text: string, color: string, dy: number) => {
      const right = X(r) > (x0 + x1) / 2;
      parts.push(`<text x="${f(X(r) + (right ? -10 : 10))}" y="${f(Y(s) + dy)}" text-anchor="${right ? 'end' : 'start'}" font-weight="bold" fill="${color}">${text}</text>`);
    };
    parts.push(`<circle cx="${f(X(first.R))}" cy="${f(Y(first.S))}" r="5.5" fill="none" stroke="#1a1a1a" stroke-width="1.4"/>`);
    label(first.R, first.S, 'start', '#1a1a1a', -8);
    parts.push(`<rect x="${f(X(last.R) - 5)}" y="${f(Y(last.S) - 5)}" width="10" height="10" fill="none" stroke="#1a1a1a" stroke-width="1.4"/>`);
    label(last.R, last.S, 'end', '#1a1a1a', -8);
    if (onsetMs !== null) {
      const at = w.find((p) => p.t_ms >= onsetMs) ?? last;
      parts.push(`<circle cx="${f(X(at.R))}" cy="${f(Y(at.S))}" r="8" fill="none" stroke="${ONSET_COLOR}" stroke-width="1.6" stroke-dasharray="3 2"/>`);
      label(at.R, at.S, 'onset', ONSET_COLOR, 16);
    }
  } else {
    parts.push(`<text x="${f((x0 + x1) / 2)}" y="${f((y0 + y1) / 2)}" text-anchor="middle" fill="#666666">no windows were scored</text>`);
  }
  parts.push('</svg>');
  return parts.join('\n');
}

/** The quadrant of each stretch of time as one coloured strip under a time axis. */
export function quadrantStripSvg(runs: QuadrantRun[], overlay: Pick<Overlay, 'span' | 'onset_ms'>, o: SvgOptions): string {
  const H = 72;
  const x0 = PAD.left;
  const x1 = CW - PAD.right;
  const { start_ms: t0, end_ms: t1 } = overlay.span;
  const X = (t: number) => x0 + ((Math.min(Math.max(t, t0), t1) - t0) / Math.max(1, t1 - t0)) * (x1 - x0);
  const parts: string[] = [open(CW, H, o)];
  parts.push(`<text x="${x0 - 6}" y="25" text-anchor="end" fill="#333333">quadrant</text>`);
  parts.push(`<rect x="${x0}" y="12" width="${x1 - x0}" height="20" fill="#f4f4f4"/>`);
  for (const r of runs) {
    const a = X(r.start_ms);
    parts.push(`<rect x="${f(a)}" y="12" width="${f(Math.max(1, X(r.end_ms) - a))}" height="20" fill="${QUADRANT_COLORS[r.quadrant].ink}" fill-opacity="0.85"/>`);
  }
  parts.push(`<rect x="${x0}" y="12" width="${x1 - x0}" height="20" fill="none" stroke="#9a9a9a" stroke-width="0.8"/>`);
  if (overlay.onset_ms !== null) {
    const x = X(overlay.onset_ms);
    parts.push(`<line x1="${f(x)}" y1="6" x2="${f(x)}" y2="38" stroke="${ONSET_COLOR}" stroke-width="1.5" stroke-dasharray="4 2"/>`);
  }
  for (const t of timeTicks(t0, t1)) {
    const x = X(t);
    parts.push(`<line x1="${f(x)}" y1="32" x2="${f(x)}" y2="36" stroke="#888888"/>`);
    parts.push(`<text x="${f(x)}" y="48" text-anchor="${tickAnchor(x, x1)}" fill="#444444">${formatClock(t)}</text>`);
  }
  const qs: Quadrant[] = ['healthy', 'saturated', 'exhausted', 'contended'];
  qs.forEach((q, i) => {
    parts.push(`<g transform="translate(${x0 + i * 110},66)"><rect width="10" height="8" y="-8" fill="${QUADRANT_COLORS[q].ink}"/><text x="14" y="0" font-size="10" fill="#333333">${q}</text></g>`);
  });
  parts.push('</svg>');
  return parts.join('\n');
}
