// The engine thread's half of a worker import: a Batch from the worker's RecordingSink written into the
// source's SourceWriter, local series and stack ids mapped onto the writer's as they are defined.
import type { Ns } from '../importers/types';
import type { SourceWriter } from '../store/source-writer';
import { unpack } from './packed-rows';
import { ALLOCATION_WIDTH, KERNEL_WIDTH, SPAN_WIDTH, type Batch } from './worker-protocol';

export class BatchReplay {
  private readonly seriesIds: number[] = [];
  private readonly stackIds: number[] = [];

  constructor(private readonly writer: SourceWriter) {}

  apply(b: Batch): void {
    const w = this.writer;
    for (const [local, def] of b.series) this.seriesIds[local] = w.series(def);
    for (const [local, frames] of b.stacks) this.stackIds[local] = w.stack(frames);
    const ids = this.seriesIds;
    for (const a of b.samples) for (let i = 0; i < a.length; i += 3) w.sample(ids[a[i]], a[i + 1], a[i + 2]);
    for (const a of b.histograms) for (let i = 0; i < a.length; i += 4) w.histogram(ids[a[i]], a[i + 1], a[i + 2], a[i + 3]);
    unpack(b.packedSpans, 5, 2, 0, (t, ns, at) => w.spanRow(t[0]!, t[1]!, t[2], t[3]!, ns[at], ns[at + 1], t[4]!));
    unpack(b.packedKernels, 2, 2, 3, (t, ns, at, nums, n) => {
      const corr = nums[n + 2];
      w.kernelRow(nums[n], nums[n + 1], t[0]!, ns[at], ns[at + 1], Number.isNaN(corr) ? null : corr, t[1]!);
    });
    const sp = b.spans;
    for (let i = 0; i + SPAN_WIDTH <= sp.length; i += SPAN_WIDTH) {
      w.spanRow(sp[i] as string, sp[i + 1] as string, sp[i + 2] as string | null, sp[i + 3] as string, sp[i + 4] as Ns, sp[i + 5] as Ns, sp[i + 6] as string);
    }
    const ke = b.kernels;
    for (let i = 0; i + KERNEL_WIDTH <= ke.length; i += KERNEL_WIDTH) {
      w.kernelRow(ke[i] as number, ke[i + 1] as number, ke[i + 2] as string, ke[i + 3] as Ns, ke[i + 4] as Ns, ke[i + 5] as number | null, ke[i + 6] as string);
    }
    const al = b.allocations;
    for (let i = 0; i + ALLOCATION_WIDTH <= al.length; i += ALLOCATION_WIDTH) {
      const stack = al[i + 5] as number | null;
      w.allocation({
        device: al[i] as number,
        addr: al[i + 1] as string,
        size: al[i + 2] as number,
        alloc_ns: al[i + 3] as Ns | null,
        free_ns: al[i + 4] as Ns | null,
        stack_id: stack === null ? null : this.stackIds[stack],
        source: al[i + 6] as string,
        correlation_id: al[i + 7] as number | null,
      });
    }
    for (const e of b.events) w.event(e);
  }
}
