// The bridge under a hostile token holder or a broken client: malformed and oversized messages, floods
// of calls, odd URLs and uploads must each get a clear refusal, and the server must stay up.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { request } from 'node:http';
import WebSocket from 'ws';
import { startServer, type BridgeServer } from '../../node/bridge/server';

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

async function withServer(fn: (s: BridgeServer, dir: string) => Promise<void>, opts: { maxUploadBytes?: number; maxUploadTotalBytes?: number } = {}): Promise<void> {
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

test('the window cannot make the server write a report to a path it names; without one the report comes back in the answer', () =>
  withServer(async (s) => {
    const ws = await connect(s);
    const victim = join(tmpdir(), `quadscope-victim-${process.pid}.md`);
    const r = await call(ws, 'exportReport', { incident_id: 1, format: 'md', out: victim });
    assert.equal(r.ok, false);
    assert.equal(r.error?.code, 'invalid_request');
    assert.match(r.error!.message, /out/);
    assert.equal(existsSync(victim), false);
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

/** A chunked POST (no Content-Length): `chunks` pieces of `size` bytes. */
function chunkedUpload(url: string, chunks: number, size: number): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'transfer-encoding': 'chunked' } }, (res) => {
      let data = '';
      res.on('data', (c) => (data += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: data }));
    });
    req.on('error', (e) => ((e as NodeJS.ErrnoException).code === 'ECONNRESET' || (e as NodeJS.ErrnoException).code === 'EPIPE' ? undefined : reject(e)));
    let i = 0;
    const next = () => {
      if (i++ >= chunks) return req.end();
      if (req.write(Buffer.alloc(size, 0x61))) setImmediate(next);
      else req.once('drain', next);
    };
    next();
  });
}

test('chunked uploads are capped per file and in total, as the bytes come; what is refused leaves nothing, and room comes back when an import ends', () =>
  withServer(
    async (s) => {
      const url = (session: string, path: string) => `http://127.0.0.1:${s.port}/upload?token=${s.token}&session=${session}&path=${encodeURIComponent(path)}`;
      const big = await chunkedUpload(url('one', 'big.log'), 40, 64 * 1024); // 2.5 MiB > 2 MiB a file
      assert.equal(big.status, 413);
      assert.match(big.body, /file larger than 2097152 bytes/);
      const a = await chunkedUpload(url('one', 'a.prom'), 24, 64 * 1024); // 1.5 MiB
      assert.equal(a.status, 200, a.body);
      const b = await chunkedUpload(url('two', 'b.prom'), 24, 64 * 1024); // 1.5 + 1.5 > 2.5 MiB held
      assert.equal(b.status, 413);
      assert.match(b.body, /uploads would hold more than 2621440 bytes at once/);
      const { dir } = JSON.parse(a.body) as { dir: string };
      assert.deepEqual(readdirSync(dir), ['a.prom'], 'the refused files left nothing');
      assert.equal(existsSync(join(dirname(dir), 'two', 'b.prom')), false);
      // Once the first drop's import ends, its bytes no longer count.
      const ws = await connect(s);
      const started = await call(ws, 'startImport', { paths: [dir], name: 'drop' });
      await call(ws, 'awaitImport', { job_id: (started.value as { job_id: string }).job_id });
      for (let i = 0; i < 100 && existsSync(dir); i++) await new Promise((r) => setTimeout(r, 20));
      const again = await chunkedUpload(url('three', 'b.prom'), 24, 64 * 1024);
      assert.equal(again.status, 200, again.body);
      ws.close();
    },
    { maxUploadBytes: 2 * 2 ** 20, maxUploadTotalBytes: 2.5 * 2 ** 20 },
  ));

test('upload folders a killed server left behind are removed when a server starts; a running server\'s are kept', async () => {
  const { removeStaleUploads } = await import('../../node/bridge/server');
  const { hostname } = await import('node:os');
  const tmp = mkdtempSync(join(tmpdir(), 'qs-stale-uploads-'));
  try {
    const dead = join(tmp, 'quadscope-upload-dead01');
    const live = join(tmp, 'quadscope-upload-live01');
    const old = join(tmp, 'quadscope-upload-old001');
    const other = join(tmp, 'something-else');
    for (const d of [dead, live, old, other]) mkdirSync(join(d, 'session', 'sub'), { recursive: true });
    writeFileSync(join(dead, 'session', 'sub', 'big.prom'), 'x'.repeat(1000));
    writeFileSync(join(dead, '.owner.json'), JSON.stringify({ pid: 2 ** 22 + 777, host: hostname() }));
    writeFileSync(join(live, '.owner.json'), JSON.stringify({ pid: process.pid === 1 ? 2 : 1, host: hostname() }));
    const { utimesSync } = await import('node:fs');
    utimesSync(old, new Date(Date.now() - 2 * 3600_000), new Date(Date.now() - 2 * 3600_000));
    const removed = removeStaleUploads(tmp).sort();
    assert.deepEqual(removed, [dead, old].sort());
    assert.ok(existsSync(live) && existsSync(other));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('a large SQL answer is capped in the child (long cells cut, rows stop at 8 MiB) and the server stays small', { timeout: 120_000 }, () =>
  withServer(async (s) => {
    const ws = await connect(s);
    const rss0 = process.memoryUsage().rss;
    // 100 k rows of 1 KiB (about 101 MB of answer): what took the server 801 MB.
    const r = await call(ws, 'runSql', { sql: "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100000) SELECT x, printf('%.1024c', 'q') AS pad FROM c", limit: 100_000 });
    assert.equal(r.ok, true, r.error?.message);
    const v = r.value as { rows: unknown[][]; truncated: boolean };
    assert.equal(v.truncated, true);
    assert.ok(v.rows.length > 1000 && v.rows.length < 10_000, `${v.rows.length} rows`);
    const one = await call(ws, 'runSql', { sql: "SELECT printf('%.1000000c', 'z') AS big", limit: 10 });
    assert.match((one.value as { rows: string[][] }).rows[0][0], /^z{65536}… \[1,000,000 characters, cut\]$/);
    assert.ok(process.memoryUsage().rss - rss0 < 200 * 2 ** 20, `server grew ${((process.memoryUsage().rss - rss0) / 2 ** 20).toFixed(0)} MiB`);
    ws.close();
  }));

test('SQL calls beyond the running and waiting caps are refused as busy, not a process each', { timeout: 120_000 }, async () => {
  const mod = await import('../../node/engine/store/user-sql-process');
  const dir = mkdtempSync(join(tmpdir(), 'qs-sql-cap-'));
  try {
    const { Store } = await import('../../node/engine/store/store');
    new Store(join(dir, 'w.db')).close();
    const { execSync } = await import('node:child_process');
    const children = () => Number(execSync(`ps -o stat=,args= --ppid ${process.pid} | grep -v '^Z' | grep -c 'sql-child-entr[y]' || true`).toString().trim());
    const n = mod.MAX_SQL_CHILDREN + mod.MAX_SQL_WAITING + 10;
    let peak = 0;
    const timer = setInterval(() => (peak = Math.max(peak, children())), 50);
    const all = await Promise.allSettled(Array.from({ length: n }, () => mod.runUserSqlInChild(join(dir, 'w.db'), 'SELECT 1', 1)));
    clearInterval(timer);
    const busy = all.filter((r) => r.status === 'rejected' && (r.reason as { code?: string }).code === 'busy');
    assert.equal(busy.length, 10);
    assert.equal(all.filter((r) => r.status === 'fulfilled').length, n - 10);
    assert.ok(peak >= 1 && peak <= mod.MAX_SQL_CHILDREN, `at most ${mod.MAX_SQL_CHILDREN} SQL children at once (saw ${peak})`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
