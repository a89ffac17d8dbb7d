// `quadscope analyze <bundle|db>`: diagnoses an incident. A workspace database (told by its contents,
// whatever its name) opens that workspace (newest incident unless --incident); anything else — a folder,
// an archive, files, an Nsight Systems SQLite export — is imported first, into --db or a temporary workspace. Prints the
// diagnosis JSON of docs/four-quadrant-model.md §10 with --json, else a readable summary; the diagnosis is
// also saved in the workspace's diagnoses table.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Diagnosis } from '../../../common/contract/diagnosis';
import { formatBytes, formatDuration } from '../../../common/format';
import { importPaths } from '../../engine/import/pipeline';
import { DEFAULT_CONFIG, PRESETS, isPreset, mergeConfig, type ModelConfig } from '../../engine/model/config';
import { analyzeIncidentDetailed, type AnalysisDetail } from '../../engine/model/diagnose';
import { Store } from '../../engine/store/store';
import { fileKind } from '../../engine/store/workspace-file';
import type { Command } from '../main';
import { parseArgs } from '../args';
import { UsageError } from '../errors';

export const command: Command = {
  summary: 'diagnose an incident: onset, quadrant path, alerts, ranked root causes',
  usage: 'analyze <bundle|db> [--preset default|high-qps|long-context] [--baseline START,END] [--config F] [--json] [--db F] [--incident N]',
  async run(argv) {
    const { positional, flags } = parseArgs(argv, { preset: 'string', baseline: 'string', config: 'string', json: 'boolean', db: 'string', incident: 'string' });
    if (positional.length < 1) throw new UsageError('give a bundle (folder, archive, files) or a workspace .db');
    const preset = (flags.preset as string | undefined) ?? 'default';
    if (!isPreset(preset)) throw new UsageError(`--preset must be one of ${PRESETS.join(', ')} (got '${preset}')`);
    const baseline = flags.baseline === undefined ? undefined : parseBaseline(flags.baseline as string);
    const config = flags.config === undefined ? DEFAULT_CONFIG : loadConfig(flags.config as string);

    const isDb = positional.length === 1 && fileKind(positional[0]) === 'workspace';
    let tempDir: string | null = null;
    const dbFile = isDb ? positional[0] : ((flags.db as string | undefined) ?? join((tempDir = mkdtempSync(join(tmpdir(), 'quadscope-analyze-'))), 'workspace.db'));
    // A workspace is opened for reading (it may be read-only); a bundle is imported into a writable one.
    const store = isDb ? Store.openForReading(dbFile) : new Store(dbFile);
    try {
      let incidentId: number;
      if (isDb) {
        // The newest incident holding data: an import that failed or was killed leaves none worth diagnosing.
        incidentId = flags.incident === undefined ? (store.newestIncident()?.id ?? NaN) : Number(flags.incident);
        if (!Number.isInteger(incidentId)) throw new Error(flags.incident === undefined ? `${dbFile}: the workspace holds no incident with data` : `--incident must be an incident id (got '${flags.incident}')`);
        if (!store.getIncident(incidentId)) throw new Error(`${dbFile}: no incident ${incidentId} (known: ${store.listIncidents().map((i) => i.id).join(', ') || 'none'})`);
      } else {
        if (flags.incident !== undefined) throw new UsageError('--incident applies to a .db; a bundle is imported as a new incident');
        const result = await importPaths(store, positional);
        incidentId = result.incident_id;
        const failed = result.sources.filter((s) => s.status === 'failed');
        if (!flags.json) for (const s of failed) console.error(`warning: ${s.error ?? s.path}`);
      }
      const detail = analyzeIncidentDetailed(store, incidentId, { preset, baseline }, config);
      const json = JSON.stringify(detail.diagnosis);
      try {
        store.saveDiagnosis(incidentId, json);
      } catch (e) {
        // A read-only workspace is diagnosed all the same; only the saved copy is missing.
        if (!flags.json) console.error(`note: the diagnosis was not saved in ${dbFile}: ${(e as Error).message}`);
      }
      console.log(flags.json ? json : summary(detail));
      return 0;
    } finally {
      store.close();
      if (tempDir) rmSync(tempDir, { recursive: true, force: true });
    }
  },
};

function parseBaseline(s: string): { start_ms: number; end_ms: number } {
  const parts = s.split(',').map((x) => x.trim());
  const toMs = (x: string) => (/^-?\d+(\.\d+)?$/.test(x) ? Number(x) : Date.parse(x));
  const [a, b] = parts.map(toMs);
  if (parts.length !== 2 || !Number.isFinite(a) || !Number.isFinite(b) || b <= a) {
    throw new UsageError(`--baseline wants START,END as ms since the epoch or ISO times, START < END (got '${s}')`);
  }
  return { start_ms: a, end_ms: b };
}

export function loadConfig(file: string): ModelConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Error(`${file}: ${e instanceof Error ? e.message : String(e)}`);
  }
  return mergeConfig(raw, DEFAULT_CONFIG, file);
}

const iso = (ms: number | null) => (ms === null ? '—' : new Date(ms).toISOString());
const val = (v: unknown) => (typeof v === 'number' ? String(v) : JSON.stringify(v));

function statusLine(g: Diagnosis): string {
  if (g.status === 'explained') return `explained: ${g.causes[0].chain.join(' → ')}`;
  if (g.status === 'unexplained') return 'UNEXPLAINED incident: something went wrong that no rule explains (evidence below)';
  if (g.status === 'insufficient' && g.coverage) {
    const c = g.coverage;
    const errors = c.error_events ? `, ${c.error_events} error line${c.error_events > 1 ? 's' : ''} in the logs` : '';
    return `too little data to judge: ${c.span_ms ? `the series cover ${formatDuration(c.span_ms)}` : 'no time series'}, ${formatDuration(c.need_ms)} needed (no crash seen${errors})`;
  }
  return 'healthy';
}

export function summary(d: AnalysisDetail): string {
  const g: Diagnosis = d.diagnosis;
  const out: string[] = [];
  out.push(`incident   ${iso(g.incident.start_ms)} → ${iso(g.incident.end_ms)}  (${g.windows.length} windows of ${d.frame.grid.W / 1000} s, step ${d.frame.grid.step / 1000} s)`);
  out.push(`baseline   ${iso(g.baseline.start_ms)} → ${iso(g.baseline.end_ms)}   preset ${g.preset}`);
  if (g.causes_baseline) out.push(`causes vs  ${iso(g.causes_baseline.start_ms)} → ${iso(g.causes_baseline.end_ms)}   (the episode began hours after the baseline: its causes are read against the minutes before it)`);
  out.push(`status     ${statusLine(g)}`);
  out.push(`onset      ${g.onset_ms === null ? 'none' : iso(g.onset_ms)}`);
  if (g.gaps?.length) out.push(`gaps       ${g.gaps.map((x) => `${iso(x.start_ms)} → ${iso(x.end_ms)}`).join('; ')} (no data; left out of the analysis)`);
  out.push(`quadrants  ${d.path.map((p) => `${p.quadrant} (${iso(p.from_ms).slice(11, 19)})`).join(' → ')}`);
  out.push('alerts');
  if (!g.alerts.length) out.push('  none');
  for (const a of g.alerts) out.push(`  ${a.family.padEnd(10)} fired ${iso(a.first_fired_ms)}  resolved ${a.resolved_ms === null ? 'still firing' : iso(a.resolved_ms)}`);
  if (d.convergence_ms !== null) out.push(`  top cause settled ${d.convergence_ms / 1000} s after the start of the episode`);
  out.push('causes');
  if (!g.causes.length) out.push(g.status === 'healthy' ? '  none: healthy' : g.status === 'insufficient' ? '  none: too little data' : '  none matched; see the evidence and what was ruled out below');
  if (g.unexplained) for (const e of g.unexplained.evidence.slice(0, 8)) out.push(`  evidence ${iso(e.start_ms).slice(11, 19)}: ${e.text}`);
  g.causes.forEach((c, i) => {
    out.push(`  ${i + 1}. ${c.id}  confidence ${c.confidence}  onset ${iso(c.onset_ms)}${c.chain.length > 1 ? `  chain ${c.chain.join(' → ')}` : ''}`);
    for (const [label, list] of [['require', c.require], ['support', c.support], ['veto', c.veto]] as const) {
      for (const k of list) out.push(`       ${label.padEnd(7)} ${k.held ? '✓' : '✗'} ${k.condition} = ${val(k.value)}`);
    }
    for (const e of c.evidence.slice(0, 4)) out.push(`       evidence ${e.kind} ${e.ref} ${iso(e.start_ms).slice(11, 19)}–${iso(e.end_ms).slice(11, 19)}: ${e.text}`);
  });
  const ruledOut = g.checked.filter((c) => c.verdict === 'not_fired');
  if (ruledOut.length) {
    out.push('ruled out');
    for (const c of ruledOut) out.push(`  ${c.id}: ${c.failed.map((k) => `${k.condition} = ${val(k.value)}`).join('; ') || 'no condition held'}`);
  }
  if (g.not_assessable.length) {
    out.push('not assessable');
    for (const n of g.not_assessable) out.push(`  ${n.id}: missing ${n.missing.join('; ')}`);
  }
  if (d.kv) out.push(`kv cache   growth ${d.kv.growth ?? '—'}, plateau ${(d.kv.plateau_share * 100).toFixed(0)}% of windows, workload ${d.kv.workload ?? 'unknown'}`);
  if (g.leak) {
    out.push(`leak       ${formatBytes(g.leak.slope_bytes_per_min)}/min, projected OOM ${iso(g.leak.projected_oom_ms)}`);
    for (const s of g.leak.sites.slice(0, 5)) out.push(`  ${formatBytes(s.live_bytes)} in ${s.allocs} allocations at ${s.frames.slice(0, 2).join(' ← ') || '(no stack)'}`);
  }
  return out.join('\n');
}
