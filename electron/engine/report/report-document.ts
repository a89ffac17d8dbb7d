// The report as a small document model (sections of headings, paragraphs, key/value lists, tables
// and figure slots) with every value already turned into text. HTML and Markdown render this one
// model, so both formats state the same facts in the same order.
import type { CauseResult, Condition } from '../../contract/diagnosis';
import { causeName, chainText } from '../../../common/causes';
import { formatBytes, formatConditionValue, formatDuration, formatNumber, formatPercent, formatTime, formatTimeAt } from '../../../common/format';
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

  const top = dg.causes[0] ?? null;
  const sections: Section[] = [
    { id: 'summary', title: 'Summary', page: false, blocks: [...summary(d, top, at), ...figures.filter((x) => x.file === 'quadrant-timeline.svg').map((figure): Block => ({ t: 'figure', figure }))] },
    { id: 'diagnosis', title: 'Diagnosis', page: true, blocks: diagnosis(d, at) },
    { id: 'trajectory', title: 'Quadrant trajectory', page: true, blocks: trajectory(d, figures, at) },
    { id: 'signals', title: 'Key signals', page: true, blocks: signals(d, figures) },
    { id: 'timeline', title: 'Alerts and annotations', page: true, blocks: timeline(d, at) },
    { id: 'resources', title: 'Memory and KV cache', page: true, blocks: resources(d, at) },
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

function summary(d: ReportData, top: CauseResult | null, at: (ms: number | null) => string): Block[] {
  const dg = d.diagnosis;
  const blocks: Block[] = [];
  if (top) blocks.push({ t: 'p', tone: 'verdict', text: `Most likely cause: ${causeName(top.id)}, confidence ${top.confidence.toFixed(2)}, onset ${at(top.onset_ms ?? dg.onset_ms)}.` });
  else if (dg.onset_ms === null) blocks.push({ t: 'p', tone: 'verdict', text: 'No incident detected: the joint trigger never fired and no cause was found over the span.' });
  else blocks.push({ t: 'p', tone: 'verdict', text: `Service degraded from ${at(dg.onset_ms)}, but no cause's required conditions held; see the causes that could not be assessed.` });

  const rows: [string, string][] = [];
  if (top) {
    rows.push(['Top cause', `${causeName(top.id)} (${top.id})`]);
    rows.push(['Confidence', top.confidence.toFixed(2)]);
    rows.push(['Causal chain', chainText(top)]);
  }
  rows.push(['Incident onset', at(dg.onset_ms)]);
  const others = dg.causes.slice(1);
  if (others.length) rows.push(['Other candidates', others.map((c) => `${causeName(c.id)} (${c.confidence.toFixed(2)})`).join('; ')]);
  rows.push(['Quadrant path', d.quadrant_path.length ? collapsePath(d.quadrant_path.map((r) => r.quadrant)) : '—']);
  rows.push(['Alerts', dg.alerts.length ? [...dg.alerts].sort((a, b) => a.first_fired_ms - b.first_fired_ms).map((a) => `${a.family} from ${at(a.first_fired_ms)}`).join('; ') : 'none fired']);
  if (dg.leak) rows.push(['Memory leak', `${formatBytes(dg.leak.slope_bytes_per_min)}/min; projected OOM ${dg.leak.projected_oom_ms === null ? 'not projected' : at(dg.leak.projected_oom_ms)}`]);
  rows.push(['Not assessable', dg.not_assessable.length ? dg.not_assessable.map((n) => causeName(n.id)).join('; ') : 'none']);
  rows.push(['Annotations', String(d.annotations.length)]);
  blocks.push({ t: 'kv', rows });
  return blocks;
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
    return [kind.toUpperCase(), { text: c.condition, tone: 'mono' }, formatConditionValue(c.value, c.condition), result];
  });
}

function diagnosis(d: ReportData, at: (ms: number | null) => string): Block[] {
  const dg = d.diagnosis;
  const blocks: Block[] = [];
  if (!dg.causes.length) blocks.push({ t: 'p', text: 'No cause fired.' });
  dg.causes.forEach((c, i) => {
    blocks.push({ t: 'h3', text: `${i + 1}. ${causeName(c.id)} — ${c.id}` });
    blocks.push({ t: 'kv', rows: [['Confidence', c.confidence.toFixed(2)], ['Onset', at(c.onset_ms)], ['Causal chain', chainText(c)]] });
    const rows = [...conditionRows('require', c.require), ...conditionRows('support', c.support), ...conditionRows('veto', c.veto)];
    if (rows.length) blocks.push({ t: 'table', columns: ['Check', 'Condition', 'Measured', 'Result'], rows });
    if (c.evidence.length)
      blocks.push({
        t: 'table',
        columns: ['Evidence', 'Reference', 'From', 'To', 'What it shows'],
        rows: c.evidence.map((e) => [e.kind, { text: e.ref, tone: 'mono' }, at(e.start_ms), at(e.end_ms), e.text]),
      });
  });
  blocks.push({ t: 'h3', text: 'Not assessable' });
  if (dg.not_assessable.length) {
    blocks.push({ t: 'p', tone: 'note', text: 'These causes could not be checked because the bundle lacks the data their required conditions read. They are not ruled out.' });
    blocks.push({ t: 'table', columns: ['Cause', 'Id', 'Missing data'], rows: dg.not_assessable.map((n) => [causeName(n.id), { text: n.id, tone: 'mono' }, { text: n.missing.join(', '), tone: 'mono' }]) });
  } else blocks.push({ t: 'p', text: 'Every cause could be assessed with the data in the bundle.' });
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
      columns: ['#', 'Live', 'Allocations', 'Top frames (innermost first)'],
      numeric: [1, 2],
      rows: d.leak_sites.map((s, i) => [
        String(i + 1),
        formatBytes(s.live_bytes),
        String(s.allocs),
        { text: s.frames.slice(0, FRAMES_SHOWN).join(' | ') || '(no stack recorded)', tone: 'mono', lines: s.frames.length ? [...s.frames.slice(0, FRAMES_SHOWN), ...(s.frames.length > FRAMES_SHOWN ? [`… ${s.frames.length - FRAMES_SHOWN} more frames`] : [])] : ['(no stack recorded)'] },
      ]),
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
      ['Windows scored', String(dg.windows.length)],
    ],
  });
  blocks.push({ t: 'p', tone: 'note', text: 'Onset is the first window where P99 latency rose by more than θℓ and token throughput fell by more than θt, both against the baseline. Times are UTC.' });
  return blocks;
}
