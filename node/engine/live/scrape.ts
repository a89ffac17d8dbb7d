// Scraping Prometheus endpoints the user names (vLLM, SGLang, TGI, dcgm-exporter): http/https only, a
// deadline per scrape, a cap on the body, and no redirects (a metrics URL that redirects is a mistake
// worth seeing). Each scrape is parsed by the Prometheus text importer into the live incident, stamped
// with the time the scrape started; a scrape that fails midway leaves nothing behind.
import http from 'node:http';
import https from 'node:https';
import { gunzipSync } from 'node:zlib';
import type { EndpointHealth, LiveEndpoint } from '../../../common/contract/types';
import { formatBytes } from '../../../common/format';
import { importPrometheusText, scrapeHeader } from '../importers/prometheus-text';
import type { ImportContext } from '../importers/types';
import type { LiveRecorder, LiveStream } from './recorder';

export const DEFAULT_SCRAPE_TIMEOUT_MS = 5000;
export const DEFAULT_SCRAPE_MAX_BYTES = 32 * 2 ** 20;
export const DEFAULT_SCRAPE_INTERVAL_S = 5;

export interface ScrapeOptions {
  timeoutMs?: number;
  maxBytes?: number;
}

export class ScrapeError extends Error {
  constructor(readonly url: string, message: string) {
    super(`${url}: ${message}`);
    this.name = 'ScrapeError';
  }
}

/** Parses and checks an endpoint URL; throws a ScrapeError naming what is wrong. */
export function checkEndpointUrl(raw: string): URL {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new ScrapeError(raw, 'not a URL (expected e.g. http://10.0.0.5:8000/metrics)');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new ScrapeError(raw, `only http and https URLs are scraped (got ${u.protocol})`);
  return u;
}

/** One GET of an exposition; answers the body. */
export function fetchExposition(raw: string, opts: ScrapeOptions = {}, signal?: AbortSignal): Promise<Buffer> {
  const url = checkEndpointUrl(raw);
  const timeoutMs = opts.timeoutMs ?? DEFAULT_SCRAPE_TIMEOUT_MS;
  const maxBytes = opts.maxBytes ?? DEFAULT_SCRAPE_MAX_BYTES;
  const client = url.protocol === 'https:' ? https : http;
  if (signal?.aborted) return Promise.reject(new ScrapeError(raw, 'cancelled'));
  return new Promise<Buffer>((resolve, reject) => {
    let settled = false;
    // Fires only after `req` below exists: timers run on a later turn.
    const deadline = setTimeout(() => fail(`timed out after ${timeoutMs / 1000} s`), timeoutMs);
    const onAbort = () => fail('cancelled');
    const settle = () => {
      settled = true;
      clearTimeout(deadline);
      signal?.removeEventListener('abort', onAbort);
    };
    const fail = (message: string) => {
      if (settled) return;
      settle();
      req.destroy();
      reject(new ScrapeError(raw, message));
    };
    const req = client.get(url, { headers: { accept: 'text/plain;version=0.0.4;q=1, application/openmetrics-text;q=0.5, */*;q=0.1', 'accept-encoding': 'identity' } }, (res) => {
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400) {
        res.resume();
        return fail(`HTTP ${status}: redirects are not followed${res.headers.location ? ` (to ${res.headers.location}); scrape that URL instead` : ''}`);
      }
      if (status < 200 || status >= 300) {
        res.resume();
        return fail(`HTTP ${status}${res.statusMessage ? ` ${res.statusMessage}` : ''}`);
      }
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > maxBytes) return fail(`the response (${formatBytes(declared)}) is over the ${formatBytes(maxBytes)} cap; scraping aborted`);
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > maxBytes) return fail(`the response passed the ${formatBytes(maxBytes)} cap; scraping aborted`);
        chunks.push(c);
      });
      res.on('end', () => {
        if (settled) return;
        let body = Buffer.concat(chunks, size);
        // Asked for identity, some exporters gzip anyway (with or without saying so): read it, capped.
        const encoding = String(res.headers['content-encoding'] ?? '').toLowerCase();
        if (encoding === 'gzip' || encoding === 'x-gzip' || (body.length >= 2 && body[0] === 0x1f && body[1] === 0x8b)) {
          try {
            body = gunzipSync(body, { maxOutputLength: maxBytes });
          } catch (e) {
            const code = (e as NodeJS.ErrnoException).code;
            return fail(code === 'ERR_BUFFER_TOO_LARGE' ? `the gzip'd response passed the ${formatBytes(maxBytes)} cap when unpacked; scraping aborted` : `the gzip'd response is corrupt (${(e as Error).message})`);
          }
        } else if (encoding && encoding !== 'identity') {
          return fail(`the response is ${encoding}-encoded, which is not read (ask the exporter for plain text)`);
        }
        settle();
        resolve(body);
      });
      res.on('error', (e) => fail(e.message));
    });
    req.on('error', (e) => fail(e.message));
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Parses one scrape into `out`, all or nothing; answers the rows it added. */
export async function recordScrape(body: Buffer, tsMs: number, url: string, out: LiveStream, signal: AbortSignal): Promise<number> {
  const mark = out.mark();
  const before = out.pending;
  const warnings: string[] = [];
  const ctx: ImportContext = {
    path: url,
    size: body.length,
    mtimeMs: tsMs,
    options: {},
    signal,
    progress: () => {},
    warn: (message, where) => warnings.push(`${url}${where?.line !== undefined ? ` (line ${where.line})` : ''}: ${message}`),
  };
  const input = {
    async *stream() {
      yield Buffer.from(scrapeHeader(tsMs));
      yield body;
    },
    file: async (): Promise<string> => {
      throw new Error('a scrape has no file on disk');
    },
  };
  try {
    await importPrometheusText(input, out, ctx);
  } catch (e) {
    out.reset(mark);
    throw new ScrapeError(url, e instanceof Error ? e.message : String(e));
  }
  // A body with lines and not one sample in them is not an exposition (a login page, binary, a gzip
  // body that could not be read): a failed scrape, not a good one. An empty exposition stays good.
  if (out.pending === before && warnings.length > 0) {
    out.reset(mark);
    throw new ScrapeError(url, `no samples in the response (${warnings.length} line${warnings.length === 1 ? '' : 's'} not understood — first${warnings[0].slice(url.length, url.length + 160)})`);
  }
  for (const w of warnings) out.warn(w);
  out.addBytes(body.length);
  return out.pending - before;
}

export class EndpointScraper {
  readonly url: string;
  readonly intervalMs: number;
  private readonly out: LiveStream;
  private readonly health: EndpointHealth;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private readonly controller = new AbortController();
  private stopped = false;

  constructor(
    endpoint: LiveEndpoint,
    recorder: LiveRecorder,
    private readonly opts: ScrapeOptions & { now?: () => number } = {},
  ) {
    this.url = checkEndpointUrl(endpoint.url).href;
    const interval = endpoint.interval_s ?? DEFAULT_SCRAPE_INTERVAL_S;
    if (!(interval >= 0.05)) throw new ScrapeError(endpoint.url, `the scrape interval must be at least 0.05 s (got ${interval})`);
    this.intervalMs = interval * 1000;
    this.out = recorder.stream(`live:scrape:${this.url}`, 'live-scrape');
    this.health = { url: this.url, ok: false, last_scrape_ms: null, last_error: null, scrapes: 0, failures: 0 };
  }

  start(): void {
    if (this.timer || this.stopped) return;
    const loop = () => {
      // A scrape still in flight when the next is due is not doubled up.
      if (!this.running) this.running = this.scrapeOnce().finally(() => (this.running = null));
      this.timer = setTimeout(loop, this.intervalMs);
    };
    loop();
  }

  /**
   * Stops scheduling; a scrape in flight may finish within `graceMs` (so the last scrape of a recording
   * stopped by Ctrl-C or SIGTERM is kept), then it is cancelled; waits for it to settle.
   */
  async stop(graceMs = 0): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.running && graceMs > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.running, new Promise<void>((r) => (timer = setTimeout(r, graceMs)))]);
      clearTimeout(timer);
    }
    this.controller.abort();
    await this.running;
  }

  status(): EndpointHealth {
    return { ...this.health };
  }

  async scrapeOnce(): Promise<void> {
    const ts = (this.opts.now ?? Date.now)();
    this.health.scrapes++;
    this.health.last_scrape_ms = ts;
    try {
      const body = await fetchExposition(this.url, this.opts, this.controller.signal);
      await recordScrape(body, ts, this.url, this.out, this.controller.signal);
      this.health.ok = true;
      this.health.last_error = null;
    } catch (e) {
      if (this.stopped) {
        this.health.scrapes--;
        return;
      }
      this.health.ok = false;
      this.health.failures++;
      this.health.last_error = e instanceof Error ? e.message : String(e);
    }
  }
}
