// The files the fuzzer mutates: one real sample of every format in the corpus (when it is present),
// small files this test writes itself and a few of the repo's own samples, so a fresh clone still
// fuzzes something.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { REPO_ROOT, corpusFile } from '../helpers/corpus';
import { pickle } from '../../fixtures/lib/pickle-writer';

/** A small memory snapshot in CPython's own encoding (memoised frame lists shared between entries). */
function snapshotSeed(): Buffer {
  const frames = [{ filename: 'train.py', line: 12, name: 'step' }, { filename: 'model.py', line: 40, name: 'forward' }];
  const trace = Array.from({ length: 60 }, (_, i) => ({ action: i % 2 ? 'free_completed' : 'alloc', addr: 4096 * (1 + (i >> 1)), size: 512 * (1 + (i % 5)), stream: 0, time_us: 1_773_478_800_000_000 + i * 1000, frames }));
  return pickle({
    segments: [{ device: 0, address: 4096, total_size: 1 << 20, stream: 0, blocks: [{ address: 4096, size: 512, requested_size: 500, state: 'active_allocated', frames }] }],
    device_traces: [trace],
  });
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
  'jaeger_json/jaeger_converter_fixture_ui_01.json',
];

/**
 * Engine and kernel logs from the repo's own samples: the lines the log importers' regexes look for
 * (NCCL watchdog errors, preemption wordings, OOM text), which repeat-word grows to a megabyte — a seed
 * without them never reaches the paths that were quadratic.
 */
const SAMPLE_SEEDS = ['vllm-with-torch-lines.log', 'torchrun-nccl-timeout.log', 'vllm-preemption-wordings.log'];

export function fuzzSeeds(dir: string): string[] {
  mkdirSync(dir, { recursive: true });
  const own: [string, Buffer][] = [
    ['scrapes.prom', Buffer.from(['# TYPE vllm:num_requests_waiting gauge', ...Array.from({ length: 50 }, (_, i) => `vllm:num_requests_waiting{model_name="m"} ${i % 9} ${1773478800000 + i * 5000}`)].join('\n') + '\n')],
    ['events.jsonl', Buffer.from(Array.from({ length: 40 }, (_, i) => JSON.stringify({ ts: 1773478800 + i, level: i % 5 ? 'info' : 'error', msg: `request ${i} done` })).join('\n') + '\n')],
    ['trace.json.gz', gzipSync(JSON.stringify({ schemaVersion: 1, traceEvents: Array.from({ length: 30 }, (_, i) => ({ ph: 'X', cat: 'kernel', name: `k${i % 3}`, pid: 0, tid: 7, ts: 1000 + i * 10, dur: 5, args: { correlation: i, device: 0, stream: 7 } })) }))],
    ['vllm.log', Buffer.from(Array.from({ length: 40 }, (_, i) => `INFO 03-14 10:00:${String(i).padStart(2, '0')} [loggers.py:123] Avg prompt throughput: ${i}.0 tokens/s, Avg generation throughput: 2.0 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: ${i}.0%, Prefix cache hit rate: 0.0%`).join('\n') + '\n')],
    ['snapshot.pickle', snapshotSeed()],
    ['kern.log', Buffer.from(Array.from({ length: 20 }, (_, i) => `May 18 19:02:${String(i + 10)} gpu-node-3 kernel: ${i % 4 === 3 ? `Out of memory: Killed process ${4000 + i} (python3) total-vm:81234567kB, anon-rss:${60000000 + i}kB, file-rss:0kB` : i % 4 === 1 ? `NVRM: Xid (PCI:0000:3b:00): 79, pid=${4000 + i}, name=python3, GPU has fallen off the bus.` : 'usb 1-1: new high-speed USB device'}`).join('\n') + '\n')],
  ];
  const paths = own.map(([name, bytes]) => {
    const p = join(dir, name);
    writeFileSync(p, bytes);
    return p;
  });
  for (const name of SAMPLE_SEEDS) paths.push(join(REPO_ROOT, 'test/samples/variants', name));
  for (const rel of CORPUS_SEEDS) {
    const p = corpusFile(rel);
    if (p) paths.push(p);
  }
  return paths;
}
