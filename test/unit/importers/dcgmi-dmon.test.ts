// `dcgmi dmon` output (dcgmi-dmon.ts): DCGM's short field names read as the DCGM fields they stand for, an
// interval a second ending at the mtime (dmon prints no times), N/A as no reading, detection beside nvidia-smi dmon.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dcgmiDmonImporter } from '../../../node/engine/importers/dcgmi-dmon';
import { detectImporter, HEAD_BYTES } from '../../../node/engine/importers/registry';
import { MIB } from '../../../node/engine/signals/canonical';
import { runImporter, values } from './run-importer';

const SAMPLE = fileURLToPath(new URL('../../samples/variants/dcgmi-dmon.txt', import.meta.url));
const END = Date.UTC(2025, 5, 1, 12, 0, 0);

test('dcgmi dmon: short names to canonical signals in canonical units, one interval a second ending at the mtime, N/A skipped, the header again read on', async () => {
  assert.equal(detectImporter(readFileSync(SAMPLE).subarray(0, HEAD_BYTES), 'dmon.txt')?.format, 'dcgmi-dmon');
  const r = await runImporter(dcgmiDmonImporter, { file: SAMPLE, mtimeMs: END });
  try {
    assert.equal(r.error, null, r.error?.message);
    const at = (k: number) => END - (3 - k) * 1000;
    assert.deepEqual(values(r, 'gpu.util', { gpu: '0' }), [0, 0.98, 0.99, 0.99].map((v, k) => ({ ts: at(k), v })));
    assert.deepEqual(values(r, 'gpu.util', { gpu: '1' }).map((s) => s.ts), [at(0), at(1), at(3)]);
    assert.deepEqual(values(r, 'gpu.mem.used', { gpu: '0' }).map((s) => s.v), [512, 74203, 74203, 74210].map((m) => m * MIB));
    assert.deepEqual(values(r, 'gpu.sm_active', { gpu: '1' }).map((s) => s.v), [0, 0.866, 0.861]);
    assert.deepEqual(values(r, 'gpu.power', { gpu: '0' }).map((s) => s.v), [61.203, 312.507, 315.004, 316.222]);
    assert.equal(r.warnings.length, 1);
    assert.match(r.warnings[0], /dcgmi dmon prints no times: one interval a second .* used the file's modification time/);
  } finally {
    r.dispose();
  }
});

test("dcgmi dmon: rows before any header fail the file as not dmon's; nvidia-smi dmon stays nvidia-smi-dmon", async () => {
  const bad = await runImporter(dcgmiDmonImporter, { text: 'GPU 0 1 2\n'.repeat(5), name: 'x.txt' });
  try {
    assert.match(bad.error?.message ?? '', /x\.txt \(line \d+\): not dcgmi dmon output/);
  } finally {
    bad.dispose();
  }
  const smi = '# gpu   pwr gtemp mtemp    sm   mem   enc   dec  mclk  pclk\n# Idx     W     C     C     %     %     %     %   MHz   MHz\n    0    61    33     -     0     0     0     0  2619  1980\n';
  assert.equal(detectImporter(Buffer.from(smi), 'dmon.txt')?.format, 'nvidia-smi-dmon');
});

test("dcgmi dmon's MIG instances (GPU-I) are GPUs of their own to the model, as dcgm-exporter's GPU_I_ID makes them", async () => {
  const text = ['#Entity   FBUSD   FBFRE', 'ID', 'GPU-I 1   4384    480', 'GPU-I 2   6       4858', ''].join('\n');
  const r = await runImporter(dcgmiDmonImporter, { text, name: 'dmon.txt', mtimeMs: Date.UTC(2026, 2, 14) });
  try {
    assert.equal(r.error, null);
    const used = r.all<{ labels_json: string }>("SELECT labels_json FROM series WHERE name = 'gpu.mem.used' ORDER BY id").map((x) => JSON.parse(x.labels_json));
    assert.deepEqual(used.map((l) => [l.entity, l.GPU_I_ID]), [['GPU-I 1', '1'], ['GPU-I 2', '2']]);
  } finally {
    r.dispose();
  }
});
