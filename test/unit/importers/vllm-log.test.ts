import { test } from 'node:test';
import assert from 'node:assert/strict';
import { corpusFile, skipUnlessCorpus } from '../../helpers/corpus';
import { vllmLogImporter } from '../../../node/engine/importers/vllm-log';
import { events, runImporter, seriesRows, values } from './run-importer';

const LOG = 'vllm_logs/vllm_log_lines_collected.log';
const OOM = 'pytorch_oom/cuda_oom_lines_collected.log';
const MTIME_2026 = Date.UTC(2026, 11, 2, 14, 23);

test('vLLM V0 and V1 stats lines of the corpus become samples', { skip: skipUnlessCorpus(LOG) }, async () => {
  const r = await runImporter(vllmLogImporter, { file: corpusFile(LOG)!, mtimeMs: MTIME_2026 });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(r.warnings, []);
    // V1 lines 7-11 ("Engine 000:", APIServer prefix, KV saturation) and the docker-prefixed 12-13.
    const waiting = values(r, 'req.waiting', { engine: '0' });
    assert.deepEqual(
      waiting.map((s) => s.v),
      [0, 0, 1, 43, 42, 33, 23, 23, 0],
    );
    const kv = values(r, 'kv.usage', { engine: '0' });
    assert.equal(kv.length, 9);
    assert.ok(Math.abs(kv.find((s) => s.ts === Date.UTC(2026, 4, 19, 10, 13, 51))!.v - 0.984) < 1e-12);
    // docker logs -t: the RFC 3339 time wins (ns cut to ms)
    assert.ok(kv.some((s) => s.ts === Date.UTC(2026, 4, 12, 8, 1, 39, 331) && Math.abs(s.v - 0.628) < 1e-12));
    assert.deepEqual(values(r, 'tokens.generation_rate', { engine: '0' }).find((s) => s.ts === Date.UTC(2026, 4, 19, 10, 13, 11))?.v, 1055.3);
    // V0 lines: the bracket's year (2024) with vLLM's own time; Pending → req.waiting; Swapped; CPU KV.
    const v0 = seriesRows(r).find((x) => x.name === 'req.running' && x.labels.engine === undefined)!;
    assert.deepEqual(r.all('SELECT ts_ms, value FROM samples WHERE series_id = ? ORDER BY ts_ms', v0.id), [
      { ts_ms: Date.UTC(2024, 6, 8, 7, 17, 34), value: 4 },
      { ts_ms: Date.UTC(2026, 4, 25, 6, 50, 29), value: 1 },
    ]);
    assert.deepEqual(values(r, 'kv.cpu_usage').map((s) => s.v), [0, 0.001]);
    assert.deepEqual(values(r, 'kv.cpu_prefix_hit_rate').map((s) => s.v), [0.9]);
    assert.deepEqual(values(r, 'spec.accept_len').map((s) => s.v), [2.2]);
    assert.deepEqual(values(r, 'spec.acceptance_rate').map((s) => s.v), [0.4]);
    // the V0 preemption warning: counter sample and event
    assert.deepEqual(values(r, 'kv.preemptions'), [{ ts: Date.UTC(2026, 4, 9, 0, 49, 33), v: 1 }]);
    const pre = events(r, 'preemption');
    assert.equal(pre.length, 1);
    assert.deepEqual(pre[0].attrs, { mode: 'RECOMPUTE', cumulative: 1 });
    const ver = events(r, 'version');
    assert.deepEqual(ver.map((e) => e.attrs), [{ engine: 'vllm', version: '0.4.3', model: 'facebook/opt-125m', v1: false }]);
    assert.equal(events(r, 'engine_start').length, 1);
    // stats lines are samples, not events: 16 lines = 1 preemption + 1 log + 1 version + 1 start
    assert.equal(events(r).length, 4);
  } finally {
    r.dispose();
  }
});

test('every OOM line of the corpus is an oom event with its numbers', { skip: skipUnlessCorpus(OOM) }, async () => {
  const r = await runImporter(vllmLogImporter, { file: corpusFile(OOM)!, mtimeMs: MTIME_2026 });
  try {
    assert.equal(r.error, null);
    const oom = events(r, 'oom');
    assert.equal(oom.length, 6);
    assert.equal(oom[0].attrs.process, 'VllmWorker');
    assert.equal(oom[0].attrs.rank, 1);
    assert.equal(oom[0].attrs.pid, 194255);
    assert.equal(oom[0].attrs.gpu, 1);
    assert.equal(oom[0].attrs.tried_bytes, 270 * 2 ** 20);
    assert.equal(oom[0].ts_ms, Date.UTC(2026, 4, 8, 14, 46, 12));
    assert.deepEqual([oom[2].attrs.process_pid, oom[2].attrs.process_bytes], [2684311, Math.round(14.51 * 2 ** 30)]);
    assert.deepEqual(events(r, 'engine_crash').map((e) => e.line), [3]);
    // bare lines take the time of the line before
    assert.equal(oom[2].ts_ms, Date.UTC(2026, 2, 13, 9, 0, 43));
  } finally {
    r.dispose();
  }
});

const SYNTH = [
  '(APIServer pid=1) INFO 03-01 10:00:00 [api_server.py:1000] vLLM API server version 0.10.1',
  '(EngineCore_0 pid=2) INFO 03-01 10:00:05 [core.py:70] Initializing a V1 LLM engine (v0.10.1) with config: model=\'meta-llama/Llama-3.1-8B\', speculative_config=None',
  '(APIServer pid=1) INFO:     10.0.0.1:5000 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
  '(APIServer pid=1) INFO:     10.0.0.1:5001 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
  '(APIServer pid=1) INFO 03-01 10:00:10 [loggers.py:123] Engine 000: Avg prompt throughput: 10.0 tokens/s, Avg generation throughput: 20.0 tokens/s, Running: 2 reqs, Waiting: 0 reqs, Preemptions: 3, GPU KV cache usage: 50.0%, Prefix cache hit rate: 25.0%',
  '(APIServer pid=1) INFO:     10.0.0.1:5002 - "POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error',
  '(APIServer pid=1) INFO 03-01 10:00:20 [loggers.py:123] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 0.0 tokens/s, Running: 2 reqs, Waiting: 5 reqs, Preemptions: 2, GPU KV cache usage: 99.0%, Prefix cache hit rate: 25.0%',
  '(EngineCore_0 pid=2) ERROR 03-01 10:00:30 [core.py:400] EngineCore encountered a fatal error.',
  '(EngineCore_0 pid=2) ERROR 03-01 10:00:30 [core.py:400] Traceback (most recent call last):',
  '(EngineCore_0 pid=2) ERROR 03-01 10:00:30 [core.py:400]   File "/usr/lib/python3/vllm/v1/engine/core.py", line 391, in run_engine_core',
  '(EngineCore_0 pid=2) ERROR 03-01 10:00:30 [core.py:400]     engine_core.run_busy_loop()',
  '(EngineCore_0 pid=2) ERROR 03-01 10:00:30 [core.py:400]   File "/usr/lib/python3/torch/distributed/c10d.py", line 12, in wait',
  '(EngineCore_0 pid=2) ERROR 03-01 10:00:30 [core.py:400]     work.wait()',
  '(EngineCore_0 pid=2) ERROR 03-01 10:00:30 [core.py:400] RuntimeError: NCCL communicator was aborted',
  '[rank1]:[E301 10:00:31.123 ProcessGroupNCCL.cpp:632] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=4411, OpType=ALLREDUCE, NumelIn=8192, NumelOut=8192, Timeout(ms)=600000) ran for 600032 milliseconds before timing out.',
  '(APIServer pid=7) INFO 03-01 10:05:00 [api_server.py:1000] vLLM API server version 0.10.1',
  '[2026-03-01 10:06:00 TP0] Decode batch. #running-req: 12, #token: 40123, token usage: 0.87, gen throughput (token/s): 512.30, #queue-req: 4',
  '[2026-03-01 10:06:01 TP0] KV cache pool is full. Retract requests. #retracted_reqs: 2, #new_token_ratio: 0.5000 -> 0.7000',
  '2026-03-01T10:07:00.123456Z  INFO text_generation_router::server: router/src/server.rs:1950: Connected',
].join('\n');

test('tracebacks, NCCL timeouts, restarts, access logs, SGLang and TGI lines', async () => {
  const r = await runImporter(vllmLogImporter, { text: SYNTH, chunk: 13, options: { year: 2026 } });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(r.warnings, []);
    const tb = events(r, 'traceback');
    assert.equal(tb.length, 1);
    assert.equal(tb[0].line, 9);
    assert.equal(tb[0].text.split('\n').length, 6);
    assert.deepEqual(tb[0].attrs, { process: 'EngineCore_0', pid: 2, exception: 'RuntimeError', message: 'RuntimeError: NCCL communicator was aborted', frames: 2 });
    assert.deepEqual(events(r, 'engine_crash').map((e) => e.line), [8]);
    const nccl = events(r, 'nccl_timeout');
    assert.equal(nccl.length, 1);
    assert.deepEqual(nccl[0].attrs, { op: 'ALLREDUCE', seq: 4411, timeout_ms: 600000, ran_ms: 600032, rank: 1 });
    assert.deepEqual(events(r, 'engine_start').map((e) => e.line), [1]);
    const restart = events(r, 'engine_restart');
    assert.deepEqual(restart.map((e) => [e.line, e.attrs.starts, e.attrs.version]), [[16, 2, '0.10.1']]);
    assert.equal(events(r, 'version').length, 3);
    // Preemptions per interval summed into a counter
    assert.deepEqual(values(r, 'kv.preemptions').map((s) => s.v), [3, 5]);
    assert.deepEqual(values(r, 'kv.usage', { engine: '0' }).map((s) => s.v), [0.5, 0.99]);
    // access lines: counters written once per timestamp, 5xx counted as errors
    assert.deepEqual(values(r, 'http.requests', { status: '2xx' }), [
      { ts: Date.UTC(2026, 2, 1, 10, 0, 5), v: 2 },
      { ts: Date.UTC(2026, 2, 1, 10, 0, 10), v: 2 },
    ]);
    assert.deepEqual(values(r, 'req.errors').map((s) => s.v), [0, 1]);
    assert.deepEqual(events(r, 'http_error').map((e) => e.attrs.status), [500]);
    // SGLang
    assert.deepEqual(values(r, 'req.running', { tp: 'TP0' }), [{ ts: Date.UTC(2026, 2, 1, 10, 6, 0), v: 12 }]);
    assert.deepEqual(values(r, 'kv.usage', { tp: 'TP0' }).map((s) => s.v), [0.87]);
    assert.deepEqual(values(r, 'tokens.generation_rate', { tp: 'TP0' }).map((s) => s.v), [512.3]);
    assert.deepEqual(events(r, 'preemption').map((e) => e.attrs), [{ mode: 'RETRACT', retracted: 2 }]);
    const tgi = events(r, 'log').find((e) => e.line === 19)!;
    assert.equal(tgi.ts_ms, Date.UTC(2026, 2, 1, 10, 7, 0, 123));
    assert.equal(tgi.text, 'text_generation_router::server: router/src/server.rs:1950: Connected');
  } finally {
    r.dispose();
  }
});

test('year-less times: the year comes from the mtime, one year back when the date would follow it', async () => {
  const text = 'INFO 12-31 23:59:00 [x.py:1] last year\nINFO 01-01 00:01:00 [x.py:1] this year\n';
  const r = await runImporter(vllmLogImporter, { text, mtimeMs: Date.UTC(2026, 0, 1, 1) });
  try {
    assert.deepEqual(events(r).map((e) => e.ts_ms), [Date.UTC(2025, 11, 31, 23, 59), Date.UTC(2026, 0, 1, 0, 1)]);
    assert.deepEqual(r.warnings, []);
  } finally {
    r.dispose();
  }
  const tz = await runImporter(vllmLogImporter, { text, options: { year: 2020, tzOffsetMinutes: -300 } });
  try {
    assert.equal(events(tz)[0].ts_ms, Date.UTC(2021, 0, 1, 4, 59));
  } finally {
    tz.dispose();
  }
  const none = await runImporter(vllmLogImporter, { text, mtimeMs: null });
  try {
    assert.equal(none.warnings.length, 1);
    assert.match(none.warnings[0], /no year/);
  } finally {
    none.dispose();
  }
});

test('a binary file fails; detection tells engine logs from other text', async () => {
  const junk = Buffer.alloc(300_000, 0);
  for (let i = 0; i < junk.length; i += 50) junk[i] = 10;
  const r = await runImporter(vllmLogImporter, { file: undefined, text: junk });
  try {
    assert.match(r.error!.message, /not a log file/);
  } finally {
    r.dispose();
  }
  assert.equal(vllmLogImporter.detect(Buffer.from(SYNTH), 'x.log'), 0.85);
  assert.equal(vllmLogImporter.detect(Buffer.from('# TYPE up gauge\nup 1\n'), 'x'), 0);
});

test('a bare traceback without any time is one event at the file mtime', async () => {
  const text = ['Traceback (most recent call last):', '  File "serve.py", line 3, in <module>', '    main()', 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 79.10 GiB of which 3.00 MiB is free.'].join('\n');
  const r = await runImporter(vllmLogImporter, { text, mtimeMs: 1_800_000_000_000 });
  try {
    const tb = events(r, 'traceback');
    assert.deepEqual(tb.map((e) => [e.ts_ms, e.line, e.attrs.exception, e.attrs.frames]), [[1_800_000_000_000, 1, 'torch.OutOfMemoryError', 1]]);
    assert.deepEqual(events(r, 'oom').map((e) => [e.line, e.attrs.tried_bytes, e.attrs.free_bytes]), [[4, 20 * 2 ** 20, 3 * 2 ** 20]]);
  } finally {
    r.dispose();
  }
});

test('stats percentages divide by 100: 45.3 % of the KV cache is 0.453', async () => {
  const text = [
    'INFO 06-11 21:00:00 metrics.py:341] Avg prompt throughput: 10.0 tokens/s, Avg generation throughput: 20.0 tokens/s, Running: 3 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 45.3%, CPU KV cache usage: 0.0%.',
    'INFO 06-11 21:00:10 metrics.py:341] Avg prompt throughput: 10.0 tokens/s, Avg generation throughput: 20.0 tokens/s, Running: 3 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 95.0%, CPU KV cache usage: 0.0%.',
  ].join('\n');
  const r = await runImporter(vllmLogImporter, { text, name: 'vllm.log', mtimeMs: Date.UTC(2024, 6, 1) });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(values(r, 'kv.usage').map((s) => s.v), [0.453, 0.95]);
  } finally {
    r.dispose();
  }
});

test('an OOM message hard-wrapped over lines (a terminal paste) is read whole: its figures were on the lines after it', async () => {
  const text = [
    '[2023-04-19 23:44:01,100] [INFO] [engine.py:100:step] step 12',
    'OutOfMemoryError: CUDA out of memory. Tried to allocate 198.00 MiB (GPU 0; 31.75',
    'GiB total capacity; 28.05 GiB already allocated; 137.69 MiB free; 28.08 GiB',
    'reserved in total by PyTorch) If reserved memory is >> allocated memory try',
    'setting max_split_size_mb to avoid fragmentation.',
    '[2023-04-19 23:44:03,404] [INFO] [launch.py:428:sigkill_handler] Killing subprocess 8432',
  ].join('\n');
  const r = await runImporter(vllmLogImporter, { text, name: 'ds.log' });
  try {
    assert.equal(r.error, null);
    const oom = events(r, 'oom');
    assert.equal(oom.length, 1);
    const GiB = 2 ** 30;
    assert.deepEqual([oom[0].line, oom[0].attrs.gpu, oom[0].attrs.capacity_bytes, oom[0].attrs.allocated_bytes, oom[0].attrs.reserved_bytes], [2, 0, Math.round(31.75 * GiB), Math.round(28.05 * GiB), Math.round(28.08 * GiB)]);
    assert.equal(oom[0].ts_ms, Date.UTC(2023, 3, 19, 23, 44, 1, 100));
    assert.match(oom[0].text, /31\.75 GiB total capacity; 28\.05 GiB already allocated/);
  } finally {
    r.dispose();
  }
});

test("review: torch 2.0's memory-fraction message, a figure a line, is read with its figures", async () => {
  const text = [
    'INFO 03-14 10:00:00 [engine.py:1] warming up',
    'ERROR 03-14 10:00:01 [engine.py:2] torch.cuda.OutOfMemoryError: Allocation on device 0 would exceed allowed memory. (out of memory)',
    'Currently allocated     : 16.08 GiB',
    'Requested               : 4.83 GiB',
    'Device limit            : 22.20 GiB',
    'Free (according to CUDA): 11.12 MiB',
    'PyTorch limit (set by user-supplied memory fraction)',
    '                        : 17179869184.00 GiB',
    'INFO 03-14 10:00:02 [engine.py:3] shutting down',
  ].join('\n');
  const r = await runImporter(vllmLogImporter, { text, name: 'frac.log', options: { year: 2026 } });
  try {
    const oom = events(r, 'oom');
    const GiB = 2 ** 30;
    assert.deepEqual(oom.map((e) => [e.attrs.gpu, e.attrs.allocated_bytes, e.attrs.tried_bytes, e.attrs.capacity_bytes, e.attrs.free_bytes]), [[0, Math.round(16.08 * GiB), Math.round(4.83 * GiB), Math.round(22.2 * GiB), Math.round(11.12 * 2 ** 20)]]);
  } finally {
    r.dispose();
  }
});

test("a graceful shutdown is one engine_stop (vLLM's line and uvicorn's within 10 s), TGI's launcher too; vLLM's client and executor wind-downs are not", async () => {
  const text = [
    'INFO 03-01 10:00:00 [api_server.py:1805] vLLM API server version 0.10.1.1',
    'INFO 03-01 10:10:00 [launcher.py:80] Shutting down FastAPI HTTP server.',
    'INFO:     Shutting down',
    'INFO:     Waiting for application shutdown.',
    'INFO:     Application shutdown complete.',
    'INFO 03-01 10:10:02 [ray_distributed_executor.py:120] Shutting down Ray distributed executor. If you see error log from logging.cc regarding SIGTERM received, please ignore because this is the expected termination process in Ray.',
    'INFO 03-01 10:10:03 [client.py:281] Shutting down MQLLMEngineClient output handler.',
    'INFO 03-01 10:30:00 [api_server.py:1805] vLLM API server version 0.10.1.1',
    'INFO 03-01 10:40:00 [launcher.py:80] Shutting down FastAPI HTTP server.',
    '2026-03-01T10:50:00.000000Z  INFO text_generation_launcher: Terminating webserver',
  ].join('\n');
  const r = await runImporter(vllmLogImporter, { text, options: { year: 2026 } });
  try {
    assert.equal(r.error, null, r.error?.message);
    assert.deepEqual(events(r, 'engine_stop').map((e) => [e.line, e.ts_ms]), [[2, Date.UTC(2026, 2, 1, 10, 10)], [9, Date.UTC(2026, 2, 1, 10, 40)], [10, Date.UTC(2026, 2, 1, 10, 50)]]);
  } finally {
    r.dispose();
  }
});
