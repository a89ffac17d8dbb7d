// Nsight Systems SQLite exports (`nsys export --type sqlite`), attached read-only as `ext` and copied
// with INSERT … SELECT. Tables exist only when they have data, and columns differ between versions, so
// every query is built from what the file holds. The file is anyone's: it is read through its tables
// only (views and triggers dropped from the private copy), copies go in rowid steps that give the
// engine's thread back and stop on cancel, and every per-row lookup is a search (an index is made on the
// private copy where the file has none), so the work is bounded by the rows, and a cancel reaches it.
//
// Tables written:
// - kernels: CUPTI_ACTIVITY_KIND_KERNEL (name = demangled name via StringIds, else short name; attrs kind
//   'kernel', short_name, grid, block, registers_per_thread, static/dynamic_shared_memory, context, pid,
//   launch_span_id 'c<correlationId>', none for correlation 0); _MEMCPY as kind 'memcpy' named "Memcpy HtoD"
//   etc. (attrs bytes, copy_kind; unified-memory migrations "Unified memory HtoD migration", unified,
//   migration_cause, virtual_address); _MEMSET as kind 'memset' named "Memset" (attrs bytes, value).
// - spans: CUDA runtime calls (trace_id 'nsys:<pid>', span_id 'c<correlationId>', attrs cat 'cuda_runtime',
//   correlation, tid, return_value) and NVTX ranges (eventType 59 push/pop, 60 start/end) and marks (34,
//   zero length) (span_id 'n<rowid>', attrs cat 'nvtx', domain_id, tid, event_type).
// - allocations: CUDA_GPU_MEMORY_USAGE_EVENTS of device memory (memKind 0–1, host memory, left out and
//   warned), memoryOperationType 0 alloc / 1 free, paired by
//   device+address in time order; the stack is [runtime call, "next kernel: <short name>"] (the call with
//   the same correlationId, the first kernel launched after it). correlation_id is the allocating call's
//   (its span is 'c<correlationId>'; a free without its alloc keeps the free's): it is a column, not a
//   frame, as the stack must stay the same for every allocation from one call site, or the leak view's
//   grouping by stack would fall apart.
// - series gpu.mem.total {gpu} (bytes) from TARGET_INFO_GPU.totalMemory, sampled at the first and last
//   timestamp; one 'gpu_info' event per GPU; gpu = its CUDA device number (cuDevice, else deviceId, else id).
// Times: ns since session start + TARGET_INFO_SESSION_START_TIME.utcEpochNs (else a start time from the
// META_DATA tables; else, relative to the capture's start, the capture is placed to end at the bundle's
// time or the file's mtime, with a warning).
import { ImportError, type AttachedQuery, type ImportContext, type Importer, type Sink } from './types';
import { setImmediate as turn } from 'node:timers/promises';
import { unitsToNs } from './ns-time';
import { LogClock } from './log-time';

const SQLITE_MAGIC = 'SQLite format 3\u0000';

export function detectNsysSqlite(head: Buffer): number {
  if (head.length < 100 || head.toString('latin1', 0, 16) !== SQLITE_MAGIC) return 0;
  const s = head.toString('latin1');
  if (/CUPTI_ACTIVITY_KIND|TARGET_INFO_|NVTX_EVENTS|CUDA_GPU_MEMORY_USAGE_EVENTS/.test(s)) return 0.95;
  // The schema may sit past the head; StringIds alone is a weaker hint.
  return s.includes('StringIds') ? 0.7 : 0;
}

const COPY_KINDS: Record<number, string> = { 1: 'HtoD', 2: 'DtoH', 3: 'HtoA', 4: 'AtoH', 5: 'AtoA', 6: 'AtoD', 7: 'DtoA', 8: 'DtoD', 9: 'HtoH', 10: 'PtoP' };
/** Unified-memory page migrations (ENUM_CUDA_MEMCPY_OPER 11–13): the driver moving pages on a fault, no call's copy. */
const UVM_KINDS: Record<number, string> = { 11: 'HtoD', 12: 'DtoH', 13: 'DtoD' };
/** ENUM_CUDA_MEM_KIND's host memory (0 pageable, 1 pinned: cudaHostAlloc): not the GPU's, whatever deviceId says. */
const HOST_MEM_KINDS = '0, 1';
/** ENUM_CUDA_MEM_KIND 5: a module's `__device__` globals, loaded with it and never freed by a call. */
const DEVICE_STATIC = 5;

const KERNEL = 'CUPTI_ACTIVITY_KIND_KERNEL';
const RUNTIME = 'CUPTI_ACTIVITY_KIND_RUNTIME';
const MEMCPY = 'CUPTI_ACTIVITY_KIND_MEMCPY';
const MEMSET = 'CUPTI_ACTIVITY_KIND_MEMSET';
const MEMORY = 'CUDA_GPU_MEMORY_USAGE_EVENTS';
const NVTX = 'NVTX_EVENTS';

class Schema {
  private readonly cols = new Map<string, Set<string>>();
  constructor(private readonly q: AttachedQuery, readonly tables: Set<string>) {}

  has(table: string): boolean {
    return this.tables.has(table);
  }

  columns(table: string): Set<string> {
    let c = this.cols.get(table);
    if (!c) {
      c = new Set(this.q.all(`PRAGMA ext.table_info('${table}')`).map((r) => String(r.name)));
      this.cols.set(table, c);
    }
    return c;
  }

  /** `alias.column` where the table has it, else NULL. */
  col(table: string, alias: string, column: string): string {
    return this.columns(table).has(column) ? `${alias}."${column}"` : 'NULL';
  }

  require(table: string, ...columns: string[]): void {
    const have = this.columns(table);
    const missing = columns.filter((c) => !have.has(c));
    if (missing.length) throw new Error(`table ${table} lacks column(s) ${missing.join(', ')}`);
  }
}

/** A SQL expression for the session's epoch ns, or null. */
function baseTimeSql(q: AttachedQuery, schema: Schema): string | null {
  const candidates: string[] = [];
  if (schema.has('TARGET_INFO_SESSION_START_TIME') && schema.columns('TARGET_INFO_SESSION_START_TIME').has('utcEpochNs')) {
    candidates.push('(SELECT utcEpochNs FROM ext.TARGET_INFO_SESSION_START_TIME WHERE utcEpochNs IS NOT NULL LIMIT 1)');
  }
  for (const t of ['META_DATA_CAPTURE', 'EXPORT_META_DATA', 'META_DATA_EXPORT']) {
    if (!schema.has(t)) continue;
    candidates.push(
      `(SELECT CAST(value AS INTEGER) FROM ext.${t} WHERE name LIKE '%START%' AND name LIKE '%NS%' AND CAST(value AS INTEGER) > 1000000000000000000 LIMIT 1)`,
    );
  }
  for (const c of candidates) {
    const r = q.all(`SELECT ${c} IS NOT NULL AS ok`)[0];
    if (r && r.ok) return c;
  }
  return null;
}

const pidOf = (globalId: string) => `((${globalId} >> 24) & 16777215)`;
const tidOf = (globalId: string) => `(${globalId} & 16777215)`;

/** The table being read, for an error's place (a damaged file fails inside SQLite, which names none). */
interface Reading {
  table: string;
}

async function copy(q: AttachedQuery, schema: Schema, base: string, at: Reading, signal: AbortSignal): Promise<void> {
  const hasStrings = schema.has('StringIds');
  // A name per copied row: a search on StringIds.id, never a scan (the file may have no key on it).
  if (hasStrings) {
    at.table = 'StringIds';
    schema.require('StringIds', 'id', 'value');
    q.indexed('StringIds', 'id');
  }
  const str = (expr: string) => (hasStrings ? `(SELECT value FROM ext.StringIds WHERE id = ${expr})` : 'NULL');

  // Kernels, memcpys and memsets are all GPU activity on a device's stream, copied into `kernels` with
  // the same placement columns; only the name and the attributes differ.
  const activity = async (table: string, name: (c: (n: string) => string) => string, attrs: (c: (n: string) => string) => string) => {
    if (!schema.has(table)) return;
    at.table = table;
    schema.require(table, 'start', 'end', 'deviceId', 'streamId');
    const c = (n: string) => schema.col(table, 'a', n);
    await q.copy('kernels', {
      device: 'a.deviceId',
      stream: 'a.streamId',
      name: name(c),
      start_ns: `a.start + ${base}`,
      end_ns: `a."end" + ${base}`,
      correlation_id: `${c('correlationId')}`,
      // A migration (or any activity CUPTI gives correlation 0) was launched by no call.
      attrs_json: `json_object(${attrs(c)}, 'context', ${c('contextId')}, 'pid', ${pidOf(c('globalPid'))}, 'launch_span_id', CASE WHEN ${c('correlationId')} > 0 THEN 'c' || ${c('correlationId')} END)`,
    }, { table, alias: 'a' }, signal);
  };
  await activity(
    KERNEL,
    (c) => `COALESCE(${str(c('demangledName'))}, ${str(c('shortName'))}, 'kernel')`,
    (c) => `'kind', 'kernel', 'short_name', ${str(c('shortName'))}, 'grid', json_array(${c('gridX')}, ${c('gridY')}, ${c('gridZ')}), 'block', json_array(${c('blockX')}, ${c('blockY')}, ${c('blockZ')}), 'registers_per_thread', ${c('registersPerThread')}, 'static_shared_memory', ${c('staticSharedMemory')}, 'dynamic_shared_memory', ${c('dynamicSharedMemory')}`,
  );
  await activity(
    MEMCPY,
    (c) =>
      `CASE ${c('copyKind')} ${Object.entries(COPY_KINDS).map(([k, v]) => `WHEN ${k} THEN 'Memcpy ${v}'`).join(' ')} ${Object.entries(UVM_KINDS).map(([k, v]) => `WHEN ${k} THEN 'Unified memory ${v} migration'`).join(' ')} ELSE 'Memcpy copy' END`,
    (c) =>
      `'kind', 'memcpy', 'bytes', ${c('bytes')}, 'copy_kind', ${c('copyKind')}, 'src_kind', ${c('srcKind')}, 'dst_kind', ${c('dstKind')}, 'unified', CASE WHEN ${c('copyKind')} IN (${Object.keys(UVM_KINDS).join(', ')}) THEN json('true') END, 'migration_cause', ${c('migrationCause')}, 'virtual_address', CASE WHEN ${c('virtualAddress')} IS NOT NULL THEN printf('0x%x', ${c('virtualAddress')}) END`,
  );
  await activity(MEMSET, () => `'Memset'`, (c) => `'kind', 'memset', 'bytes', ${c('bytes')}, 'value', ${c('value')}`);

  if (schema.has(RUNTIME)) {
    at.table = RUNTIME;
    schema.require(RUNTIME, 'start', 'end', 'nameId');
    const c = (n: string) => schema.col(RUNTIME, 'r', n);
    // (The layers of one call share its correlation id — cudaMalloc and its cudaMalloc_v3020 entry point,
    // cudaDeviceReset and the cuCtxSynchronize it makes — and so its span id: `c<id>` finds them all.)
    await q.copy('spans', {
      trace_id: `'nsys:' || ${pidOf(c('globalTid'))}`,
      span_id: `COALESCE('c' || ${c('correlationId')}, 'r' || r.rowid)`,
      parent_id: 'NULL',
      name: `COALESCE(${str('r.nameId')}, 'cuda call')`,
      start_ns: `r.start + ${base}`,
      end_ns: `r."end" + ${base}`,
      attrs_json: `json_object('cat', 'cuda_runtime', 'correlation', ${c('correlationId')}, 'tid', ${tidOf(c('globalTid'))}, 'return_value', ${c('returnValue')}, 'event_class', ${c('eventClass')})`,
    }, { table: RUNTIME, alias: 'r' }, signal);
  }

  if (schema.has(NVTX)) {
    at.table = NVTX;
    schema.require(NVTX, 'start', 'eventType');
    const c = (n: string) => schema.col(NVTX, 'n', n);
    await q.copy('spans', {
      trace_id: `'nsys:' || ${pidOf(c('globalTid'))}`,
      span_id: `'n' || n.rowid`,
      parent_id: 'NULL',
      name: `COALESCE(${c('text')}, ${str(c('textId'))}, 'nvtx')`,
      start_ns: `n.start + ${base}`,
      end_ns: `COALESCE(${c('end')}, n.start) + ${base}`,
      attrs_json: `json_object('cat', 'nvtx', 'event_type', n.eventType, 'domain_id', ${c('domainId')}, 'tid', ${tidOf(c('globalTid'))})`,
    }, { table: NVTX, alias: 'n', where: 'n.eventType IN (34, 59, 60)' }, signal);
  }
}

/**
 * Memory events read per page; between pages the engine's thread is given back and cancel is checked. A
 * page is a few tens of milliseconds: each new correlation id costs two lookups.
 */
const MEMORY_PAGE = 2048;

async function allocations(q: AttachedQuery, sink: Sink, schema: Schema, base: string, at: Reading, ctx: ImportContext): Promise<void> {
  if (!schema.has(MEMORY)) return;
  at.table = MEMORY;
  schema.require(MEMORY, 'start', 'deviceId', 'address', 'bytes', 'memoryOperationType');
  const hasCorr = schema.columns(MEMORY).has('correlationId');
  const hasKind = schema.columns(MEMORY).has('memKind');
  if (hasKind) {
    const host = q.all(`SELECT COUNT(*) AS n, COALESCE(SUM(CASE WHEN memoryOperationType = 0 THEN bytes END), 0) AS bytes FROM ext.${MEMORY} WHERE memKind IN (${HOST_MEM_KINDS})`)[0];
    if (Number(host?.n) > 0) ctx.warn(`${Number(host.n)} memory events of pinned or pageable host memory (${(Number(host.bytes) / 2 ** 30).toFixed(2)} GiB allocated) are not GPU memory: left out of the allocations`, { key: `${MEMORY}.memKind` });
  }
  const hasStrings = schema.has('StringIds');
  const name = (id: string) => `(SELECT value FROM ext.StringIds WHERE id = ${id})`;

  // The call that made each event and the first kernel launched after it, by correlationId: one search
  // each per correlation id (indexed on the private copy where the export has no index), remembered.
  let callOf: ((corr: number) => string | null) | null = null;
  if (hasCorr && hasStrings && schema.has(RUNTIME) && schema.columns(RUNTIME).has('correlationId') && schema.columns(RUNTIME).has('nameId')) {
    at.table = RUNTIME;
    q.indexed(RUNTIME, 'correlationId');
    callOf = (corr) => (q.all(`SELECT ${name('r.nameId')} AS n FROM ext.${RUNTIME} r WHERE r.correlationId = ? ORDER BY r.rowid LIMIT 1`, corr)[0]?.n as string | null | undefined) ?? null;
  }
  let kernelAfter: ((corr: number) => string | null) | null = null;
  if (hasCorr && hasStrings && schema.has(KERNEL) && schema.columns(KERNEL).has('correlationId')) {
    at.table = KERNEL;
    const nameCol = schema.columns(KERNEL).has('shortName') ? 'shortName' : 'demangledName';
    q.indexed(KERNEL, 'correlationId');
    kernelAfter = (corr) => (q.all(`SELECT ${name(`k."${nameCol}"`)} AS n FROM ext.${KERNEL} k WHERE k.correlationId > ? ORDER BY k.correlationId LIMIT 1`, corr)[0]?.n as string | null | undefined) ?? null;
  }
  const stacks = new Map<number, number | null>();
  let staticStack: number | null = null;
  const stackFor = (corr: number | null, kind: number | null): number | null => {
    // A module's globals: made by no call, so "the next kernel" after correlation 0 would name a stranger.
    if (kind === DEVICE_STATIC) return (staticStack ??= sink.stack(['(__device__ globals: a module loaded)']));
    if (corr === null) return null;
    let id = stacks.get(corr);
    if (id !== undefined) return id;
    const frames: string[] = [];
    const call = callOf?.(corr);
    if (call) frames.push(call);
    const k = kernelAfter?.(corr);
    if (k) frames.push(`next kernel: ${k}`);
    id = frames.length ? sink.stack(frames) : null;
    stacks.set(corr, id);
    return id;
  };

  at.table = MEMORY;
  const open = new Map<string, { size: number; ns: bigint; stack: number | null; corr: number | null }>();
  // Time order through a sorted list of rowids, paged by its own integer position: an exact keyset,
  // whatever the start column holds (a start past 2^53 read as a double once repeated a page forever),
  // and each page a search, not a scan of the table (a keyset on start alone scanned it per page).
  const order = q.ordered({ table: MEMORY, alias: 'm', where: `m.start IS NOT NULL${hasKind ? ` AND (m.memKind IS NULL OR m.memKind NOT IN (${HOST_MEM_KINDS}))` : ''}` }, 'm.start, m.rowid');
  const page = (after: number) =>
    q.all(
      `SELECT o.rowid AS pos, m.rowid AS rid, m.deviceId AS device, printf('0x%x', m.address) AS addr, m.bytes AS bytes,
              m.memoryOperationType AS op, CAST(m.start + ${base} AS TEXT) AS ns, ${hasCorr ? 'm.correlationId' : 'NULL'} AS corr, ${hasKind ? 'm.memKind' : 'NULL'} AS kind
         FROM temp.${order} o JOIN ext.${MEMORY} m ON m.rowid = o.rid WHERE o.rowid > ? ORDER BY o.rowid LIMIT ${MEMORY_PAGE}`,
      after,
    );
  let badTimes = 0;
  const each = (r: Record<string, unknown>): void => {
    const device = Number(r.device);
    const addr = String(r.addr);
    // start + base as SQLite's text: digits, unless start was REAL or text or the sum overflowed (then REAL).
    const ns = unitsToNs(String(r.ns), 1n);
    if (ns === null) {
      if (badTimes++ === 0) ctx.warn(`an event's start is no time in ns (${String(r.ns).slice(0, 40)}), skipped`, { key: `${MEMORY} rowid ${String(r.rid)}` });
      return;
    }
    const key = `${device}:${addr}`;
    const size = Number(r.bytes);
    const corr = r.corr === null || r.corr === undefined ? null : Number(r.corr);
    const kind = r.kind === null || r.kind === undefined ? null : Number(r.kind);
    if (Number(r.op) === 0) {
      const prev = open.get(key);
      if (prev) sink.allocation({ device, addr, size: prev.size, alloc_ns: prev.ns, free_ns: ns, stack_id: prev.stack, source: 'nsys', correlation_id: prev.corr });
      open.set(key, { size, ns, stack: stackFor(corr, kind), corr });
    } else if (Number(r.op) === 1) {
      const a = open.get(key);
      open.delete(key);
      sink.allocation({ device, addr, size: a?.size ?? size, alloc_ns: a?.ns ?? null, free_ns: ns, stack_id: a?.stack ?? stackFor(corr, kind), source: 'nsys', correlation_id: a ? a.corr : corr });
    }
  };
  for (let after = 0; ; ) {
    const batch = page(after);
    if (batch.length === 0) break;
    for (const r of batch) each(r);
    after = Number(batch[batch.length - 1].pos);
    await turn();
    ctx.signal.throwIfAborted();
  }
  if (badTimes > 1) ctx.warn(`${badTimes} memory events in all had a start that is no time in ns, skipped`, { key: `${MEMORY}.start` });
  for (const [key, a] of open) {
    const i = key.indexOf(':');
    sink.allocation({ device: Number(key.slice(0, i)), addr: key.slice(i + 1), size: a.size, alloc_ns: a.ns, free_ns: null, stack_id: a.stack, source: 'nsys', correlation_id: a.corr });
  }
}

function gpus(q: AttachedQuery, sink: Sink, schema: Schema): void {
  if (!schema.has('TARGET_INFO_GPU')) return;
  const span = q.copiedSpanMs();
  const cols = schema.columns('TARGET_INFO_GPU');
  // Kernels and memory events name a GPU by its CUDA device number (`cuDevice`); nsys's own `id` may run in
  // another order (reverse bus order, seen), and exports before 2021 call it `deviceId`.
  const number = ['cuDevice', 'deviceId', 'id'].find((c) => cols.has(c));
  if (!number) return;
  // (A row whose CUDA number is NULL — a GPU CUDA did not enumerate — falls back to nsys' own.)
  const numbers = [number, ...['deviceId', 'id'].filter((c) => c !== number && cols.has(c))];
  const pick = [...numbers, ...['name', 'totalMemory', 'smCount', 'uuid', 'busLocation', 'computeMajor', 'computeMinor', 'memoryBandwidth', 'clockRate'].filter((c) => cols.has(c))];
  const numberSql = numbers.length > 1 ? `COALESCE(${numbers.map((c) => `"${c}"`).join(', ')})` : `"${number}"`;
  for (const { qs_gpu: gpu, ...g } of q.all(`SELECT ${pick.map((c) => `"${c}"`).join(', ')}, ${numberSql} AS qs_gpu FROM ext.TARGET_INFO_GPU ORDER BY qs_gpu`)) {
    if (gpu === null || gpu === undefined) continue;
    const id = String(gpu);
    const lo = typeof span?.lo === 'number' ? span.lo : null;
    const hi = typeof span?.hi === 'number' ? span.hi : null;
    if (lo === null || hi === null) continue;
    if (typeof g.totalMemory === 'number') {
      const s = sink.series({ name: 'gpu.mem.total', labels: { gpu: id }, unit: 'bytes', kind: 'gauge' });
      sink.sample(s, lo, g.totalMemory);
      if (hi !== lo) sink.sample(s, hi, g.totalMemory);
    }
    const gib = typeof g.totalMemory === 'number' ? `, ${(g.totalMemory / 2 ** 30).toFixed(1)} GiB` : '';
    const { id: nsysId, ...rest } = g;
    sink.event({ ts_ms: lo, kind: 'gpu_info', text: `GPU ${id}: ${g.name ?? 'unknown'}${gib}`, attrs: { ...rest, gpu: Number(id), ...(nsysId !== undefined ? { nsys_id: nsysId } : {}) } });
  }
}

/**
 * The export's tables of activity this reader does not take, by what they hold: said in one warning, so an
 * OS-runtime-only capture (37 k rows read as 5) or GPU metrics are not silently missing from an "ok".
 */
const UNREAD_TABLES: [RegExp, string][] = [
  [/^OSRT_API$/, 'OS runtime calls'],
  [/^GPU_METRICS$/, 'GPU metrics'],
  [/^CUPTI_ACTIVITY_KIND_(?:SYNCHRONIZATION|CUDA_EVENT|GRAPH_TRACE)$/, 'CUDA synchronizations, events and graphs'],
  [/^CUDA_UM_(?:CPU|GPU)_PAGE_FAULT_EVENTS$/, 'unified-memory page faults'],
  [/^(?:SCHED_EVENTS|COMPOSITE_EVENTS|SAMPLING_CALLCHAINS)$/, 'CPU scheduling and sampling'],
  [/^(?:MPI_|UCP_|NVSHMEM_)/, 'MPI/UCX/NVSHMEM calls'],
  [/^(?:CUDNN|CUBLAS|CUSPARSE)_EVENTS$/, 'cuDNN/cuBLAS/cuSPARSE calls'],
];

function sayUnread(q: AttachedQuery, schema: Schema, ctx: ImportContext): void {
  const found: string[] = [];
  for (const t of [...schema.tables].sort()) {
    const what = UNREAD_TABLES.find(([re]) => re.test(t))?.[1];
    if (!what) continue;
    // The largest rowid, not COUNT(*): a search, where a count reads the whole table (a WITHOUT ROWID table
    // has none: it is named without its size, as advice must not fail the import).
    let rows: number | null;
    try {
      rows = Number(q.all(`SELECT MAX(rowid) AS n FROM ext."${t}"`)[0]?.n ?? 0);
    } catch (e) {
      // Only the missing rowid: a damaged file's error goes on to fail the import, naming the table.
      if (!/no such column: rowid/.test((e as Error).message)) throw e;
      rows = null;
    }
    if (rows === null) found.push(`${t} (${what})`);
    else if (rows > 0) found.push(`${t} (${what}, ~${rows.toLocaleString('en-US')} rows)`);
  }
  if (found.length) ctx.warn(`not read: ${found.join(', ')}`, { key: 'sqlite_master' });
  // Launches with no GPU side: CUPTI's kernel activity was not captured (or not exported).
  if (!schema.has(KERNEL) && schema.has(RUNTIME) && schema.has('StringIds') && schema.columns(RUNTIME).has('nameId')) {
    const launches = Number(q.all(`SELECT COUNT(*) AS n FROM (SELECT 1 FROM ext.${RUNTIME} r JOIN ext.StringIds s ON s.id = r.nameId WHERE s.value LIKE 'cudaLaunchKernel%' OR s.value LIKE 'cuLaunchKernel%' LIMIT 1000000)`)[0]?.n ?? 0);
    if (launches > 0) ctx.warn(`${launches.toLocaleString('en-US')} kernel launches but no kernel activity table: the GPU side was not captured or not exported (profile with --trace=cuda and export again)`, { key: KERNEL });
  }
}

async function importAttached(q: AttachedQuery, sink: Sink, ctx: ImportContext): Promise<void> {
  const at: Reading = { table: 'sqlite_master' };
  try {
    const schema = new Schema(q, q.tables());
    const data = [KERNEL, RUNTIME, MEMCPY, MEMSET, MEMORY, NVTX].filter((t) => schema.has(t));
    if (data.length === 0) {
      throw new ImportError(ctx.path, { key: 'sqlite_master' }, 'no CUDA or NVTX tables in this Nsight Systems export (profile with --trace=cuda,nvtx and export again)');
    }
    at.table = 'TARGET_INFO_SESSION_START_TIME';
    let base = baseTimeSql(q, schema);
    if (base === null) {
      // Times relative to the capture's start, and no start: the capture is placed so that it ends at the
      // bundle's time, else the file's mtime (warned). Left at 1970 it set the bundle's span, and year-less
      // logs beside it were dated 1969.
      const endMs = new LogClock(ctx).anchor('no session start time (TARGET_INFO_SESSION_START_TIME): times are relative to the capture start, and its end');
      // Integers only: a damaged row's 1e300 is warned where it is read, and must not move every other row.
      const ends = data.map((t) => {
        const c = `"${schema.columns(t).has('end') ? 'end' : 'start'}"`;
        return `SELECT MAX(CASE WHEN typeof(${c}) = 'integer' THEN ${c} END) AS e FROM ext.${t}`;
      });
      base = `(${BigInt(Math.round(endMs)) * 1_000_000n} - COALESCE((SELECT MAX(e) FROM (${ends.join(' UNION ALL ')})), 0))`;
    }
    // Names of kernels, calls and ranges are ids into StringIds: without it every row would be a
    // placeholder ("kernel", "cuda call"), which the user should know is not the profile's own naming.
    if (!schema.has('StringIds')) ctx.warn('no StringIds table: kernel, CUDA call and NVTX names cannot be resolved and are stored as placeholders', { key: 'StringIds' });
    await copy(q, schema, base, at, ctx.signal);
    await allocations(q, sink, schema, base, at, ctx);
    at.table = 'TARGET_INFO_GPU';
    gpus(q, sink, schema);
    at.table = 'sqlite_master';
    sayUnread(q, schema, ctx);
  } catch (e) {
    // SQLite's own errors on a damaged file ("database disk image is malformed") name no table: this does.
    if (e instanceof ImportError || ctx.signal.aborted) throw e;
    throw new ImportError(ctx.path, { key: at.table }, (e as Error).message);
  }
}

export const nsysSqliteImporter: Importer = {
  format: 'nsys-sqlite',
  needsFile: true,
  detect: (head) => detectNsysSqlite(head),
  async import(_input, sink, ctx) {
    await sink.attached((q) => importAttached(q, sink, ctx));
  },
};

/** `.nsys-rep` / `.qdrep` report files are a private format: say how to get the SQLite export. */
export const nsysRepImporter: Importer = {
  format: 'nsys-rep',
  detect: (head, name) => (/\.(nsys-rep|qdrep)$/i.test(name) && head.toString('latin1', 0, 16) !== SQLITE_MAGIC ? 0.9 : 0),
  async import(_input, _sink, ctx) {
    // Byte 0: its first bytes are not SQLite's, which is what tells a report from an export.
    throw new ImportError(ctx.path, { offset: 0 }, 'this is an Nsight Systems report (.nsys-rep), which Quadscope cannot read: export it with `nsys export --type sqlite <file>.nsys-rep` and import the .sqlite file');
  },
};
