// PyTorch CUDA memory snapshots (torch.cuda.memory._dump_snapshot pickles), read with the safe unpickler.
//
// Tables written (source 'snapshot'):
// - allocations from the device trace: `alloc` paired with the next `free_completed` at the same
//   device+address (or its `free_requested` when no completion follows, or when the address is
//   reused first: addresses are versioned, every allocation is its own row; one whose block is still
//   active at dump time, its free pending, stays open). A free whose alloc fell
//   before the trace started gets alloc_ns null. Allocations still open at the end have free_ns null.
// - allocations from the segments' blocks that are still active at dump time (active_allocated,
//   active_pending_free) but not already open in the trace: alloc_ns null (before the trace), free_ns null,
//   size = the block's requested_size (else size).
// - stacks: each entry's / block's frames as "file.py:12 fn" (C++ frames with no file: "fn"), innermost first.
// - series torch.allocated / torch.reserved {gpu} (bytes), replayed from the trace (reserved from
//   segment_alloc/map − segment_free/unmap), anchored so that the last value equals the dump-time state
//   from the segments (allocated = requested bytes of active blocks, as trace sizes are requested sizes;
//   reserved = segment bytes); segments without a trace, or with one that changes neither total (a lone
//   `snapshot` or `oom` entry), give the totals at the dump time (the last entry of every device's trace).
// - events: `oom` entries as kind 'oom' (severity error; attrs device, size, device_free, stream, stack_id
//   where the entry has frames; the text names the innermost Python frame).
// Times: trace `time_us` is epoch µs → ns. Older snapshots (no time_us, blocks without addresses, segments
// without a trace) are completed by memory-snapshot-variants.ts, with warnings.
// Bounds: memo references let a few bytes stand for a container many times over (a 12 KB pickle of
// 3,000 references to one 3,000-entry trace was 9 M entries). The unpickler caps that fan-out; here the
// entries, blocks, segments and frames visited are capped too, at VISIT_BASE + VISIT_PER_BYTE × the
// file's size, and a file past it fails naming the byte of the memo reference that repeated a container.
import { ImportError, type Importer, type Sink } from './types';
import { PickleError, TakenItemError, isDict, unpickle, type PyDict, type PyValue } from './pickle';
import { toHexAddr } from './hex-address';
import { SnapshotTimes, blockAddresses, blockFrames, usToNs } from './memory-snapshot-variants';
import { ACT, TraceColumns, TraceTaker, num } from './memory-snapshot-trace';
import { formatBytes, groupDigits } from '../../../common/format';

const PROTO = 0x80;

/** Items the importer may visit: a base, plus this many per byte of pickle (a trace entry is 40+ bytes). */
export const VISIT_BASE = 100_000;
export const VISIT_PER_BYTE = 4;

export function detectMemorySnapshot(head: Buffer): number {
  // Protocols 2–5 open with PROTO; 0 and 1 (no PROTO) with a dict: MARK … DICT, or EMPTY_DICT.
  const textual = head.length >= 4 && (head[0] === 0x28 || head[0] === 0x7d) && (head[1] === 0x64 || head[1] === 0x71 || head[1] === 0x28);
  if (!textual && (head.length < 4 || head[0] !== PROTO || head[1] < 2 || head[1] > 5)) return 0;
  const s = head.toString('latin1');
  if (s.includes('segments') && (s.includes('device_traces') || s.includes('total_size') || s.includes('blocks'))) return 0.95;
  if (s.includes('total_size') && s.includes('blocks')) return 0.9;
  return 0;
}

async function readAll(src: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of src) parts.push(c);
  return Buffer.concat(parts);
}

const str = (v: PyValue | undefined): string => (typeof v === 'string' ? v : '');

export function formatFrame(f: PyValue): string {
  // A frame that is not a dict is damage: never stringify it (self-sharing lists expand to gigabytes).
  if (!isDict(f)) return typeof f === 'string' ? f : '??';
  const file = str(f.filename);
  const line = num(f.line);
  const name = str(f.name);
  if (!file || file === '??') return name || '??';
  return line > 0 ? `${file}:${line} ${name}` : `${file} ${name}`;
}

/** An allocation not yet freed; times in µs (SnapshotTimes), made ns when its row is written. */
interface OpenAlloc {
  size: number;
  us: number;
  stack: number | null;
  freeRequested: number | null;
}

/** The parts of a snapshot the importer reads, after validation. */
export interface Snapshot {
  segments: PyDict[];
  traces: TraceColumns[];
}

/** `columns`: a device trace's entries (TraceTaker.columns where the unpickler handed them over). */
export function readSnapshot(root: PyValue, columns: (list: PyValue[]) => TraceColumns): Snapshot {
  const segsRaw = Array.isArray(root) ? root : isDict(root) ? root.segments : undefined;
  if (!Array.isArray(segsRaw)) throw new Error('not a memory snapshot: no segments list');
  const segments = segsRaw.filter(isDict);
  if (segments.length !== segsRaw.length) throw new Error('not a memory snapshot: a segment is not a dict (key segments)');
  const tracesRaw = isDict(root) ? root.device_traces : undefined;
  const traces: TraceColumns[] = [];
  if (tracesRaw !== undefined && tracesRaw !== null) {
    if (!Array.isArray(tracesRaw)) throw new Error('device_traces is not a list (key device_traces)');
    for (const t of tracesRaw) traces.push(columns(Array.isArray(t) ? t : []));
  }
  return { segments, traces };
}

/** Counts what the importer visits against its budget; past it, fails naming the repeated container. */
export class VisitBudget {
  private used = 0;
  constructor(
    private readonly path: string,
    private readonly max: number,
    private readonly bytes: number,
    private readonly sharedAt: Map<object, number>,
  ) {}

  /** `n` more items, read out of `container` (in `parent`): the memo reference that repeated either is named. */
  take(n: number, container: object, what: string, parent?: object): void {
    this.used += n;
    if (this.used <= this.max) return;
    const at = this.sharedAt.get(container) ?? (parent ? this.sharedAt.get(parent) : undefined);
    throw new ImportError(
      this.path,
      // No memo reference repeated it (the items are all there, written out): the key of what overflowed.
      at === undefined ? { key: BUDGET_KEYS[what] ?? what } : { offset: at },
      `more than ${groupDigits(this.max)} ${what} and other items to read from ${groupDigits(this.bytes)} bytes: refused as amplifying input (memo references repeat a container${at === undefined ? '' : ' first repeated at this byte'})`,
    );
  }
}

/** The snapshot's key for each kind of item the budget counts. */
const BUDGET_KEYS: Record<string, string> = {
  'device traces': 'device_traces',
  'trace entries': 'device_traces[]',
  segments: 'segments',
  blocks: 'segments[].blocks',
  frames: 'frames',
};

class SnapshotWriter {
  private readonly stackByFrames = new Map<PyValue, number | null>();

  /** Blocks whose address was computed (torch 2.0 snapshots name none). */
  computedAddrs = 0;
  /** Devices whose trace changed no segment while segments were held at the dump: their dump-time totals. */
  readonly reservedUnwritten: { device: number; reserved: number; allocated: number }[] = [];

  constructor(
    private readonly sink: Sink,
    private readonly budget: VisitBudget,
  ) {}

  stackOf(frames: PyValue | undefined): number | null {
    if (!Array.isArray(frames) || frames.length === 0) return null;
    // Frame lists are memoised in the pickle: the same array object recurs, so cache by identity.
    const known = this.stackByFrames.get(frames);
    if (known !== undefined) return known;
    this.budget.take(frames.length, frames, 'frames');
    const id = this.sink.stack(frames.map(formatFrame));
    this.stackByFrames.set(frames, id);
    return id;
  }

  /**
   * One device: its trace (`usAt`: each entry's µs, SnapshotTimes.device) and its segments at dump time
   * (`dumpUs`: when the snapshot was taken, the same for every device).
   */
  device(device: number, trace: TraceColumns, usAt: Float64Array, segments: PyDict[], dumpUs: () => number): void {
    const sink = this.sink;
    const open = new Map<string, OpenAlloc>();
    // Deltas (µs, bytes) of allocated and reserved, in trace order.
    const allocT: number[] = [];
    const allocD: number[] = [];
    const resT: number[] = [];
    const resD: number[] = [];
    const close = (addr: string, a: OpenAlloc, freeUs: number) => {
      sink.allocation({ device, addr, size: a.size, alloc_ns: usToNs(a.us), free_ns: usToNs(freeUs), stack_id: a.stack, source: 'snapshot' });
      allocT.push(freeUs);
      allocD.push(-a.size);
    };

    const { action, size: sizes, frames } = trace;
    for (let i = 0; i < trace.length; i++) {
      const us = usAt[i];
      const size = sizes[i];
      switch (action[i]) {
        case ACT.alloc: {
          const addr = toHexAddr(trace.addrOf(i));
          const prev = open.get(addr);
          if (prev) close(addr, prev, prev.freeRequested ?? us);
          open.set(addr, { size, us, stack: this.stackOf(frames[i]), freeRequested: null });
          allocT.push(us);
          allocD.push(size);
          break;
        }
        case ACT.freeRequested: {
          const a = open.get(toHexAddr(trace.addrOf(i)));
          if (a) a.freeRequested = us;
          break;
        }
        case ACT.freed: {
          const addr = toHexAddr(trace.addrOf(i));
          const a = open.get(addr);
          if (a) {
            open.delete(addr);
            close(addr, a, us);
          } else {
            sink.allocation({ device, addr, size, alloc_ns: null, free_ns: usToNs(us), stack_id: this.stackOf(frames[i]), source: 'snapshot' });
            allocT.push(us);
            allocD.push(-size);
          }
          break;
        }
        case ACT.segmentAlloc:
          resT.push(us);
          resD.push(size);
          break;
        case ACT.segmentFree:
          resT.push(us);
          resD.push(-size);
          break;
        case ACT.oom: {
          const e = trace.oom.get(i)!;
          const free = num(e.device_free ?? e.addr);
          // Where the failed allocation was asked for: its stack (the stacks table), and in the text the
          // innermost Python frame, past the allocator's and the unwinder's C++ frames.
          const f = frames[i];
          const stack = this.stackOf(f);
          const py = Array.isArray(f) ? f.map(formatFrame).find((x) => /\.py:\d+ /.test(x)) : undefined;
          sink.event({
            ts_ms: us / 1000,
            kind: 'oom',
            severity: 'error',
            text: `CUDA out of memory on device ${device}: tried to allocate ${mib(size)} with ${mib(free)} free${py ? `, at ${py}` : ''}`,
            attrs: { device, size, device_free: free, stream: num(e.stream), ...(stack !== null ? { stack_id: stack } : {}) },
          });
          break;
        }
        default:
          break;
      }
    }

    // The blocks still active at dump time (active_allocated, active_pending_free), by address.
    let allocatedEnd = 0;
    let reservedEnd = 0;
    const active = new Map<string, { size: number; block: PyDict }>();
    for (const seg of segments) {
      reservedEnd += num(seg.total_size);
      if (Array.isArray(seg.blocks)) this.budget.take(seg.blocks.length, seg.blocks, 'blocks', seg);
      this.budget.take(1, seg, 'segments');
      const blocks = Array.isArray(seg.blocks) ? seg.blocks.filter(isDict) : [];
      const { addrs, computed } = blockAddresses(seg, blocks);
      this.computedAddrs += computed;
      for (let k = 0; k < blocks.length; k++) {
        const b = blocks[k];
        const state = str(b.state);
        if (state !== 'active_allocated' && state !== 'active_pending_free') continue;
        // Trace entries carry the requested size; blocks the rounded one: count like the trace.
        const size = num(b.requested_size ?? b.size) || num(b.size);
        allocatedEnd += size;
        active.set(addrs[k], { size, block: b });
      }
    }

    // Open allocations: one that asked to be freed and never completed ends there, unless its block is
    // still active at dump time (a free pending on another stream): then it lives on, as the block says,
    // and it is one row, counted once. The rest live on.
    for (const [addr, a] of open) {
      if (a.freeRequested !== null && !active.has(addr)) close(addr, a, a.freeRequested);
      else {
        sink.allocation({ device, addr, size: a.size, alloc_ns: usToNs(a.us), free_ns: null, stack_id: a.stack, source: 'snapshot' });
        active.delete(addr);
      }
    }
    // Active blocks the trace did not open: allocated before it began.
    for (const [addr, { size, block }] of active) sink.allocation({ device, addr, size, alloc_ns: null, free_ns: null, stack_id: this.stackOf(blockFrames(block)), source: 'snapshot' });

    // Segments without a trace: the totals are known at dump time only (the dump time of every device's
    // trace). A trace that changed a total not at all (no segment events: history recorded after the
    // model loaded) writes no series for it: a flat reserved line from the trace's start would read the
    // cache's headroom before the allocations as fragmentation, and hide a leak growing inside it.
    // A trace without a single allocation or segment change (one `snapshot` or `oom` entry: a snapshot taken
    // at the OOM) is no history either: the totals at its dump.
    const held = segments.length && allocT.length === 0 && resT.length === 0 ? { from: null, to: dumpUs() } : null;
    this.replay('torch.allocated', device, allocT, allocD, allocatedEnd, held);
    this.replay('torch.reserved', device, resT, resD, reservedEnd, held);
    if (resT.length === 0 && held === null && reservedEnd > 0) this.reservedUnwritten.push({ device, reserved: reservedEnd, allocated: allocatedEnd });
  }

  /**
   * Emits a running total whose last value is `end`; the start is inferred (never below 0). Times in µs.
   * With no change in the trace, `held` says over what time the dump's `end` held (null: not known).
   */
  private replay(name: string, device: number, t: number[], d: number[], end: number, held: { from: number | null; to: number } | null): void {
    if (t.length === 0) {
      if (held === null) return;
      const s = this.sink.series({ name, labels: { gpu: String(device) }, unit: 'bytes', kind: 'gauge' });
      if (held.from !== null && held.from < held.to) this.sink.sample(s, held.from / 1000, end);
      this.sink.sample(s, held.to / 1000, end);
      return;
    }
    const order = t.map((_, i) => i);
    if (!isSorted(t)) order.sort((a, b) => (t[a] < t[b] ? -1 : t[a] > t[b] ? 1 : a - b));
    let net = 0;
    for (const x of d) net += x;
    let value = Math.max(0, end - net);
    const s = this.sink.series({ name, labels: { gpu: String(device) }, unit: 'bytes', kind: 'gauge' });
    this.sink.sample(s, t[order[0]] / 1000, value);
    for (const i of order) {
      value += d[i];
      this.sink.sample(s, t[i] / 1000, value);
    }
  }
}

function isSorted(t: number[]): boolean {
  for (let i = 1; i < t.length; i++) if (t[i] < t[i - 1]) return false;
  return true;
}

function mib(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(2)} MiB`;
}

export const memorySnapshotImporter: Importer = {
  format: 'torch-memory-snapshot',
  detect: (head) => detectMemorySnapshot(head),
  // Older snapshots carry no times and are placed at the bundle's: imported after the timed sources.
  yearless: true,
  async import(input, sink, ctx) {
    const buf = await readAll(input.stream());
    let root: PyValue = null;
    let shared = new Map<object, number>();
    // Trace entries are read into columns as they are unpickled, and none of their dicts is kept. A pickle
    // that refers to an entry a second time, or holds entry-like dicts in a list that is not a device trace
    // (a list the importer reads whole, emptied), is read again, whole: torch's do neither.
    let taker = new TraceTaker();
    try {
      let again = false;
      try {
        root = unpickle(buf, { shared, take: taker.take });
        again = !taker.tookOnly(isDict(root) && Array.isArray(root.device_traces) ? root.device_traces : []);
      } catch (e) {
        if (!(e instanceof TakenItemError)) throw e;
        again = true;
      }
      if (again) {
        shared = new Map();
        taker = new TraceTaker();
        root = unpickle(buf, { shared });
      }
    } catch (e) {
      if (e instanceof PickleError) throw new ImportError(ctx.path, { offset: e.offset }, e.message.replace(/ \(byte \d+\)$/, ''));
      throw e;
    }
    const budget = new VisitBudget(ctx.path, VISIT_BASE + VISIT_PER_BYTE * buf.length, buf.length, shared);
    // Each device's trace is read once (filtered, then replayed): counted before either.
    const tracesRaw = isDict(root) ? root.device_traces : undefined;
    if (Array.isArray(tracesRaw)) {
      budget.take(tracesRaw.length, tracesRaw, 'device traces');
      for (const t of tracesRaw) if (Array.isArray(t)) budget.take(taker.lengthOf(t), t, 'trace entries', tracesRaw);
    }
    let snap: Snapshot;
    try {
      snap = readSnapshot(root, taker.columns);
    } catch (e) {
      throw new ImportError(ctx.path, { key: 'segments' }, (e as Error).message);
    }
    budget.take(snap.segments.length, snap.segments, 'segments');
    const times = new SnapshotTimes(ctx);
    const writer = new SnapshotWriter(sink, budget);
    const segmentsOf = new Map<number, PyDict[]>();
    for (const s of snap.segments) {
      const d = num(s.device);
      let list = segmentsOf.get(d);
      if (!list) segmentsOf.set(d, (list = []));
      list.push(s);
    }
    const devices = new Set<number>(segmentsOf.keys());
    snap.traces.forEach((t, i) => t.length && devices.add(i));
    const order = [...devices].sort((a, b) => a - b);
    // Every device's entry times first (memory-snapshot-variants.ts: made up, warned, where time_us is
    // missing), so the dump time is the last of all of them, whichever device has a trace.
    const traceOf = (d: number) => snap.traces[d] ?? new TraceColumns();
    const usAt = new Map(order.map((d) => [d, times.device(traceOf(d), d)]));
    let dump: number | null = null;
    const dumpUs = () => (dump ??= times.dumpUs());
    for (const d of order) writer.device(d, traceOf(d), usAt.get(d)!, segmentsOf.get(d) ?? [], dumpUs);
    times.finish();
    // Not a series (see device()), but the figure a reader of an OOM asks for first: the cache beside the use.
    for (const u of writer.reservedUnwritten) ctx.warn(`GPU ${u.device}: the trace records no segment changes, so torch.reserved is not drawn; at the dump its segments held ${formatBytes(u.reserved)} reserved beside ${formatBytes(u.allocated)} allocated`);
    if (writer.computedAddrs > 0) ctx.warn(`${writer.computedAddrs} blocks carry no address (older torch): computed from their segment's address and the sizes of the blocks before them`);
  },
};
