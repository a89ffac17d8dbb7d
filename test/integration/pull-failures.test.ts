// `pull` when things go wrong, against real servers on 127.0.0.1 (a fault-injecting proxy in front
// where the network must misbehave): credentials from a file or a variable are sent and never printed
// or stored; refused credentials, a wrong URL, a server that is down, a selector matching nothing, a
// selector too wide, a server that stops answering each give one clear message and keep nothing; a
// server error mid-pull leaves a partial incident that says so; a transient error is retried; https
// with a private CA.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pullIncident } from '../../node/engine/pull/pull';
import { Store } from '../../node/engine/store/store';
import { REPO_ROOT } from '../helpers/corpus';
import { fleetSeries } from '../helpers/fleet-metrics';
import { freePort, hasOpenssl, makeCertificates, startPrometheus, startProxy, startVictoriaMetrics, type RunningServer } from '../helpers/prom-servers';
import { storeSql } from '../helpers/store-sql';

const T0 = Date.parse('2026-03-14T09:00:00Z');
const TWO_H = 2 * 3600_000;
const CLI = join(REPO_ROOT, 'bin/quadscope.mjs');
const RANGE = ['--start', new Date(T0).toISOString(), '--end', new Date(T0 + TWO_H).toISOString()];

function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, timeout: 120_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

function tempDir(): { dir: string; db: string; dispose(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'qs-pullf-'));
  return { dir, db: join(dir, 'w.db'), dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Every byte SQLite keeps for a workspace (the file and its WAL), as one string. */
function dbBytes(db: string): string {
  return [db, `${db}-wal`].filter(existsSync).map((f) => readFileSync(f).toString('latin1')).join('');
}

function incidents(db: string): number {
  if (!existsSync(db)) return 0;
  const s = new Store(db);
  try {
    return s.listIncidents().length;
  } finally {
    s.close();
  }
}

const apiError = (error: string, status = 500, errorType = 'internal') => ({ status, body: JSON.stringify({ status: 'error', errorType, error }) });

describe('credentials', { timeout: 120_000 }, () => {
  const series = fleetSeries({ startMs: T0, durationS: 7200, stepS: 15, replicas: 1, gpusPerReplica: 1, digits: 10 });
  let prom: RunningServer;
  let vm: RunningServer;
  const TOKEN = `qs-token-${Math.random().toString(36).slice(2)}-${Date.now()}`;
  const PASSWORD = `pw-${Math.random().toString(36).slice(2)}`;
  before(async () => {
    [prom, vm] = await Promise.all([startPrometheus(series), startVictoriaMetrics(series, { basicAuth: { user: 'reader', password: PASSWORD } })]);
  });
  after(async () => {
    await Promise.all([prom.stop(), vm.stop()]);
  });

  test('a bearer token from a file is sent on every request, and printed or stored nowhere', async () => {
    // The proxy plays a gateway that wants the token (Prometheus itself has no bearer auth).
    const proxy = await startProxy(prom.url, (r) => (r.headers.authorization === `Bearer ${TOKEN}` ? { pass: true } : { status: 401, body: 'Unauthorized' }));
    const t = tempDir();
    try {
      const tokenFile = join(t.dir, 'token');
      writeFileSync(tokenFile, `${TOKEN}\n`);
      const ok = await cli(['pull', '--prometheus', proxy.url, ...RANGE, '--bearer-token-file', tokenFile, '--db', t.db, '--json']);
      assert.equal(ok.code, 0, ok.stderr);
      const r = JSON.parse(ok.stdout) as { incident_id: number; series: number; partial: boolean };
      assert.equal(r.partial, false);
      assert.equal(r.series, series.length);
      assert.ok(proxy.seen.length >= 4 && proxy.seen.every((q) => q.headers.authorization === `Bearer ${TOKEN}`));
      const b64 = Buffer.from(TOKEN).toString('base64');
      for (const [where, text] of [
        ['stdout', ok.stdout],
        ['stderr', ok.stderr],
        ['the database', dbBytes(t.db)],
      ]) {
        assert.ok(!text.includes(TOKEN) && !text.includes(b64), `the token is not in ${where}`);
      }
      const store = new Store(t.db);
      try {
        assert.equal((store.incidentMeta(r.incident_id).pull as { auth: string }).auth, 'bearer');
      } finally {
        store.close();
      }

      // Without it, or with another, the gateway refuses: one line, the credential not in it, nothing kept.
      const none = await cli(['pull', '--prometheus', proxy.url, ...RANGE, '--db', t.db]);
      assert.equal(none.code, 1);
      assert.match(none.stderr, /HTTP 401: the server refused a request without credentials \(give --bearer-token-file/);
      writeFileSync(tokenFile, 'wrong-token');
      const wrong = await cli(['pull', '--prometheus', proxy.url, ...RANGE, '--bearer-token-file', tokenFile, '--db', t.db]);
      assert.equal(wrong.code, 1);
      assert.match(wrong.stderr, /HTTP 401: the server refused the bearer credential/);
      assert.ok(!wrong.stderr.includes('wrong-token'));
      assert.equal(incidents(t.db), 1);

      // A file that is not a token (a key, a config) is refused before anything is sent, its content unprinted.
      writeFileSync(tokenFile, '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n');
      const seen = proxy.seen.length;
      const key = await cli(['pull', '--prometheus', proxy.url, ...RANGE, '--bearer-token-file', tokenFile, '--db', t.db]);
      assert.equal(key.code, 1);
      assert.match(key.stderr, /holds more than one line or control characters: it must hold only the token/);
      assert.ok(!key.stderr.includes('MIIE'));
      assert.equal(proxy.seen.length, seen);
    } finally {
      await proxy.close();
      t.dispose();
    }
  });

  test('basic auth from an environment variable against VictoriaMetrics -httpAuth', async () => {
    const t = tempDir();
    try {
      const ok = await cli(['pull', '--prometheus', vm.url, ...RANGE, '--basic-auth-env', 'QS_PROM_AUTH', '--db', t.db, '--json'], { QS_PROM_AUTH: `reader:${PASSWORD}` });
      assert.equal(ok.code, 0, ok.stderr);
      assert.equal((JSON.parse(ok.stdout) as { series: number }).series, series.length);
      const b64 = Buffer.from(`reader:${PASSWORD}`).toString('base64');
      for (const text of [ok.stdout, ok.stderr, dbBytes(t.db)]) assert.ok(!text.includes(PASSWORD) && !text.includes(b64));

      const refused = await cli(['pull', '--prometheus', vm.url, ...RANGE, '--basic-auth-env', 'QS_PROM_AUTH', '--db', t.db], { QS_PROM_AUTH: 'reader:not-the-password' });
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /HTTP 401: the server refused the basic credential/);
      assert.ok(!refused.stderr.includes('not-the-password'));
      const unset = await cli(['pull', '--prometheus', vm.url, ...RANGE, '--basic-auth-env', 'QS_UNSET_VARIABLE', '--db', t.db]);
      assert.equal(unset.code, 1);
      assert.match(unset.stderr, /the basic credential variable \$QS_UNSET_VARIABLE is not set/);
      assert.equal(incidents(t.db), 1);
    } finally {
      t.dispose();
    }
  });

  test('https with a private CA: refused without --ca-file, pulled with it', { skip: hasOpenssl() ? false : 'openssl is not installed (apt-get install -y openssl)' }, async () => {
    const t = tempDir();
    const pem = makeCertificates(t.dir);
    const tls = await startPrometheus(series, { files: { 'server.pem': pem.cert, 'server.key': pem.key }, webConfig: 'tls_server_config:\n  cert_file: server.pem\n  key_file: server.key\n' });
    try {
      assert.match(tls.url, /^https:/);
      const untrusted = await cli(['pull', '--prometheus', tls.url, ...RANGE, '--db', t.db]);
      assert.equal(untrusted.code, 1);
      assert.match(untrusted.stderr, /certificate.*pass its CA with --ca-file/);
      writeFileSync(join(t.dir, 'ca.crt'), pem.ca);
      const ok = await cli(['pull', '--prometheus', tls.url, ...RANGE, '--ca-file', join(t.dir, 'ca.crt'), '--db', t.db, '--json']);
      assert.equal(ok.code, 0, ok.stderr);
      assert.equal((JSON.parse(ok.stdout) as { series: number }).series, series.length);
    } finally {
      await tls.stop();
      t.dispose();
    }
  });
});

describe('a server that misbehaves', { timeout: 180_000 }, () => {
  const series = fleetSeries({ startMs: T0, durationS: 7200, stepS: 15, replicas: 4, gpusPerReplica: 2 });
  let prom: RunningServer;
  before(async () => {
    prom = await startPrometheus(series);
  });
  after(async () => {
    await prom.stop();
  });

  test('an error mid-pull is retried where it passes, and reported where it does not: a partial incident that says so', async () => {
    let transient = 0;
    const proxy = await startProxy(prom.url, (r) => {
      if (r.path !== '/api/v1/query_range') return { pass: true };
      const q = r.params.get('query') ?? '';
      if (q.startsWith('DCGM_FI_DEV_POWER_USAGE')) return apiError('injected: storage unavailable for this block');
      if (q.startsWith('vllm:kv_cache_usage_perc') && transient++ === 0) return { status: 503, body: 'Service Unavailable', headers: { 'content-type': 'text/plain' } };
      return { pass: true };
    });
    const t = tempDir();
    try {
      const res = await cli(['pull', '--prometheus', proxy.url, ...RANGE, '--db', t.db, '--json']);
      assert.equal(res.code, 3, `exit 3 for a partial answer: ${res.stderr}`);
      const r = JSON.parse(res.stdout) as { incident_id: number; partial: boolean; failures: { query: string; error: string }[]; retries: number; series: number };
      assert.equal(r.partial, true);
      assert.deepEqual(r.failures.map((f) => f.query), ['DCGM_FI_DEV_POWER_USAGE']);
      assert.match(r.failures[0].error, /HTTP 500 internal: injected: storage unavailable for this block \(after 4 attempts\)/);
      assert.ok(r.retries >= 4, `3 retries of the failing request and 1 of the transient one (${r.retries})`);

      const store = new Store(t.db);
      try {
        const src = store.listSources(r.incident_id)[0];
        assert.equal(src.status, 'ok');
        assert.match(src.warnings[0], /^partial: 1 of \d+ query_range requests failed; their ranges are empty$/);
        assert.match(src.warnings[1], /no data for DCGM_FI_DEV_POWER_USAGE 2026-03-14T09:00:00Z–2026-03-14T11:00:00Z: .*injected/);
        const count = (name: string) => storeSql(store).prepare('SELECT COUNT(*) FROM samples WHERE series_id IN (SELECT id FROM series WHERE incident_id = ? AND name = ?)').pluck().get(r.incident_id, name);
        assert.equal(count('gpu.power'), 0);
        assert.equal(count('kv.usage'), 4 * 481, 'the transient 503 was retried: nothing missing');
        assert.equal(count('gpu.mem.used'), 8 * 481);
      } finally {
        store.close();
      }
      const text = await cli(['pull', '--prometheus', proxy.url, ...RANGE, '--db', t.db, '--match', 'DCGM_FI_DEV_POWER_USAGE', 'DCGM_FI_DEV_GPU_UTIL']);
      assert.equal(text.code, 3);
      assert.match(text.stdout, /\(PARTIAL: see below\)/);
      assert.match(text.stdout, /missing {2}DCGM_FI_DEV_POWER_USAGE 2026-03-14T09:00:00.000Z → 2026-03-14T11:00:00.000Z: /);
    } finally {
      await proxy.close();
      t.dispose();
    }
  });

  test('a selector too wide for the caps gets a message that says how to narrow it, and nothing is kept', async () => {
    const t = tempDir();
    try {
      const series = await cli(['pull', '--prometheus', prom.url, ...RANGE, '--db', t.db, '--max-series', '50']);
      assert.equal(series.code, 1);
      assert.match(series.stderr, /^quadscope pull: the selector is too wide: it matches more than 50 series \(\d+ counted before stopping; most: .*\)\. Narrow it with --match .*, pull a shorter range, or raise --max-series\.\n$/);
      const samples = await cli(['pull', '--prometheus', prom.url, ...RANGE, '--db', t.db, '--max-samples', '10000', '--match', '{__name__=~"DCGM_.*"}']);
      assert.equal(samples.code, 1);
      assert.match(samples.stderr, /the pull is too big: 40 series × 481 points \(a 15 s step\) = 19,240 samples, over the cap of 10,000\. Narrow the selector with --match, pull a shorter range, use --step 29s or more, or raise --max-samples\./);
      const coarser = await cli(['pull', '--prometheus', prom.url, ...RANGE, '--db', t.db, '--max-samples', '10000', '--match', '{__name__=~"DCGM_.*"}', '--step', '30s', '--json']);
      assert.equal(coarser.code, 0, coarser.stderr);
      assert.equal((JSON.parse(coarser.stdout) as { samples: number }).samples, 40 * 241);
      assert.equal(incidents(t.db), 1);
    } finally {
      t.dispose();
    }
  });

  test('a wrong URL, a server that is down, a selector that matches nothing, a bad selector: one line each, nothing kept', async () => {
    const t = tempDir();
    try {
      const wrong = await cli(['pull', '--prometheus', `${prom.url}/not-prometheus`, ...RANGE, '--db', t.db]);
      assert.equal(wrong.code, 1);
      assert.match(wrong.stderr, /HTTP 404: is http:\/\/127\.0\.0\.1:\d+\/not-prometheus the API root\?/);

      const port = await freePort();
      const down = await cli(['pull', '--prometheus', `http://127.0.0.1:${port}`, ...RANGE, '--db', t.db]);
      assert.equal(down.code, 1);
      assert.match(down.stderr, /connection refused: is the server running, and is the port right\? \(ECONNREFUSED\) \(after 4 attempts\)/);

      const nothing = await cli(['pull', '--prometheus', prom.url, ...RANGE, '--db', t.db, '--match', '{namespace="no-such-namespace"}']);
      assert.equal(nothing.code, 1);
      assert.match(nothing.stderr, /no series Quadscope understands .* under \{namespace="no-such-namespace"\} between 2026-03-14T09:00:00.000Z and 2026-03-14T11:00:00.000Z; check the time range and the selector/);
      const elsewhen = await cli(['pull', '--prometheus', prom.url, '--start', '2025-01-01T00:00:00Z', '--end', '2025-01-01T02:00:00Z', '--db', t.db]);
      assert.equal(elsewhen.code, 1);
      assert.match(elsewhen.stderr, /no series Quadscope understands .* on the server between 2025-01-01/);

      const bad = await cli(['pull', '--prometheus', prom.url, ...RANGE, '--db', t.db, '--match', 'rate(vllm:num_requests_running[5m])']);
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /selector "rate\(vllm:num_requests_running\[5m\]\)": unexpected "\(vllm:num_" \(a selector, not a PromQL expression/);
      const credsInUrl = await cli(['pull', '--prometheus', prom.url.replace('http://', 'http://user:secret@'), ...RANGE, '--db', t.db]);
      assert.equal(credsInUrl.code, 1);
      assert.match(credsInUrl.stderr, /put credentials in --basic-auth-file or --basic-auth-env, not in the URL/);
      assert.ok(!credsInUrl.stderr.includes('secret'));
      assert.equal(incidents(t.db), 0);
    } finally {
      t.dispose();
    }
  });

  test('a server that does not answer in time: each request times out, is retried, and the pull fails saying so', async () => {
    const proxy = await startProxy(prom.url, (r) => (r.path === '/api/v1/query_range' ? { pass: true, delayMs: 2500 } : { pass: true }));
    const t = tempDir();
    const store = new Store(t.db);
    try {
      await assert.rejects(
        pullIncident(store, { url: proxy.url, start_ms: T0, end_ms: T0 + TWO_H, match: ['vllm:num_requests_running'], timeout_s: 0.5 }, { retries: 1, backoffBaseMs: 10 }),
        /every query_range request failed, nothing was kept; the first: http:\/\/127\.0\.0\.1:\d+\/api\/v1\/query_range: no answer within 0\.5 s \(raise --timeout, or pull less per request with a narrower selector\) \(after 2 attempts\)/,
      );
      assert.equal(store.listIncidents().length, 0);
      const ranges = proxy.seen.filter((q) => q.path === '/api/v1/query_range');
      assert.equal(ranges.length, 2);
      assert.equal(ranges[0].params.get('timeout'), '0.5', 'the server is told the same deadline (in seconds)');
    } finally {
      store.close();
      await proxy.close();
      t.dispose();
    }
  });
});
