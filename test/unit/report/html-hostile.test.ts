// Every string slot of the HTML report filled with markup: none of it may come out as markup.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { escapeHtml, renderHtml } from '../../../node/engine/report/html';
import type { ReportDocument } from '../../../node/engine/report/report-document';

const X = (slot: string) => `"><script src="https://evil.example/${slot}.js"></script><img src=x onerror=alert('${slot}')>&`;

const doc: ReportDocument = {
  title: X('title'),
  kicker: X('kicker'),
  meta: [[X('meta-k'), X('meta-v')]],
  stamp: X('stamp'),
  sections: [
    {
      id: X('section-id'),
      title: X('section-title'),
      page: true,
      blocks: [
        { t: 'h3', text: X('h3') },
        { t: 'p', text: X('p'), tone: 'note' },
        { t: 'kv', rows: [[X('kv-k'), X('kv-v')]] },
        { t: 'table', columns: [X('col')], rows: [[X('cell')], [{ text: X('cell-obj'), tone: 'bad' }], [{ text: '', lines: [X('line-1'), X('line-2')] }]], numeric: [0] },
        { t: 'figure', figure: { file: 'quadrant.svg', kind: 'trajectory', title: X('figure-title'), svg: '<svg viewBox="0 0 1 1"></svg>' } },
      ],
    },
  ],
};

test('every data slot of the HTML report is escaped, so no script, handler or remote URL appears', () => {
  const html = renderHtml(doc);
  assert.doesNotMatch(html, /<script|<img|src="https?:/i);
  for (const slot of ['title', 'kicker', 'meta-k', 'meta-v', 'stamp', 'section-title', 'h3', 'p', 'kv-k', 'kv-v', 'col', 'cell', 'cell-obj', 'line-1', 'line-2', 'figure-title']) {
    assert.ok(html.includes(escapeHtml(X(slot))), slot);
  }
  assert.ok(html.includes(`<section id="${escapeHtml(X('section-id'))}" class="page">`));
});

test('escapeHtml covers the five characters that can end a text node or an attribute', () => {
  assert.equal(escapeHtml(`<a href='x' title="y">&</a>`), '&lt;a href=&#39;x&#39; title=&quot;y&quot;&gt;&amp;&lt;/a&gt;');
});
