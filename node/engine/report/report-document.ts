// The report as a small document model (sections of headings, paragraphs, key/value lists, tables
// and figure slots) with every value already turned into text. HTML and Markdown render this one
// model, so both formats state the same facts in the same order.
import type { Condition } from '../../../common/contract/diagnosis';
import { causeMechanism, causeName, chainText } from '../../../common/causes';
import { orderFrames } from '../../../common/frames';
import { checkedCauses } from '../../../common/verdict';
import { cleanText, formatBytes, formatConditionValue, formatDuration, formatNumber, formatPercent, formatTime, formatTimeAt, groupDigits } from '../../../common/format';
import type { Figure } from './figures';
import type { ReportData } from './report-data';

export type Tone = 'good' | 'bad' | 'warn' | 'muted' | 'mono' | 'nowrap';
export type Cell = string | { text: string; tone?: Tone; lines?: string[] };

export type Block =
  | { t: 'h3'; text: string }
  | { t: 'p'; text: string; tone?: 'verdict' | 'note' }
  | { t: 'kv'; rows: [string, string][] }
  | { t: 'table'; columns: string[]; rows: Cell[][]; numeric?: number[] }
  | { t: 'figure'; figure: Figure };

export interface Section {
  id: string;
  title: string;
  /** Starts a new printed page. */
  page: boolean;
  blocks: Block[];
}

export interface ReportDocument {
  title: string;
  kicker: string;
  meta: [string, string][];
  stamp: string;
  sections: Section[];
}

const LOG_TEXT_CAP = 400;
const WARNINGS_PER_SOURCE = 20;
const FRAMES_SHOWN = 6;
const RUNS_SHOWN = 60;

export function buildDocument(d: ReportData, figures: Figure[]): ReportDocument {
  const origin = d.span.start_ms;
  const at = (ms: number | null) => formatTimeAt(ms, origin);
  const dg = d.diagnosis;
  const sources = d.sources;
  const count = (s: string) => sources.filter((x) => x.status === s).length;
  const th = d.thresholds;

  const meta: [string, string][] = [
    ['Incident', `#${d.incident.id} ${d.incident.name}`],
    ['Time span', `${formatTime(d.span.start_ms)} — ${formatTime(d.span.end_ms)}`],
    ['Duration', formatDuration(d.span.end_ms - d.span.start_ms)],
    ['Sources', `${sources.length} (${count('ok')} imported, ${count('failed')} failed, ${count('skipped')} skipped)`],
    [
      'Data',
      `${d.incident.counts.series} series, ${d.incident.counts.samples} samples, ${d.incident.counts.events} log events, ${d.incident.counts.spans} spans, ${d.incident.counts.kernels} kernels, ${d.incident.counts.allocations} allocations`,
    ],
    ['Analysis preset', `${dg.preset} (latency θℓ ${th.latency_ms} ms, throughput θt ${formatPercent(th.throughput_drop, 0)})`],
  ];

  // Sections flow on from one another; only the long reference parts start a printed page.
  const sections: Section[] = [
    { id: 'summary', title: 'Summary', page: false, blocks: [...summary(d, at), ...figures.filter((x) => x.file === 'quadrant-timeline.svg').map((figure): Block => ({ t: 'figure', figure }))] },
    { id: 'timeline', title: 'Timeline', page: false, blocks: chronology(d) },
    { id: 'diagnosis', title: 'Root cause and evidence', page: false, blocks: diagnosis(d, at) },
    { id: 'ruled-out', title: 'What was ruled out, and why', page: false, blocks: ruledOut(d) },
    { id: 'questions', title: 'Open questions', page: false, blocks: openQuestions(d) },
    { id: 'signals', title: 'Key signals', page: false, blocks: signals(d, figures) },
    { id: 'trajectory', title: 'Quadrant trajectory', page: false, blocks: trajectory(d, figures, at) },
    { id: 'alerts', title: 'Alerts and annotations', page: false, blocks: timeline(d, at) },
    { id: 'resources', title: 'Memory and KV cache', page: false, blocks: resources(d, at) },
    { id: 'logs', title: 'Log lines', page: true, blocks: logs(d) },
    { id: 'sources', title: 'Sources and method', page: true, blocks: sourcesAndMethod(d) },
  ];
  return {
    title: d.incident.name,
    kicker: 'Incident postmortem · Quadscope',
    meta,
    stamp: `Generated ${formatTime(d.generated_ms)} by Quadscope.`,
    sections,
  };
}

function summary(d: ReportData, at: (ms: number | null) => string): Block[] {
  const dg = d.diagnosis;
  const v = d.verdict;
  const top = dg.causes[0] ?? null;
  const blocks: Block[] = [];
  const lead = v.status === 'explained' ? `Explained: ${v.title}` : v.title;
  const confidence = v.confidence !== null ? ` (confidence ${v.confidence.toFixed(2)})` : '';
  // Healthy and too-little-data verdicts have no onset: their one sentence is the whole verdict.
  const quiet = v.status === 'healthy' || v.status === 'insufficient';
  blocks.push({ t: 'p', tone: 'verdict', text: quiet ? `${v.title}: ${v.detail}` : `${lead}${confidence}, onset ${at(v.onset_ms)}.` });
  if (!quiet) blocks.push({ t: 'p', text: v.detail });

  const rows: [string, string][] = [['Status', v.status]];
  if (top && v.root) {
    rows.push(['Root cause', `${causeName(v.root)} (${v.root})`]);
    rows.push(['Causal chain', `${v.chain.map(causeName).join(' → ')}: ${v.mechanism}`]);
    rows.push(['Top cause', `${causeName(top.id)} (${top.id}), confidence ${top.confidence.toFixed(2)}`]);
  }
  rows.push(['Incident onset', at(v.onset_ms)]);
  rows.push(...impactRows(d));
  const others = dg.causes.slice(1);
  if (others.length) rows.push(['Other candidates', others.map((c) => `${causeName(c.id)} (${c.confidence.toFixed(2)})`).join('; ')]);
  if (v.disruptions.length) rows.push(['Crashes and faults', v.disruptions.slice(0, 6).map((e) => `${e.kind} at ${formatTime(e.ts_ms)}`).join('; ') + (v.disruptions.length > 6 ? `; … ${v.disruptions.length - 6} more` : '')]);
  rows.push(['Quadrant path', d.quadrant_path.length ? collapsePath(d.quadrant_path.map((r) => r.quadrant)) : '—']);
  rows.push(['Alerts', dg.alerts.length ? [...dg.alerts].sort((a, b) => a.first_fired_ms - b.first_fired_ms).map((a) => `${a.family} from ${at(a.first_fired_ms)}`).join('; ') : 'none fired']);
  if (dg.leak) rows.push(['Memory leak', `${formatBytes(dg.leak.slope_bytes_per_min)}/min; projected OOM ${dg.leak.projected_oom_ms === null ? 'not projected' : at(dg.leak.projected_oom_ms)}`]);
  const checked = checkedCauses(dg);
  rows.push(['Causes checked', `${checked.length}: ${checked.filter((c) => c.verdict === 'fired').length} fired, ${checked.filter((c) => c.verdict === 'not_fired').length} ruled out, ${checked.filter((c) => c.verdict === 'not_assessable').length} not assessable`]);
  rows.push(['Annotations', String(d.annotations.length)]);
  blocks.push({ t: 'kv', rows });
  return blocks;
}

/** Duration, requests, tokens and errors of the impact window. */
function impactRows(d: ReportData): [string, string][] {
  const m = d.impact;
  if (!m) return [['Impact', 'none: no onset']];
  const n = (x: number | null) => (x === null ? '—' : groupDigits(Math.round(x)));
  const rows: [string, string][] = [['Impact window', `${formatTime(m.start_ms)} — ${m.ongoing ? 'end of data (still degraded)' : formatTime(m.end_ms)}, ${formatDuration(m.end_ms - m.start_ms)}`]];
  if (m.requests_finished !== null) rows.push(['Requests finished', n(m.requests_finished)]);
  if (m.requests_failed !== null) rows.push(['Requests failed or aborted', n(m.requests_failed)]);
  if (m.requests_slow !== null && m.slow_over_s !== null) rows.push([`Requests slower than ${formatDuration(m.slow_over_s * 1000)}`, n(m.requests_slow)]);
  if (m.tokens_generated !== null) rows.push(['Tokens generated', n(m.tokens_generated)]);
  if (m.tokens_per_s !== null && m.baseline_tokens_per_s) {
    const change = m.tokens_per_s / m.baseline_tokens_per_s - 1;
    rows.push(['Generation throughput', `${formatNumber(m.tokens_per_s)} tokens/s against ${formatNumber(m.baseline_tokens_per_s)} in the baseline (${change >= 0 ? '+' : '−'}${formatPercent(Math.abs(change))})`]);
  }
  rows.push(['Error and critical log lines', String(m.error_events)]);
  return rows;
}

/** Events, alerts and notes in time order, with their offset from the start. */
function chronology(d: ReportData): Block[] {
  if (!d.timeline.length) return [{ t: 'p', text: 'Nothing to list.' }];
  return [
    { t: 'p', tone: 'note', text: 'Crashes, faults and the first error lines, alerts firing and resolving, and the notes written on the incident, in time order (UTC).' },
    {
      t: 'table',
      columns: ['Time', 'T+', 'What', 'Detail', 'Source'],
      rows: d.timeline.map((e) => [
        { text: formatTime(e.t_ms).replace(/ UTC$/, ''), tone: 'nowrap' },
        { text: formatDuration(e.t_ms - d.span.start_ms), tone: 'nowrap' },
        { text: e.what, tone: e.bad ? 'bad' : e.what === 'note' ? 'warn' : 'muted' },
        e.text.length > 240 ? `${e.text.slice(0, 240)}…` : e.text,
        { text: e.source || '—', tone: 'mono' },
      ]),
    },
  ];
}

function failedText(c: Condition): string {
  const th = c.threshold === undefined || c.threshold === null ? '' : ` vs threshold ${formatConditionValue(c.threshold, c.condition)}`;
  return `${c.condition}: ${c.held ? 'veto held' : 'not met'}, measured ${formatConditionValue(c.value, c.condition)}${th}`;
}

/** Causes that were checked and did not fire (with the conditions that failed), then those the data could not decide. */
function ruledOut(d: ReportData): Block[] {
  const checked = checkedCauses(d.diagnosis);
  const notFired = checked.filter((c) => c.verdict === 'not_fired');
  const na = checked.filter((c) => c.verdict === 'not_assessable');
  const blocks: Block[] = [];
  if (notFired.length) {
    blocks.push({ t: 'p', tone: 'note', text: 'Checked against the data and ruled out: the required conditions that failed, each with the value measured and the threshold.' });
    blocks.push({
      t: 'table',
      columns: ['Cause', 'Why not'],
      rows: notFired.map((c) => [causeName(c.id), { text: c.failed.map(failedText).join(' | ') || 'no required condition held', lines: c.failed.length ? c.failed.map(failedText) : ['no required condition held'] }]),
    });
  } else blocks.push({ t: 'p', text: 'No cause was ruled out by its conditions.' });
  blocks.push({ t: 'h3', text: 'Not assessable' });
  if (na.length) {
    blocks.push({ t: 'p', tone: 'note', text: 'These causes could not be checked because the bundle lacks the data their required conditions read. They are not ruled out.' });
    blocks.push({ t: 'table', columns: ['Cause', 'Id', 'Missing data'], rows: na.map((n) => [causeName(n.id), { text: n.id, tone: 'mono' }, { text: n.missing.join(', '), tone: 'mono' }]) });
  } else blocks.push({ t: 'p', text: 'Every cause could be assessed with the data in the bundle.' });
  return blocks;
}

/** What the data leave open: the questions a postmortem should answer next. */
function openQuestions(d: ReportData): Block[] {
  const v = d.verdict;
  const q: string[] = [];
  if (v.status === 'unexplained') q.push(`What led to it (${v.title.replace(/^Unexplained incident: /, '')})? No cause's rule matched; the causes below could not be checked with this bundle.`);
  if (v.status === 'explained' && v.root) q.push(`What set off the root cause, ${causeName(v.root)} (a client, a batch job, a routing or deploy change)? The bundle shows its effect, not its origin.`);
  if (d.impact?.ongoing) q.push('Did the service recover? The incident is still degraded where the data end.');
  if (v.disruptions.some((e) => e.kind === 'oom')) q.push('Why did memory run out: load, a leak, fragmentation or a configuration (gpu_memory_utilization, max_num_seqs)? A CUDA memory snapshot from before the OOM would tell.');
  for (const c of checkedCauses(d.diagnosis).filter((x) => x.verdict === 'not_assessable').slice(0, 6)) q.push(`Could the cause be ${causeName(c.id)}? Deciding it needs ${c.missing.join(', ')}.`);
  if (!q.length) return [{ t: 'p', text: 'None: the data answer what the diagnosis asks.' }];
  return [{ t: 'kv', rows: q.map((text, i): [string, string] => [`Q${i + 1}`, text]) }];
}

/** "healthy → saturated → exhausted": the order of quadrants visited, repeats folded. */
function collapsePath(qs: string[]): string {
  const out: string[] = [];
  for (const q of qs) if (out[out.length - 1] !== q) out.push(q);
  const shown = out.length > 12 ? [...out.slice(0, 11), `… (${out.length - 11} more)`] : out;
  return shown.join(' → ');
}

function conditionRows(kind: 'require' | 'support' | 'veto', list: Condition[]): Cell[][] {
  return list.map((c) => {
    const result: Cell =
      kind === 'require'
        ? { text: c.held ? 'held' : 'not held', tone: c.held ? 'good' : 'bad' }
        : kind === 'support'
          ? { text: c.held ? 'found' : 'not found', tone: c.held ? 'good' : 'muted' }
          : { text: c.held ? 'fired' : 'did not fire', tone: c.held ? 'bad' : 'good' };
    const th = c.threshold === undefined || c.threshold === null ? '—' : formatConditionValue(c.threshold, c.condition);
    return [kind.toUpperCase(), { text: c.condition, tone: 'mono' }, formatConditionValue(c.value, c.condition), th, result];
  });
}

function diagnosis(d: ReportData, at: (ms: number | null) => string): Block[] {
  const dg = d.diagnosis;
  const v = d.verdict;
  const blocks: Block[] = [];
  if (!dg.causes.length) {
    blocks.push({ t: 'p', text: v.status === 'unexplained' ? `No cause fired. ${v.detail}` : 'No cause fired.' });
    if (v.evidence.length)
      blocks.push({ t: 'table', columns: ['Evidence', 'Reference', 'From', 'To', 'What it shows'], rows: v.evidence.map((e) => [e.kind, { text: e.ref, tone: 'mono' }, at(e.start_ms), at(e.end_ms), cleanText(e.text)]) });
  }
  dg.causes.forEach((c, i) => {
    blocks.push({ t: 'h3', text: `${i + 1}. ${causeName(c.id)} — ${c.id}` });
    blocks.push({ t: 'kv', rows: [['Confidence', c.confidence.toFixed(2)], ['Causal chain', chainText(c)], ['Mechanism', causeMechanism(c.id)], ...(c.instances?.length ? [['Instances', c.instances.join(', ')] as [string, string]] : [])] });
    const rows = [...conditionRows('require', c.require), ...conditionRows('support', c.support), ...conditionRows('veto', c.veto)];
    if (rows.length) blocks.push({ t: 'table', columns: ['Check', 'Condition', 'Measured', 'Threshold', 'Result'], rows });
    if (c.evidence.length)
      blocks.push({
        t: 'table',
        columns: ['Evidence', 'Reference', 'From', 'To', 'What it shows'],
        rows: c.evidence.map((e) => [e.kind, { text: e.ref, tone: 'mono' }, at(e.start_ms), at(e.end_ms), cleanText(e.text)]),
      });
  });
  return blocks;
}

function trajectory(d: ReportData, figures: Figure[], at: (ms: number | null) => string): Block[] {
  const w = d.diagnosis.windows;
  const blocks: Block[] = [];
  if (w.length) {
    const maxR = Math.max(...w.map((x) => x.R));
    const maxS = Math.max(...w.map((x) => x.S));
    blocks.push({ t: 'p', text: `${w.length} windows scored. Peak resource pressure R = ${maxR.toFixed(2)}, peak service degradation S = ${maxS.toFixed(2)} (quadrant boundaries θR = ${d.thresholds.resource_R.toFixed(2)}, θS = ${d.thresholds.service_S.toFixed(2)}).` });
  } else blocks.push({ t: 'p', text: 'The diagnosis holds no scored windows.' });
  for (const f of figures.filter((x) => x.kind === 'trajectory')) blocks.push({ t: 'figure', figure: f });
  const runs = d.quadrant_path;
  if (runs.length) {
    blocks.push({
      t: 'table',
      columns: ['Quadrant', 'From', 'To', 'Duration', 'Windows'],
      numeric: [4],
      rows: runs.slice(0, RUNS_SHOWN).map((r) => [r.quadrant, at(r.start_ms), at(r.end_ms), formatDuration(r.end_ms - r.start_ms), String(r.windows)]),
    });
    if (runs.length > RUNS_SHOWN) blocks.push({ t: 'p', tone: 'note', text: `${runs.length - RUNS_SHOWN} later stretches not listed.` });
  }
  return blocks;
}

function signals(d: ReportData, figures: Figure[]): Block[] {
  const charts = figures.filter((x) => x.kind === 'chart');
  if (!charts.length) return [{ t: 'p', text: 'The bundle holds none of the canonical series these charts draw (latency, tokens, queue, KV usage, GPU memory, preemptions, errors).' }];
  return [
    { t: 'p', tone: 'note', text: 'Shaded: alert periods by family (coloured bar at the top of each chart) and annotations (A1, A2, … as in the annotation list). Dashed red line: incident onset. Light envelopes: the min–max range where points were folded.' },
    ...charts.map((figure): Block => ({ t: 'figure', figure })),
  ];
}

function timeline(d: ReportData, at: (ms: number | null) => string): Block[] {
  const dg = d.diagnosis;
  const blocks: Block[] = [{ t: 'h3', text: 'Alerts' }];
  const alerts = [...dg.alerts].sort((a, b) => a.first_fired_ms - b.first_fired_ms || (a.family < b.family ? -1 : 1));
  if (alerts.length)
    blocks.push({
      t: 'table',
      columns: ['Family', 'First fired', 'Resolved', 'Duration', 'From onset'],
      rows: alerts.map((a) => [
        a.family,
        at(a.first_fired_ms),
        a.resolved_ms === null ? { text: 'unresolved at end of data', tone: 'bad' } : at(a.resolved_ms),
        a.resolved_ms === null ? '—' : formatDuration(a.resolved_ms - a.first_fired_ms),
        dg.onset_ms === null ? '—' : formatDuration(a.first_fired_ms - dg.onset_ms),
      ]),
    });
  else blocks.push({ t: 'p', text: 'No alert fired.' });

  blocks.push({ t: 'h3', text: 'Annotations' });
  if (d.annotations.length)
    blocks.push({
      t: 'table',
      columns: ['#', 'From', 'To', 'Panel', 'Author', 'Note'],
      rows: d.annotations.map((a, i) => [`A${i + 1}`, at(a.start_ms), a.end_ms === a.start_ms ? '—' : at(a.end_ms), a.panel, a.author || '—', a.text]),
    });
  else blocks.push({ t: 'p', text: 'No annotations were made on this incident.' });
  return blocks;
}

function resources(d: ReportData, at: (ms: number | null) => string): Block[] {
  const blocks: Block[] = [{ t: 'h3', text: 'GPU memory' }];
  if (d.gpu_memory.length)
    blocks.push({
      t: 'table',
      columns: ['GPU', 'Peak used', 'Capacity', 'Peak share'],
      numeric: [1, 2, 3],
      rows: d.gpu_memory.map((g) => [g.gpu, formatBytes(g.peak_used), g.capacity === null ? '—' : formatBytes(g.capacity), g.capacity ? formatPercent(g.peak_used / g.capacity, 1) : '—']),
    });
  else blocks.push({ t: 'p', text: 'No GPU memory series in the bundle.' });

  const leak = d.diagnosis.leak;
  if (leak) blocks.push({ t: 'kv', rows: [['Leak slope', `${formatBytes(leak.slope_bytes_per_min)}/min`], ['Projected OOM', leak.projected_oom_ms === null ? 'not projected' : at(leak.projected_oom_ms)]] });

  blocks.push({ t: 'h3', text: 'Top leaking stacks' });
  if (d.leak_sites.length) {
    blocks.push({
      t: 'p',
      tone: 'note',
      text: d.leak_sites_from === 'diagnosis' ? 'Allocation sites the leak analysis attributes live memory to, largest first.' : 'Allocations still live at the end of the recording, grouped by allocation stack, largest first.',
    });
    blocks.push({
      t: 'table',
      columns: ['#', 'Live', 'Allocations', 'Stack (Python frames first, innermost first)'],
      numeric: [1, 2],
      rows: d.leak_sites.map((s, i) => {
        const { shown, folded } = orderFrames(s.frames);
        const more = [...(shown.length > FRAMES_SHOWN ? [`… ${shown.length - FRAMES_SHOWN} more frames`] : []), ...(folded.length ? [`(${folded.length} allocator / unwinder frames folded)`] : [])];
        return [
          String(i + 1),
          formatBytes(s.live_bytes),
          String(s.allocs),
          { text: shown.slice(0, FRAMES_SHOWN).join(' | ') || '(no stack recorded)', tone: 'mono', lines: s.frames.length ? [...shown.slice(0, FRAMES_SHOWN), ...more] : ['(no stack recorded)'] },
        ];
      }),
    });
  } else blocks.push({ t: 'p', text: 'No allocation records with live memory (no memory snapshot, Kineto memory events or nsys memory trace in the bundle).' });

  blocks.push({ t: 'h3', text: 'KV cache' });
  const kv = d.kv;
  if (kv.usage.length)
    blocks.push({
      t: 'table',
      columns: ['Series', 'Peak usage', 'Mean usage', 'Time at ≥ 95%'],
      numeric: [1, 2, 3],
      rows: kv.usage.map((u) => [u.label, formatPercent(u.peak, 1), formatPercent(u.mean, 1), formatPercent(u.near_full, 1)]),
    });
  blocks.push({
    t: 'kv',
    rows: [
      ['Preemptions', kv.preemptions === null ? 'no preemption counter in the bundle' : String(kv.preemptions)],
      ['Peak preemption rate', kv.peak_preemption_rate === null ? '—' : `${formatNumber(kv.peak_preemption_rate)}/s`],
      ['Prefix-cache hit rate', kv.prefix_hit_rate === null ? '—' : formatPercent(kv.prefix_hit_rate, 1)],
    ],
  });
  return blocks;
}

function logs(d: ReportData): Block[] {
  const { lines, matching } = d.logs;
  if (!lines.length) return [{ t: 'p', text: 'No error or warning lines, and no log line is cited as evidence.' }];
  return [
    { t: 'p', tone: 'note', text: `${lines.length} of ${matching} lines: errors, warnings and the events the diagnosis cites (marked “cited”), in time order.` },
    {
      t: 'table',
      columns: ['Time', 'Severity', 'Source', 'Line'],
      rows: lines.map((l) => [
        { text: formatTime(l.ts_ms), tone: 'nowrap' },
        { text: l.evidence ? `${l.severity} · cited` : l.severity, tone: l.severity === 'error' || l.severity === 'critical' ? 'bad' : l.severity === 'warning' ? 'warn' : 'muted' },
        { text: l.source_path ? `${l.source_path}${l.line === null ? '' : `:${l.line}`}` : '—', tone: 'mono' },
        { text: l.text.length > LOG_TEXT_CAP ? `${l.text.slice(0, LOG_TEXT_CAP)}…` : l.text, tone: 'mono' },
      ]),
    },
  ];
}

function sourcesAndMethod(d: ReportData): Block[] {
  const blocks: Block[] = [{ t: 'h3', text: 'Sources' }];
  if (d.sources.length)
    blocks.push({
      t: 'table',
      columns: ['#', 'Path', 'Format', 'Size', 'Rows', 'Status', 'Error'],
      numeric: [3, 4],
      rows: d.sources.map((s, i) => [
        String(i + 1),
        { text: s.path, tone: 'mono' },
        s.format,
        formatBytes(s.bytes),
        String(s.rows),
        { text: s.status, tone: s.status === 'ok' ? 'good' : s.status === 'failed' ? 'bad' : 'muted' },
        s.error ?? '—',
      ]),
    });
  else blocks.push({ t: 'p', text: 'No sources recorded.' });
  const warnings = d.sources.flatMap((s, i) => [
    ...s.warnings.slice(0, WARNINGS_PER_SOURCE).map((w): Cell[] => [String(i + 1), { text: w, tone: 'mono' }]),
    ...(s.warnings.length > WARNINGS_PER_SOURCE ? [[String(i + 1), `… ${s.warnings.length - WARNINGS_PER_SOURCE} more warnings`] as Cell[]] : []),
  ]);
  if (warnings.length) {
    blocks.push({ t: 'h3', text: 'Import warnings' });
    blocks.push({ t: 'table', columns: ['Source #', 'Warning'], rows: warnings });
  }

  const th = d.thresholds;
  const dg = d.diagnosis;
  blocks.push({ t: 'h3', text: 'Thresholds and baseline' });
  blocks.push({
    t: 'table',
    columns: ['Parameter', 'Value'],
    rows: [
      ['Preset', dg.preset],
      ['Latency trigger θℓ (ΔP99 against baseline)', `${th.latency_ms} ms`],
      ['Throughput trigger θt (ΔTPS% against baseline)', formatPercent(th.throughput_drop, 0)],
      ['Resource-pressure boundary θR', th.resource_R.toFixed(2)],
      ['Service-degradation boundary θS', th.service_S.toFixed(2)],
      ['Error-rate threshold θe', formatPercent(th.error_rate, 0)],
      ['Analysed span', `${formatTime(dg.incident.start_ms)} — ${formatTime(dg.incident.end_ms)}`],
      ['Baseline', `${formatTime(dg.baseline.start_ms)} — ${formatTime(dg.baseline.end_ms)}`],
      ...(dg.causes_baseline ? [['Causes judged against', `${formatTime(dg.causes_baseline.start_ms)} — ${formatTime(dg.causes_baseline.end_ms)} (the minutes before the episode, which began hours after the baseline)`] as [string, string]] : []),
      ['Windows scored', String(dg.windows.length)],
    ],
  });
  blocks.push({ t: 'p', tone: 'note', text: 'Onset is the first window where P99 latency rose by more than θℓ and token throughput fell by more than θt, both against the baseline. Times are UTC.' });
  return blocks;
}
