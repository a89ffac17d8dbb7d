// PyTorch profiler / Kineto Chrome-trace JSON (current and 2021 schema), streamed.
//
// Tables written:
// - kernels: GPU `X` events (cat kernel/Kernel, gpu_memcpy/Memcpy, gpu_memset/Memset). device = args.device
//   ?? pid, stream = args.stream ?? tid ("stream 7" in 2021), correlation_id = args.correlation. attrs:
//   kind ('kernel'|'memcpy'|'memset'), cat, external_id, launch_span_id (the span_id of the CUDA runtime
//   call that launched it: "c<correlation>"), op_span_id ("op<External id>", the CPU op), grid, block,
//   registers_per_thread, shared_memory, occupancy_pct, blocks_per_sm, warps_per_sm, bytes, bandwidth_gbps,
//   plus any other arg under its own name.
// - spans: every other `X` event (cpu_op, user_annotation, gpu_user_annotation, cuda_runtime, cuda_driver,
//   cuda_sync, python_function, Trace, 2021 Operator/Runtime). trace_id 'kineto:<rank>'. span_id:
//   "c<correlation>" for runtime/driver calls, "op<External id>" for CPU ops, else "k<n>"; a duplicate
//   gets ".<n>". A runtime call's parent_id is the CPU op with the same External id. attrs: cat, pid, tid,
//   external_id, correlation, and the other args. (ac2g flows carry the same correlation, so they are
//   only counted.)
// - allocations (source 'kineto'): CUDA `[memory]` instant events paired by Device Id + Addr (+Bytes
//   alloc, −Bytes free); an allocation still open at the end has free_ns null, a free without its alloc
//   has alloc_ns null. 2021 traces have no Addr: nothing to pair, a warning says so. stack_id: the
//   cpu_op / Operator / user_annotation / python_function `X` events of the memory event's pid+tid
//   whose [ts, ts+dur] holds its ts (the alloc's; a lone free's own), innermost first; names as they
//   are, Python frames as "file.py:12 fn" (memory-snapshot's form). Enclosing ops may come later in
//   the file, so allocations are kept (compactly) and written at the end.
// - series torch.allocated / torch.reserved {gpu} (bytes) from Total Allocated / Total Reserved;
//   gpu.mem.total {gpu} (bytes) from deviceProperties[].totalGlobalMem, sampled at the trace's first
//   and last timestamp; one 'gpu_info' event per device with its properties.
// Timestamps: `ts`/`dur` are µs. Epoch µs (every corpus trace) become epoch ns, exactly: a µs number with
// more digits than a double keeps (epoch µs with a ns fraction) is quoted before parsing (exactTimes) and
// read as text. Traces whose ts are relative to `baseTimeNanoseconds` (written after traceEvents) get a
// key-only pre-pass to find it; relative traces without one (the pre-Kineto profiler's bare array of
// events, whose GPU kernels sit under pid "CUDA functions", device as tid) end at the bundle's time, else
// the mtime (warned), found by a pass over the events. A ROCm kernel's own `kind` arg is kept as arg_kind.
import { ImportError, type EntryInput, type ImportContext, type Importer, type Sink } from './types';
import { ScanError, scanChromeTrace } from './json-event-scanner';
import { toHexAddr } from './hex-address';
import { OpStacks, withRoom } from './kineto-op-stacks';
import { LogClock } from './log-time';
import { nsInRange, nsOfNumber, nsSum, unitsToNs } from './ns-time';

/**
 * `[memory]` events' `Device Type` (c10::DeviceType) of an accelerator's memory: CUDA 1, HIP 6 (ROCm builds
 * that do not report HIP as CUDA), XPU 12, MTIA 19, PrivateUse1 20. CPU (0) allocations are not the GPU's.
 */
const ACCELERATOR_DEVICE_TYPES = new Set([1, 6, 12, 19, 20]);

/** Epoch µs below this (1973) are not epoch times but offsets from the trace's base time. */
const RELATIVE_US_LIMIT = 1e14;

const GPU_KINDS: Record<string, 'kernel' | 'memcpy' | 'memset'> = {
  kernel: 'kernel',
  Kernel: 'kernel',
  gpu_memcpy: 'memcpy',
  Memcpy: 'memcpy',
  gpu_memset: 'memset',
  Memset: 'memset',
};

/** Kineto's kernel arg names → our attr names. */
const ARG_NAMES: Record<string, string> = {
  'External id': 'external_id',
  'external id': 'external_id',
  grid: 'grid',
  block: 'block',
  'registers per thread': 'registers_per_thread',
  'shared memory': 'shared_memory',
  'est. achieved occupancy %': 'occupancy_pct',
  'blocks per SM': 'blocks_per_sm',
  'warps per SM': 'warps_per_sm',
  bytes: 'bytes',
  'memory bandwidth (GB/s)': 'bandwidth_gbps',
};

interface TraceEvent {
  ph?: string;
  cat?: string;
  name?: string;
  pid?: number | string;
  tid?: number | string;
  /** µs; a decimal string where the number has more digits than a double holds (see exactTimes). */
  ts?: number | string;
  dur?: number | string;
  id?: number | string;
  args?: Record<string, unknown>;
}

interface DeviceProps {
  id?: number;
  name?: string;
  totalGlobalMem?: number;
  [k: string]: unknown;
}

class NeedBaseTime extends Error {}

/** baseTimeNanoseconds as written (digits, quoted or not, or a number); null when it is no time in ns. */
function parseBase(raw: string): bigint | null {
  const t = raw.trim().replace(/^"|"$/g, '');
  return /^\d+$/.test(t) ? unitsToNs(t, 1n) : nsOfNumber(Math.trunc(Number(t)));
}

/**
 * |µs| from which a time is no time: 2^63 ns, the 64-bit integer the store keeps (JSON's 1e400 is
 * Infinity, 1e300 is finite but no clock's). Checked before any BigInt(): BigInt(Infinity) throws.
 */
const MAX_US = 9.2e15;

export function usToNs(us: number): bigint {
  const whole = Math.floor(us);
  return BigInt(whole) * 1000n + BigInt(Math.round((us - whole) * 1000));
}

/** µs as written (a number, or the decimal text exactTimes kept) → ns, exactly for decimal text. */
export function usTextToNs(us: number | string): bigint {
  if (typeof us === 'number') return usToNs(us);
  // The usual text (digits, one dot, digits) read from its char codes, without the slices below.
  let w = 0;
  let i = 0;
  let c = 0;
  for (; i < us.length && (c = us.charCodeAt(i)) >= 48 && c <= 57; i++) w = w * 10 + (c - 48);
  // Past 2^53 the sum above is no longer exact, and the text is read as below.
  if (i > 0 && c === 46 /* . */ && i + 1 < us.length && Number.isSafeInteger(w)) {
    let frac = 0;
    let j = i + 1;
    for (; j < us.length && (c = us.charCodeAt(j)) >= 48 && c <= 57; j++) if (j <= i + 3) frac = frac * 10 + (c - 48);
    if (j === us.length) {
      for (let k = j; k <= i + 3; k++) frac *= 10;
      // Digits past the ns are rounded, half up.
      if (j > i + 4 && us.charCodeAt(i + 4) >= 53) frac++;
      return BigInt(w) * 1000n + BigInt(frac);
    }
  }
  // Whole µs up to 2^53 (year 2255 in epoch µs) are exact as a double; the fraction is read as ns digits.
  const dot = us.indexOf('.');
  const whole = Number(dot < 0 ? us : us.slice(0, dot));
  if (!Number.isSafeInteger(whole) || whole < 0) return usToNs(Number(us));
  let frac = 0;
  if (dot >= 0) {
    const digits = us.slice(dot + 1, dot + 4);
    frac = Number(digits.padEnd(3, '0'));
    if (!Number.isInteger(frac)) return usToNs(Number(us));
    // Digits past the ns are rounded, half up.
    if (us.length > dot + 4 && us.charCodeAt(dot + 4) >= 53 /* 5 */) frac++;
  }
  return BigInt(whole) * 1000n + BigInt(frac);
}

/** `B` events waiting for their `E` at once: past this, a trace that never closes them stops holding more. */
const MAX_OPEN_BEGINS = 100_000;

const usNumber = (v: unknown): number => (typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : NaN);

/** Only `ts` needs it: a duration's few digits fit a double. */
const TS_KEY = Buffer.from('"ts"');
/**
 * What is searched for: the key less its opening quote, checked after. `"` is every few bytes of a
 * trace, so a search led by it stops at each one; led by `t` it runs at twice the speed (measured).
 */
const TS_TAIL = TS_KEY.subarray(1);
/** A double holds 15 significant digits for sure: a µs time with more (epoch µs with a ns fraction) is not. */
const EXACT_DIGITS = 15;
/**
 * No time is longer than this (19 digits, a dot, an exponent), nor is the space around its colon: past it
 * a value is left as it is for the scanner to judge. Without the bound, a run of digits or spaces as long
 * as the file was carried from chunk to chunk and copied each time (a 30 MB number took 67 s).
 */
const MAX_TIME_CHARS = 64;

/**
 * Rewrites `"ts": 1694039959123456.789` into `"ts": "1694039959123456.789"` where the number
 * has more digits than a double keeps, before the trace is parsed: JSON.parse would round it to the nearest
 * 0.25 µs (GPU-op durations were off by a median 54 ns). The reader parses such strings exactly
 * (usTextToNs). Byte offsets in error messages move by two bytes per number quoted before them.
 */
export async function* exactTimes(src: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  let carry: Buffer | null = null;
  // A trace writes all its times one way: when its first 4 MiB held times but none to quote, the rest
  // passes as it is.
  let looked = 0;
  let quoted = 0;
  let passing = false;
  for await (const chunk of src) {
    if (passing) {
      yield chunk;
      continue;
    }
    const buf: Buffer = carry && carry.length ? Buffer.concat([carry, chunk]) : chunk;
    const [out, rest, n] = quoteTimes(buf, false);
    quoted += n;
    looked += out.length;
    carry = rest;
    if (out.length) yield out;
    if (looked >= EXACT_LOOK_BYTES && quoted === 0) {
      passing = true;
      if (carry) yield carry;
      carry = null;
    }
  }
  if (carry && carry.length) yield quoteTimes(carry, true)[0];
}
const EXACT_LOOK_BYTES = 4 * 1024 * 1024;

/** The index of the first byte from `from` that is not JSON white space, looking MAX_TIME_CHARS bytes at most. */
function spaces(buf: Buffer, from: number): number {
  const end = Math.min(buf.length, from + MAX_TIME_CHARS);
  let j = from;
  while (j < end && (buf[j] === 0x20 || buf[j] === 0x09 || buf[j] === 0x0a || buf[j] === 0x0d)) j++;
  return j;
}

/** The buffer with its long `ts` numbers quoted (up to where a key may be cut), the rest, and how many. */
function quoteTimes(buf: Buffer, final: boolean): [Buffer, Buffer | null, number] {
  // Where the numbers to quote start and end, then one copy into a buffer two bytes a number longer.
  const at: number[] = [];
  // A key cut by the chunk's end is looked for again with the next chunk.
  let cut = final ? buf.length : Math.max(0, buf.length - 4);
  let lastEnd = 0;
  for (let hit = buf.indexOf(TS_TAIL, 1); hit >= 0; hit = buf.indexOf(TS_TAIL, hit + 1)) {
    const i = hit - 1;
    if (buf[i] !== 0x22 /* " */) continue;
    // What is held back for the next chunk (from a key on) is thus a few hundred bytes at most.
    let j = spaces(buf, i + TS_KEY.length);
    if (j - (i + TS_KEY.length) >= MAX_TIME_CHARS) continue;
    if (j < buf.length && buf[j] !== 0x3a /* : */) continue;
    j = spaces(buf, j + 1);
    const start = j;
    const end = Math.min(buf.length, start + MAX_TIME_CHARS + 1);
    let digits = 0;
    let dot = false;
    while (j < end) {
      const c = buf[j];
      if (c >= 0x30 && c <= 0x39) digits++;
      else if (c === 0x2e) dot = true;
      else if (c !== 0x2d && c !== 0x2b && c !== 0x65 && c !== 0x45) break;
      j++;
    }
    // Longer than any time: left as it is, for the scanner to read or refuse.
    if (j - start > MAX_TIME_CHARS) continue;
    if (j >= buf.length && !final) {
      // The value may go on in the next chunk: this key is looked at again then.
      cut = Math.min(cut, i);
      break;
    }
    if (dot && digits > EXACT_DIGITS) {
      at.push(start, j);
      lastEnd = j;
    }
  }
  cut = Math.max(cut, lastEnd);
  const rest = cut < buf.length ? Buffer.from(buf.subarray(cut)) : null;
  if (!at.length) return [buf.subarray(0, cut), rest, 0];
  const out = Buffer.allocUnsafe(cut + at.length);
  let o = 0;
  let from = 0;
  for (let k = 0; k < at.length; k += 2) {
    o += buf.copy(out, o, from, at[k]);
    out[o++] = 0x22;
    // A number is a few bytes: copied here, not through another copy() call.
    for (let j = at[k]; j < at[k + 1]; j++) out[o++] = buf[j];
    out[o++] = 0x22;
    from = at[k + 1];
  }
  buf.copy(out, o, from, cut);
  return [out, rest, at.length / 2];
}

const asInt = (x: unknown): number | null => {
  if (typeof x === 'number' && Number.isFinite(x)) return Math.trunc(x);
  if (typeof x === 'string') {
    const m = /-?\d+/.exec(x);
    if (m) return Number(m[0]);
  }
  return null;
};

export function detectKineto(head: Buffer): number {
  const s = head.toString('latin1');
  const t = s.trimStart();
  if (t.startsWith('{')) {
    const kineto = /"(schemaVersion|deviceProperties|distributedInfo|baseTimeNanoseconds)"|"cat":\s*"(cpu_op|cuda_runtime|kernel|Operator|Runtime|Kernel|ac2g)"/.test(s);
    if (!s.includes('"traceEvents"')) {
      // libkineto writes its header members first: a large `distributedInfo` (a pg_config of every process
      // group and rank) pushes `traceEvents` past the head. Its first member alone says whose file it is.
      // (schemaVersion alone is not enough: OCI and Docker manifests open with it too.)
      return /^\{\s*"(schemaVersion|distributedInfo|deviceProperties)"\s*:/.test(t) && /"(distributedInfo|deviceProperties)"\s*:/.test(s) ? 0.9 : 0;
    }
    return kineto ? 0.95 : 0.6;
  }
  if (t.startsWith('[') && /^\[\s*\{/.test(t) && /"ph"\s*:/.test(s) && /"ts"\s*:/.test(s)) return 0.5;
  return 0;
}

/**
 * A set of ids: correlation and External ids count up from 0, so a bitmap (a bit an id, grown by
 * doubling) holds them at a fraction of a Set's cost; any other id goes to a Set.
 */
class SeenIds {
  private bits = new Uint8Array(1 << 12);
  private readonly others = new Set<number>();

  /** Adds n; answers whether it was new. */
  add(n: number): boolean {
    // Up to 2^27 ids in the bitmap (16 MiB at most).
    if (!(n >= 0 && n < 2 ** 27 && Number.isInteger(n))) return this.addOther(n);
    const byte = n >>> 3;
    if (byte >= this.bits.length) {
      const grown = new Uint8Array(Math.max(this.bits.length * 2, byte + 1));
      grown.set(this.bits);
      this.bits = grown;
    }
    const mask = 1 << (n & 7);
    if (this.bits[byte] & mask) return false;
    this.bits[byte] |= mask;
    return true;
  }

  private addOther(n: number): boolean {
    if (this.others.has(n)) return false;
    this.others.add(n);
    return true;
  }
}

/**
 * Allocations held until the end, when their stacks are known: 36 bytes each (device int32, address,
 * size, alloc and free µs as float64; NaN for none). An address that is not a JSON number is kept
 * aside as its hex text.
 */
class PendingAllocations {
  device = new Int32Array(256);
  addr = new Float64Array(256);
  size = new Float64Array(256);
  allocUs = new Float64Array(256);
  freeUs = new Float64Array(256);
  readonly addrText = new Map<number, string>();
  n = 0;

  add(device: number, addr: unknown, size: number, allocUs: number, freeUs: number): number {
    const i = this.n++;
    if (i === this.device.length) {
      this.device = withRoom(this.device, i + 1);
      this.addr = withRoom(this.addr, i + 1);
      this.size = withRoom(this.size, i + 1);
      this.allocUs = withRoom(this.allocUs, i + 1);
      this.freeUs = withRoom(this.freeUs, i + 1);
    }
    this.device[i] = device;
    if (typeof addr === 'number') this.addr[i] = addr;
    else this.addrText.set(i, toHexAddr(addr));
    this.size[i] = size;
    this.allocUs[i] = allocUs;
    this.freeUs[i] = freeUs;
    return i;
  }

  hexAddr(i: number): string {
    return this.addrText.get(i) ?? toHexAddr(this.addr[i]);
  }
}

class KinetoReader {
  private traceId = 'kineto:0';
  private spanSeq = 0;
  // Span ids seen, by number; "k<n>" ids are never repeated, so need no record.
  private readonly usedCalls = new SeenIds();
  private readonly usedOps = new SeenIds();
  /** Ids seen more than once → the next suffix. */
  private readonly repeats = new Map<string, number>();
  /** Open allocations by device:addr → their index in `pending`. */
  private readonly open = new Map<string, number>();
  private readonly pending = new PendingAllocations();
  /** CPU intervals and, index for index with `pending`, the points whose stacks are wanted. */
  private readonly stacks = new OpStacks();
  private readonly memSeries = new Map<string, number>();
  /** Open `B` events by pid and tid (begin/end), how many, and the halves that found no other. */
  private readonly begins = new Map<string, { e: TraceEvent; offset: number }[]>();
  private openBegins = 0;
  private unpaired = 0;
  /** The memory series' value of the ms being read (peakSample). */
  private readonly msPeaks = new Map<number, { ms: number; v: number }>();
  private minUs = Infinity;
  private maxUs = -Infinity;
  private flows = 0;
  private memNoAddr = 0;
  /** Launches (kernels, runtime calls) with both ids, and those whose External id is their correlation id (opOf). */
  private launchesWithBoth = 0;
  private extIsCorr = 0;
  private devices: DeviceProps[] = [];
  private timeMode: 'unknown' | 'epoch' | 'relative' = 'unknown';

  constructor(private readonly sink: Sink, private readonly ctx: ImportContext, private baseNs: bigint | null) {}

  topKey(key: string, value: unknown, raw: string): void {
    if (key === 'distributedInfo' && value && typeof value === 'object') {
      const rank = asInt((value as Record<string, unknown>).rank);
      if (rank !== null) this.traceId = `kineto:${rank}`;
    } else if (key === 'deviceProperties' && Array.isArray(value)) {
      this.devices = value.filter((d): d is DeviceProps => !!d && typeof d === 'object');
    } else if (key === 'baseTimeNanoseconds' && this.baseNs === null) {
      this.baseNs = parseBase(raw);
    }
  }

  /** µs as written (number or exact decimal text) → epoch ns; the first time seen decides epoch or relative. */
  private ns(raw: number | string, us = typeof raw === 'number' ? raw : Number(raw)): bigint {
    if (this.timeMode === 'unknown') {
      if (us < RELATIVE_US_LIMIT) {
        if (this.baseNs === null) throw new NeedBaseTime();
        this.timeMode = 'relative';
      } else this.timeMode = 'epoch';
    }
    if (us < this.minUs) this.minUs = us;
    if (us > this.maxUs) this.maxUs = us;
    if (this.timeMode !== 'relative') return usTextToNs(raw);
    return (this.baseNs ?? 0n) + (typeof raw === 'number' ? BigInt(Math.round(us * 1000)) : usTextToNs(raw));
  }

  /** `<prefix><n>`, or `<prefix><n>.<k>` for its k-th repeat. */
  private uniqueSpanId(prefix: 'c' | 'op', n: number): string {
    const id = `${prefix}${n}`;
    const seen = prefix === 'c' ? this.usedCalls : this.usedOps;
    if (seen.add(n)) return id;
    const k = this.repeats.get(id) ?? 1;
    this.repeats.set(id, k + 1);
    return `${id}.${k}`;
  }

  event(raw: unknown, offset: number): void {
    if (!raw || typeof raw !== 'object') {
      this.ctx.warn('trace event is not an object', { offset, key: 'traceEvents' });
      return;
    }
    const e = raw as TraceEvent;
    switch (e.ph) {
      case 'X':
        return this.complete(e, offset);
      case 'i':
      case 'I':
        if (e.name === '[memory]') this.memory(e, offset);
        return;
      case 's':
      case 'f':
      case 't':
        this.flows++;
        return;
      case 'B':
        return this.begin(e, offset);
      case 'E':
        return this.end(e);
      default:
        return;
    }
  }

  /**
   * Chrome's duration events in two halves (`B` then `E` on one pid and tid, nested as a stack), as other
   * tools than Kineto write them: each pair is read as the `X` event it stands for (its args both halves').
   */
  private begin(e: TraceEvent, offset: number): void {
    if (this.openBegins >= MAX_OPEN_BEGINS || !(Math.abs(usNumber(e.ts)) < MAX_US)) {
      this.unpaired++;
      return;
    }
    const key = `${e.pid}\u0000${e.tid}`;
    let stack = this.begins.get(key);
    if (!stack) this.begins.set(key, (stack = []));
    stack.push({ e, offset });
    this.openBegins++;
  }

  private end(e: TraceEvent): void {
    const b = this.begins.get(`${e.pid}\u0000${e.tid}`)?.pop();
    if (!b) {
      this.unpaired++;
      return;
    }
    this.openBegins--;
    // An end that is no time (NaN, 1e400, past 2^63 ns) or before its begin: neither half is read.
    const ns = Math.abs(usNumber(e.ts)) < MAX_US ? usTextToNs(e.ts!) - usTextToNs(b.e.ts!) : -1n;
    if (ns < 0n) {
      this.unpaired += 2;
      return;
    }
    // The duration as exact µs text, as exactTimes keeps long numbers, so complete() reads it to the ns.
    const dur = `${ns / 1000n}.${String(ns % 1000n).padStart(3, '0')}`;
    this.complete({ ...b.e, ph: 'X', dur, name: b.e.name ?? e.name, args: e.args ? { ...b.e.args, ...e.args } : b.e.args }, b.offset);
  }

  private complete(e: TraceEvent, offset: number): void {
    const ts = usNumber(e.ts);
    if (!Number.isFinite(ts)) {
      this.ctx.warn(`event "${e.name ?? '?'}" has no numeric ts`, { offset, key: 'ts' });
      return;
    }
    if (!(Math.abs(ts) < MAX_US)) {
      this.ctx.warn(`event "${e.name ?? '?'}" has a ts that is no time (past 2^63 ns), skipped`, { offset, key: 'ts' });
      return;
    }
    const start = this.ns(e.ts!, ts);
    if (!nsInRange(start)) {
      this.ctx.warn(`event "${e.name ?? '?'}": its ts after baseTimeNanoseconds is past 2^63 ns, skipped`, { offset, key: 'ts' });
      return;
    }
    let durUs = usNumber(e.dur);
    if (!(durUs < MAX_US)) {
      // NaN (no dur) is a zero-length event, as it always was; a dur of 1e400 is said.
      if (!Number.isNaN(durUs)) this.ctx.warn(`event "${e.name ?? '?'}" has a dur that is no duration (past 2^63 ns): taken as 0`, { offset, key: 'dur' });
      durUs = 0;
    }
    let dur = durUs > 0 ? durUs : 0;
    // The end from the exact start and duration (each parsed exactly where exactTimes kept their text).
    let end = dur > 0 ? nsSum(start, usTextToNs(e.dur!)) : start;
    if (end === null) {
      this.ctx.warn(`event "${e.name ?? '?'}" ends past 2^63 ns: taken as 0 long`, { offset, key: 'dur' });
      end = start;
      dur = 0;
    }
    if (ts + dur > this.maxUs) this.maxUs = ts + dur;
    const args = e.args ?? {};
    // The legacy (pre-Kineto) profiler writes no cat: its GPU kernels are under pid "CUDA functions",
    // with the device as tid.
    const legacyKernel = e.cat === undefined && e.pid === 'CUDA functions';
    const cat = e.cat ?? '';
    const kind = legacyKernel ? 'kernel' : GPU_KINDS[cat];
    const corr = asInt(args.correlation);
    const ext = asInt(args['External id'] ?? args['external id']);
    if (kind) {
      const attrs: Record<string, unknown> = { kind, cat };
      // for…in over a parsed object visits its own keys in Object.entries' order, without the pairs.
      for (const k in args) {
        if (k === 'device' || k === 'stream' || k === 'correlation') continue;
        // ROCm traces carry their own `kind` arg ("Dispatch Kernel", "CopyHostToDevice"): kept beside ours.
        if (k === 'kind' || k === 'cat') attrs[`arg_${k}`] = args[k];
        else attrs[ARG_NAMES[k] ?? k] = args[k];
      }
      if (corr !== null) attrs.launch_span_id = `c${corr}`;
      if (this.opOf(ext, corr)) attrs.op_span_id = `op${ext}`;
      this.sink.kernel({
        device: asInt(args.device) ?? (legacyKernel ? asInt(e.tid) : null) ?? asInt(e.pid) ?? 0,
        stream: asInt(args.stream) ?? asInt(e.tid) ?? 0,
        name: e.name ?? '',
        start_ns: start,
        end_ns: end,
        correlation_id: corr,
        attrs,
      });
      return;
    }
    const isCall = cat === 'cuda_runtime' || cat === 'cuda_driver' || cat === 'Runtime' || cat === 'cuda_sync';
    const isOp = cat === 'cpu_op' || cat === 'Operator';
    const python = cat === 'python_function';
    if (isOp || python || cat === 'user_annotation') this.stacks.interval(e.pid, e.tid, ts, ts + dur, e.name ?? '', python);
    const spanId = isCall && corr !== null ? this.uniqueSpanId('c', corr) : isOp && ext !== null ? this.uniqueSpanId('op', ext) : `k${++this.spanSeq}`;
    const attrs: Record<string, unknown> = { cat, pid: e.pid, tid: e.tid };
    for (const k in args) attrs[ARG_NAMES[k] === 'external_id' ? 'external_id' : k] = args[k];
    this.sink.span({
      trace_id: this.traceId,
      span_id: spanId,
      parent_id: isCall && this.opOf(ext, corr) ? `op${ext}` : null,
      name: e.name ?? '',
      start_ns: start,
      end_ns: end,
      attrs,
    });
  }

  /**
   * Whether a GPU event's or runtime call's External id names its CPU op. Traces of torch 2.0–2.1 give
   * launches their own correlation id there (the ops count apart): linking by it tied a launch inside
   * `aten::_softmax_backward_data` to an unrelated `aten::result_type`, so such a launch names no op.
   */
  private opOf(ext: number | null, corr: number | null): boolean {
    if (ext === null || ext === 0) return false;
    if (corr === null) return true;
    this.launchesWithBoth++;
    if (ext !== corr) return true;
    this.extIsCorr++;
    return false;
  }

  private memory(e: TraceEvent, offset: number): void {
    const a = e.args ?? {};
    const ts = usNumber(e.ts);
    if (!ACCELERATOR_DEVICE_TYPES.has(asInt(a['Device Type']) ?? -1) || !Number.isFinite(ts)) return;
    const ns = Math.abs(ts) < MAX_US ? this.ns(e.ts!, ts) : null;
    if (ns === null || !nsInRange(ns)) {
      this.ctx.warn('[memory] event with a ts that is no time (past 2^63 ns), skipped', { offset, key: 'ts' });
      return;
    }
    const device = asInt(a['Device Id']) ?? 0;
    const bytes = Number(a.Bytes);
    const ms = Number(ns / 1000n) / 1000;
    // Registered with their first reading: older profilers' events carry Bytes alone, and an empty series
    // would say the trace holds the allocator's totals.
    if (typeof a['Total Allocated'] === 'number') this.peakSample(this.memSeriesFor('torch.allocated', device), ms, a['Total Allocated']);
    if (typeof a['Total Reserved'] === 'number') this.peakSample(this.memSeriesFor('torch.reserved', device), ms, a['Total Reserved']);
    if (a.Addr === undefined || !Number.isFinite(bytes)) {
      this.memNoAddr++;
      return;
    }
    const k = `${device}:${toHexAddr(a.Addr)}`;
    // Each pending allocation asks for one stack, so `stacks`' answers line up with `pending`.
    if (bytes >= 0) {
      // An alloc over an open one leaves that one open (free_ns null), as it was never seen freed.
      this.open.set(k, this.pending.add(device, a.Addr, bytes, ts, NaN));
      this.stacks.at(e.pid, e.tid, ts);
      return;
    }
    const prev = this.open.get(k);
    if (prev !== undefined) {
      this.open.delete(k);
      this.pending.freeUs[prev] = ts;
    } else {
      this.pending.add(device, a.Addr, -bytes, NaN, ts);
      this.stacks.at(e.pid, e.tid, ts);
    }
  }

  /** Every allocation, with its stack, in the order their first event came. */
  private writeAllocations(): void {
    const stackIds = this.stacks.resolve((frames) => this.sink.stack(frames));
    const p = this.pending;
    for (let i = 0; i < p.n; i++) {
      this.sink.allocation({
        device: p.device[i],
        addr: p.hexAddr(i),
        size: p.size[i],
        alloc_ns: Number.isNaN(p.allocUs[i]) ? null : this.ns(p.allocUs[i]),
        free_ns: Number.isNaN(p.freeUs[i]) ? null : this.ns(p.freeUs[i]),
        stack_id: stackIds[i] >= 0 ? stackIds[i] : null,
        source: 'kineto',
      });
    }
  }

  /**
   * One value a ms for a memory series (the store keeps one, at the ms it rounds to): the largest seen in
   * it, so an allocation freed within the ms is still seen (the last event alone hid a 512 MiB spike
   * between two 1 MiB points). Events of one device come in time order; one that goes back to a ms
   * already written replaces it, as before.
   */
  private peakSample(id: number, ms: number, v: number): void {
    const at = Math.round(ms);
    const p = this.msPeaks.get(id);
    if (p !== undefined && p.ms === at) {
      if (v > p.v) p.v = v;
      return;
    }
    if (p !== undefined) {
      this.sink.sample(id, p.ms, p.v);
      p.ms = at;
      p.v = v;
    } else this.msPeaks.set(id, { ms: at, v });
  }

  private memSeriesFor(name: 'torch.allocated' | 'torch.reserved', device: number): number {
    const key = `${name}:${device}`;
    let id = this.memSeries.get(key);
    if (id === undefined) this.memSeries.set(key, (id = this.sink.series({ name, labels: { gpu: String(device) }, unit: 'bytes', kind: 'gauge' })));
    return id;
  }

  finish(): void {
    const open = this.unpaired + this.openBegins;
    if (open > 0) this.ctx.warn(`${open} duration event halves (B/E) found no other half (or came past ${MAX_OPEN_BEGINS} open): not read`);
    this.begins.clear();
    for (const [id, p] of this.msPeaks) this.sink.sample(id, p.ms, p.v);
    this.msPeaks.clear();
    this.open.clear();
    this.writeAllocations();
    if (this.memNoAddr > 0) this.ctx.warn(`${this.memNoAddr} CUDA [memory] events carry no Addr (older profiler): allocations cannot be paired`);
    // (One launch whose two ids agree by chance is not worth a word; a trace of them is.)
    if (this.extIsCorr > 0 && this.extIsCorr * 2 > this.launchesWithBoth) {
      this.ctx.warn(`${this.extIsCorr} of ${this.launchesWithBoth} kernels and runtime calls carry their correlation id as their External id (a torch 2.0–2.1 profiler): not linked to a CPU op`);
    }
    if (!Number.isFinite(this.minUs)) return;
    const toMs = (us: number) => Number(this.ns(us) / 1000n) / 1000;
    const first = toMs(this.minUs);
    const last = toMs(this.maxUs);
    for (const d of this.devices) {
      const id = asInt(d.id) ?? 0;
      if (typeof d.totalGlobalMem === 'number') {
        const s = this.sink.series({ name: 'gpu.mem.total', labels: { gpu: String(id) }, unit: 'bytes', kind: 'gauge' });
        this.sink.sample(s, first, d.totalGlobalMem);
        if (last !== first) this.sink.sample(s, last, d.totalGlobalMem);
      }
      this.sink.event({ ts_ms: first, kind: 'gpu_info', text: `GPU ${id}: ${d.name ?? 'unknown'}${typeof d.totalGlobalMem === 'number' ? `, ${(d.totalGlobalMem / 2 ** 30).toFixed(1)} GiB` : ''}`, attrs: { gpu: id, ...d } });
    }
  }
}

/** What one pass over the trace hands its events and top-level keys to. */
interface PassReader {
  topKey(key: string, value: unknown, raw: string): void;
  event(raw: unknown, offset: number): void;
}

/** Where a trace cut off before its end stops (json-event-scanner's `truncated`). */
interface Cut {
  offset: number;
  inEvents: boolean;
}

/** What one pass read besides its events: the base time, and where a trace cut off stops. */
interface Passed {
  base: bigint | null;
  cut: Cut | null;
}

async function pass(input: EntryInput, ctx: ImportContext, reader: PassReader | null, skipEvents: boolean): Promise<Passed> {
  let base: bigint | null = null;
  let cut: Cut | null = null;
  try {
    for await (const item of scanChromeTrace(skipEvents ? input.stream() : exactTimes(input.stream()), { skipEvents })) {
      if (item.kind === 'truncated') cut = item;
      else if (item.kind === 'key') {
        // The raw digits: an epoch-ns number does not survive a trip through a double.
        if (item.key === 'baseTimeNanoseconds') base = parseBase(item.raw);
        reader?.topKey(item.key, item.value, item.raw);
      } else if (reader) {
        for (const ev of item.events) reader.event(ev, item.offset);
      }
      if (ctx.signal.aborted) break;
    }
  } catch (e) {
    if (e instanceof ScanError) throw new ImportError(ctx.path, { offset: e.offset, key: e.key }, e.message);
    throw e;
  }
  return { base, cut };
}

/** The latest end (µs) of a trace's events: where a trace with relative times and no base time ends. */
class LastEnd implements PassReader {
  us = -Infinity;
  topKey(): void {}
  event(raw: unknown): void {
    const e = raw as TraceEvent;
    if (!e || typeof e !== 'object') return;
    const ts = usNumber(e.ts);
    const dur = usNumber(e.dur);
    // Times the reader skips (no time, past 2^63 ns) do not place the trace either.
    if (!(Math.abs(ts) < MAX_US)) return;
    const end = ts + (dur > 0 && dur < MAX_US ? dur : 0);
    if (end > this.us) this.us = end;
  }
}

export const kinetoImporter: Importer = {
  format: 'kineto-json',
  detect: (head) => detectKineto(head),
  parallel: true,
  async import(input, sink, ctx) {
    const run = async (base: bigint | null) => {
      const reader = new KinetoReader(sink, ctx, base);
      const c = (await pass(input, ctx, reader, false)).cut;
      reader.finish();
      // A profiler killed mid-write (the crash under investigation, often) leaves the trace unclosed: what it
      // wrote whole is kept, said with where it stops.
      if (c) {
        ctx.warn(
          c.inEvents
            ? 'the trace ends inside traceEvents, before its closing "]" (a profiler that did not finish writing it): the complete events before this point were read, the one cut off was not'
            : 'the trace ends inside its top-level object after traceEvents (a profiler that did not finish writing it): every event was read; any top-level member written after it (baseTimeNanoseconds, deviceProperties where it follows) is missing',
          { offset: c.offset, key: c.inEvents ? 'traceEvents' : undefined },
        );
      }
    };
    try {
      await run(null);
    } catch (e) {
      if (!(e instanceof NeedBaseTime)) throw e;
      // Nothing was written yet: find the base time (it follows traceEvents), then read again.
      let base = (await pass(input, ctx, null, true)).base;
      if (base === null) {
        // Relative µs and no base time (the pre-Kineto profiler's bare array, a trace cut before its
        // end): the trace is placed to end at the bundle's time, else the file's mtime, with a warning.
        const last = new LastEnd();
        await pass(input, ctx, last, false);
        const anchorMs = new LogClock(ctx).anchor('timestamps are relative to the profiler start and the trace has no baseTimeNanoseconds; its end');
        base = BigInt(Math.round(anchorMs)) * 1_000_000n - BigInt(Math.round((Number.isFinite(last.us) ? last.us : 0) * 1000));
      }
      await run(base);
    }
  },
};
