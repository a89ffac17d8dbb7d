// Kernel logs: `dmesg` ("[ 1234.567890] msg"), `dmesg -T` / `--ctime` ("[Fri Aug 30 11:43:09 2024] msg"),
// syslog / journald short ("May 18 19:02:39 host kernel: msg", host optional), journald short-iso
// ("2024-05-18T19:02:39+0000 host kernel: msg") and bare lines (no prefix).
// Times: -T/--ctime and syslog are local time (ctx.options.tzOffsetMinutes, default UTC); syslog has no
// year (log-time.ts rules). Relative dmesg seconds count from boot, which the file does not say: the boot
// time is taken as mtime − the largest seconds value (dmesg was saved right after its last message),
// with a warning, since an old file copied later shifts everything; without an mtime, the import time.
// Bare lines take the previous line's time (or, before any, the first time seen or the mtime).
//
// Events: xid — severity by code — attrs code, bus_id ("0000:3b:00", PCI function dropped), pid, name
//   (process; null when absent or '<unknown>'), meaning, class ('hardware'|'software'|'secondary'),
//   message (the driver's text after the code), gpu_uuid (from an earlier "NVRM: GPU at PCI:… GPU-…"
//   line, when there is one);
//   host_oom_kill — error — pid, name, anon_rss_bytes (the kernel OOM killer: host RAM, not GPU);
//   gpu_fallen_off — critical — bus_id ("GPU has fallen off the bus" without an Xid);
//   log — info ('warning' for lines naming NVRM/nvidia) — every other non-empty line.
// Samples: gpu.xid (value = the Xid code, label bus_id, metric "kernel-log:NVRM Xid") at each Xid.
import type { Severity } from '../../contract/types';
import { GarbageGuard } from './garbage-guard';
import { headLines, lineBatches } from './line-reader';
import { LogClock, monthNumber, parseIsoZoned } from './log-time';
import { ImportError, type EntryInput, type EventRecord, type ImportContext, type Importer, type Sink } from './types';
import { xidInfo } from './xid-codes';

const DMESG_REL = /^\[\s*(\d+(?:\.\d+)?)\]\s?/;
const DMESG_T = /^\[(?:\w{3} )?(\w{3}) +(\d{1,2}) (\d\d):(\d\d):(\d\d) (\d{4})\]\s?/;
const SYSLOG = /^(\w{3}) +(\d{1,2}) (\d\d):(\d\d):(\d\d)(?:\.(\d+))? (?:([^\s:]+) )?([^\s:[]+)(?:\[\d+\])?: /;
const ISO = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)) (?:([^\s:]+) )?([^\s:[]+)(?:\[\d+\])?: /;
const XID = /NVRM: Xid \((?:PCI:)?([0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2})(?:\.\d)?\): (\d+),\s*(.*)$/;
const GPU_AT = /NVRM: GPU at (?:PCI:)?([0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2})(?:\.\d)?: (GPU-[0-9a-fA-F-]+)/;
const FALLEN = /NVRM: GPU (?:at PCI:)?([0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2})(?:\.\d)?: GPU has fallen off the bus/;
const MAX_PENDING = 1_000_000;
const OOM_KILL = /Out of memory: Kill(?:ed)? process (\d+) \(([^)]*)\)(?:.*?anon-rss:(\d+)kB)?/;

export interface XidFields {
  code: number;
  bus_id: string;
  pid: number | null;
  name: string | null;
  message: string;
}

/** The parts of an "NVRM: Xid (PCI:…): code, [pid=…, ][name=…, ]text" message; null if not one. */
export function parseXid(text: string): XidFields | null {
  const m = XID.exec(text);
  if (!m) return null;
  let rest = m[3];
  let pid: number | null = null;
  let name: string | null = null;
  const pm = /^pid=('?)([^,']*)\1,\s*/.exec(rest);
  if (pm) {
    pid = /^\d+$/.test(pm[2]) ? Number(pm[2]) : null;
    rest = rest.slice(pm[0].length);
  }
  const nm = /^name=([^,]*),\s*/.exec(rest);
  if (nm) {
    name = nm[1] === '<unknown>' ? null : nm[1];
    rest = rest.slice(nm[0].length);
  }
  return { code: Number(m[2]), bus_id: m[1].toLowerCase(), pid, name, message: rest.trim() };
}

interface Pending {
  rel: number | null;
  event: EventRecord;
  xid: { code: number; bus_id: string } | null;
}

class KernelParser {
  private readonly clock: LogClock;
  private readonly guard: GarbageGuard;
  private lastTs = NaN;
  private maxRel = -Infinity;
  private readonly pending: Pending[] = [];
  private pendingRel = false;
  private readonly uuids = new Map<string, string>();
  private readonly xidSeries = new Map<string, number>();

  constructor(private readonly sink: Sink, private readonly ctx: ImportContext) {
    this.clock = new LogClock(ctx);
    this.guard = new GarbageGuard(ctx, 'a kernel log');
  }

  line(line: string, no: number): void {
    if (!line.trim()) return;
    if (line.includes('\u0000') || line.includes('\uFFFD')) {
      this.guard.malformed(no, 'binary or undecodable bytes in a log line');
      return;
    }
    this.guard.ok();
    let ts = NaN;
    let rel: number | null = null;
    let body = line;
    let m: RegExpExecArray | null;
    if ((m = DMESG_T.exec(line))) {
      const mon = monthNumber(m[1]);
      if (mon) ts = this.clock.local(+m[6], mon, +m[2], +m[3], +m[4], +m[5]);
      body = line.slice(m[0].length);
    } else if ((m = DMESG_REL.exec(line))) {
      rel = Number(m[1]);
      if (rel > this.maxRel) this.maxRel = rel;
      body = line.slice(m[0].length);
    } else if ((m = ISO.exec(line))) {
      ts = parseIsoZoned(m[1]);
      body = line.slice(m[0].length);
    } else if ((m = SYSLOG.exec(line)) && monthNumber(m[1])) {
      ts = this.clock.yearless(monthNumber(m[1])!, +m[2], +m[3], +m[4], +m[5], m[6] ? Number((m[6] + '00').slice(0, 3)) : 0, no);
      body = line.slice(m[0].length);
    }
    if (Number.isFinite(ts)) {
      this.lastTs = ts;
      this.drainUntimed(ts);
    }
    const { event, xid } = this.classify(body, no);
    if (rel !== null || (!Number.isFinite(ts) && !Number.isFinite(this.lastTs))) {
      if (this.pending.length >= MAX_PENDING) throw new ImportError(this.ctx.path, { line: no }, `over ${MAX_PENDING} lines with boot-relative times: split the dmesg or export it with dmesg -T`);
      this.pending.push({ rel, event, xid });
      if (rel !== null) this.pendingRel = true;
      return;
    }
    this.emit(Number.isFinite(ts) ? ts : this.lastTs, event, xid);
  }

  private classify(body: string, no: number): { event: EventRecord; xid: Pending['xid'] } {
    const x = parseXid(body);
    if (x) {
      const info = xidInfo(x.code);
      const attrs: Record<string, unknown> = { code: x.code, bus_id: x.bus_id, pid: x.pid, name: x.name, meaning: info.meaning, class: info.class, message: x.message };
      const uuid = this.uuids.get(x.bus_id);
      if (uuid) attrs.gpu_uuid = uuid;
      return { event: { ts_ms: 0, kind: 'xid', severity: info.severity, line: no, text: body, attrs }, xid: { code: x.code, bus_id: x.bus_id } };
    }
    const at = GPU_AT.exec(body);
    if (at) this.uuids.set(at[1].toLowerCase(), at[2]);
    const fallen = FALLEN.exec(body);
    if (fallen) return { event: { ts_ms: 0, kind: 'gpu_fallen_off', severity: 'critical', line: no, text: body, attrs: { bus_id: fallen[1].toLowerCase() } }, xid: null };
    const oom = OOM_KILL.exec(body);
    if (oom) {
      const attrs = { pid: Number(oom[1]), name: oom[2], anon_rss_bytes: oom[3] ? Number(oom[3]) * 1024 : null };
      return { event: { ts_ms: 0, kind: 'host_oom_kill', severity: 'error', line: no, text: body, attrs }, xid: null };
    }
    const severity: Severity = /NVRM|nvidia/i.test(body) ? 'warning' : 'info';
    return { event: { ts_ms: 0, kind: 'log', severity, line: no, text: body, attrs: {} }, xid: null };
  }

  private emit(ts: number, e: EventRecord, xid: Pending['xid']): void {
    this.sink.event({ ...e, ts_ms: ts });
    if (!xid) return;
    let id = this.xidSeries.get(xid.bus_id);
    if (id === undefined) {
      id = this.sink.series({ name: 'gpu.xid', labels: { bus_id: xid.bus_id, metric: 'kernel-log:NVRM Xid' }, unit: 'code', kind: 'gauge' });
      this.xidSeries.set(xid.bus_id, id);
    }
    this.sink.sample(id, ts, xid.code);
  }

  /** Untimed lines seen before the first wall-clock time take that time. */
  private drainUntimed(ts: number): void {
    if (!this.pending.length || this.pendingRel) return;
    for (const p of this.pending.splice(0)) this.emit(ts, p.event, p.xid);
  }

  finish(lastLine: number): void {
    if (this.pending.length) {
      const end = this.clock.fallback(lastLine);
      if (this.pendingRel) this.ctx.warn(`dmesg times are seconds since boot: boot time assumed to be the file's modification time minus ${this.maxRel.toFixed(1)} s (the last message)`);
      const boot = end - (Number.isFinite(this.maxRel) ? this.maxRel * 1000 : 0);
      let last = boot;
      for (const p of this.pending) {
        const ts = p.rel !== null ? boot + p.rel * 1000 : Number.isFinite(this.lastTs) ? this.lastTs : last;
        last = ts;
        this.emit(ts, p.event, p.xid);
      }
      this.pending.length = 0;
    }
    this.guard.finish(lastLine);
  }
}

export async function importKernelLog(input: EntryInput, sink: Sink, ctx: ImportContext): Promise<void> {
  const p = new KernelParser(sink, ctx);
  let no = 0;
  for await (const batch of lineBatches(input.stream())) for (const l of batch) p.line(l, ++no);
  p.finish(no);
}

export function detectKernelLog(head: Buffer): number {
  const lines = headLines(head).filter((l) => l.trim());
  if (!lines.length) return 0;
  const nvrm = lines.filter((l) => l.includes('NVRM:')).length;
  const prefixed = lines.filter((l) => DMESG_REL.test(l) || DMESG_T.test(l) || / kernel: /.test(l)).length;
  if (nvrm > 0) return 0.9;
  return prefixed / lines.length >= 0.5 ? 0.6 : 0;
}

export const kernelLogImporter: Importer = {
  format: 'kernel-log',
  yearless: true,
  detect: (head) => detectKernelLog(head),
  import: importKernelLog,
};
