import { test } from 'node:test';
import assert from 'node:assert/strict';
import { orderFrames } from '../../../common/frames';

test('a PyTorch snapshot stack leads with the Python frame that allocated; unwinder and allocator frames fold', () => {
  const frames = [
    'torch::unwind::unwind()',
    'torch::CapturedTraceback::gather(bool, bool, bool)',
    'c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc(signed char, unsigned long, CUstream_st*)',
    'at::native::empty_cuda(c10::ArrayRef<long>, std::optional<c10::ScalarType>)',
    '_PyEval_EvalFrameDefault',
    '/app/plugins/response_cache.py:88 remember',
    '/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py:1702 execute_model',
    'my_extension::launch(int)',
  ];
  const o = orderFrames(frames);
  assert.equal(o.shown[0], '/app/plugins/response_cache.py:88 remember');
  assert.deepEqual(o.shown.slice(2), ['my_extension::launch(int)']);
  assert.equal(o.folded.length, 5);
  assert.equal(o.folded[0], 'torch::unwind::unwind()');
  assert.deepEqual(orderFrames(['execute_model']).shown, ['execute_model']);
});
