import { test } from 'node:test';
import assert from 'node:assert/strict';
import { detectJsonlLog } from '../../../node/engine/importers/jsonl-log';
import { E2E_BUCKETS } from '../../../node/engine/importers/request-series';
import { parseRustDuration, textSpans } from '../../../node/engine/importers/tgi-request-line';
import { detectEngineLog, sglangLogImporter, tgiLogImporter, vllmLogImporter } from '../../../node/engine/importers/vllm-log';
import { events, runImporter, seriesRows, values, type Run } from './run-importer';

// Lines in the forms TGI's router and launcher print (router/src/server.rs, launcher/src/main.rs).
const PARAMS = 'parameters=GenerateParameters { best_of: None, temperature: Some(0.7), stop: ["\\n}", " total_time=\\"9s\\""], seed: None }';
const timings = (total: string, validation: string, queue: string, inference: string, tpot: string) =>
  `total_time="${total}" validation_time="${validation}" queue_time="${queue}" inference_time="${inference}" time_per_token="${tpot}" seed="None"`;
const SERVER = 'text_generation_router::server: router/src/server.rs:511';

const TGI = [
  /* 1 */ '2026-03-01T09:59:00.000000Z  INFO text_generation_launcher: Args {',
  /* 2 */ '    model_id: "meta-llama/Meta-Llama-3.1-8B-Instruct",',
  /* 3 */ '    revision: None,',
  /* 4 */ '    huggingface_hub_cache: Some(',
  /* 5 */ '        "/data",',
  /* 6 */ '    ),',
  /* 7 */ '}',
  /* 8 */ '2026-03-01T09:59:30.000000Z  INFO text_generation_router::server: router/src/server.rs:2266: Connected',
  /* 9 */ `2026-03-01T10:00:01.500000Z  INFO generate{${PARAMS} ${timings('200ms', '1.5ms', '129.535µs', '190ms', '19ms')}}: ${SERVER}: Success`,
  /* 10 */ `2026-03-01T10:00:04.000000Z  INFO generate_stream{${PARAMS} ${timings('650.5ms', '2ms', '2ms', '640ms', '20ms')}}: ${SERVER}: Success`,
  /* 11 */ `2026-03-01T10:00:09.999000Z DEBUG compat_generate{default_return_full_text=true}:generate{${PARAMS} ${timings('1.2s', '3ms', '350ms', '847ms', '21.175ms')}}: ${SERVER}: Output: fine`,
  /* 12 */ `2026-03-01T10:00:09.999000Z  INFO compat_generate{default_return_full_text=true}:generate{${PARAMS} ${timings('1.2s', '3ms', '350ms', '847ms', '21.175ms')}}: ${SERVER}: Success`,
  /* 13 */ `2026-03-01T10:00:15.000000Z  INFO chat_completions{${timings('3.000000001s', '789ns', '1.2s', '1.8s', '30us')}}: ${SERVER}: Success`,
  /* 14 */ `2026-03-01T10:00:16.000000Z  INFO generate{${PARAMS} ${timings('1.2xs', '1ms', '12.3ms', '1s', '10ms')}}: ${SERVER}: Success`,
  /* 15 */ `2026-03-01T10:00:27.000000Z ERROR generate_stream{${PARAMS}}:async_stream:generate_stream: text_generation_router::infer: router/src/infer/mod.rs:98: Input validation error: \`inputs\` tokens + \`max_new_tokens\` must be <= 4096. Given: 4000 \`inputs\` tokens and 200 \`max_new_tokens\``,
  /* 16 */ '2026-03-01T10:00:28.000000Z ERROR batch{batch_size=1}:prefill:prefill{id=622 size=1}:prefill{id=622 size=1}: text_generation_router_v3::client: backends/v3/src/client/mod.rs:45: Server error: error trying to connect: Connection refused (os error 111)',
  /* 17 */ '2026-03-01T10:00:29.000000Z ERROR text_generation_router::server: router/src/server.rs:863: Failed to send event. Receiver dropped.',
  /* 18 */ '2026-03-01T10:00:35.000000Z  INFO text_generation_launcher: Args { model_id: "bigcode/starcoder", revision: None, sharded: None }',
].join('\n');

const T0 = Date.UTC(2026, 2, 1, 10, 0, 0);
const W = [T0 + 10_000, T0 + 20_000, T0 + 30_000];

/** A cumulative row over E2E_BUCKETS + Inf: the given head, then its last value to the end. */
const row = (...head: number[]) => [...head, ...new Array<number>(E2E_BUCKETS.length + 1 - head.length).fill(head[head.length - 1])];

function snapshots(r: Run, name: string): { t: number; counts: number[] }[] {
  const s = seriesRows(r).filter((x) => x.name === name);
  assert.equal(s.length, 1, name);
  return r.store.histogramSnapshots(s[0].id).map((x) => ({ t: x.t, counts: x.counts }));
}

test('Rust durations: every unit TGI prints, converted exactly; anything else is not one', () => {
  assert.equal(parseRustDuration('1.207716998s'), 1.207716998);
  assert.equal(parseRustDuration('2s'), 2);
  assert.equal(parseRustDuration('12.3ms'), 0.0123);
  assert.equal(parseRustDuration('686.203µs'), 0.000686203);
  assert.equal(parseRustDuration('456μs'), 0.000456); // Greek mu
  assert.equal(parseRustDuration('456us'), 0.000456);
  assert.equal(parseRustDuration('789ns'), 7.89e-7);
  assert.equal(parseRustDuration('0ns'), 0);
  assert.equal(parseRustDuration('161.454300714s'), 161.454300714);
  for (const bad of ['1.2xs', '', '1.s', '.5s', '-1s', '1e3ms', '12 ms', 'None', '1.5S']) assert.equal(parseRustDuration(bad), null, bad);
});

test('span chains: braces and Debug strings nest, a line without spans has none', () => {
  const c = textSpans(`compat_generate{default_return_full_text=true}:generate{${PARAMS} total_time="1s"}: ${SERVER}: Success`)!;
  assert.deepEqual(c.spans, [
    { name: 'compat_generate', fields: {} },
    { name: 'generate', fields: { total_time: '1s' } },
  ]);
  assert.equal(c.rest, `${SERVER}: Success`);
  assert.equal(textSpans('text_generation_router::server: router/src/server.rs:2266: Connected'), null);
  assert.equal(textSpans('text_generation_launcher: Args {'), null);
});

test('TGI text log: request lines become e2e/queue histograms per 10 s window, errors count, banners start and restart', async () => {
  const r = await runImporter(vllmLogImporter, { text: TGI, chunk: 97 });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(r.warnings, [
      'input.txt (line 14): TGI request line: total_time "1.2xs" is not a duration (digits and s, ms, µs, us or ns); left out of its series',
    ]);
    // e2e 0.2 s (le 0.3), 0.6505 s (le 0.8), 1.2 s (le 1.5) by 10:00:10; 3.000000001 s (le 5) by 10:00:20.
    assert.deepEqual(snapshots(r, 'lat.e2e'), [
      { t: W[0], counts: row(1, 1, 2, 2, 3) },
      { t: W[1], counts: row(1, 1, 2, 2, 3, 3, 3, 4) },
      { t: W[2], counts: row(1, 1, 2, 2, 3, 3, 3, 4) },
    ]);
    // queue 129.535 µs, 2 ms (le 0.3), 350 ms (le 0.5); then 1.2 s (le 1.5) and 12.3 ms of the line with a bad total.
    assert.deepEqual(snapshots(r, 'lat.queue'), [
      { t: W[0], counts: row(2, 3) },
      { t: W[1], counts: row(3, 4, 4, 4, 5) },
      { t: W[2], counts: row(3, 4, 4, 4, 5) },
    ]);
    assert.deepEqual(values(r, 'lat.e2e.count'), [{ ts: W[0], v: 3 }, { ts: W[1], v: 4 }, { ts: W[2], v: 4 }]);
    assert.deepEqual(values(r, 'lat.queue.count').map((s) => s.v), [3, 5, 5]);
    assert.deepEqual(values(r, 'lat.validation.count').map((s) => s.v), [3, 5, 5]);
    assert.deepEqual(values(r, 'lat.inference.count').map((s) => s.v), [3, 5, 5]);
    assert.deepEqual(values(r, 'lat.itl.count').map((s) => s.v), [3, 5, 5]);
    assert.deepEqual(values(r, 'req.finished'), [{ ts: W[0], v: 3 }, { ts: W[1], v: 5 }, { ts: W[2], v: 6 }]);
    assert.deepEqual(values(r, 'req.errors').map((s) => s.v), [0, 0, 1]);
    assert.deepEqual(seriesRows(r).find((s) => s.name === 'lat.e2e')!.labels, { metric: 'vllm-log:total_time' });
    assert.deepEqual(seriesRows(r).find((s) => s.name === 'lat.itl')!.labels, { metric: 'vllm-log:time_per_token' });
    assert.equal(seriesRows(r).some((s) => s.name === 'lat.ttft'), false);

    // Request lines stay searchable log events, with their facts; the DEBUG "Output" line is only a log.
    const logs = events(r, 'log');
    const at = (line: number) => logs.find((e) => e.line === line)!;
    assert.deepEqual(at(9).attrs, {
      level: 'INFO',
      span: 'generate',
      'request.e2e_s': 0.2,
      'request.status': 'ok',
      'request.validation_s': 0.0015,
      'request.queue_s': 0.000129535,
      'request.inference_s': 0.19,
      'request.tpot_s': 0.019,
    });
    assert.equal(at(9).text, TGI.split('\n')[8].slice('2026-03-01T10:00:01.500000Z  INFO '.length));
    assert.deepEqual(at(11).attrs, { level: 'DEBUG' });
    assert.deepEqual([at(12).attrs.span, at(13).attrs.span, at(13).attrs['request.validation_s'], at(13).attrs['request.tpot_s']], ['generate', 'chat_completions', 7.89e-7, 0.00003]);
    assert.equal(at(14).attrs['request.e2e_s'], undefined);
    assert.deepEqual([at(15).severity, at(15).attrs.span, at(15).attrs['request.status'], at(15).attrs['http.status'], at(15).attrs.error_type], ['error', 'generate_stream', 'error', 422, 'validation']);
    assert.match(String(at(15).attrs['request.error']), /^Input validation error: `inputs` tokens/);
    assert.deepEqual([at(16).attrs, at(17).attrs], [{ level: 'ERROR' }, { level: 'ERROR' }]);

    // Banners: the multi-line Args block is one version event; the one-line form after requests restarts.
    const ver = events(r, 'version');
    assert.deepEqual(ver.map((e) => [e.line, e.ts_ms, e.attrs]), [
      [1, Date.UTC(2026, 2, 1, 9, 59), { engine: 'tgi', version: null, model: 'meta-llama/Meta-Llama-3.1-8B-Instruct', v1: null }],
      [18, T0 + 35_000, { engine: 'tgi', version: null, model: 'bigcode/starcoder', v1: null }],
    ]);
    assert.equal(ver[0].text.split('\n').length, 7);
    assert.deepEqual(events(r, 'engine_start').map((e) => [e.line, e.attrs]), [[1, { version: null }]]);
    assert.deepEqual(events(r, 'engine_restart').map((e) => [e.line, e.severity, e.attrs]), [[18, 'warning', { version: null, starts: 2 }]]);
    // 18 lines: Args block (7 lines) → version + start, 10 single lines, restart banner → version + restart.
    assert.equal(events(r).length, 2 + 10 + 2);
  } finally {
    r.dispose();
  }
  assert.equal(tgiLogImporter.detect(Buffer.from(TGI), 'tgi.log'), 0.85);
  assert.equal(vllmLogImporter.detect(Buffer.from(TGI), 'tgi.log'), 0);
});

const JSON_LOG = [
  { timestamp: '2026-03-01T09:59:00.000000Z', level: 'INFO', fields: { message: 'Args { model_id: "google/flan-t5-small", revision: None, json_output: true }' }, target: 'text_generation_launcher' },
  { timestamp: '2026-03-01T09:59:30.000000Z', level: 'INFO', message: 'Connected', target: 'text_generation_router', filename: 'router/src/main.rs', line_number: 247 },
  {
    timestamp: '2026-03-01T10:00:05.000000Z',
    level: 'INFO',
    message: 'Success',
    target: 'text_generation_router::server',
    filename: 'router/src/server.rs',
    line_number: 511,
    span: { inference_time: '1.1s', name: 'generate', parameters: 'GenerateParameters { seed: None }', queue_time: '456µs', seed: 'None', time_per_token: '55ms', total_time: '1.107s', validation_time: '5.544ms' },
    spans: [{ inference_time: '1.1s', name: 'generate', parameters: 'GenerateParameters { seed: None }', queue_time: '456µs', seed: 'None', time_per_token: '55ms', total_time: '1.107s', validation_time: '5.544ms' }],
  },
  {
    timestamp: '2026-03-01T10:00:12.000000Z',
    level: 'ERROR',
    message: 'Model is overloaded',
    target: 'text_generation_router::infer',
    filename: 'router/src/infer/mod.rs',
    line_number: 88,
    span: { name: 'generate_stream' },
    spans: [{ name: 'chat_completions' }, { name: 'generate_stream' }],
  },
  { timestamp: '2026-03-01T10:00:13.000000Z', level: 'WARN', fields: { message: 'Shard 0 is slow\n' }, target: 'text_generation_launcher', span: { rank: 0, name: 'shard-manager' }, spans: [{ rank: 0, name: 'shard-manager' }] },
]
  .map((o) => JSON.stringify(o))
  .join('\n');

test('TGI under `kubectl logs --timestamps`: the runtime\'s time before TGI\'s own, every line read as without it', async () => {
  // The runtime stamps every line it receives, continuation lines too, a little after TGI printed them.
  let last = '2026-03-01T09:59:00.000000Z';
  const stamped = TGI.split('\n')
    .map((l) => {
      const own = /^(\S+Z) /.exec(l)?.[1];
      if (own) last = own;
      return `${new Date(Date.parse(last) + 300).toISOString().replace('Z', '123456Z')} ${l}`;
    })
    .join('\n');
  const plain = await runImporter(vllmLogImporter, { text: TGI });
  const r = await runImporter(vllmLogImporter, { text: stamped });
  try {
    // Detected as TGI's under the stamps too: the dialect names the engine (it was a vLLM log by a hint).
    assert.deepEqual(detectEngineLog(Buffer.from(stamped)), detectEngineLog(Buffer.from(TGI)));
    assert.equal(detectEngineLog(Buffer.from(stamped)).dialect, 'tgi');
    assert.equal(r.error, null);
    const kinds = (x: Run) => events(x).filter((e) => e.kind !== 'log').map((e) => [e.kind, e.line, e.attrs.model ?? null]);
    assert.deepEqual(kinds(r), kinds(plain));
    assert.ok(events(r, 'version').length >= 2);
    assert.deepEqual(values(r, 'lat.e2e.count').map((s) => s.v), values(plain, 'lat.e2e.count').map((s) => s.v));
  } finally {
    r.dispose();
    plain.dispose();
  }
});

test('TGI --json-output: the same requests, banner and levels from JSON objects; detected before the generic JSON-lines importer', async () => {
  assert.equal(tgiLogImporter.detect(Buffer.from(JSON_LOG), 'tgi.jsonl'), 0.85);
  assert.ok(detectJsonlLog(Buffer.from(JSON_LOG)) < 0.85);
  const r = await runImporter(vllmLogImporter, { text: JSON_LOG });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(r.warnings, []);
    assert.deepEqual(events(r, 'version').map((e) => [e.line, e.attrs]), [[1, { engine: 'tgi', version: null, model: 'google/flan-t5-small', v1: null }]]);
    assert.deepEqual(events(r, 'engine_start').map((e) => e.line), [1]);
    // 1.107 s: le 1.5 in the window ending 10:00:10; the overload error in the next.
    assert.deepEqual(snapshots(r, 'lat.e2e'), [
      { t: T0 + 10_000, counts: row(0, 0, 0, 0, 1) },
      { t: T0 + 20_000, counts: row(0, 0, 0, 0, 1) },
    ]);
    assert.deepEqual(values(r, 'req.finished').map((s) => s.v), [1, 2]);
    assert.deepEqual(values(r, 'req.errors').map((s) => s.v), [0, 1]);
    const logs = events(r, 'log');
    assert.deepEqual(logs.map((e) => [e.line, e.ts_ms, e.severity, e.text]), [
      [2, Date.UTC(2026, 2, 1, 9, 59, 30), 'info', 'Connected'],
      [3, T0 + 5_000, 'info', 'Success'],
      [4, T0 + 12_000, 'error', 'Model is overloaded'],
      [5, T0 + 13_000, 'warning', 'Shard 0 is slow'],
    ]);
    assert.deepEqual(logs[0].attrs, { level: 'INFO', file: 'router/src/main.rs:247', target: 'text_generation_router' });
    assert.deepEqual(logs[1].attrs, {
      level: 'INFO',
      file: 'router/src/server.rs:511',
      target: 'text_generation_router::server',
      span: 'generate',
      'request.e2e_s': 1.107,
      'request.status': 'ok',
      'request.validation_s': 0.005544,
      'request.queue_s': 0.000456,
      'request.inference_s': 1.1,
      'request.tpot_s': 0.055,
    });
    assert.deepEqual([logs[2].attrs.span, logs[2].attrs['http.status'], logs[2].attrs.error_type], ['chat_completions', 429, 'overloaded']);
    assert.equal(logs[3].attrs.span, 'shard-manager');
  } finally {
    r.dispose();
  }
});

test('TGI colours (ANSI codes) are dropped before parsing', async () => {
  const line = '\x1b[2m2026-03-01T10:00:01.000000Z\x1b[0m \x1b[32m INFO\x1b[0m \x1b[1mgenerate\x1b[0m\x1b[1m{\x1b[0m\x1b[3mtotal_time\x1b[0m\x1b[2m=\x1b[0m"2s" \x1b[3mqueue_time\x1b[0m\x1b[2m=\x1b[0m"1ms"\x1b[1m}\x1b[0m\x1b[2m:\x1b[0m \x1b[2mtext_generation_router::server\x1b[0m\x1b[2m:\x1b[0m \x1b[2mrouter/src/server.rs\x1b[0m\x1b[2m:\x1b[0m\x1b[2m511:\x1b[0m Success';
  const r = await runImporter(vllmLogImporter, { text: line });
  try {
    assert.deepEqual(events(r).map((e) => [e.ts_ms, e.text, e.attrs['request.e2e_s'], e.attrs['request.queue_s']]), [
      [T0 + 1_000, 'generate{total_time="2s" queue_time="1ms"}: text_generation_router::server: router/src/server.rs:511: Success', 2, 0.001],
    ]);
    assert.deepEqual(values(r, 'lat.e2e.count').map((s) => s.v), [1]);
  } finally {
    r.dispose();
  }
});

const SGLANG = [
  "[2026-03-01 11:00:00] server_args=ServerArgs(model_path='/home/model/Qwen/QwQ-32B', tokenizer_path='/home/model/Qwen/QwQ-32B', tokenizer_mode='auto', tp_size=4)",
  '[2026-03-01 11:00:30] Load weight end. type=Qwen2ForCausalLM, dtype=torch.bfloat16, avail mem=60.12 GB',
  "[2026-03-01 11:05:00] server_args=ServerArgs(model_path='/home/model/Qwen/QwQ-32B', tokenizer_path='/home/model/Qwen/QwQ-32B', tp_size=4)",
  '[2026-03-01 11:06:00 TP0] Decode batch. #running-req: 12, #token: 40123, token usage: 0.87, gen throughput (token/s): 512.30, #queue-req: 4',
  "[2026-03-01 11:09:00] server_args=ServerArgs(model_path=\"/models/it's-mine\", tp_size=1)",
].join('\n');

test('SGLang: server_args banners are version events; one after serving activity is a restart', async () => {
  const r = await runImporter(vllmLogImporter, { text: SGLANG });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(events(r, 'version').map((e) => [e.line, e.ts_ms, e.attrs]), [
      [1, Date.UTC(2026, 2, 1, 11, 0), { engine: 'sglang', version: null, model: '/home/model/Qwen/QwQ-32B', v1: null }],
      [3, Date.UTC(2026, 2, 1, 11, 5), { engine: 'sglang', version: null, model: '/home/model/Qwen/QwQ-32B', v1: null }],
      [5, Date.UTC(2026, 2, 1, 11, 9), { engine: 'sglang', version: null, model: "/models/it's-mine", v1: null }],
    ]);
    // The second banner follows no activity (a reload before serving): no restart; the third follows stats.
    assert.deepEqual(events(r, 'engine_start').map((e) => e.line), [1]);
    assert.deepEqual(events(r, 'engine_restart').map((e) => [e.line, e.attrs]), [[5, { version: null, starts: 2 }]]);
  } finally {
    r.dispose();
  }
  assert.equal(sglangLogImporter.detect(Buffer.from(SGLANG), 'sglang.log'), 0.85);
});

test("SGLang: the model runner's \"Load weight begin\" starts an engine (once for all TP ranks): a crash loop without server_args still counts its restarts", async () => {
  const log = [
    '[2026-03-01 11:00:00 TP0] Load weight begin. avail mem=46.19 GB',
    '[2026-03-01 11:00:00 TP1] Load weight begin. avail mem=46.20 GB',
    '[2026-03-01 11:01:00 TP0] Decode batch. #running-req: 12, #token: 40123, token usage: 0.87, gen throughput (token/s): 512.30, #queue-req: 4',
    '[2026-03-01 11:02:00 TP0] Scheduler hit an exception: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.55 GiB. GPU 0 has a total capacity of 79.05 GiB of which 172.21 MiB is free.',
    '[2026-03-01 11:03:00 TP0] Load weight begin. avail mem=46.19 GB',
    '[2026-03-01 11:03:05 TP0] Scheduler hit an exception: RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.',
    '[2026-03-01 11:05:00 TP0] Load weight begin. avail mem=46.19 GB',
    '[2026-03-01 11:05:00 TP1] Load weight begin. avail mem=46.19 GB',
  ].join('\n');
  const r = await runImporter(vllmLogImporter, { text: log });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(events(r, 'engine_start').map((e) => e.line), [1]);
    assert.deepEqual(events(r, 'engine_restart').map((e) => [e.line, e.attrs.starts]), [
      [5, 2],
      [7, 3],
    ]);
    assert.equal(events(r, 'version').length, 0);
  } finally {
    r.dispose();
  }
});

test('SGLang: the CUDA-graph capture max is the largest size its capture line says was captured, not what server_args asked for', async () => {
  const log = [
    "[2026-03-01 11:00:00] server_args=ServerArgs(model_path='/m', max_running_requests=32, cuda_graph_max_bs=160, tp_size=1)",
    '[2026-03-01 11:00:40] Capture cuda graph begin. This can take up to several minutes. avail mem=24.14 GB',
    '[2026-03-01 11:00:40] Capture cuda graph bs [1, 2, 4, 8, 12, 16, 24, 32]',
    '[2026-03-01 11:00:43] Capture piecewise CUDA graph begin. avail mem=23.54 GB',
  ].join('\n');
  const r = await runImporter(sglangLogImporter, { text: log });
  try {
    assert.equal(r.error, null);
    // max_running_requests 32 capped the capture below the 160 asked for.
    assert.deepEqual(values(r, 'engine.cuda_graph_max').map((s) => [s.ts, s.v]), [[Date.UTC(2026, 2, 1, 11, 0, 40), 32]]);
  } finally {
    r.dispose();
  }
});

test("SGLang: server_args' max_loras_per_batch is the adapter slots (vLLM's max_loras), lora.max", async () => {
  const log = "[2026-03-01 11:00:00] server_args=ServerArgs(model_path='/m', lora_paths=['a=/a', 'b=/b'], max_loras_per_batch=8, tp_size=1)";
  const r = await runImporter(sglangLogImporter, { text: log });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(values(r, 'lora.max').map((s) => [s.ts, s.v]), [[Date.UTC(2026, 2, 1, 11, 0, 0), 8]]);
  } finally {
    r.dispose();
  }
});

test("SGLang: each decode batch line's `cuda graph: True|False` is counted per mode, a sample of the decode passes", async () => {
  const line = (s: number, graph: string) => `[2026-03-01 11:00:${String(s).padStart(2, '0')} TP0] Decode batch. #running-req: 12, #token: 40123, token usage: 0.87, cuda graph: ${graph}, gen throughput (token/s): 512.30, #queue-req: 4`;
  const log = [line(0, 'True'), line(10, 'True'), line(20, 'False'), line(30, 'False'), line(40, 'False'), '[2026-03-01 11:00:45 TP0] Prefill batch. #new-seq: 1, #new-token: 10, #cached-token: 0, token usage: 0.87, #running-req: 12, #queue-req: 3'].join('\n');
  const r = await runImporter(sglangLogImporter, { text: log });
  try {
    assert.equal(r.error, null);
    const at = (s: number) => Date.UTC(2026, 2, 1, 11, 0, s);
    assert.deepEqual(values(r, 'engine.graph_passes', { mode: 'decode_cuda_graph' }).map((x) => [x.ts, x.v]), [[at(0), 1], [at(10), 2], [at(20), 2], [at(30), 2], [at(40), 2]]);
    assert.deepEqual(values(r, 'engine.graph_passes', { mode: 'decode_none' }).map((x) => [x.ts, x.v]), [[at(0), 0], [at(10), 0], [at(20), 1], [at(30), 2], [at(40), 3]]);
  } finally {
    r.dispose();
  }
});

test("SGLang: a batch line's own `timestamp:` (the scheduler's clock, to the µs) dates it within the prefix's second, instead of spreading the second's lines evenly", async () => {
  const line = (s: number, frac: string) => `[2025-07-18 15:32:${s} TP0] Decode batch. #running-req: 1, #token: 2266, token usage: 0.00, cuda graph: True, gen throughput (token/s): 75.25, #queue-req: 0, timestamp: 2025-07-18T15:32:${s}.${frac}`;
  const log = [line(54, '159394'), line(54, '690982'), line(55, '223142'), line(55, '754374')].join('\n');
  const r = await runImporter(sglangLogImporter, { text: log });
  try {
    assert.equal(r.error, null);
    const at = (s: number, ms: number) => Date.UTC(2025, 6, 18, 15, 32, s, ms);
    assert.deepEqual(values(r, 'req.running').map((x) => x.ts), [at(54, 159), at(54, 690), at(55, 223), at(55, 754)]);
    assert.ok(!r.warnings.some((w) => /spread evenly/.test(w)), r.warnings.join('\n'));
  } finally {
    r.dispose();
  }
});

test('SGLang: a decode batch line reporting 0 token/s generated is no decode pass (a wedged engine still printing its stats)', async () => {
  const line = (s: number, tps: string) => `[2026-03-01 11:00:${String(s).padStart(2, '0')} TP0] Decode batch. #running-req: 7, #token: 17778, token usage: 0.01, cuda graph: True, gen throughput (token/s): ${tps}, #queue-req: 14, `;
  const log = [line(0, '512.30'), line(10, '0.00'), line(20, '0.00'), line(30, '0.05'), line(40, '0')].join('\n');
  const r = await runImporter(sglangLogImporter, { text: log });
  try {
    assert.equal(r.error, null);
    const at = (s: number) => Date.UTC(2026, 2, 1, 11, 0, s);
    // 0.00 and 0 are nothing generated; 0.05 is a slow pass, still one.
    assert.deepEqual(values(r, 'engine.graph_passes', { mode: 'decode_cuda_graph' }).map((x) => [x.ts, x.v]), [[at(0), 1], [at(30), 2]]);
    // The line's other fields are read as before: running and waiting at every line.
    assert.equal(values(r, 'req.running').length, 5);
  } finally {
    r.dispose();
  }
});

test("TGI 0.9-1.x request lines inside the `HTTP request{…}` span (a name with a space) are the router's, read as requests", async () => {
  // The OpenTelemetry span TGI's router opened around every request before the handler's (axum-tracing-opentelemetry).
  const http = 'HTTP request{otel.name=POST /generate http.client_ip= http.flavor=1.1 http.method=POST http.route=/generate otel.kind=server trace_id=0af7651916cd43dd8448eb211c80319c}';
  const line = `2023-09-06T13:47:01.731233Z  INFO ${http}:generate{${PARAMS} ${timings('986.532642ms', '681.374µs', '188.125µs', '985.66325ms', '49.283162ms')}}: text_generation_router::server: router/src/server.rs:289: Success`;
  assert.deepEqual(textSpans(line.slice(line.indexOf('HTTP')))!.spans.map((s) => s.name), ['HTTP request', 'generate']);
  assert.equal(detectEngineLog(Buffer.from(line + '\n')).dialect, 'tgi');
  const r = await runImporter(tgiLogImporter, { text: line });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(values(r, 'lat.e2e.sum').map((s) => s.v), [0.986532642]);
    assert.deepEqual(values(r, 'lat.queue.sum').map((s) => s.v), [0.000188125]);
    assert.deepEqual(values(r, 'req.finished').map((s) => s.v), [1]);
  } finally {
    r.dispose();
  }
});

test('a collection manifest that names the engine (`engine: sglang 0.4.9`) is not its log; a line of a log that names it still hints one', () => {
  const manifest = '# collected by collect-info.sh v0.3\ncollected_at: 2025-03-01T00:28:04\ntimezone: Europe/Berlin (CET, +0100)\nengine: sglang 0.4.9\nmodel: meta-llama/Llama-3.3-70B-Instruct\n';
  assert.equal(detectEngineLog(Buffer.from(manifest)).score, 0);
  assert.ok(detectEngineLog(Buffer.from('Exception in sglang scheduler: out of blocks\n')).score > 0);
});

test("TGI shards that fail to start, again and again with no Args banner between (a collector that kept the errors), are restarts; a banner's own failure is its start", async () => {
  const j = (ts: string, level: string, message: string) => JSON.stringify({ timestamp: ts, level, message, target: 'text_generation_launcher' });
  const oom = 'Error when initializing model\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 978.00 MiB. GPU 0 has a total capacity of 79.05 GiB of which 90.05 MiB is free.';
  // Served, crashed, then three starts that each failed (each logged twice around its error output).
  const loop = [
    j('2025-07-22T23:00:00.000Z', 'INFO', 'Args { model_id: "Qwen/Qwen3-8B", port: 80 }'),
    j('2025-07-22T23:31:38.500Z', 'ERROR', 'Shard 0 crashed'),
    ...['23:32:34', '23:33:42', '23:35:05'].flatMap((t) => [
      j(`2025-07-22T${t}.100Z`, 'ERROR', 'Shard 0 failed to start'),
      j(`2025-07-22T${t}.100Z`, 'ERROR', oom),
      j(`2025-07-22T${t}.200Z`, 'ERROR', 'Shard 0 failed to start'),
    ]),
  ].join('\n') + '\n';
  const r = await runImporter(tgiLogImporter, { text: loop, name: 'tgi.log', mtimeMs: Date.UTC(2026, 0, 1) });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(events(r, 'engine_start').map((e) => e.ts_ms), [Date.UTC(2025, 6, 22, 23, 0, 0)]);
    assert.deepEqual(events(r, 'engine_restart').map((e) => e.ts_ms), ['23:32:34', '23:33:42', '23:35:05'].map((t) => Date.parse(`2025-07-22T${t}.100Z`)));
    assert.equal(events(r, 'oom').length, 3);
  } finally {
    r.dispose();
  }
  // A restart whose banner was collected fails at loading: one start, not two.
  const banner = [
    j('2025-07-22T23:00:00.000Z', 'INFO', 'Args { model_id: "Qwen/Qwen3-8B", port: 80 }'),
    j('2025-07-22T23:31:38.500Z', 'ERROR', 'Shard 0 crashed'),
    j('2025-07-22T23:32:00.000Z', 'INFO', 'Args { model_id: "Qwen/Qwen3-8B", port: 80 }'),
    j('2025-07-22T23:32:34.100Z', 'ERROR', oom),
    j('2025-07-22T23:32:34.200Z', 'ERROR', 'Shard 0 failed to start'),
  ].join('\n') + '\n';
  const b = await runImporter(tgiLogImporter, { text: banner, name: 'tgi.log', mtimeMs: Date.UTC(2026, 0, 1) });
  try {
    assert.equal(b.error, null);
    assert.deepEqual(events(b, 'engine_restart').map((e) => e.ts_ms), [Date.UTC(2025, 6, 22, 23, 32, 0)]);
  } finally {
    b.dispose();
  }
});
