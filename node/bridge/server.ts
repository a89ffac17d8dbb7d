// `quadscope serve`: the workstation in a browser. HTTP + WebSocket on loopback only, a random token
// in the URL, Host and Origin checked (no DNS rebinding, no other site's pages), the built renderer
// served with a strict CSP, and the engine API over one WebSocket. Dropped files arrive by POST /upload.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createReadStream, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, statfsSync, writeFileSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { basename, dirname, extname, join, resolve, sep } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Method, Req, Res, Wire } from '../../common/contract/api';
import { Engine } from '../engine/api';
import { dispatchCall } from '../engine/dispatch';
import type { EngineEvent } from '../../common/contract/types';
import { bridgeCsp } from './csp';
import { fileUnder, mimeType } from './static-path';

export { bridgeCsp };

export interface ServeOptions {
  dbFile: string;
  /** 0 picks a free port. */
  port?: number;
  /** Only loopback addresses are accepted. */
  host?: string;
  rendererDir?: string;
  token?: string;
  /** Largest single upload (browser drops); default DEFAULT_MAX_UPLOAD_BYTES. */
  maxUploadBytes?: number;
  /** Most bytes held in uploads at once, every session together; default DEFAULT_MAX_UPLOAD_TOTAL_BYTES. */
  maxUploadTotalBytes?: number;
  /** Free space an upload must leave on the temp disk; default UPLOAD_DISK_RESERVE_BYTES. */
  uploadDiskReserveBytes?: number;
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

/** Above the largest valid call (startImport: 1000 paths of 4096 characters). */
export const MAX_MESSAGE_BYTES = 16 * 2 ** 20;
/** Calls one socket may have running at once; more are answered `busy` instead of queueing without end. */
export const MAX_IN_FLIGHT = 32;
/** A client that stops reading is dropped once this much is queued for it. */
const MAX_BUFFERED_BYTES = 64 * 2 ** 20;
const MAX_UPLOAD_NAME_BYTES = 255;
const MAX_UPLOAD_DEPTH = 32;
/** One dropped file, and every upload held at once (uploads stay until their import ends). */
export const DEFAULT_MAX_UPLOAD_BYTES = 4 * 2 ** 30;
export const DEFAULT_MAX_UPLOAD_TOTAL_BYTES = 8 * 2 ** 30;
/** Left free on the temp disk by uploads (checked at the start and every UPLOAD_DISK_CHECK_BYTES). */
export const UPLOAD_DISK_RESERVE_BYTES = 1 * 2 ** 30;
const UPLOAD_DISK_CHECK_BYTES = 64 * 2 ** 20;
/** Upload folders: quadscope-upload-XXXXXX in the temp dir, each with its server's pid and host in OWNER_FILE. */
const UPLOAD_PREFIX = 'quadscope-upload-';
const OWNER_FILE = '.owner.json';

/**
 * Removes the upload folders of servers that are gone (killed, crashed: their close() never ran), found in
 * `dir` by their owner file; folders without one (older versions) once they are an hour old. Answers the
 * folders removed. Another running server's folder is left alone.
 */
export function removeStaleUploads(dir = tmpdir()): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return removed;
  }
  const host = hostname();
  for (const name of names) {
    if (!name.startsWith(UPLOAD_PREFIX)) continue;
    const path = join(dir, name);
    let stale = false;
    try {
      const owner = JSON.parse(readFileSync(join(path, OWNER_FILE), 'utf8')) as { pid?: unknown; host?: unknown };
      stale = owner.host === host && typeof owner.pid === 'number' && owner.pid !== process.pid && !processAlive(owner.pid);
    } catch {
      try {
        const st = lstatSync(path);
        stale = st.isDirectory() && Date.now() - st.mtimeMs > 3600_000;
      } catch {
        stale = false;
      }
    }
    if (!stale) continue;
    try {
      rmSync(path, { recursive: true, force: true });
      removed.push(path);
    } catch {
      /* another user's, or in use: left */
    }
  }
  return removed;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Free bytes for an unprivileged writer on the disk holding `path`; Infinity when unknown. */
function freeBytes(path: string): number {
  try {
    const st = statfsSync(path);
    return Number(st.bavail) * Number(st.bsize);
  } catch {
    return Infinity;
  }
}

/** The parts of an upload's relative path, or why it is refused. */
export function uploadParts(rel: string): string[] | string {
  if (rel.startsWith('/') || rel.length > 4096) return `refused upload path ${JSON.stringify(rel.slice(0, 200))}`;
  const parts = rel.split('/').filter((p) => p !== '' && p !== '.');
  if (!parts.length || parts.some((p) => p === '..' || p.includes('\\') || p.includes('\0'))) {
    return `refused upload path ${JSON.stringify(rel.slice(0, 200))}`;
  }
  if (parts.length > MAX_UPLOAD_DEPTH) return `upload path deeper than ${MAX_UPLOAD_DEPTH} folders`;
  if (parts.some((p) => Buffer.byteLength(p) > MAX_UPLOAD_NAME_BYTES)) return `a name in the upload path is longer than ${MAX_UPLOAD_NAME_BYTES} bytes`;
  return parts;
}

type Call = Extract<Wire, { kind: 'call' }>;

/** A call from the wire, or null for anything else (not JSON, not an object, no integer id). */
export function parseCall(text: string): Call | null {
  let msg: unknown;
  try {
    msg = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof msg !== 'object' || msg === null || Array.isArray(msg)) return null;
  const m = msg as Record<string, unknown>;
  return m.kind === 'call' && Number.isSafeInteger(m.id) ? (m as unknown as Call) : null;
}

export function defaultRendererDir(): string {
  return resolve(dirname(new URL(import.meta.url).pathname), '..', '..', 'out', 'renderer');
}

export async function startServer(opts: ServeOptions): Promise<BridgeServer> {
  const host = opts.host ?? '127.0.0.1';
  if (!LOOPBACK.has(host)) throw new Error(`refusing to listen on ${host}: the bridge serves loopback only (127.0.0.1)`);
  const bindHost = host === 'localhost' ? '127.0.0.1' : host;
  const token = opts.token ?? randomBytes(24).toString('hex');
  const rendererDir = resolve(opts.rendererDir ?? defaultRendererDir());
  const maxUpload = opts.maxUploadBytes ?? DEFAULT_MAX_UPLOAD_BYTES;
  const maxUploadTotal = opts.maxUploadTotalBytes ?? DEFAULT_MAX_UPLOAD_TOTAL_BYTES;
  const diskReserve = opts.uploadDiskReserveBytes ?? UPLOAD_DISK_RESERVE_BYTES;
  /** Bytes held in upload folders now (received so far, in flight included), in all and per session. */
  let uploadHeld = 0;
  const sessionBytes = new Map<string, number>();
  const sockets = new Set<WebSocket>();
  const emit = (event: EngineEvent) => {
    const msg = JSON.stringify({ kind: 'event', event } satisfies Wire);
    for (const s of sockets) {
      if (s.bufferedAmount > MAX_BUFFERED_BYTES) s.terminate();
      else if (s.readyState === s.OPEN) s.send(msg);
    }
  };
  const engine = opts.engine ?? new Engine(opts.dbFile, { emit });
  // A server that was killed left its uploads behind: they go now.
  removeStaleUploads();
  const uploadRoot = mkdtempSync(join(tmpdir(), UPLOAD_PREFIX));
  writeFileSync(join(uploadRoot, OWNER_FILE), JSON.stringify({ pid: process.pid, host: hostname(), started_ms: Date.now() }));
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
      // The message only: a stack trace would tell a page about the server's files.
      if (!res.headersSent) send(res, 500, 'text/plain', e instanceof Error ? e.message : String(e));
      else res.destroy();
    });
  });

  const send = (res: ServerResponse, status: number, type: string, body: string, extra: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', ...extra });
    res.end(body);
  };

  async function handleHttp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!hostOk(req)) return send(res, 421, 'text/plain', 'wrong Host header: open the URL that `quadscope serve` printed');
    if (!originOk(req)) return send(res, 403, 'text/plain', 'foreign Origin refused');
    let url: URL;
    try {
      url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
    } catch {
      return send(res, 400, 'text/plain', 'malformed request URL');
    }
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
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(session)) return send(res, 400, 'text/plain', 'bad upload session id');
    const parts = uploadParts(url.searchParams.get('path') ?? '');
    if (typeof parts === 'string') return send(res, 400, 'text/plain', parts);
    const dir = join(uploadRoot, session);
    const target = join(dir, ...parts);
    if (!target.startsWith(dir + sep)) return send(res, 400, 'text/plain', 'refused upload path');
    const tooLarge = () => send(res, 413, 'text/plain', `file larger than ${maxUpload} bytes`, { connection: 'close' });
    const overTotal = () =>
      send(res, 413, 'text/plain', `uploads would hold more than ${maxUploadTotal} bytes at once (every file of every drop together): import what was sent, or drop fewer files`, { connection: 'close' });
    const noSpace = () => send(res, 507, 'text/plain', `the temp disk would have less than ${diskReserve} bytes free: free space, or drop fewer files`, { connection: 'close' });
    const length = Number(req.headers['content-length'] ?? NaN);
    if (Number.isFinite(length) && length > maxUpload) return tooLarge();
    if (Number.isFinite(length) && uploadHeld + length > maxUploadTotal) return overTotal();
    if (freeBytes(uploadRoot) - (Number.isFinite(length) ? length : 0) < diskReserve) return noSpace();
    const shown = parts.join('/');
    let fh;
    try {
      mkdirSync(dirname(target), { recursive: true });
      // 'wx': two uploads of one name never interleave their bytes in one file.
      fh = await open(target, 'wx');
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EEXIST' || code === 'ENOTDIR' || code === 'EISDIR') return send(res, 409, 'text/plain', `${shown} was already uploaded in this session (as a file or a folder)`);
      throw e;
    }
    let received = 0;
    let refusal: (() => void) | null = null;
    let checkedDiskAt = 0;
    const hold = (n: number) => {
      uploadHeld += n;
      sessionBytes.set(session, (sessionBytes.get(session) ?? 0) + n);
    };
    const counter = new Transform({
      transform(chunk: Buffer, _enc, done) {
        received += chunk.length;
        hold(chunk.length);
        // Chunked uploads declare no length: every cap is checked as the bytes come.
        if (received > maxUpload) refusal = tooLarge;
        else if (uploadHeld > maxUploadTotal) refusal = overTotal;
        else if (received - checkedDiskAt >= UPLOAD_DISK_CHECK_BYTES) {
          checkedDiskAt = received;
          if (freeBytes(uploadRoot) < diskReserve) refusal = noSpace;
        }
        if (refusal) done(new Error('upload refused'));
        else done(null, chunk);
      },
    });
    // req is piped by hand, not in the pipeline, so a refusal can still answer on its socket.
    req.once('close', () => {
      if (!req.complete) counter.destroy(new Error(`the upload of ${shown} was interrupted`));
    });
    req.pipe(counter);
    try {
      await pipeline(counter, fh.createWriteStream());
    } catch (e) {
      req.unpipe(counter);
      await rm(target, { force: true });
      hold(-received);
      if (refusal) return (refusal as () => void)();
      throw e;
    }
    send(res, 200, 'application/json', JSON.stringify({ dir, path: target, bytes: received }));
  }

  function serveStatic(res: ServerResponse, pathname: string): void {
    let rel: string;
    try {
      rel = decodeURIComponent(pathname);
    } catch {
      return send(res, 400, 'text/plain', 'malformed %-escape in the URL');
    }
    const file = fileUnder(rendererDir, pathname);
    if (!file) return send(res, 404, 'text/plain', 'not found');
    const isFile = (p: string) => existsSync(p) && statSync(p).isFile();
    let target = file;
    if (!isFile(target)) {
      // Client-side routes fall back to the app shell.
      target = extname(rel) === '' && !existsSync(file) ? join(rendererDir, 'index.html') : '';
      if (!target || !isFile(target)) {
        return send(res, existsSync(rendererDir) ? 404 : 503, 'text/plain', existsSync(rendererDir) ? 'not found' : `the renderer is not built (${rendererDir} is missing): run \`npm run build\``);
      }
    }
    res.writeHead(200, {
      'content-type': mimeType(target),
      'content-security-policy': bridgeCsp(port),
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-cache',
    });
    // A file removed between the check and the read (a rebuild) ends this response, not the server.
    pipeline(createReadStream(target), res).catch(() => res.destroy());
  }

  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  server.on('upgrade', (req, socket, head) => {
    // Node drops its own error listener on upgrade: without one a reset socket would end the process.
    socket.on('error', () => socket.destroy());
    let url: URL;
    try {
      url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
    } catch {
      url = new URL('http://127.0.0.1/');
    }
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
      const inFlight = { n: 0 };
      ws.on('close', () => sockets.delete(ws));
      // Oversized or invalid frames: ws closes the socket (1009, 1002) and reports here.
      ws.on('error', () => ws.terminate());
      ws.on('message', (data) => void handleMessage(ws, data.toString(), inFlight));
    });
  });

  /** Uploaded sessions are only a way into the store: once their import ends, the store holds every byte. */
  function removeUploadsAfter(paths: string[], jobId: string): void {
    const sessions = paths.map((p) => resolve(p)).filter((p) => dirname(p) === uploadRoot);
    if (!sessions.length) return;
    void engine
      .awaitImport({ job_id: jobId })
      .catch(() => undefined)
      .then(() =>
        Promise.all(
          sessions.map(async (d) => {
            await rm(d, { recursive: true, force: true });
            const name = basename(d);
            uploadHeld -= sessionBytes.get(name) ?? 0;
            sessionBytes.delete(name);
          }),
        ),
      );
  }

  /**
   * A report exported without a place named travels back whole in the answer (the browser saves it):
   * its private folder (quadscope-report-XXXXXX in the temp dir, made by the report writer) goes at once.
   */
  function removeDownloadedReport(req: Req<'exportReport'>, res: Res<'exportReport'>): void {
    if (req.out !== undefined || res.content === undefined) return;
    const dir = dirname(resolve(res.path));
    if (dirname(dir) === resolve(tmpdir()) && /^quadscope-report-[^/\\]+$/.test(basename(dir))) void rm(dir, { recursive: true, force: true });
  }

  async function handleMessage(ws: WebSocket, text: string, inFlight: { n: number }): Promise<void> {
    const msg = parseCall(text);
    if (!msg) return ws.close(1007, 'not a Quadscope call: expected {"kind":"call","id":<integer>,...}');
    const reply = (w: Wire) => ws.readyState === ws.OPEN && ws.send(JSON.stringify(w));
    if (inFlight.n >= MAX_IN_FLIGHT) {
      reply({ kind: 'result', id: msg.id, ok: false, error: { code: 'busy', message: `more than ${MAX_IN_FLIGHT} calls at once on one connection: wait for answers before sending more` } });
      return;
    }
    inFlight.n++;
    try {
      reply(await dispatchCall(engine, msg, { door: 'window', after: cleanUpAfter }));
    } finally {
      inFlight.n--;
    }
  }

  /** What a call leaves behind on this machine that the browser does not need: uploads once imported, a report once sent. */
  function cleanUpAfter<M extends Method>(method: M, req: Req<M>, res: Res<M>): void {
    if (method === 'startImport') removeUploadsAfter((req as Req<'startImport'>).paths, (res as Res<'startImport'>).job_id);
    if (method === 'exportReport') removeDownloadedReport(req as Req<'exportReport'>, res as Res<'exportReport'>);
  }

  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(opts.port ?? 0, bindHost, () => ok());
  });
  const addr = server.address();
  port = typeof addr === 'object' && addr ? addr.port : 0;
  const shownHost = bindHost === '::1' ? '[::1]' : bindHost;
  let closing: Promise<void> | null = null;

  return {
    url: `http://${shownHost}:${port}/?token=${token}`,
    port,
    token,
    engine,
    close: async () => {
      if (closing) return closing;
      closing = shutDown();
      return closing;
    },
  };

  async function shutDown(): Promise<void> {
    for (const s of sockets) s.terminate();
    wss.close();
    const closed = new Promise<void>((ok) => server.close(() => ok()));
    server.closeAllConnections();
    await closed;
    if (!opts.engine) await engine.close();
    rmSync(uploadRoot, { recursive: true, force: true });
  }
}
