// UTF-16 text with its byte-order mark (Windows PowerShell 5.1's `>`): detected and read as the UTF-8 it
// stands for, whatever the format, however the stream is cut.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { asUtf8, headAsUtf8, utf16Of } from '../../../node/engine/import/utf16';
import { importFiles, tempStore } from '../../helpers/import-file';
import { storeSql } from '../../helpers/store-sql';

/** `text` as UTF-16 with its byte-order mark. */
function utf16(text: string, be = false): Buffer {
  const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
  if (!be) return le;
  const out = Buffer.from(le);
  out.swap16();
  return out;
}

test('the decoder: both byte orders, code units and surrogate pairs split across chunks, the head cut mid-unit', async () => {
  const text = 'GPU 0 — 80 °C 🔥 ok\nnext line\n';
  for (const be of [false, true]) {
    const bytes = utf16(text, be);
    assert.equal(utf16Of(bytes), be ? 'utf-16be' : 'utf-16le');
    for (const size of [1, 3, 7, 64]) {
      const parts: Buffer[] = [];
      for (let i = 0; i < bytes.length; i += size) parts.push(bytes.subarray(i, i + size));
      const out: Buffer[] = [];
      for await (const b of asUtf8(Readable.from(parts) as AsyncIterable<Buffer>, be ? 'utf-16be' : 'utf-16le')) out.push(b);
      assert.equal(Buffer.concat(out).toString('utf8'), text, `${be ? 'BE' : 'LE'} in chunks of ${size}`);
    }
    // 9 bytes: the mark, three whole units and half of the fourth (dropped).
    assert.equal(headAsUtf8(bytes.subarray(0, 9), be ? 'utf-16be' : 'utf-16le').toString('utf8'), 'GPU');
  }
  assert.equal(utf16Of(Buffer.from('# TYPE x gauge\n')), null);
  assert.equal(utf16Of(Buffer.from([0xef, 0xbb, 0xbf, 0x41])), null);
});

test('UTF-16 files through the import: an nvidia-smi CSV and a Prometheus scrape read, with a warning that says so', async () => {
  const t = tempStore();
  try {
    const csv = join(t.dir, 'gpu.csv');
    writeFileSync(csv, utf16('timestamp, index, utilization.gpu [%], memory.used [MiB]\r\n2024/01/15 10:00:00.123, 0, 87 %, 61440 MiB\r\n'));
    const prom = join(t.dir, 'metrics.txt');
    writeFileSync(prom, utf16('# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{model_name="m"} 3 1717000000000\n', true));
    const junk = join(t.dir, 'notes.txt');
    writeFileSync(junk, utf16('just some notes\n'));
    const r = await importFiles(t.store, [csv, prom, junk]);
    // In the pipeline's order: absolute times, then the CSV's local ones (read against them), skipped files among the first.
    assert.deepEqual(
      r.sources.map((s) => [s.format, s.status]),
      [
        ['prometheus-text', 'ok'],
        ['unknown', 'skipped'],
        ['nvidia-smi-csv', 'ok'],
      ],
    );
    assert.match(r.sources[1].error ?? '', /UTF-16 text \(UTF-16LE\)/);
    const db = storeSql(t.store);
    const v = (name: string) => db.prepare('SELECT value FROM samples WHERE series_id = (SELECT id FROM series WHERE name = ?)').pluck().all(name);
    assert.deepEqual(v('gpu.util'), [0.87]);
    assert.deepEqual(v('req.running'), [3]);
    const warned = db.prepare("SELECT warnings_json FROM sources WHERE format = 'nvidia-smi-csv'").pluck().get() as string;
    assert.match(warned, /UTF-16LE text \(as Windows PowerShell writes it\)/);
  } finally {
    t.dispose();
  }
});
