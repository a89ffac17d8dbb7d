// Log lines that repeat a word a regex looks for: an unanchored `X.*Y`, `[A-Za-z_.]*Error` or
// `X\b[^.]*\bY` is tried from every mention to the line's end, which is quadratic in the line (the
// review's 1 MB line of "ProcessGroupNCCL " took 80 s; 64 KiB of letters before "CUDA out of memory"
// took 18 s). Each such line is imported whole here and judged against a linear floor measured in the
// same run (a loaded 2-core machine slows both alike); what the rewritten tests still recognise is
// checked beside.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { events, runImporter } from './run-importer';
import { vllmLogImporter } from '../../../node/engine/importers/vllm-log';
import { kernelLogImporter } from '../../../node/engine/importers/kernel-log';
import { parseOom } from '../../../node/engine/importers/oom-text';
import type { Importer } from '../../../node/engine/importers/types';

const MiB = 2 ** 20;
const VLLM = 'INFO 03-14 10:00:00 [worker.py:12] ';

/** A linear pass over the text (a regex that fails at every byte, once) and a copy: the floor. */
function floorMs(text: string): number {
  const t0 = performance.now();
  /\u0001\u0002/.test(text);
  Buffer.from(text).indexOf(0x01);
  return performance.now() - t0;
}

async function timedImport(imp: Importer, name: string, text: string): Promise<number> {
  const floor = floorMs(text);
  const t0 = performance.now();
  const r = await runImporter(imp, { name, text, mtimeMs: Date.UTC(2026, 2, 14, 12) });
  const ms = performance.now() - t0;
  try {
    assert.equal(r.error, null, r.error?.message);
  } finally {
    r.dispose();
  }
  // The quadratic forms took 100–10,000 times this; a linear importer does a few dozen passes at most.
  assert.ok(ms < 400 * floor + 3000, `${name}: ${ms.toFixed(0)} ms against a ${floor.toFixed(1)} ms linear pass over the line`);
  return ms;
}

test('a 1 MiB vLLM log line of "ProcessGroupNCCL " or "preempted " imports in linear time', async () => {
  await timedImport(vllmLogImporter, 'nccl.log', VLLM + 'ProcessGroupNCCL '.repeat(MiB / 17) + '\n');
  await timedImport(vllmLogImporter, 'preempt.log', VLLM + 'preempted '.repeat(MiB / 10) + '\n');
  await timedImport(vllmLogImporter, 'oom.log', VLLM + 'a'.repeat(MiB - 64) + ' CUDA out of memory\n');
});

test('a 1 MiB kernel log line repeating an OOM-kill head with no ")" imports in linear time', async () => {
  await timedImport(kernelLogImporter, 'kern.log', 'May 18 19:02:39 host kernel: ' + 'Out of memory: Kill process 1 ('.repeat(MiB / 31) + '\n');
});

test('the rewritten tests still recognise what they did: NCCL errors, preemptions, the OOM exception', async () => {
  const lines = [
    `${VLLM}[Rank 0] ProcessGroupNCCL: some rank will abort the communicator`,
    'INFO 03-14 10:00:01 [scheduler.py:1] Sequence group 7 is preempted by PreemptionMode.RECOMPUTE mode because there is not enough KV cache space.',
    'INFO 03-14 10:00:02 [scheduler.py:1] Request 9 preempted. Free blocks: 0',
    'INFO 03-14 10:00:03 [scheduler.py:1] Preempted request 9 has been resumed.',
    'INFO 03-14 10:00:04 [scheduler.py:1] preempting request 11 to free KV cache blocks',
  ];
  const r = await runImporter(vllmLogImporter, { name: 'vllm.log', text: lines.join('\n') + '\n', mtimeMs: Date.UTC(2026, 2, 14, 12) });
  try {
    assert.equal(r.error, null);
    assert.deepEqual(events(r, 'nccl_error').map((e) => e.line), [1]);
    // Line 3: "preempted" and "blocks" in different sentences; line 4 is a resumption.
    assert.deepEqual(events(r, 'preemption').map((e) => e.line), [2, 5]);
  } finally {
    r.dispose();
  }
  assert.equal(parseOom('torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB')?.exception, 'torch.OutOfMemoryError');
  assert.equal(parseOom('RuntimeError: CUDA error: CUDA out of memory')?.exception, 'CUDA out of memory');
  assert.equal(parseOom('x RuntimeError : CUDA out of memory')?.exception, 'RuntimeError');
});
