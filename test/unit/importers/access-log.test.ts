import { test } from 'node:test';
import assert from 'node:assert/strict';
import { accessLogImporter } from '../../../node/engine/importers/access-log';
import { detectImporter, HEAD_BYTES } from '../../../node/engine/importers/registry';
import { events, runImporter, values } from './run-importer';

const detected = (text: string) => detectImporter(Buffer.from(text).subarray(0, HEAD_BYTES), 'access.log')?.format ?? null;

// nginx's combined format with key=value timings (nginx docs' `timed_combined` style), and ingress-nginx's default.
const TIMED = [
  '10.58.146.229 - - [21/May/2026:14:30:39 +0000] "POST /v1/chat/completions HTTP/1.1" 200 2005 "-" "axios/1.7.2" rt=12.485 uct="0.001" uht="0.002" urt="12.467" upstream=10.162.9.48:8000 req_id=2df4bc8f',
  '10.96.135.166 - - [21/May/2026:16:30:39 +0200] "POST /v1/chat/completions HTTP/1.1" 200 675 "-" "python-httpx/0.27.0" rt=3.158 urt="3.149" upstream=10.162.9.48:8000',
  '10.43.248.92 - - [21/May/2026:14:30:41 +0000] "POST /v1/completions HTTP/1.1" 502 150 "-" "OpenAI/Python 1.51.0" rt=0.004 urt="0.001, 0.002" upstream=10.162.9.49:8000',
  '10.43.248.93 - - [21/May/2026:14:30:41 +0000] "GET /v1/models HTTP/1.1" 429 80 "-" "curl/8.5.0" rt=0.000 urt="-" upstream=-',
  '',
].join('\n');
const INGRESS =
  '192.168.1.9 - - [03/Apr/2026:08:00:01 +0000] "POST /v1/chat/completions HTTP/2.0" 504 160 "-" "python-requests/2.31" 512 60.001 [llm-vllm-8000] [] 10.1.2.3:8000 0 60.000 504 9f1c2d\n';

test('gateway access lines: events with their timings, 5xx as http_error, status classes counted per second', async () => {
  assert.equal(detected(TIMED), 'access-log');
  assert.equal(detected(INGRESS), 'access-log');
  const r = await runImporter(accessLogImporter, { text: TIMED });
  try {
    assert.equal(r.error, null);
    const t0 = Date.UTC(2026, 4, 21, 14, 30, 39);
    assert.deepEqual(
      events(r).map((e) => [e.kind, e.severity, e.ts_ms - t0, e.attrs.status, e.attrs.request_time_s ?? null, e.attrs.upstream_time_s ?? null, e.attrs.upstream ?? null]),
      [
        ['log', 'info', 0, 200, 12.485, 12.467, '10.162.9.48:8000'],
        // 16:30:39 at +02:00 is 14:30:39 UTC.
        ['log', 'info', 0, 200, 3.158, 3.149, '10.162.9.48:8000'],
        // Two upstreams tried: their times add up.
        ['http_error', 'error', 2000, 502, 0.004, 0.003, '10.162.9.49:8000'],
        ['log', 'warning', 2000, 429, 0, null, null],
      ],
    );
    assert.equal(events(r)[0].attrs.request_id, '2df4bc8f');
    // Cumulative, at each second a line was logged.
    assert.deepEqual(values(r, 'http.requests', { status: '2xx' }).map((s) => [s.ts - t0, s.v]), [[0, 2], [2000, 2]]);
    assert.deepEqual(values(r, 'http.requests', { status: '4xx' }).map((s) => [s.ts - t0, s.v]), [[2000, 1]]);
    assert.deepEqual(values(r, 'req.errors').map((s) => [s.ts - t0, s.v]), [[0, 0], [2000, 1]]);
    // What the gateway added beyond its upstream's answer (request_time − upstream_response_time), the mean of
    // a second's served (2xx) requests: 18 and 9 ms at 14:30:39; the 502 and the 429 served nothing.
    assert.deepEqual(values(r, 'gateway.extra').map((s) => [s.ts - t0, Math.round(s.v * 1e6) / 1e6]), [[0, 0.0135]]);
  } finally {
    r.dispose();
  }
  const g = await runImporter(accessLogImporter, { text: INGRESS });
  try {
    assert.deepEqual(
      events(g).map((e) => [e.kind, e.attrs.status, e.attrs.request_time_s, e.attrs.upstream_time_s, e.attrs.upstream, e.attrs.request_id]),
      [['http_error', 504, 60.001, 60, '10.1.2.3:8000', '9f1c2d']],
    );
  } finally {
    g.dispose();
  }
});

test('an access log with lines that are not access lines warns with their line; mostly other text fails naming the file', async () => {
  const mixed = `${TIMED.split('\n')[0]}\nGET / garbage\n${TIMED.split('\n')[1]}\n`;
  const r = await runImporter(accessLogImporter, { text: mixed });
  try {
    assert.equal(r.error, null);
    assert.equal(events(r).length, 2);
    assert.ok(r.warnings.some((w) => /line 2\b.*not an access log line/.test(w)), r.warnings.join('\n'));
  } finally {
    r.dispose();
  }
  const bad = await runImporter(accessLogImporter, { text: `${TIMED.split('\n')[0]}\n${'nonsense here\n'.repeat(20)}` });
  try {
    assert.match(String(bad.error), /not an access log/);
  } finally {
    bad.dispose();
  }
  // A uvicorn access line is the engine log's, not a gateway's.
  assert.notEqual(detected('INFO:     127.0.0.1:53716 - "POST /v1/chat/completions HTTP/1.1" 200 OK\n'), 'access-log');
});
