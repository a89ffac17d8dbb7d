// The files the fuzzer mutates: one real sample of every format in the corpus (when it is present),
// small files this test writes itself and a few of the repo's own samples, so a fresh clone still
// fuzzes something.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { REPO_ROOT, corpusFile } from '../helpers/corpus';
import { pickle } from '../../fixtures/lib/pickle-writer';
import { NSYS_DDL } from '../helpers/nsys-export';

/** A small memory snapshot in CPython's own encoding (memoised frame lists shared between entries). */
function snapshotSeed(): Buffer {
  const frames = [{ filename: 'train.py', line: 12, name: 'step' }, { filename: 'model.py', line: 40, name: 'forward' }];
  const trace = Array.from({ length: 60 }, (_, i) => ({ action: i % 2 ? 'free_completed' : 'alloc', addr: 4096 * (1 + (i >> 1)), size: 512 * (1 + (i % 5)), stream: 0, time_us: 1_773_478_800_000_000 + i * 1000, frames }));
  return pickle({
    segments: [{ device: 0, address: 4096, total_size: 1 << 20, stream: 0, blocks: [{ address: 4096, size: 512, requested_size: 500, state: 'active_allocated', frames }] }],
    device_traces: [trace],
  });
}

/** A small Nsight Systems export: kernels, runtime calls, NVTX ranges and memory events joined by correlationId. */
function nsysSeed(file: string): void {
  const db = new Database(file);
  db.exec(`
    ${NSYS_DDL.strings};
    ${NSYS_DDL.someStrings};
    ${NSYS_DDL.session};
    INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (1773478800000000000, '', '');
    CREATE TABLE TARGET_INFO_GPU (id INTEGER, name TEXT, totalMemory INTEGER);
    INSERT INTO TARGET_INFO_GPU VALUES (0, 'H100', 85899345920);
    ${NSYS_DDL.runtime};
    ${NSYS_DDL.kernel};
    CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, text TEXT, globalTid INTEGER, domainId INTEGER);
    ${NSYS_DDL.memory};
  `);
  const call = db.prepare('INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 0, ?, ?, ?, 0)');
  const kernel = db.prepare('INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, 0, 1, 7, ?, ?, 3, 4, 8, 1, 1, 256, 1, 1, 64)');
  const nvtx = db.prepare("INSERT INTO NVTX_EVENTS VALUES (?, ?, 59, 'step', ?, 0)");
  const mem = db.prepare('INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS VALUES (?, ?, 0, 1, ?, 0, ?, 2, ?, ?)');
  const tid = (42 << 24) + 7;
  db.transaction(() => {
    for (let i = 0; i < 200; i++) {
      const t = i * 10_000;
      call.run(t, t + 500, tid, 3 * i, 1);
      mem.run(t + 100, 42 << 24, 0x7f0000000000 + (i % 20) * 0x100000, 4096 * (1 + (i % 7)), 0, 3 * i);
      call.run(t + 1000, t + 1400, tid, 3 * i + 1, 2);
      kernel.run(t + 2000, t + 6000, 3 * i + 1, 42 << 24);
      nvtx.run(t, t + 8000, tid);
      if (i % 3 === 0) mem.run(t + 8500, 42 << 24, 0x7f0000000000 + (i % 20) * 0x100000, 4096, 1, 3 * i + 2);
    }
  })();
  db.close();
}

const CORPUS_SEEDS = [
  'vllm_prometheus/datadog_vllm_metrics_fixture.txt',
  'tgi_sglang_prometheus/sglang_docs_production_metrics_example.prom',
  'dcgm_exporter/datadog_dcgm_metrics_fixture.txt',
  'nvidia_smi/nvgpuexp_testdata_query.csv',
  'nvidia_smi/h200_load_query-compute-apps.csv',
  'nvidia_smi/h200_load_dmon.txt',
  'vllm_logs/vllm_log_lines_collected.log',
  'pytorch_oom/cuda_oom_lines_collected.log',
  'xid_logs/nvrm_xid_lines_collected.log',
  'kineto_trace/hta_cuda_event_sync_trace.json.gz',
  'pytorch_memory_snapshot/mlsys_profile_grad.pickle',
  'ncu_csv/superbench_cublaslt_ncu_details_sm100.log',
  'otlp_json/otel-proto_examples_trace.json',
  'otlp_json/otel-proto_examples_metrics.json',
  'otlp_json/otel-proto_examples_logs.json',
  'jaeger_json/jaeger_converter_fixture_ui_01.json',
];

const NSYS_CORPUS_SEED = 'nsys_sqlite/pipit_saxpy_mpi_cuda_nsys2022.2_MODIFIED.sqlite.gz';

/**
 * The repo's own samples: engine and kernel logs with the lines the log importers' regexes look for
 * (NCCL watchdog errors, preemption wordings, OOM text), which repeat-word grows to a megabyte — a seed
 * without them never reaches the paths that were quadratic — and nvidia-smi's table, query and XML, whose
 * readers go by columns, indentation and tags.
 */
const SAMPLE_SEEDS = ['vllm-with-torch-lines.log', 'torchrun-nccl-timeout.log', 'vllm-preemption-wordings.log', 'nvidia-smi-table-r470.txt', 'nvidia-smi-q-r470.txt', 'nvidia-smi-q-x-r535.xml', 'dcgmi-dmon.txt', 'victoriametrics-export.jsonl', 'kubectl-get-events.json', 'kubectl-get-pod.json', 'kubectl-describe-pod.txt', 'kubectl-get-events-wide.txt', 'kubectl-get-pods.yaml', 'otelcol-debug-exporter.log', 'nsys-stats-traces.csv', 'nsys-stats-gpu-trace.txt', 'nvprof-gpu-trace.csv', 'grafana-series-joined.csv', 'grafana-formatted-legend.csv', 'sglang-scheduler-crash-compose.log', 'vllm-engine-interleaved-stern.log', 'kubectl-get-pods-wide.txt', 'jaeger-es-search.json', 'kineto-cut-mid-write.json', 'syslog-xid-caused-by-sxid.log', 'vllm-rocm-hip-oom.log', 'zipkin-v2-traces.json'];

export function fuzzSeeds(dir: string): string[] {
  mkdirSync(dir, { recursive: true });
  const own: [string, Buffer][] = [
    ['scrapes.prom', Buffer.from(['# TYPE vllm:num_requests_waiting gauge', ...Array.from({ length: 50 }, (_, i) => `vllm:num_requests_waiting{model_name="m"} ${i % 9} ${1773478800000 + i * 5000}`)].join('\n') + '\n')],
    ['events.jsonl', Buffer.from(Array.from({ length: 40 }, (_, i) => JSON.stringify({ ts: 1773478800 + i, level: i % 5 ? 'info' : 'error', msg: `request ${i} done` })).join('\n') + '\n')],
    ['trace.json.gz', gzipSync(JSON.stringify({ schemaVersion: 1, traceEvents: Array.from({ length: 30 }, (_, i) => ({ ph: 'X', cat: 'kernel', name: `k${i % 3}`, pid: 0, tid: 7, ts: 1000 + i * 10, dur: 5, args: { correlation: i, device: 0, stream: 7 } })) }))],
    ['vllm.log', Buffer.from(Array.from({ length: 40 }, (_, i) => `INFO 03-14 10:00:${String(i).padStart(2, '0')} [loggers.py:123] Avg prompt throughput: ${i}.0 tokens/s, Avg generation throughput: 2.0 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: ${i}.0%, Prefix cache hit rate: 0.0%`).join('\n') + '\n')],
    ['snapshot.pickle', snapshotSeed()],
    // The shapes real files take that the first seeds lack: curl -i headers, federation's untyped histograms,
    // quoted UTF-8 names, a promtool dump line, tabs, a native histogram.
    [
      'variants.prom',
      Buffer.from(
        [
          'HTTP/1.1 200 OK',
          'date: Sun, 01 Dec 2024 10:00:00 GMT',
          'content-type: text/plain',
          '',
          '# TYPE vllm:e2e_request_latency_seconds_bucket untyped',
          ...Array.from({ length: 8 }, (_, i) => `vllm:e2e_request_latency_seconds_bucket{le="${i === 7 ? '+Inf' : 0.1 * 2 ** i}",model_name="m"} ${i * 3}`),
          'vllm:e2e_request_latency_seconds_count{model_name="m"} 21',
          'vllm:e2e_request_latency_seconds_sum{model_name="m"} 9.5',
          '{"my.dotted.metric", "error.message"="Not Found"}	1	1733047200000',
          '{__name__="vllm:num_requests_waiting", model_name="m"} 7 1733047200000',
          'nativehistogram {count:24,sum:100,schema:0,positive_spans:[0:2],positive_deltas:[2,1]} 1733047200',
          '2024-12-01T10:00:15Z',
          'vllm:num_requests_running{ model_name = "m" } 3',
        ].join('\n') + '\n',
      ),
    ],
    // Engine lines as runtimes and loggers wrap them: Docker json-file, CRI, journald, Python logging, bracket-less glog.
    [
      'wrapped.log',
      Buffer.from(
        [
          ...Array.from({ length: 10 }, (_, i) => JSON.stringify({ log: `INFO 03-14 10:00:${String(i).padStart(2, '0')} [loggers.py:123] Engine 000: Avg prompt throughput: ${i}.0 tokens/s, Avg generation throughput: 2.0 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: ${i}.0%\n`, stream: 'stdout', time: `2025-03-14T10:00:${String(i).padStart(2, '0')}.5Z` })),
          '2025-03-14T10:00:11.123456789Z stderr F (EngineCore_DP0 pid=7) Traceback (most recent call last):',
          '2025-03-14T10:00:11.123456789Z stderr F (EngineCore_DP0 pid=7)   File "core.py", line 1, in run',
          '2025-03-14T10:00:11.123456789Z stderr F (EngineCore_DP0 pid=7) vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue.',
          'Mar 14 10:00:12 node vllm[7]: ERROR 03-14 10:00:12 [core.py:9] EngineCore failed',
          '2025-03-14 10:00:13 - vllm.engine.metrics - INFO - Avg prompt throughput: 2.8 tokens/s, Avg generation throughput: 0.1 tokens/s, Running: 1 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 0.2%, CPU KV cache usage: 0.0%.',
          'E0314 10:00:14.620000 2606 site-packages/torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -9) local_rank: 5',
          'node:2606:2706 [3] misc/socket.cc:49 NCCL WARN socketProgress: Connection closed by remote peer',
        ].join('\n') + '\n',
      ),
    ],
    ['chrome.json', Buffer.from(JSON.stringify({ traceEvents: Array.from({ length: 30 }, (_, i) => ({ ph: i % 2 ? 'E' : 'B', cat: 'user_annotation', name: `r${i >> 1}`, pid: 1, tid: 1 + (i % 4 >> 1), ts: 1773478800000000 + i * 10 })) }))],
    [
      'smi-lost.csv',
      Buffer.from(
        [
          '$ nvidia-smi --query-gpu=timestamp,index,pci.bus_id,utilization.gpu,memory.used --format=csv,noheader,nounits -l 1',
          ...Array.from({ length: 20 }, (_, i) => `2025/03/14 10:00:${String(i).padStart(2, '0')}.123, ${i % 2}, 00000000:${i % 2 ? 'B1' : '31'}:00.0, ${i % 2 && i > 10 ? '[Unknown Error]' : 50 + i}, ${i % 2 && i > 10 ? '[GPU requires reset]' : 1000 + i}`),
          'Unable to determine the device handle for GPU0000:B1:00.0: Unknown Error',
        ].join('\n') + '\n',
      ),
    ],
    [
      'syslog5424.log',
      Buffer.from(
        [
          '<4>1 2025-02-14T05:03:42.654321+00:00 gpu-node-17 kernel - - - NVRM: Xid (PCI:0000:2b:00): 79, pid=2911, name=python3, GPU has fallen off the bus.',
          'Fri 2025-02-14 05:03:43 UTC gpu-node-17 kernel: nvidia-nvswitch3: SXid (PCI:0000:c3:00.0): 20034, Fatal, Link 62 LTSSM Fault Up',
          '[ 1843.308145] NVRM: The NVIDIA GPU 0000:b3:00.0',
          '               NVRM: (PCI ID: 10de:26b5) installed in this system has',
          '               NVRM: fallen off the bus and is not responding to commands.',
        ].join('\n') + '\n',
      ),
    ],
    ['powershell.csv', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('timestamp, index, utilization.gpu [%]\r\n' + Array.from({ length: 20 }, (_, i) => `2025/03/14 10:00:${String(i).padStart(2, '0')}.123, 0, ${i} %`).join('\r\n') + '\r\n', 'utf16le')])],
    // The collector's file exporter: a metrics request (gauge, counter, histogram, summary) then spans in snake_case.
    [
      'otelcol.jsonl',
      Buffer.from(
        [
          JSON.stringify({
            resourceMetrics: [
              {
                resource: { attributes: [{ key: 'service.name', value: { stringValue: 'vllm' } }] },
                scopeMetrics: [
                  {
                    metrics: [
                      { name: 'vllm:num_requests_running', gauge: { dataPoints: Array.from({ length: 10 }, (_, i) => ({ timeUnixNano: String(1773478800000000000n + BigInt(i) * 5000000000n), asDouble: i })) } },
                      { name: 'vllm:prompt_tokens', sum: { aggregationTemporality: 1, isMonotonic: true, dataPoints: [{ timeUnixNano: '1773478800000000000', asInt: '12' }] } },
                      { name: 'vllm:e2e_request_latency', unit: 's', histogram: { aggregationTemporality: 2, dataPoints: [{ timeUnixNano: '1773478800000000000', count: '6', sum: 2.5, bucketCounts: ['1', '2', '3'], explicitBounds: [0.5, 1] }] } },
                      { name: 'rpc', summary: { dataPoints: [{ timeUnixNano: '1773478800000000000', count: '2', sum: 1, quantileValues: [{ quantile: 0.5, value: 0.4 }] }] } },
                    ],
                  },
                ],
              },
            ],
          }),
          JSON.stringify({ resource_spans: [{ scope_spans: [{ spans: Array.from({ length: 5 }, (_, i) => ({ trace_id: Buffer.alloc(16, i + 1).toString('base64'), span_id: Buffer.alloc(8, i + 1).toString('base64'), name: 'llm_request', start_time_unix_nano: String(1773478800000000000n + BigInt(i) * 1000000n), end_time_unix_nano: String(1773478800500000000n + BigInt(i) * 1000000n) })) }] }] }),
        ].join('\n') + '\n',
      ),
    ],
    // opentelemetry-python's ConsoleSpanExporter: one indented document a span.
    [
      'console-spans.json',
      Buffer.from(
        Array.from({ length: 6 }, (_, i) =>
          JSON.stringify(
            {
              name: 'llm_request',
              context: { trace_id: `0x${'5b8efff798038103d269b633813fc60c'}`, span_id: `0x${String(i + 1).padStart(16, '0')}`, trace_state: '[]' },
              kind: 'SpanKind.SERVER',
              parent_id: i ? '0x0000000000000001' : null,
              start_time: `2026-03-14T10:00:0${i}.000001Z`,
              end_time: `2026-03-14T10:00:0${i}.250000Z`,
              status: { status_code: i === 3 ? 'ERROR' : 'UNSET' },
              attributes: { 'gen_ai.request.model': 'm', 'gen_ai.usage.prompt_tokens': 10 * i },
              events: [],
              links: [],
              resource: { attributes: { 'service.name': 'router' }, schema_url: '' },
            },
            null,
            4,
          ),
        ).join('\n') + '\n',
      ),
    ],
    ['kern.log', Buffer.from(Array.from({ length: 20 }, (_, i) => `May 18 19:02:${String(i + 10)} gpu-node-3 kernel: ${i % 4 === 3 ? `Out of memory: Killed process ${4000 + i} (python3) total-vm:81234567kB, anon-rss:${60000000 + i}kB, file-rss:0kB` : i % 4 === 1 ? `NVRM: Xid (PCI:0000:3b:00): 79, pid=${4000 + i}, name=python3, GPU has fallen off the bus.` : 'usb 1-1: new high-speed USB device'}`).join('\n') + '\n')],
  ];
  const paths = own.map(([name, bytes]) => {
    const p = join(dir, name);
    writeFileSync(p, bytes);
    return p;
  });
  nsysSeed(join(dir, 'nsys-export.sqlite'));
  paths.push(join(dir, 'nsys-export.sqlite'));
  // A real export, unpacked: byte-level damage must reach SQLite's pages, not the gzip around them.
  const real = corpusFile(NSYS_CORPUS_SEED);
  if (real) {
    writeFileSync(join(dir, 'nsys-corpus.sqlite'), gunzipSync(readFileSync(real)));
    paths.push(join(dir, 'nsys-corpus.sqlite'));
  }
  for (const name of SAMPLE_SEEDS) paths.push(join(REPO_ROOT, 'test/samples/variants', name));
  for (const rel of CORPUS_SEEDS) {
    const p = corpusFile(rel);
    if (p) paths.push(p);
  }
  return paths;
}
