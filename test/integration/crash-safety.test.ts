// SIGKILL during a large import: the database reopens intact, the killed source left nothing behind
// (not even its row in `sources`), and the same file then imports cleanly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import Database from 'better-sqlite3';
import { REPO_ROOT } from '../helpers/corpus';

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
    check.close();

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
