// Allocation stacks as a reader wants them: the Python frames (the code that asked for the memory) first,
// then other native frames, and the machinery every allocation goes through — the unwinder that captured
// the stack (torch::unwind, CapturedTraceback), the caching allocator, ATen and the interpreter — folded
// at the end. PyTorch's snapshots list frames innermost first, so unfolded they start with torch::unwind.

/** "path/to/file.py:88 remember" (and "file.py(88)" style), as the importers write Python frames. */
export const isPythonFrame = (f: string): boolean => /\.py(:\d+|\(\d+\))?(\s|$)/.test(f);

const MACHINERY = [
  /torch::unwind/,
  /CapturedTraceback/,
  /CUDACachingAllocator/,
  /^(c10|at|caffe2|std|__gnu_cxx)::/,
  /^torch::(autograd|jit|impl|detail|utils|cuda|dynamo)::/,
  /^(_Py|Py[A-Z]|_?PyEval|pymalloc)/,
  /\b(libc|libtorch\w*|libc10\w*|libpython[\d.]*|libcuda\w*|libcudart\w*)\.so/,
  /^(\?\?|<unknown>|\[unknown\])$/,
  /\bcudaMalloc\w*/,
  /^torch\/(storage|_tensor|cuda\/memory)\.py/,
];

export const isMachineryFrame = (f: string): boolean => !isPythonFrame(f) && MACHINERY.some((re) => re.test(f.trim()));

export interface OrderedFrames {
  /** Python frames (innermost first), then other native frames. */
  shown: string[];
  /** Unwinder, allocator and interpreter frames, in their order. */
  folded: string[];
}

export function orderFrames(frames: readonly string[]): OrderedFrames {
  const python = frames.filter(isPythonFrame);
  const folded = frames.filter(isMachineryFrame);
  const native = frames.filter((f) => !isPythonFrame(f) && !isMachineryFrame(f));
  return { shown: [...python, ...native], folded };
}
