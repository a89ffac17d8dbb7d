// A CUDA memory snapshot as torch.cuda.memory._snapshot() writes it with C++ context recorded: every
// stack starts, innermost first, with the unwinder and the caching allocator (torch::unwind,
// CapturedTraceback, DeviceCachingAllocator::malloc, ATen) before the Python frame that asked. One stack
// allocates 32 MiB every 2 s and never frees (a leak); one allocates and frees (activations).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { snapshotPickle, type Frames, type SegmentSpec, type TraceEntry } from '../../../fixtures/lib/snapshot-builder';
import { BUNDLE_START_MS } from './small-bundle';

const cpp = (name: string) => ({ filename: '??', line: 0, name });
const MACHINERY: Frames = [
  cpp('torch::unwind::unwind()'),
  cpp('torch::CapturedTraceback::gather(bool, bool, bool)'),
  cpp('c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc(signed char, unsigned long, CUstream_st*)'),
  cpp('at::native::empty_cuda(c10::ArrayRef<long>, std::optional<c10::ScalarType>, std::optional<c10::Layout>)'),
];
export const LEAK_FRAME = '/app/plugins/response_cache.py:88 remember';
const LEAK: Frames = [...MACHINERY, { filename: '/app/plugins/response_cache.py', line: 88, name: 'remember' }, { filename: '/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py', line: 1702, name: 'execute_model' }];
const ACTIVATIONS: Frames = [...MACHINERY, { filename: '/usr/local/lib/python3.12/dist-packages/vllm/model_executor/layers/linear.py', line: 1294, name: 'forward' }];

export function writeMemoryBundle(dir: string): string {
  const root = join(dir, 'memory-bundle');
  mkdirSync(root, { recursive: true });
  const MiB = 2 ** 20;
  const trace: TraceEntry[] = [];
  const blocks: SegmentSpec['blocks'] = [];
  const base = 0x7f1c00000000;
  for (let i = 0; i < 60; i++) {
    const us = (BUNDLE_START_MS + i * 2000) * 1000;
    const addr = base + i * 32 * MiB;
    trace.push({ action: 'alloc', addr, size: 32 * MiB, timeUs: us, frames: LEAK });
    blocks.push({ size: 32 * MiB, requested: 32 * MiB, state: 'active_allocated', frames: LEAK });
    const tmp = base + 4096 * MiB + (i % 4) * 8 * MiB;
    trace.push({ action: 'alloc', addr: tmp, size: 8 * MiB, timeUs: us + 300_000, frames: ACTIVATIONS });
    trace.push({ action: 'free_requested', addr: tmp, size: 8 * MiB, timeUs: us + 900_000, frames: ACTIVATIONS });
    trace.push({ action: 'free_completed', addr: tmp, size: 8 * MiB, timeUs: us + 900_100, frames: ACTIVATIONS });
  }
  const path = join(root, 'memory_snapshot.pickle');
  writeFileSync(path, snapshotPickle([{ address: base, frames: LEAK, blocks }], trace));
  return path;
}
