import { test } from 'node:test';
import assert from 'node:assert/strict';
import { escapeXml, lineChartSvg, quadrantSvg, timeTicks, valueTicks, type Overlay } from '../../../node/engine/report/charts-svg';
import type { ChartData } from '../../../node/engine/report/chart-series';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const chart: ChartData = {
  id: 'kv',
  title: 'KV <usage>',
  unit: 'fraction',
  note: 'note',
  lines: [{ label: 'engine="a&b"', t: [T0, T0 + 50_000, T0 + 100_000], min: [0.1, 0.5, 0.9], max: [0.1, 0.6, 1] }],
  refs: [{ value: 0.95, label: '95%' }],
  omitted: 0,
};
const overlay: Overlay = {
  span: { start_ms: T0, end_ms: T0 + 100_000 },
  onset_ms: T0 + 50_000,
  alert_bands: [{ family: 'latency', start_ms: T0 + 60_000, end_ms: T0 + 100_000 }],
  annotations: [{ n: 1, start_ms: T0 + 10_000, end_ms: T0 + 20_000 }],
};

test('timeTicks picks a round UTC step inside the span', () => {
  assert.deepEqual(timeTicks(T0 + 1, T0 + 60_000), [10, 20, 30, 40, 50, 60].map((s) => T0 + s * 1000));
  assert.deepEqual(timeTicks(T0, T0 + 3_600_000).slice(0, 3), [T0, T0 + 600_000, T0 + 1_200_000]);
});

test('valueTicks covers the range with 1-2-5 steps', () => {
  assert.deepEqual(valueTicks(0, 100), [0, 25, 50, 75, 100]);
  assert.deepEqual(valueTicks(0, 7), [0, 2, 4, 6, 8]);
});

test('lineChartSvg draws the onset, alert band and annotation at their times, escapes labels, and is inline by default', () => {
  const svg = lineChartSvg(chart, overlay, { standalone: false, title: chart.title });
  // Plot from x = 70 to 870 (900 − 30): the onset at half the span is at x = 470.
  assert.match(svg, /<line x1="470\.0" y1="46" x2="470\.0" y2="216" stroke="#a00020"/);
  // Annotation 1: 10 %–20 % of the span → x 150 to 230.
  assert.match(svg, /<rect x="150\.0" y="46" width="80\.0" height="170" fill="#b8860b"/);
  assert.match(svg, />A1</);
  // Latency alert from 60 % → x = 550, width 320.
  assert.match(svg, /<rect x="550\.0" y="46" width="320\.0" height="170" fill="#c9302c" fill-opacity="0\.08"\/>/);
  assert.match(svg, /<title>KV &lt;usage&gt;<\/title>/);
  assert.match(svg, /engine=&quot;a&amp;b&quot;/);
  assert.doesNotMatch(svg, /xmlns|http/);
  // The envelope appears because min ≠ max somewhere.
  assert.match(svg, /<polygon /);
  const standalone = lineChartSvg(chart, overlay, { standalone: true, title: chart.title });
  assert.match(standalone, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
});

test('quadrantSvg places windows by (R, S) and marks the onset window', () => {
  const w = (t_ms: number, R: number, S: number, quadrant: 'healthy' | 'exhausted') => ({ t_ms, R, S, quadrant, scores: { gpu_mem: 0, kv: 0, tokens: 0, queue: 0 } });
  const svg = quadrantSvg([w(0, 0, 0, 'healthy'), w(10, 1, 1, 'exhausted')], 0.85, 0.5, 10, { standalone: false, title: 'q' });
  // Plot square x 54..424, y 24..394: (0,0) bottom-left, (1,1) top-right.
  assert.match(svg, /<circle cx="54\.0" cy="394\.0" r="2\.6" fill="#3c8d3c"\/>/);
  assert.match(svg, /<circle cx="424\.0" cy="24\.0" r="2\.6" fill="#c9302c"\/>/);
  assert.match(svg, /<circle cx="424\.0" cy="24\.0" r="8" fill="none" stroke="#a00020"/);
  assert.match(svg, />onset</);
});

test('escapeXml escapes markup and quotes', () => {
  assert.equal(escapeXml(`<a href='x'>"&"</a>`), '&lt;a href=&#39;x&#39;&gt;&quot;&amp;&quot;&lt;/a&gt;');
});
