// User SQL in its own process: a query that computes for ever before its first row is killed at the
// time cap while the engine stays responsive; ordinary queries and refusals come back as before. Under
// Node the process is a child Node process; in the desktop app, a utility process main starts for the
// engine (the packaged app's RunAsNode fuse is off), driven here through main's real engine host with
// Node processes standing in for Electron's utility processes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runUserSqlInChild } from '../../node/engine/store/user-sql-process';
import { Store } from '../../node/engine/store/store';
import { startEngineHost } from '../../electron-main/engine-host';
import { MAX_SQL_PROCESSES } from '../../common/contract/ipc';
import { nodeUtilityProcesses } from '../helpers/utility-process';
import { REPO_ROOT } from '../helpers/corpus';

test('a runaway query is killed at its time cap; the engine thread stays free', { timeout: 60_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'qs-sql-child-'));
  const file = join(dir, 'w.db');
  const store = new Store(file);
  store.createIncident('one');
  try {
    const ok = await runUserSqlInChild(file, 'SELECT name FROM incidents', 10);
    assert.deepEqual(ok, { columns: ['name'], rows: [['one']], truncated: false });

    await assert.rejects(runUserSqlInChild(file, "DELETE FROM incidents", 10), (e: Error & { code?: string }) => e.code === 'sql_refused');
    await assert.rejects(runUserSqlInChild(file, 'SELECT nope FROM nowhere', 10), (e: Error & { code?: string }) => e.code === 'sql_error' && /no such table/.test(e.message));

    let ticks = 0;
    const timer = setInterval(() => ticks++, 50);
    const t0 = Date.now();
    await assert.rejects(
      runUserSqlInChild(file, 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT COUNT(*) FROM c', 10, 500),
      (e: Error & { code?: string }) => e.code === 'sql_timeout',
    );
    clearInterval(timer);
    const took = Date.now() - t0;
    assert.ok(took < 15_000, `stopped after ${took} ms`);
    assert.ok(ticks >= Math.floor(took / 50) * 0.5, `the event loop kept running (${ticks} ticks in ${took} ms)`);
    assert.equal(store.listIncidents().length, 1);
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('desktop: user SQL runs in a utility process main starts for the engine, never as run-as-node; refusals, the time cap and the cap on processes hold', { timeout: 180_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'qs-sql-utility-'));
  const file = join(dir, 'w.db');
  const store = new Store(file);
  store.createIncident('one');
  store.close();
  const procs = nodeUtilityProcesses();
  const host = startEngineHost(join(REPO_ROOT, 'node/engine/host.ts'), file, () => {}, false, {}, procs.fork);
  const code = (r: { ok: boolean; error?: { code: string } }) => (r.ok ? 'ok' : r.error!.code);
  try {
    const ok = await host.call('runSql', { sql: 'SELECT name FROM incidents' });
    assert.deepEqual(ok.ok && ok.value, { columns: ['name'], rows: [['one']], truncated: false });
    for (const sql of ['DELETE FROM incidents', `ATTACH DATABASE '${join(dir, 'x.db')}' AS x`, 'VACUUM', "SELECT load_extension('x')"]) {
      assert.equal(code((await host.call('runSql', { sql })) as never), 'sql_refused', sql);
    }
    // One more runaway query than may run at once: the fifth waits for a process, none runs past its cap.
    const runaway = Array.from({ length: MAX_SQL_PROCESSES + 1 }, () => host.call('runSql', { sql: 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT COUNT(*) FROM c' }));
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const t0 = performance.now();
    const listed = await host.call('listIncidents', {});
    const answeredIn = performance.now() - t0;
    assert.equal(listed.ok, true);
    assert.ok(answeredIn < 2000, `the engine answered in ${answeredIn.toFixed(0)} ms while the queries ran`);
    const ends = await Promise.all(runaway);
    assert.deepEqual(ends.map((r) => code(r as never)), Array(MAX_SQL_PROCESSES + 1).fill('sql_timeout'));

    const sqlProcs = procs.started.filter((p) => p.args.includes('--run-sql'));
    assert.equal(sqlProcs.length, 1 + 4 + MAX_SQL_PROCESSES + 1, 'one process per query');
    assert.equal(procs.peak('--run-sql'), MAX_SQL_PROCESSES);
    for (const p of procs.started) assert.equal(p.env.ELECTRON_RUN_AS_NODE, undefined, 'nothing runs Electron as Node');
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.deepEqual(sqlProcs.filter((p) => p.child.exitCode === null && p.child.signalCode === null).length, 0, 'every SQL process has ended');
  } finally {
    host.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
