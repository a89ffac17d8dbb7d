import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeReport } from '../../../node/engine/report/index';
import { escapeMd } from '../../../node/engine/report/markdown';
import { buildIncident, reportStore } from './fixture';

const GENERATED = Date.UTC(2026, 2, 15, 8, 30, 0);

test('the Markdown report states the facts, links SVG files written beside it, and escapes data text', async () => {
  const ts = reportStore();
  try {
    const b = buildIncident(ts.store);
    const out = join(ts.dir, 'post mortem.md');
    const chartsDir = join(ts.dir, 'post mortem.charts');
    const { path, content } = await writeReport(ts.store, b.incidentId, { format: 'md', out, diagnosis: b.diagnosis, generatedAt: GENERATED });
    assert.equal(path, out);
    const md = readFileSync(out, 'utf8');
    assert.equal(content, md);

    assert.match(md, /^# Incident report: vllm-prod-a &amp; friends$/m);
    assert.match(md, /\*\*Explained: Traffic surge → KV-cache exhaustion \(confidence 0\.87\), onset 2026-03-14 09:06:00 UTC \(T\+6 min 0 s\)\.\*\*/);
    assert.match(md, /- \*\*Top cause:\*\* KV-cache exhaustion \(kv_exhaustion\)/);
    assert.match(md, /\| REQUIRE \| frac\(kv &gt;= 0\.95, W\) &gt;= 0\.5 \| 0\.75 \| — \| \*\*held\*\* \|/);
    assert.match(md, /\| Cause \| Id \| Missing data \|\n\|---\|---\|---\|\n\| GPU throttling \| gpu_throttling \| gpu\.sm_clock, gpu\.throttle_reasons \|/);
    assert.match(md, /\| latency \| 2026-03-14 09:06:10 UTC \(T\+6 min 10 s\) \| 2026-03-14 09:09:00 UTC \(T\+9 min 0 s\) \| 2 min 50 s \| 10 s \|/);
    assert.match(md, /\| 4 \| traces\/broken\.json \| otlp-json \| 10 B \| 0 \| \*\*failed\*\* \| traces\/broken\.json:3: unexpected end of JSON \|/);

    // The annotation's markup comes out inert: no tag, no emphasis, no link, no extra table cell.
    const row = md.split('\n').find((l) => l.startsWith('| A1 |'))!;
    assert.ok(row.endsWith('| traffic from batch job &lt;script&gt;alert("owned")&lt;/script&gt; &amp; \\| \\`tick\\` \\*bold\\* \\[x\\](y) |'), row);
    assert.equal(row.split(/(?<!\\)\|/).length - 2, 6, 'the annotation row keeps its six cells');
    assert.ok(!md.includes('<script'));

    // Every figure link resolves to a file, and every file is linked.
    const links = [...md.matchAll(/!\[[^\]]*\]\(([^)]+)\)/g)].map((m) => decodeURIComponent(m[1]));
    assert.ok(links.length >= 8);
    for (const l of links) assert.ok(existsSync(join(ts.dir, l)), l);
    const files = readdirSync(chartsDir).sort();
    assert.deepEqual(files, [...new Set(links.map((l) => l.split('/')[1]))].sort());
    assert.ok(files.includes('chart-latency-e2e.svg') && files.includes('quadrant.svg'));
    for (const f of files) {
      const svg = readFileSync(join(chartsDir, f), 'utf8');
      assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
      assert.doesNotMatch(svg, /<script|href=/);
    }
    assert.match(md, /\*Generated 2026-03-15 08:30:00 UTC by Quadscope\.\*\n$/);
  } finally {
    ts.dispose();
  }
});

test('the Markdown report and its figures are identical across runs, and stale figures are removed', async () => {
  const ts = reportStore();
  try {
    const b = buildIncident(ts.store);
    const out = join(ts.dir, 'r.md');
    const dir = join(ts.dir, 'r.charts');
    const first = await writeReport(ts.store, b.incidentId, { format: 'md', out, diagnosis: b.diagnosis, generatedAt: GENERATED });
    const svgs = Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f), 'utf8')]));
    writeFileSync(join(dir, 'chart-stale.svg'), '<svg/>');
    const second = await writeReport(ts.store, b.incidentId, { format: 'md', out, diagnosis: b.diagnosis, generatedAt: GENERATED });
    assert.equal(first.content, second.content);
    assert.deepEqual(Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f), 'utf8')])), svgs);
  } finally {
    ts.dispose();
  }
});

test('escapeMd neutralises markup, table pipes and newlines, and keeps in-word underscores readable', () => {
  assert.equal(escapeMd('a|b\nc'), 'a\\|b c');
  assert.equal(escapeMd('<b>x</b> & *y* _z_ kv_exhaustion'), '&lt;b&gt;x&lt;/b&gt; &amp; \\*y\\* \\_z\\_ kv_exhaustion');
  assert.equal(escapeMd('[t](javascript:x) `c` ~s~ \\'), '\\[t\\](javascript:x) \\`c\\` \\~s\\~ \\\\');
});
