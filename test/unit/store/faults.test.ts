// Faults as the store meets them: a transaction SQLite already rolled back (what a full disk does), a
// database that is full, output that amplifies its input, incidents left by a killed import, and "the
// newest incident" when the newest import kept nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { importFiles, tempStore } from '../../helpers/import-file';
import type { Importer } from '../../../node/engine/importers/types';
import { IN_PROGRESS_KEY, Store } from '../../../node/engine/store/store';
import { OUTPUT_ROWS_BASE } from '../../../node/engine/store/source-writer';
import { storeSql, storeWriter } from '../../helpers/store-sql';

const pragmas = (s: Store) => ({ fk: storeWriter(s).pragma('foreign_keys', { simple: true }), autocheckpoint: storeWriter(s).pragma('wal_autocheckpoint', { simple: true }), inTx: storeWriter(s).inTransaction });

/** An importer that writes some rows, then has its transaction ended under it (as SQLITE_FULL/IOERR do) and fails. */
function rolledBackUnder(store: Store): Importer {
  return {
    format: 'prometheus-text',
    detect: (_head, name) => (name.endsWith('.boom') ? 1 : 0),
    async import(_input, sink) {
      const s = sink.series({ name: 'x' });
      for (let i = 0; i < 1000; i++) sink.sample(s, 1_700_000_000_000 + i, i);
      storeWriter(store).exec('ROLLBACK');
      throw Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR_WRITE' });
    },
  };
}

const plain: Importer = {
  format: 'prometheus-text',
  detect: (_head, name) => (name.endsWith('.ok') ? 1 : 0),
  async import(_input, sink) {
    sink.sample(sink.series({ name: 'y' }), 1_700_000_000_000, 1);
  },
};

test('a source whose transaction SQLite already rolled back fails with its own error, not "cannot rollback"; pragmas restored; the next file imports', async () => {
  const t = tempStore();
  try {
    writeFileSync(join(t.dir, 'a.boom'), 'x');
    writeFileSync(join(t.dir, 'b.ok'), 'y');
    const r = await importFiles(t.store, [join(t.dir, 'a.boom'), join(t.dir, 'b.ok')], { importers: [rolledBackUnder(t.store), plain] });
    assert.deepEqual(r.sources.map((s) => s.status), ['failed', 'ok']);
    assert.match(r.sources[0].error ?? '', /^a\.boom: writing the workspace database failed \(SQLITE_IOERR_WRITE: disk I\/O error\)/);
    assert.deepEqual(pragmas(t.store), { fk: 1, autocheckpoint: 1000, inTx: false });
    assert.equal(storeSql(t.store).prepare('SELECT COUNT(*) FROM samples').pluck().get(), 1);
    assert.equal(storeSql(t.store).pragma('integrity_check', { simple: true }), 'ok');
  } finally {
    t.dispose();
  }
});

test('a full database: each file fails saying the disk is full, nothing partial stays, pragmas restored', async () => {
  const t = tempStore();
  try {
    const lines = ['# TYPE m gauge'];
    for (let i = 0; i < 60_000; i++) lines.push(`m{k="${i % 40}"} ${i % 7} ${1_700_000_000_000 + i * 1000}`);
    writeFileSync(join(t.dir, 'a.prom'), lines.join('\n') + '\n');
    writeFileSync(join(t.dir, 'b.prom'), lines.join('\n') + '\n');
    // Room for a few dozen pages past the empty workspace: each file needs hundreds (60 k samples).
    const w = storeWriter(t.store);
    w.pragma(`max_page_count = ${(w.pragma('page_count', { simple: true }) as number) + 50}`);
    const r = await importFiles(t.store, [join(t.dir, 'a.prom'), join(t.dir, 'b.prom')]);
    for (const s of r.sources) {
      assert.equal(s.status, 'failed');
      assert.match(s.error ?? '', new RegExp(`^${s.path.replace('.', '\\.')}: the disk holding the workspace database is full`));
    }
    assert.deepEqual(pragmas(t.store), { fk: 1, autocheckpoint: 1000, inTx: false });
    assert.equal(storeSql(t.store).prepare('SELECT COUNT(*) FROM samples').pluck().get(), 0);
    assert.equal(storeSql(t.store).pragma('integrity_check', { simple: true }), 'ok');
  } finally {
    t.dispose();
  }
});

test('a source that writes more rows than its input can account for fails, naming the file and byte', async () => {
  const t = tempStore();
  try {
    const amplifier: Importer = {
      format: 'prometheus-text',
      detect: () => 1,
      async import(input, sink) {
        for await (const _ of input.stream()) void _;
        const s = sink.series({ name: 'z' });
        for (let i = 0; i < OUTPUT_ROWS_BASE + 100; i++) sink.sample(s, i, 1);
      },
    };
    writeFileSync(join(t.dir, 'tiny.prom'), 'tiny input');
    const r = await importFiles(t.store, [join(t.dir, 'tiny.prom')], { importers: [amplifier] });
    assert.equal(r.sources[0].status, 'failed');
    assert.match(r.sources[0].error ?? '', /^tiny\.prom \(byte 10\): wrote more than 100,010 rows \(at most 100,000 \+ 1 per input byte\) from 10 bytes of input: refused as amplifying input/);
    assert.equal(storeSql(t.store).prepare('SELECT COUNT(*) FROM samples').pluck().get(), 0);
  } finally {
    t.dispose();
  }
});

test('"the newest incident" is the newest holding data; an import that failed whole is passed over', async () => {
  const t = tempStore();
  try {
    writeFileSync(join(t.dir, 'b.ok'), 'y');
    writeFileSync(join(t.dir, 'a.boom'), 'x');
    const good = await importFiles(t.store, [join(t.dir, 'b.ok')], { importers: [plain] });
    const bad = await importFiles(t.store, [join(t.dir, 'a.boom')], { importers: [rolledBackUnder(t.store)] });
    assert.ok(bad.incident_id > good.incident_id);
    assert.equal(t.store.listIncidents()[0].id, bad.incident_id);
    assert.equal(t.store.newestIncident()?.id, good.incident_id);
    assert.equal(t.store.hasData(bad.incident_id), false);
    // The failed import's marks are cleared all the same (the import ended, it was not killed).
    assert.equal(storeSql(t.store).prepare(`SELECT COUNT(*) FROM incidents WHERE meta_json LIKE '%${IN_PROGRESS_KEY}%'`).pluck().get(), 0);
  } finally {
    t.dispose();
  }
});

test('incidents a dead process left in progress are swept at the next open: dropped when empty, unmarked when they hold data', async () => {
  const t = tempStore();
  const file = t.store.file;
  try {
    const { hostname } = await import('node:os');
    const deadPid = 2 ** 22 + 12345; // above pid_max: never a live process
    const mark = (extra: Record<string, unknown> = {}) => JSON.stringify({ ...extra, [IN_PROGRESS_KEY]: { pid: deadPid, host: hostname(), started_ms: 1 } });
    const w = storeWriter(t.store);
    const empty = Number(w.prepare("INSERT INTO incidents (name, created_ms, source, meta_json) VALUES ('killed', 1, 'import', ?)").run(mark()).lastInsertRowid);
    const partial = Number(w.prepare("INSERT INTO incidents (name, created_ms, source, meta_json) VALUES ('half', 2, 'import', ?)").run(mark({ keep: 1 })).lastInsertRowid);
    w.prepare("INSERT INTO sources (incident_id, path, format, rows, status) VALUES (?, 'a.prom', 'prometheus-text', 5, 'ok')").run(partial);
    const alive = Number(w.prepare("INSERT INTO incidents (name, created_ms, source, meta_json) VALUES ('running', 3, 'import', ?)").run(JSON.stringify({ [IN_PROGRESS_KEY]: { pid: process.pid, host: hostname() } })).lastInsertRowid);
    const other = Number(w.prepare("INSERT INTO incidents (name, created_ms, source, meta_json) VALUES ('elsewhere', 4, 'import', ?)").run(JSON.stringify({ [IN_PROGRESS_KEY]: { pid: deadPid, host: 'another-host' } })).lastInsertRowid);
    t.store.close();

    const again = new Store(file);
    t.store = again;
    const ids = again.listIncidents().map((i) => i.id).sort();
    assert.deepEqual(ids, [partial, alive, other].sort(), 'the empty one is gone; the live one and another host\'s stay');
    assert.deepEqual(again.incidentMeta(partial), { keep: 1 });
    assert.ok(again.incidentMeta(alive)[IN_PROGRESS_KEY]);
    assert.ok(!ids.includes(empty));
  } finally {
    t.dispose();
  }
});
