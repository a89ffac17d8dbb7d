// The SQL console under hostile SQL: nothing writes, attaches, loads code or reads other files, and a
// query that streams rows for ever is stopped by the row and time caps.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from '../../../node/engine/store/store';
import { runReadOnlySql } from '../../../node/engine/store/user-sql';
import { EngineError } from '../../../common/contract/api';

function workspace(): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'qs-user-sql-'));
  const file = join(dir, 'w.db');
  new Store(file).close();
  return { dir, file };
}

const refusedOrFails = (file: string, sql: string) =>
  assert.throws(() => runReadOnlySql(file, sql, 100), (e: unknown) => e instanceof EngineError && /sql_refused|sql_error/.test(e.code), sql);

test('statements that write, attach, vacuum into a file or change pragmas are refused', () => {
  const { dir, file } = workspace();
  try {
    const outside = join(dir, 'stolen.db');
    const hostile = [
      `VACUUM INTO '${outside}'`,
      `/* c */ VACUUM INTO '${outside}'`,
      `ATTACH DATABASE '${outside}' AS x`,
      `-- c\nATTACH '${outside}' AS x`,
      'PRAGMA query_only = OFF',
      'PRAGMA journal_mode = DELETE',
      'PRAGMA writable_schema = ON',
      "INSERT INTO annotations (incident_id, start_ms, end_ms, panel, text, author, created_ms) VALUES (1, 0, 1, 'p', 't', 'a', 0) RETURNING id",
      'WITH x AS (SELECT 1) DELETE FROM incidents RETURNING id',
      'DELETE FROM incidents RETURNING id',
      "UPDATE incidents SET name = 'x' RETURNING id",
      'CREATE TABLE t AS SELECT 1',
      "SELECT load_extension('/tmp/evil.so')",
      "SELECT fts3_tokenizer('simple', x'0000000000000000')",
      "SELECT writefile('/tmp/x', 'y')",
      "SELECT readfile('/etc/passwd')",
      'SELECT 1; DELETE FROM incidents',
    ];
    for (const sql of hostile) refusedOrFails(file, sql);
    assert.equal(existsSync(outside), false);
    assert.deepEqual(runReadOnlySql(file, 'PRAGMA query_only', 10).rows, [[1]]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the workspace file is unchanged by a run of hostile statements', () => {
  const { dir, file } = workspace();
  try {
    const before = statSync(file).mtimeMs;
    refusedOrFails(file, "INSERT INTO incidents (name, created_ms, start_ms, end_ms, source) VALUES ('x', 0, 0, 0, 'x') RETURNING id");
    assert.deepEqual(runReadOnlySql(file, 'SELECT count(*) FROM incidents', 10).rows, [[0]]);
    assert.equal(statSync(file).mtimeMs, before);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('reading the views works, json_each included, and the row cap truncates', () => {
  const { dir, file } = workspace();
  try {
    const r = runReadOnlySql(file, `SELECT value FROM json_each('[1,2,3]')`, 2);
    assert.deepEqual(r, { columns: ['value'], rows: [[1], [2]], truncated: true });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an endless row stream stops at the row cap', () => {
  const { dir, file } = workspace();
  try {
    const r = runReadOnlySql(file, 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c', 5);
    assert.deepEqual(r.rows, [[1], [2], [3], [4], [5]]);
    assert.equal(r.truncated, true);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a slow stream of rows is stopped by the time cap with a clear error', () => {
  const { dir, file } = workspace();
  try {
    const slow = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c WHERE x % 200000 = 0';
    const t0 = Date.now();
    assert.throws(() => runReadOnlySql(file, slow, 100_000, { timeoutMs: 300 }), (e: unknown) => e instanceof EngineError && e.code === 'sql_timeout' && /300 ms/.test(e.message));
    assert.ok(Date.now() - t0 < 5000);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
