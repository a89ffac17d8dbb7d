// `quadscope report <bundle|db> --out F`: an incident's postmortem as HTML, Markdown or PDF. A bundle is
// imported into a throwaway database first, so one command goes from raw files to a document.
import { closeSync, existsSync, mkdtempSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import type { Command } from '../main';
import { parseArgs } from '../args';
import { UsageError } from '../errors';
import type { Preset } from '../../../common/contract/diagnosis';
import type { ReportFormat } from '../../../common/contract/types';
import { isPreset } from '../../engine/model/config';
import { importPaths } from '../../engine/import/pipeline';
import { writeReport } from '../../engine/report/index';
import { Store } from '../../engine/store/store';

const FORMATS: ReportFormat[] = ['html', 'pdf', 'md'];

export const command: Command = {
  summary: 'write an incident report (HTML, PDF or Markdown) from a bundle or a workspace database',
  usage: 'report <bundle|db> --out F [--format html|pdf|md] [--incident N] [--preset default|high-qps|long-context] [--json]',
  async run(argv) {
    const { positional, flags } = parseArgs(argv, { out: 'string', format: 'string', incident: 'string', preset: 'string', json: 'boolean' });
    if (positional.length !== 1) throw new UsageError('name one bundle or workspace database');
    const out = flags.out as string | undefined;
    if (!out) throw new UsageError('--out F is required');
    const format = reportFormat(flags.format as string | undefined, out);
    const presetFlag = flags.preset as string | undefined;
    if (presetFlag !== undefined && !isPreset(presetFlag)) throw new UsageError(`--preset must be default, high-qps or long-context, not '${presetFlag}'`);
    const preset = presetFlag as Preset | undefined;
    const wanted = flags.incident === undefined ? undefined : Number(flags.incident);
    if (wanted !== undefined && !(Number.isInteger(wanted) && wanted > 0)) throw new UsageError('--incident must be an incident number');

    const input = positional[0];
    if (!existsSync(input)) throw new Error(`${input}: no such file or folder`);
    const fromDb = isSqliteFile(input);
    if (fromDb === false && wanted !== undefined) throw new UsageError('--incident applies to a workspace database, not a bundle');

    const scratch = fromDb ? null : mkdtempSync(join(tmpdir(), 'qs-report-'));
    // A workspace on read-only media is still reported (opened read-only).
    const store = fromDb ? Store.openForReading(input) : new Store(join(scratch as string, 'workspace.db'));
    try {
      let incidentId: number;
      if (fromDb) incidentId = pickIncident(store, input, wanted);
      else {
        const result = await importPaths(store, [input]);
        const ok = result.sources.filter((s) => s.status === 'ok').length;
        if (!ok) throw new Error(`${input}: nothing could be imported (${result.sources.map((s) => `${s.path}: ${s.error ?? s.status}`).join('; ') || 'no files'})`);
        incidentId = result.incident_id;
      }
      const written = await writeReport(store, incidentId, { format, out, preset });
      if (flags.json) console.log(JSON.stringify({ path: written.path, format, incident_id: incidentId }));
      else console.log(`report for incident ${incidentId} written to ${written.path}`);
      return 0;
    } finally {
      store.close();
      if (scratch) rmSync(scratch, { recursive: true, force: true });
    }
  },
};

function reportFormat(flag: string | undefined, out: string): ReportFormat {
  if (flag !== undefined) {
    if (!(FORMATS as string[]).includes(flag)) throw new UsageError(`--format must be html, pdf or md, not '${flag}'`);
    return flag as ReportFormat;
  }
  const ext = extname(out).toLowerCase();
  return ext === '.pdf' ? 'pdf' : ext === '.md' || ext === '.markdown' ? 'md' : 'html';
}

/** A workspace database is recognised by SQLite's file header, whatever its name. */
function isSqliteFile(path: string): boolean {
  if (!statSync(path).isFile()) return false;
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.alloc(16);
    readSync(fd, head, 0, 16, 0);
    return head.toString('latin1') === 'SQLite format 3\u0000';
  } finally {
    closeSync(fd);
  }
}

function pickIncident(store: Store, file: string, wanted: number | undefined): number {
  const incidents = store.listIncidents();
  if (wanted !== undefined) {
    if (!incidents.some((i) => i.id === wanted)) throw new Error(`${file}: no incident ${wanted} (there are: ${incidents.map((i) => i.id).join(', ') || 'none'})`);
    return wanted;
  }
  if (!incidents.length) throw new Error(`${file}: the database holds no incident`);
  // "The newest" is the newest that holds data: an import that failed whole or was cut short is passed over.
  const newest = store.newestIncident();
  if (!newest) throw new Error(`${file}: no incident holds data (${incidents.length} incident${incidents.length === 1 ? '' : 's'}, every import failed or was cut short: ${incidents.map((i) => i.id).join(', ')})`);
  if (incidents.length > 1) console.error(`${file} holds ${incidents.length} incidents; reporting the newest with data, ${newest.id} (choose with --incident N)`);
  return newest.id;
}
