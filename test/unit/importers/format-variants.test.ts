// The project's own samples of every real-world variant issue 15 lists (test/samples/variants/, written in
// the shapes of public files, never copied from them): each is detected as its format from its first
// 64 KiB, as the pipeline does, and imports with no error, the expected rows per table and the expected
// number of warnings (each guessed time or address says so). A new sample must be added here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { detectImporter, HEAD_BYTES } from '../../../node/engine/importers/registry';
import { runImporter } from './run-importer';

const DIR = fileURLToPath(new URL('../../samples/variants/', import.meta.url));
type Counts = Partial<Record<'series' | 'samples' | 'histograms' | 'events' | 'spans' | 'kernels' | 'allocations', number>>;

/** file, format, rows per table (absent: none), warnings. */
const EXPECTED: [string, string, Counts, number][] = [
  ['cpp-trace-paste.log', 'torch-log', { events: 4 }, 1],
  ['dcgmi-dmon.txt', 'dcgmi-dmon', { series: 12, samples: 42 }, 1],
  ['dmesg-decode-iso.log', 'kernel-log', { series: 1, samples: 1, events: 4 }, 0],
  ['grafana-formatted-legend.csv', 'grafana-csv', { series: 2, samples: 8 }, 3],
  ['grafana-series-joined.csv', 'grafana-csv', { series: 3, samples: 18 }, 1],
  ['grafana-inspector-p99.json', 'prometheus-json', { series: 1, samples: 3 }, 1],
  ['jaeger-api-v3.json', 'otlp-json', { series: 8, samples: 6, histograms: 45, spans: 3 }, 0],
  ['jaeger-span-array.json', 'jaeger-json', { series: 5, samples: 4, histograms: 22, spans: 2 }, 0],
  ['zipkin-v2-traces.json', 'zipkin-json', { series: 11, samples: 32, histograms: 268, spans: 8 }, 2],
  ['jaeger-es-search.json', 'jaeger-json', { series: 8, samples: 6, histograms: 45, spans: 2 }, 0],
  ['kubectl-describe-pod.txt', 'kubernetes', { events: 8 }, 0],
  ['kubectl-get-events-wide.txt', 'kubernetes', { events: 4 }, 1],
  ['kubectl-get-events.json', 'kubernetes', { events: 8 }, 0],
  ['kubectl-get-pod.json', 'kubernetes', { events: 3 }, 0],
  ['kubectl-get-pods.yaml', 'kubernetes', { events: 3 }, 0],
  ['kubectl-get-pods-wide.txt', 'kubernetes', { events: 7 }, 1],
  ['kineto-ns-precision.json', 'kineto-json', { series: 1, samples: 1, events: 1, spans: 1, kernels: 3 }, 0],
  ['kineto-cut-mid-write.json', 'kineto-json', { series: 1, samples: 1, events: 1, spans: 10, kernels: 4 }, 1],
  ['kmsg-records.txt', 'kernel-log', { series: 1, samples: 1, events: 3 }, 1],
  ['memory-snapshot-torch20-segments-only.pickle', 'torch-memory-snapshot', { series: 4, samples: 4, allocations: 2 }, 2],
  ['memory-snapshot-torch21-no-time.pickle', 'torch-memory-snapshot', { series: 2, samples: 2, allocations: 2 }, 1],
  ['nsys-stats-gpu-trace.txt', 'nsys-stats-csv', { kernels: 3 }, 1],
  ['nsys-stats-traces.csv', 'nsys-stats-csv', { kernels: 4, spans: 4 }, 2],
  ['nvprof-gpu-trace.csv', 'nvprof-csv', { kernels: 3 }, 1],
  ['nvidia-smi-no-devices.txt', 'nvidia-smi-text', { events: 1 }, 1],
  ['nvidia-smi-q-x-r535.xml', 'nvidia-smi-xml', { series: 57, samples: 84 }, 0],
  ['nvidia-smi-q-r470.txt', 'nvidia-smi-text', { series: 32, samples: 32 }, 0],
  ['nvidia-smi-table-r418-undated.txt', 'nvidia-smi-text', { series: 9, samples: 9 }, 1],
  ['nvidia-smi-table-r470.txt', 'nvidia-smi-text', { series: 18, samples: 27, events: 1 }, 0],
  ['nvidia-smi-pmon-dt.txt', 'nvidia-smi-pmon', { series: 6, samples: 12 }, 0],
  ['nvidia-smi-pmon-su.txt', 'nvidia-smi-pmon', { series: 6, samples: 12 }, 1],
  ['nvidia-smi-query-repeated-header.csv', 'nvidia-smi-csv', { series: 2, samples: 6 }, 1],
  ['otelcol-debug-exporter.log', 'otlp-json', { series: 9, samples: 7, histograms: 45, events: 1, spans: 2 }, 1],
  ['prometheus-api-expression.json', 'prometheus-json', { series: 2, samples: 4 }, 1],
  ['prometheus-created-gauges.prom', 'prometheus-text', { series: 5, samples: 4, histograms: 2 }, 1],
  ['pstore-dmesg-ramoops.txt', 'kernel-log', { series: 1, samples: 1, events: 263 }, 1],
  ['ray-serve-llm-metrics.prom', 'prometheus-text', { series: 7, samples: 6, histograms: 2 }, 1],
  ['rocm-kernel-kind.json', 'kineto-json', { series: 1, samples: 1, events: 1, kernels: 2 }, 0],
  ['syslog-xid-caused-by-sxid.log', 'kernel-log', { series: 2, samples: 2, events: 4 }, 0],
  ['sglang-collector-brackets.log', 'sglang-log', { series: 5, samples: 15 }, 0],
  ['sglang-scheduler-crash-compose.log', 'sglang-log', { series: 9, samples: 12, events: 7 }, 0],
  ['sglang-current.log', 'sglang-log', { series: 16, samples: 46, events: 2 }, 1],
  ['sglang-no-prefix.log', 'sglang-log', { series: 7, samples: 21 }, 2],
  ['sglang-ray-actor.log', 'sglang-log', { series: 7, samples: 21 }, 1],
  ['sglang-time-only.log', 'sglang-log', { series: 5, samples: 15 }, 1],
  ['torch-legacy-profiler-trace.json', 'kineto-json', { spans: 3, kernels: 1 }, 1],
  ['torchrun-nccl-timeout.log', 'torch-log', { events: 5 }, 0],
  ['victoriametrics-export.jsonl', 'victoriametrics-jsonl', { series: 10, samples: 392, histograms: 1078 }, 0],
  ['vllm-engine-interleaved-stern.log', 'vllm-log', { series: 8, samples: 8, events: 4 }, 0],
  ['vllm-glued-stats.log', 'vllm-log', { series: 6, samples: 24 }, 0],
  ['vllm-preemption-wordings.log', 'vllm-log', { series: 1, samples: 1, events: 4 }, 0],
  ['vllm-with-torch-lines.log', 'vllm-log', { events: 4 }, 0],
  ['vllm-rocm-hip-oom.log', 'vllm-log', { series: 6, samples: 6, events: 2 }, 0],
];

test('every sample variant is listed here', () => {
  const files = readdirSync(DIR).filter((f) => !f.endsWith('.ts') && f !== 'README.md').sort();
  assert.deepEqual(files, EXPECTED.map((e) => e[0]).sort());
});

for (const [file, format, counts, warnings] of EXPECTED) {
  test(`${file}: ${format}, ${JSON.stringify(counts)}`, async () => {
    const path = join(DIR, file);
    const imp = detectImporter(readFileSync(path).subarray(0, HEAD_BYTES), file);
    assert.equal(imp?.format, format);
    const r = await runImporter(imp!, { file: path, mtimeMs: Date.UTC(2025, 5, 1) });
    try {
      assert.equal(r.error, null, r.error?.message);
      const got = r.all<Required<Counts>>(
        'SELECT (SELECT COUNT(*) FROM series) series, (SELECT COUNT(*) FROM samples) samples, (SELECT COUNT(*) FROM histograms) histograms, (SELECT COUNT(*) FROM events) events, (SELECT COUNT(*) FROM spans) spans, (SELECT COUNT(*) FROM kernels) kernels, (SELECT COUNT(*) FROM allocations) allocations',
      )[0];
      assert.deepEqual(Object.fromEntries(Object.entries(got).filter(([, n]) => n > 0)), counts);
      assert.equal(r.warnings.length, warnings, r.warnings.join('\n'));
    } finally {
      r.dispose();
    }
  });
}
