// An imported SQLite file is read as data: its views and triggers are dropped from the private copy
// before anything reads it, and AttachedQuery.tables() names ordinary tables only. A 12 KB "nsys export"
// whose kernel table was a view over an endless recursive CTE grew the WAL to 4.5 GB and froze the engine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { importFiles, tempStore } from '../../helpers/import-file';
import { storeSql } from '../../helpers/store-sql';

test('a SQLite input whose tables are views over endless recursion fails at once, read as tables only', { timeout: 60_000 }, async () => {
  const t = tempStore();
  try {
    const file = join(t.dir, 'report.sqlite');
    const ext = new Database(file);
    ext.exec(`
      CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);
      CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER);
      CREATE VIEW CUPTI_ACTIVITY_KIND_KERNEL AS
        WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)
        SELECT x AS start, x + 1 AS end, 0 AS deviceId, 7 AS streamId, 1 AS shortName, x AS correlationId FROM c;
      CREATE VIEW NVTX_EVENTS AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x AS start, x AS end, 'n' AS text FROM c;
      CREATE TRIGGER keep AFTER INSERT ON StringIds BEGIN INSERT INTO StringIds (value) SELECT value FROM StringIds; END;
      CREATE VIRTUAL TABLE CUPTI_ACTIVITY_KIND_RUNTIME USING fts5(x);
    `);
    ext.close();
    const t0 = performance.now();
    const r = await importFiles(t.store, [file]);
    assert.ok(performance.now() - t0 < 10_000, `took ${(performance.now() - t0).toFixed(0)} ms`);
    assert.equal(r.sources[0].format, 'nsys-sqlite');
    assert.equal(r.sources[0].status, 'failed');
    assert.match(r.sources[0].error ?? '', /^report\.sqlite .*no CUDA or NVTX tables/);
    // The user's file is untouched (the views were dropped from the private copy only).
    const again = new Database(file, { readonly: true });
    assert.equal(again.prepare("SELECT COUNT(*) FROM sqlite_master WHERE type IN ('view', 'trigger')").pluck().get(), 3);
    again.close();
    assert.equal(storeSql(t.store).pragma('integrity_check', { simple: true }), 'ok');
  } finally {
    t.dispose();
  }
});

test('a damaged SQLite input is named as the input at its place, never as the workspace being damaged', { timeout: 60_000 }, async () => {
  const t = tempStore();
  try {
    const good = join(t.dir, 'good.sqlite');
    const ext = new Database(good);
    ext.exec('CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER); INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 2, 0, 7);');
    ext.close();
    const bytes = readFileSync(good);
    // The schema page's text damaged (as a bit flip does), the file cut after its first page, and a page
    // size in the header that SQLite refuses.
    const schema = Buffer.from(bytes);
    const at = schema.indexOf('CREATE TABLE');
    schema.write('CREATE TABLX', at, 'latin1');
    writeFileSync(join(t.dir, 'schema.sqlite'), schema);
    writeFileSync(join(t.dir, 'cut.sqlite'), bytes.subarray(0, 4096 + 512));
    const header = Buffer.from(bytes);
    header.writeUInt16BE(1000, 16);
    writeFileSync(join(t.dir, 'header.sqlite'), header);
    const r = await importFiles(t.store, ['schema', 'cut', 'header'].map((n) => join(t.dir, `${n}.sqlite`)));
    const byPath = new Map(r.sources.map((s) => [s.path, s]));
    assert.match(byPath.get('schema.sqlite')?.error ?? '', /^schema\.sqlite \(key sqlite_master\): not a SQLite file that can be read: damaged or not SQLite \(malformed database schema/);
    assert.match(byPath.get('header.sqlite')?.error ?? '', /^header\.sqlite \(byte 0\): not a SQLite file that can be read: damaged or not SQLite \(file is not a database\)/);
    for (const name of ['schema.sqlite', 'cut.sqlite', 'header.sqlite']) {
      const s = byPath.get(name);
      assert.equal(s?.status, 'failed', `${name}: ${JSON.stringify(s)}`);
      assert.match(s?.error ?? '', new RegExp(`^${name.replace('.', '\\.')} \\((byte 0|key sqlite_master|key CUPTI_ACTIVITY_KIND_KERNEL)\\): `));
      assert.doesNotMatch(s?.error ?? '', /workspace/);
    }
    assert.equal(storeSql(t.store).pragma('integrity_check', { simple: true }), 'ok');
  } finally {
    t.dispose();
  }
});
