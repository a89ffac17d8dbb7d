// The report as GitHub-flavoured Markdown: the same document as the HTML, with tables for the lists
// and the figures either as links to SVG files written beside the .md, or embedded as data: URIs so
// that a downloaded report is one file that shows its charts. Data text is escaped so that a log
// line can neither inject HTML nor break a table; table cells are plain text, never code spans, so no
// raw markup from the data reaches the file.
import type { Block, Cell, ReportDocument } from './report-document';

/** Plain text safe in Markdown prose and table cells: no HTML, no emphasis, no links, no cell breaks. */
export function escapeMd(s: string): string {
  return s
    .replace(/\r?\n|\r/g, ' ')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/[\\`*[\]|~]/g, (c) => `\\${c}`)
    .replace(/_/g, (u, i: number, all: string) => (alnum(all[i - 1]) && alnum(all[i + 1]) ? u : '\\_'));
}

/** Text that starts a line: also no heading, list or rule marker at its start. */
const escapeMdLine = (s: string) => escapeMd(s).replace(/^(\d+)\./, '$1\\.').replace(/^[#+\-=]/, '\\$&');

// An underscore inside a word (kv_exhaustion) never starts emphasis, so it stays readable unescaped.
const alnum = (c: string | undefined) => c !== undefined && /[A-Za-z0-9]/.test(c);

function cell(c: Cell): string {
  if (typeof c === 'string') return escapeMd(c);
  const body = c.lines ? c.lines.map(escapeMd).join('<br>') : escapeMd(c.text);
  return c.tone === 'bad' || c.tone === 'good' ? `**${body}**` : body;
}

/** Where figures go: SVG files in `dir` (relative to the .md), or embedded in the file. */
export type FigurePlacement = { dir: string } | { embed: true };

function figureRef(file: string, svg: string, place: FigurePlacement): string {
  if ('embed' in place) return `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
  return `${place.dir.split('/').map(encodeURIComponent).join('/')}/${encodeURIComponent(file)}`;
}

function block(b: Block, place: FigurePlacement): string {
  switch (b.t) {
    case 'h3':
      return `### ${escapeMd(b.text)}`;
    case 'p':
      return b.tone === 'verdict' ? `**${escapeMd(b.text)}**` : b.tone === 'note' ? `*${escapeMd(b.text)}*` : escapeMdLine(b.text);
    case 'kv':
      return b.rows.map(([k, v]) => `- **${escapeMd(k)}:** ${escapeMd(v)}`).join('\n');
    case 'table': {
      const num = new Set(b.numeric ?? []);
      const head = `| ${b.columns.map(escapeMd).join(' | ')} |`;
      const rule = `|${b.columns.map((_, i) => (num.has(i) ? '---:' : '---')).join('|')}|`;
      return [head, rule, ...b.rows.map((r) => `| ${r.map(cell).join(' | ')} |`)].join('\n');
    }
    case 'figure':
      return `![${escapeMd(b.figure.title)}](${figureRef(b.figure.file, b.figure.svg, place)})`;
  }
}

export function renderMarkdown(doc: ReportDocument, place: FigurePlacement): string {
  const out: string[] = [`# Incident report: ${escapeMd(doc.title)}`, '', `*${escapeMd(doc.kicker)}*`, '', block({ t: 'kv', rows: doc.meta }, place), ''];
  doc.sections.forEach((s, i) => {
    out.push(`## ${i + 1}. ${escapeMd(s.title)}`, '');
    for (const b of s.blocks) out.push(block(b, place), '');
  });
  out.push('---', '', `*${escapeMd(doc.stamp)}*`, '');
  return out.join('\n');
}
