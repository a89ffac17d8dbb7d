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
    other_processes: null,
    other_processes_bytes: null,
    allocated_bytes: r(21.42 * GiB),
    reserved_unallocated_bytes: r(24.12 * MiB),
    reserved_bytes: r(21.42 * GiB) + r(24.12 * MiB),
  });
  assert.equal(p[2], null); // the CRITICAL follow-up line is not an OOM message
  // "Process N has X memory in use" and no "this process" (a container: NVML's host pids): the one holding
  // at least PyTorch's reserve is this process.
  assert.deepEqual([p[3]!.process_pid, p[3]!.process_bytes, p[3]!.other_processes], [2684311, r(14.51 * GiB), null]);
  assert.equal(p[3]!.tried_bytes, r(74.16 * GiB));
  // ~2.1 "total capacty" typo, KiB unit
  assert.equal(p[4]!.capacity_bytes, r(23.69 * GiB));
  assert.equal(p[4]!.reserved_unallocated_bytes, r(755.5 * 1024));
  // ≤ 2.0 parenthesised form
  assert.deepEqual(
    [p[5]!.gpu, p[5]!.capacity_bytes, p[5]!.allocated_bytes, p[5]!.free_bytes, p[5]!.reserved_bytes, p[5]!.reserved_unallocated_bytes],
    [0, r(44.56 * GiB), r(27.91 * GiB), r(565.31 * MiB), r(27.93 * GiB), r(27.93 * GiB) - r(27.91 * GiB)],
  );
  // 1.0 "cached" form: the allocator's reserve beyond the allocated memory
  assert.equal(p[6]!.exception, 'RuntimeError');
  assert.equal(p[6]!.reserved_unallocated_bytes, r(4.68 * MiB));
  assert.equal(p[6]!.reserved_bytes, p[6]!.allocated_bytes! + r(4.68 * MiB));
});

test('other processes on the GPU are theirs, not this one: each pid with its own memory, this process apart', () => {
  const line =
    'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 23.53 GiB of which 17.31 MiB is free. Process 5403 has 21.69 GiB memory in use. Process 7781 has 618.00 MiB memory in use. Including non-PyTorch memory, this process has 1.81 GiB memory in use. Of the allocated memory 1.40 GiB is allocated by PyTorch, and 19.54 MiB is reserved by PyTorch but unallocated.';
  const p = parseOom(line)!;
  assert.deepEqual(p.other_processes, [
    { pid: 5403, bytes: r(21.69 * GiB) },
    { pid: 7781, bytes: r(618 * MiB) },
  ]);
  assert.equal(p.other_processes_bytes, r(21.69 * GiB) + r(618 * MiB));
  assert.equal(p.process_bytes, r(1.81 * GiB));
  assert.equal(p.allocated_bytes, r(1.4 * GiB));
});

test("torch 1.x's cached is the reserve beyond the allocated memory; ROCm's HIP wording; torch 2.0's memory-fraction wording; OOMs without figures", () => {
  const old = parseOom('RuntimeError: CUDA out of memory. Tried to allocate 2.00 MiB (GPU 0; 11.17 GiB total capacity; 10.90 GiB already allocated; 576.00 KiB free; 30.96 MiB cached)')!;
  assert.deepEqual([old.allocated_bytes, old.reserved_unallocated_bytes, old.reserved_bytes], [r(10.9 * GiB), r(30.96 * MiB), r(10.9 * GiB) + r(30.96 * MiB)]);
  const hip = parseOom('torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 MiB. GPU 7 has a total capacity of 287.98 GiB of which 203.49 GiB is free. Of the allocated memory 68.63 GiB is allocated by PyTorch, and 14.93 GiB is reserved by PyTorch but unallocated.')!;
  assert.deepEqual([hip.exception, hip.gpu, hip.capacity_bytes, hip.reserved_unallocated_bytes], ['torch.OutOfMemoryError', 7, r(287.98 * GiB), r(14.93 * GiB)]);
  // Escaped in one line, as TGI's Rust side logs the Python error; or joined.
  const fraction = parseOom(String.raw`Generation("Allocation on device 0 would exceed allowed memory. (out of memory)
Currently allocated     : 16.08 GiB
Requested               : 4.83 GiB
Device limit            : 22.20 GiB
Free (according to CUDA): 11.12 MiB
PyTorch limit (set by user-supplied memory fraction)
                        : 17179869184.00 GiB")`)!;
  assert.deepEqual([fraction.gpu, fraction.allocated_bytes, fraction.tried_bytes, fraction.capacity_bytes, fraction.free_bytes], [0, r(16.08 * GiB), r(4.83 * GiB), r(22.2 * GiB), r(11.12 * MiB)]);
  assert.equal(parseOom('RuntimeError: CUDA error: out of memory')!.exception, 'RuntimeError');
  assert.equal(parseOom('RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`')!.exception, 'CUBLAS_STATUS_ALLOC_FAILED');
  assert.ok(parseOom("node:2134736:2285781 [0] include/alloc.h:178 NCCL WARN Cuda failure 'out of memory'"));
  assert.equal(parseOom("node:2134736:2285781 [0] include/alloc.h:185 NCCL WARN Failed to CUDA calloc 6291456 bytes"), null, 'the same failure as the line before');
  assert.equal(parseOom("ERROR: vLLM ran out of memory headroom? no: 'Out of memory: Killed process 42 (python3)'"), null, "the host's OOM killer is not the GPU's");
  assert.equal(parseOom("OutOfMemoryError('CUDA out of memory. Tried to allocate 1.00 GiB.')")!.exception, 'OutOfMemoryError');
});

test('in a container every process is a "Process N": the one holding at least the reserve is this one, the rest others; without the reserve none is guessed', () => {
  const line = (tail: string) => `torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.06 GiB is free. Process 3312 has 60.20 GiB memory in use. Process 3313 has 17.88 GiB memory in use. ${tail}`;
  const p = parseOom(line('Of the allocated memory 16.10 GiB is allocated by PyTorch, and 1.02 GiB is reserved by PyTorch but unallocated.'))!;
  assert.deepEqual([p.process_pid, p.process_bytes, p.other_processes], [3313, r(17.88 * GiB), [{ pid: 3312, bytes: r(60.2 * GiB) }]]);
  const cut = parseOom(line(''))!;
  assert.deepEqual([cut.process_pid, cut.process_bytes, cut.other_processes?.length], [undefined, null, 2]);
});
