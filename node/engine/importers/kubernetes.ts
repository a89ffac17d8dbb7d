// What Kubernetes says about an inference pod, as on-call engineers save it beside the engine's logs:
//
// - JSON (`kubectl get events -o json`, `kubectl get pods -o json`, one object or a List, or objects one
//   after another as `--watch -o json` prints them): core/v1 Events (`involvedObject`, `firstTimestamp`,
//   `lastTimestamp`, `eventTime`, `series`, `count`), events.k8s.io/v1 Events (`regarding`, `note`,
//   `deprecated*`), and Pods' container statuses (`state`, `lastState.terminated` with `reason`, `exitCode`,
//   `startedAt`, `finishedAt`, `restartCount`). Times are absolute (UTC). The same objects as YAML.
// - Text: `kubectl describe pod` (its header, each container's `State`/`Last State` with absolute
//   `Started`/`Finished` in the client's zone, `Restart Count`, and its `Events:` table), and `kubectl get
//   events` / `kubectl events` tables (1.12+ `LAST SEEN TYPE REASON OBJECT MESSAGE`, `-o wide`, `-A`, the
//   legacy `LASTSEEN FIRSTSEEN COUNT NAME KIND …`), alone or pasted with the shell prompts around them.
//   Event tables give ages (`5m31s`, `46m (x17 over 76m)`, `<unknown>`), counted back from when kubectl ran:
//   that moment is read off the file where a describe says it (its `Start Time` plus the age of its
//   `Scheduled` event), else it is the file's modification time (what `kubectl … > file` leaves), else the end
//   of the bundle's other sources — a guess, warned. The 2015 describe's absolute FirstSeen/LastSeen are read
//   as written.
//
// Every Kubernetes event becomes an event (`attrs.from = 'kubernetes'`, reason, type, object, container,
// node, count, first/last time), at the time it was first seen, kind `log` — Kubernetes' word for a
// process is not the engine's own — except where its meaning is unambiguous to the model: the kernel's OOM
// killer (`OOMKilling`, a container `OOMKilled`) is `host_oom_kill`, a container that exited with an error
// (not 0, not 143 = SIGTERM, the kubelet's own stop) is `engine_crash` at its `finishedAt` — and `oom` too where
// its termination message (the engine's last words) is a CUDA OOM — and a container running again after such
// an end is `engine_restart` at its `startedAt`. Image pulls are not deploys (a
// restart pulls its own image again under `imagePullPolicy: Always`): they stay `log` events with the image.
// YAML (`-o yaml`, and `yq` cuts of it such as one container's `lastState.terminated`) is read as the JSON is,
// through the subset of YAML kubectl writes (yaml-subset.ts).
import type { Severity } from '../../../common/contract/types';
import { EV } from '../../../common/names';
import { headLines } from './line-reader';
import { JsonDocuments } from './json-documents';
import { MAX_VALUE_DEPTH, jsonTooDeep } from './json-error-offset';
import { instantMs, isoOf, LogClock } from './log-time';
import { isOomLine, parseOom } from './oom-text';
import { readText } from './read-text';
import { parseYamlSubset, YamlError } from './yaml-subset';
import { ImportError, type EntryInput, type ImportContext, type Importer, type Sink } from './types';
import { isObj, type Json } from './json-object';

const str = (x: unknown): string => (typeof x === 'string' ? x : x === undefined || x === null ? '' : String(x));

/**
 * Where the JSON begins: its first line opens an object or an array (`{`, `[{`, `[` alone), within the first
 * few lines (a shell prompt or the command may come first); -1 for text.
 */
function jsonStartLine(lines: string[]): number {
  for (let i = 0; i < Math.min(lines.length, 5); i++) if (/^\s*(?:\{\s*(?:"|$)|\[\s*(?:\{|$))/.test(lines[i])) return i;
  return -1;
}

/** YAML of Kubernetes objects: their keys (`kind: Event`, `involvedObject:`, `containerStatuses:`, a termination's `exitCode:`). */
const YAML_KIND = /^\s*(?:- )?kind: (?:Event|EventList|Pod|PodList|List)\s*$/;
const YAML_OBJECT = /^\s*(?:- )?(?:involvedObject|containerStatuses|regarding|lastState|terminated):\s*$/;
const YAML_TERMINATION = /^\s*(?:- )?exitCode: \d+\s*$/;

/**
 * Where kubectl's YAML begins (after a shell prompt or the command), or -1: the head must hold an object's keys,
 * and the YAML starts at the first line that is a `key:` or `- ` at no indent.
 */
function yamlStartLine(lines: string[]): number {
  const head = lines.slice(0, 400);
  const kubernetes = (head.some((l) => YAML_KIND.test(l)) && head.some((l) => YAML_OBJECT.test(l))) || (head.some((l) => YAML_TERMINATION.test(l)) && head.some((l) => /^\s*finishedAt: /.test(l)));
  if (!kubernetes) return -1;
  return head.findIndex((l) => /^(?:- )?[A-Za-z_"'][\w.\/"'-]*:(?: |$)/.test(l));
}

/** A JSON document held whole is capped (an events list of a busy namespace is megabytes). */
const MAX_DOCUMENT_CHARS = 256 * 2 ** 20;

/** One Kubernetes event as every shape gives it. */
interface K8sEvent {
  type: string;
  reason: string;
  /** `pod/name`, `Deployment/bar`, … */
  object: string;
  namespace: string;
  container: string;
  source: string;
  message: string;
  count: number;
  /** Absolute times (ms) where the shape has them. */
  firstMs: number | null;
  lastMs: number | null;
  /** Ages (ms before kubectl ran) where the shape gives those instead. */
  firstAge: number | null;
  lastAge: number | null;
  /** How exact lastAge is (kubectl rounds an age to its last unit: `23d` is 23 to 24 days), ms. */
  lastAgeUnit: number | null;
  line: number;
}

/** One container's end or new start, with absolute times. */
interface ContainerState {
  pod: string;
  namespace: string;
  node: string;
  container: string;
  image: string;
  restartCount: number | null;
  /** The state now: `running` since startedMs, or ended. */
  running: { startedMs: number } | null;
  ended: Termination[];
  line: number;
}

interface Termination {
  reason: string;
  exitCode: number | null;
  signal: number | null;
  startedMs: number | null;
  finishedMs: number | null;
  message: string;
  /** The container's `lastState` (ended before the current run) or its `state` (ended now). */
  last: boolean;
}

// ---------------------------------------------------------------------------------------------------------
// Times

/** `2026-03-14T09:00:05Z`, `2020-04-24T13:38:26.252501Z` → ms; null for null, empty or unreadable. */
function isoMs(x: unknown): number | null {
  if (typeof x !== 'string' || !x) return null;
  return instantMs(Date.parse(x));
}

/** describe's RFC 1123 with a numeric zone (`Tue, 06 May 2025 17:37:06 +0000`) → ms, else null. */
function rfc1123Ms(s: string): number | null {
  const m = /^[A-Z][a-z]{2}, \d{1,2} [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d [+-]\d{4}$/.exec(s.trim());
  return m ? instantMs(Date.parse(s.trim())) : null;
}

/**
 * An absolute time in an events table's cell: the 2015 describe's RFC 1123, or the RFC 3339 that
 * `-o custom-columns=LAST_SEEN:.lastTimestamp,…` prints for an event's timestamps.
 */
function cellTimeMs(s: string): number | null {
  const t = s.trim();
  if (/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)$/.test(t)) return instantMs(Date.parse(t));
  return rfc1123Ms(t);
}

const AGE_UNIT: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, y: 365 * 86_400_000 };

/** The oldest age read (ten years): an event older than a cluster is a broken number, skipped as having no time. */
const MAX_AGE_MS = 10 * AGE_UNIT.y;

/** kubectl's short duration (`5m31s`, `104s`, `3h43m`, `102d`, `2y3d`) → ms; null for `<unknown>`, past ten years, or anything else. */
export function ageMs(s: string): number | null {
  const t = s.trim();
  if (!/^(\d{1,9}[ydhms]){1,5}$/.test(t)) return null;
  let ms = 0;
  for (const m of t.matchAll(/(\d+)([ydhms])/g)) ms += Number(m[1]) * AGE_UNIT[m[2]];
  return ms <= MAX_AGE_MS ? ms : null;
}

/** The last unit of an age (`5m31s` → 1 s, `23d` → 1 day): kubectl drops what is below it. */
export function ageUnitMs(s: string): number | null {
  const m = /(\d+)([ydhms])(?:\s|$)/.exec(s.trim());
  return m ? AGE_UNIT[m[2]] : null;
}

/** `46m (x17 over 76m)` → last age, count and first age; `5m` → that age, once. */
function ageCell(s: string): { last: number | null; first: number | null; count: number | null } {
  const m = /^(\S+)\s+\(x(\d+) over (\S+)\)$/.exec(s.trim());
  if (m) return { last: ageMs(m[1]), first: ageMs(m[3]), count: Number(m[2]) };
  return { last: ageMs(s), first: null, count: null };
}

// ---------------------------------------------------------------------------------------------------------
// JSON

function eventFromJson(o: Json, line: number): K8sEvent | null {
  // core/v1 names the object `involvedObject`; events.k8s.io/v1 `regarding`.
  const obj = isObj(o.involvedObject) ? o.involvedObject : isObj(o.regarding) ? o.regarding : null;
  if (!obj || typeof o.reason !== 'string') return null;
  const series = isObj(o.series) ? o.series : {};
  const meta = isObj(o.metadata) ? o.metadata : {};
  const src = isObj(o.source) ? o.source : isObj(o.deprecatedSource) ? o.deprecatedSource : {};
  const first = isoMs(o.firstTimestamp) ?? isoMs(o.deprecatedFirstTimestamp) ?? isoMs(o.eventTime) ?? isoMs(meta.creationTimestamp);
  const last = isoMs(o.lastTimestamp) ?? isoMs(o.deprecatedLastTimestamp) ?? isoMs(series.lastObservedTime) ?? first;
  const count = Number(o.count ?? o.deprecatedCount ?? series.count ?? 1) || 1;
  const fieldPath = str(obj.fieldPath);
  return {
    type: str(o.type),
    reason: str(o.reason),
    object: `${str(obj.kind).toLowerCase() || 'object'}/${str(obj.name)}`,
    namespace: str(obj.namespace || meta.namespace),
    container: /spec\.(?:init)?[cC]ontainers\{([^}]+)\}/.exec(fieldPath)?.[1] ?? '',
    source: [str(src.component || o.reportingComponent || o.reportingController), str(src.host)].filter(Boolean).join(', '),
    message: str(o.message ?? o.note).trim(),
    count,
    firstMs: first,
    lastMs: last,
    firstAge: null,
    lastAge: null,
    lastAgeUnit: null,
    line,
  };
}

function terminationFromJson(t: unknown, last: boolean): Termination | null {
  if (!isObj(t)) return null;
  return {
    reason: str(t.reason),
    exitCode: typeof t.exitCode === 'number' ? t.exitCode : null,
    signal: typeof t.signal === 'number' ? t.signal : null,
    startedMs: isoMs(t.startedAt),
    finishedMs: isoMs(t.finishedAt),
    message: str(t.message).trim(),
    last,
  };
}

function containersFromPod(o: Json, line: number): ContainerState[] {
  const meta = isObj(o.metadata) ? o.metadata : {};
  const spec = isObj(o.spec) ? o.spec : {};
  const status = isObj(o.status) ? o.status : {};
  const out: ContainerState[] = [];
  for (const list of [status.initContainerStatuses, status.containerStatuses]) {
    if (!Array.isArray(list)) continue;
    for (const c of list) {
      if (!isObj(c)) continue;
      const state = isObj(c.state) ? c.state : {};
      const lastState = isObj(c.lastState) ? c.lastState : {};
      const ended = [terminationFromJson(lastState.terminated, true), terminationFromJson(state.terminated, false)].filter((x): x is Termination => x !== null);
      const running = isObj(state.running) ? isoMs(state.running.startedAt) : null;
      out.push({
        pod: str(meta.name),
        namespace: str(meta.namespace),
        node: str(spec.nodeName),
        container: str(c.name),
        image: str(c.image),
        restartCount: typeof c.restartCount === 'number' ? c.restartCount : null,
        running: running === null ? null : { startedMs: running },
        ended,
        line,
      });
    }
  }
  return out;
}

/** Every Event and Pod in one parsed document (an object, a List of them, or an array). */
function walkJson(doc: unknown, line: number, events: K8sEvent[], containers: ContainerState[]): number {
  let found = 0;
  const visit = (o: unknown) => {
    if (Array.isArray(o)) {
      for (const x of o) visit(x);
      return;
    }
    if (!isObj(o)) return;
    if (Array.isArray(o.items)) {
      visit(o.items);
      return;
    }
    const e = eventFromJson(o, line);
    if (e) {
      events.push(e);
      found++;
      return;
    }
    if (o.kind === 'Pod' || (isObj(o.status) && (Array.isArray(o.status.containerStatuses) || Array.isArray(o.status.initContainerStatuses)))) {
      containers.push(...containersFromPod(o, line));
      found++;
      return;
    }
    // One container status, or its `lastState.terminated` alone (`kubectl get pod -o yaml | yq '.status.containerStatuses[0].lastState.terminated'`).
    if (isObj(o.lastState) || isObj(o.state)) {
      containers.push(...containersFromPod({ status: { containerStatuses: [o] } }, line));
      found++;
      return;
    }
    const t = 'exitCode' in o && 'finishedAt' in o ? terminationFromJson(o, true) : null;
    if (t) {
      containers.push({ pod: '', namespace: '', node: '', container: '', image: '', restartCount: null, running: null, ended: [t], line });
      found++;
    }
  };
  visit(doc);
  return found;
}

// ---------------------------------------------------------------------------------------------------------
// Text

/** Header cells of an events table: kubectl's tabwriter pads columns with spaces, so each starts where its title does. */
interface Columns {
  names: string[];
  starts: number[];
}

/**
 * kubectl's events table (`LAST SEEN`, the legacy `LASTSEEN`), or the one its custom columns print where an
 * engineer asked for absolute times (`-o custom-columns=LAST_SEEN:.lastTimestamp,…`, `FirstSeen:…`).
 */
const TABLE_HEADER = /^\s*(?:NAMESPACE\s+)?(?:LAST[ _]?SEEN|FIRST[ _]?SEEN)\s{2,}\S/i;
/** `kubectl get pods` (`-A`'s NAMESPACE first; `-o wide`'s IP, NODE… after AGE; `get all`'s `pod/` names). */
const POD_TABLE_HEADER = /^\s*(?:NAMESPACE\s{2,})?NAME\s{2,}READY\s{2,}STATUS\s{2,}RESTARTS\s{2,}AGE\b/;
/** A pods table's row as detection sees it: `[namespace] name  1/1  Status  6 (118s ago)  20m`. */
const POD_ROW = /^\s*(?:[a-z0-9][-a-z0-9.]*\s{2,})?[a-z0-9][-a-z0-9./]*\s{2,}\d+\/\d+\s{2,}\S+\s{2,}\d+(?: \(\S+ ago\))?\s{2,}\S+/;
/** A pods table's RESTARTS cell: `6`, or kubectl 1.22+'s `6 (118s ago)` with the last restart's age. */
const RESTARTS_CELL = /^(\d+)(?: \((\S+) ago\))?$/;
const DESCRIBE_EVENTS_HEADER = /^\s+(?:Type\s+Reason\s+Age\s+From\s+Message|FirstSeen\s+LastSeen\s+Count\s+From)/;

function columnsOf(header: string): Columns {
  const names: string[] = [];
  const starts: number[] = [];
  // Titles are one or two words (LAST SEEN); columns are at least two blanks (or a tab) apart.
  const re = /\S+(?: \S+)*/g;
  for (let m = re.exec(header); m; m = re.exec(header)) {
    names.push(m[0].toUpperCase().replace(/[\s_]+/g, ' '));
    starts.push(m.index);
  }
  return { names, starts };
}

/** A row's cells by the header's columns; tab-separated rows (the 2015 describe) by their tabs. */
function cellsOf(row: string, cols: Columns, tabs: boolean): Record<string, string> {
  const out: Record<string, string> = {};
  if (tabs) {
    // Padding tabs cannot be told from an empty cell: an empty SubobjectPath (a pod-level event) drops its column.
    const parts = row.trim().split(/\t+/);
    const names = parts.length < cols.names.length ? cols.names.filter((n) => n !== 'SUBOBJECTPATH') : cols.names;
    names.forEach((n, i) => (out[n] = (i === names.length - 1 ? parts.slice(i).join(' ') : parts[i] ?? '').trim()));
    return out;
  }
  cols.names.forEach((n, i) => {
    const end = i + 1 < cols.starts.length ? cols.starts[i + 1] : row.length;
    out[n] = row.slice(cols.starts[i], end).trim();
  });
  return out;
}

/** An age cell: `5m31s`, `46m (x17 over 76m)`, `<unknown>`. */
const AGE = String.raw`(?:\d+[ydhms])+(?: \(x\d+ over (?:\d+[ydhms])+\))?|<unknown>`;
/** A describe Events row without its header (`Warning  Unhealthy  16s (x292 over 50m)  kubelet  Startup probe failed: …`). */
const DESCRIBE_ROW = new RegExp(String.raw`^\s*(Normal|Warning)\s{2,}(\S+)\s{2,}(${AGE})\s{2,}(\S+(?:, \S+)?)\s{2,}(.*)$`);
/** A `get events` row without its header (`7m45s  Normal  Killing  pod/x  Stopping container y`), `-A`'s namespace first. */
const GET_ROW = new RegExp(String.raw`^(?:([a-z0-9][-a-z0-9]*)\s{2,})?(${AGE})\s{2,}(Normal|Warning)\s{2,}(\S+)\s{2,}(\S+)\s{2,}(.*)$`);

/** The cells of an events row pasted without its table's header, or null. */
function looseRow(line: string): Record<string, string> | null {
  const d = DESCRIBE_ROW.exec(line);
  if (d) return { TYPE: d[1], REASON: d[2], AGE: d[3], FROM: d[4], MESSAGE: d[5] };
  const g = GET_ROW.exec(line);
  if (g) return { ...(g[1] ? { NAMESPACE: g[1] } : {}), 'LAST SEEN': g[2], TYPE: g[3], REASON: g[4], OBJECT: g[5], MESSAGE: g[6] };
  return null;
}

function eventFromCells(c: Record<string, string>, line: number, podOfDescribe: { name: string; namespace: string } | null): K8sEvent | null {
  const reason = c.REASON ?? '';
  if (!reason) return null;
  const lastCell = c['LAST SEEN'] ?? c.LASTSEEN ?? c.AGE ?? '';
  const firstCell = c['FIRST SEEN'] ?? c.FIRSTSEEN ?? '';
  const lastAbs = cellTimeMs(lastCell);
  const firstAbs = cellTimeMs(firstCell);
  const age = ageCell(lastCell);
  const firstAge = age.first ?? ageMs(firstCell);
  const kind = c.KIND ? c.KIND.toLowerCase() : '';
  const object = c.OBJECT || (c.NAME && kind ? `${kind}/${c.NAME}` : '') || (podOfDescribe ? `pod/${podOfDescribe.name}` : '');
  const sub = c.SUBOBJECT ?? c.SUBOBJECTPATH ?? '';
  const msg = c.MESSAGE ?? '';
  const count = Number(c.COUNT) || age.count || 1;
  return {
    type: c.TYPE ?? '',
    reason,
    object,
    namespace: c.NAMESPACE ?? podOfDescribe?.namespace ?? '',
    container: /spec\.(?:init)?[cC]ontainers\{([^}]+)\}/.exec(sub)?.[1] ?? /\bcontainer:? "?(?!image\b)([\w.-]+)/i.exec(msg)?.[1] ?? '',
    source: (c.SOURCE ?? c.FROM ?? '').replace(/^\{|\}$/g, '').trim(),
    message: msg,
    count,
    firstMs: firstAbs ?? lastAbs,
    lastMs: lastAbs,
    firstAge: firstAbs !== null ? null : firstAge,
    lastAge: lastAbs !== null ? null : age.last,
    lastAgeUnit: lastAbs !== null ? null : ageUnitMs(lastCell),
    line,
  };
}

/** A `kubectl describe pod` in progress: the pod, its containers, and where its events table is. */
interface DescribedPod {
  name: string;
  namespace: string;
  node: string;
  startMs: number | null;
  /** Its `Status:` line, with the `Reason:` and `Message:` under it (`Failed`, `Evicted`, `The node was low on …`). */
  status: string;
  reason: string;
  message: string;
  line: number;
  /** The age of its `Scheduled` event: with startMs, when kubectl ran (to within scheduledUnit). */
  scheduledAge: number | null;
  scheduledUnit: number | null;
  events: K8sEvent[];
}

/** A row of `kubectl get pods`: the state of a pod when kubectl ran, and its restarts. */
interface PodRow {
  name: string;
  namespace: string;
  ready: string;
  status: string;
  restarts: number;
  /** The last restart's age (ms before kubectl ran), where the cell gives it. */
  lastRestartAge: number | null;
  age: string;
  node: string;
  line: number;
}

/** When kubectl ran, as a describe tells it: at or after `ms`, before `ms + unit` (the age's rounding). */
interface Captured {
  ms: number;
  unit: number;
}

interface TextRead {
  events: K8sEvent[];
  podRows: PodRow[];
  pods: DescribedPod[];
  containers: ContainerState[];
  /** When kubectl ran, where a describe says it. */
  captured: Captured | null;
}

function readKubectlText(lines: string[]): TextRead {
  const events: K8sEvent[] = [];
  const containers: ContainerState[] = [];
  const pods: DescribedPod[] = [];
  let pod: DescribedPod | null = null;
  let container: ContainerState | null = null;
  /** Which state block the indented Started/Finished/Reason/Exit Code lines belong to. */
  let block: { state: 'running' | 'terminated' | 'waiting' | 'other'; last: boolean; indent: number; term: Termination | null } | null = null;
  let table: { cols: Columns; indent: number; tabs: boolean; describe: boolean } | null = null;
  let podTable: Columns | null = null;
  /** By namespace and name: a `--watch` prints a pod again at each change, and its last row is its state. */
  const podRows = new Map<string, PodRow>();
  let inContainers = false;

  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i].replace(/\r$/, '');
    const no = i + 1;
    const indent = raw.length - raw.trimStart().length;
    const text = raw.trim();
    if (podTable) {
      // By the header's columns; a `--watch` row printed after a later flush may not line up with them: then by
      // its runs of blanks (only RESTARTS' `1 (5s ago)` holds a single one).
      const row = text ? (podRowOf(cellsOf(raw, podTable, false), no) ?? podRowOf(cellsBySpaces(text, podTable), no)) : null;
      if (row) {
        const key = `${row.namespace}/${row.name}`;
        podRows.delete(key);
        podRows.set(key, row);
        continue;
      }
      podTable = null;
    }
    if (POD_TABLE_HEADER.test(raw)) {
      podTable = columnsOf(raw);
      continue;
    }
    if (table) {
      if (!text) {
        table = null;
        continue;
      }
      if (/^-+(\s+-+)*$/.test(text)) continue;
      if (table.describe && indent < table.indent) table = null;
      else {
        const cells = cellsOf(raw, table.cols, table.tabs);
        const e = cells.TYPE === undefined || /^(?:Normal|Warning)$/.test(cells.TYPE) ? eventFromCells(cells, no, table.describe && pod ? pod : null) : null;
        if (e) {
          (table.describe && pod ? pod.events : events).push(e);
          if (table.describe && pod && e.reason === 'Scheduled' && e.lastAge !== null && pod.scheduledAge === null) {
            pod.scheduledAge = e.lastAge;
            pod.scheduledUnit = e.lastAgeUnit;
          }
          continue;
        }
        // A describe's table goes on past a line snipped from a paste (`(…)`); another table ends at it.
        if (table.describe) continue;
        table = null;
      }
    }
    const loose = looseRow(raw);
    if (loose) {
      const e = eventFromCells(loose, no, pod);
      if (e) events.push(e);
      continue;
    }
    // A describe's own table first: the 2015 one's `FirstSeen  LastSeen` titles read as a custom-columns header too.
    if (DESCRIBE_EVENTS_HEADER.test(raw)) {
      table = { cols: columnsOf(raw.replace(/\t+/g, '  ')), indent, tabs: raw.includes('\t'), describe: true };
      continue;
    }
    if (TABLE_HEADER.test(raw)) {
      table = { cols: columnsOf(raw), indent, tabs: false, describe: false };
      continue;
    }
    const kv = /^([A-Za-z][\w ()]*?):\s*(.*)$/.exec(text);
    if (indent === 0 && kv) {
      inContainers = kv[1] === 'Containers' || kv[1] === 'Init Containers';
      if (!inContainers) container = null;
      block = null;
      if (kv[1] === 'Name' && kv[2]) {
        pod = { name: kv[2].trim(), namespace: '', node: '', startMs: null, status: '', reason: '', message: '', line: no, scheduledAge: null, scheduledUnit: null, events: [] };
        pods.push(pod);
      } else if (pod && kv[1] === 'Namespace') pod.namespace = kv[2].trim();
      else if (pod && kv[1] === 'Node') pod.node = kv[2].trim().split('/')[0];
      else if (pod && kv[1] === 'Start Time') pod.startMs = rfc1123Ms(kv[2]);
      else if (pod && kv[1] === 'Status') pod.status = kv[2].trim();
      else if (pod && kv[1] === 'Reason') pod.reason = kv[2].trim();
      else if (pod && kv[1] === 'Message') pod.message = kv[2].trim();
      continue;
    }
    // A container's heading under Containers: (`  vllm-openai:`).
    if (inContainers && indent === 2 && /^[\w.-]+:$/.test(text)) {
      container = { pod: pod?.name ?? '', namespace: pod?.namespace ?? '', node: pod?.node ?? '', container: text.slice(0, -1), image: '', restartCount: null, running: null, ended: [], line: no };
      containers.push(container);
      block = null;
      continue;
    }
    if (!kv) continue;
    const [key, value] = [kv[1], kv[2].trim()];
    if (key === 'State' || key === 'Last State') {
      // A grep of `Last State:` lines has no container heading: one nameless container per block then.
      if (!container || (key === 'State' && (container.running || container.ended.some((t) => !t.last)))) {
        container = { pod: pod?.name ?? '', namespace: pod?.namespace ?? '', node: pod?.node ?? '', container: '', image: '', restartCount: null, running: null, ended: [], line: no };
        containers.push(container);
      }
      const state = value === 'Running' ? 'running' : value === 'Terminated' ? 'terminated' : value === 'Waiting' ? 'waiting' : 'other';
      const term: Termination | null = state === 'terminated' ? { reason: '', exitCode: null, signal: null, startedMs: null, finishedMs: null, message: '', last: key === 'Last State' } : null;
      if (term) container.ended.push(term);
      block = { state, last: key === 'Last State', indent, term };
      continue;
    }
    if (container && key === 'Image' && value) container.image = value;
    else if (container && key === 'Restart Count') container.restartCount = Number(value);
    if (block && indent > block.indent) {
      if (key === 'Started') {
        const t = rfc1123Ms(value);
        if (block.state === 'running' && t !== null && container) container.running = { startedMs: t };
        else if (block.term) block.term.startedMs = t;
      } else if (block.term && key === 'Finished') block.term.finishedMs = rfc1123Ms(value);
      else if (block.term && key === 'Reason') block.term.reason = value;
      else if (block.term && key === 'Exit Code') block.term.exitCode = Number(value);
      else if (block.term && key === 'Signal') block.term.signal = Number(value);
      else if (block.term && key === 'Message') block.term.message = value;
    } else if (block && indent <= block.indent) block = null;
  }

  // When kubectl ran: a pod's start time plus the age of its Scheduled event (the first that says), to within
  // that age's last unit.
  let captured: Captured | null = null;
  for (const p of pods) {
    if (captured === null && p.startMs !== null && p.scheduledAge !== null) captured = { ms: p.startMs + p.scheduledAge, unit: p.scheduledUnit ?? 1000 };
    for (const e of p.events) events.push(e);
  }
  // Else a pod both listed and described: its start time plus its age in the list.
  for (const r of podRows.values()) {
    if (captured !== null) break;
    const start = pods.find((p) => p.name === r.name && p.startMs !== null)?.startMs ?? null;
    const age = ageMs(r.age);
    if (start !== null && age !== null) captured = { ms: start + age, unit: ageUnitMs(r.age) ?? 1000 };
  }
  events.sort((a, b) => a.line - b.line);
  return { events, podRows: [...podRows.values()], pods, containers, captured };
}

/** A row's cells in the header's order, split at runs of two or more blanks. */
function cellsBySpaces(text: string, cols: Columns): Record<string, string> {
  const parts = text.split(/\s{2,}/);
  const out: Record<string, string> = {};
  cols.names.forEach((n, i) => (out[n] = parts[i] ?? ''));
  return out;
}

/** A pods table's row, or null where the cells are not one (the table has ended). */
function podRowOf(c: Record<string, string>, line: number): PodRow | null {
  const r = RESTARTS_CELL.exec(c.RESTARTS ?? '');
  if (!c.NAME || !/^\d+\/\d+$/.test(c.READY ?? '') || !r || !c.STATUS) return null;
  return {
    name: c.NAME.replace(/^pods?\//, ''),
    namespace: c.NAMESPACE ?? '',
    ready: c.READY,
    status: c.STATUS,
    restarts: Number(r[1]),
    lastRestartAge: r[2] !== undefined ? ageMs(r[2]) : null,
    age: c.AGE ?? '',
    node: c.NODE && c.NODE !== '<none>' ? c.NODE : '',
    line,
  };
}

/** A pod status that says its container has ended badly or keeps doing so. */
const FAILING_STATUS = /^(?:Init:)?(?:CrashLoopBackOff|Error|OOMKilled|ContainerStatusUnknown|RunContainerError|StartError|Evicted)$/;

/**
 * A pods table's row as events: its state when kubectl ran (the OOM killer's `OOMKilled` a host OOM kill
 * then, as the table does not say when), and its last restart at its age where kubectl 1.22+ gives it.
 * Only the last restart has a time: the count is kept in the text and attrs, never spread into times.
 */
function writePodRow(sink: Sink, p: PodRow, anchor: number, described: boolean): void {
  const object = `pod/${p.name}`;
  const base = { from: 'kubernetes', object, pod: p.name, ...(p.namespace ? { namespace: p.namespace } : {}), ...(p.node ? { node: p.node } : {}), status: p.status, ready: p.ready, restart_count: p.restarts, ...(p.age ? { age: p.age } : {}) };
  const failing = FAILING_STATUS.test(p.status);
  // A described pod's container states say when it was OOM-killed: the row's status is not a second kill.
  const oomKilled = /OOMKilled$/.test(p.status) && !described;
  const restarts = `${p.restarts} restart${p.restarts === 1 ? '' : 's'}`;
  sink.event({
    ts_ms: anchor,
    kind: oomKilled ? EV.hostOomKill : EV.log,
    severity: oomKilled ? 'error' : failing ? 'warning' : 'info',
    line: p.line,
    text: `${object} ${p.status} (ready ${p.ready}, ${restarts}${p.age ? `, age ${p.age}` : ''}) when kubectl listed it${oomKilled ? ': killed by the kernel OOM killer at its memory limit, at or before this time' : ''}`,
    attrs: { ...base, reason: oomKilled ? 'OOMKilled' : 'PodStatus', ...(oomKilled ? { host: true } : {}) },
  });
  if (p.restarts === 0 || p.lastRestartAge === null || described) return;
  sink.event({
    ts_ms: anchor - p.lastRestartAge,
    kind: EV.engineRestart,
    severity: failing ? 'warning' : 'info',
    line: p.line,
    text: `${object} restarted (the last of ${restarts}${p.age ? ` in its ${p.age}` : ''}; ${p.status} when listed)`,
    attrs: { ...base, reason: 'Restarted' },
  });
}

// ---------------------------------------------------------------------------------------------------------
// Writing

const SEVERITY: Record<string, Severity> = { Warning: 'warning', Normal: 'info', Error: 'error' };

/** The kernel's OOM killer in Kubernetes' words. */
const isOomKill = (reason: string, message: string) => /^OOMKill(?:ing|ed)$/.test(reason) || /Memory cgroup out of memory|OOMKilled/.test(message);

function writeEvent(sink: Sink, e: K8sEvent, ts: number, lastTs: number): void {
  const oom = isOomKill(e.reason, e.message);
  const repeated = e.count > 1 ? ` (×${e.count}, last ${isoOf(lastTs)})` : '';
  sink.event({
    ts_ms: ts,
    kind: oom ? EV.hostOomKill : EV.log,
    severity: oom ? 'error' : SEVERITY[e.type] ?? 'info',
    line: e.line,
    text: `${e.object ? `${e.object} ` : ''}${e.reason}: ${e.message}${repeated}`,
    attrs: {
      from: 'kubernetes',
      reason: e.reason,
      type: e.type,
      object: e.object,
      ...(e.namespace ? { namespace: e.namespace } : {}),
      ...(e.container ? { container: e.container } : {}),
      ...(e.source ? { source: e.source } : {}),
      ...(oom ? { host: true } : {}),
      count: e.count,
      first_ms: ts,
      last_ms: lastTs,
    },
  });
}

/** What an ended container means: the OOM killer, a crash (an error exit), or a stop (0, SIGTERM's 143). */
function terminationKind(t: Termination): { kind: string; severity: Severity; why: string } {
  if (t.reason === 'OOMKilled') return { kind: EV.hostOomKill, severity: 'error', why: 'killed by the kernel OOM killer at its memory limit' };
  const code = t.exitCode;
  if (code === 0 || t.reason === 'Completed') return { kind: EV.log, severity: 'info', why: 'exited (0)' };
  if (code === 143) return { kind: EV.log, severity: 'info', why: 'stopped by SIGTERM (143): the kubelet stopping it (a probe, a rollout, an eviction)' };
  if (code === 137) return { kind: EV.engineCrash, severity: 'error', why: 'killed by SIGKILL (137): a memory kill of a child process, or a stop past its grace period' };
  if (code === null && !t.reason) return { kind: EV.log, severity: 'info', why: 'terminated' };
  return { kind: EV.engineCrash, severity: 'error', why: `exited with ${code === null ? 'an error' : `code ${code}`}` };
}

function writeContainer(sink: Sink, c: ContainerState): number {
  let written = 0;
  const who = `${c.pod ? `pod/${c.pod} ` : ''}container ${c.container || '(unnamed)'}`;
  const base = {
    from: 'kubernetes',
    ...(c.pod ? { pod: c.pod } : {}),
    ...(c.namespace ? { namespace: c.namespace } : {}),
    ...(c.node ? { node: c.node } : {}),
    ...(c.container ? { container: c.container } : {}),
    ...(c.image ? { image: c.image } : {}),
    ...(c.restartCount !== null ? { restart_count: c.restartCount } : {}),
  };
  let crashedBefore = false;
  for (const t of c.ended) {
    if (t.finishedMs === null) continue;
    const k = terminationKind(t);
    if (t.last && k.kind !== EV.log) crashedBefore = true;
    const ran = t.startedMs !== null ? `, having run since ${isoOf(t.startedMs)}` : '';
    sink.event({
      ts_ms: t.finishedMs,
      kind: k.kind,
      severity: k.severity,
      line: c.line,
      text: `${who} ${t.reason || 'Terminated'}: ${k.why}${ran}${t.message ? ` — ${t.message}` : ''}`,
      attrs: { ...base, reason: t.reason, exit_code: t.exitCode, ...(t.signal !== null ? { signal: t.signal } : {}), started_ms: t.startedMs, ...(k.kind === EV.hostOomKill ? { host: true } : {}) },
    });
    written++;
    // The termination message is the container's last words (its termination-log, or its log's tail with
    // FallbackToLogsOnError): a CUDA OOM there is the engine's own report of it.
    const oomLine = t.message.split('\n').find((x) => isOomLine(x));
    if (oomLine !== undefined) {
      sink.event({ ts_ms: t.finishedMs, kind: EV.oom, severity: 'error', line: c.line, text: oomLine.trim(), attrs: { ...base, ...parseOom(t.message) } });
      written++;
    }
  }
  // Running again after an end: a restart, at its start.
  if (c.running && (c.ended.some((t) => t.last) || (c.restartCount ?? 0) > 0)) {
    sink.event({
      ts_ms: c.running.startedMs,
      kind: EV.engineRestart,
      severity: crashedBefore ? 'warning' : 'info',
      line: c.line,
      text: `${who} started again${c.restartCount !== null ? ` (restart ${c.restartCount})` : ''}`,
      attrs: base,
    });
    written++;
  }
  return written;
}

// ---------------------------------------------------------------------------------------------------------

async function importKubernetes(input: EntryInput, sink: Sink, ctx: ImportContext): Promise<void> {
  const text = (await readText(input.stream())).replace(/^\uFEFF/, '');
  const events: K8sEvent[] = [];
  const containers: ContainerState[] = [];
  const pods: DescribedPod[] = [];
  const podRows: PodRow[] = [];
  let captured: Captured | null = null;
  const lines = text.split('\n');
  const jsonAt = jsonStartLine(lines);
  let yamlFrom = -1;
  if (jsonAt >= 0) {
    const docs = new JsonDocuments(MAX_DOCUMENT_CHARS);
    let offset = 0;
    for (let i = 0; i < jsonAt; i++) offset += Buffer.byteLength(lines[i]) + 1;
    let found = 0;
    for (let i = jsonAt; i < lines.length; i++) {
      let done;
      try {
        done = docs.line(lines[i], i + 1, offset);
      } catch (e) {
        throw new ImportError(ctx.path, { line: docs.openLine }, (e as Error).message);
      }
      offset += Buffer.byteLength(lines[i]) + 1;
      for (const d of done) {
        if (jsonTooDeep(d.text, MAX_VALUE_DEPTH) >= 0) throw new ImportError(ctx.path, { line: d.line, offset: d.offset }, `nested deeper than ${MAX_VALUE_DEPTH} levels: refused`);
        let doc: unknown;
        try {
          doc = JSON.parse(d.text);
        } catch (e) {
          throw new ImportError(ctx.path, { line: d.line, offset: d.offset }, `not JSON: ${(e as Error).message.replace(/ in JSON at position \d+.*$/, '')}`);
        }
        found += walkJson(doc, d.line, events, containers);
      }
    }
    if (docs.open) throw new ImportError(ctx.path, { line: docs.openLine }, 'the JSON ends early — the file is truncated');
    if (!found) throw new ImportError(ctx.path, { key: 'items' }, 'no Kubernetes Event or Pod in the JSON');
  } else if ((yamlFrom = yamlStartLine(lines)) >= 0) {
    const from = yamlFrom;
    let docs: unknown[];
    try {
      docs = parseYamlSubset(lines.slice(from).join('\n'), MAX_VALUE_DEPTH);
    } catch (e) {
      if (e instanceof YamlError) throw new ImportError(ctx.path, { line: from + e.line }, `not the YAML kubectl writes: ${e.message}`);
      throw e;
    }
    let found = 0;
    for (const d of docs) found += walkJson(d, from + 1, events, containers);
    if (!found) throw new ImportError(ctx.path, { line: from + 1 }, 'no Kubernetes Event or Pod in the YAML');
  } else {
    const read = readKubectlText(lines);
    events.push(...read.events);
    containers.push(...read.containers);
    captured = read.captured;
    pods.push(...read.pods);
    podRows.push(...read.podRows);
    if (!events.length && !containers.length && !podRows.length && !pods.some((p) => p.startMs !== null)) throw new ImportError(ctx.path, { line: 1 }, 'no Kubernetes events table, pods table, container state or describe output found');
  }

  // Ages count back from when kubectl ran (a pods table's state is then, too).
  let anchor: number | null = null;
  if (podRows.length || events.some((e) => e.firstAge !== null || e.lastAge !== null)) {
    anchor = captured !== null ? capturedAt(captured, ctx) : new LogClock(ctx).anchor('ages and states count back from when kubectl ran, which the file does not say', undefined, 'mtime');
  }
  // A pod described too has its restarts at their own times (its container states): not again from the table —
  // where the describe holds those states (a paste cut before them dates nothing).
  // (A table without -A names no namespace: its pod is the described one of that name.)
  const dated = containers.filter((c) => c.running !== null || c.ended.some((t) => t.finishedMs !== null));
  const described = new Set(dated.flatMap((c) => [`${c.namespace}/${c.pod}`, `/${c.pod}`]));
  for (const p of podRows) writePodRow(sink, p, anchor!, described.has(`${p.namespace}/${p.name}`));
  let unknown = 0;
  for (const e of events) {
    const first = e.firstMs ?? (e.firstAge !== null && anchor !== null ? anchor - e.firstAge : null) ?? (e.lastAge !== null && anchor !== null ? anchor - e.lastAge : null);
    if (first === null) {
      unknown++;
      continue;
    }
    const last = e.lastMs ?? (e.lastAge !== null && anchor !== null ? anchor - e.lastAge : first);
    writeEvent(sink, e, first, Math.max(first, last));
  }
  for (const c of containers) writeContainer(sink, c);
  // A described pod's start (the one absolute time its header gives), with the status it was left in.
  for (const p of pods) {
    if (p.startMs === null) continue;
    const status = [p.status, p.reason].filter(Boolean).join(', ');
    sink.event({
      ts_ms: p.startMs,
      kind: EV.log,
      severity: p.status === 'Failed' ? 'warning' : 'info',
      line: p.line,
      text: `pod/${p.name} started${p.node ? ` on ${p.node}` : ''}${status ? `; status when described: ${status}` : ''}${p.message ? ` — ${p.message}` : ''}`,
      attrs: { from: 'kubernetes', reason: 'PodStart', object: `pod/${p.name}`, ...(p.namespace ? { namespace: p.namespace } : {}), ...(p.node ? { node: p.node } : {}), ...(p.status ? { status: p.status } : {}), ...(p.reason ? { status_reason: p.reason } : {}) },
    });
  }
  if (unknown) ctx.warn(`${unknown} events without a time (\`<unknown>\` age, no timestamp) skipped`);
}

/**
 * When kubectl ran, from a describe's start time plus an age: exact where the age counts seconds or minutes;
 * a coarser one (`23d`: any time in that day) takes the file's mtime where it falls in that span (what
 * `kubectl … > file` leaves), else its start, warned: every age counted from it is that coarse.
 */
function capturedAt(c: Captured, ctx: ImportContext): number {
  if (c.unit <= 60_000) return c.ms;
  const mtime = instantMs(ctx.mtimeMs);
  if (mtime !== null && mtime >= c.ms && mtime < c.ms + c.unit) return mtime;
  ctx.warn(`when kubectl ran is known to within ${Math.round(c.unit / 60_000)} min (a pod's start time plus an age kubectl rounded): ages are counted from ${isoOf(c.ms)}`);
  return c.ms;
}

// ---------------------------------------------------------------------------------------------------------
// Detection

export function detectKubernetes(head: Buffer): number {
  const text = head.toString('utf8').replace(/^\uFEFF/, '');
  const lines = headLines(head, 400);
  if (jsonStartLine(lines) >= 0) {
    if (/"kind"\s*:\s*"(?:EventList|PodList)"/.test(text)) return 0.95;
    if (/"involvedObject"\s*:\s*\{/.test(text) && /"reason"\s*:/.test(text)) return 0.95;
    if (/"regarding"\s*:\s*\{/.test(text) && /"reason"\s*:/.test(text)) return 0.95;
    if (/"kind"\s*:\s*"Event"/.test(text) && /"reason"\s*:/.test(text) && /"(?:first|last)Timestamp"|"eventTime"/.test(text)) return 0.95;
    if (/"kind"\s*:\s*"Pod"/.test(text) && /"containerStatuses"\s*:/.test(text)) return 0.95;
    return 0;
  }
  if (yamlStartLine(lines) >= 0) return 0.9;
  if (lines.some((l) => TABLE_HEADER.test(l) && /\bREASON\b/i.test(l))) return 0.9;
  // A pods table opens many pastes whose body is the engine's log (`kubectl get pods`, then `kubectl logs`): it
  // is the file only where its rows are most of it, or beside a describe; else the log's reader takes it.
  const podTable = lines.some((l) => POD_TABLE_HEADER.test(l));
  if (podTable && lines.filter((l) => POD_ROW.test(l)).length >= 0.5 * lines.filter((l) => l.trim() && !/^\s*\$ /.test(l)).length - 1) return 0.9;
  if (lines.some((l) => DESCRIBE_EVENTS_HEADER.test(l))) return 0.9;
  const describe = lines.some((l) => /^Name:\s+\S/.test(l)) && lines.some((l) => /^Namespace:\s+\S/.test(l)) && lines.some((l) => /^(?:Containers|Events|Start Time|Controlled By):/.test(l));
  if (describe) return 0.9;
  if (podTable) return 0.3;
  const rows = lines.filter((l) => looseRow(l)).length;
  if (rows >= 1 && rows >= 0.3 * lines.filter((l) => l.trim()).length) return 0.8;
  if (lines.some((l) => /^\s+Last State:\s+Terminated\s*$/.test(l)) && lines.some((l) => /^\s+(?:Exit Code|Finished):\s+\S/.test(l))) return 0.85;
  return 0;
}

export const kubernetesImporter: Importer = {
  format: 'kubernetes',
  // Tables give ages, counted back from an anchor that may be the end of the bundle's other sources.
  yearless: true,
  detect: (head) => detectKubernetes(head),
  import: importKubernetes,
};
