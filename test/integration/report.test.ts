// Bundle → import → analyze → report on a generated scenario: the report states what the model found
// about what the importers read, with the user's annotation, in HTML and Markdown alike.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateScenario } from '../../fixtures/scenarios/index';
import { Store } from '../../node/engine/store/store';
import { importPaths } from '../../node/engine/import/pipeline';
import { analyzeIncident } from '../../node/engine/model/diagnose';
import { writeReport } from '../../node/engine/report/index';
import { causeName } from '../../common/causes';
import { formatTime as fmtTime } from '../../common/format';
import { escapeHtml } from '../../node/engine/report/html';
import { escapeMd } from '../../node/engine/report/markdown';
import { burstsAYearApart } from '../helpers/synthetic-incident';

test('a generated KV-exhaustion bundle goes through import, analysis and report with the facts intact', { timeout: 120_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'qs-report-int-'));
  const store = new Store(join(dir, 'workspace.db'));
  try {
    const truth = generateScenario('kv_exhaustion', join(dir, 'bundle'), 1);
    const imported = await importPaths(store, [join(dir, 'bundle')]);
    assert.ok(imported.sources.every((s) => s.status === 'ok'), JSON.stringify(imported.sources));
    const diagnosis = analyzeIncident(store, imported.incident_id, {});
    store.saveDiagnosis(imported.incident_id, JSON.stringify(diagnosis));
    // The root cause comes first: the surge that exhausted the pool (its chain ends in kv_exhaustion).
    assert.equal(diagnosis.causes[0]?.id, truth.chain[0] ?? truth.cause);
    assert.deepEqual(diagnosis.causes[0]?.chain, truth.chain);
    const note = 'KV pool full after the surge <b>page the owner</b>';
    store.addAnnotation({ incident_id: imported.incident_id, start_ms: truth.onset_ms!, end_ms: truth.onset_ms! + 60_000, panel: 'timeline', text: note, author: 'on-call' });

    const generatedAt = Date.UTC(2026, 0, 1);
    const html = (await writeReport(store, imported.incident_id, { format: 'html', out: join(dir, 'r.html'), generatedAt })).content as string;
    const md = (await writeReport(store, imported.incident_id, { format: 'md', out: join(dir, 'r.md'), generatedAt })).content as string;
    assert.equal(readFileSync(join(dir, 'r.html'), 'utf8'), html);
    assert.doesNotMatch(html, /<script|https?:|\b(src|href)\s*=|url\(|@import/i);
    assert.ok(!html.includes('<b>page the owner</b>'), 'annotation text is escaped');

    const top = diagnosis.causes[0];
    for (const [doc, esc] of [[html, escapeHtml], [md, escapeMd]] as const) {
      assert.ok(doc.includes(esc(causeName(top.id))), `${top.id} named`);
      assert.ok(doc.includes(esc(top.id)));
      assert.ok(doc.includes(fmtTime(diagnosis.onset_ms!)), 'onset shown');
      assert.ok(doc.includes(esc(note)), 'annotation shown');
      for (const s of imported.sources) assert.ok(doc.includes(esc(s.path)), `source ${s.path} listed`);
    }
    // The same data gives the same report.
    const again = (await writeReport(store, imported.incident_id, { format: 'html', out: join(dir, 'r2.html'), generatedAt })).content;
    assert.equal(again, html);
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a Markdown export of data a year apart is bounded by the data, not the span: the gap is named, memory stays small', { timeout: 120_000 }, async () => {
  // The review: a bundle whose files were dated years apart took the browser-mode server to 7.7 GB during a
  // Markdown export (the model's window grid covered every 5 s of the span).
  const dir = mkdtempSync(join(tmpdir(), 'qs-report-gap-'));
  const store = new Store(join(dir, 'workspace.db'));
  let out: string | null = null;
  try {
    const { id } = burstsAYearApart(store);
    const before = process.memoryUsage().rss;
    // As the workstation's Export asks (no place named: a download with its charts embedded).
    const r = await writeReport(store, id, { format: 'md', generatedAt: Date.UTC(2026, 0, 1) });
    out = r.path;
    const grew = (process.memoryUsage().rss - before) / 2 ** 20;
    const md = r.content as string;
    assert.match(md, /No data from any source until/);
    assert.match(md, /data:image\/svg\+xml/, 'charts embedded');
    assert.ok(grew < 200, `the export grew the process by ${grew.toFixed(0)} MiB`);
  } finally {
    store.close();
    if (out) rmSync(dirname(out), { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  }
});
