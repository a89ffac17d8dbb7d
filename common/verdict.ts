// What an incident's diagnosis says in one line, the same in the headline, the overview and the report:
// healthy, explained (root cause → chain → mechanism), unexplained (something broke and no rule names
// it) or too little data to judge (series too short or absent, nothing broken seen). A crash, an OOM, an
// Xid or an outage is never shown as healthy, even from a diagnosis that says so: the events the bundle
// holds are checked here too. One onset everywhere: the diagnosis' own.
import type { CauseCheck, CauseId, Coverage, Diagnosis, DiagnosisStatus, Evidence } from './contract/diagnosis';
import { causeChain, causeMechanism, causeName } from './causes';
import { cleanText, formatClock, formatDuration } from './format';

/** An event as both the store and the workstation have it. */
export interface VerdictEvent {
  id?: number;
  ts_ms: number;
  kind: string;
  severity: string;
  text: string;
}

/** Event kinds that mean the service broke rather than slowed: what makes an incident never "healthy". */
export const DISRUPTION_KINDS: Record<string, string> = {
  oom: 'CUDA out of memory',
  engine_crash: 'engine crash',
  host_oom_kill: 'host OOM kill',
  gpu_fallen_off: 'GPU fell off the bus',
  xid: 'GPU Xid error',
  nccl_timeout: 'NCCL timeout',
  nccl_error: 'NCCL error',
  engine_restart: 'engine restart',
  hang: 'engine hang',
};

export const isDisruption = (e: Pick<VerdictEvent, 'kind'>): boolean => Object.prototype.hasOwnProperty.call(DISRUPTION_KINDS, e.kind);

export interface Verdict {
  status: DiagnosisStatus;
  /** "Traffic surge → KV-cache exhaustion", "Unexplained incident: CUDA out of memory", "Healthy". */
  title: string;
  /** One sentence under the title. */
  detail: string;
  /** The cause the chain starts from (what to fix), null unless explained. */
  root: CauseId | null;
  /** causes[0]: the cause the rules ranked first (the chain ends with it). */
  top: CauseId | null;
  chain: string[];
  mechanism: string;
  confidence: number | null;
  onset_ms: number | null;
  /** Crashes, OOMs, Xids, restarts, in time order. */
  disruptions: VerdictEvent[];
  /** Stretches with no data from any source inside the incident (outages, crashed collectors). */
  gaps: { start_ms: number; end_ms: number }[];
  /** What makes an unexplained incident abnormal (the diagnosis' evidence). */
  evidence: Evidence[];
  /** The stretch the causes were read against where it is not the baseline (Diagnosis.causes_baseline), else null. */
  reference: { start_ms: number; end_ms: number } | null;
}

/** The incident onset every view shows: the diagnosis' onset, else the unexplained evidence's, else the first disruption. */
export function onsetOf(d: Diagnosis, disruptions: VerdictEvent[] = []): number | null {
  return d.onset_ms ?? d.unexplained?.onset_ms ?? disruptions[0]?.ts_ms ?? null;
}

export function verdictOf(d: Diagnosis, events: readonly VerdictEvent[] = []): Verdict {
  const disruptions = events.filter(isDisruption).sort((a, b) => a.ts_ms - b.ts_ms);
  const gaps = d.gaps ?? [];
  const top = d.causes[0] ?? null;
  const evidence = d.unexplained?.evidence ?? [];
  const onset = onsetOf(d, disruptions);
  const abnormal = disruptions.length > 0 || gaps.length > 0 || d.onset_ms !== null || d.alerts.length > 0 || evidence.length > 0;
  const status: DiagnosisStatus = top ? 'explained' : d.status === 'unexplained' || abnormal ? 'unexplained' : d.status === 'insufficient' ? 'insufficient' : 'healthy';
  const base = { top: top?.id ?? null, onset_ms: onset, disruptions, gaps, evidence, reference: top ? (d.causes_baseline ?? null) : null };

  if (status === 'explained' && top) {
    const chain = causeChain(top);
    const root = chain[0] as CauseId;
    const mechanism = causeMechanism(chain[chain.length - 1]);
    const broke = disruptions.length ? ` ${disruptionSummary(disruptions)}.` : '';
    return {
      ...base,
      status,
      title: chain.map(causeName).join(' → '),
      detail: `${causeName(root)}${chain.length > 1 ? `, through ${chain.slice(1).map(causeName).join(' then ')}` : ''}: ${mechanism}.${broke}`,
      root,
      chain,
      mechanism,
      confidence: top.confidence,
    };
  }
  if (status === 'unexplained') {
    const what = disruptions.length
      ? disruptionSummary(disruptions)
      : gaps.length
        ? `no data for ${formatDuration(gaps.reduce((s, g) => s + g.end_ms - g.start_ms, 0))} (an outage or a stopped collector)`
        : evidence.length
          ? cleanText(evidence[0].text)
          : d.alerts.length
            ? `${[...new Set(d.alerts.map((a) => a.family))].join(' and ')} alert${d.alerts.length > 1 ? 's' : ''} fired`
            : 'latency and throughput crossed the trigger';
    return {
      ...base,
      status,
      title: `Unexplained incident: ${disruptions.length ? DISRUPTION_KINDS[disruptions[0].kind] : gaps.length ? 'outage' : 'service degraded'}`,
      detail: `${capitalise(what)}, and no cause's rule matched; see what was checked and what data would decide it.`,
      root: null,
      chain: [],
      mechanism: '',
      confidence: null,
    };
  }
  const c = d.coverage;
  if (status === 'insufficient' && c) {
    return {
      ...base,
      status,
      title: 'Too little data to judge',
      detail: `${c.span_ms > 0 ? `The bundle's time series cover ${formatDuration(c.span_ms)}` : 'The bundle holds no time series (events only)'}: too short for anything to hold long enough to alert after a baseline (that takes ${formatDuration(c.need_ms)}), so it shows only that no crash, OOM or Xid was seen.${errorsSeen(c)} Add the engine's metrics or a longer capture.`,
      root: null,
      chain: [],
      mechanism: '',
      confidence: null,
    };
  }
  // Older diagnoses have no coverage: they claimed both.
  const unmeasured = c ? [c.latency ? null : 'request latency', c.throughput ? null : 'token rate'].filter((x): x is string => x !== null) : [];
  return {
    ...base,
    status,
    title: 'Healthy',
    detail: unmeasured.length
      ? `No onset, no alert, no crash in what the bundle holds — but it measures no ${unmeasured.join(' and no ')}, so a slowdown there would not show.`
      : 'No onset, no alert, no crash: latency and throughput stayed within the thresholds.',
    root: null,
    chain: [],
    mechanism: '',
    confidence: null,
  };
}

/** " Its logs hold 2 error lines, the first: “…”." — what a verdict of too little data can still point at. */
function errorsSeen(c: Coverage): string {
  const n = c.error_events ?? 0;
  if (!n) return '';
  return ` Its logs hold ${n} error line${n > 1 ? 's' : ''}${c.first_error ? `, the first: “${cleanText(c.first_error)}”` : ''}.`;
}

/** "CUDA out of memory at 09:20:01, then 2 engine restarts" */
export function disruptionSummary(list: VerdictEvent[]): string {
  const first = list[0];
  const byKind = new Map<string, number>();
  for (const e of list.slice(1)) byKind.set(e.kind, (byKind.get(e.kind) ?? 0) + 1);
  const rest = [...byKind].map(([k, n]) => `${n} ${DISRUPTION_KINDS[k]}${n > 1 && !DISRUPTION_KINDS[k].endsWith('memory') ? 's' : ''}`);
  return `${DISRUPTION_KINDS[first.kind]} at ${formatClock(first.ts_ms)} UTC${rest.length ? `, then ${rest.join(', ')}` : ''}`;
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * Every cause as checked, fired first: the diagnosis' own list, completed with any fired or
 * not-assessable cause it left out (a diagnosis from before `checked` existed has none).
 */
export function checkedCauses(d: Diagnosis): CauseCheck[] {
  const out = [...(d.checked ?? [])];
  const has = new Set(out.map((c) => c.id));
  const add = (c: CauseCheck) => {
    if (has.has(c.id)) return;
    out.push(c);
    has.add(c.id);
  };
  for (const c of d.causes) add({ id: c.id, verdict: 'fired', failed: [], missing: [] });
  for (const n of d.not_assessable) add({ id: n.id, verdict: 'not_assessable', failed: [], missing: n.missing });
  const rank = { fired: 0, not_fired: 1, not_assessable: 2 } as const;
  return out.map((c, i) => [c, i] as const).sort((a, b) => rank[a[0].verdict] - rank[b[0].verdict] || a[1] - b[1]).map(([c]) => c);
}
