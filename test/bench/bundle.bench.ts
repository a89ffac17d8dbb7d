// How fast the bundle opener unpacks and serves: a .tar.gz, a .zip and a single .gz of log-like text
// (about 5:1), each opened and every entry streamed through, against plain zlib gunzip of the same
// .tar.gz as the baseline; and how long a .tar.gz of 100 000 tiny entries takes to be refused.
// Run: node --import tsx test/bench/bundle.bench.ts [MiB per archive, default 256]
import { createReadStream, createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip, gzipSync } from 'node:zlib';
import tar from 'tar-stream';
import { openBundle } from '../../node/engine/bundle/open';
import { makeZip } from '../helpers/make-zip';
import { gnuHeader, padded } from '../unit/bundle/fixtures';
import { emit, rng, time } from './lib';

const MIB = 2 ** 20;
const FILES = 8;
const TARGET_MIBS = 30;
const perFile = Math.floor((Number(process.argv[2] ?? 256) * MIB) / FILES);

function logText(bytes: number): Buffer {
  const r = rng(7);
  const lines: string[] = [];
  let n = 0;
  while (n < bytes) {
    const x = Math.floor(r() * 1e9);
    const line = `INFO 05-17 10:${String(x % 60).padStart(2, '0')}:00 [engine.py:${x % 900}] Avg prompt throughput: ${(x % 9973) / 10} tokens/s, Running: ${x % 64} reqs, GPU KV cache usage: ${x % 100}.${x % 10}%\n`;
    lines.push(line);
    n += line.length;
  }
  return Buffer.from(lines.join('')).subarray(0, bytes);
}

async function writeTarGz(file: string, body: Buffer): Promise<void> {
  const pack = tar.pack();
  const out = pipeline(pack, createGzip(), createWriteStream(file));
  for (let i = 0; i < FILES; i++) {
    await new Promise<void>((resolve, reject) => pack.entry({ name: `logs/node-${i}.log`, size: body.length }, body, (e) => (e ? reject(e) : resolve())));
  }
  pack.finalize();
  await out;
}

async function openAndStream(paths: string[], expected: number): Promise<void> {
  const b = await openBundle(paths);
  let seen = 0;
  for (const e of b.entries) for await (const c of e.stream()) seen += c.length;
  await b.close();
  if (b.failures.length) throw new Error(b.failures.map((f) => f.error).join('; '));
  if (seen !== expected) throw new Error(`streamed ${seen} bytes, expected ${expected}`);
}

const dir = mkdtempSync(join(tmpdir(), 'qs-bench-bundle-'));
try {
  const body = logText(perFile);
  const total = body.length * FILES;
  const tgz = join(dir, 'b.tar.gz');
  await writeTarGz(tgz, body);
  writeFileSync(join(dir, 'b.zip'), makeZip(Array.from({ length: FILES }, (_, i) => ({ name: `logs/node-${i}.log`, data: body }))));
  await pipeline(Readable.from((function* () { for (let i = 0; i < FILES; i++) yield body; })()), createGzip(), createWriteStream(join(dir, 'one.log.gz')));

  const baseline = await time(() => pipeline(createReadStream(tgz), createGunzip(), async (src: AsyncIterable<Buffer>) => { for await (const _ of src); }));
  const baselineMibs = total / MIB / (baseline.ms / 1000);
  for (const [label, file] of [['tar.gz', 'b.tar.gz'], ['zip', 'b.zip'], ['single .gz', 'one.log.gz']]) {
    const { ms } = await time(() => openAndStream([join(dir, file)], total));
    const mibs = total / MIB / (ms / 1000);
    emit({ bench: 'bundle', case: `${label} ${(total / MIB).toFixed(0)} MiB open + stream`, value: mibs, unit: 'MiB/s', baseline: 'zlib gunzip of the .tar.gz', baseline_value: baselineMibs, target: `≥ ${TARGET_MIBS} MiB/s`, met: mibs >= TARGET_MIBS });
  }

  const parts: Buffer[] = [];
  for (let i = 0; i < 100_000; i++) parts.push(gnuHeader(`d${i % 100}/f${i}.txt`, 1, '0'), padded(Buffer.from('x')));
  writeFileSync(join(dir, 'many.tar.gz'), gzipSync(Buffer.concat([...parts, Buffer.alloc(1024)])));
  const many = await time(async () => {
    const b = await openBundle([join(dir, 'many.tar.gz')]);
    await b.close();
    if (!b.failures.some((f) => f.error.includes('maxEntries'))) throw new Error('100 000 entries were not refused');
  });
  emit({ bench: 'bundle', case: '.tar.gz of 100 000 tiny entries refused', value: many.ms, unit: 'ms', target: '< 5000 ms', met: many.ms < 5000 });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
