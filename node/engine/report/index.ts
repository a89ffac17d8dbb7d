// Writes an incident's report as HTML, Markdown or PDF. The desktop app prints `reportHtml`'s output
// with webContents.printToPDF; the CLI and the bridge print through Chromium. A report written where the
// caller named gets its Markdown figures as SVG files beside it; a report for download (no place named:
// the workstation's Export) is one self-contained file, charts embedded, in a private folder of its own
// and named after the incident, and its bytes come back with the answer.
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, extname, join, resolve } from 'node:path';
import type { Diagnosis, Preset } from '../../../common/contract/diagnosis';
import type { ReportFormat } from '../../../common/contract/types';
import { analyzeIncident } from '../model/diagnose';
import type { Store } from '../store/store';
import { fileSlug } from './file-name';
import { reportFigures } from './figures';
import { renderHtml } from './html';
import { renderMarkdown } from './markdown';
import { htmlToPdf } from './pdf';
import { gatherReportData } from './report-data';
import { buildDocument } from './report-document';

export interface ReportOptions {
  /** Use this diagnosis instead of running the model. */
  diagnosis?: Diagnosis;
  /** Preset for the model run when no diagnosis is given. */
  preset?: Preset;
  /** The generation stamp (ms since epoch); pinned in tests, now by default. */
  generatedAt?: number;
}

export interface WriteReportOptions extends ReportOptions {
  format: ReportFormat;
  /** The report file; default: a file named after the incident in a new private temp folder. */
  out?: string;
}

export interface WrittenReport {
  path: string;
  /** The whole report: text for HTML and Markdown, base64 for PDF (see `encoding`). */
  content?: string;
  encoding?: 'utf8' | 'base64';
  /** A file name for a download: the incident's name and start, never a shared fixed name. */
  file_name: string;
}

/** "quadscope-vllm-prod-a-2026-03-14-0906.pdf": what a download is called. */
export function reportFileName(name: string, startMs: number | null, ext: string): string {
  const slug = fileSlug(name);
  const when = startMs === null ? '' : `-${new Date(startMs).toISOString().slice(0, 16).replace(/[T:]/g, (c) => (c === 'T' ? '-' : ''))}`;
  return `quadscope-${slug || 'incident'}${when}.${ext}`;
}

/** The report as one self-contained HTML string (what the desktop app prints to PDF). */
export async function reportHtml(store: Store, incidentId: number, opts: ReportOptions = {}): Promise<string> {
  const data = gatherReportData(store, incidentId, await diagnosisFor(store, incidentId, opts), opts.generatedAt ?? Date.now());
  return renderHtml(buildDocument(data, reportFigures(data, false)));
}

export async function writeReport(store: Store, incidentId: number, opts: WriteReportOptions): Promise<WrittenReport> {
  const ext = opts.format;
  const incident = store.getIncident(incidentId);
  const fileName = reportFileName(incident?.name ?? `incident ${incidentId}`, incident?.start_ms ?? null, ext);
  // No place named: a private folder per export (a fixed name in the shared temp dir could be a planted
  // symlink, and two exports would overwrite each other).
  const download = opts.out === undefined;
  const out = resolve(opts.out ?? join(mkdtempSync(join(tmpdir(), 'quadscope-report-')), fileName));
  mkdirSync(dirname(out), { recursive: true });

  if (opts.format === 'md') {
    const data = gatherReportData(store, incidentId, await diagnosisFor(store, incidentId, opts), opts.generatedAt ?? Date.now());
    const figures = reportFigures(data, true);
    let content: string;
    if (download) content = renderMarkdown(buildDocument(data, figures), { embed: true });
    else {
      const chartsName = `${basename(out, extname(out))}.charts`;
      const chartsDir = join(dirname(out), chartsName);
      clearFigures(chartsDir);
      mkdirSync(chartsDir, { recursive: true });
      for (const f of figures) writeFileSync(join(chartsDir, f.file), `${f.svg}\n`);
      content = renderMarkdown(buildDocument(data, figures), { dir: chartsName });
    }
    writeFileSync(out, content);
    return { path: out, content, encoding: 'utf8', file_name: fileName };
  }

  const html = await reportHtml(store, incidentId, opts);
  if (opts.format === 'pdf') {
    await htmlToPdf(html, out);
    return download ? { path: out, content: readFileSync(out).toString('base64'), encoding: 'base64', file_name: fileName } : { path: out, file_name: fileName };
  }
  writeFileSync(out, html);
  return { path: out, content: html, encoding: 'utf8', file_name: fileName };
}

/** Removes the SVG files an earlier run left, so a chart that no longer has data does not linger. */
function clearFigures(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const n of names) if (n.endsWith('.svg')) rmSync(join(dir, n), { force: true });
}

/** The diagnosis given, else a fresh model run. */
async function diagnosisFor(store: Store, incidentId: number, opts: ReportOptions): Promise<Diagnosis> {
  if (opts.diagnosis) return opts.diagnosis;
  if (!store.incidentExists(incidentId)) throw new Error(`incident ${incidentId} does not exist in ${store.file}`);
  return await analyzeIncident(store, incidentId, opts.preset ? { preset: opts.preset } : {});
}
