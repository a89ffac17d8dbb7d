import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { corpusFile, skipUnlessCorpus } from '../../helpers/corpus';
import { importFiles, tempStore } from '../../helpers/import-file';
import { nsysSqliteImporter } from '../../../node/engine/importers/nsys-sqlite';
import { storeSql } from '../../helpers/store-sql';

const REL = 'nsys_sqlite/pipit_saxpy_mpi_cuda_nsys2022.2_MODIFIED.sqlite.gz';
const MEM = 'CUDA_GPU_MEMORY_USAGE_EVENTS';

// The 2022 export has the memory table (empty: it was not captured with --cuda-memory-usage) and real
// cudaMalloc/cudaFree calls with their correlationIds. Memory events are added for those calls, in the
// file's own table, and everything expected is read back from the export with plain SQL.
test('corpus nsys export: each allocation keeps its correlationId, which joins to its runtime call and the next kernels', { skip: skipUnlessCorpus(REL) }, async () => {
  const t = tempStore();
  try {
    const file = join(t.dir, 'saxpy.sqlite');
    writeFileSync(file, gunzipSync(readFileSync(corpusFile(REL)!)));
    const ext = new Database(file);
    ext.defaultSafeIntegers(true);
    const calls = (like: string) =>
      ext.prepare(`SELECT r.start, r.correlationId AS corr, r.globalTid FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId WHERE s.value = ? ORDER BY r.start`).all(like) as { start: bigint; corr: bigint; globalTid: bigint }[];
    const mallocs = calls('cudaMalloc_v3020');
    const frees = calls('cudaFree_v3020');
    assert.equal(mallocs.length, 15);
    assert.equal(frees.length, 3);
    const insert = ext.prepare(`INSERT INTO ${MEM} (start, globalPid, deviceId, contextId, address, pc, bytes, memKind, memoryOperationType, name, correlationId) VALUES (?, ?, 0, 1, ?, 0, ?, 2, ?, NULL, ?)`); // memKind 2: device memory, as cudaMalloc makes
    const addr = (i: number) => 0x7f0000000000n + BigInt(i) * 0x100000n;
    mallocs.forEach((c, i) => insert.run(c.start + 10n, (c.globalTid >> 24n) << 24n, addr(i), BigInt((i + 1) * 4096), 0, c.corr));
    // The three frees release the first three buffers; one more allocation has no correlationId.
    frees.forEach((c, i) => insert.run(c.start + 10n, (c.globalTid >> 24n) << 24n, addr(i), BigInt((i + 1) * 4096), 1, c.corr));
    insert.run(frees[2].start + 100n, 0n, addr(99), 64n, 0, null);

    const base = ext.prepare('SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME').pluck().get() as bigint;
    const expected = ext
      .prepare(
        `SELECT m.deviceId AS device, printf('0x%x', m.address) AS addr, m.bytes AS size, m.start + ? AS alloc_ns,
                (SELECT MIN(f.start) FROM ${MEM} f WHERE f.memoryOperationType = 1 AND f.deviceId = m.deviceId AND f.address = m.address AND f.start > m.start) + ? AS free_ns,
                m.correlationId AS corr
           FROM ${MEM} m WHERE m.memoryOperationType = 0 ORDER BY m.start`,
      )
      .all(base, base) as { device: bigint; addr: string; size: bigint; alloc_ns: bigint; free_ns: bigint | null; corr: bigint | null }[];
    const callNames = ext.prepare('SELECT s.value FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId WHERE r.correlationId = ? ORDER BY s.value').pluck();
    const nextKernel = ext.prepare('SELECT s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.demangledName WHERE k.correlationId > ? ORDER BY k.correlationId LIMIT 1').pluck();
    const joins = expected.filter((e) => e.corr !== null).map((e) => ({ corr: e.corr!, calls: callNames.all(e.corr) as string[], next: nextKernel.get(e.corr) as string | undefined }));
    ext.close();

    const r = await importFiles(t.store, [file], { importers: [nsysSqliteImporter] });
    assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
    const db = storeSql(t.store);
    const rows = db.prepare('SELECT device, addr, size, alloc_ns, free_ns, source, correlation_id AS corr FROM allocations ORDER BY alloc_ns').safeIntegers().all() as { device: bigint; addr: string; size: bigint; alloc_ns: bigint; free_ns: bigint | null; source: string; corr: bigint | null }[];
    assert.deepEqual(
      rows,
      expected.map((e) => ({ device: e.device, addr: e.addr, size: e.size, alloc_ns: e.alloc_ns, free_ns: e.free_ns, source: 'nsys', corr: e.corr })),
    );
    assert.equal(rows.length, 16);
    assert.equal(rows.filter((x) => x.free_ns !== null).length, 3);

    // The join a user writes: allocation → runtime call (span_id) → the kernels launched after it.
    const viaSql = db
      .prepare(
        `SELECT a.correlation_id AS corr,
                (SELECT json_group_array(name) FROM (SELECT s.name FROM spans s WHERE s.source_id = a.source_id AND s.span_id = 'c' || a.correlation_id ORDER BY s.name)) AS calls,
                (SELECT k.name FROM kernels k WHERE k.source_id = a.source_id AND json_extract(k.attrs_json, '$.kind') = 'kernel'
                   AND k.correlation_id > a.correlation_id ORDER BY k.correlation_id LIMIT 1) AS next
           FROM allocations a WHERE a.correlation_id IS NOT NULL ORDER BY a.alloc_ns`,
      )
      .safeIntegers()
      .all() as { corr: bigint; calls: string; next: string | null }[];
    assert.deepEqual(
      viaSql.map((x) => ({ corr: x.corr, calls: JSON.parse(x.calls) as string[], next: x.next ?? undefined })),
      joins,
    );
    // Every call found is the malloc pair (the API wrapper and the _v3020 entry point) with that id.
    assert.ok(joins.every((j) => j.calls.length === 2 && j.calls.includes('cudaMalloc_v3020')));
    // Each group of three mallocs is followed by one saxpy launch (correlationIds 140, 156, … 204).
    assert.deepEqual([...new Set(joins.map((j) => j.next))], ['saxpy(double *, double *, double *, double, int)']);
  } finally {
    t.dispose();
  }
});
