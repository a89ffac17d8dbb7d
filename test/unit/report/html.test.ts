import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { reportHtml, writeReport } from '../../../node/engine/report/index';
import { escapeHtml } from '../../../node/engine/report/html';
import { buildIncident, HOSTILE, reportStore } from './fixture';

const GENERATED = Date.UTC(2026, 2, 15, 8, 30, 0);

test('the HTML report is self-contained: no script and no external reference of any kind', async () => {
  const ts = reportStore();
  try {
    const b = buildIncident(ts.store);
    const out = join(ts.dir, 'r.html');
    const { path, content } = await writeReport(ts.store, b.incidentId, { format: 'html', out, diagnosis: b.diagnosis, generatedAt: GENERATED });
    assert.equal(path, out);
    const html = readFileSync(out, 'utf8');
    assert.equal(content, html);
    assert.doesNotMatch(html, /<script/i);
    assert.doesNotMatch(html, /<link\b/i);
    assert.doesNotMatch(html, /\b(src|href)\s*=/i);
    assert.doesNotMatch(html, /url\(/i);
    assert.doesNotMatch(html, /@import/i);
    assert.doesNotMatch(html, /https?:/i);
    assert.doesNotMatch(html, /@font-face/i);
    assert.doesNotMatch(html, /["'(\s]\/\/[^\s]/, 'no protocol-relative reference');
    // Charts are inline SVG: one per canonical chart plus the quadrant figures (the strip twice: summary and trajectory).
    assert.equal((html.match(/<svg /g) ?? []).length, 7 + 3);
    assert.match(html, /@media print/);
    assert.match(html, /section id="logs" class="page"/);
    assert.match(html, /section id="diagnosis">/, 'short sections flow on, no half-empty pages');
  } finally {
    ts.dispose();
  }
});

test('the HTML report states the diagnosis facts and escapes data text', async () => {
  const ts = reportStore();
  try {
    const b = buildIncident(ts.store);
    const html = await reportHtml(ts.store, b.incidentId, { diagnosis: b.diagnosis, generatedAt: GENERATED });
    assert.match(html, /Explained: Traffic surge → KV-cache exhaustion \(confidence 0\.87\), onset 2026-03-14 09:06:00 UTC \(T\+6 min 0 s\)/);
    assert.match(html, /kv_exhaustion/);
    assert.match(html, /Traffic surge → KV-cache exhaustion/);
    assert.match(html, /frac\(kv &gt;= 0\.95, W\) &gt;= 0\.5/);
    assert.match(html, /<td class="good">did not fire<\/td>/);
    assert.match(html, /gpu_throttling/);
    assert.match(html, /gpu\.sm_clock, gpu\.throttle_reasons/);
    assert.match(html, /unresolved at end of data/);
    assert.match(html, /traces\/broken\.json:3: unexpected end of JSON/);
    assert.match(html, /metrics\/vllm\.prom:17: malformed sample line skipped/);
    assert.match(html, /model\.py:88 forward<br>cache\.py:12 append/);
    // The hostile text (annotation and log line) arrives escaped, never as markup.
    const escaped = escapeHtml(HOSTILE);
    assert.ok(html.includes(`traffic from batch job ${escaped}`));
    assert.ok(html.includes(`ERROR request failed ${escaped}`));
    assert.ok(!html.includes('<script>alert'));
    assert.match(html, /vllm-prod-a &amp; friends/);
    assert.match(html, /Generated 2026-03-15 08:30:00 UTC by Quadscope\./);
  } finally {
    ts.dispose();
  }
});

test('the HTML report is deterministic: only the generation stamp line differs', async () => {
  const ts = reportStore();
  try {
    const b = buildIncident(ts.store);
    const one = await reportHtml(ts.store, b.incidentId, { diagnosis: b.diagnosis, generatedAt: GENERATED });
    const two = await reportHtml(ts.store, b.incidentId, { diagnosis: b.diagnosis, generatedAt: GENERATED });
    assert.equal(one, two);
    const later = (await reportHtml(ts.store, b.incidentId, { diagnosis: b.diagnosis, generatedAt: GENERATED + 86_400_000 })).split('\n');
    const lines = one.split('\n');
    assert.equal(later.length, lines.length);
    const differing = lines.filter((l, i) => l !== later[i]);
    assert.deepEqual(differing, ['<p class="stamp">Generated 2026-03-15 08:30:00 UTC by Quadscope.</p>']);
  } finally {
    ts.dispose();
  }
});

test('a report without a diagnosis uses the saved one where the model is not built, or fails naming what to do', async () => {
  const ts = reportStore();
  try {
    const b = buildIncident(ts.store);
    const { existsSync } = await import('node:fs');
    if (existsSync(new URL('../../../node/engine/model/diagnose.ts', import.meta.url))) {
      // With the model present the report runs it; the facts then come from the model, not from us.
      const html = await reportHtml(ts.store, b.incidentId, { generatedAt: GENERATED });
      assert.match(html, /vllm-prod-a &amp; friends/);
      return;
    }
    await assert.rejects(reportHtml(ts.store, b.incidentId, {}), /no diagnosis: the model .* run 'quadscope analyze'/);
    ts.store.saveDiagnosis(b.incidentId, JSON.stringify(b.diagnosis));
    const html = await reportHtml(ts.store, b.incidentId, { generatedAt: GENERATED });
    assert.equal(html, await reportHtml(ts.store, b.incidentId, { diagnosis: b.diagnosis, generatedAt: GENERATED }));
  } finally {
    ts.dispose();
  }
});
