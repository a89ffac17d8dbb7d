// The one declaration of the workspace tables (node/engine/store/tables.ts) against what the migrations
// build in a real SQLite file, and against the two documents that list the tables.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempStore } from '../../helpers/import-file';
import { storeSql } from '../../helpers/store-sql';
import { insertSelectSql, insertSql, TABLES } from '../../../node/engine/store/tables';
import { TABLE_DOCS, withTable } from '../../../scripts/tables-doc';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

test('the migrations build exactly the declared tables, columns, types and NOT NULLs', () => {
  const ts = tempStore();
  try {
    const db = storeSql(ts.store);
    const built = db
      .prepare("SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'events_fts_%' ORDER BY name")
      .all() as { name: string; type: string }[];
    assert.deepEqual(built.map((t) => t.name), Object.keys(TABLES).sort(), 'every table the migrations make is declared, and only those');
    for (const t of Object.values(TABLES)) {
      const info = db.prepare(`PRAGMA table_info(${t.name})`).all() as { name: string; type: string; notnull: number }[];
      assert.deepEqual(info.map((c) => c.name), t.columns.map((c) => c.name), `${t.name}: columns in order`);
      if (t.kind === 'table') {
        assert.deepEqual(
          info.map((c) => `${c.name} ${c.type}${c.notnull ? ' NOT NULL' : ''}`),
          t.columns.map((c) => `${c.name} ${c.type}${c.notNull ? ' NOT NULL' : ''}`),
          `${t.name}: types and NOT NULLs`,
        );
      }
    }
  } finally {
    ts.dispose();
  }
});

test('docs/architecture.md and the README list the tables as declared', () => {
  for (const d of TABLE_DOCS) {
    const text = readFileSync(join(ROOT, d.file), 'utf8');
    assert.equal(withTable(d.file, text, d.header, d.render()), text, `${d.file} lists the tables otherwise than node/engine/store/tables.ts: run node --import tsx scripts/tables-doc.ts`);
  }
});

test('insert statements name the declared columns in order and refuse a column the table lacks', () => {
  assert.equal(insertSql('samples', { or: 'REPLACE', rows: 2 }), 'INSERT OR REPLACE INTO samples (series_id, ts_ms, value) VALUES (?,?,?),(?,?,?)');
  assert.equal(insertSql('stacks', { columns: ['hash', 'frames_json'] }), 'INSERT INTO stacks (hash, frames_json) VALUES (?,?)');
  assert.throws(() => insertSql('spans', { columns: ['span_id', 'duration'] }), /spans has no column duration/);
  assert.equal(insertSelectSql('kernels', { incident_id: '?', name: "'k'" }, 'FROM ext.t'), "INSERT INTO kernels (incident_id, name) SELECT ?, 'k' FROM ext.t");
  assert.throws(() => insertSelectSql('kernels', { grid: '1' }, 'FROM ext.t'), /kernels has no column grid/);
});
