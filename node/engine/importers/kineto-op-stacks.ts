// The CPU-side stack of a point in a Kineto trace: the op / annotation / Python-function intervals of one
// thread that enclose a timestamp, innermost first. Trace files promise no order (an allocation's
// enclosing ops may come after it, and do in every corpus trace with [memory] events), so intervals and
// query points are kept compactly while streaming and answered together at the end.
//
// Memory: an interval costs 20 bytes (start and end as float64 µs, a frame id as uint32) plus up to as
// much again of growth slack; a query 12 bytes (thread int32, ts float64). Resolving adds, for the while,
// 8 bytes a query (its place in thread/time order and its answer) and 4 bytes an interval of the thread
// being resolved (its order, when the file did not have them sorted already). Frame texts are interned:
// one string per distinct name.

/** A copy of `a` with room for at least `need` items (doubling), or `a` itself when it has room. */
export function withRoom<T extends Float64Array | Int32Array | Uint32Array>(a: T, need: number): T {
  if (need <= a.length) return a;
  const b = new (a.constructor as new (n: number) => T)(Math.max(need, a.length * 2));
  b.set(a);
  return b;
}

/** `torch/nn/modules/linear.py(114): forward` → `torch/nn/modules/linear.py:114 forward`, as memory-snapshot frames read. */
export function pythonFrame(name: string): string {
  const m = /^(.*)\((\d+)\): (.*)$/.exec(name);
  return m ? `${m[1]}:${m[2]} ${m[3]}` : name;
}

class ThreadIntervals {
  start = new Float64Array(64);
  end = new Float64Array(64);
  frame = new Uint32Array(64);
  n = 0;
}

export class OpStacks {
  private readonly threads: ThreadIntervals[] = [];
  private readonly threadIds = new Map<unknown, Map<unknown, number>>();
  // Consecutive events are mostly on one thread: skip the two map lookups for them.
  private lastPid: unknown = undefined;
  private lastTid: unknown = undefined;
  private lastThread = -1;
  private readonly frames: string[] = [];
  private readonly plainIds = new Map<string, number>();
  private readonly pythonIds = new Map<string, number>();
  private qThread = new Int32Array(256);
  private qTs = new Float64Array(256);
  private nq = 0;

  /** Records an interval [start, end] (µs, any common origin) named `name` on thread pid/tid. */
  interval(pid: unknown, tid: unknown, start: number, end: number, name: string, python: boolean): void {
    const t = this.threads[this.thread(pid, tid)];
    const i = t.n++;
    if (i === t.start.length) {
      t.start = withRoom(t.start, i + 1);
      t.end = withRoom(t.end, i + 1);
      t.frame = withRoom(t.frame, i + 1);
    }
    t.start[i] = start;
    t.end[i] = end;
    t.frame[i] = this.frameId(name, python);
  }

  /** Records a point whose stack is wanted; answers its index in `resolve`'s answer (0, 1, 2, … in call order). */
  at(pid: unknown, tid: unknown, ts: number): number {
    const q = this.nq++;
    if (q === this.qTs.length) {
      this.qTs = withRoom(this.qTs, q + 1);
      this.qThread = withRoom(this.qThread, q + 1);
    }
    this.qThread[q] = this.thread(pid, tid);
    this.qTs[q] = ts;
    return q;
  }

  /**
   * For each point, the id `stackId` gives its enclosing frames (innermost first), or -1 where no interval
   * encloses it. The intervals and points are dropped afterwards.
   */
  resolve(stackId: (frames: string[]) => number): Int32Array {
    const out = new Int32Array(this.nq).fill(-1);
    const byThread = this.pointsByThread();
    let from = 0;
    for (let th = 0; th < this.threads.length; th++) {
      const to = byThread.ends[th];
      if (to > from) this.resolveThread(this.threads[th], byThread.order.subarray(from, to), out, stackId);
      this.threads[th] = new ThreadIntervals();
      from = to;
    }
    this.nq = 0;
    this.qTs = new Float64Array(0);
    this.qThread = new Int32Array(0);
    return out;
  }

  private thread(pid: unknown, tid: unknown): number {
    if (pid === this.lastPid && tid === this.lastTid && this.lastThread >= 0) return this.lastThread;
    let tids = this.threadIds.get(pid);
    if (!tids) this.threadIds.set(pid, (tids = new Map()));
    let id = tids.get(tid);
    if (id === undefined) {
      id = this.threads.length;
      this.threads.push(new ThreadIntervals());
      tids.set(tid, id);
    }
    this.lastPid = pid;
    this.lastTid = tid;
    this.lastThread = id;
    return id;
  }

  private frameId(name: string, python: boolean): number {
    const ids = python ? this.pythonIds : this.plainIds;
    let id = ids.get(name);
    if (id === undefined) {
      id = this.frames.length;
      this.frames.push(python ? pythonFrame(name) : name);
      ids.set(name, id);
    }
    return id;
  }

  /** Point indices grouped by thread (a counting sort), each group in time order. */
  private pointsByThread(): { order: Uint32Array; ends: Uint32Array } {
    const ends = new Uint32Array(this.threads.length);
    for (let q = 0; q < this.nq; q++) ends[this.qThread[q]]++;
    for (let th = 1; th < ends.length; th++) ends[th] += ends[th - 1];
    const order = new Uint32Array(this.nq);
    const next = ends.slice();
    for (let q = this.nq - 1; q >= 0; q--) order[--next[this.qThread[q]]] = q;
    const ts = this.qTs;
    let from = 0;
    for (let th = 0; th < ends.length; th++) {
      const group = order.subarray(from, ends[th]);
      if (!sortedBy(group, (a, b) => ts[a] <= ts[b])) group.sort((a, b) => ts[a] - ts[b]);
      from = ends[th];
    }
    return { order, ends };
  }

  /**
   * One sweep over the thread's intervals by start (outer first where starts tie: the longer one, then
   * the one earlier in the file, as Kineto writes a parent before its child) and its points by time,
   * keeping the intervals open at the current point on a stack.
   */
  private resolveThread(t: ThreadIntervals, points: Uint32Array, out: Int32Array, stackId: (frames: string[]) => number): void {
    const { start, end, frame, n } = t;
    let order: Uint32Array | null = null;
    for (let i = 1; i < n; i++) {
      if (start[i - 1] < start[i] || (start[i - 1] === start[i] && end[i - 1] >= end[i])) continue;
      order = new Uint32Array(n);
      for (let j = 0; j < n; j++) order[j] = j;
      order.sort((a, b) => start[a] - start[b] || end[b] - end[a] || a - b);
      break;
    }
    let open = new Int32Array(64);
    let depth = 0;
    let next = 0;
    // The last answer, by frame ids: runs of points under the same ops (one per op call) reuse it.
    let prev = new Uint32Array(0);
    let prevId = -1;
    let cur = new Uint32Array(64);
    for (const q of points) {
      const ts = this.qTs[q];
      while (next < n && start[order ? order[next] : next] <= ts) {
        const op = order ? order[next] : next;
        next++;
        // Whatever ended before this op starts cannot enclose this point or any later one. Ops that
        // overlap without nesting can leave an ended one under the top, so the whole stack is swept:
        // dropping only from the top let such a stack grow with the trace (quadratic on a trace whose
        // ops overlap, measured 2.5x slower parsing on the benchmark trace).
        let kept = 0;
        for (let d = 0; d < depth; d++) if (end[open[d]] >= start[op]) open[kept++] = open[d];
        depth = kept;
        open = withRoom(open, depth + 1);
        open[depth++] = op;
      }
      while (depth > 0 && end[open[depth - 1]] < ts) depth--;
      // Intervals that overlap without nesting can leave an ended one under the top: skip it.
      cur = withRoom(cur, depth);
      let k = 0;
      for (let d = depth - 1; d >= 0; d--) if (end[open[d]] >= ts) cur[k++] = frame[open[d]];
      if (k === 0) continue;
      if (!sameIds(cur, k, prev)) {
        prev = cur.slice(0, k);
        prevId = stackId(Array.from(prev, (f) => this.frames[f]));
      }
      out[q] = prevId;
    }
  }
}

function sortedBy(a: Uint32Array, inOrder: (x: number, y: number) => boolean): boolean {
  for (let i = 1; i < a.length; i++) if (!inOrder(a[i - 1], a[i])) return false;
  return true;
}

function sameIds(cur: Uint32Array, k: number, prev: Uint32Array): boolean {
  if (k !== prev.length) return false;
  for (let i = 0; i < k; i++) if (cur[i] !== prev[i]) return false;
  return true;
}
