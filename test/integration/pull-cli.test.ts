// End to end as a user runs it: a generated incident (the fixtures' kv_bloat bundle: vLLM and DCGM
// scrapes at 5 s) is loaded into a real Prometheus (backfilled with promtool) and a real
// VictoriaMetrics (through its import API); `quadscope pull … --json` reads it back and `quadscope
// analyze` diagnoses it as the same metrics imported from the bundle's files are diagnosed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { Diagnosis } from '../../common/contract/diagnosis';
import type { PullResult } from '../../common/contract/types';
import { generateScenario } from '../../fixtures/scenarios/index';
import { REPO_ROOT } from '../helpers/corpus';
import { seriesFromExposition, startPrometheus, startVictoriaMetrics, type RunningServer } from '../helpers/prom-servers';

const CLI = join(REPO_ROOT, 'bin/quadscope.mjs');

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { timeout: 120_000, maxBuffer: 64 * 2 ** 20 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('quadscope pull, then quadscope analyze', { timeout: 240_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'qs-pull-cli-'));
  const truth = generateScenario('kv_bloat', join(dir, 'bundle'));
  const promDir = join(dir, 'bundle', 'prometheus');
  const series = readdirSync(promDir).flatMap((f) => seriesFromExposition(gunzipSync(readFileSync(join(promDir, f))).toString('utf8')));
  const servers: Record<string, RunningServer> = {};
  let fromFiles: Diagnosis;

  before(async () => {
    [servers.prometheus, servers['victoria-metrics']] = await Promise.all([startPrometheus(series), startVictoriaMetrics(series)]);
    const a = await cli(['analyze', promDir, '--json']);
    assert.equal(a.code, 0, a.stderr);
    fromFiles = JSON.parse(a.stdout) as Diagnosis;
    assert.equal(fromFiles.causes[0]?.id, truth.cause, 'the bundle itself diagnoses as its cause');
  });
  after(async () => {
    await Promise.all(Object.values(servers).map((s) => s.stop()));
    rmSync(dir, { recursive: true, force: true });
  });

  for (const which of ['prometheus', 'victoria-metrics']) {
    test(`${which}: the pulled incident diagnoses as the files do`, async () => {
      const db = join(dir, `${which}.db`);
      const p = await cli(['pull', '--prometheus', servers[which].url, '--start', new Date(truth.start_ms).toISOString(), '--end', new Date(truth.end_ms).toISOString(), '--db', db, '--json']);
      assert.equal(p.code, 0, p.stderr);
      assert.equal(p.stderr, '');
      const r = JSON.parse(p.stdout) as PullResult & { db: string };
      assert.equal(r.db, db);
      assert.equal(r.partial, false);
      assert.equal(r.step_ms, 5000, 'the step is the bundle\'s 5 s scrape interval, read from the server');
      assert.ok(r.series > 100, `${r.series} series`);

      const a = await cli(['analyze', db, '--json']);
      assert.equal(a.code, 0, a.stderr);
      const d = JSON.parse(a.stdout) as Diagnosis;
      assert.equal(d.status, fromFiles.status);
      assert.equal(d.causes[0]?.id, fromFiles.causes[0]?.id);
      assert.equal(d.onset_ms, fromFiles.onset_ms);
      assert.deepEqual(
        d.alerts.map((x) => x.family),
        fromFiles.alerts.map((x) => x.family),
      );
    });
  }

  test('usage mistakes are caught before any request', async () => {
    const cases: [string[], RegExp][] = [
      [['pull', '--start', 'now-1h', '--end', 'now'], /give the server with --prometheus URL/],
      [['pull', '--prometheus', 'http://127.0.0.1:1'], /give the range with --start and --end \(or --last 2h\)/],
      [['pull', '--prometheus', 'http://127.0.0.1:1', '--last', 'two hours'], /--last must be a duration such as 15s, 5m, 2h or 1d/],
      [['pull', '--prometheus', 'http://127.0.0.1:1', '--start', 'now', '--end', 'now-1h'], /--end must come after --start/],
      [['pull', '--prometheus', 'http://127.0.0.1:1', '--last', '1h', '--bearer-token-env', 'A', '--basic-auth-file', 'f'], /give one credential, not --bearer-token-env and --basic-auth-file/],
    ];
    for (const [args, re] of cases) {
      const r = await cli(args);
      assert.equal(r.code, 2, args.join(' '));
      assert.match(r.stderr, re);
    }
    const help = await cli(['pull', '--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /usage: quadscope pull --prometheus URL/);
  });
});
