// The loopback bridge: token, Host and Origin checks, loopback-only binds, the engine API over the
// WebSocket, and uploads that cannot escape their folder.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import WebSocket from 'ws';
import { startServer, type BridgeServer } from '../../node/bridge/server';

function setup(): { dir: string; renderer: string } {
  const dir = mkdtempSync(join(tmpdir(), 'qs-bridge-'));
  const renderer = join(dir, 'renderer');
  mkdirSync(renderer);
  writeFileSync(join(renderer, 'index.html'), '<!doctype html><title>Quadscope</title>');
  return { dir, renderer };
}

function httpGet(url: string, headers: Record<string, string> = {}, method = 'GET', body?: Buffer): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      let data = '';
      res.on('data', (c) => (data += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: data }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

function connect(url: string, headers: Record<string, string> = {}): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
  });
}

function rpc(ws: WebSocket, method: string, payload: unknown): Promise<{ ok: boolean; value?: unknown; error?: { code: string; message: string } }> {
  const id = Math.floor(Math.random() * 1e9);
  return new Promise((resolve) => {
    const onMsg = (data: WebSocket.RawData) => {
      const m = JSON.parse(data.toString());
      if (m.kind === 'result' && m.id === id) {
        ws.off('message', onMsg);
        resolve(m);
      }
    };
    ws.on('message', onMsg);
    ws.send(JSON.stringify({ kind: 'call', id, method, payload }));
  });
}

async function withServer(fn: (s: BridgeServer) => Promise<void>): Promise<void> {
  const { dir, renderer } = setup();
  const s = await startServer({ dbFile: join(dir, 'w.db'), port: 0, rendererDir: renderer });
  try {
    await fn(s);
  } finally {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

test('refuses to bind anything but loopback', async () => {
  const { dir, renderer } = setup();
  await assert.rejects(startServer({ dbFile: join(dir, 'w.db'), host: '0.0.0.0', rendererDir: renderer }), /loopback only/);
  await assert.rejects(startServer({ dbFile: join(dir, 'w.db'), host: '192.168.1.5', rendererDir: renderer }), /loopback only/);
  rmSync(dir, { recursive: true, force: true });
});

test('serves the renderer with a strict CSP on 127.0.0.1', () =>
  withServer(async (s) => {
    assert.match(s.url, /^http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{48}$/);
    const r = await httpGet(s.url);
    assert.equal(r.status, 200);
    assert.match(r.body, /Quadscope/);
    const csp = String(r.headers['content-security-policy']);
    assert.match(csp, /default-src 'self'/);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.doesNotMatch(csp, /https?:\/\/(?!127)/);
  }));

test('a wrong Host header (DNS rebinding) is refused', () =>
  withServer(async (s) => {
    const r = await httpGet(s.url, { host: `evil.example:${s.port}` });
    assert.equal(r.status, 421);
  }));

test('the API needs the token and a loopback Origin', () =>
  withServer(async (s) => {
    const base = `ws://127.0.0.1:${s.port}/api`;
    await assert.rejects(connect(`${base}?token=wrong`), /401/);
    await assert.rejects(connect(base), /401/);
    await assert.rejects(connect(`${base}?token=${s.token}`, { origin: 'https://evil.example' }), /403/);
    const ws = await connect(`${base}?token=${s.token}`, { origin: `http://127.0.0.1:${s.port}` });
    const r = await rpc(ws, 'listIncidents', null);
    assert.deepEqual(r, { kind: 'result', id: (r as unknown as { id: number }).id, ok: true, value: [] });
    ws.close();
  }));

test('payloads are validated and unknown methods refused', () =>
  withServer(async (s) => {
    const ws = await connect(`ws://127.0.0.1:${s.port}/api?token=${s.token}`);
    const bad = await rpc(ws, 'getIncident', { id: 'one' });
    assert.equal(bad.ok, false);
    assert.equal(bad.error?.code, 'invalid_request');
    assert.match(bad.error!.message, /id must be a finite number/);
    const extra = await rpc(ws, 'getIncident', { id: 1, sneaky: true });
    assert.match(extra.error!.message, /sneaky/);
    const unknown = await rpc(ws, 'rm -rf', {});
    assert.equal(unknown.error?.code, 'unknown_method');
    const missing = await rpc(ws, 'getIncident', { id: 42 });
    assert.equal(missing.error?.code, 'not_found');
    const sql = await rpc(ws, 'runSql', { sql: 'DELETE FROM incidents' });
    assert.equal(sql.ok, false);
    const attach = await rpc(ws, 'runSql', { sql: "ATTACH '/etc/passwd' AS x" });
    assert.equal(attach.error?.code, 'sql_refused');
    const select = await rpc(ws, 'runSql', { sql: 'SELECT COUNT(*) AS n FROM incidents' });
    assert.deepEqual(select.value, { columns: ['n'], rows: [[0]], truncated: false });
    ws.close();
  }));

test('uploads need the token and stay inside their folder', () =>
  withServer(async (s) => {
    const up = (path: string, token = s.token) => httpGet(`http://127.0.0.1:${s.port}/upload?token=${token}&session=abc&path=${encodeURIComponent(path)}`, {}, 'POST', Buffer.from('x 1\n'));
    assert.equal((await up('a.prom', 'nope')).status, 401);
    assert.equal((await up('../../etc/x')).status, 400);
    assert.equal((await up('/etc/x')).status, 400);
    const ok = await up('bundle/metrics.prom');
    assert.equal(ok.status, 200);
    const body = JSON.parse(ok.body);
    assert.ok(body.path.startsWith(body.dir));
    assert.equal(body.bytes, 4);
  }));
