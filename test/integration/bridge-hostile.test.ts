// The bridge under a hostile token holder or a broken client: malformed and oversized messages, floods
// of calls, odd URLs and uploads must each get a clear refusal, and the server must stay up.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import WebSocket from 'ws';
import { startServer, type BridgeServer } from '../../electron/bridge/server';

interface Reply {
  status: number;
  body: string;
}

function http(url: string, method = 'GET', body?: Buffer, headers: Record<string, string> = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      let data = '';
      res.on('data', (c) => (data += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: data }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

function connect(s: BridgeServer): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${s.port}/api?token=${s.token}`);
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

function closed(ws: WebSocket): Promise<{ code: number; reason: string }> {
  return new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
}

type Result = { id: number; ok: boolean; value?: unknown; error?: { code: string; message: string } };

function results(ws: WebSocket, n: number): Promise<Result[]> {
  const got: Result[] = [];
  return new Promise((resolve) => {
    const onMsg = (data: WebSocket.RawData) => {
      const m = JSON.parse(data.toString()) as Result & { kind: string };
      if (m.kind !== 'result') return;
      got.push(m);
      if (got.length === n) {
        ws.off('message', onMsg);
        resolve(got);
      }
    };
    ws.on('message', onMsg);
  });
}

async function call(ws: WebSocket, method: string, payload: unknown): Promise<Result> {
  const id = Math.floor(Math.random() * 1e9);
  const answer = results(ws, 1);
  ws.send(JSON.stringify({ kind: 'call', id, method, payload }));
  return (await answer)[0];
}

async function withServer(fn: (s: BridgeServer, dir: string) => Promise<void>, opts: { maxUploadBytes?: number } = {}): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'qs-bridge-hostile-'));
  const renderer = join(dir, 'renderer');
  mkdirSync(join(renderer, 'assets.d'), { recursive: true });
  writeFileSync(join(renderer, 'index.html'), '<!doctype html><title>Quadscope</title>');
  writeFileSync(join(dir, 'secret.txt'), 'secret');
  const s = await startServer({ dbFile: join(dir, 'w.db'), port: 0, rendererDir: renderer, ...opts });
  try {
    await fn(s, dir);
  } finally {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a JSON message that is not an object closes that socket with 1007 and the server stays up', () =>
  withServer(async (s) => {
    for (const text of ['null', '42', '"call"', '[]', '{not json']) {
      const ws = await connect(s);
      const c = closed(ws);
      ws.send(text);
      const { code, reason } = await c;
      assert.equal(code, 1007, text);
      assert.match(reason, /not a Quadscope call/, text);
    }
    const ws = await connect(s);
    assert.equal((await call(ws, 'listIncidents', null)).ok, true);
    ws.close();
  }));

test('a message over the size cap closes the socket with 1009 and the server stays up', () =>
  withServer(async (s) => {
    const ws = await connect(s);
    ws.on('error', () => undefined);
    const c = closed(ws);
    ws.send('x'.repeat(17 * 2 ** 20));
    assert.equal((await c).code, 1009);
    const again = await connect(s);
    assert.equal((await call(again, 'listIncidents', null)).ok, true);
    again.close();
  }));

test('unknown methods, prototype names and bad ids get a clear error without a stack trace', () =>
  withServer(async (s) => {
    const ws = await connect(s);
    for (const method of ['__proto__', 'constructor', 'toString', 'close', 'nope']) {
      const r = await call(ws, method, null);
      assert.equal(r.ok, false, method);
      assert.equal(r.error?.code, 'unknown_method', method);
      assert.doesNotMatch(r.error!.message, /\n\s+at /, method);
    }
    const r = await call(ws, 'getIncident', { id: 1e300 });
    assert.equal(r.error?.code, 'invalid_request');
    ws.close();
  }));

test('a flood of calls is answered: beyond the in-flight cap each call is refused as busy, none is lost', () =>
  withServer(async (s) => {
    const ws = await connect(s);
    const n = 500;
    const answers = results(ws, n);
    for (let id = 1; id <= n; id++) ws.send(JSON.stringify({ kind: 'call', id, method: 'runSql', payload: { sql: 'SELECT count(*) FROM incidents' } }));
    const got = await answers;
    assert.deepEqual(got.map((r) => r.id).sort((a, b) => a - b), Array.from({ length: n }, (_, i) => i + 1));
    const busy = got.filter((r) => !r.ok);
    for (const r of busy) assert.equal(r.error?.code, 'busy');
    // Frames that arrive together are handled before any answer: the cap is what turns the rest away.
    assert.ok(busy.length > 0, 'some calls must be refused as busy');
    assert.ok(got.filter((r) => r.ok).length >= 32);
    assert.equal((await call(ws, 'listIncidents', null)).ok, true);
    ws.close();
  }));

test('static paths: malformed escapes are a 400, traversal and directories a 404, and the server stays up', () =>
  withServer(async (s) => {
    const base = `http://127.0.0.1:${s.port}`;
    assert.equal((await http(`${base}/%E0%A4%A`)).status, 400);
    for (const p of ['/..%2fsecret.txt', '/%2e%2e/secret.txt', '/..%5csecret.txt', '/index.html%00.js', '/assets.d', '/assets.d/']) {
      const r = await http(base + p);
      assert.notEqual(r.status, 200, p);
      assert.doesNotMatch(r.body, /secret/, p);
    }
    assert.equal((await http(`${base}/assets.d`)).status, 404);
    assert.equal((await http(`${base}/index.html`)).status, 200);
  }));

test('an upload over the cap is a 413 and leaves no partial file behind', () =>
  withServer(
    async (s) => {
      const url = (path: string) => `http://127.0.0.1:${s.port}/upload?token=${s.token}&session=big&path=${encodeURIComponent(path)}`;
      // Without Content-Length (chunked) the cap is enforced as bytes arrive.
      const r = await new Promise<Reply>((resolve, reject) => {
        const req = request(url('big.log'), { method: 'POST' }, (res) => {
          let data = '';
          res.on('data', (c) => (data += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: data }));
        });
        req.on('error', reject);
        req.write(Buffer.alloc(600, 0x61));
        req.end(Buffer.alloc(600, 0x61));
      });
      assert.equal(r.status, 413);
      assert.match(r.body, /larger than 1000 bytes/);
      const ok = await http(url('small.log'), 'POST', Buffer.from('x 1\n'));
      assert.equal(ok.status, 200);
      const { dir } = JSON.parse(ok.body) as { dir: string };
      assert.deepEqual(readdirSync(dir), ['small.log']);
    },
    { maxUploadBytes: 1000 },
  ));

test('an upload may not overwrite a file of its session, and a file cannot become a folder', () =>
  withServer(async (s) => {
    const url = (path: string) => `http://127.0.0.1:${s.port}/upload?token=${s.token}&session=dup&path=${encodeURIComponent(path)}`;
    const first = await http(url('a/m.prom'), 'POST', Buffer.from('one 1\n'));
    assert.equal(first.status, 200);
    const second = await http(url('a/m.prom'), 'POST', Buffer.from('two 2\n'));
    assert.equal(second.status, 409);
    assert.match(second.body, /already uploaded/);
    const under = await http(url('a/m.prom/x'), 'POST', Buffer.from('x'));
    assert.equal(under.status, 409);
    assert.doesNotMatch(under.body, /\n\s+at /);
    const long = await http(url(`${'n'.repeat(300)}.log`), 'POST', Buffer.from('x'));
    assert.equal(long.status, 400);
  }));

test('closing the server removes every upload', () =>
  withServer(async (s) => {
    const up = await http(`http://127.0.0.1:${s.port}/upload?token=${s.token}&session=gone&path=m.prom`, 'POST', Buffer.from('m 1\n'));
    const { dir } = JSON.parse(up.body) as { dir: string };
    assert.ok(existsSync(dir));
    await s.close();
    assert.equal(existsSync(dir), false);
  }));

test('an uploaded session is removed once its import has finished', () =>
  withServer(async (s) => {
    const up = await http(`http://127.0.0.1:${s.port}/upload?token=${s.token}&session=done&path=${encodeURIComponent('b/m.prom')}`, 'POST', Buffer.from('# TYPE up gauge\nup 1 1700000000000\n'));
    assert.equal(up.status, 200);
    const { dir } = JSON.parse(up.body) as { dir: string };
    const ws = await connect(s);
    const started = await call(ws, 'startImport', { paths: [dir], name: 'drop' });
    assert.equal(started.ok, true);
    const done = await call(ws, 'awaitImport', { job_id: (started.value as { job_id: string }).job_id });
    assert.equal(done.ok, true);
    for (let i = 0; i < 100 && existsSync(dir); i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(existsSync(dir), false);
    const incidents = await call(ws, 'listIncidents', null);
    assert.equal((incidents.value as { name: string }[])[0].name, 'drop');
    ws.close();
  }));
