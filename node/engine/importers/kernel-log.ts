// Kernel logs: `dmesg` ("[ 1234.567890] msg"), `dmesg -T` / `--ctime` ("[Fri Aug 30 11:43:09 2024] msg"),
// `dmesg --time-format=iso` ("2025-01-21T04:41:44,283302+00:00 msg"), any of them behind `dmesg --decode`'s
// "kern  :warn  : " or a `<4>` priority (pstore dumps, after their "Panic#1 Part1" header), /dev/kmsg
// records ("4,1234,1126630000,-;msg": µs since boot; " KEY=value" continuation lines skipped), syslog /
// journald short ("May 18 19:02:39 host kernel: msg", host optional), journald short-iso
// ("2024-05-18T19:02:39+0000 host kernel: msg") and short-full ("Fri 2025-02-14 05:03:41 UTC host kernel: msg"),
// RFC 5424 syslog ("<4>1 2025-02-14T05:03:42.654321+00:00 host kernel - - - msg") and bare lines (no prefix). A line's level (--decode,
// <N>, kmsg) sets its event's severity (attr level 0–7); driver (NVRM/nvidia) lines are at least warnings.
// Detection reads every line of the head: a pstore dump's NVRM lines come after hundreds of boot lines.
// Times: -T/--ctime and syslog are local time (ctx.options.tzOffsetMinutes, default UTC); syslog has no
// year (log-time.ts rules). Relative dmesg seconds count from boot, which the file does not say: the boot
// time is taken as mtime − the largest seconds value (dmesg was saved right after its last message),
// with a warning, since an old file copied later shifts everything. Where the mtime lies a day or more from
// the bundle's other sources (a copy's), or there is none, their end stands for it; without either, the import time.
// Bare lines take the previous line's time (or, before any, the first time seen or the mtime, warned).
//
// Events: xid — severity by code — attrs code, bus_id ("0000:3b:00", PCI function dropped), pid, name
//   (process; null when absent or '<unknown>'), meaning, class ('hardware'|'software'|'secondary'),
//   message (the driver's text after the code), caused_by (the Xid a cleanup Xid names: "caused by previous
//   Xid 149"), gpu_uuid (from an earlier "NVRM: GPU at PCI:… GPU-…" line, when there is one);
//   host_oom_kill — error — pid, name, anon_rss_bytes (the kernel OOM killer: host RAM, not GPU);
//   gpu_fallen_off — critical — bus_id ("GPU has fallen off the bus" without an Xid, or newer drivers'
//     three lines "The NVIDIA GPU <bus>" … "fallen off the bus");
//   sxid — critical (Fatal) / warning (Non-fatal) / error (no verdict line) — code, bus_id, fatal (null: not
//     said), message: NVSwitch SXid errors (a switch's detail lines after its verdict stay log lines);
//   log — info ('warning' for lines naming NVRM/nvidia) — every other non-empty line.
// Samples: gpu.xid (value = the Xid code, label bus_id, metric "kernel-log:NVRM Xid") at each Xid; of a bus's
//   Xids within one ms (one sample), the first stands unless a later one outranks it (hardware, then severity).
import type { Severity } from '../../../common/contract/types';
import { GarbageGuard } from './garbage-guard';
import { headLines, lineBatches } from './line-reader';
import { LogClock, instantMs, monthNumber, parseIsoZoned } from './log-time';
import { ImportError, type EntryInput, type EventRecord, type ImportContext, type Importer, type Sink } from './types';
import { xidInfo } from './xid-codes';

const DMESG_REL = /^\[\s*(\d+(?:\.\d+)?)\](?:\[\s*[TC]\d+\])?\s?/;
/** dmesg's own seconds always have a fraction; `[80746]` alone (a pid, a paste's numbering) is not one. */
const DMESG_REL_STRICT = /^\[\s*\d+\.\d+\]/;
/** `dmesg --time-format=iso`: `2025-01-21T04:41:44,283302+00:00 ` (comma before the µs). */
const DMESG_ISO = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d,\d+(?:Z|[+-]\d\d:?\d\d)) /;
/** `dmesg --decode` / `-x`: `kern  :warn  : ` before the time. */
const DECODE = /^(kern|user|mail|daemon|auth|syslog|lpr|news|uucp|cron|authpriv|ftp|local[0-7])\s*:(emerg|alert|crit|err|warn|notice|info|debug)\s*: /;
/** A syslog priority `<4>` (pstore dumps, /proc/kmsg): facility × 8 + level. */
const PRIORITY = /^<(\d{1,3})>/;
/** A /dev/kmsg record: `priority,sequence,µs since boot,flags[,…];message`; continuation lines (` KEY=value`) follow. */
const KMSG = /^(\d{1,3}),(\d+),(\d+),[^;]*;/;
const KMSG_CONT = /^ [A-Z_]+=/;
/** pstore's record header (`Panic#1 Part1`, `Oops#2 Part1`). */
const PSTORE_HEADER = /^(?:Panic|Oops|Emergency|Shutdown|Unknown)#\d+ Part\d+$/;
const LEVEL_SEVERITY: Severity[] = ['critical', 'critical', 'critical', 'error', 'warning', 'info', 'info', 'debug'];
const SEVERITY_RANK: Record<Severity, number> = { debug: 0, info: 1, warning: 2, error: 3, critical: 4 };
const CLASS_RANK = { secondary: 0, software: 1, hardware: 2 } as const;
/** How an Xid ranks among those of one ms: its class (hardware first), then its severity. */
const xidRank = (code: number) => {
  const x = xidInfo(code);
  return CLASS_RANK[x.class] * 10 + SEVERITY_RANK[x.severity];
};
const DECODE_LEVEL: Record<string, number> = { emerg: 0, alert: 1, crit: 2, err: 3, warn: 4, notice: 5, info: 6, debug: 7 };
const DMESG_T = /^\[(?:\w{3} )?(\w{3}) +(\d{1,2}) (\d\d):(\d\d):(\d\d) (\d{4})\]\s?/;
const SYSLOG = /^(\w{3}) +(\d{1,2}) (\d\d):(\d\d):(\d\d)(?:\.(\d+))? (?:([^\s:]+) )?([^\s:[]+)(?:\[\d+\])?: /;
const ISO = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)) (?:([^\s:]+) )?([^\s:[]+)(?:\[\d+\])?: /;
/**
 * A PCI address as an Xid or "GPU at" line writes it: `0000:3b:00[.0]` from the driver, but the code is the fault
 * whatever wrote the address — an 8-digit domain (`00000000:18:00.0`, nvidia-smi's form) or one cut short
 * (`0000:18:`, a shipper's or a script's rewrite) is kept as written, and the two lines join on it alike.
 */
const PCI_ADDR = String.raw`(?:PCI:)?([0-9a-fA-F]{1,8}(?::[0-9a-fA-F]{0,2}){1,2})(?:\.\d)?`;
const XID = new RegExp(String.raw`NVRM: Xid \(${PCI_ADDR}\): (\d+),\s*(.*)$`);
const GPU_AT = new RegExp(String.raw`NVRM: GPU at ${PCI_ADDR}: (GPU-[0-9a-fA-F-]+)`);
const FALLEN = /NVRM: GPU (?:at PCI:)?([0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2})(?:\.\d)?: GPU has fallen off the bus/;
/** Newer drivers say it over three lines: `NVRM: The NVIDIA GPU 0000:b3:00.0` / `… installed in this system has` / `… fallen off the bus and is not responding to commands.` */
const FALLEN_FIRST = /NVRM: The NVIDIA GPU ([0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2})(?:\.\d)?\s*$/;
const FALLEN_LAST = /NVRM: fallen off the bus/;
/** NVSwitch errors: `nvidia-nvswitch3: SXid (PCI:0000:c3:00.0): 20034, Fatal, Link 62 LTSSM Fault Up`. */
const SXID = /SXid \((?:PCI:)?([0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2})(?:\.\d)?\): (\d+), (?:(Fatal|Non-fatal), )?(.*)$/;
/** RFC 5424 syslog after its `<PRI>`: `1 <time> <host> <app> <procid> <msgid> <structured data or -> `. */
const RFC5424 = /^1 (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)) \S+ \S+ \S+ \S+ (?:-|(?:\[[^\]]*\])+) ?/;
/** journalctl -o short-full: `Fri 2025-02-14 05:03:41 UTC host kernel: `; a zone other than UTC/GMT or ±hhmm is read as local time. */
const SHORT_FULL = /^\w{3} (\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d+))? (UTC|GMT|[+-]\d{4}|[A-Z]{2,5}) (?:([^\s:]+) )?([^\s:[]+)(?:\[\d+\])?: /;
const MAX_PENDING = 1_000_000;
/** Switch × code pairs remembered (a fabric has tens of switches and a handful of codes). */
const MAX_SXID_KEYS = 4096;
// The process name is the kernel's comm (at most 15 bytes): bounded, so a line repeating "Out of memory:
// Kill process 1 (" with no ")" is not scanned to its end from every mention (quadratic).
/**
 * The OOM killer's verdict: `Out of memory: Killed process …`, or a container's `Memory cgroup out of memory:
 * Killed process …`. Kernels before 5.x say it over two lines — `Out of memory: Kill process 123 (python3) score … or sacrifice
 * child`, then `Killed process 123 (python3) total-vm:…, anon-rss:…` (RHEL 6: `Killed process 123, UID 48,
 * (httpd) …`) — newer ones in one, `Out of memory: Killed process …`. A comm may hold parentheses itself:
 * `((resolved))`.
 */
const OOM_KILL = /(?:[Oo]ut of memory: Kill(?:ed)? process|^Killed process) (\d+),? (?:UID \d+, )?\((\(?[^()\n]{0,64}\)?)\)(?:.*?anon-rss:([\d,]+)kB)?/;
/** Lines after an OOM killer's verdict within which a `Killed process` line of the same pid is that kill's. */
const OOM_KILL_LINES = 50;
/** An Xid raised by the driver's cleanup names the Xid it follows (`Ch 00000001 caused by previous Xid 149`). */
const CAUSED_BY = /caused by previous Xid (\d+)/;

export interface XidFields {
  code: number;
  bus_id: string;
  pid: number | null;
  name: string | null;
  message: string;
  /** The Xid this one says caused it (45's "caused by previous Xid 149"): the fault is that one. */
  caused_by: number | null;
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
  const cause = CAUSED_BY.exec(rest);
  return { code: Number(m[2]), bus_id: m[1].toLowerCase(), pid, name, message: rest.trim(), caused_by: cause ? Number(cause[1]) : null };
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
  /** Per bus: the ms and code of its last gpu.xid sample (the store keeps one value a ms: see emit). */
  private readonly xidLast = new Map<string, { ts: number; code: number }>();
  /** The OOM killer's last kill (pid, line): its second line is not a second kill. */
  private lastKill: { pid: number; line: number } | null = null;
  /** The switches and codes whose SXid verdict line was seen (their detail lines follow it). */
  private readonly sxids = new Set<string>();
  /** The file is /dev/kmsg records. */
  private kmsg = false;
  /** The bus and line of a three-line "The NVIDIA GPU … fallen off the bus" being read. */
  private fallen: { bus: string; no: number } | null = null;

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
    // /dev/kmsg's continuation lines (` SUBSYSTEM=pci`, ` DEVICE=+pci:…`) describe the record above.
    if (this.kmsg && KMSG_CONT.test(line)) return;
    let ts = NaN;
    let rel: number | null = null;
    let body = line;
    let level = -1;
    let m: RegExpExecArray | null;
    if ((m = DECODE.exec(body))) {
      level = DECODE_LEVEL[m[2]];
      body = body.slice(m[0].length);
    } else if ((m = PRIORITY.exec(body))) {
      level = Number(m[1]) & 7;
      body = body.slice(m[0].length);
    } else if ((m = KMSG.exec(body))) {
      this.kmsg = true;
      level = Number(m[1]) & 7;
      rel = Number(m[3]) / 1e6;
      if (rel > this.maxRel) this.maxRel = rel;
      body = body.slice(m[0].length);
    }
    if (rel !== null) {
      // (a /dev/kmsg record: its time was read above)
    } else if ((m = DMESG_T.exec(body))) {
      const mon = monthNumber(m[1]);
      if (mon) ts = this.clock.local(+m[6], mon, +m[2], +m[3], +m[4], +m[5], 0, no);
      body = body.slice(m[0].length);
    } else if ((m = DMESG_REL.exec(body))) {
      rel = Number(m[1]);
      if (rel > this.maxRel) this.maxRel = rel;
      body = body.slice(m[0].length);
    } else if ((m = DMESG_ISO.exec(body))) {
      ts = parseIsoZoned(m[1]);
      body = body.slice(m[0].length);
    } else if ((m = ISO.exec(body))) {
      ts = parseIsoZoned(m[1]);
      body = body.slice(m[0].length);
    } else if ((m = RFC5424.exec(body))) {
      ts = parseIsoZoned(m[1]);
      body = body.slice(m[0].length);
    } else if ((m = SHORT_FULL.exec(body))) {
      const ms = m[7] ? Number((m[7] + '00').slice(0, 3)) : 0;
      const zone = m[8];
      if (zone === 'UTC' || zone === 'GMT') ts = parseIsoZoned(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z`) + ms;
      else if (zone[0] === '+' || zone[0] === '-') ts = parseIsoZoned(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}${zone}`) + ms;
      else ts = this.clock.local(+m[1], +m[2], +m[3], +m[4], +m[5], +m[6], ms, no);
      body = body.slice(m[0].length);
    } else if ((m = SYSLOG.exec(body)) && monthNumber(m[1])) {
      ts = this.clock.yearless(monthNumber(m[1])!, +m[2], +m[3], +m[4], +m[5], m[6] ? Number((m[6] + '00').slice(0, 3)) : 0, no);
      body = body.slice(m[0].length);
    }
    if (Number.isFinite(ts)) {
      this.lastTs = ts;
      this.drainUntimed(ts);
    }
    const { event, xid } = this.classify(body, no, level);
    if (rel !== null || (!Number.isFinite(ts) && !Number.isFinite(this.lastTs))) {
      if (this.pending.length >= MAX_PENDING) throw new ImportError(this.ctx.path, { line: no }, `over ${MAX_PENDING} lines with boot-relative times: split the dmesg or export it with dmesg -T`);
      this.pending.push({ rel, event, xid });
      if (rel !== null) this.pendingRel = true;
      return;
    }
    this.emit(Number.isFinite(ts) ? ts : this.lastTs, event, xid);
  }

  private classify(body: string, no: number, level: number): { event: EventRecord; xid: Pending['xid'] } {
    const x = parseXid(body);
    if (x) {
      const info = xidInfo(x.code);
      const attrs: Record<string, unknown> = { code: x.code, bus_id: x.bus_id, pid: x.pid, name: x.name, meaning: info.meaning, class: info.class, message: x.message };
      if (x.caused_by !== null) attrs.caused_by = x.caused_by;
      const uuid = this.uuids.get(x.bus_id);
      if (uuid) attrs.gpu_uuid = uuid;
      return { event: { ts_ms: 0, kind: 'xid', severity: info.severity, line: no, text: body, attrs }, xid: { code: x.code, bus_id: x.bus_id } };
    }
    const at = GPU_AT.exec(body);
    if (at) this.uuids.set(at[1].toLowerCase(), at[2]);
    const fallen = FALLEN.exec(body);
    if (fallen) return { event: { ts_ms: 0, kind: 'gpu_fallen_off', severity: 'critical', line: no, text: body, attrs: { bus_id: fallen[1].toLowerCase() } }, xid: null };
    const first = FALLEN_FIRST.exec(body);
    if (first) this.fallen = { bus: first[1].toLowerCase(), no };
    else if (this.fallen && no - this.fallen.no <= 3 && FALLEN_LAST.test(body)) {
      const bus = this.fallen.bus;
      this.fallen = null;
      return { event: { ts_ms: 0, kind: 'gpu_fallen_off', severity: 'critical', line: no, text: body.trim(), attrs: { bus_id: bus } }, xid: null };
    }
    const sx = SXID.exec(body);
    // An SXid is one line with its Fatal / Non-fatal verdict; the lines after it with the same switch and code
    // (`Data {…}`, `Severity 5 Engine instance …`) are its details, kept as log lines. A line of those with no
    // verdict line of its switch and code before it (a grep, a paste of one line) is the SXid itself, its
    // verdict unknown.
    if (sx) {
      const key = `${sx[1].toLowerCase()} ${sx[2]}`;
      if (sx[3] !== undefined || !this.sxids.has(key)) {
        if (this.sxids.size < MAX_SXID_KEYS) this.sxids.add(key);
        // NVSwitch errors: Fatal ones take the fabric's links down (gpu_hardware_fault reads them).
        const fatal = sx[3] === undefined ? null : sx[3] === 'Fatal';
        const attrs = { code: Number(sx[2]), bus_id: sx[1].toLowerCase(), fatal, message: sx[4].trim() };
        return { event: { ts_ms: 0, kind: 'sxid', severity: fatal === true ? 'critical' : fatal === null ? 'error' : 'warning', line: no, text: body, attrs }, xid: null };
      }
    }
    const oom = OOM_KILL.exec(body.trimStart());
    if (oom) {
      const attrs = { pid: Number(oom[1]), name: oom[2], anon_rss_bytes: oom[3] ? Number(oom[3].replace(/,/g, '')) * 1024 : null };
      // The second line of an older kernel's kill (its `Killed process` after `Out of memory: Kill process`): one kill.
      const same = this.lastKill !== null && this.lastKill.pid === attrs.pid && no - this.lastKill.line <= OOM_KILL_LINES;
      this.lastKill = { pid: attrs.pid, line: no };
      if (!same) return { event: { ts_ms: 0, kind: 'host_oom_kill', severity: 'error', line: no, text: body, attrs }, xid: null };
      return { event: { ts_ms: 0, kind: 'log', severity: 'error', line: no, text: body, attrs: { ...attrs, of: 'host_oom_kill' } }, xid: null };
    }
    // The line's own level where it has one (--decode, <N>, kmsg), never below warning for the driver's lines.
    let severity: Severity = level >= 0 ? LEVEL_SEVERITY[level] : 'info';
    if (/NVRM|nvidia/i.test(body) && (severity === 'info' || severity === 'debug')) severity = 'warning';
    const attrs: Record<string, unknown> = {};
    if (level >= 0) attrs.level = level;
    if (PSTORE_HEADER.test(body)) attrs.pstore = true;
    return { event: { ts_ms: 0, kind: 'log', severity, line: no, text: body, attrs }, xid: null };
  }

  private emit(ts: number, e: EventRecord, xid: Pending['xid']): void {
    this.sink.event({ ...e, ts_ms: ts });
    if (!xid) return;
    let id = this.xidSeries.get(xid.bus_id);
    if (id === undefined) {
      id = this.sink.series({ name: 'gpu.xid', labels: { bus_id: xid.bus_id, metric: 'kernel-log:NVRM Xid' }, unit: 'code', kind: 'gauge' });
      this.xidSeries.set(xid.bus_id, id);
    }
    // Xids of one bus within one ms (a burst: 62, 120, 45 …; a double-bit ECC error and the page retirement
    // it caused, 48 then 64) share one sample: the first stands unless a later one outranks it — hardware
    // over the rest, then the more severe — since a burst's first error is its root and the rest follow it.
    const at = Math.round(ts);
    const last = this.xidLast.get(xid.bus_id);
    if (last && last.ts === at && xidRank(xid.code) <= xidRank(last.code)) return;
    this.xidLast.set(xid.bus_id, { ts: at, code: xid.code });
    this.sink.sample(id, ts, xid.code);
  }

  /** Untimed lines seen before the first wall-clock time take that time. */
  private drainUntimed(ts: number): void {
    if (!this.pending.length || this.pendingRel) return;
    for (const p of this.pending.splice(0)) this.emit(ts, p.event, p.xid);
  }

  finish(lastLine: number): void {
    if (this.pending.length) {
      // Boot-relative times are placed from the mtime with their own warning below; lines with no time at
      // all take it with the clock's.
      const mtime = instantMs(this.ctx.mtimeMs);
      const bundleEnd = this.ctx.bundleEndMs ?? null;
      // A modification time a day or more from the bundle's other sources is a copy's, not the save's (a
      // bundle unpacked or checked out later): their end is then the better guess of when dmesg was saved.
      const copied = bundleEnd !== null && (mtime === null || Math.abs(mtime - bundleEnd) >= COPIED_MS);
      const end = !this.pendingRel ? this.clock.fallback(lastLine) : copied ? bundleEnd : mtime !== null ? mtime : this.clock.fallback(lastLine);
      const rel = `minus ${this.maxRel.toFixed(1)} s (the last message)`;
      if (this.pendingRel && copied)
        this.ctx.warn(
          `dmesg times are seconds since boot: boot time assumed to be the end of the bundle's other sources (${new Date(bundleEnd).toISOString()}) ${rel}; ${mtime === null ? 'the file has no modification time' : `the file's modification time (${new Date(mtime).toISOString()}) lies ${Math.round(Math.abs(mtime - bundleEnd) / 3_600_000)} h from them (copied since it was saved?)`}`,
        );
      else if (this.pendingRel) this.ctx.warn(`dmesg times are seconds since boot: boot time assumed to be the file's modification time ${rel}`);
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

/** A modification time this far from the bundle's other sources is taken for a copy's (see finish). */
const COPIED_MS = 24 * 3_600_000;

export async function importKernelLog(input: EntryInput, sink: Sink, ctx: ImportContext): Promise<void> {
  const p = new KernelParser(sink, ctx);
  let no = 0;
  for await (const batch of lineBatches(input.stream(), ctx)) for (const l of batch) p.line(l, ++no);
  p.finish(no);
}

/** Lines detection reads: every line of the head, so NVRM lines behind a long preamble (a pstore dump's
 * boot messages, hundreds of lines) are still seen. */
const DETECT_LINES = 100_000;

export function detectKernelLog(head: Buffer): number {
  const lines = headLines(head, DETECT_LINES).filter((l) => l.trim());
  if (!lines.length) return 0;
  let nvrm = 0;
  let prefixed = 0;
  for (const l of lines) {
    if (l.includes('NVRM:')) nvrm++;
    const bare = l.replace(DECODE, '').replace(PRIORITY, '');
    if (DMESG_REL_STRICT.test(bare) || DMESG_T.test(bare) || DMESG_ISO.test(bare) || KMSG.test(l) || / kernel(?::| - )/.test(l)) prefixed++;
  }
  // NVRM text inside JSON objects (a log shipper's lines, journalctl -o json) is the JSON-lines reader's.
  if (nvrm > 0 && lines.filter((l) => l.trimStart().startsWith('{')).length * 2 < lines.length) return 0.9;
  if (nvrm > 0) return 0;
  return prefixed / lines.length >= 0.5 ? 0.6 : 0;
}

export const kernelLogImporter: Importer = {
  format: 'kernel-log',
  yearless: true,
  detect: (head) => detectKernelLog(head),
  import: importKernelLog,
};
