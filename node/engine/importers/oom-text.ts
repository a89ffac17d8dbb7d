// Out-of-memory messages of the GPU stack, as numbers.
// PyTorch's caching allocator, every wording since torch 1.0 (ROCm builds print "HIP out of memory"):
//   ≥ 2.1: "Tried to allocate <sz>. GPU <i> has a total capacity of <sz> of which <sz> is free.
//           [Process <pid> has <sz> memory in use. ]… [Including non-PyTorch memory, this process has <sz>
//           memory in use.] Of the allocated memory <sz> is allocated by PyTorch, and <sz> is reserved by
//           PyTorch but unallocated."   (~2.1 spells "total capacty"; ≥ 2.4 adds ", with <sz> allocated in
//           private pools (e.g., CUDA Graphs)," after "by PyTorch"). The "Process <pid>" sentences are the
//           OTHER processes on the GPU (NVML's list; the process itself is "this process").
//   ≤ 2.0: "Tried to allocate <sz> (GPU <i>; <sz> total capacity; <sz> already allocated; <sz> free;
//           <sz> reserved in total by PyTorch)"   (1.0–1.3: "<sz> cached", which was the allocator's reserve
//           minus the allocated memory — "memory held by the allocator but not used by the program", as the
//           allocator's own comment says — so reserved = allocated + cached)
//   2.0 under a memory fraction: "Allocation on device <i> would exceed allowed memory. (out of memory)
//           Currently allocated : <sz> Requested : <sz> Device limit : <sz> Free (according to CUDA): <sz> …"
// And the OOMs that carry no figures: a CUDA call's "CUDA error: out of memory", cuBLAS's
// CUBLAS_STATUS_ALLOC_FAILED (its workspace), NCCL's "Cuda failure 'out of memory'".
// Sizes are binary units as PyTorch prints them (1 MiB = 2^20 bytes; 1.x wrote "MiB" too).

export interface OomInfo {
  exception: string;
  tried_bytes: number | null;
  gpu: number | null;
  capacity_bytes: number | null;
  free_bytes: number | null;
  /** Memory the whole process holds on the GPU (PyTorch and not): "this process has … memory in use". */
  process_bytes: number | null;
  /** This process's pid, where it is inferred among the "Process <pid>" entries (selfAmongOthers). */
  process_pid?: number;
  /** The other processes on the GPU and what each holds ("Process <pid> has … memory in use", torch ≥ 2.1). */
  other_processes: { pid: number; bytes: number | null }[] | null;
  /** Their sum: memory this process could never have had. */
  other_processes_bytes: number | null;
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
const PROCESS = new RegExp(`Process (\\d+) has ${SZ} memory in use`, 'g');
/** NVML lists every process on the GPU; a message names a few. Past this many, the rest are not kept. */
const MAX_OTHER_PROCESSES = 64;
const THIS_PROCESS = rx(`this process has ${SZ} memory in use`);
// torch ≥ 2.4 names the CUDA graphs' share between the two: "…is allocated by PyTorch, with 1.10 GiB allocated
// in private pools (e.g., CUDA Graphs), and …" (part of the allocated figure, not added to it).
const ALLOCATED = rx(`Of the allocated memory ${SZ} is allocated by PyTorch,(?: with [0-9.]+ ?[KMGT]?i?B allocated in private pools \\([^)]{0,40}\\),)? and ${SZ} is reserved by PyTorch but unallocated`);
const OLD = rx(`\\(GPU (\\d+); ${SZ} total capacity; ${SZ} already allocated; ${SZ} free;(?: ${SZ} reserved in total by PyTorch| ${SZ} cached)`);
// torch 2.0's message under set_per_process_memory_fraction (its lines joined, or escaped in one as "\n").
const FRACTION_DEVICE = /Allocation on device (\d+) would exceed allowed memory/;
const fractionField = (label: string) => rx(`${label}\\s*:\\s*${SZ}`);
const FRACTION_FIELDS = { allocated: fractionField('Currently allocated'), tried: fractionField('Requested'), capacity: fractionField('Device limit'), free: fractionField('Free \\(according to CUDA\\)') };
/**
 * The exception named right before the OOM text, read from a bounded window before each mention:
 * unanchored, `[A-Za-z_.]*` is tried from every letter of a long run of letters (quadratic: 64 KiB of
 * letters took 18 s, a 1 MiB line hours). No exception's dotted name is near EXCEPTION_WINDOW long.
 * `OutOfMemoryError('CUDA out of …` (an exception's repr, as vLLM logs a worker's failure) counts too.
 */
const EXCEPTION_BEFORE = /([A-Za-z_.]*(?:OutOfMemoryError|RuntimeError|Error|Exception))\s*(?::\s*|\(['"])$/;
const EXCEPTION_WINDOW = 160;
/** The messages, most common first; each is a plain substring (a line is tested against each, no regex). */
// (NCCL's "Failed to CUDA calloc N bytes" follows its "Cuda failure" line: the same failure, not a second.)
const OOM_TEXTS = ['CUDA out of memory', 'HIP out of memory', 'CUDA error: out of memory', 'would exceed allowed memory. (out of memory)', 'CUBLAS_STATUS_ALLOC_FAILED', "Cuda failure 'out of memory'"];

/** The first OOM message a line holds, or null. */
function oomText(line: string): string | null {
  for (const t of OOM_TEXTS) if (line.includes(t)) return t;
  return null;
}

function exceptionName(text: string, phrase: string): string | null {
  // A few mentions at most: a line repeating the phrase has its answer (or none) in the first ones.
  for (let i = text.indexOf(phrase), k = 0; i >= 0 && k < 8; i = text.indexOf(phrase, i + 1), k++) {
    const m = EXCEPTION_BEFORE.exec(text.slice(Math.max(0, i - EXCEPTION_WINDOW), i));
    if (m) return m[1];
  }
  return null;
}

/**
 * An allocator's message cut before its figures (a terminal's hard wrap after "(GPU 0;", a paste): it asks for
 * memory but neither the capacity sentence (≥ 2.1) nor the parenthesis (≤ 2.0) is whole on this line.
 */
export function oomIsCut(text: string): boolean {
  // (torch 2.0's memory-fraction message puts each figure on a line of its own.)
  if (FRACTION_DEVICE.test(text)) return !FRACTION_FIELDS.tried.test(text);
  return TRIED.test(text) && !NEW_CAP.test(text) && !OLD.test(text);
}

/** A wrapped line of an OOM message: it carries one of its figures or words. */
export const OOM_CONTINUATION = /\d(?:\.\d+)? ?(?:[KMGT]i?B|bytes)\b|total capac|already allocated|reserved|is free|memory in use|allocated by PyTorch|^\s*(?:GPU \d|\(GPU|Currently allocated|Requested|Device limit|Free \(according|PyTorch limit)/;

/** True for a line that carries an OOM message (cheap test before parseOom). */
export function isOomLine(line: string): boolean {
  return oomText(line) !== null;
}

/**
 * In a container NVML lists the host's pids, so PyTorch cannot tell itself among them: every process is a
 * "Process N" and no sentence says "this process". The one that holds at least PyTorch's own reserve (the
 * nearest above it) is then this process; without the reserve nothing is inferred.
 */
function selfAmongOthers(info: OomInfo, others: { pid: number; bytes: number | null }[]): void {
  const reserve = info.reserved_bytes;
  if (reserve === null) return;
  let self = -1;
  others.forEach((o, i) => {
    if (o.bytes !== null && o.bytes >= reserve && (self < 0 || o.bytes < others[self].bytes!)) self = i;
  });
  if (self < 0) return;
  info.process_bytes = others[self].bytes;
  info.process_pid = others[self].pid;
  setOthers(info, others.filter((_, i) => i !== self));
}

/** The other processes on the GPU and their sum; none: both null. */
function setOthers(info: OomInfo, others: { pid: number; bytes: number | null }[]): void {
  info.other_processes = others.length ? others : null;
  info.other_processes_bytes = others.length ? others.reduce((sum, o) => sum + (o.bytes ?? 0), 0) : null;
}

export function parseOom(text: string): OomInfo | null {
  const phrase = oomText(text);
  if (phrase === null) return null;
  const info: OomInfo = {
    exception: exceptionName(text, phrase) ?? phrase,
    tried_bytes: null,
    gpu: null,
    capacity_bytes: null,
    free_bytes: null,
    process_bytes: null,
    other_processes: null,
    other_processes_bytes: null,
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
    const others: { pid: number; bytes: number | null }[] = [];
    PROCESS.lastIndex = 0;
    for (let p = PROCESS.exec(text); p && others.length < MAX_OTHER_PROCESSES; p = PROCESS.exec(text)) others.push({ pid: Number(p[1]), bytes: size(p[2], p[3]) });
    setOthers(info, others);
    const tp = THIS_PROCESS.exec(text);
    if (tp) info.process_bytes = size(tp[1], tp[2]);
    const a = ALLOCATED.exec(text);
    if (a) {
      info.allocated_bytes = size(a[1], a[2]);
      info.reserved_unallocated_bytes = size(a[3], a[4]);
      info.reserved_bytes = info.allocated_bytes! + info.reserved_unallocated_bytes!;
    }
    if (!tp && info.other_processes) selfAmongOthers(info, info.other_processes);
    return info;
  }
  const old = OLD.exec(text);
  if (old) {
    info.gpu = Number(old[1]);
    info.capacity_bytes = size(old[2], old[3]);
    info.allocated_bytes = size(old[4], old[5]);
    info.free_bytes = size(old[6], old[7]);
    if (old[8] !== undefined) {
      info.reserved_bytes = size(old[8], old[9]);
      if (info.reserved_bytes !== null && info.allocated_bytes !== null) info.reserved_unallocated_bytes = Math.max(0, info.reserved_bytes - info.allocated_bytes);
    } else {
      // 1.0–1.3's "cached" is the reserve beyond the allocated memory (see the head of this file).
      info.reserved_unallocated_bytes = size(old[10], old[11]);
      if (info.reserved_unallocated_bytes !== null && info.allocated_bytes !== null) info.reserved_bytes = info.allocated_bytes + info.reserved_unallocated_bytes;
    }
    return info;
  }
  const dev = FRACTION_DEVICE.exec(text);
  if (dev) {
    info.gpu = Number(dev[1]);
    const f = (re: RegExp) => {
      const m = re.exec(text);
      return m ? size(m[1], m[2]) : null;
    };
    info.allocated_bytes = f(FRACTION_FIELDS.allocated);
    info.tried_bytes = f(FRACTION_FIELDS.tried);
    info.capacity_bytes = f(FRACTION_FIELDS.capacity);
    info.free_bytes = f(FRACTION_FIELDS.free);
  }
  return info;
}
