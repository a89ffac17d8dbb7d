// Engine-log shapes seen in public issues that the log importer read wrong or not at all (issue 15):
// SGLang's current stats lines, time-only and missing prefixes, several stats lines a second; torchrun /
// PyTorch C++ lines with their own time, `[rank0]: Traceback`, pastes that start with `frame #3:`, glued
// stats lines, preemption warnings in other words. Each sample under test/samples/variants/ is the
// project's own, written in the shape of the public lines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { detectImporter } from '../../../node/engine/importers/registry';
import { kernelLogImporter } from '../../../node/engine/importers/kernel-log';
import { sglangLogImporter, tgiLogImporter, torchLogImporter, vllmLogImporter } from '../../../node/engine/importers/vllm-log';
import { events, runImporter, seriesRows, values } from './run-importer';

const sample = (name: string) => new URL(`../../samples/variants/${name}`, import.meta.url).pathname;
const head = (name: string) => readFileSync(sample(name)).subarray(0, 64 * 1024);

test('detection: SGLang, torchrun and vLLM logs get format ids of their own; torchrun is not a kernel log', () => {
  for (const f of ['sglang-current.log', 'sglang-time-only.log', 'sglang-no-prefix.log', 'sglang-ray-actor.log']) assert.equal(detectImporter(head(f), f)?.format, 'sglang-log', f);
  for (const f of ['torchrun-nccl-timeout.log', 'cpp-trace-paste.log']) assert.equal(detectImporter(head(f), f)?.format, 'torch-log', f);
  for (const f of ['vllm-with-torch-lines.log', 'vllm-glued-stats.log', 'vllm-preemption-wordings.log']) assert.equal(detectImporter(head(f), f)?.format, 'vllm-log', f);
  assert.equal(kernelLogImporter.detect(head('torchrun-nccl-timeout.log'), 'x.log'), 0);
});

test('SGLang current stats lines (comma form, prefill, full/swa token usage, speculative) become samples', async () => {
  const r = await runImporter(sglangLogImporter, { file: sample('sglang-current.log') });
  try {
    assert.equal(r.error, null);
    const t = (s: number, ms = 0) => Date.UTC(2025, 0, 21, 4, 40, s, ms);
    // Three decode lines in second 56: all kept, spread across it (they were one sample).
    assert.deepEqual(values(r, 'req.running', { tp: 'TP0', metric: 'sglang-log:#running-req' }), [
      { ts: t(55), v: 0 },
      { ts: t(56), v: 5 },
      { ts: t(56, 333), v: 5 },
      { ts: t(56, 666), v: 6 },
      { ts: t(57), v: 6 },
      { ts: t(58), v: 1 },
    ]);
    assert.deepEqual(values(r, 'req.waiting', { tp: 'TP0' }).map((x) => x.v), [0, 0, 1, 0, 0, 0]);
    assert.deepEqual(values(r, 'kv.usage', { tp: 'TP0' }).map((x) => x.v), [0.02, 0.29, 0.3, 0.31, 0.31, 0.42]);
    assert.deepEqual(values(r, 'kv.used_tokens').map((x) => x.v), [20800, 21000, 21200, 166144]);
    assert.deepEqual(values(r, 'tokens.generation_rate').map((x) => x.v), [144.95, 140.27, 136.39, 3.22]);
    assert.deepEqual(values(r, 'tokens.prompt_rate').map((x) => x.v), [1834.2, 4099.38]);
    assert.deepEqual(values(r, 'kv.swa_usage').map((x) => x.v), [0.01]);
    assert.deepEqual(values(r, 'spec.accept_len').map((x) => x.v), [3.55]);
    assert.deepEqual(values(r, 'spec.acceptance_rate').map((x) => x.v), [0.51]);
    // Prefill lines' token counts, summed: prefix-cache lookups and hits.
    assert.deepEqual(values(r, 'kv.prefix_queries'), [
      { ts: t(55), v: 640 },
      { ts: t(57), v: 1640 },
    ]);
    assert.deepEqual(values(r, 'kv.prefix_hits').map((x) => x.v), [128, 828]);
    assert.equal(seriesRows(r).find((s) => s.name === 'kv.prefix_hits')?.kind, 'counter');
    assert.equal(events(r, 'version').length, 1);
    assert.equal(r.warnings.length, 1);
    assert.match(r.warnings[0], /3 stats lines shared their second with another .*spread evenly/);
  } finally {
    r.dispose();
  }
});

test('SGLang with a time-only prefix `[23:59:58 TP0]`: read, dated from the mtime across midnight, warned', async () => {
  const r = await runImporter(sglangLogImporter, { file: sample('sglang-time-only.log'), mtimeMs: Date.UTC(2025, 0, 22, 0, 5) });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(values(r, 'req.running', { tp: 'TP0' }), [
      { ts: Date.UTC(2025, 0, 21, 23, 59, 58), v: 3 },
      { ts: Date.UTC(2025, 0, 21, 23, 59, 59), v: 4 },
      { ts: Date.UTC(2025, 0, 22, 0, 0, 0), v: 4 },
    ]);
    assert.equal(r.warnings.length, 1);
    assert.match(r.warnings[0], /times of day without a date: placed at the file's modification time/);
  } finally {
    r.dispose();
  }
});

test('SGLang stats lines with no prefix at all: every one kept, one second apart from the mtime, warned', async () => {
  const r = await runImporter(sglangLogImporter, { file: sample('sglang-no-prefix.log'), mtimeMs: 1_800_000_000_000 });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(values(r, 'req.running'), [
      { ts: 1_800_000_000_000, v: 2 },
      { ts: 1_800_000_001_000, v: 3 },
      { ts: 1_800_000_002_000, v: 3 },
    ]);
    assert.match(r.warnings.join('\n'), /no timestamps in the file: used the file's modification time/);
    assert.match(r.warnings.join('\n'), /3 stats lines have no time of their own: placed one second apart/);
  } finally {
    r.dispose();
  }
});

test("a Ray actor's prefix before SGLang's bracket: the bracket's time and TP, the actor as process", async () => {
  const r = await runImporter(sglangLogImporter, { file: sample('sglang-ray-actor.log') });
  try {
    assert.deepEqual(values(r, 'kv.used_tokens', { tp: 'TP0' }), [
      { ts: Date.UTC(2025, 0, 21, 13, 53, 37), v: 42414 },
      { ts: Date.UTC(2025, 0, 21, 13, 53, 37, 500), v: 42654 },
      { ts: Date.UTC(2025, 0, 21, 13, 53, 38), v: 42894 },
    ]);
  } finally {
    r.dispose();
  }
});

test('torchrun lines: the NCCL timeout at its own time with its rank; `[rank0]: Traceback` is a traceback', async () => {
  const r = await runImporter(torchLogImporter, { file: sample('torchrun-nccl-timeout.log'), mtimeMs: Date.UTC(2025, 5, 1) });
  try {
    assert.equal(r.error, null);
    const nccl = events(r, 'nccl_timeout');
    assert.equal(nccl.length, 2);
    assert.deepEqual(
      nccl.map((e) => [e.ts_ms, e.attrs.rank, e.attrs.seq, e.attrs.op, e.attrs.timeout_ms, e.attrs.ran_ms, e.severity]),
      [
        [Date.UTC(2025, 2, 21, 2, 7, 8, 408), 0, 311, 'ALLREDUCE', 600000, 600060, 'critical'],
        [Date.UTC(2025, 2, 21, 2, 7, 8, 414), 1, 311, 'ALLREDUCE', 600000, 600067, 'critical'],
      ],
    );
    const tb = events(r, 'traceback');
    assert.equal(tb.length, 1);
    assert.equal(tb[0].attrs.exception, 'torch.distributed.DistBackendError');
    assert.equal(tb[0].attrs.frames, 2);
    assert.equal(tb[0].attrs.rank, 0);
    assert.equal(tb[0].ts_ms, Date.UTC(2025, 2, 21, 2, 7, 8, 465));
    const warn = events(r, 'log').find((e) => e.text.includes('process group was not destroyed'))!;
    assert.deepEqual([warn.severity, warn.attrs.rank, warn.attrs.file, warn.ts_ms], ['warning', 1, 'ProcessGroupNCCL.cpp:1250', Date.UTC(2025, 2, 21, 2, 7, 9, 1)]);
    // The year-less times took the mtime's year, as every year-less log does (no extra warning).
    assert.deepEqual(r.warnings, []);
  } finally {
    r.dispose();
  }
});

test('PyTorch C++ lines inside a vLLM log carry their own time (they took the line before\'s, minutes off)', async () => {
  const r = await runImporter(vllmLogImporter, { file: sample('vllm-with-torch-lines.log'), mtimeMs: Date.UTC(2025, 11, 1) });
  try {
    const nccl = events(r, 'nccl_timeout');
    assert.equal(nccl.length, 1);
    assert.equal(nccl[0].ts_ms, Date.UTC(2025, 9, 25, 7, 0, 43, 721));
    assert.deepEqual([nccl[0].attrs.rank, nccl[0].attrs.process, nccl[0].attrs.pid], [1, 'VllmWorker', 194255]);
    assert.equal(events(r, 'nccl_error')[0]?.ts_ms, Date.UTC(2025, 9, 25, 7, 0, 43, 722));
    assert.equal(events(r, 'engine_crash').length, 1);
  } finally {
    r.dispose();
  }
});

test('a paste that starts with `frame #3:` lines: C++ traces are tracebacks, the NCCL timeout in what() is found', async () => {
  const r = await runImporter(torchLogImporter, { file: sample('cpp-trace-paste.log'), mtimeMs: 1_800_000_000_000 });
  try {
    assert.equal(r.error, null);
    const tb = events(r, 'traceback');
    assert.deepEqual(
      tb.map((e) => [e.attrs.language, e.attrs.frames, e.line]),
      [
        ['c++', 3, 1],
        ['c++', 2, 7],
      ],
    );
    assert.equal(tb[1].attrs.raised_from, 'checkTimeout');
    assert.equal(events(r, 'engine_crash')[0]?.attrs.exception, 'c10::DistBackendError');
    const nccl = events(r, 'nccl_timeout');
    assert.deepEqual([nccl.length, nccl[0]?.attrs.rank, nccl[0]?.attrs.seq], [1, 3, 42]);
    assert.match(r.warnings.join('\n'), /used the file's modification time/);
  } finally {
    r.dispose();
  }
});

test('stats lines glued without a newline: each one read (the second and third were lost)', async () => {
  const r = await runImporter(vllmLogImporter, { file: sample('vllm-glued-stats.log'), mtimeMs: Date.UTC(2025, 11, 1) });
  try {
    const t = (m: number, s: number) => Date.UTC(2025, 6, 28, 6, m, s);
    assert.deepEqual(values(r, 'kv.usage', { engine: '0' }).map((x) => ({ ts: x.ts, v: +x.v.toFixed(4) })), [
      { ts: t(40, 59), v: 0.912 },
      { ts: t(41, 9), v: 0.916 },
      { ts: t(41, 19), v: 0.919 },
      { ts: t(41, 29), v: 0.923 },
    ]);
    assert.deepEqual(values(r, 'req.waiting').map((x) => x.v), [0, 0, 1, 2]);
  } finally {
    r.dispose();
  }
});

test('preemption warnings in other words than upstream are preemptions; a resumption is not', async () => {
  const r = await runImporter(vllmLogImporter, { file: sample('vllm-preemption-wordings.log'), mtimeMs: Date.UTC(2025, 11, 1) });
  try {
    const p = events(r, 'preemption');
    assert.deepEqual(
      p.map((e) => [e.line, e.attrs.mode, e.attrs.cumulative]),
      [
        [1, 'RECOMPUTE', 1],
        [2, 'RECOMPUTE', null],
        [3, 'SWAP', null],
      ],
    );
    assert.equal(events(r, 'log').length, 1);
  } finally {
    r.dispose();
  }
});

test('uvicorn access lines: counted by status class, 5xx as events; a stats line glued to one is still read', async () => {
  const p = '(APIServer pid=3646)';
  const text = [
    `${p} INFO 07-28 06:40:59 [loggers.py:271] Engine 000: Avg prompt throughput: 10.0 tokens/s, Avg generation throughput: 100.0 tokens/s, Running: 3 reqs, Waiting: 0 reqs, GPU KV cache usage: 10.0%, Prefix cache hit rate: 0.0%`,
    `${p} INFO:     10.0.0.7:51234 - "POST /v1/chat/completions HTTP/1.1" 200 OK`,
    `${p} INFO:     10.0.0.8:51235 - "POST /v1/completions HTTP/1.1" 511 Network Authentication Required`,
    // The newline after this access line was lost: the stats line behind it is a sample of its own.
    `${p} INFO:     10.0.0.9:51236 - "GET /health HTTP/1.1" 200 OK${p} INFO 07-28 06:41:09 [loggers.py:271] Engine 000: Avg prompt throughput: 20.0 tokens/s, Avg generation throughput: 200.0 tokens/s, Running: 4 reqs, Waiting: 1 reqs, GPU KV cache usage: 20.0%, Prefix cache hit rate: 0.0%`,
  ].join('\n');
  const r = await runImporter(vllmLogImporter, { text, name: 'vllm.log', mtimeMs: Date.UTC(2025, 11, 1) });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(values(r, 'kv.usage', { engine: '0' }).map((x) => x.v), [0.1, 0.2]);
    const errors = events(r, 'http_error');
    assert.deepEqual(errors.map((e) => [e.line, e.attrs.status, e.attrs.method, e.attrs.path]), [[3, 511, 'POST', '/v1/completions']]);
    assert.deepEqual(values(r, 'http.requests', { status: '2xx' }).map((x) => x.v), [2]);
  } finally {
    r.dispose();
  }
});

test('an SGLang scheduler death announced on one line (`Scheduler hit an exception: Traceback …`), behind docker compose\'s `service | `: tracebacks, OOMs and the crash', async () => {
  const f = 'sglang-scheduler-crash-compose.log';
  assert.equal(detectImporter(head(f), f)?.format, 'sglang-log');
  const r = await runImporter(sglangLogImporter, { file: sample(f) });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(r.warnings, []);
    const t = Date.UTC(2025, 5, 6, 10, 23, 37);
    // Each rank's traceback is its own (TP0's announcement ends TP1's), ending in its OOM.
    assert.deepEqual(
      events(r, 'traceback').map((e) => [e.line, e.ts_ms, e.attrs.exception, e.attrs.frames]),
      [
        [3, t, 'torch.OutOfMemoryError', 2],
        [10, t, 'torch.OutOfMemoryError', 1],
      ],
    );
    assert.equal(events(r, 'oom').length, 2);
    assert.deepEqual(
      events(r, 'engine_crash').map((e) => [e.line, e.text.slice(0, 52)]),
      [
        [3, 'Scheduler hit an exception: torch.OutOfMemoryError: '],
        [10, 'Scheduler hit an exception: torch.OutOfMemoryError: '],
        [15, 'Received sigquit from a child process. It usually me'],
      ],
    );
    assert.deepEqual(values(r, 'kv.usage').map((s) => s.v), [0.41, 0.63]);
  } finally {
    r.dispose();
  }
});

test("stern's `<pod> <container>` before vLLM's lines; another process's line amid a traceback is its own; a worker's prefix inside the engine core's", async () => {
  const f = 'vllm-engine-interleaved-stern.log';
  assert.equal(detectImporter(head(f), f)?.format, 'vllm-log');
  const r = await runImporter(vllmLogImporter, { file: sample(f), mtimeMs: Date.UTC(2025, 11, 1) });
  try {
    assert.equal(r.error, null);
    const tb = events(r, 'traceback');
    assert.equal(tb.length, 1);
    // The API server's access line did not become the exception.
    assert.equal(tb[0].attrs.exception, 'IndexError');
    assert.equal(tb[0].attrs.frames, 1);
    assert.equal(tb[0].attrs.process, 'EngineCore_DP0');
    assert.deepEqual(values(r, 'http.requests', { status: '2xx' }).length, 1);
    assert.deepEqual(events(r, 'engine_crash').map((e) => e.line), [2, 9]);
    assert.deepEqual(values(r, 'kv.usage').map((s) => [s.ts, s.v]), [[Date.UTC(2025, 9, 27, 22, 25, 20), 0.713]]);
    const worker = events(r).find((e) => e.line === 8)!;
    assert.equal(worker.attrs.process, 'VllmWorker');
    assert.equal(worker.severity, 'warning');
  } finally {
    r.dispose();
  }
});

test("a collector's bracketed time before SGLang's own, HiSparse's `gpu token usage`; a CI's `[RFC 3339]` before vLLM's line", async () => {
  const f = 'sglang-collector-brackets.log';
  assert.equal(detectImporter(head(f), f)?.format, 'sglang-log');
  const r = await runImporter(sglangLogImporter, { file: sample(f) });
  try {
    assert.equal(r.error, null);
    // SGLang's own bracket (01:44) is the line's time, as on every other SGLang line.
    assert.deepEqual(values(r, 'kv.usage').map((s) => [s.ts, s.v]), [[Date.UTC(2025, 2, 11, 1, 44, 20), 0.61], [Date.UTC(2025, 2, 11, 1, 44, 27), 0.62], [Date.UTC(2025, 2, 11, 1, 44, 34), 0.64]]);
    assert.deepEqual(values(r, 'kv.used_tokens').map((s) => s.v), [40211, 41022, 41908]);
  } finally {
    r.dispose();
  }
  const ci = '[2025-05-22T05:33:18Z] ERROR 05-21 22:33:18 [core.py:396] EngineCore failed to start.\n[2025-05-22T05:33:18Z] Traceback (most recent call last):\n[2025-05-22T05:33:18Z]   File "/vllm/v1/engine/core.py", line 387, in run_engine_core\n[2025-05-22T05:33:18Z] RuntimeError: Engine core initialization failed. See root cause above.\n';
  const c = await runImporter(vllmLogImporter, { text: ci, name: 'ci.log', mtimeMs: Date.UTC(2026, 0, 1) });
  try {
    assert.equal(c.error, null);
    assert.deepEqual(events(c, 'traceback').map((e) => [e.ts_ms, e.attrs.exception]), [[Date.UTC(2025, 4, 22, 5, 33, 18), 'RuntimeError']]);
    assert.deepEqual(events(c, 'engine_crash').map((e) => e.ts_ms), [Date.UTC(2025, 4, 22, 5, 33, 18)]);
  } finally {
    c.dispose();
  }
});

test("TGI 3.x's launcher under its shard-manager span and its Python server's loguru lines: TGI's, each at its own time; a shard's death a crash", async () => {
  const text = [
    '2025-07-21T16:05:30.101442Z  INFO text_generation_launcher: Args {',
    '2025-07-21 16:05:35.987 | INFO     | text_generation_server.utils.import_utils:<module>:76 - Detected system cuda',
    '2025-07-21T16:08:56.034685Z ERROR shard-manager: text_generation_launcher: Shard complete standard error output:',
    '2025-07-21T16:08:57.120000Z ERROR text_generation_launcher: Shard 0 crashed',
    '',
  ].join('\n');
  assert.equal(detectImporter(Buffer.from(text), 'tgi.log')?.format, 'tgi-log');
  const r = await runImporter(tgiLogImporter, { text, name: 'tgi.log' });
  try {
    assert.equal(r.error, null);
    const loguru = events(r).find((e) => e.line === 2)!;
    assert.equal(loguru.ts_ms, Date.UTC(2025, 6, 21, 16, 5, 35, 987));
    assert.equal(loguru.text, 'Detected system cuda');
    assert.deepEqual(events(r, 'engine_crash').map((e) => e.line), [3, 4]);
  } finally {
    r.dispose();
  }
});

test("vLLM's SpecDecoding line belongs to the engine whose stats line it follows (data-parallel engines' series kept apart)", async () => {
  const stats = (e: string, kv: string) => `(APIServer pid=7) INFO 07-13 17:41:54 [loggers.py:271] Engine ${e}: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 5.9 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: ${kv}%, Prefix cache hit rate: 0.0%`;
  const spec = (len: string) => `(APIServer pid=7) INFO 07-13 17:41:54 [metrics.py:101] SpecDecoding metrics: Mean acceptance length: ${len}, Accepted throughput: 16.70 tokens/s, Drafted throughput: 18.20 tokens/s, Accepted: 167 tokens, Drafted: 182 tokens, Avg Draft acceptance rate: 91.8%`;
  const text = [stats('000', '1.0'), spec('1.92'), stats('001', '2.0'), spec('2.40'), ''].join('\n');
  const r = await runImporter(vllmLogImporter, { text, name: 'dp.log', mtimeMs: Date.UTC(2026, 7, 1) });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(values(r, 'spec.accept_len', { engine: '0' }).map((s) => s.v), [1.92]);
    assert.deepEqual(values(r, 'spec.accept_len', { engine: '1' }).map((s) => s.v), [2.4]);
  } finally {
    r.dispose();
  }
});

test("tensor-parallel workers' tracebacks printed over each other: each is its process's, whole, with its own exception", async () => {
  const w = (rank: number, body: string) => `(VllmWorker rank=${rank} pid=${100 + rank}) ERROR 03-14 09:00:05 [multiproc_executor.py:527] ${body}`;
  const text = [
    w(0, 'Traceback (most recent call last):'),
    w(1, 'Traceback (most recent call last):'),
    w(0, '  File "/v/worker.py", line 10, in execute_model'),
    w(1, '  File "/v/worker.py", line 10, in execute_model'),
    w(0, '    out = self.model(x)'),
    w(1, '    out = self.model(x)'),
    w(0, 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.10 GiB of which 1.00 GiB is free.'),
    w(1, 'RuntimeError: NCCL communicator was aborted on rank 1.'),
    '',
  ].join('\n');
  const r = await runImporter(vllmLogImporter, { text, name: 'workers.log', mtimeMs: Date.UTC(2026, 5, 1) });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(
      events(r, 'traceback')
        .map((e) => [e.line, e.attrs.pid, e.attrs.exception, e.attrs.frames])
        .sort((a, b) => Number(a[0]) - Number(b[0])),
      [
        [1, 100, 'torch.OutOfMemoryError', 1],
        [2, 101, 'RuntimeError', 1],
      ],
    );
    assert.equal(events(r, 'log').length, 0, 'no frame left over as a log line');
  } finally {
    r.dispose();
  }
});

test("a JSON document that names an engine (a trace's service, a config) is not that engine's log; a log line carrying JSON still is", () => {
  const doc = (s: string) => detectImporter(Buffer.from(s), 'x.json')?.format ?? null;
  assert.equal(doc('{"scope":{"name":"sglang"},"spans":[{"traceId":"4bf9","spanId":"00f0","name":"Req r1","startTimeUnixNano":"1"}]}\n'), null);
  assert.equal(doc('{\n  "spans": [\n    {\n      "name": "sglang request",\n      "service": "vLLM"\n    }\n  ]\n}\n'), null);
  assert.equal(doc('INFO 03-14 10:00:00 [api_server.py:1] vLLM API server version 0.9.1 {"model": "x"}\n'), 'vllm-log');
});

test('NCCL: a timeout is one event at its global rank (the group rank kept apart), its echoes error lines; watchdogs that saw the work stop; what failed, and the network under it', async () => {
  const text = [
    "[rank13]:[E218 04:54:22.102030 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=216, OpType=ALLTOALL_BASE, NumelIn=4096, NumelOut=4096, Timeout(ms)=600000) ran for 600045 milliseconds before timing out.",
    "[rank13]:[E218 04:54:22.203040 ProcessGroupNCCL.cpp:1785] [PG ID 1 PG GUID 3 Rank 1] Process group watchdog thread terminated with exception: [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=216, OpType=ALLTOALL_BASE, NumelIn=4096, NumelOut=4096, Timeout(ms)=600000) ran for 600045 milliseconds before timing out.",
    "[rank5]:[F218 04:58:01.000100 ProcessGroupNCCL.cpp:1306] [PG ID 0 PG GUID 0(default_pg) Rank 5] [PG ID 0 PG GUID 0(default_pg) Rank 5] ProcessGroupNCCL's watchdog got stuck for 480 seconds without making progress in monitoring enqueued collectives.",
    "[rank2]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:317, remote process exited or there was a network error, NCCL version 2.21.5",
    'gpu-node-3:4021:4102 [2] NCCL WARN NET/IB : Got completion from peer 10.0.0.7<41822> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid ::ffff:10.0.0.8 remoteGids::ffff:10.0.0.7',
    'gpu-node-3:4021:4021 [2] NCCL WARN NET/IB : No device found.',
  ].join('\n');
  const r = await runImporter(torchLogImporter, { text, name: 'train.log', options: { year: 2025 } });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(events(r, 'nccl_timeout').map((e) => [e.line, e.attrs.rank, e.attrs.pg_rank ?? null, e.attrs.op ?? null, e.attrs.watchdog ?? null, e.attrs.timeout_ms]), [
      [1, 13, 1, 'ALLTOALL_BASE', null, 600000],
      [3, 5, null, null, 'stuck', 480000],
    ]);
    assert.deepEqual(events(r, 'nccl_error').map((e) => [e.line, e.attrs.error ?? null]), [
      [2, 'timeout'],
      [4, 'remote'],
      [5, 'network'],
    ]);
    assert.equal(events(r, 'log').find((e) => e.line === 6)?.severity, 'warning', 'start-up probing is no failure');
  } finally {
    r.dispose();
  }
  // SGLang: its scheduler watchdog killing a hung step, under its own bracket (detected as SGLang by that alone),
  // and its "child proces." crash line as it spells it.
  const sglang = [
    '[2025-03-09 00:57:15 TP4] Watchdog timeout (self.watchdog_timeout=300)',
    '[2025-03-09 00:57:15 TP6] Watchdog timeout (self.watchdog_timeout=300)',
    '[2025-03-09 00:57:16] Received sigquit from a child proces. It usually means the child failed.',
  ].join('\n');
  assert.equal(detectImporter(Buffer.from(sglang), 's.log')?.format, 'sglang-log');
  const s = await runImporter(sglangLogImporter, { text: sglang, name: 's.log' });
  try {
    assert.deepEqual(events(s, 'nccl_timeout').map((e) => [e.attrs.watchdog, e.attrs.rank, e.attrs.timeout_ms]), [
      ['scheduler', 4, 300000],
      ['scheduler', 6, 300000],
    ]);
    assert.equal(events(s, 'engine_crash').length, 1);
  } finally {
    s.dispose();
  }
});

test("vLLM's block-letter start-up logo: its version line is the start's banner (no `vLLM API server version` line in newer versions)", async () => {
  const at = '(APIServer pid=11980) INFO 02-12 19:33:39 [utils.py:325]';
  const text = [
    `${at} `,
    `${at}        █     █     █▄   ▄█`,
    `${at}  ▄▄ ▄█ █     █     █ ▀▄▀ █  version 0.15.1`,
    `${at}   █▄█▀ █     █     █     █  model   openai/whisper-large-v3`,
    `${at}    ▀▀  ▀▀▀▀▀ ▀▀▀▀▀ ▀     ▀`,
    "(APIServer pid=11980) INFO 02-12 19:36:36 [api_server.py:946] Starting vLLM API server 0 on http://0.0.0.0:8000",
  ].join('\n');
  const r = await runImporter(vllmLogImporter, { text, mtimeMs: Date.UTC(2026, 2, 1) });
  try {
    assert.equal(r.error, null);
    const t = Date.UTC(2026, 1, 12, 19, 33, 39);
    assert.deepEqual(events(r, 'version').map((e) => [e.ts_ms, e.attrs.version]), [[t, '0.15.1']]);
    assert.deepEqual(events(r, 'engine_start').map((e) => [e.ts_ms, e.attrs.version]), [[t, '0.15.1']]);
  } finally {
    r.dispose();
  }
});
