// Runs one importer over a file or a literal text into a fresh real SQLite store, the way the import
// pipeline does (one source, committed on success, rolled back on error), so these tests depend only
// on the importer and the store.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { Readable } from 'node:stream';
import type { ImportOptions } from '../../../common/contract/types';
import { formatPosition, type Importer } from '../../../node/engine/importers/types';
import { Store } from '../../../node/engine/store/store';

export interface Run {
  store: Store;
  incidentId: number;
  warnings: string[];
  error: Error | null;
  /** Rows of a SQL query over the workspace. */
  all<T = Record<string, unknown>>(sql: string, ...params: unknown[]): T[];
  dispose(): void;
}

export interface RunInput {
  file?: string;
  text?: string | Buffer;
  name?: string;
  mtimeMs?: number | null;
  /** The latest time of the bundle's sources imported before this one (ImportContext.bundleEndMs). */
  bundleEndMs?: number | null;
  options?: ImportOptions;
  /** Chunk size for literal text, to exercise lines split across chunks. */
  chunk?: number;
}

export async function runImporter(imp: Importer, input: RunInput): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), 'qs-imp-'));
  const store = new Store(join(dir, 'workspace.db'));
  const body = input.file ? readFileSync(input.file) : Buffer.from(input.text ?? '');
  const path = input.name ?? (input.file ? basename(input.file) : 'input.txt');
  const mtimeMs = input.mtimeMs !== undefined ? input.mtimeMs : input.file ? statSync(input.file).mtimeMs : null;
  const incidentId = store.createIncident('test');
  const warnings: string[] = [];
  const chunk = input.chunk ?? 64 * 1024;
  const writer = store.beginSource(incidentId, { path, format: imp.format, bytes: body.length });
  let error: Error | null = null;
  try {
    await imp.import(
      {
        stream: () => {
          const parts: Buffer[] = [];
          for (let i = 0; i < body.length; i += chunk) parts.push(body.subarray(i, i + chunk));
          return Readable.from(parts) as AsyncIterable<Buffer>;
        },
        file: async () => input.file ?? '',
      },
      writer,
      {
        path,
        size: body.length,
        mtimeMs,
        bundleEndMs: input.bundleEndMs ?? null,
        options: input.options ?? {},
        signal: new AbortController().signal,
        progress: () => {},
        warn: (m, where) => warnings.push(`${path}${formatPosition(where)}: ${m}`),
      },
    );
    writer.commit(warnings);
  } catch (e) {
    writer.rollback();
    error = e as Error;
  }
  const db = (store as unknown as { db: { prepare(sql: string): { all(...p: unknown[]): unknown[] } } }).db;
  return {
    store,
    incidentId,
    warnings,
    error,
    all: <T>(sql: string, ...params: unknown[]) => db.prepare(sql).all(...params) as T[],
    dispose: () => {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface SeriesRow {
  id: number;
  name: string;
  labels: Record<string, string>;
  unit: string;
  kind: string;
}

export function seriesRows(r: Run): SeriesRow[] {
  return r
    .all<{ id: number; name: string; labels_json: string; unit: string; kind: string }>('SELECT id, name, labels_json, unit, kind FROM series ORDER BY id')
    .map((s) => ({ id: s.id, name: s.name, labels: JSON.parse(s.labels_json), unit: s.unit, kind: s.kind }));
}

/** The samples of the one series with this name whose labels include `labels`. */
export function values(r: Run, name: string, labels: Record<string, string> = {}): { ts: number; v: number }[] {
  const matches = seriesRows(r).filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (matches.length !== 1) throw new Error(`${matches.length} series named ${name} with ${JSON.stringify(labels)}`);
  return r.all<{ ts: number; v: number }>('SELECT ts_ms AS ts, value AS v FROM samples WHERE series_id = ? ORDER BY ts_ms', matches[0].id);
}

export function events(r: Run, kind?: string): { ts_ms: number; kind: string; severity: string; line: number | null; text: string; attrs: Record<string, unknown> }[] {
  const rows = r.all<{ ts_ms: number; kind: string; severity: string; line: number | null; text: string; attrs_json: string }>(
    `SELECT ts_ms, kind, severity, line, text, attrs_json FROM events ${kind ? 'WHERE kind = ?' : ''} ORDER BY id`,
    ...(kind ? [kind] : []),
  );
  return rows.map((e) => ({ ts_ms: e.ts_ms, kind: e.kind, severity: e.severity, line: e.line, text: e.text, attrs: JSON.parse(e.attrs_json) }));
}
