// PyTorch's CUDA out-of-memory message, every wording since torch 1.0, as numbers:
//   ≥ 2.1: "Tried to allocate <sz>. GPU <i> has a total capacity of <sz> of which <sz> is free.
//           [Process <pid> has <sz> memory in use. | Including non-PyTorch memory, this process has <sz>
//           memory in use.] Of the allocated memory <sz> is allocated by PyTorch, and <sz> is reserved by
//           PyTorch but unallocated."   (~2.1 spells "total capacty"; ≥ 2.4 adds ", with <sz> allocated in
//           private pools (e.g., CUDA Graphs)," after "by PyTorch")
//   ≤ 2.0: "Tried to allocate <sz> (GPU <i>; <sz> total capacity; <sz> already allocated; <sz> free;
//           <sz> reserved in total by PyTorch)"   (1.0: "<sz> cached" instead of "reserved in total")
// Sizes are binary units as PyTorch prints them (1 MiB = 2^20 bytes; 1.x wrote "MiB" too).

export interface OomInfo {
  exception: string;
  tried_bytes: number | null;
  gpu: number | null;
  capacity_bytes: number | null;
  free_bytes: number | null;
  /** Memory the whole process holds on the GPU (PyTorch and not), when the message says. */
  process_bytes: number | null;
  /** The process named by "Process <pid> has … memory in use" (torch 2.x). */
  process_pid: number | null;
  allocated_bytes: number | null;
  /** Reserved by the caching allocator but not allocated: fragmentation's share. */
  reserved_unallocated_bytes: number | null;
  reserved_bytes: number | null;
}

const UNITS: Record<string, number> = { B: 1, bytes: 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3, TiB: 1024 ** 4, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 };
const SZ = '([0-9]+(?:\\.[0-9]+)?) ?(B|bytes|KiB|MiB|GiB|TiB|KB|MB|GB)';

const size = (n: string | undefined, u: string | undefined): number | null => (n === undefined || u === undefined ? null : Math.round(Number(n) * UNITS[u]));
const rx = (s: string) => new RegExp(s);

const TRIED = rx(`Tried to allocate ${SZ}`);
const NEW_CAP = rx(`GPU (\\d+) has a total capac(?:i)?ty of ${SZ} of which ${SZ} is free`);
const PROCESS = rx(`Process (\\d+) has ${SZ} memory in use`);
const THIS_PROCESS = rx(`this process has ${SZ} memory in use`);
// torch ≥ 2.4 names the CUDA graphs' share between the two: "…is allocated by PyTorch, with 1.10 GiB allocated
// in private pools (e.g., CUDA Graphs), and …" (part of the allocated figure, not added to it).
const ALLOCATED = rx(`Of the allocated memory ${SZ} is allocated by PyTorch,(?: with [0-9.]+ ?[KMGT]?i?B allocated in private pools \\([^)]{0,40}\\),)? and ${SZ} is reserved by PyTorch but unallocated`);
const OLD = rx(`\\(GPU (\\d+); ${SZ} total capacity; ${SZ} already allocated; ${SZ} free;(?: ${SZ} reserved in total by PyTorch| ${SZ} cached)`);
/**
 * The exception named right before "CUDA out of memory", read from a bounded window before each mention:
 * unanchored, `[A-Za-z_.]*` is tried from every letter of a long run of letters (quadratic: 64 KiB of
 * letters took 18 s, a 1 MiB line hours). No exception's dotted name is near EXCEPTION_WINDOW long.
 */
const EXCEPTION_BEFORE = /([A-Za-z_.]*(?:OutOfMemoryError|RuntimeError))\s*:\s*$/;
const EXCEPTION_WINDOW = 160;
const OOM_TEXT = 'CUDA out of memory';

function exceptionName(text: string): string | null {
  // A few mentions at most: a line repeating the phrase has its answer (or none) in the first ones.
  for (let i = text.indexOf(OOM_TEXT), k = 0; i >= 0 && k < 8; i = text.indexOf(OOM_TEXT, i + 1), k++) {
    const m = EXCEPTION_BEFORE.exec(text.slice(Math.max(0, i - EXCEPTION_WINDOW), i));
    if (m) return m[1];
  }
  return null;
}

/** True for a line that carries the OOM message (cheap test before parseOom). */
export function isOomLine(line: string): boolean {
  return line.includes(OOM_TEXT);
}

export function parseOom(text: string): OomInfo | null {
  if (!isOomLine(text)) return null;
  const info: OomInfo = {
    exception: exceptionName(text) ?? OOM_TEXT,
    tried_bytes: null,
    gpu: null,
    capacity_bytes: null,
    free_bytes: null,
    process_bytes: null,
    process_pid: null,
    allocated_bytes: null,
    reserved_unallocated_bytes: null,
    reserved_bytes: null,
  };
  const t = TRIED.exec(text);
  if (t) info.tried_bytes = size(t[1], t[2]);
  const cap = NEW_CAP.exec(text);
  if (cap) {
    info.gpu = Number(cap[1]);
    info.capacity_bytes = size(cap[2], cap[3]);
    info.free_bytes = size(cap[4], cap[5]);
    const p = PROCESS.exec(text);
    if (p) {
      info.process_pid = Number(p[1]);
      info.process_bytes = size(p[2], p[3]);
    }
    const tp = THIS_PROCESS.exec(text);
    if (tp) info.process_bytes = size(tp[1], tp[2]);
    const a = ALLOCATED.exec(text);
    if (a) {
      info.allocated_bytes = size(a[1], a[2]);
      info.reserved_unallocated_bytes = size(a[3], a[4]);
      info.reserved_bytes = info.allocated_bytes! + info.reserved_unallocated_bytes!;
    }
    return info;
  }
  const old = OLD.exec(text);
  if (old) {
    info.gpu = Number(old[1]);
    info.capacity_bytes = size(old[2], old[3]);
    info.allocated_bytes = size(old[4], old[5]);
    info.free_bytes = size(old[6], old[7]);
    info.reserved_bytes = size(old[8] ?? old[10], old[9] ?? old[11]);
    if (info.reserved_bytes !== null && info.allocated_bytes !== null) info.reserved_unallocated_bytes = Math.max(0, info.reserved_bytes - info.allocated_bytes);
  }
  return info;
}
