// SIGKILL during a large import: the database reopens intact, the killed source left nothing behind
// (not even its row in `sources`), and the same file then imports cleanly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, createWriteStream, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import Database from 'better-sqlite3';
import { REPO_ROOT } from '../helpers/corpus';
import { Store } from '../../node/engine/store/store';

async function writeScrapeSeries(file: string, scrapes: number, seriesPerScrape: number): Promise<number> {
  const out = createWriteStream(file);
  const t0 = Date.parse('2026-03-14T09:00:00Z');
  out.write('# HELP vllm:num_requests_running Number of requests in model execution batches.\n# TYPE vllm:num_requests_running gauge\n');
  let n = 0;
  for (let s = 0; s < scrapes; s++) {
    let chunk = '';
    for (let k = 0; k < seriesPerScrape; k++) {
      chunk += `vllm:num_requests_running{engine="${k}",model_name="m"} ${(s * 7 + k) % 50} ${t0 + s * 1000}\n`;
      n++;
    }
    if (!out.write(chunk)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return n;
}

test('a SIGKILLed import leaves no partial source and re-imports cleanly', { timeout: 120_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'qs-crash-'));
  try {
    const file = join(dir, 'metrics.prom');
    const samples = await writeScrapeSeries(file, 40_000, 50);
    const db = join(dir, 'w.db');
    const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'test/helpers/crash-import-child.ts'), db, file], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    let killedAt = 0;
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const last = [...out.matchAll(/progress (\d+)\n/g)].at(-1);
      out = out.slice(-200);
      if (!killedAt && last && Number(last[1]) > 10_000_000) {
        killedAt = Number(last[1]);
        child.kill('SIGKILL');
      }
    });
    const [code, signal] = (await once(child, 'exit')) as [number | null, string | null];
    assert.equal(signal, 'SIGKILL', `the import finished before it could be killed (exit ${code}): ${out.slice(-300)}`);
    assert.ok(killedAt > 0);

    const check = new Database(db);
    assert.equal(check.pragma('integrity_check', { simple: true }), 'ok');
    assert.equal(check.prepare('SELECT COUNT(*) FROM sources').pluck().get(), 0, 'the killed source is not visible');
    assert.equal(check.prepare('SELECT COUNT(*) FROM samples').pluck().get(), 0);
    assert.equal(check.prepare('SELECT COUNT(*) FROM series').pluck().get(), 0);
    // The killed import's incident is still there, marked as in progress by a process that is gone …
    assert.match(check.prepare('SELECT meta_json FROM incidents').pluck().get() as string, /"in_progress":\{"pid":\d+/);
    check.close();
    // … and the next store opened on this host drops it: nothing of it was committed.
    const swept = new Store(db);
    assert.deepEqual(swept.listIncidents(), [], 'no empty incident is left behind');
    assert.equal(swept.newestIncident(), null);
    swept.close();

    const again = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'test/helpers/crash-import-child.ts'), db, file], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let out2 = '';
    again.stdout.on('data', (d: Buffer) => (out2 += d.toString()));
    const [code2] = (await once(again, 'exit')) as [number];
    assert.equal(code2, 0);
    const result = JSON.parse(/done (.*)\n/.exec(out2)![1]);
    assert.equal(result.sources[0].status, 'ok', JSON.stringify(result.sources[0]));
    const verify = new Database(db, { readonly: true });
    assert.equal(verify.prepare("SELECT COUNT(*) FROM sources WHERE status = 'ok'").pluck().get(), 1);
    assert.equal(verify.prepare('SELECT COUNT(*) FROM samples').pluck().get(), samples);
    verify.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Runs the CLI through bash after `prefix` (ending in exec: "ulimit -f N; exec", "exec setpriv …"); answers its exit code and output. */
async function cli(prefix: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const quoted = [process.execPath, join(REPO_ROOT, 'bin/quadscope.mjs'), ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const child = spawn('bash', ['-c', `${prefix} ${quoted}`], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}

test('a full disk (a file-size limit: ulimit -f) ends the import with a JSON result and a clear error per file, the database intact', { timeout: 180_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'qs-full-'));
  try {
    const a = join(dir, 'a.prom');
    const b = join(dir, 'b.prom');
    await writeScrapeSeries(a, 20_000, 20);
    await writeScrapeSeries(b, 20_000, 20);
    const db = join(dir, 'w.db');
    // 6 MiB: the 400 k samples of one file need more WAL than that, so every file fails at some write.
    const r = await cli('ulimit -f 6144; exec', ['import', a, b, '--db', db, '--json']);
    assert.doesNotMatch(r.stderr, /cannot rollback/);
    const result = JSON.parse(r.stdout) as { incident_id: number; sources: { path: string; status: string; error: string | null }[] };
    assert.equal(r.code, 1, 'every file failed');
    assert.equal(result.sources.length, 2);
    for (const s of result.sources) {
      assert.equal(s.status, 'failed');
      assert.match(s.error ?? '', new RegExp(`^${s.path.replace('.', '\\.')}: (writing the workspace database failed|the disk holding the workspace database is full)`));
    }
    const check = new Database(db);
    assert.equal(check.pragma('integrity_check', { simple: true }), 'ok');
    assert.equal(check.prepare('SELECT COUNT(*) FROM samples').pluck().get(), 0, 'nothing partial');
    assert.equal(check.prepare("SELECT COUNT(*) FROM sources WHERE status = 'ok'").pluck().get(), 0);
    check.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a workspace in a read-only folder is queried without writing beside it (no -shm)', { timeout: 120_000 }, async (t) => {
  // Root ignores file modes: the query then runs as nobody (setpriv), which needs to read this checkout.
  const asRoot = process.getuid?.() === 0;
  const as = asRoot ? 'exec setpriv --reuid=65534 --regid=65534 --clear-groups' : 'exec';
  if (asRoot && spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', 'test', '-r', join(REPO_ROOT, 'package.json')]).status !== 0) {
    return t.skip('running as root, and nobody cannot read this checkout (setpriv): a read-only folder would not stop root');
  }
  const dir = mkdtempSync(join(tmpdir(), 'qs-ro-'));
  const ws = join(dir, 'ws');
  try {
    const file = join(dir, 'm.prom');
    await writeScrapeSeries(file, 200, 5);
    const imported = await cli('exec', ['import', file, '--db', join(ws, 'w.db'), '--json']);
    assert.equal(imported.code, 0, imported.stderr);
    // Closed cleanly: only the database file is left (no -wal, no -shm); then file and folder go read-only.
    assert.deepEqual(readdirSync(ws), ['w.db']);
    chmodSync(join(ws, 'w.db'), 0o444);
    chmodSync(ws, 0o555);
    chmodSync(dir, 0o755);
    const query = await cli(as, ['query', join(ws, 'w.db'), 'SELECT COUNT(*) AS n FROM samples', '--json']);
    assert.equal(query.code, 0, query.stderr);
    assert.deepEqual(JSON.parse(query.stdout), [{ n: 1000 }]);
    assert.deepEqual(readdirSync(ws), ['w.db'], 'nothing written beside it');
  } finally {
    try {
      chmodSync(ws, 0o755);
    } catch {
      /* absent */
    }
    rmSync(dir, { recursive: true, force: true });
  }
});
