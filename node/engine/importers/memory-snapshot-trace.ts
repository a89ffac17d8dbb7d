// A memory snapshot's device trace as columns, for memory-snapshot.ts: each entry's action, address, size,
// time and frames, read out of its dict as the unpickler hands the entries over (UnpickleOptions.take),
// so that no entry dict outlives its batch of 1,000. Kept as dicts, the 1 M entries of a large trace
// were copied twice by V8's scavenger on their way to the old generation (a quarter of the import) and
// held ~100 bytes each until the end; as columns they are ~33 bytes, in a few typed arrays.
import { isDict, type PyDict, type PyValue } from './pickle';
import { usOf } from './memory-snapshot-variants';

/** The actions the importer reads, by code; 0 for any other. */
export const ACT = { other: 0, alloc: 1, freeRequested: 2, freed: 3, segmentAlloc: 4, segmentFree: 5, oom: 6 } as const;

const ACTION_CODES: Record<string, number> = {
  alloc: ACT.alloc,
  free_requested: ACT.freeRequested,
  free_completed: ACT.freed,
  free: ACT.freed,
  segment_alloc: ACT.segmentAlloc,
  segment_map: ACT.segmentAlloc,
  segment_free: ACT.segmentFree,
  segment_unmap: ACT.segmentFree,
  oom: ACT.oom,
};

/** A number the snapshot gives (an int past 2^53 as the nearest double); 0 where it gives none. */
export const num = (v: PyValue | undefined): number => (typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : 0);

/** One device trace's entries, in order. */
export class TraceColumns {
  length = 0;
  action = new Uint8Array(1024);
  /** Numeric addresses; NaN where the entry's address is something else (see otherAddr). */
  addr = new Float64Array(1024);
  /** The address of each entry whose address is not a number (a bigint past 2^53, text, none). */
  readonly otherAddr = new Map<number, PyValue | undefined>();
  size = new Float64Array(1024);
  /** time_us in whole µs (usOf); NaN where there is none. */
  us = new Float64Array(1024);
  /** Each entry's frame list (the same list object for entries whose frames the pickle memoised). */
  readonly frames: (PyValue | undefined)[] = [];
  /** oom entries whole (their device_free and stream are read too): a few per trace. */
  readonly oom = new Map<number, PyDict>();
  /** Entries whose time_us is there but no time (past 2^63 ns), and the index of the first. */
  badTimes = 0;
  firstBad = -1;

  add(e: PyDict): void {
    const i = this.length;
    if (i === this.action.length) this.grow();
    const code = ACTION_CODES[typeof e.action === 'string' ? e.action : ''] ?? ACT.other;
    this.action[i] = code;
    const a = e.addr;
    if (typeof a === 'number' && a === a) this.addr[i] = a;
    else {
      this.addr[i] = NaN;
      this.otherAddr.set(i, a);
    }
    this.size[i] = num(e.size);
    const t = e.time_us;
    const us = usOf(t);
    this.us[i] = us;
    if (us !== us && (typeof t === 'number' || typeof t === 'bigint') && Number.isFinite(Number(t)) && this.badTimes++ === 0) this.firstBad = i;
    this.frames.push(e.frames);
    if (code === ACT.oom) this.oom.set(i, e);
    this.length = i + 1;
  }

  /** The address of entry i as the pickle gave it. */
  addrOf(i: number): PyValue | undefined {
    const a = this.addr[i];
    return a === a ? a : this.otherAddr.get(i);
  }

  private grow(): void {
    const n = this.action.length * 2;
    const to = <T extends Uint8Array | Float64Array>(a: T, make: (n: number) => T): T => {
      const b = make(n);
      b.set(a);
      return b;
    };
    this.action = to(this.action, (k) => new Uint8Array(k));
    this.addr = to(this.addr, (k) => new Float64Array(k));
    this.size = to(this.size, (k) => new Float64Array(k));
    this.us = to(this.us, (k) => new Float64Array(k));
  }
}

/** The columns of a list of entries already unpickled (a trace the unpickler did not hand over). */
export function columnsOf(list: readonly PyValue[]): TraceColumns {
  const c = new TraceColumns();
  for (const e of list) if (isDict(e)) c.add(e);
  return c;
}

/**
 * Reads trace entries out of the lists they are appended to (UnpickleOptions.take): a list whose first
 * item is a dict with a text `action` (a trace entry: no other list of a snapshot holds one) is read as
 * columns, every later batch of it too, and stays empty. Items that are not dicts are dropped, as the
 * importer drops them from a trace it reads whole.
 */
export class TraceTaker {
  /** The lists taken, as they were unpickled. */
  private readonly byList = new Map<PyValue[], TraceColumns>();
  /** Device traces that were not taken, read after unpickling (once a list). */
  private readonly whole = new Map<PyValue[], TraceColumns>();

  readonly take = (list: PyValue[], items: PyValue[]): boolean => {
    let cols = this.byList.get(list);
    if (!cols) {
      const first = items[0];
      if (list.length > 0 || !isDict(first) || typeof first.action !== 'string') return false;
      this.byList.set(list, (cols = new TraceColumns()));
    }
    for (const e of items) if (isDict(e)) cols.add(e);
    return true;
  };

  /** Whether every list taken is one of `traces` (the snapshot's device_traces): nothing else was emptied. */
  tookOnly(traces: readonly PyValue[]): boolean {
    const lists = new Set<PyValue>(traces);
    for (const l of this.byList.keys()) if (!lists.has(l)) return false;
    return true;
  }

  /** A device trace's entries: those read as it was unpickled, else its items (O(1), for the visit budget). */
  lengthOf(list: PyValue[]): number {
    return this.byList.get(list)?.length ?? list.length;
  }

  /** A device trace's columns: those read as it was unpickled, else read now from its items (once a list). */
  readonly columns = (list: PyValue[]): TraceColumns => {
    let cols = this.byList.get(list) ?? this.whole.get(list);
    if (!cols) this.whole.set(list, (cols = columnsOf(list)));
    return cols;
  };
}
