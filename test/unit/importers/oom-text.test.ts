import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { corpusFile, skipUnlessCorpus } from '../../helpers/corpus';
import { parseOom } from '../../../node/engine/importers/oom-text';

const OOM = 'pytorch_oom/cuda_oom_lines_collected.log';
const MiB = 2 ** 20;
const GiB = 2 ** 30;
const r = (x: number) => Math.round(x);

test('every OOM wording of the corpus parses to numbers', { skip: skipUnlessCorpus(OOM) }, () => {
  const lines = readFileSync(corpusFile(OOM)!, 'utf8').split('\n');
  const p = lines.map((l) => parseOom(l));
  // torch 2.x inside a vLLM worker prefix
  assert.deepEqual(p[0], {
    exception: 'torch.OutOfMemoryError',
    tried_bytes: r(270 * MiB),
    gpu: 1,
    capacity_bytes: r(21.98 * GiB),
    free_bytes: r(156.94 * MiB),
    process_bytes: r(21.8 * GiB),
    process_pid: null,
    allocated_bytes: r(21.42 * GiB),
    reserved_unallocated_bytes: r(24.12 * MiB),
    reserved_bytes: r(21.42 * GiB) + r(24.12 * MiB),
  });
  assert.equal(p[2], null); // the CRITICAL follow-up line is not an OOM message
  // "Process N has X memory in use"
  assert.equal(p[3]!.process_pid, 2684311);
  assert.equal(p[3]!.process_bytes, r(14.51 * GiB));
  assert.equal(p[3]!.tried_bytes, r(74.16 * GiB));
  // ~2.1 "total capacty" typo, KiB unit
  assert.equal(p[4]!.capacity_bytes, r(23.69 * GiB));
  assert.equal(p[4]!.reserved_unallocated_bytes, r(755.5 * 1024));
  // ≤ 2.0 parenthesised form
  assert.deepEqual(
    [p[5]!.gpu, p[5]!.capacity_bytes, p[5]!.allocated_bytes, p[5]!.free_bytes, p[5]!.reserved_bytes, p[5]!.reserved_unallocated_bytes],
    [0, r(44.56 * GiB), r(27.91 * GiB), r(565.31 * MiB), r(27.93 * GiB), r(27.93 * GiB) - r(27.91 * GiB)],
  );
  // 1.0 "cached" form; cached below allocated leaves no stranded reserve
  assert.equal(p[6]!.exception, 'RuntimeError');
  assert.equal(p[6]!.reserved_bytes, r(4.68 * MiB));
  assert.equal(p[6]!.reserved_unallocated_bytes, 0);
});
