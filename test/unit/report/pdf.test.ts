import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeReport } from '../../../node/engine/report/index';
import { findChromium, htmlToPdf, NO_CHROMIUM, PdfUnavailableError } from '../../../node/engine/report/pdf';
import { buildIncident, reportStore } from './fixture';

const chromium = findChromium();
const poppler = existsSync('/usr/bin/pdftoppm') && existsSync('/usr/bin/pdftotext');
const skip = !chromium ? 'no Chromium here (set QUADSCOPE_CHROMIUM or install chromium): PDF rendering not checked' : !poppler ? 'poppler-utils (pdftoppm, pdftotext) missing: PDF pages not checked' : false;

/** Share of non-white pixels in a binary PGM (P5) image. */
function inkShare(pgm: Buffer): { width: number; height: number; ink: number } {
  const header = /^P5\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(pgm.subarray(0, 64).toString('latin1'));
  assert.ok(header, 'pdftoppm wrote a binary PGM');
  const [all, w, h] = header;
  const px = pgm.subarray(all.length);
  let dark = 0;
  for (const v of px) if (v < 240) dark++;
  return { width: Number(w), height: Number(h), ink: dark / px.length };
}

test('the PDF report renders through Chromium into non-blank pages that carry the facts', { skip, timeout: 120_000 }, async () => {
  const ts = reportStore();
  try {
    const b = buildIncident(ts.store);
    const out = join(ts.dir, 'report.pdf');
    const r = await writeReport(ts.store, b.incidentId, { format: 'pdf', out, diagnosis: b.diagnosis, generatedAt: Date.UTC(2026, 2, 15) });
    assert.equal(r.path, out);
    assert.equal(r.content, undefined);
    assert.equal(readFileSync(out).subarray(0, 5).toString('latin1'), '%PDF-');

    execFileSync('/usr/bin/pdftoppm', ['-gray', '-r', '50', '-f', '1', '-l', '1', out, join(ts.dir, 'page')]);
    const page = readdirSync(ts.dir).find((f) => /^page-0*1\.pgm$/.test(f));
    assert.ok(page, 'page 1 was rendered');
    const { width, height, ink } = inkShare(readFileSync(join(ts.dir, page)));
    // A4 at 50 dpi is 413 × 585 pixels.
    assert.ok(Math.abs(width - 413) <= 2 && Math.abs(height - 585) <= 2, `${width}×${height}`);
    assert.ok(ink > 0.01, `page 1 has text and figures (ink ${ink})`);

    const text = execFileSync('/usr/bin/pdftotext', ['-layout', out, '-'], { encoding: 'utf8' });
    assert.match(text, /Explained: Traffic surge → KV-cache exhaustion \(confidence 0\.87\)/);
    assert.match(text, /What was ruled out, and why/);
    assert.match(text, /Open questions/);
    assert.match(text, /kv_exhaustion/);
    assert.match(text, /2026-03-14 09:06:00 UTC/);
    // The note column wraps where the Chromium version puts it: the words, in order, across lines.
    assert.match(text, /traffic from batch job\s+(?:\S.*\s+)?<script>alert\("owned"\)\s*(?:\S.*\s+)?<\/script>/, 'the annotation is printed as text');
    // Short sections flow on; the charts, the log lines and the sources start pages of their own.
    assert.ok(text.split('\f').filter((p) => p.trim()).length >= 4);
  } finally {
    ts.dispose();
  }
});

test('findChromium honours QUADSCOPE_CHROMIUM, then PATH', () => {
  const ts = reportStore();
  try {
    const fake = join(ts.dir, 'chromium-browser');
    writeFileSync(fake, '#!/bin/sh\nexit 0\n');
    chmodSync(fake, 0o755);
    assert.equal(findChromium({ PATH: ts.dir }), fake);
    assert.equal(findChromium({ PATH: '/nonexistent' }), null);
    assert.equal(findChromium({ PATH: ts.dir, QUADSCOPE_CHROMIUM: '/nonexistent/chromium' }), null);
    assert.equal(findChromium({ PATH: '', QUADSCOPE_CHROMIUM: fake }), fake);
  } finally {
    ts.dispose();
  }
});

test('without Chromium, htmlToPdf says what to install and that HTML and Markdown still work', async () => {
  await assert.rejects(htmlToPdf('<p>x</p>', '/tmp/never.pdf', null), (e: unknown) => e instanceof PdfUnavailableError && e.message.startsWith(NO_CHROMIUM));
  assert.equal(NO_CHROMIUM, 'PDF needs Chromium (apt install chromium) or the desktop app; HTML and Markdown work without it');
});

test('a Chromium that writes nothing is reported with its exit status', async () => {
  const ts = reportStore();
  try {
    const fake = join(ts.dir, 'chromium');
    writeFileSync(fake, '#!/bin/sh\necho "crashed: no display" >&2\nexit 3\n');
    chmodSync(fake, 0o755);
    await assert.rejects(htmlToPdf('<p>x</p>', join(ts.dir, 'x.pdf'), fake), /did not write .*x\.pdf \(exit 3\): crashed: no display/);
  } finally {
    ts.dispose();
  }
});
