// Real Prometheus-compatible servers for the pull tests, on 127.0.0.1 with temporary data folders:
// Debian's `prometheus` (backfilled from OpenMetrics with `promtool tsdb create-blocks-from openmetrics`)
// and `victoria-metrics` (fed through its /api/v1/import/prometheus). Each server is started on a free
// port, waited for, and stopped with its folder removed. A fault-injecting proxy stands in front of a
// real server where a test needs the network to misbehave (errors mid-pull, slow answers, a server that
// demands a bearer token).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const INSTALL_HINT = 'apt-get install -y prometheus victoria-metrics';
const BINARIES = ['prometheus', 'promtool', 'victoria-metrics'];

function onPath(bin: string): boolean {
  return (process.env.PATH ?? '').split(':').some((d) => d && existsSync(join(d, bin)));
}

/** Throws one line naming what is missing and how to install it (the tests fail, they do not skip). */
export function requireServers(): void {
  const missing = BINARIES.filter((b) => !onPath(b));
  if (missing.length) throw new Error(`${missing.join(', ')} not found on PATH: ${INSTALL_HINT}`);
}

export function hasOpenssl(): boolean {
  return onPath('openssl');
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

export interface Series {
  name: string;
  labels: Record<string, string>;
  /** [ms, value], in time order. */
  points: [number, number][];
}

const escapeLabel = (v: string) => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
const labelText = (l: Record<string, string>) => {
  const keys = Object.keys(l).sort();
  return keys.length ? `{${keys.map((k) => `${k}="${escapeLabel(l[k])}"`).join(',')}}` : '';
};
/** Go's float text, which both servers read exactly: shortest round-trip digits. */
const num = (v: number) => (v === Infinity ? '+Inf' : v === -Infinity ? '-Inf' : Number.isNaN(v) ? 'NaN' : String(v));

/** OpenMetrics for promtool: every series' samples together, timestamps in seconds, `# EOF` last. */
export function openMetrics(series: Series[]): string {
  const out: string[] = [];
  for (const s of series) {
    const head = `${s.name}${labelText(s.labels)} `;
    for (const [t, v] of s.points) out.push(`${head}${num(v)} ${t / 1000}`);
  }
  out.push('# EOF');
  return `${out.join('\n')}\n`;
}

/** Prometheus exposition text with millisecond timestamps (VictoriaMetrics' import format). */
export function expositionText(series: Series[]): string {
  const out: string[] = [];
  for (const s of series) {
    const head = `${s.name}${labelText(s.labels)} `;
    for (const [t, v] of s.points) out.push(`${head}${num(v)} ${Math.round(t)}`);
  }
  return `${out.join('\n')}\n`;
}

/** Series from exposition text with ms timestamps (the fixture generators' scrapes): `# ` lines dropped, samples grouped per series. */
export function seriesFromExposition(text: string): Series[] {
  const bySeries = new Map<string, Series>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})?\s+(\S+)\s+(\d+)$/.exec(line);
    if (!m) continue;
    const key = `${m[1]}${m[2] ?? ''}`;
    let s = bySeries.get(key);
    if (!s) {
      const labels: Record<string, string> = {};
      for (const lm of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[lm[1]] = lm[2].replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
      bySeries.set(key, (s = { name: m[1], labels, points: [] }));
    }
    const v = m[3] === '+Inf' ? Infinity : m[3] === '-Inf' ? -Infinity : Number(m[3]);
    s.points.push([Number(m[4]), v]);
  }
  return [...bySeries.values()];
}

export interface RunningServer {
  url: string;
  port: number;
  dir: string;
  stop(): Promise<void>;
}

async function waitFor(check: () => Promise<boolean>, what: string, child: ChildProcess, log: () => string, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`${what} exited with code ${child.exitCode}: ${log().slice(-800)}`);
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} was not ready within ${timeoutMs / 1000} s: ${log().slice(-800)}`);
}

export function httpGet(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.setTimeout(5000, () => req.destroy(new Error('timed out')));
  });
}

export function httpPost(url: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { 'content-length': String(Buffer.byteLength(body)), ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Servers still running: killed if the test process exits without stopping them (a failed before()). */
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const c of live) c.kill('SIGKILL');
});

function spawnServer(bin: string, args: string[], dir: string): { child: ChildProcess; log: () => string } {
  const child = spawn(bin, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(child);
  child.once('exit', () => live.delete(child));
  let text = '';
  const keep = (d: Buffer) => {
    text = (text + d.toString('utf8')).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return { child, log: () => text };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

export interface PrometheusOptions {
  /** A --web.config.file body (TLS, basic auth). */
  webConfig?: string;
  /** Files written into the server's folder first (certificates the web config names). */
  files?: Record<string, string>;
}

/** Backfills `series` with promtool and starts Prometheus on a free port; it is ready when this resolves. */
export async function startPrometheus(series: Series[], opts: PrometheusOptions = {}): Promise<RunningServer> {
  requireServers();
  const dir = mkdtempSync(join(tmpdir(), 'qs-prom-'));
  try {
    const data = join(dir, 'data');
    mkdirSync(data);
    for (const [name, body] of Object.entries(opts.files ?? {})) writeFileSync(join(dir, name), body);
    if (series.length) {
      writeFileSync(join(dir, 'input.om'), openMetrics(series));
      const r = spawnSync('promtool', ['tsdb', 'create-blocks-from', 'openmetrics', join(dir, 'input.om'), data], { encoding: 'utf8', timeout: 120_000 });
      if (r.status !== 0) throw new Error(`promtool create-blocks-from openmetrics failed: ${(r.stderr || r.stdout).slice(-800)}`);
    }
    writeFileSync(join(dir, 'prometheus.yml'), 'global:\n  scrape_interval: 15s\n');
    const port = await freePort();
    const args = [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${data}`,
      '--storage.tsdb.retention.time=100y',
      `--web.listen-address=127.0.0.1:${port}`,
    ];
    if (opts.webConfig) {
      writeFileSync(join(dir, 'web.yml'), opts.webConfig);
      args.push(`--web.config.file=${join(dir, 'web.yml')}`);
    }
    const { child, log } = spawnServer('prometheus', args, dir);
    const scheme = opts.webConfig?.includes('tls_server_config') ? 'https' : 'http';
    const url = `${scheme}://127.0.0.1:${port}`;
    try {
      // Over TLS the ready check is the port answering at all; the tests themselves speak TLS.
      await waitFor(scheme === 'http' ? async () => (await httpGet(`${url}/-/ready`)).status === 200 : () => portOpen(port), 'prometheus', child, log);
    } catch (e) {
      await stopChild(child);
      throw e;
    }
    return {
      url,
      port,
      dir,
      stop: async () => {
        await stopChild(child);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.on('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.on('error', () => resolve(false));
  });
}

export interface VictoriaOptions {
  basicAuth?: { user: string; password: string };
}

/** Starts VictoriaMetrics on a free port and imports `series`; resolves once they are searchable. */
export async function startVictoriaMetrics(series: Series[], opts: VictoriaOptions = {}): Promise<RunningServer> {
  requireServers();
  const dir = mkdtempSync(join(tmpdir(), 'qs-vm-'));
  const port = await freePort();
  const args = [`-storageDataPath=${join(dir, 'data')}`, '-retentionPeriod=100y', `-httpListenAddr=127.0.0.1:${port}`, '-search.disableCache', '-search.latencyOffset=0s', '-loggerLevel=ERROR'];
  if (opts.basicAuth) args.push(`-httpAuth.username=${opts.basicAuth.user}`, `-httpAuth.password=${opts.basicAuth.password}`);
  const { child, log } = spawnServer('victoria-metrics', args, dir);
  const url = `http://127.0.0.1:${port}`;
  const auth: Record<string, string> = opts.basicAuth ? { authorization: `Basic ${Buffer.from(`${opts.basicAuth.user}:${opts.basicAuth.password}`).toString('base64')}` } : {};
  try {
    await waitFor(async () => (await httpGet(`${url}/health`, auth)).status === 200, 'victoria-metrics', child, log);
    if (series.length) {
      const r = await httpPost(`${url}/api/v1/import/prometheus`, expositionText(series), auth);
      if (r.status >= 300) throw new Error(`victoria-metrics import: HTTP ${r.status} ${r.body.slice(0, 300)}`);
      await httpGet(`${url}/internal/force_flush`, auth);
      const names = [...new Set(series.map((s) => s.name))];
      const lo = Math.min(...series.map((s) => s.points[0]?.[0] ?? Infinity)) / 1000;
      const hi = Math.max(...series.map((s) => s.points.at(-1)?.[0] ?? -Infinity)) / 1000;
      // Imported rows become searchable after a flush; wait until every name answers.
      await waitFor(
        async () => {
          const q = new URLSearchParams({ start: String(lo), end: String(hi) });
          const r2 = await httpGet(`${url}/api/v1/label/__name__/values?${q}`, auth);
          const got = new Set((JSON.parse(r2.body) as { data: string[] }).data);
          return names.every((n) => got.has(n));
        },
        'victoria-metrics (imported data to become searchable)',
        child,
        log,
      );
    }
  } catch (e) {
    await stopChild(child);
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  return {
    url,
    port,
    dir,
    stop: async () => {
      await stopChild(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface ProxyRequest {
  path: string;
  /** The form or query parameters (query_range's `query`, `start`, `end`). */
  params: URLSearchParams;
  headers: http.IncomingHttpHeaders;
}

/** What the proxy does with one request: pass it on, answer it itself, or wait first. */
export type ProxyAction = { pass: true; delayMs?: number } | { status: number; body: string; headers?: Record<string, string>; delayMs?: number };

export interface Proxy {
  url: string;
  seen: ProxyRequest[];
  close(): Promise<void>;
}

/** An HTTP proxy in front of `target` (a real server) whose `decide` can fail, delay or refuse requests. */
export async function startProxy(target: string, decide: (r: ProxyRequest) => ProxyAction): Promise<Proxy> {
  const seen: ProxyRequest[] = [];
  const upstream = new URL(target);
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const u = new URL(req.url ?? '/', 'http://x');
      const params = new URLSearchParams(u.search);
      if (String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) for (const [k, v] of new URLSearchParams(body.toString('utf8'))) params.append(k, v);
      const r: ProxyRequest = { path: u.pathname, params, headers: req.headers };
      seen.push(r);
      const action = decide(r);
      const act = () => {
        if (res.destroyed) return;
        if (!('pass' in action)) {
          res.writeHead(action.status, { 'content-type': 'application/json', ...(action.headers ?? {}) });
          res.end(action.body);
          return;
        }
        const headers = { ...req.headers, host: upstream.host };
        delete headers.authorization;
        const up = http.request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers }, (ur) => {
          res.writeHead(ur.statusCode ?? 502, ur.headers);
          ur.pipe(res);
        });
        up.on('error', () => res.destroy());
        up.end(body);
      };
      if (action.delayMs) setTimeout(act, action.delayMs);
      else act();
    });
  });
  const sockets = new Set<net.Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

/** A CA and a server certificate for 127.0.0.1 made with openssl, as PEM text. */
export function makeCertificates(dir: string): { ca: string; cert: string; key: string } {
  const run = (args: string[]) => {
    const r = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`openssl ${args[0]}: ${r.stderr}`);
  };
  run(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=quadscope test CA']);
  run(['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1']);
  writeFileSync(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1\n');
  run(['x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '2', '-extfile', 'san.ext']);
  const read = (f: string) => readFileSync(join(dir, f), 'utf8');
  return { ca: read('ca.pem'), cert: read('server.pem'), key: read('server.key') };
}
