// The report as one self-contained HTML file: inline CSS, inline SVG, no script and no reference to
// anything outside the file, so it opens air-gapped, prints cleanly and is safe to mail around. Every
// string from the data is escaped: log lines and annotations are written by whoever fed the engine.
import type { Block, Cell, ReportDocument } from './report-document';

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

const CSS = `
@page { size: A4; margin: 16mm 14mm 16mm 14mm; }
* { box-sizing: border-box; }
html { background: #ffffff; color: #1a1a1a; -webkit-print-color-adjust: exact; print-color-adjust: exact; }
body { margin: 0 auto; max-width: 980px; padding: 28px 32px 48px; font: 13px/1.5 "Helvetica Neue", Helvetica, Arial, "DejaVu Sans", sans-serif; }
header.doc { border-bottom: 3px solid #1f3a5f; padding-bottom: 14px; margin-bottom: 22px; }
.kicker { text-transform: uppercase; letter-spacing: 0.08em; font-size: 11px; color: #5a6b80; font-weight: bold; }
h1 { font-size: 26px; margin: 4px 0 14px; color: #10243e; word-break: break-word; }
h2 { font-size: 18px; color: #10243e; border-bottom: 1px solid #c5cfdb; padding-bottom: 4px; margin: 30px 0 12px; }
h3 { font-size: 14px; color: #1f3a5f; margin: 20px 0 8px; }
.num { color: #7a8a9e; margin-right: 6px; }
table { border-collapse: collapse; width: 100%; margin: 6px 0 14px; font-size: 12px; }
th, td { text-align: left; vertical-align: top; padding: 4px 8px; border-bottom: 1px solid #e1e6ec; }
th { background: #eef2f6; color: #24384f; font-weight: bold; border-bottom: 1px solid #b9c4d0; }
td.n, th.n { text-align: right; white-space: nowrap; }
table.kv { width: auto; min-width: 60%; }
table.kv th { background: none; border-bottom: 1px solid #e1e6ec; width: 12em; color: #4a5b70; font-weight: normal; white-space: nowrap; }
table.meta th { width: 9em; }
tbody tr:nth-child(even) td { background: #fafbfc; }
.mono { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 11px; overflow-wrap: anywhere; }
.nowrap { white-space: nowrap; }
.good { color: #2d7a2d; font-weight: bold; }
.bad { color: #b3261e; font-weight: bold; }
.warn { color: #9a6400; font-weight: bold; }
.muted { color: #6b7785; }
p { margin: 6px 0 10px; }
p.verdict { font-size: 15px; font-weight: bold; background: #f3f6fa; border-left: 4px solid #1f3a5f; padding: 10px 14px; margin: 0 0 14px; }
p.note { color: #56657a; font-size: 12px; }
figure { margin: 10px 0 18px; break-inside: avoid; page-break-inside: avoid; }
figure svg { max-width: 100%; height: auto; display: block; border: 1px solid #e1e6ec; }
figure.square svg { max-width: 440px; }
figcaption { font-size: 11px; color: #56657a; margin-top: 3px; }
.stamp { color: #7a8a9e; font-size: 11px; margin-top: 32px; border-top: 1px solid #e1e6ec; padding-top: 6px; }
@media print {
  body { max-width: none; padding: 0; font-size: 11px; }
  section.page { break-before: page; page-break-before: always; }
  h2, h3 { break-after: avoid; page-break-after: avoid; }
  tr { break-inside: avoid; page-break-inside: avoid; }
  thead { display: table-header-group; }
  tbody tr:nth-child(even) td { background: none; }
}
`;

function cell(c: Cell, numeric: boolean): string {
  const cls = [numeric ? 'n' : '', typeof c === 'string' ? '' : c.tone ?? ''].filter(Boolean).join(' ');
  const attr = cls ? ` class="${cls}"` : '';
  if (typeof c === 'string') return `<td${attr}>${escapeHtml(c)}</td>`;
  const body = c.lines ? c.lines.map(escapeHtml).join('<br>') : escapeHtml(c.text);
  return `<td${attr}>${body}</td>`;
}

function block(b: Block): string {
  switch (b.t) {
    case 'h3':
      return `<h3>${escapeHtml(b.text)}</h3>`;
    case 'p':
      return `<p${b.tone ? ` class="${b.tone}"` : ''}>${escapeHtml(b.text)}</p>`;
    case 'kv':
      return `<table class="kv"><tbody>\n${b.rows.map(([k, v]) => `<tr><th>${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`).join('\n')}\n</tbody></table>`;
    case 'table': {
      const num = new Set(b.numeric ?? []);
      const head = b.columns.map((c, i) => `<th${num.has(i) ? ' class="n"' : ''}>${escapeHtml(c)}</th>`).join('');
      const rows = b.rows.map((r) => `<tr>${r.map((c, i) => cell(c, num.has(i))).join('')}</tr>`);
      return `<table><thead><tr>${head}</tr></thead><tbody>\n${rows.join('\n')}\n</tbody></table>`;
    }
    case 'figure':
      // Charts carry their title inside the SVG; the trajectory figures are captioned.
      return b.figure.kind === 'chart'
        ? `<figure>\n${b.figure.svg}\n</figure>`
        : `<figure${b.figure.file === 'quadrant.svg' ? ' class="square"' : ''}>\n${b.figure.svg}\n<figcaption>${escapeHtml(b.figure.title)}</figcaption>\n</figure>`;
  }
}

export function renderHtml(doc: ReportDocument): string {
  const out: string[] = [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>Incident report: ${escapeHtml(doc.title)}</title>`,
    `<style>${CSS}</style>`,
    '</head>',
    '<body>',
    '<header class="doc">',
    `<div class="kicker">${escapeHtml(doc.kicker)}</div>`,
    `<h1>${escapeHtml(doc.title)}</h1>`,
    block({ t: 'kv', rows: doc.meta }).replace('<table class="kv">', '<table class="kv meta">'),
    '</header>',
  ];
  doc.sections.forEach((s, i) => {
    out.push(`<section id="${escapeHtml(s.id)}"${s.page ? ' class="page"' : ''}>`);
    out.push(`<h2><span class="num">${i + 1}.</span>${escapeHtml(s.title)}</h2>`);
    for (const b of s.blocks) out.push(block(b));
    out.push('</section>');
  });
  out.push(`<p class="stamp">${escapeHtml(doc.stamp)}</p>`);
  out.push('</body>', '</html>', '');
  return out.join('\n');
}
