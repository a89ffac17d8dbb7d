import { test } from 'node:test';
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { Checkpointer } from '../../../node/engine/store/checkpointer';
import { tempStore } from '../../helpers/import-file';
import { storeSql, storeWriter } from '../../helpers/store-sql';

const T = Date.UTC(2026, 0, 1);

/** Writes `n` samples in one source and commits it. */
function importSamples(ts: ReturnType<typeof tempStore>, inc: number, n: number): number {
  const w = ts.store.beginSource(inc, { path: 'big', format: 'prometheus-text', bytes: 0 });
  const id = w.series({ name: 'tokens.generated', kind: 'counter' });
  for (let i = 0; i < n; i++) w.sample(id, T + i * 1000, i);
  w.commit([]);
  return id;
}

test('a large source is committed without its checkpoint; the checkpointer thread folds the WAL into the file', async () => {
  const ts = tempStore();
  try {
    const inc = ts.store.createIncident('c');
    const id = importSamples(ts, inc, 400_000);
    // The rows are visible at once, from the reader connection.
    assert.equal(storeSql(ts.store).prepare('SELECT COUNT(*) FROM samples WHERE series_id = ?').pluck().get(id), 400_000);
    await ts.store.checkpointsSettled();
    // Checkpointed: the database file now holds the pages (> 4 MB), and a new checkpoint has nothing left to copy.
    assert.ok(statSync(ts.store.file).size > 4_000_000, `db file ${statSync(ts.store.file).size} bytes`);
    const [row] = storeSql(ts.store).pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
    assert.equal(row.busy, 0);
    assert.equal(row.checkpointed, row.log);
  } finally {
    ts.dispose();
  }
});

test('foreign keys and auto-checkpoint are back on once a source commits or rolls back, and cascades still work', () => {
  const ts = tempStore();
  try {
    const inc = ts.store.createIncident('c');
    const w = ts.store.beginSource(inc, { path: 'a', format: 'prometheus-text', bytes: 0 });
    assert.equal(storeWriter(ts.store).pragma('foreign_keys', { simple: true }), 0);
    w.sample(w.series({ name: 'x' }), T, 1);
    w.rollback();
    assert.equal(storeWriter(ts.store).pragma('foreign_keys', { simple: true }), 1);
    assert.equal(storeWriter(ts.store).pragma('wal_autocheckpoint', { simple: true }), 1000);
    importSamples(ts, inc, 1000);
    assert.equal(storeWriter(ts.store).pragma('foreign_keys', { simple: true }), 1);
    assert.equal(storeWriter(ts.store).pragma('wal_autocheckpoint', { simple: true }), 1000);
    // An orphan insert is refused again, and deleting the incident cascades to its samples.
    assert.throws(() => storeWriter(ts.store).prepare('INSERT INTO samples (series_id, ts_ms, value) VALUES (999999, 0, 0)').run(), /FOREIGN KEY/);
    storeWriter(ts.store).prepare('DELETE FROM incidents WHERE id = ?').run(inc);
    assert.equal(storeSql(ts.store).prepare('SELECT COUNT(*) FROM samples').pluck().get(), 0);
  } finally {
    ts.dispose();
  }
});

test('a checkpointer whose worker dies answers at once from then on, and says why', async () => {
  const c = new Checkpointer('/nonexistent/quadscope/workspace.db');
  c.request();
  await c.settled();
  assert.match(c.lastError ?? '', /unable to open|exist|directory/i);
  c.request(); // ignored: nothing left to run it
  await c.settled();
  await c.close();
});

test("once the checkpointer thread runs, the writer's own auto-checkpoint is off: the small commits after an import do not copy its WAL on this thread", async () => {
  const ts = tempStore();
  try {
    const inc = ts.store.createIncident('c');
    importSamples(ts, inc, 400_000);
    // SQLite's auto-checkpoint would fold the whole WAL back inside the next small commit (the incident's span).
    assert.equal(storeWriter(ts.store).pragma('wal_autocheckpoint', { simple: true }), 0);
    ts.store.refreshIncidentSpan(inc);
    await ts.store.checkpointsSettled();
    // The next source's commit leaves it off too, and the checkpointer still folds everything back.
    importSamples(ts, inc, 1000);
    assert.equal(storeWriter(ts.store).pragma('wal_autocheckpoint', { simple: true }), 0);
    await ts.store.checkpointNow();
    const [row] = storeSql(ts.store).pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
    assert.equal(row.checkpointed, row.log);
  } finally {
    ts.dispose();
  }
});
