// The project's own memory snapshots in the shapes of older PyTorch releases, written as pickles beside this
// file (regenerate: node --import tsx test/samples/variants/snapshots.ts).
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { pickle, tuple, type PickleValue } from '../../../fixtures/lib/pickle-writer';

const frame = (filename: string, line: number, name: string) => ({ filename, line, name });
const stack = [frame('model.py', 88, 'forward'), frame('serve.py', 12, 'step')];

/** torch ~2.1: trace entries without time_us; blocks with addresses. */
export function torch21NoTime(): PickleValue {
  const entry = (action: string, addr: number, size: number) => ({ action, addr, size, stream: 0, frames: stack });
  return {
    segments: [
      {
        device: 0, address: 0x7f0000000000, total_size: 2097152, allocated_size: 1048576, active_size: 1048576, stream: 0, segment_type: 'large', frames: [],
        blocks: [
          { address: 0x7f0000000000, size: 1048576, requested_size: 1000000, state: 'active_allocated', frames: stack },
          { address: 0x7f0000100000, size: 1048576, requested_size: 1048576, state: 'inactive', frames: [] },
        ],
      },
    ],
    device_traces: [[
      entry('segment_alloc', 0x7f0000000000, 2097152),
      entry('alloc', 0x7f0000000000, 1000000),
      entry('alloc', 0x7f0000100000, 500000),
      entry('free_requested', 0x7f0000100000, 500000),
      entry('free_completed', 0x7f0000100000, 500000),
    ]],
  };
}

/** torch 2.0: segments only (no trace), blocks without addresses, frames in their history. */
export function torch20SegmentsOnly(): PickleValue {
  return {
    segments: [
      {
        device: 0, address: 0x7f1000000000, total_size: 20971520, allocated_size: 6291456, active_size: 6291456, stream: 0, segment_type: 'large',
        blocks: [
          { size: 4194304, state: 'active_allocated', history: [{ addr: 0x7f1000000000, real_size: 4000000, frames: stack }] },
          { size: 2097152, state: 'inactive', history: [] },
          { size: 2097152, state: 'active_allocated', history: [{ addr: 0x7f1000600000, real_size: 2097152, frames: [frame('kv.py', 7, 'grow')] }] },
          { size: 12582912, state: 'inactive' },
        ],
      },
      {
        device: 1, address: 0x7f2000000000, total_size: 2097152, allocated_size: 0, active_size: 0, stream: 0, segment_type: 'large',
        blocks: [{ size: 2097152, state: 'inactive' }],
      },
    ],
    device_traces: [[], []],
    allocator_settings: { PYTORCH_CUDA_ALLOC_CONF: null },
    pool: tuple(0, 0),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = new URL('.', import.meta.url);
  writeFileSync(new URL('memory-snapshot-torch21-no-time.pickle', dir), pickle(torch21NoTime()));
  writeFileSync(new URL('memory-snapshot-torch20-segments-only.pickle', dir), pickle(torch20SegmentsOnly()));
}
