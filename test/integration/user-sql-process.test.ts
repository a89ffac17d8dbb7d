// User SQL in its own process: a query that computes for ever before its first row is killed at the
// time cap while the engine stays responsive; ordinary queries and refusals come back as before.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runUserSqlInChild } from '../../node/engine/store/user-sql-process';
import { Store } from '../../node/engine/store/store';

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
