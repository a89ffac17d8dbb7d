// `quadscope import` answers once its data is in the database file itself: the write-ahead log is folded
// back (and emptied) before the answer is printed, so the process has nothing left to copy when it
// closes (it lingered 0.4–3.1 s after a large import's answer, checkpointing on close), and a copy of the
// file alone holds everything the answer reports.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { REPO_ROOT } from '../helpers/corpus';
import { scrapeHeader } from '../../node/engine/importers/prometheus-text';

/** About `bytes` of scrapes: enough samples that the import's WAL passes the background checkpoint's threshold. */
function scrapes(bytes: number): string {
  const parts: string[] = [];
  let n = 0;
  for (let i = 0; n < bytes; i++) {
    let s = scrapeHeader(Date.UTC(2026, 0, 1) + i * 1000);
    for (let g = 0; g < 64; g++) s += `DCGM_FI_DEV_GPU_UTIL{gpu="${g % 8}",Hostname="node-${g >> 3}"} ${(i + g) % 100}\n`;
    parts.push(s);
    n += s.length;
  }
  return parts.join('');
}

test('the answer comes once the WAL is folded back; the process then exits at once', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'qs-cli-exit-'));
  try {
    const file = join(dir, 'scrapes.prom');
    writeFileSync(file, scrapes(12e6));
    const db = join(dir, 'w.db');
    const child = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'quadscope.mjs'), 'import', file, '--db', db, '--json'], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    let walAtAnswer: number | null = null;
    let answeredAt = 0;
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (answeredAt === 0 && out.includes('\n')) {
        answeredAt = performance.now();
        walAtAnswer = existsSync(`${db}-wal`) ? statSync(`${db}-wal`).size : 0;
      }
    });
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    const linger = performance.now() - answeredAt;
    assert.equal(code, 0);
    const answer = JSON.parse(out) as { sources: { status: string; rows: number }[] };
    assert.equal(answer.sources[0].status, 'ok');
    assert.equal(walAtAnswer, 0, 'the WAL still held pages when the answer was printed');
    // Generous against a loaded machine; it was 0.4–3.1 s at 1 GB and is ~0.1 s now.
    assert.ok(linger < 2000, `exited ${linger.toFixed(0)} ms after its answer`);
    const check = new Database(db, { readonly: true });
    try {
      assert.equal(check.prepare('SELECT COUNT(*) FROM samples').pluck().get(), answer.sources[0].rows);
    } finally {
      check.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
