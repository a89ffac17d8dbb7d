// Reports for download (the workstation's Export, no place named): one self-contained file named after
// the incident, in a private folder per export; and chart legends that never overprint.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { legendLayout } from '../../../node/engine/report/charts-svg';
import { reportFileName, writeReport } from '../../../node/engine/report/index';
import { buildIncident, reportStore } from './fixture';

const GENERATED = Date.UTC(2026, 2, 15, 8, 30, 0);

test('a download is named after the incident and its start, never a fixed name', () => {
  assert.equal(reportFileName('vllm-prod-a & friends', Date.UTC(2026, 2, 14, 9, 6), 'pdf'), 'quadscope-vllm-prod-a-friends-2026-03-14-0906.pdf');
  assert.equal(reportFileName('../../etc/passwd', null, 'md'), 'quadscope-etc-passwd.md');
  assert.equal(reportFileName('***', null, 'html'), 'quadscope-incident.html');
});

test('Markdown for download embeds its charts and leaves no file beside it; each export gets its own folder', async () => {
  const ts = reportStore();
  try {
    const b = buildIncident(ts.store);
    const one = await writeReport(ts.store, b.incidentId, { format: 'md', diagnosis: b.diagnosis, generatedAt: GENERATED });
    const two = await writeReport(ts.store, b.incidentId, { format: 'md', diagnosis: b.diagnosis, generatedAt: GENERATED });
    try {
      assert.notEqual(dirname(one.path), dirname(two.path), 'a private folder per export');
      assert.match(basename(dirname(one.path)), /^quadscope-report-/);
      assert.equal(one.file_name, 'quadscope-vllm-prod-a-friends-2026-03-14-0900.md');
      assert.deepEqual(readdirSync(dirname(one.path)), [one.file_name]);
      const images = [...one.content!.matchAll(/!\[[^\]]*\]\(data:image\/svg\+xml;base64,([A-Za-z0-9+/=]+)\)/g)];
      assert.ok(images.length >= 8, `${images.length} embedded figures`);
      for (const [, b64] of images) assert.match(Buffer.from(b64, 'base64').toString('utf8'), /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
      assert.doesNotMatch(one.content!, /\]\((?!data:)[^)]*\.svg\)/, 'no link to a file');
    } finally {
      for (const r of [one, two]) rmSync(dirname(r.path), { recursive: true, force: true });
    }
  } finally {
    ts.dispose();
  }
});

test('legend entries flow and wrap: none overlaps another, long labels are cut to the row', () => {
  const items = ['P99 e2e engine=0 model=Qwen/Qwen2.5-32B-Instruct', 'P99 e2e engine=1', 'capacity', 'latency alert', 'resources alert', 'annotation', 'onset', 'x'.repeat(400)].map((label) => ({ swatch: '', label }));
  const placed = legendLayout(items, 70, 870);
  for (const a of placed) {
    const end = a.x + 19 + a.label.length * 6.6;
    assert.ok(end <= 870 + 0.01, `${a.label.slice(0, 20)} ends inside the figure`);
    for (const b of placed) if (a !== b && a.row === b.row && a.x < b.x) assert.ok(end <= b.x, `${a.label.slice(0, 20)} overprints ${b.label.slice(0, 20)}`);
  }
  assert.ok(placed[placed.length - 1].label.endsWith('…'));
  assert.ok(new Set(placed.map((p) => p.row)).size >= 2);
});

test('a PDF for download comes back whole, base64, under the incident name', { skip: existsSync('/usr/bin/chromium') || process.env.QUADSCOPE_CHROMIUM ? false : 'no Chromium here' }, async () => {
  const ts = reportStore();
  try {
    const b = buildIncident(ts.store);
    const r = await writeReport(ts.store, b.incidentId, { format: 'pdf', diagnosis: b.diagnosis, generatedAt: GENERATED });
    try {
      assert.equal(r.encoding, 'base64');
      assert.equal(Buffer.from(r.content!, 'base64').subarray(0, 5).toString('latin1'), '%PDF-');
      assert.equal(r.file_name, 'quadscope-vllm-prod-a-friends-2026-03-14-0900.pdf');
    } finally {
      rmSync(dirname(r.path), { recursive: true, force: true });
    }
  } finally {
    ts.dispose();
  }
});
