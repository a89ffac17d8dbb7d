// A client of the Prometheus HTTP API (`/api/v1/…`), as Prometheus, Thanos, Mimir, Cortex and
// VictoriaMetrics all serve it. One small job: send a request with the credential, CA and tenant the
// user gave, wait at most `timeoutMs`, retry what is worth retrying with exponential back-off and
// jitter (connection failures, timeouts, 429 and 5xx; never a bad query or refused credentials), and
// answer the `data` and `warnings` of a `status: success` body, or throw an ApiError saying what
// went wrong and what to do. Redirects are not followed: the credential must not travel to a host the
// user did not name. Bodies are gzip'd on the wire where the server agrees (remote servers, big
// answers) and capped in size.
import http from 'node:http';
import https from 'node:https';
import { createGunzip } from 'node:zlib';
import type { Credential } from './auth';
import { formatBytes } from '../../../common/format';

export type ApiErrorKind = 'network' | 'timeout' | 'http' | 'auth' | 'api' | 'not-json' | 'too-large' | 'cancelled';

export class ApiError extends Error {
  constructor(
    readonly kind: ApiErrorKind,
    message: string,
    /** HTTP status, 0 when none came back. */
    readonly status = 0,
    /** The API's errorType (bad_data, execution, timeout, internal, unavailable…), '' when none. */
    readonly errorType = '',
    /** Seconds the server asked us to wait (Retry-After). */
    readonly retryAfterS: number | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** Worth another try: the server or the path to it may do better in a moment. */
  get retryable(): boolean {
    if (this.kind === 'network' || this.kind === 'timeout') return true;
    if (this.kind === 'http' || this.kind === 'api') {
      if (this.status === 429 || this.status === 502 || this.status === 503 || this.status === 504) return true;
      if (this.status >= 500) return this.errorType !== 'bad_data' && this.errorType !== 'execution';
    }
    return false;
  }
}

export interface ApiOptions {
  credential?: Credential | null;
  /** PEM bytes of the CA that signed the server's certificate; it replaces the default roots, as curl --cacert does. */
  ca?: Buffer | null;
  tenant?: string;
  timeoutMs?: number;
  /** Retries after the first attempt. */
  retries?: number;
  /** Back-off before retry n (0-based) is random in [0, min(cap, base · 2^n)]. */
  backoffBaseMs?: number;
  backoffCapMs?: number;
  maxBodyBytes?: number;
  /** Connections kept open to the server (the pull's concurrency). */
  sockets?: number;
}

export interface ApiAnswer<T> {
  data: T;
  warnings: string[];
  bytes: number;
}

export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_RETRIES = 3;
const DEFAULT_MAX_BODY = 256 * 2 ** 20;
const RETRY_AFTER_CAP_S = 30;

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(new ApiError('cancelled', 'cancelled'));
    const t = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }
    function onAbort() {
      clearTimeout(t);
      reject(new ApiError('cancelled', 'cancelled'));
    }
    signal?.addEventListener('abort', onAbort, { once: true });
  });

const NETWORK_HINTS: Record<string, string> = {
  ECONNREFUSED: 'connection refused: is the server running, and is the port right?',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'the host name could not be resolved right now',
  ECONNRESET: 'the connection was reset',
  EPIPE: 'the connection was closed',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  DEPTH_ZERO_SELF_SIGNED_CERT: "the server's certificate is self-signed: pass its CA with --ca-file",
  SELF_SIGNED_CERT_IN_CHAIN: "the server's certificate chain is not trusted: pass its CA with --ca-file",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "the server's certificate is not trusted: pass its CA with --ca-file",
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: "the server's certificate is not trusted: pass its CA with --ca-file",
  ERR_TLS_CERT_ALTNAME_INVALID: "the server's certificate does not name this host",
  CERT_HAS_EXPIRED: "the server's certificate has expired",
};
const TLS_CODES = new Set(['DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'ERR_TLS_CERT_ALTNAME_INVALID', 'CERT_HAS_EXPIRED']);

export class PromApi {
  readonly base: URL;
  private readonly agent: http.Agent;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly maxBody: number;
  /** Requests sent, retries among them, body bytes received and milliseconds spent waiting for answers (summed over parallel requests). */
  readonly stats = { requests: 0, retries: 0, bytes: 0, waitMs: 0 };
  /** What the server said of its answers (a Thanos or Mimir partial response, a store that was skipped). */
  readonly warnings = new Set<string>();

  constructor(
    base: URL,
    private readonly opts: ApiOptions = {},
    private readonly signal?: AbortSignal,
  ) {
    this.base = base;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.retries = opts.retries ?? DEFAULT_RETRIES;
    this.maxBody = opts.maxBodyBytes ?? DEFAULT_MAX_BODY;
    const agentOpts = { keepAlive: true, maxSockets: opts.sockets ?? 4 };
    this.agent = base.protocol === 'https:' ? new https.Agent({ ...agentOpts, ...(opts.ca ? { ca: opts.ca } : {}) }) : new http.Agent(agentOpts);
  }

  close(): void {
    this.agent.destroy();
  }

  /** GET (discovery) or POST (queries, whose selectors can be long) with retries; answers `data`. */
  async call<T>(method: 'GET' | 'POST', path: string, params: [string, string][]): Promise<ApiAnswer<T>> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.once<T>(method, path, params);
      } catch (e) {
        const err = e instanceof ApiError ? e : new ApiError('network', (e as Error).message);
        if (err.kind === 'cancelled' || this.signal?.aborted) throw new ApiError('cancelled', 'cancelled');
        if (!err.retryable || attempt >= this.retries) {
          if (attempt > 0) err.message += ` (after ${attempt + 1} attempts)`;
          throw err;
        }
        this.stats.retries++;
        const backoff = Math.random() * Math.min(this.opts.backoffCapMs ?? 5000, (this.opts.backoffBaseMs ?? 250) * 2 ** attempt);
        await sleep(err.retryAfterS !== null ? Math.min(err.retryAfterS, RETRY_AFTER_CAP_S) * 1000 : backoff, this.signal);
      }
    }
  }

  private url(path: string): URL {
    const u = new URL(this.base.href);
    u.pathname = `${u.pathname.replace(/\/+$/, '')}/api/v1/${path}`;
    return u;
  }

  private once<T>(method: 'GET' | 'POST', path: string, params: [string, string][]): Promise<ApiAnswer<T>> {
    const url = this.url(path);
    const body = new URLSearchParams(params).toString();
    if (method === 'GET' && body) url.search = body;
    const shown = `${url.origin}${url.pathname}`;
    const headers: Record<string, string> = { accept: 'application/json', 'accept-encoding': 'gzip', 'user-agent': 'quadscope-pull' };
    const auth = this.opts.credential?.header();
    if (auth) headers.authorization = auth;
    if (this.opts.tenant) headers['x-scope-orgid'] = this.opts.tenant;
    if (method === 'POST') {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      headers['content-length'] = String(Buffer.byteLength(body));
    }
    const client = url.protocol === 'https:' ? https : http;
    const started = performance.now();
    this.stats.requests++;
    return new Promise<ApiAnswer<T>>((resolve, reject) => {
      let settled = false;
      const deadline = setTimeout(() => fail(new ApiError('timeout', `${shown}: no answer within ${this.timeoutMs / 1000} s (raise --timeout, or pull less per request with a narrower selector)`)), this.timeoutMs);
      const onAbort = () => fail(new ApiError('cancelled', 'cancelled'));
      this.signal?.addEventListener('abort', onAbort, { once: true });
      const finish = () => {
        settled = true;
        clearTimeout(deadline);
        this.signal?.removeEventListener('abort', onAbort);
        this.stats.waitMs += performance.now() - started;
      };
      const fail = (e: ApiError) => {
        if (settled) return;
        finish();
        req.destroy();
        reject(e);
      };
      const req = client.request(url, { method, headers, agent: this.agent }, (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400) {
          res.resume();
          return fail(new ApiError('http', `${shown}: HTTP ${status}, a redirect${res.headers.location ? ` to ${res.headers.location}` : ''}; redirects are not followed (the credential would go along): give that URL instead`, status));
        }
        const declared = Number(res.headers['content-length']);
        if (Number.isFinite(declared) && declared > this.maxBody) {
          res.resume();
          return fail(new ApiError('too-large', `${shown}: the answer (${formatBytes(declared)}) is over the ${formatBytes(this.maxBody)} cap`, status));
        }
        const stream = /\bgzip\b/i.test(String(res.headers['content-encoding'] ?? '')) ? res.pipe(createGunzip()) : res;
        const chunks: Buffer[] = [];
        let size = 0;
        stream.on('data', (c: Buffer) => {
          size += c.length;
          if (size > this.maxBody) return fail(new ApiError('too-large', `${shown}: the answer is over the ${formatBytes(this.maxBody)} cap`, status));
          chunks.push(c);
        });
        stream.on('error', (e: Error) => fail(new ApiError('network', `${shown}: the answer broke off: ${e.message}`, status)));
        stream.on('end', () => {
          if (settled) return;
          finish();
          this.stats.bytes += size;
          try {
            resolve(this.answer<T>(shown, status, res.headers, Buffer.concat(chunks).toString('utf8'), size));
          } catch (e) {
            reject(e);
          }
        });
      });
      req.on('error', (e: NodeJS.ErrnoException) => {
        const code = e.code ?? '';
        const hint = NETWORK_HINTS[code];
        fail(new ApiError(TLS_CODES.has(code) ? 'auth' : 'network', `${url.origin}: ${hint ?? e.message}${hint && code ? ` (${code})` : ''}`));
      });
      req.end(method === 'POST' ? body : undefined);
    });
  }

  private answer<T>(shown: string, status: number, headers: http.IncomingHttpHeaders, text: string, bytes: number): ApiAnswer<T> {
    const retryAfter = Number(headers['retry-after']);
    const retryAfterS = Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter : null;
    if (status === 401 || status === 403) {
      throw new ApiError('auth', `${shown}: HTTP ${status}: the server refused ${this.opts.credential ? `the ${this.opts.credential.kind} credential` : 'a request without credentials (give --bearer-token-file, --basic-auth-file or their -env forms)'}`, status);
    }
    let doc: { status?: unknown; data?: unknown; warnings?: unknown; errorType?: unknown; error?: unknown };
    try {
      doc = JSON.parse(text) as typeof doc;
    } catch {
      const type = String(headers['content-type'] ?? 'no content type').split(';')[0];
      const what = status === 404 ? `HTTP 404: is ${this.base.href} the API root? (Prometheus and Thanos: http://host:9090; Mimir and Cortex: …/prometheus; VictoriaMetrics: http://host:8428, its cluster: …/select/0/prometheus)` : `HTTP ${status}, ${type}, not the Prometheus API's JSON`;
      const excerpt = text.slice(0, 120).replace(/\s+/g, ' ').trim();
      throw new ApiError(status >= 200 && status < 300 ? 'not-json' : 'http', `${shown}: ${what}${excerpt && status !== 404 ? `: ${excerpt}` : ''}`, status, '', retryAfterS);
    }
    if (doc?.status !== 'success') {
      const errorType = typeof doc?.errorType === 'string' ? doc.errorType : '';
      const error = typeof doc?.error === 'string' ? doc.error : `status ${JSON.stringify(doc?.status)}`;
      throw new ApiError(status >= 200 && status < 300 ? 'api' : 'http', `${shown}: HTTP ${status}${errorType ? ` ${errorType}` : ''}: ${error}`, status, errorType, retryAfterS);
    }
    if (status < 200 || status >= 300) throw new ApiError('http', `${shown}: HTTP ${status}`, status, '', retryAfterS);
    const warnings = Array.isArray(doc.warnings) ? doc.warnings.map(String) : [];
    for (const w of warnings) this.warnings.add(w);
    return { data: doc.data as T, warnings, bytes };
  }
}

/** Checks the URL the user gave: http(s), no credentials or query in it (the URL is stored with the incident). */
export function apiRoot(raw: string): URL {
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    throw new ApiError('http', `${JSON.stringify(raw)} is not a URL (expected e.g. http://prometheus:9090)`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new ApiError('http', `${u.protocol} URLs are not supported: give http://… or https://…`);
  if (u.username || u.password) throw new ApiError('http', 'put credentials in --basic-auth-file or --basic-auth-env, not in the URL (the URL is stored with the incident)');
  if (u.search || u.hash) throw new ApiError('http', `give the API root without a query or fragment (e.g. ${u.origin}${u.pathname})`);
  // A URL copied from a browser or a query ends in /api/v1/… or /graph: the root is before it.
  u.pathname = u.pathname.replace(/\/api\/v1(\/.*)?$/, '').replace(/\/graph\/?$/, '').replace(/\/+$/, '') || '/';
  return u;
}

/** The root as stored and shown: no trailing slash. */
export function rootText(u: URL): string {
  return `${u.origin}${u.pathname === '/' ? '' : u.pathname}`;
}
