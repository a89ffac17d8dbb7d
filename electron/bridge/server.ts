// `quadscope serve`: the workstation in a browser. HTTP + WebSocket on loopback only, a random token
// in the URL, Host and Origin checked (no DNS rebinding, no other site's pages), the built renderer
// served with a strict CSP, and the engine API over one WebSocket. Dropped files arrive by POST /upload.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, extname, join, normalize, resolve, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { WebSocketServer, type WebSocket } from 'ws';
import { EngineError, isMethod, validateRequest, type Wire } from '../contract/api';
import { ValidationError } from '../contract/validate';
import { Engine } from '../engine/api';
import type { EngineEvent } from '../contract/types';
import { BRIDGE_CSP } from './csp';

export { BRIDGE_CSP };

export interface ServeOptions {
  dbFile: string;
  /** 0 picks a free port. */
  port?: number;
  /** Only loopback addresses are accepted. */
  host?: string;
  rendererDir?: string;
  token?: string;
  /** Largest single upload (browser drops). */
  maxUploadBytes?: number;
  engine?: Engine;
}

export interface BridgeServer {
  url: string;
  port: number;
  token: string;
  engine: Engine;
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.ico': 'image/x-icon',
};

export function defaultRendererDir(): string {
  return resolve(dirname(new URL(import.meta.url).pathname), '..', '..', 'out', 'renderer');
}

export async function startServer(opts: ServeOptions): Promise<BridgeServer> {
  const host = opts.host ?? '127.0.0.1';
  if (!LOOPBACK.has(host)) throw new Error(`refusing to listen on ${host}: the bridge serves loopback only (127.0.0.1)`);
  const bindHost = host === 'localhost' ? '127.0.0.1' : host;
  const token = opts.token ?? randomBytes(24).toString('hex');
  const rendererDir = resolve(opts.rendererDir ?? defaultRendererDir());
  const maxUpload = opts.maxUploadBytes ?? 16 * 2 ** 30;
  const sockets = new Set<WebSocket>();
  const emit = (event: EngineEvent) => {
    const msg = JSON.stringify({ kind: 'event', event } satisfies Wire);
    for (const s of sockets) if (s.readyState === s.OPEN) s.send(msg);
  };
  const engine = opts.engine ?? new Engine(opts.dbFile, { emit });
  const uploadRoot = mkdtempSync(join(tmpdir(), 'quadscope-upload-'));
  let port = 0;

  const tokenOk = (given: string | null) => {
    if (!given) return false;
    const a = Buffer.from(given);
    const b = Buffer.from(token);
    return a.length === b.length && timingSafeEqual(a, b);
  };
  const hostOk = (req: IncomingMessage) => {
    const h = req.headers.host ?? '';
    return h === `127.0.0.1:${port}` || h === `localhost:${port}` || h === `[::1]:${port}`;
  };
  // Browsers always send Origin on WebSocket upgrades and POSTs; non-browser clients (tests, scripts)
  // may omit it and are held to the token alone.
  const originOk = (req: IncomingMessage) => {
    const o = req.headers.origin;
    return o === undefined || o === `http://127.0.0.1:${port}` || o === `http://localhost:${port}` || o === `http://[::1]:${port}`;
  };

  const server = createServer((req, res) => {
    handleHttp(req, res).catch((e: unknown) => {
      if (!res.headersSent) send(res, 500, 'text/plain', e instanceof Error ? e.message : String(e));
      else res.destroy();
    });
  });

  const send = (res: ServerResponse, status: number, type: string, body: string) => {
    res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
    res.end(body);
  };

  async function handleHttp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!hostOk(req)) return send(res, 421, 'text/plain', 'wrong Host header: open the URL that `quadscope serve` printed');
    if (!originOk(req)) return send(res, 403, 'text/plain', 'foreign Origin refused');
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
    if (url.pathname === '/upload') {
      if (req.method !== 'POST') return send(res, 405, 'text/plain', 'POST only');
      if (!tokenOk(url.searchParams.get('token'))) return send(res, 401, 'text/plain', 'missing or wrong token');
      return handleUpload(req, res, url);
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'text/plain', 'GET only');
    return serveStatic(res, url.pathname);
  }

  async function handleUpload(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const session = url.searchParams.get('session') ?? '';
    const rel = url.searchParams.get('path') ?? '';
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(session)) return send(res, 400, 'text/plain', 'bad upload session id');
    const parts = rel.split('/').filter((p) => p !== '' && p !== '.');
    if (!parts.length || parts.some((p) => p === '..' || p.includes('\\') || p.includes('\0')) || rel.startsWith('/')) {
      return send(res, 400, 'text/plain', `refused upload path ${JSON.stringify(rel)}`);
    }
    const dir = join(uploadRoot, session);
    const target = join(dir, ...parts);
    if (!target.startsWith(dir + sep)) return send(res, 400, 'text/plain', 'refused upload path');
    const length = Number(req.headers['content-length'] ?? NaN);
    if (Number.isFinite(length) && length > maxUpload) return send(res, 413, 'text/plain', `file larger than ${maxUpload} bytes`);
    mkdirSync(dirname(target), { recursive: true });
    let received = 0;
    req.on('data', (c: Buffer) => {
      received += c.length;
      if (received > maxUpload) req.destroy(new Error('upload too large'));
    });
    await pipeline(req, createWriteStream(target));
    send(res, 200, 'application/json', JSON.stringify({ dir, path: target, bytes: received }));
  }

  function serveStatic(res: ServerResponse, pathname: string): void {
    let rel = decodeURIComponent(pathname);
    if (rel === '/' || rel === '') rel = '/index.html';
    const file = normalize(join(rendererDir, rel));
    if (!file.startsWith(rendererDir + sep)) return send(res, 404, 'text/plain', 'not found');
    let target = file;
    if (!existsSync(target) || !statSync(target).isFile()) {
      // Client-side routes fall back to the app shell.
      if (extname(rel) === '') target = join(rendererDir, 'index.html');
      if (!existsSync(target)) {
        return send(res, existsSync(rendererDir) ? 404 : 503, 'text/plain', existsSync(rendererDir) ? 'not found' : `the renderer is not built (${rendererDir} is missing): run \`npm run build\``);
      }
    }
    res.writeHead(200, {
      'content-type': MIME[extname(target)] ?? 'application/octet-stream',
      'content-security-policy': BRIDGE_CSP,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-cache',
    });
    createReadStream(target).pipe(res);
  }

  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 2 ** 20 });
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
    const refuse = (status: string) => {
      socket.write(`HTTP/1.1 ${status}\r\nConnection: close\r\n\r\n`);
      socket.destroy();
    };
    if (url.pathname !== '/api') return refuse('404 Not Found');
    if (!hostOk(req)) return refuse('421 Misdirected Request');
    if (!originOk(req)) return refuse('403 Forbidden');
    if (!tokenOk(url.searchParams.get('token'))) return refuse('401 Unauthorized');
    wss.handleUpgrade(req, socket, head, (ws) => {
      sockets.add(ws);
      ws.on('close', () => sockets.delete(ws));
      ws.on('message', (data) => void handleMessage(ws, data.toString()));
    });
  });

  async function handleMessage(ws: WebSocket, text: string): Promise<void> {
    let msg: Wire;
    try {
      msg = JSON.parse(text) as Wire;
    } catch {
      return;
    }
    if (msg.kind !== 'call' || typeof msg.id !== 'number') return;
    const reply = (w: Wire) => ws.readyState === ws.OPEN && ws.send(JSON.stringify(w));
    try {
      if (!isMethod(msg.method)) throw new EngineError('unknown_method', `unknown method ${String(msg.method)}`);
      const payload = validateRequest(msg.method, msg.payload);
      const fn = engine[msg.method] as (p: unknown) => Promise<unknown>;
      const value = await fn.call(engine, payload);
      reply({ kind: 'result', id: msg.id, ok: true, value: value ?? null });
    } catch (e) {
      const code = e instanceof EngineError ? e.code : e instanceof ValidationError ? 'invalid_request' : 'internal';
      reply({ kind: 'result', id: msg.id, ok: false, error: { code, message: e instanceof Error ? e.message : String(e) } });
    }
  }

  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(opts.port ?? 0, bindHost, () => ok());
  });
  const addr = server.address();
  port = typeof addr === 'object' && addr ? addr.port : 0;
  const shownHost = bindHost === '::1' ? '[::1]' : bindHost;

  return {
    url: `http://${shownHost}:${port}/?token=${token}`,
    port,
    token,
    engine,
    close: async () => {
      for (const s of sockets) s.terminate();
      wss.close();
      const closed = new Promise<void>((ok) => server.close(() => ok()));
      server.closeAllConnections();
      await closed;
      if (!opts.engine) await engine.close();
      rmSync(uploadRoot, { recursive: true, force: true });
    },
  };
}
