// Fleet-aware analysis: an incident that holds several serving instances (replicas, pods) is analysed
// per instance and as a whole. Summed across four replicas, one replica's hang is a 25% dip in tokens/s
// and its leak a quarter of the memory chart; per instance they are what they are. The diagnosis keeps
// the fleet's windows and alerts, takes causes from both, and says in `instances` where each one holds
// (empty when the whole fleet is affected: a surge reaches every replica, a leak is on one).
import { FLEET_WINDOWS, type CauseId, type CauseResult, type Diagnosis, type Evidence, type InstanceDiagnosis, type WindowScore } from '../../../common/contract/diagnosis';
import { precedence } from './causes/rank';
import { extentOf, fileStem, type LoadedHistogram, type LoadedSeries, type Signals } from './signals-from-store';
import { ENGINE_FAMILY } from './windows';
import { isOutageEvidence } from './unexplained';
import { EV, SIG } from '../../../common/names';

/** Labels that name an instance, most specific first (docs/four-quadrant-model.md §9: `instance`, else `pod`, else `host`). */
const IDENTITY_KEYS = ['instance', 'pod', 'host'] as const;


export interface InstanceGroup {
  /** The instance's name (its `instance` label, else pod, else host). */
  key: string;
  /** Every identity label value its engine series carry (instance, pod, host), for matching GPU series and log files. */
  ids: Set<string>;
}

const identity = (labels: Record<string, string>): string | null => {
  for (const k of IDENTITY_KEYS) if (labels[k]) return labels[k];
  return null;
};

/** The serving instances of an incident, from its engine series' identity labels; fewer than two means no fleet. */
export function instanceGroups(sig: Signals): InstanceGroup[] {
  const by = new Map<string, InstanceGroup>();
  // The serving engine's own signals define the instances.
  const visit = (labels: Record<string, string>, name: string) => {
    if (!ENGINE_FAMILY.test(name)) return;
    const key = identity(labels);
    if (key === null) return;
    let g = by.get(key);
    if (!g) by.set(key, (g = { key, ids: new Set() }));
    for (const k of IDENTITY_KEYS) if (labels[k]) g.ids.add(labels[k]);
  };
  for (const [name, list] of sig.series) for (const s of list) visit(s.labels, name);
  for (const [name, list] of sig.histograms) for (const h of list) visit(h.labels, name);
  return mergeAliases([...by.values()]).sort((a, b) => (a.key < b.key ? -1 : 1));
}

/** Fewest characters and dash-separated words of a name another one ends with, for the two to be one pod's. */
const ALIAS_MIN_CHARS = 12;
const ALIAS_MIN_WORDS = 3;

/** A word that names what a file holds, not whose it is (`vllm-0-metrics.txt` beside `vllm-0.log`). */
const CONTENT_WORD = /[-_.](?:metrics?|prom|prometheus|scrapes?|logs?|stdout|stderr)$/i;

/**
 * Whether two names are one process's: equal, equal but for a word at the end that says what the file holds
 * (`vllm-0-metrics` and `vllm-0`), or one ends with the other after a `-`, `_` or `.` (a pod's metrics saved
 * as `vllm-<pod>.prom`, its log as `<pod>.log`: files named after the pod, each with its own prefix), where
 * the shorter is long enough to be a pod's name (`<deployment>-<hash>-<id>`), not a word.
 */
export function sameProcessName(a: string, b: string): boolean {
  if (a === b) return true;
  const bare = (n: string) => n.replace(CONTENT_WORD, '');
  if (bare(a) === bare(b)) return true;
  const [short, long] = a.length < b.length ? [a, b] : [b, a];
  if (short.length < ALIAS_MIN_CHARS || short.split('-').length < ALIAS_MIN_WORDS) return false;
  return long.endsWith(short) && /[-_.]/.test(long[long.length - short.length - 1]);
}

/**
 * One instance seen under several names is one group: Prometheus series carry `instance` (ip:port) and
 * `pod`, the same pod's log file gives its series the pod's name, and files named after the pod with their
 * own prefixes name it twice (sameProcessName). Groups that share any identity merge; the merged group keeps
 * the name of the one that knew the most identities (the scraped series).
 */
function mergeAliases(groups: InstanceGroup[]): InstanceGroup[] {
  const out: InstanceGroup[] = [];
  for (const g of [...groups].sort((a, b) => b.ids.size - a.ids.size || (a.key < b.key ? -1 : 1))) {
    const into = out.find((o) => [...g.ids].some((id) => o.ids.has(id) || [...o.ids].some((x) => sameProcessName(x, id))));
    if (into) for (const id of g.ids) into.ids.add(id);
    else out.push({ key: g.key, ids: new Set(g.ids) });
  }
  return out;
}

/** Which group a label set belongs to: its own, another one, or none (a fleet-wide or unattributed series). */
function owner(labels: Record<string, string>, groups: InstanceGroup[]): InstanceGroup | null {
  for (const k of IDENTITY_KEYS) {
    const v = labels[k];
    if (!v) continue;
    const g = groups.find((x) => x.ids.has(v));
    if (g) return g;
  }
  return null;
}

/** A log file is an instance's when its path names one of the instance's identities (pod or host), or its name is the instance's under another prefix. */
function fileOwner(path: string | null, groups: InstanceGroup[]): InstanceGroup | null {
  if (!path) return null;
  for (const g of groups) for (const id of g.ids) if (id.length >= 3 && path.includes(id.split(':')[0])) return g;
  const stem = fileStem(path);
  for (const g of groups) for (const id of g.ids) if (sameProcessName(stem, id)) return g;
  return null;
}

/** The signals one instance sees: its own series, events and files, and everything no instance owns. */
export function signalsFor(sig: Signals, g: InstanceGroup, groups: InstanceGroup[]): Signals {
  // Events come from a few files: each file's owner is worked out once, not once an event.
  const owners = new Map<string | null, InstanceGroup | null>();
  const ownerOf = (path: string | null): InstanceGroup | null => {
    if (!owners.has(path)) owners.set(path, fileOwner(path, groups));
    return owners.get(path)!;
  };
  const events = sig.events.filter((e) => {
    const o = ownerOf(e.source_path);
    return o === null || o === g;
  });
  // GPU memory that no label ties to an instance (nvidia-smi or DCGM files named after hosts, not after
  // the engines' endpoints) is lent to an instance's own view only where its own log says memory ran out:
  // otherwise every replica's view reads the one leaking GPU as its own leak (a fleet of four, all four
  // named), and the one replica that crashed is no longer told apart. The fleet's view keeps them all.
  const ownOom = events.some((e) => e.kind === EV.oom && ownerOf(e.source_path) === g);
  const keep = <T extends LoadedSeries | LoadedHistogram>(m: Map<string, T[]>): Map<string, T[]> => {
    const out = new Map<string, T[]>();
    for (const [name, list] of m) {
      const mine = list.filter((s) => {
        const o = owner(s.labels, groups);
        if (o === null && name === SIG.gpuMemUsed && !ownOom) return false;
        return o === null || o === g;
      });
      if (mine.length) out.set(name, mine);
    }
    return out;
  };
  return { ...sig, series: keep(sig.series), histograms: keep(sig.histograms), events };
}

/** First and last reading of an instance's engine signals (series and histograms), or null where it has none. */
export function engineExtent(sig: Signals): [number, number] | null {
  let from = Infinity;
  let to = -Infinity;
  for (const map of [sig.series, sig.histograms] as const)
    for (const [name, list] of map) {
      if (!ENGINE_FAMILY.test(name)) continue;
      for (const x of list) {
        const [a, b] = extentOf(x);
        from = Math.min(from, a);
        to = Math.max(to, b);
      }
    }
  return from <= to ? [from, to] : null;
}

/**
 * How close to an instance's silence another one must have begun reporting to be its successor: a rollout
 * starts the new pod and stops the old one once it is ready (the new one first), or stops it first and loads
 * the model again (minutes after).
 */
const SUCCESSOR_MS = 10 * 60_000;

/**
 * Whether an instance's outage is its retirement: silent from the evidence's start to the incident's end,
 * while another instance began reporting (later than it had) within SUCCESSOR_MS of it and went on past it — the pod a rollout
 * or a rescheduling replaced, not an engine that died. Its crashes, OOMs and errors stay evidence of their
 * own; a fleet that fell silent as a whole is the pooled analysis' outage, which this does not touch.
 */
function retired(e: Evidence, own: [number, number] | null | undefined, endMs: number, per: { extent?: [number, number] | null }[], windowMs: number): boolean {
  if (!isOutageEvidence(e) || e.end_ms < endMs - windowMs || !own) return false;
  const succeeds = (x: [number, number] | null | undefined) => !!x && x[0] > own[0] && Math.abs(x[0] - e.start_ms) <= SUCCESSOR_MS && x[1] > e.start_ms + windowMs;
  return per.some((p) => succeeds(p.extent));
}

/**
 * Folds per-instance diagnoses into the fleet's. A cause the fleet fires lists the instances where it
 * also fires on its own (none listed: all of them, or the fleet as a whole); a cause only an instance
 * fires joins the list at its precedence. The first cause is the root cause wherever it was found.
 */
export function mergeFleet(fleet: Diagnosis, per: { group: InstanceGroup; d: Diagnosis; extent?: [number, number] | null }[]): Diagnosis {
  const firingIn = new Map<string, string[]>();
  for (const { group, d } of per) for (const c of d.causes) firingIn.set(c.id, [...(firingIn.get(c.id) ?? []), group.key]);
  const where = (id: string) => {
    const list = firingIn.get(id) ?? [];
    return list.length && list.length < per.length ? list : [];
  };
  // A cause may be, inside an instance, the root of a stronger mechanism (a replica's host leak driving its
  // frontend bottleneck): it takes that chain, and its precedence, whether the pooled series showed it or
  // only instances did (the replica whose eager steps filled its KV pool named beside one whose did not).
  const strongestChain = (c: CauseResult): CauseId[] => {
    let chain = c.chain;
    for (const { d } of per) {
      const own = d.causes.find((x) => x.id === c.id);
      if (own && own.chain[0] === c.id && precedence(own) < precedence({ ...c, chain })) chain = own.chain;
    }
    return chain;
  };
  const merged: CauseResult[] = fleet.causes.map((c) => ({ ...c, chain: strongestChain(c), instances: where(c.id) }));
  for (const { d } of per)
    for (const c of d.causes) {
      if (merged.some((m) => m.id === c.id)) continue;
      const best = per.map((p) => p.d.causes.find((x) => x.id === c.id)).filter((x): x is CauseResult => !!x).sort((a, b) => b.confidence - a.confidence)[0];
      merged.push({ ...best, chain: strongestChain(best), instances: where(c.id) });
    }
  // Stable: the fleet's own order among its causes, instance-only causes placed by precedence.
  // Within a level, a root sorts before the mechanism it drives (its chain runs root → mechanism) where
  // it holds wherever that mechanism does: a surge on one replica explains no KV exhaustion on the others.
  const where_ = (c: CauseResult) => c.instances ?? [];
  // Or where every instance that shows the mechanism has a root upstream of it: then the mechanism is no root
  // anywhere, and a root that drives it leads (eager CUDA-graph steps filled one replica's KV pool, a surge
  // the other's, and the fleet's pooled reading named the exhaustion).
  const drivenEverywhere = (b: CauseResult) => {
    const own = per.map((p) => p.d.causes.find((x) => x.id === b.id)).filter((x): x is CauseResult => !!x);
    return own.length > 0 && own.every((x) => x.chain[0] !== x.id);
  };
  const covers = (a: CauseResult, b: CauseResult) =>
    a.id !== b.id && a.chain[0] === a.id && a.chain.includes(b.id) && (where_(a).length === 0 || (where_(b).length > 0 && where_(b).every((x) => where_(a).includes(x))) || drivenEverywhere(b));
  // A cause that no instance's own data shows, beside causes that some instance's do, is a reading of the
  // pooled series only (a restart on one replica read against the whole fleet's latency): it ranks after them.
  // A cause read off its own symptom (`inferred`) ranks after every other wherever it was found: an instance
  // showing only that does not put a pooled reading behind it (a rollout's slower decode on one replica read
  // as an inferred CUDA-graph cap there, the deploy seen only against the fleet's steady arrivals, since the
  // balancer sent the slower replica fewer requests).
  // A cause no instance could assess on its own data (GPU telemetry no replica owns: a DCGM exporter's
  // query_range beside two engines) is the pooled series' reading by necessity, not in spite of them: it keeps
  // its precedence (a replica's GPU memory leak, seen only pooled, ranked behind prompt tokens both replicas
  // counted twice).
  const unseeable = (c: CauseResult) => per.every((p) => p.d.checked.find((x) => x.id === c.id)?.verdict === 'not_assessable');
  const firesSomewhere = (c: CauseResult) => (firingIn.get(c.id)?.length ?? 0) > 0;
  const seen = (c: CauseResult) => firesSomewhere(c) || unseeable(c);
  const anySeen = per.length > 1 && merged.some(firesSomewhere);
  // One that drives a measured mechanism (its chain runs on past it) ranks by that chain like any root.
  const order = merged.map((c, i) => ({ c, i, p: precedence(c), last: c.inferred && c.chain[c.chain.length - 1] === c.id ? 1 : 0, alone: anySeen && !seen(c) ? 1 : 0 }));
  order.sort((a, b) => a.last - b.last || a.alone - b.alone || a.p - b.p || (covers(a.c, b.c) ? -1 : covers(b.c, a.c) ? 1 : a.i - b.i));
  const causes = order.map((x) => x.c);

  const instances: InstanceDiagnosis[] = per.map(({ group, d }) => ({
    instance: group.key,
    status: d.status,
    onset_ms: d.onset_ms,
    causes: d.causes.map((c) => c.id),
    ids: [...group.ids].sort(),
    windows: thinWindows(d.windows),
  }));
  const top = causes[0];
  const onsetOf = (id: string) => {
    const c = causes.find((x) => x.id === id);
    return c?.onset_ms ?? null;
  };
  let onset = fleet.onset_ms;
  if (top) {
    const ts = top.chain.map(onsetOf).filter((x): x is number => x !== null);
    onset = ts.length ? Math.min(...ts) : (top.onset_ms ?? fleet.onset_ms);
  }
  const evidence: Evidence[] = [...(fleet.unexplained?.evidence ?? [])];
  const collectionGap = silentTogether(fleet, per);
  for (const { group, d, extent } of per)
    for (const e of d.unexplained?.evidence ?? []) {
      if ((collectionGap && isOutageEvidence(e)) || retired(e, extent, fleet.incident.end_ms, per, fleet.window_ms ?? 0)) continue;
      evidence.push({ ...e, text: `${group.key}: ${e.text}` });
    }
  evidence.sort((a, b) => a.start_ms - b.start_ms);
  // Too little data for the pooled series is too little for the instances' too (each holds a part of them).
  const status = causes.length ? 'explained' : evidence.length ? 'unexplained' : fleet.status === 'insufficient' ? 'insufficient' : 'healthy';
  const firedIds = new Set(causes.map((c) => c.id));
  return {
    ...fleet,
    onset_ms: status === 'unexplained' && onset === null ? evidence[0].start_ms : onset,
    causes,
    status,
    unexplained: status === 'unexplained' ? { onset_ms: evidence[0].start_ms, evidence } : null,
    checked: [...causes.map((c) => ({ id: c.id, verdict: 'fired' as const, failed: [], missing: [] })), ...fleet.checked.filter((c) => !firedIds.has(c.id) && c.verdict !== 'fired')],
    instances,
  };
}

/**
 * Whether every instance fell silent over one shared stretch while the pooled analysis, which reads every
 * GPU's telemetry, saw no outage: a gap in the collection (the scraper, the export), not each engine dying
 * at once. An instance's own view lends it no unattributed GPU telemetry, so it cannot tell the two apart.
 */
function silentTogether(fleet: Diagnosis, per: { d: Diagnosis }[]): boolean {
  if (per.length < 2 || (fleet.unexplained?.evidence ?? []).some(isOutageEvidence)) return false;
  let from = -Infinity;
  let to = Infinity;
  for (const { d } of per) {
    const own = (d.unexplained?.evidence ?? []).filter(isOutageEvidence);
    if (!own.length) return false;
    from = Math.max(from, Math.min(...own.map((e) => e.start_ms)));
    to = Math.min(to, Math.max(...own.map((e) => e.end_ms)));
  }
  return from < to;
}

/** At most FLEET_WINDOWS windows for the fleet view: runs of consecutive windows, each the worst (highest S) of its run. */
export function thinWindows(ws: WindowScore[]): { t_ms: number; quadrant: WindowScore['quadrant']; S: number }[] {
  const per = Math.max(1, Math.ceil(ws.length / FLEET_WINDOWS));
  const out: { t_ms: number; quadrant: WindowScore['quadrant']; S: number }[] = [];
  for (let i = 0; i < ws.length; i += per) {
    let worst = ws[i];
    for (let j = i + 1; j < Math.min(ws.length, i + per); j++) if (ws[j].S > worst.S) worst = ws[j];
    out.push({ t_ms: ws[i].t_ms, quadrant: worst.quadrant, S: Math.round(worst.S * 1000) / 1000 });
  }
  return out;
}
