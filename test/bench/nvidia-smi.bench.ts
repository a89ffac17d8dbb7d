// What the nvidia-smi `--query-gpu` CSV importer costs per row: 8 GPUs polled once a second (`-l 1`, the
// fixture generator's ten columns with units), parsed into a sink that only counts (the importer's own
// cost), and into SQLite (what an import costs). Baseline in the same run: splitting the same text into
// lines and cells alone.
//   node --import tsx test/bench/nvidia-smi.bench.ts   (QUADSCOPE_BENCH_HOURS, default 1)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { nvidiaSmiCsvImporter } from '../../node/engine/importers/nvidia-smi';
import type { Sink } from '../../node/engine/importers/types';
import { Store } from '../../node/engine/store/store';
import { SMI_HEADER } from '../../fixtures/lib/nvidia-smi-writer';
import { emit } from './lib';

const hours = Number(process.env.QUADSCOPE_BENCH_HOURS ?? 1);
const GPUS = 8;
const seconds = Math.round(hours * 3600);

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
function smiTime(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}/${pad(d.getUTCMonth() + 1)}/${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}`;
}

function csv(): Buffer {
  const rows = [SMI_HEADER];
  const t0 = Date.UTC(2026, 2, 14, 9);
  for (let s = 0; s < seconds; s++) {
    for (let g = 0; g < GPUS; g++) {
      const x = (s * 7 + g * 13) % 1000;
      rows.push(
        [smiTime(t0 + s * 1000 + 3 * g), String(g), 'NVIDIA H100 80GB HBM3', `${30000 + x} MiB`, '81559 MiB', `${x % 101} %`, `${1400 + (x % 580)} MHz`, `${(300 + x / 3).toFixed(2)} W`, String(40 + (x % 40)), '0x0000000000000000'].join(', '),
      );
    }
  }
  return Buffer.from(`${rows.join('\n')}\n`);
}

function countingSink(): Sink {
  let id = 0;
  const nop = () => {};
  return { rows: 0, series: () => ++id, sample: nop, histogram: nop, event: nop, span: nop, kernel: nop, stack: () => 0, allocation: nop, attached: () => { throw new Error('none'); }, incidentId: 1, sourceId: 1 };
}

async function run(body: Buffer, sink: Sink): Promise<number> {
  const t = performance.now();
  await nvidiaSmiCsvImporter.import(
    {
      stream: () => Readable.from((function* () { for (let i = 0; i < body.length; i += 256 * 1024) yield body.subarray(i, i + 256 * 1024); })()) as AsyncIterable<Buffer>,
      file: async () => '',
    },
    sink,
    { path: 'query-gpu.csv', size: body.length, mtimeMs: null, options: {}, signal: new AbortController().signal, progress: () => {}, warn: (m) => console.warn(m) },
  );
  return performance.now() - t;
}

const body = csv();
const rows = seconds * GPUS;
let t = performance.now();
let cells = 0;
for (const line of body.toString('utf8').split('\n')) cells += line.split(', ').length;
const splitMs = performance.now() - t;
if (cells === 0) throw new Error('no cells');

await run(body, countingSink()); // warm-up
const parseMs = Math.min(await run(body, countingSink()), await run(body, countingSink()));
emit({ bench: 'nvidia-smi', case: `--query-gpu CSV, ${rows} rows × 10 columns: parse (counting sink), per row`, value: (parseMs * 1000) / rows, unit: 'µs', baseline: 'split into lines and cells alone', baseline_value: (splitMs * 1000) / rows });

const dir = mkdtempSync(join(tmpdir(), 'qs-bench-smi-'));
const store = new Store(join(dir, 'bench.db'));
try {
  const incident = store.createIncident('bench');
  const writer = store.beginSource(incident, { path: 'query-gpu.csv', format: 'nvidia-smi-csv', bytes: body.length });
  t = performance.now();
  await run(body, writer);
  writer.commit([]);
  const fullMs = performance.now() - t;
  emit({ bench: 'nvidia-smi', case: `--query-gpu CSV, ${rows} rows into SQLite (${writer.rows} samples), per row`, value: (fullMs * 1000) / rows, unit: 'µs', baseline: 'parse only', baseline_value: (parseMs * 1000) / rows });
} finally {
  store.close();
  rmSync(dir, { recursive: true, force: true });
}
