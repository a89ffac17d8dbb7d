// Engine and node logs as they reach an incident in practice: wrapped by the container runtime (Docker's
// json-file driver, the kubelet's CRI files), tracebacks under vLLM's process prefix or chained by Python,
// the engine's death as a traceback's last line, NCCL's own debug lines, and node messages shipped as JSON.
// The texts are the project's own, written in the shape of lines pasted in public vLLM, PyTorch and NCCL
// issues.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { detectImporter } from '../../../node/engine/importers/registry';
import { jsonlLogImporter } from '../../../node/engine/importers/jsonl-log';
import { parseOom } from '../../../node/engine/importers/oom-text';
import { sglangLogImporter, tgiLogImporter, torchLogImporter, unwrapContainerLine, vllmLogImporter } from '../../../node/engine/importers/vllm-log';
import { events, runImporter, values } from './run-importer';

const V1_LINES = [
  'INFO 05-12 01:46:12 [api_server.py:1090] vLLM API server version 0.10.1',
  '(APIServer pid=1) INFO 05-12 01:47:02 [loggers.py:123] Engine 000: Avg prompt throughput: 75.3 tokens/s, Avg generation throughput: 34.4 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 33.7%, Prefix cache hit rate: 96.3%',
  '(APIServer pid=1) INFO 05-12 01:47:12 [loggers.py:123] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 92.3 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 20.0%, Prefix cache hit rate: 96.4%',
  '(EngineCore_DP0 pid=213) ERROR 05-12 01:48:02 [core.py:700] EngineCore failed',
  '(EngineCore_DP0 pid=213) Traceback (most recent call last):',
  '(EngineCore_DP0 pid=213)   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 691, in run_engine_core',
  '(EngineCore_DP0 pid=213)     engine_core.run_busy_loop()',
  '(EngineCore_DP0 pid=213)   File "/usr/local/lib/python3.12/dist-packages/torch/utils/_contextlib.py", line 116, in decorate_context',
  '(EngineCore_DP0 pid=213)     return func(*args, **kwargs)',
  '(EngineCore_DP0 pid=213) torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.19 GiB of which 1.50 GiB is free. Including non-PyTorch memory, this process has 77.68 GiB memory in use. Of the allocated memory 71.22 GiB is allocated by PyTorch, with 1.10 GiB allocated in private pools (e.g., CUDA Graphs), and 2.41 GiB is reserved by PyTorch but unallocated.',
  '(APIServer pid=1) ERROR 05-12 01:48:03 [async_llm.py:430] AsyncLLM output_handler failed.',
];

const t = (min: number, s: number, ms = 0) => Date.UTC(2025, 4, 12, 1, min, s, ms);

test("a container runtime's wrapping is undone: Docker json-file and CRI lines read as the engine's own", async () => {
  const docker = V1_LINES.map((l, i) => JSON.stringify({ log: `${l}\n`, stream: i % 2 ? 'stderr' : 'stdout', time: new Date(t(46, 12) + i * 1000).toISOString() })).join('\n');
  const cri = V1_LINES.map((l, i) => `${new Date(t(46, 12) + i * 1000).toISOString().replace('Z', '123456Z')} ${i % 2 ? 'stderr' : 'stdout'} F ${l}`).join('\n');
  assert.equal(unwrapContainerLine('{"log":"x\\n","stream":"stdout","time":"2025-05-12T01:46:12.5Z"}'), '2025-05-12T01:46:12.5Z x');
  assert.equal(unwrapContainerLine('2025-05-12T01:46:12.123456789Z stderr P part'), '2025-05-12T01:46:12.123456789Z part');
  assert.equal(unwrapContainerLine('{"log": 3}'), '{"log": 3}');
  for (const text of [docker, cri]) {
    assert.equal(detectImporter(Buffer.from(text), 'container.log')?.format, 'vllm-log');
    const r = await runImporter(vllmLogImporter, { text, options: { year: 2025 } });
    try {
      assert.equal(r.error, null);
      // The runtime's own time of each line (ms-exact), not the engine's whole seconds.
      assert.deepEqual(values(r, 'kv.usage'), [
        { ts: t(46, 13), v: 0.337 },
        { ts: t(46, 14), v: 0.2 },
      ]);
      const [tb] = events(r, 'traceback');
      assert.equal(tb.attrs.exception, 'torch.OutOfMemoryError');
      assert.equal(tb.attrs.frames, 2);
      assert.equal(events(r, 'oom').length, 1);
      assert.ok(!events(r, 'log').some((e) => /stdout|stderr/.test(e.text)));
    } finally {
      r.dispose();
    }
  }
});

test("a traceback under vLLM's process prefix keeps its frames' indentation: one traceback, the OOM's numbers with torch 2.4's private pools", async () => {
  const r = await runImporter(vllmLogImporter, { text: V1_LINES.join('\n'), options: { year: 2025 } });
  try {
    const tbs = events(r, 'traceback');
    assert.equal(tbs.length, 1, JSON.stringify(events(r)));
    assert.equal(tbs[0].attrs.frames, 2);
    assert.equal(tbs[0].attrs.process, 'EngineCore_DP0');
    assert.equal(events(r, 'log').some((e) => e.text.includes('File "')), false);
    const [oom] = events(r, 'oom');
    assert.equal(oom.attrs.allocated_bytes, Math.round(71.22 * 2 ** 30));
    assert.equal(oom.attrs.reserved_unallocated_bytes, Math.round(2.41 * 2 ** 30));
  } finally {
    r.dispose();
  }
  // The older wording still parses.
  assert.equal(parseOom('CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 8 GiB of which 1 MiB is free. Of the allocated memory 6.00 GiB is allocated by PyTorch, and 1.00 GiB is reserved by PyTorch but unallocated.')?.reserved_bytes, 7 * 2 ** 30);
});

test("Python's chained tracebacks are one; one that ends in the engine's death is an engine crash", async () => {
  const p = 'ERROR 08-29 02:12:22 async_llm_engine.py:56]';
  const text = [
    'INFO 08-29 02:12:02 metrics.py:406] Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 0.0 tokens/s, Running: 27 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 2.9%, CPU KV cache usage: 0.0%.',
    `${p} Engine background task failed`,
    `${p} Traceback (most recent call last):`,
    `${p}   File "/usr/local/lib/python3.10/dist-packages/vllm/engine/async_llm_engine.py", line 631, in run_engine_loop`,
    `${p}     done, _ = await asyncio.wait(`,
    `${p} asyncio.exceptions.CancelledError`,
    `${p} `,
    `${p} During handling of the above exception, another exception occurred:`,
    `${p} `,
    `${p} Traceback (most recent call last):`,
    `${p}   File "/usr/local/lib/python3.10/dist-packages/vllm/engine/async_llm_engine.py", line 630, in run_engine_loop`,
    `${p}     async with asyncio_timeout(ENGINE_ITERATION_TIMEOUT_S):`,
    `${p} asyncio.exceptions.TimeoutError`,
    'INFO:     10.0.0.7:51234 - "POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error',
    'Traceback (most recent call last):',
    '  File "/usr/local/lib/python3.10/dist-packages/uvicorn/protocols/http/httptools_impl.py", line 399, in run_asgi',
    '    result = await app(  # type: ignore[func-returns-value]',
    'vllm.engine.async_llm_engine.AsyncEngineDeadError: Background loop has errored already.',
  ].join('\n');
  const r = await runImporter(vllmLogImporter, { text, options: { year: 2025 } });
  try {
    const tbs = events(r, 'traceback');
    assert.deepEqual(
      tbs.map((e) => [e.line, e.attrs.exception, e.attrs.frames]),
      [
        [3, 'asyncio.exceptions.TimeoutError', 2],
        [15, 'vllm.engine.async_llm_engine.AsyncEngineDeadError', 1],
      ],
    );
    assert.equal(events(r, 'log').filter((e) => e.text.trim() === '' || e.text.startsWith('During handling')).length, 0);
    const crash = events(r, 'engine_crash');
    assert.equal(crash.length, 1);
    assert.equal(crash[0].severity, 'critical');
    assert.equal(crash[0].attrs.exception, 'vllm.engine.async_llm_engine.AsyncEngineDeadError');
  } finally {
    r.dispose();
  }
});

test("NCCL's debug output: a log of its own is claimed, and its WARN lines are warnings", async () => {
  const text = [
    'gpu004:2200689:2200706 [3] NCCL INFO NCCL_IB_HCA set to mlx5_0',
    'gpu004:2200689:2200706 [3] misc/socket.cc:49 NCCL WARN socketProgress: Connection closed by remote peer gpu005<52870>',
    'gpu004:2200689:2200706 [3] NCCL INFO misc/socket.cc:749 -> 6',
    'gpu004:2200689:2200706 [3] proxy.cc:1143 NCCL WARN Socket recv failed while polling for opId=0x7f4774cc9620',
  ].join('\n');
  assert.equal(detectImporter(Buffer.from(text), 'nccl.log')?.format, 'torch-log');
  const r = await runImporter(torchLogImporter, { text, mtimeMs: Date.UTC(2025, 0, 1) });
  try {
    assert.deepEqual(
      events(r).map((e) => e.severity),
      ['info', 'warning', 'info', 'warning'],
    );
  } finally {
    r.dispose();
  }
});

test('node messages shipped as JSON lines (a log shipper, journalctl -o json) are JSON-lines, not a kernel log, with their own times', async () => {
  const shipped = [
    JSON.stringify({ date: 1739509421.123, kernel: 'node-7', message: 'mlx5_core 0000:ab:00.0 mlx5_5: Port: 1 Link ACTIVE' }),
    JSON.stringify({ date: 1739509422.654, kernel: 'node-7', message: 'NVRM: Xid (PCI:0000:2b:00): 79, pid=2911, name=python3, GPU has fallen off the bus.' }),
  ].join('\n');
  const journal = [
    JSON.stringify({ __REALTIME_TIMESTAMP: '1739509422654321', PRIORITY: '4', _TRANSPORT: 'kernel', MESSAGE: 'NVRM: Xid (PCI:0000:3b:00): 94, pid=2911, name=python3, Contained ECC error' }),
    JSON.stringify({ __REALTIME_TIMESTAMP: '1739509423000000', PRIORITY: '3', _TRANSPORT: 'kernel', MESSAGE: 'nvidia-nvswitch0: link 3 down' }),
  ].join('\n');
  for (const text of [shipped, journal]) assert.equal(detectImporter(Buffer.from(text), 'node.log')?.format, 'jsonl-log');
  const a = await runImporter(jsonlLogImporter, { text: shipped, mtimeMs: 1 });
  const b = await runImporter(jsonlLogImporter, { text: journal, mtimeMs: 1 });
  try {
    assert.deepEqual(
      events(a).map((e) => [e.ts_ms, e.kind]),
      [
        [1739509421123, 'log'],
        [1739509422654, 'xid'],
      ],
    );
    assert.deepEqual(
      events(b).map((e) => [e.ts_ms, e.kind, e.severity, e.text.slice(0, 20)]),
      [
        [1739509422654, 'xid', 'error', 'NVRM: Xid (PCI:0000:'],
        [1739509423000, 'log', 'error', 'nvidia-nvswitch0: li'],
      ],
    );
  } finally {
    a.dispose();
    b.dispose();
  }
});

test("journald around the engine's lines (journalctl -u, classic and short-iso) and PyTorch ≥ 2.2's bracket-less glog lines", async () => {
  const journal = V1_LINES.slice(0, 3)
    .map((l, i) => `May 12 01:4${6 + i}:12 gpu-node-3 vllm[213]: ${l}`)
    .concat(V1_LINES.slice(3, 5).map((l) => `2025-05-12T01:48:02+0000 gpu-node-3 vllm[213]: ${l}`))
    .join('\n');
  assert.equal(detectImporter(Buffer.from(journal), 'vllm.journal')?.format, 'vllm-log');
  const r = await runImporter(vllmLogImporter, { text: journal, options: { year: 2025 } });
  try {
    assert.deepEqual(values(r, 'kv.usage').map((x) => x.ts), [t(47, 2), t(47, 12)]);
    assert.equal(events(r, 'version').length, 1);
    assert.ok(!events(r).some((e) => e.text.includes('gpu-node-3')));
  } finally {
    r.dispose();
  }
  const torchrun = [
    'W0325 20:57:27.610000 2606 site-packages/torch/distributed/elastic/multiprocessing/api.py:897] Sending process 2631 closing signal SIGTERM',
    'E0325 20:57:27.620000 2606 site-packages/torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -9) local_rank: 5 (pid: 2630) of binary: /usr/bin/python',
    'Traceback (most recent call last):',
    '  File "/usr/local/bin/torchrun", line 8, in <module>',
    '    sys.exit(main())',
    'torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ',
  ].join('\n');
  assert.equal(detectImporter(Buffer.from(torchrun), 'torchrun.log')?.format, 'torch-log');
  const g = await runImporter(torchLogImporter, { text: torchrun, options: { year: 2025 } });
  try {
    const lines = events(g, 'log');
    assert.deepEqual(
      lines.map((e) => [e.ts_ms, e.severity, e.attrs.file]),
      [
        [Date.UTC(2025, 2, 25, 20, 57, 27, 610), 'warning', 'site-packages/torch/distributed/elastic/multiprocessing/api.py:897'],
        [Date.UTC(2025, 2, 25, 20, 57, 27, 620), 'error', 'site-packages/torch/distributed/elastic/multiprocessing/api.py:869'],
      ],
    );
    assert.equal(events(g, 'engine_crash').length, 1);
  } finally {
    g.dispose();
  }
});

test('a log that runs across New Year under the year the user gave goes on in the next year', async () => {
  const text = [
    'INFO 12-31 23:59:50 [loggers.py:123] Engine 000: Avg prompt throughput: 1.0 tokens/s, Avg generation throughput: 2.0 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 10.0%, Prefix cache hit rate: 0.0%',
    'INFO 01-01 00:00:00 [loggers.py:123] Engine 000: Avg prompt throughput: 1.0 tokens/s, Avg generation throughput: 2.0 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 20.0%, Prefix cache hit rate: 0.0%',
  ].join('\n');
  const r = await runImporter(vllmLogImporter, { text, options: { year: 2025 } });
  try {
    assert.deepEqual(values(r, 'kv.usage').map((x) => x.ts), [Date.UTC(2025, 11, 31, 23, 59, 50), Date.UTC(2026, 0, 1)]);
  } finally {
    r.dispose();
  }
});

test("the engine under another program's Python logging (`asctime - name - LEVEL - msg`, `asctime name pid LEVEL msg`): its stats and events", async () => {
  const text = [
    '2025-07-08 17:23:59 - vllm.engine.async_llm_engine - INFO - Added request 47d63068.',
    '2025-07-08 17:24:00 - vllm.engine.metrics - INFO - Avg prompt throughput: 2.8 tokens/s, Avg generation throughput: 0.1 tokens/s, Running: 1 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 0.2%, CPU KV cache usage: 0.0%.',
    '2025-07-08 17:24:10 - vllm.core.scheduler - WARNING - Sequence group 12 is preempted by PreemptionMode.RECOMPUTE mode because there is not enough KV cache space.',
    '2025-07-08 17:24:11,526 xinference.model.llm.vllm.core 458 INFO     Generate finished, request_id: 17e8, stop reason: stop',
  ].join('\n');
  assert.equal(detectImporter(Buffer.from(text), 'worker.log')?.format, 'vllm-log');
  const r = await runImporter(vllmLogImporter, { text, mtimeMs: 1 });
  try {
    assert.deepEqual(values(r, 'kv.usage'), [{ ts: Date.UTC(2025, 6, 8, 17, 24), v: 0.002 }]);
    assert.equal(events(r, 'preemption').length, 1);
    const logs = events(r, 'log');
    assert.deepEqual(
      logs.map((e) => [e.ts_ms, e.attrs.level, e.attrs.file]),
      [
        [Date.UTC(2025, 6, 8, 17, 23, 59), 'INFO', 'vllm.engine.async_llm_engine'],
        [Date.UTC(2025, 6, 8, 17, 24, 11, 526), 'INFO', 'xinference.model.llm.vllm.core'],
      ],
    );
    assert.deepEqual(r.warnings, []);
  } finally {
    r.dispose();
  }
});

test("vLLM 0.8–0.9's spec-decoding percentage and TGI's crashed shard: a fraction and an engine crash", async () => {
  const vllm = 'INFO 03-20 10:00:00 [metrics.py:87] SpecDecoding metrics: Draft acceptance rate: 69.2%, Mean acceptance length: 3.08, Accepted: 1234 tokens, Drafted: 1800 tokens';
  const r = await runImporter(vllmLogImporter, { text: vllm, options: { year: 2025 } });
  try {
    assert.deepEqual(values(r, 'spec.acceptance_rate').map((x) => Math.round(x.v * 1000) / 1000), [0.692]);
  } finally {
    r.dispose();
  }
  const tgi = [
    '2025-03-20T10:00:00.000000Z  INFO text_generation_launcher: Starting shard rank=0',
    '2025-03-20T10:05:00.000000Z ERROR text_generation_launcher: Shard 1 crashed',
    '2025-03-20T10:05:00.100000Z ERROR text_generation_launcher: Shard process was signaled to shutdown with signal 9',
  ].join('\n');
  const g = await runImporter(tgiLogImporter, { text: tgi });
  try {
    assert.deepEqual(events(g, 'engine_crash').map((e) => e.ts_ms), [Date.UTC(2025, 2, 20, 10, 5)]);
  } finally {
    g.dispose();
  }
});

test("SGLang's scheduler under a trainer's logging (`asctime LEVEL pid [file:N] Decode batch…`): its stats at their own time", async () => {
  const text = [
    '2025-12-04 20:35:53 INFO 151972 [scheduler_metrics_mixin.py:287] Decode batch. #running-req: 48, #token: 21000, token usage: 0.31, gen throughput (token/s): 1503.2, #queue-req: 3,',
    '2025-12-04 20:35:54 INFO 151972 [scheduler_metrics_mixin.py:287] Decode batch. #running-req: 50, #token: 21500, token usage: 0.32, gen throughput (token/s): 1510.0, #queue-req: 1,',
  ].join('\n');
  assert.equal(detectImporter(Buffer.from(text), 'trainer.log')?.format, 'sglang-log');
  const r = await runImporter(sglangLogImporter, { text, mtimeMs: 1 });
  try {
    assert.deepEqual(values(r, 'req.running'), [
      { ts: Date.UTC(2025, 11, 4, 20, 35, 53), v: 48 },
      { ts: Date.UTC(2025, 11, 4, 20, 35, 54), v: 50 },
    ]);
  } finally {
    r.dispose();
  }
});

test('review: a blank line after an exception only keeps a traceback on trial; a runtime-wrapped traceback keeps its frames', async () => {
  // A blank body (a prefix alone) then a stats line: the traceback ends at its exception, the stats line is read.
  const text = [
    '(APIServer pid=1) Traceback (most recent call last):',
    '(APIServer pid=1)   File "a.py", line 1, in run',
    '(APIServer pid=1) ValueError: boom',
    '(APIServer pid=1) ',
    '(APIServer pid=1) INFO 05-19 10:13:20 [loggers.py:271] Engine 000: Avg prompt throughput: 5.0 tokens/s, Avg generation throughput: 2.0 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 10.0%, Prefix cache hit rate: 0.0%',
  ].join('\n');
  const r = await runImporter(vllmLogImporter, { text, options: { year: 2025 } });
  try {
    assert.deepEqual(events(r, 'traceback').map((e) => [e.attrs.exception, e.attrs.frames]), [['ValueError', 1]]);
    assert.deepEqual(values(r, 'kv.usage').map((x) => x.v), [0.1]);
  } finally {
    r.dispose();
  }
  const lines = ['Traceback (most recent call last):', '  File "a.py", line 1, in <module>', '    foo()', 'vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue.'];
  const docker = lines.map((l) => JSON.stringify({ log: `${l}\n`, stream: 'stderr', time: '2025-05-12T01:48:02.5Z' })).join('\n');
  const cri = lines.map((l) => `2025-05-12T01:48:02.500000000Z stderr F ${l}`).join('\n');
  for (const wrapped of [docker, cri]) {
    const w = await runImporter(vllmLogImporter, { text: wrapped, options: { year: 2025 } });
    try {
      assert.deepEqual(events(w, 'traceback').map((e) => [e.attrs.exception, e.attrs.frames]), [['vllm.v1.engine.exceptions.EngineDeadError', 1]]);
      assert.equal(events(w, 'engine_crash').length, 1);
      assert.equal(events(w, 'log').length, 0);
    } finally {
      w.dispose();
    }
  }
});

test("SGLang 0.1–0.2's `[gpu=N]` worker prefix: its batch lines are stats, the GPU as tp", async () => {
  const text = [
    '[gpu=0] Decode batch. #running-req: 3, #token: 1200, token usage: 0.05, gen throughput (token/s): 27.94, #queue-req: 1',
    '[gpu_id=0] Decode batch. #running-req: 4, #token: 1300, token usage: 0.06, gen throughput (token/s): 28.10, #queue-req: 0',
  ].join('\n');
  assert.equal(detectImporter(Buffer.from(text), 'sglang.log')?.format, 'sglang-log');
  const r = await runImporter(sglangLogImporter, { text, mtimeMs: Date.UTC(2024, 5, 1) });
  try {
    assert.deepEqual(values(r, 'req.running', { tp: 'TP0' }).map((x) => x.v), [3, 4]);
  } finally {
    r.dispose();
  }
});

test('a log pasted indented or behind a `| ` gutter is read at its own times; indented traceback frames keep their indentation', async () => {
  assert.equal(unwrapContainerLine('    [rank7]:[E816 01:45:40.183009389 ProcessGroupNCCL.cpp:607] [Rank 7] Watchdog caught collective operation timeout'), '[rank7]:[E816 01:45:40.183009389 ProcessGroupNCCL.cpp:607] [Rank 7] Watchdog caught collective operation timeout');
  assert.equal(unwrapContainerLine('  | ERROR 07-01 13:54:43 multiproc_worker_utils.py:120] Worker VllmWorkerProcess pid 1159 died, exit code: -6'), 'ERROR 07-01 13:54:43 multiproc_worker_utils.py:120] Worker VllmWorkerProcess pid 1159 died, exit code: -6');
  assert.equal(unwrapContainerLine('  File "/usr/lib/python3.12/site-packages/vllm/worker.py", line 10, in run'), '  File "/usr/lib/python3.12/site-packages/vllm/worker.py", line 10, in run');
  const text = V1_LINES.slice(0, 3).map((l) => `   ${l}`).join('\n');
  assert.equal(detectImporter(Buffer.from(text), 'vllm.log')?.format, 'vllm-log');
  const r = await runImporter(vllmLogImporter, { text, options: { year: 2025 } });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(r.warnings, []);
    assert.deepEqual(values(r, 'req.running').map((s) => s.ts), [Date.UTC(2025, 4, 12, 1, 47, 2), Date.UTC(2025, 4, 12, 1, 47, 12)]);
  } finally {
    r.dispose();
  }
});
