// A real HTTP server on 127.0.0.1 serving Prometheus text whose counters advance with every request,
// plus the failure cases a scraper must survive: a redirect, a server that never answers, an oversized
// body (declared and undeclared), an error status and a page that is not metrics.
import http from 'node:http';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';

export interface MetricsServer {
  base: string;
  url(path: string): string;
  /** Requests received per path. */
  hits: Map<string, number>;
  /** Called on each request (after hits counts it). */
  onRequest?: (path: string) => void;
  close(): Promise<void>;
}

/** Generated vLLM-style text for the k-th request (k from 1): counters grow by 100 a scrape. */
export function generatedExposition(k: number): string {
  return [
    '# HELP vllm:prompt_tokens_total Number of prefill tokens processed.',
    '# TYPE vllm:prompt_tokens_total counter',
    `vllm:prompt_tokens_total{model_name="llama"} ${100 * k}`,
    '# TYPE vllm:num_requests_running gauge',
    `vllm:num_requests_running{model_name="llama"} ${k % 4}`,
    '# TYPE vllm:e2e_request_latency_seconds histogram',
    `vllm:e2e_request_latency_seconds_bucket{model_name="llama",le="0.5"} ${k}`,
    `vllm:e2e_request_latency_seconds_bucket{model_name="llama",le="+Inf"} ${2 * k}`,
    `vllm:e2e_request_latency_seconds_sum{model_name="llama"} ${1.5 * k}`,
    `vllm:e2e_request_latency_seconds_count{model_name="llama"} ${2 * k}`,
    '',
  ].join('\n');
}

const CORPUS_COUNTER = 'vllm:prompt_tokens_total{model_name="facebook/opt-125m"} 5.0';

export async function startMetricsServer(corpusPath?: string | null): Promise<MetricsServer> {
  const hits = new Map<string, number>();
  const corpus = corpusPath ? readFileSync(corpusPath, 'utf8') : null;
  const api: MetricsServer = {
    base: '',
    url: (p) => `${api.base}${p}`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const k = (hits.get(path) ?? 0) + 1;
    hits.set(path, k);
    api.onRequest?.(path);
    const text = (body: string, status = 200) => {
      res.writeHead(status, { 'content-type': 'text/plain; version=0.0.4' });
      res.end(body);
    };
    switch (path) {
      case '/metrics':
        return text(generatedExposition(k));
      case '/corpus':
        if (!corpus) return text('no corpus', 404);
        // The corpus scrape, its prompt-token counter advanced by 10 a scrape.
        return text(corpus.replace(CORPUS_COUNTER, `vllm:prompt_tokens_total{model_name="facebook/opt-125m"} ${5 + 10 * (k - 1)}.0`));
      case '/slow':
        // Answers 400 ms after the request: a scrape that is in flight when a recording is stopped.
        setTimeout(() => text(generatedExposition(k)), 400);
        return;
      case '/gzip':
        // gzip'd although identity was asked for, as some exporters do.
        res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
        return res.end(gzipSync(generatedExposition(k)));
      case '/gzip-bogus':
        res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
        return res.end(Buffer.concat([gzipSync(generatedExposition(k)).subarray(0, 40), Buffer.from('not the rest')]));
      case '/binary':
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        return res.end(Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7919 + 13) % 251 === 10 ? 11 : (i * 7919 + 13) % 251)));
      case '/redirect':
        res.writeHead(302, { location: '/metrics' });
        return res.end();
      case '/never':
        return; // holds the request open until the client gives up
      case '/huge-declared':
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(64 * 1024) });
        return res.end('x'.repeat(64 * 1024));
      case '/huge-chunked': {
        res.writeHead(200, { 'content-type': 'text/plain' });
        const line = `${'vllm:num_requests_waiting{model_name="llama"} 1\n'.repeat(100)}`;
        for (let i = 0; i < 20; i++) res.write(line);
        return res.end();
      }
      case '/error':
        return text('boom', 500);
      case '/html':
        res.writeHead(200, { 'content-type': 'text/html' });
        return res.end(`<!doctype html>\n<html>\n<head><title>Login</title></head>\n${'<p>please log in to continue</p>\n'.repeat(40)}</html>\n`);
      default:
        return text('not found', 404);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  api.base = base;
  return api;
}
