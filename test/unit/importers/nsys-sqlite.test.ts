import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { corpusFile, skipUnlessCorpus } from '../../helpers/corpus';
import { importFiles, tempStore } from '../../helpers/import-file';
import { nsysRepImporter, nsysSqliteImporter } from '../../../node/engine/importers/nsys-sqlite';
import { detectImporter } from '../../../node/engine/importers/registry';
import { storeSql } from '../../helpers/store-sql';
import { NSYS_DDL } from '../../helpers/nsys-export';

const importers = [nsysSqliteImporter, nsysRepImporter];
const FILES = ['nsys_sqlite/pipit_perlmutter_cloverleaf_cuda_nsys2024.5.sqlite.gz', 'nsys_sqlite/pipit_saxpy_mpi_cuda_nsys2022.2_MODIFIED.sqlite.gz'];

for (const rel of FILES) {
  test(`corpus ${rel}: counts and times match direct SQL over the export`, { skip: skipUnlessCorpus(rel) }, async () => {
    const t = tempStore();
    try {
      const plain = join(t.dir, 'export.sqlite');
      writeFileSync(plain, gunzipSync(readFileSync(corpusFile(rel)!)));
      const ext = new Database(plain, { readonly: true });
      const one = (sql: string) => ext.prepare(sql).pluck().safeIntegers().get() as bigint;
      const has = (tb: string) => !!ext.prepare('SELECT 1 FROM sqlite_master WHERE name = ?').get(tb);
      const n = (tb: string) => (has(tb) ? Number(one(`SELECT COUNT(*) FROM ${tb}`)) : 0);
      const base = one('SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME');
      const kernels = n('CUPTI_ACTIVITY_KIND_KERNEL');
      const copies = n('CUPTI_ACTIVITY_KIND_MEMCPY') + n('CUPTI_ACTIVITY_KIND_MEMSET');
      const runtime = n('CUPTI_ACTIVITY_KIND_RUNTIME');
      const nvtx = has('NVTX_EVENTS') ? Number(one('SELECT COUNT(*) FROM NVTX_EVENTS WHERE eventType IN (34, 59, 60)')) : 0;
      const first = ext.prepare('SELECT k.start, k."end", s.value AS name FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.demangledName ORDER BY k.start LIMIT 1').safeIntegers().get() as { start: bigint; end: bigint; name: string };
      const gpus = ext.prepare('SELECT id, totalMemory FROM TARGET_INFO_GPU ORDER BY id').all() as { id: number; totalMemory: number }[];
      ext.close();

      const r = await importFiles(t.store, [corpusFile(rel)!], { importers });
      assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
      assert.equal(r.sources[0].format, 'nsys-sqlite');
      const db = storeSql(t.store);
      assert.equal(db.prepare("SELECT COUNT(*) FROM kernels WHERE json_extract(attrs_json, '$.kind') = 'kernel'").pluck().get(), kernels);
      assert.equal(db.prepare("SELECT COUNT(*) FROM kernels WHERE json_extract(attrs_json, '$.kind') IN ('memcpy', 'memset')").pluck().get(), copies);
      assert.equal(db.prepare("SELECT COUNT(*) FROM spans WHERE json_extract(attrs_json, '$.cat') = 'cuda_runtime'").pluck().get(), runtime);
      assert.equal(db.prepare("SELECT COUNT(*) FROM spans WHERE json_extract(attrs_json, '$.cat') = 'nvtx'").pluck().get(), nvtx);
      const k = db.prepare("SELECT name, start_ns, end_ns FROM kernels WHERE json_extract(attrs_json, '$.kind') = 'kernel' ORDER BY start_ns LIMIT 1").safeIntegers().get() as { name: string; start_ns: bigint; end_ns: bigint };
      assert.equal(k.name, first.name);
      assert.equal(k.start_ns, first.start + base);
      assert.equal(k.end_ns - k.start_ns, first.end - first.start);
      const totals = db.prepare("SELECT json_extract(labels_json, '$.gpu') AS gpu, MAX(value) AS v FROM series JOIN samples ON series_id = id WHERE name = 'gpu.mem.total' GROUP BY 1 ORDER BY CAST(gpu AS INTEGER)").all() as { gpu: string; v: number }[];
      assert.deepEqual(totals, gpus.map((g) => ({ gpu: String(g.id), v: g.totalMemory })));
      // Launch links: every kernel with a correlation finds its runtime call.
      const unlinked = db.prepare("SELECT COUNT(*) FROM kernels k WHERE k.correlation_id IS NOT NULL AND json_extract(k.attrs_json, '$.kind') = 'kernel' AND NOT EXISTS (SELECT 1 FROM spans s WHERE s.span_id = json_extract(k.attrs_json, '$.launch_span_id'))").pluck().get();
      assert.equal(unlinked, 0);
    } finally {
      t.dispose();
    }
  });
}

test('the 2022 export with its extra ALTER TABLE columns names runtime calls from StringIds', { skip: skipUnlessCorpus(FILES[1]) }, async () => {
  const t = tempStore();
  try {
    const r = await importFiles(t.store, [corpusFile(FILES[1])!], { importers });
    assert.equal(r.sources[0].status, 'ok');
    // Counts read from the file with the sqlite3 CLI (runtime rows joined to StringIds by nameId).
    const names = storeSql(t.store).prepare("SELECT name, COUNT(*) AS n FROM spans WHERE name LIKE 'cudaMalloc%' GROUP BY name ORDER BY name").all();
    assert.deepEqual(names, [{ name: 'cudaMalloc', n: 15 }, { name: 'cudaMalloc_v3020', n: 15 }]);
  } finally {
    t.dispose();
  }
});

function syntheticExport(file: string, withMemory: boolean, withStart = true): void {
  const db = new Database(file);
  db.exec(`
    ${NSYS_DDL.strings};
    ${NSYS_DDL.someStrings};
    ${withStart ? `${NSYS_DDL.session}; INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (1700000000000000001, '', '');` : ''}
    ${NSYS_DDL.runtime};
    INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (100, 200, 0, ${(42 << 24) + 7}, 10, 1, 0), (300, 350, 0, ${(42 << 24) + 7}, 11, 2, 0), (900, 950, 0, ${(42 << 24) + 7}, 12, 5, 0);
    ${NSYS_DDL.kernel};
    INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (400, 800, 0, 1, 7, 11, ${42 << 24}, 3, 4, 8, 1, 1, 256, 1, 1, 64);
  `);
  if (withMemory) {
    db.exec(`
      ${NSYS_DDL.memory};
      INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS VALUES (150, ${42 << 24}, 0, 1, 140000000000000, 0, 1048576, 2, 0, 10), (920, ${42 << 24}, 0, 1, 140000000000000, 0, 1048576, 2, 1, 12),
        (160, ${42 << 24}, 0, 1, 140000002000000, 0, 4096, 2, 0, 10);
    `);
  }
  db.close();
}

test('synthetic export: memory events become allocations joined to the call and the next kernel', async () => {
  const t = tempStore();
  try {
    const file = join(t.dir, 'mem.sqlite');
    syntheticExport(file, true);
    const r = await importFiles(t.store, [file], { importers });
    assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? 'no error');
    const rows = storeSql(t.store).prepare('SELECT a.addr, a.size, a.alloc_ns, a.free_ns, s.frames_json FROM allocations a LEFT JOIN stacks s ON s.id = a.stack_id ORDER BY a.alloc_ns').safeIntegers().all() as { addr: string; size: bigint; alloc_ns: bigint; free_ns: bigint | null; frames_json: string }[];
    const base = 1700000000000000001n;
    assert.deepEqual(rows.map((x) => [x.addr, x.size, x.alloc_ns - base, x.free_ns === null ? null : x.free_ns - base, JSON.parse(x.frames_json)]), [
      [`0x${(140000000000000).toString(16)}`, 1048576n, 150n, 920n, ['cudaMalloc_v3020', 'next kernel: gemm']],
      [`0x${(140000002000000).toString(16)}`, 4096n, 160n, null, ['cudaMalloc_v3020', 'next kernel: gemm']],
    ]);
    assert.deepEqual(t.store.allocationSites(r.incident_id).map((s) => [s.frames, s.live_bytes]), [[['cudaMalloc_v3020', 'next kernel: gemm'], 4096]]);
    const span = storeSql(t.store).prepare("SELECT trace_id, span_id FROM spans WHERE name = 'cudaLaunchKernel_v7000'").get();
    assert.deepEqual(span, { trace_id: 'nsys:42', span_id: 'c11' });
  } finally {
    t.dispose();
  }
});

test('an export without CUDA or NVTX tables fails clearly and imports nothing', async () => {
  const t = tempStore();
  try {
    const file = join(t.dir, 'empty.sqlite');
    const db = new Database(file);
    db.exec("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL); CREATE TABLE TARGET_INFO_GPU (vmId INTEGER, id INTEGER, name TEXT, totalMemory INTEGER); INSERT INTO TARGET_INFO_GPU VALUES (0, 0, 'X', 1)");
    db.close();
    const r = await importFiles(t.store, [file], { importers });
    assert.equal(r.sources[0].status, 'failed');
    assert.match(r.sources[0].error!, /empty\.sqlite \(key sqlite_master\): no CUDA or NVTX tables/);
    assert.equal(storeSql(t.store).prepare('SELECT COUNT(*) FROM series').pluck().get(), 0);
  } finally {
    t.dispose();
  }
});

test('a .nsys-rep report gets the export command', async () => {
  const t = tempStore();
  try {
    const file = join(t.dir, 'run.nsys-rep');
    writeFileSync(file, Buffer.from('\x00\x01not sqlite, a QDSTRM-ish binary report'));
    const r = await importFiles(t.store, [file], { importers });
    assert.equal(r.sources[0].status, 'failed');
    assert.equal(r.sources[0].format, 'nsys-rep');
    assert.match(r.sources[0].error!, /nsys export --type sqlite/);
  } finally {
    t.dispose();
  }
});

test('detects exports from the head, not plain SQLite files', { skip: skipUnlessCorpus(FILES[0]) }, () => {
  const head = gunzipSync(readFileSync(corpusFile(FILES[0])!)).subarray(0, 65536);
  assert.equal(detectImporter(head, 'x.sqlite', importers)?.format, 'nsys-sqlite');
  const plain = Buffer.concat([Buffer.from('SQLite format 3\u0000'), Buffer.alloc(200)]);
  assert.equal(detectImporter(plain, 'x.sqlite', importers), null);
});

test('an export with no session start: the capture is placed to end at the file\'s mtime (warned), never at 1970, and year-less logs beside it keep their year', async () => {
  const t = tempStore();
  try {
    const file = join(t.dir, 'nostart.sqlite');
    syntheticExport(file, false, false);
    const mtime = Date.UTC(2025, 4, 12, 8, 0, 0);
    utimesSync(file, mtime / 1000, mtime / 1000);
    const log = join(t.dir, 'vllm.log');
    writeFileSync(log, 'INFO 05-12 07:59:00 [loggers.py:123] Engine 000: Avg prompt throughput: 1.0 tokens/s, Avg generation throughput: 2.0 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 10.0%, Prefix cache hit rate: 0.0%\n');
    const r = await importFiles(t.store, [file, log]);
    assert.deepEqual(r.sources.map((x) => x.status), ['ok', 'ok']);
    const db = storeSql(t.store);
    const [lo, hi] = db.prepare('SELECT MIN(start_ns), MAX(end_ns) FROM (SELECT start_ns, end_ns FROM kernels UNION ALL SELECT start_ns, end_ns FROM spans)').raw().safeIntegers().get() as [bigint, bigint];
    const end = BigInt(mtime) * 1_000_000n;
    // The relative times keep their spacing (100 … 950 ns), the last end at the mtime.
    assert.deepEqual([lo - end, hi - end], [-850n, 0n]);
    assert.match(db.prepare("SELECT warnings_json FROM sources WHERE path = 'nostart.sqlite'").pluck().get() as string, /no session start time.*placed at/);
    // The log's year is the export's (the bundle's time), not its own file's (written now).
    assert.equal(new Date(db.prepare('SELECT MIN(ts_ms) FROM samples').pluck().get() as number).getUTCFullYear(), 2025);
  } finally {
    t.dispose();
  }
});

test('an export without StringIds says its names are placeholders', async () => {
  const t = tempStore();
  try {
    const file = join(t.dir, 'nostrings.sqlite');
    syntheticExport(file, false);
    const db = new Database(file);
    db.exec('DROP TABLE StringIds');
    db.close();
    const r = await importFiles(t.store, [file], { importers });
    assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
    assert.match(storeSql(t.store).prepare('SELECT warnings_json FROM sources').pluck().get() as string, /\(key StringIds\): no StringIds table: kernel, CUDA call and NVTX names cannot be resolved/);
  } finally {
    t.dispose();
  }
});

test("a GPU is named by its CUDA device number (nsys' own id may run in another order, older exports call it deviceId); host memory events are not the GPU's; __device__ globals and unified-memory migrations say what they are", async () => {
  const t = tempStore();
  try {
    const file = join(t.dir, 'kinds.sqlite');
    const db = new Database(file);
    const pid = 42 << 24;
    db.exec(`
      ${NSYS_DDL.strings}; ${NSYS_DDL.someStrings};
      ${NSYS_DDL.session}; INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (1700000000000000001, '', '');
      ${NSYS_DDL.runtime};
      INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (100, 200, 0, ${pid + 7}, 10, 1, 0), (300, 350, 0, ${pid + 7}, 11, 2, 0);
      ${NSYS_DDL.kernel};
      INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (400, 800, 0, 1, 7, 11, ${pid}, 3, 4, 8, 1, 1, 256, 1, 1, 64);
      ${NSYS_DDL.memory};
      INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS VALUES
        (150, ${pid}, 0, 1, 140000000000000, 0, 1048576, 2, 0, 10),
        (160, ${pid}, 0, 1, 140100000000000, 0, 85899345920, 1, 0, 10),
        (50, ${pid}, 0, 1, 140200000000000, 0, 144, 5, 0, 0);
      CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT, busLocation TEXT, totalMemory INTEGER, cuDevice INTEGER);
      INSERT INTO TARGET_INFO_GPU VALUES (0, 0, 'NVIDIA A40', '0000:c1:00.0', 48305799168, 1), (0, 1, 'NVIDIA A100-SXM4-40GB', '0000:81:00.0', 42505273344, 0);
      CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, srcKind INTEGER, dstKind INTEGER, migrationCause INTEGER, virtualAddress INTEGER);
      INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (500, 520, 0, 1, 0, 0, ${pid}, 65536, 11, 7, 7, 1, 140000000000000), (600, 610, 0, 1, 7, 11, ${pid}, 4096, 1, 0, 2, NULL, NULL);
    `);
    db.close();
    const r = await importFiles(t.store, [file], { importers });
    assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
    const s = storeSql(t.store);
    // GPU 0 is the A100 (cuDevice 0), whatever nsys numbered it.
    assert.deepEqual(s.prepare("SELECT json_extract(attrs_json, '$.gpu') AS gpu, json_extract(attrs_json, '$.busLocation') AS bus, json_extract(attrs_json, '$.nsys_id') AS nsys FROM events WHERE kind = 'gpu_info' ORDER BY gpu").all(), [
      { gpu: 0, bus: '0000:81:00.0', nsys: 1 },
      { gpu: 1, bus: '0000:c1:00.0', nsys: 0 },
    ]);
    assert.deepEqual(s.prepare("SELECT json_extract(labels_json, '$.gpu') AS gpu, MAX(value) AS v FROM series JOIN samples ON series_id = id WHERE name = 'gpu.mem.total' GROUP BY 1 ORDER BY 1").all(), [
      { gpu: '0', v: 42505273344 },
      { gpu: '1', v: 48305799168 },
    ]);
    // The 80 GiB of pinned host memory is left out, said; the module's globals carry their own frame.
    const allocs = s.prepare('SELECT a.size, st.frames_json FROM allocations a LEFT JOIN stacks st ON st.id = a.stack_id ORDER BY a.alloc_ns').all() as { size: number; frames_json: string }[];
    assert.deepEqual(allocs.map((a) => [a.size, JSON.parse(a.frames_json)]), [
      [144, ['(__device__ globals: a module loaded)']],
      [1048576, ['cudaMalloc_v3020', 'next kernel: gemm']],
    ]);
    const warnings = JSON.parse(s.prepare('SELECT warnings_json FROM sources').pluck().get() as string) as string[];
    assert.match(warnings.join('\n'), /1 memory events of pinned or pageable host memory \(80\.00 GiB allocated\) are not GPU memory/);
    // A page migration is named so and launched by no call; a copy keeps its call.
    const copies = s.prepare("SELECT name, json_extract(attrs_json, '$.launch_span_id') AS launch, json_extract(attrs_json, '$.unified') AS unified, json_extract(attrs_json, '$.virtual_address') AS va FROM kernels WHERE json_extract(attrs_json, '$.kind') = 'memcpy' ORDER BY start_ns").all();
    assert.deepEqual(copies, [
      { name: 'Unified memory HtoD migration', launch: null, unified: 1, va: `0x${(140000000000000).toString(16)}` },
      { name: 'Memcpy HtoD', launch: 'c11', unified: null, va: null },
    ]);
  } finally {
    t.dispose();
  }
  // An export from before 2021: its GPU table's number is `deviceId`.
  const t2 = tempStore();
  try {
    const file = join(t2.dir, 'old.sqlite');
    syntheticExport(file, false);
    const db = new Database(file);
    db.exec("CREATE TABLE TARGET_INFO_GPU (deviceId INTEGER NOT NULL, name TEXT, totalMemory INTEGER); INSERT INTO TARGET_INFO_GPU VALUES (0, 'Tesla V100-SXM2-32GB', 34089730048);");
    db.close();
    const r = await importFiles(t2.store, [file], { importers });
    assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
    assert.deepEqual(storeSql(t2.store).prepare("SELECT text FROM events WHERE kind = 'gpu_info'").pluck().all(), ['GPU 0: Tesla V100-SXM2-32GB, 31.7 GiB']);
  } finally {
    t2.dispose();
  }
});

test('activity tables the reader does not take are named in a warning with their size; launches without a kernel table are said', async () => {
  const t = tempStore();
  try {
    const file = join(t.dir, 'osrt.sqlite');
    const db = new Database(file);
    db.exec(`
      ${NSYS_DDL.strings}; ${NSYS_DDL.someStrings};
      ${NSYS_DDL.session}; INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (1700000000000000001, '', '');
      ${NSYS_DDL.runtime};
      INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (300, 350, 0, ${(42 << 24) + 7}, 11, 2, 0), (400, 450, 0, ${(42 << 24) + 7}, 12, 2, 0);
      CREATE TABLE OSRT_API (start INTEGER NOT NULL, end INTEGER, eventClass INTEGER, globalTid INTEGER, nameId INTEGER);
      INSERT INTO OSRT_API VALUES (1, 2, 27, 1, 1), (3, 4, 27, 1, 1), (5, 6, 27, 1, 1);
      CREATE TABLE GPU_METRICS (timestamp INTEGER, typeId INTEGER, metricId INTEGER, value INTEGER);
    `);
    db.close();
    const r = await importFiles(t.store, [file], { importers });
    assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
    const warnings = (JSON.parse(storeSql(t.store).prepare('SELECT warnings_json FROM sources').pluck().get() as string) as string[]).join('\n');
    assert.match(warnings, /not read: OSRT_API \(OS runtime calls, ~3 rows\)$/m, 'an empty GPU_METRICS is not named');
    assert.match(warnings, /2 kernel launches but no kernel activity table/);
  } finally {
    t.dispose();
  }
});

test('review: a GPU row without its CUDA number takes nsys\' own, memory events without a kind are kept, a WITHOUT ROWID table only advised on', async () => {
  const t = tempStore();
  try {
    const file = join(t.dir, 'odd.sqlite');
    syntheticExport(file, false);
    const db = new Database(file);
    db.exec(`
      CREATE TABLE TARGET_INFO_GPU (id INTEGER NOT NULL, name TEXT, totalMemory INTEGER, cuDevice INTEGER);
      INSERT INTO TARGET_INFO_GPU VALUES (0, 'NVIDIA H100', 85520809984, NULL);
      CREATE TABLE CUDA_GPU_MEMORY_USAGE_EVENTS (start INTEGER NOT NULL, globalPid INTEGER NOT NULL, deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, address INTEGER NOT NULL, pc INTEGER NOT NULL, bytes INTEGER NOT NULL, memKind INTEGER, memoryOperationType INTEGER NOT NULL, correlationId INTEGER);
      INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS VALUES (150, ${42 << 24}, 0, 1, 140000000000000, 0, 4096, NULL, 0, 10);
      CREATE TABLE OSRT_API (start INTEGER NOT NULL, nameId INTEGER NOT NULL, PRIMARY KEY (start, nameId)) WITHOUT ROWID;
      INSERT INTO OSRT_API VALUES (1, 1);
    `);
    db.close();
    const r = await importFiles(t.store, [file], { importers });
    assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
    const s = storeSql(t.store);
    assert.deepEqual(s.prepare("SELECT text FROM events WHERE kind = 'gpu_info'").pluck().all(), ['GPU 0: NVIDIA H100, 79.6 GiB']);
    assert.equal(s.prepare('SELECT COUNT(*) FROM allocations').pluck().get(), 1);
    assert.match(s.prepare('SELECT warnings_json FROM sources').pluck().get() as string, /not read: OSRT_API \(OS runtime calls\)/);
  } finally {
    t.dispose();
  }
});

test('review (fuzz): a damaged export fails naming where, never as a damaged workspace (the unread-table advice had swallowed its error)', { skip: skipUnlessCorpus(FILES[1]) }, async () => {
  const { mutateFile } = await import('../../fuzz/mutate');
  const t = tempStore();
  try {
    const src = gunzipSync(readFileSync(corpusFile(FILES[1])!));
    const files = [1, 2, 3, 4].map((seed) => {
      const f = join(t.dir, `damaged-${seed}.sqlite`);
      writeFileSync(f, mutateFile('nsys-corpus.sqlite', src, 'duplicate-chunk', seed));
      return f;
    });
    const r = await importFiles(t.store, files, { importers });
    for (const s of r.sources) assert.doesNotMatch(s.error ?? '', /workspace database is damaged/, s.error ?? '');
    assert.ok(r.sources.some((s) => s.status === 'failed' && /\(key \w+\): /.test(s.error ?? '')), JSON.stringify(r.sources));
  } finally {
    t.dispose();
  }
});
