// A malformed value names its place. Times past what a 64-bit integer of ns holds (1e400, which JSON
// reads as Infinity; 1e308; 25-digit strings), and JSON nested 100 k deep, used to escape as raw JS
// errors with no line, byte or key ("The number Infinity cannot be converted to a BigInt", "The bound
// string, buffer, or bigint is too big" from a batched INSERT far from the record, "Maximum call stack
// size exceeded"). Each case is a small hand-made input; every error and warning about it must name
// the file and its line, byte or key, and the import must not have thrown anything else.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { runImporter, type Run } from './run-importer';
import { importFiles, tempStore } from '../../helpers/import-file';
import { storeSql } from '../../helpers/store-sql';
import { ncuCsvImporter } from '../../../node/engine/importers/ncu-csv';
import { otlpImporter } from '../../../node/engine/importers/otlp';
import { jaegerImporter } from '../../../node/engine/importers/jaeger';
import { kinetoImporter } from '../../../node/engine/importers/kineto';
import { memorySnapshotImporter } from '../../../node/engine/importers/memory-snapshot';
import { prometheusJsonImporter } from '../../../node/engine/importers/prometheus-json';
import { jsonlLogImporter } from '../../../node/engine/importers/jsonl-log';
import { nsysRepImporter, nsysSqliteImporter } from '../../../node/engine/importers/nsys-sqlite';
import { unitsToNs } from '../../../node/engine/importers/ns-time';
import { float, pickle } from '../../../fixtures/lib/pickle-writer';
import { ImportError, type Importer } from '../../../node/engine/importers/types';

/** formatPosition's " (line N, byte N, key K)" right after the file name (what the fuzz run counts). */
const PLACED = /^\S+ \((line|byte|key) [^)]*\): /;

async function run(imp: Importer, name: string, text: string | Buffer, mtimeMs: number | null = 1_773_478_800_000): Promise<Run> {
  return runImporter(imp, { name, text, mtimeMs });
}

function placedError(r: Run, place: RegExp): string {
  assert.ok(r.error, 'the import failed');
  assert.equal(r.error!.name, 'ImportError', `an ImportError, not a raw ${r.error!.name}: ${r.error!.message}`);
  assert.match(r.error!.message, PLACED);
  assert.match(r.error!.message, place);
  return r.error!.message;
}

function placedWarning(r: Run, about: RegExp, place: RegExp): string {
  assert.equal(r.error, null, `no error: ${r.error?.message}`);
  const w = r.warnings.find((x) => about.test(x));
  assert.ok(w, `a warning ${about} among ${JSON.stringify(r.warnings)}`);
  assert.match(w!, PLACED);
  assert.match(w!, place);
  return w!;
}

const NCU_HEAD = '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"';
const ncuRow = (id: number, unit: string, value: string) => `"${id}","1","app","h","k${id}","1","7","(1, 1, 1)","(1, 1, 1)","0","9.0","GPU Speed Of Light","Duration","${unit}","${value}"`;

test('ns-time: times past 2^63 ns, Infinity and long digit strings are no time; in-range ones are exact', () => {
  assert.equal(unitsToNs('1773478800123456789', 1n), 1773478800123456789n);
  assert.equal(unitsToNs(1485467191639875, 1000n), 1485467191639875000n);
  for (const bad of [Infinity, -Infinity, NaN, 1e300, 2 ** 63, '99999999999999999999999', '1e5', '', null, undefined, {}, '9'.repeat(100_000)]) assert.equal(unitsToNs(bad, 1n), null, String(bad).slice(0, 30));
  // In range as µs, out of range as ns.
  assert.equal(unitsToNs(9.3e15, 1000n), null);
});

test('ncu CSV: a Duration of 1e400 or 1e300 seconds is warned at its line and key; the kernel keeps 1 µs', async () => {
  for (const [unit, value] of [['nsecond', '1e400'], ['second', '1e300'], ['second', '1e10']]) {
    const r = await run(ncuCsvImporter, 'ncu.csv', [NCU_HEAD, ncuRow(0, 'nsecond', '2000'), ncuRow(1, unit, value)].join('\n') + '\n');
    try {
      placedWarning(r, /kernel 1: duration/, /ncu\.csv \(line 3, key Duration\)/);
      const ks = r.all<{ d: number }>('SELECT end_ns - start_ns AS d FROM kernels ORDER BY start_ns');
      assert.deepEqual(ks.map((k) => k.d), [2000, 1000]);
    } finally {
      r.dispose();
    }
  }
});

test('ncu CSV: kernels laid back to back past 2^63 ns fail at the line of the kernel that overflowed', async () => {
  // The file's mtime a day before the end of the 64-bit range: two day-long kernels cannot both fit.
  const mtime = Math.floor(Number(2n ** 63n / 1_000_000n)) - 86_400_000 - 1000;
  const r = await run(ncuCsvImporter, 'ncu.csv', [NCU_HEAD, ncuRow(0, 'second', '86000'), ncuRow(1, 'second', '86000')].join('\n') + '\n', mtime);
  try {
    placedError(r, /ncu\.csv \(line 3\): kernel 1: .*2\^63 ns/);
  } finally {
    r.dispose();
  }
});

const otlpDoc = (spans: string[]) => `{"resourceSpans":[{"resource":{"attributes":[]},"scopeSpans":[{"scope":{"name":"s"},"spans":[\n${spans.join(',\n')}\n]}]}]}`;
const otlpSpan = (id: string, start: string, end: string) => `{"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"${id}","name":"x","startTimeUnixNano":${start},"endTimeUnixNano":${end}}`;

test('OTLP: a start of 25 digits or 1e400 is skipped with its line, byte and key; only such spans fail the file there', async () => {
  for (const bad of ['"99999999999999999999999"', '1e400', '1e300']) {
    const good = otlpSpan('0102030405060708', '"1773478800000000000"', '"1773478800000001000"');
    const r = await run(otlpImporter, 'trace.json', otlpDoc([good, otlpSpan('0102030405060709', bad, '"1773478800000001000"')]));
    try {
      // Line 3: the second span's own line; its byte is where its object begins.
      const byte = Buffer.byteLength(otlpDoc([good, ''])) - '\n]}]}]}'.length;
      placedWarning(r, /startTimeUnixNano is no time/, new RegExp(`trace\\.json \\(line 3, byte ${byte}, key startTimeUnixNano\\)`));
      assert.equal(r.all('SELECT * FROM spans').length, 1);
    } finally {
      r.dispose();
    }
    const alone = await run(otlpImporter, 'trace.json', otlpDoc([otlpSpan('0102030405060709', bad, '"1773478800000001000"')]));
    try {
      placedError(alone, /trace\.json \(line 2, byte \d+, key startTimeUnixNano\): no spans in this OTLP file: its one span skipped: span whose startTimeUnixNano is no time/);
    } finally {
      alone.dispose();
    }
  }
});

test('OTLP: an end past 2^63 ns keeps the span (ending where it starts) with a warning at its key', async () => {
  const r = await run(otlpImporter, 'trace.json', otlpDoc([otlpSpan('0102030405060708', '"1773478800000000000"', '"99999999999999999999999"')]));
  try {
    placedWarning(r, /endTimeUnixNano is no time/, /trace\.json \(line 2, byte \d+, key endTimeUnixNano\)/);
    const rows = r.all<{ d: number }>('SELECT end_ns - start_ns AS d FROM spans');
    assert.deepEqual(rows.map((x) => x.d), [0]);
  } finally {
    r.dispose();
  }
});

test('OTLP JSON lines: a later line with a bad time or nested 100 k deep is warned at its line', async () => {
  const line = (start: string, attr = '"v"') =>
    `{"resourceSpans":[{"resource":{},"scopeSpans":[{"spans":[{"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"0102030405060708","name":"x","startTimeUnixNano":${start},"attributes":[{"key":"k","value":{"stringValue":${attr}}}]}]}]}]}`;
  const deep = '{"arrayValue":{"values":['.repeat(30_000) + ']}}'.repeat(30_000);
  const text = [line('"1773478800000000000"'), line('1e400'), line('"1773478800000000000"', `"x"}},{"key":"d","value":${deep}`), line('"1773478801000000000"')].join('\n') + '\n';
  const r = await run(otlpImporter, 'spans.jsonl', text);
  try {
    placedWarning(r, /startTimeUnixNano is no time/, /spans\.jsonl \(line 2, key startTimeUnixNano\)/);
    placedWarning(r, /nested deeper than 512/, /spans\.jsonl \(line 3\)/);
    assert.equal(r.all('SELECT * FROM spans').length, 2);
  } finally {
    r.dispose();
  }
});

const jaegerDoc = (start: string, duration: string) =>
  `{"data":[{"traceID":"ab","spans":[\n{"traceID":"ab","spanID":"cd","operationName":"op","startTime":${start},"duration":${duration},"processID":"p1"}\n],"processes":{"p1":{"serviceName":"svc"}}}]}`;

test('Jaeger: a startTime past 2^63 ns fails at its line, byte and key; a bad duration is warned and the span kept', async () => {
  // The span's object begins line 2, right after line 1's 34 bytes and its newline.
  assert.equal(jaegerDoc('1', '5').indexOf('\n{'), 34);
  for (const bad of ['1e400', '99999999999999999999999', '"99999999999999999999999"']) {
    const r = await run(jaegerImporter, 'jaeger.json', jaegerDoc(bad, '5'));
    try {
      placedError(r, /jaeger\.json \(line 2, byte 35, key startTime\): no spans in this Jaeger file: its one span skipped/);
    } finally {
      r.dispose();
    }
  }
  const r = await run(jaegerImporter, 'jaeger.json', jaegerDoc('1485467191639875', '1e300'));
  try {
    placedWarning(r, /duration is no time/, /jaeger\.json \(line 2, byte 35, key duration\)/);
    assert.deepEqual(r.all<{ d: number }>('SELECT end_ns - start_ns AS d FROM spans').map((x) => x.d), [0]);
  } finally {
    r.dispose();
  }
});

test('JSON nested 100 k deep: Jaeger, OTLP and Prometheus JSON fail at the byte it went too deep; a JSON-lines log warns at the line', async () => {
  const deep = '['.repeat(100_000) + ']'.repeat(100_000);
  const prom = `{"status":"success","data":{"resultType":"vector","result":[\n{"metric":{"__name__":"a","x":${deep}},"value":[1773478800,"1"]}]}}`;
  // Five levels are open where the deep run starts: its 508th bracket opens level 513.
  const promByte = prom.indexOf('[[') + 507;
  const cases: [Importer, string, string, RegExp][] = [
    [jaegerImporter, 'jaeger.json', jaegerDoc('1485467191639875', `5,"tags":[{"key":"k","value":${deep}}]`), /jaeger\.json \(line 2, byte \d+\): .*nested deeper than 512 levels/],
    [otlpImporter, 'trace.json', otlpDoc([otlpSpan('0102030405060708', '"1773478800000000000"', `"1773478800000000001","attributes":[{"key":"k","value":{"arrayValue":{"values":${deep}}}}]`)]), /trace\.json \(line 2, byte \d+\): .*nested deeper than 512 levels/],
    [prometheusJsonImporter, 'answer.json', prom, new RegExp(`answer\\.json \\(line 2, byte ${promByte}\\): nested deeper than 512 levels`)],
  ];
  for (const [imp, name, text, place] of cases) {
    const r = await run(imp, name, text);
    try {
      placedError(r, place);
    } finally {
      r.dispose();
    }
  }
  const lines = Array.from({ length: 20 }, (_, i) => JSON.stringify({ ts: 1773478800 + i, level: 'info', msg: `request ${i} done` }));
  lines.splice(5, 0, `{"ts":1773478805,"level":"info","msg":"a","extra":${deep}}`);
  const r = await run(jsonlLogImporter, 'events.jsonl', lines.join('\n') + '\n');
  try {
    placedWarning(r, /nested deeper than 512/, /events\.jsonl \(line 6\)/);
    assert.equal(r.all('SELECT * FROM events').length, 20);
  } finally {
    r.dispose();
  }
});

test('Prometheus JSON that does not parse fails at its line and byte', async () => {
  const r = await run(prometheusJsonImporter, 'answer.json', '{"status":"success",\n"data":{"resultType":"vector","result":[}}');
  try {
    // Line 2 starts at byte 21; the stray "}" is its 41st byte.
    placedError(r, /answer\.json \(line 2, byte 61\): not JSON: /);
  } finally {
    r.dispose();
  }
});

test('Kineto: a ts of 1e308 or a dur of 1e400 is warned at its byte and key, the other events kept', async () => {
  const ev = (name: string, ts: string, dur: string) => `{"ph":"X","cat":"kernel","name":"${name}","pid":0,"tid":7,"ts":${ts},"dur":${dur},"args":{"correlation":1,"device":0,"stream":7}}`;
  const trace = (bad: string) => `{"schemaVersion":1,"traceEvents":[${ev('good', '1773478800000000', '5')},${bad}]}`;
  let r = await run(kinetoImporter, 'trace.json', trace(ev('far', '1e308', '5')));
  try {
    placedWarning(r, /"far" has a ts that is no time/, /trace\.json \(byte \d+, key ts\)/);
    assert.equal(r.all('SELECT * FROM kernels').length, 1);
  } finally {
    r.dispose();
  }
  r = await run(kinetoImporter, 'trace.json', trace(ev('long', '1773478800000010', '1e400')));
  try {
    placedWarning(r, /"long" has a dur that is no duration/, /trace\.json \(byte \d+, key dur\)/);
    assert.deepEqual(r.all<{ d: number }>('SELECT end_ns - start_ns AS d FROM kernels ORDER BY start_ns').map((x) => x.d), [5000, 0]);
  } finally {
    r.dispose();
  }
  // Relative times: a base time of 25 digits is none (the trace is anchored, said in a warning), and a
  // relative ts that the base pushes past 2^63 ns is skipped where it is.
  r = await run(kinetoImporter, 'trace.json', `{"schemaVersion":1,"traceEvents":[${ev('a', '10', '5')},${ev('b', '9100000000000000', '5')}],"baseTimeNanoseconds":9000000000000000000}`);
  try {
    placedWarning(r, /"b": its ts after baseTimeNanoseconds is past 2\^63 ns/, /trace\.json \(byte \d+, key ts\)/);
    assert.equal(r.all('SELECT * FROM kernels').length, 1);
  } finally {
    r.dispose();
  }
});

test('memory snapshot: a time_us of 1e308 is warned at its key and taken as untimed', async () => {
  const entry = (t: number | ReturnType<typeof float>, addr: number) => ({ action: 'alloc', addr, size: 512, stream: 0, time_us: t, frames: [] });
  const snap = pickle({ segments: [], device_traces: [[entry(1_773_478_800_000_000, 4096), entry(float(1e308), 8192)]] });
  const r = await run(memorySnapshotImporter, 'snapshot.pickle', snap);
  try {
    placedWarning(r, /time_us that is no time/, /snapshot\.pickle \(key device_traces\[0\]\[1\]\.time_us\)/);
    // The untimed entry takes the time of the one before it.
    assert.deepEqual(r.all<{ ns: number }>('SELECT alloc_ns / 1000 AS ns FROM allocations ORDER BY addr').map((x) => x.ns), [1_773_478_800_000_000, 1_773_478_800_000_000]);
  } finally {
    r.dispose();
  }
});

test('nsys export: a memory event whose start is no integer is warned at its table and rowid; a report fails at byte 0', async () => {
  const t = tempStore();
  try {
    const file = join(t.dir, 'run.sqlite');
    const db = new Database(file);
    db.exec(`CREATE TABLE CUDA_GPU_MEMORY_USAGE_EVENTS (start INTEGER, deviceId INTEGER, address INTEGER, bytes INTEGER, memoryOperationType INTEGER);
      INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS VALUES (1000, 0, 4096, 512, 0), (1e300, 0, 8192, 512, 0), (2000, 0, 4096, 512, 1);`);
    db.close();
    const r = await importFiles(t.store, [file], { importers: [nsysSqliteImporter] });
    assert.equal(r.sources[0].status, 'ok', r.sources[0].error ?? '');
    const warnings = JSON.parse(storeSql(t.store).prepare('SELECT warnings_json FROM sources').pluck().get() as string) as string[];
    const w = warnings.find((x) => /start is no time/.test(x));
    assert.ok(w, JSON.stringify(warnings));
    assert.match(w!, /run\.sqlite \(key CUDA_GPU_MEMORY_USAGE_EVENTS rowid 2\): /);
    assert.equal(storeSql(t.store).prepare('SELECT COUNT(*) FROM allocations').pluck().get(), 1);

    const rep = join(t.dir, 'run.nsys-rep');
    writeFileSync(rep, Buffer.from('\x00\x01not sqlite'));
    const r2 = await importFiles(t.store, [rep], { importers: [nsysRepImporter] });
    assert.match(r2.sources[0].error!, /run\.nsys-rep \(byte 0\): this is an Nsight Systems report/);
  } finally {
    t.dispose();
  }
});

test('the fuzz run\'s last two failures without a place: an empty file is named at byte 0, and a key of 100 k brackets is cut in the message', async () => {
  const t = tempStore();
  try {
    writeFileSync(join(t.dir, 'empty.prom'), '');
    const r = await importFiles(t.store, [join(t.dir, 'empty.prom')]);
    assert.match(r.sources[0].error ?? '', PLACED);
    assert.match(r.sources[0].error ?? '', /^empty\.prom \(byte 0\): empty file \(0 bytes\)$/);
  } finally {
    t.dispose();
  }
  // A deep-nesting mutation landed inside a key string of a Kineto trace: the key was 'distribut' and
  // the brackets, and the whole of it went into the error.
  const key = `distribut${'['.repeat(100_000)}{`;
  const message = new ImportError('trace.json', { offset: 57_792, key }, 'nested deeper than 512 levels').message;
  assert.match(message, PLACED);
  assert.ok(message.length < 300, `${message.length} characters`);
  assert.equal(message, `trace.json (byte 57792, key distribut${'['.repeat(111)}…[100010 characters]): nested deeper than 512 levels`);
});
