// Throughput and memory of the engine-log importer into SQLite: a generated vLLM V1 log (stats lines
// every 10 s, uvicorn access lines, request INFO lines, an occasional warning and traceback),
// generated while it streams, so the log never exists whole in memory.
// Run: node --import tsx test/bench/vllm-log.bench.ts [megabytes]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { vllmLogImporter } from '../../electron/engine/importers/vllm-log';
import { Store } from '../../electron/engine/store/store';

const MB = Number(process.argv[2] ?? 200);

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

function* chunks(totalBytes: number): Generator<Buffer> {
  let bytes = 0;
  let t = Date.UTC(2026, 4, 19, 10, 0, 0) / 1000;
  let i = 0;
  while (bytes < totalBytes) {
    const parts: string[] = [];
    for (let k = 0; k < 2000; k++, i++) {
      if (i % 25 === 0) t++;
      const d = new Date(t * 1000);
      const stamp = `${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
      const r = i % 250;
      if (r === 0) {
        parts.push(`(APIServer pid=3646) INFO ${stamp} [loggers.py:271] Engine 000: Avg prompt throughput: ${(i % 9000) / 3}.0 tokens/s, Avg generation throughput: 1055.3 tokens/s, Running: ${i % 30} reqs, Waiting: ${i % 7} reqs, GPU KV cache usage: ${(i % 1000) / 10}%, Prefix cache hit rate: 12.5%\n`);
      } else if (r === 1) {
        parts.push(`(APIServer pid=3646) WARNING ${stamp} [protocol.py:93] The following fields were present in the request but ignored: {'stream_options'}\n`);
      } else if (r < 12) {
        parts.push(`(APIServer pid=3646) INFO ${stamp} [logger.py:43] Received request chatcmpl-${i.toString(16)}: prompt: '<|begin_of_text|>You are a helpful assistant.', params: SamplingParams(n=1, temperature=0.7, max_tokens=512), lora_request: None.\n`);
      } else {
        parts.push(`(APIServer pid=3646) INFO:     10.0.${i % 256}.7:5${i % 1000} - "POST /v1/chat/completions HTTP/1.1" ${i % 997 === 0 ? 503 : 200} OK\n`);
      }
    }
    const b = Buffer.from(parts.join(''));
    bytes += b.length;
    yield b;
  }
}

async function main(): Promise<void> {
  const total = MB * 1e6;
  const dir = mkdtempSync(join(tmpdir(), 'qs-bench-'));
  const store = new Store(join(dir, 'bench.db'));
  try {
    const incident = store.createIncident('bench');
    const writer = store.beginSource(incident, { path: 'vllm.log', format: 'vllm-log', bytes: total });
    let seen = 0;
    const rssBefore = process.memoryUsage().rss;
    let rssPeak = rssBefore;
    const start = process.hrtime.bigint();
    await vllmLogImporter.import(
      {
        stream: () =>
          Readable.from(
            (function* () {
              for (const c of chunks(total)) {
                seen += c.length;
                rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
                yield c;
              }
            })(),
          ),
        file: async () => '',
      },
      writer,
      { path: 'vllm.log', size: null, mtimeMs: Date.UTC(2026, 4, 20), options: {}, signal: new AbortController().signal, progress: () => {}, warn: (m) => console.warn(m) },
    );
    writer.commit([]);
    const secs = Number(process.hrtime.bigint() - start) / 1e9;
    console.log(
      `vllm-log into SQLite: ${(seen / 1e6).toFixed(0)} MB, ${writer.rows} rows in ${secs.toFixed(2)} s = ${(seen / 1e6 / secs).toFixed(1)} MB/s; RSS ${(rssBefore / 2 ** 20).toFixed(0)} MiB before, peak ${(rssPeak / 2 ** 20).toFixed(0)} MiB`,
    );
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
