// Every table of the workspace database, declared once as data: its columns in order with their types,
// the family of code that reads and writes it, and what the documentation says of it. From this come
// the store's INSERT statements (insertSql, insertSelectSql: no column list is written out by hand
// anywhere), and the tables of docs/architecture.md §5 and the README (renderArchitectureTable,
// renderReadmeTable; test/unit/store/tables.test.ts checks both documents against them, and that the
// migrations of schema.ts build exactly these columns). The migrations stay the history of how a file
// got here (never edited once shipped); this is what a file is now.

export type ColumnType = 'INTEGER' | 'REAL' | 'TEXT';

export interface Column {
  name: string;
  type: ColumnType;
  notNull: boolean;
}

/** Which module of the store reads and writes the table (docs/architecture.md §5). */
export type Family = 'incidents' | 'series' | 'events' | 'traces' | 'allocations' | 'notes';

export interface Table {
  name: string;
  kind: 'table' | 'view' | 'fts5';
  family: Family;
  columns: readonly Column[];
  /** Listed in docs/architecture.md §5 (and, when `readme` is set, in the README). */
  listed: boolean;
  /** The notes column of docs/architecture.md §5. */
  notes: string;
  /** The README's words after the column list, or null where the README does not list the table. */
  readme: string | null;
}

/** `'name TYPE'` or `'name TYPE NOT NULL'`. */
function cols(...specs: string[]): Column[] {
  return specs.map((s) => {
    const m = /^(\w+) (INTEGER|REAL|TEXT)( NOT NULL)?$/.exec(s);
    if (!m) throw new Error(`tables.ts: bad column spec '${s}'`);
    return { name: m[1], type: m[2] as ColumnType, notNull: !!m[3] };
  });
}

const T = (name: string, family: Family, columns: Column[], doc: { notes: string; readme?: string | null; listed?: boolean; kind?: Table['kind'] }): Table => ({
  name,
  kind: doc.kind ?? 'table',
  family,
  columns,
  listed: doc.listed ?? true,
  notes: doc.notes,
  readme: doc.readme === undefined ? '' : doc.readme,
});

export const TABLES = {
  incidents: T('incidents', 'incidents', cols('id INTEGER', 'name TEXT NOT NULL', 'created_ms INTEGER NOT NULL', 'start_ms INTEGER', 'end_ms INTEGER', 'source TEXT NOT NULL', 'meta_json TEXT NOT NULL'), {
    notes: '`source`: `import`, `live`, …; `meta_json` holds e.g. a pull\'s provenance and the in-progress mark',
  }),
  sources: T('sources', 'incidents', cols('id INTEGER', 'incident_id INTEGER NOT NULL', 'path TEXT NOT NULL', 'format TEXT NOT NULL', 'bytes INTEGER NOT NULL', 'rows INTEGER NOT NULL', 'status TEXT NOT NULL', 'error TEXT', 'warnings_json TEXT NOT NULL'), {
    notes: 'status `ok` / `failed` / `skipped`; one row per file, recording, or pull',
    readme: 'status: ok / failed / skipped',
  }),
  series: T('series', 'series', cols('id INTEGER', 'incident_id INTEGER NOT NULL', 'source_id INTEGER', 'name TEXT NOT NULL', 'labels_json TEXT NOT NULL', 'unit TEXT NOT NULL', 'kind TEXT NOT NULL'), {
    notes: '`name` canonical where known ([four-quadrant-model.md §1](four-quadrant-model.md#1-canonical-signals)); kind `gauge`, `counter`, `histogram`, `summary`, `info`, `unknown`',
    readme: 'name canonical, e.g. `kv.usage`',
  }),
  samples: T('samples', 'series', cols('series_id INTEGER NOT NULL', 'ts_ms INTEGER NOT NULL', 'value REAL NOT NULL'), {
    notes: 'clustered by (series, time); one value per series and millisecond',
  }),
  histograms: T('histograms', 'series', cols('series_id INTEGER', 'ts_ms INTEGER', 'le REAL', 'count REAL'), {
    kind: 'view',
    notes:
      'a **view**: cumulative bucket counts per scrape, expanded from `histogram_snapshots` (one row per series and scrape, counts as a JSON array) and `histogram_layouts` (shared bucket bounds; +Inf stored as 9e999)',
    readme: 'cumulative bucket counts per scrape; a view over `histogram_snapshots` + `histogram_layouts`',
  }),
  events: T('events', 'events', cols('id INTEGER', 'incident_id INTEGER NOT NULL', 'ts_ms INTEGER NOT NULL', 'kind TEXT NOT NULL', 'severity TEXT NOT NULL', 'source_id INTEGER', 'line INTEGER', 'text TEXT NOT NULL', 'attrs_json TEXT NOT NULL'), {
    notes: 'full-text search through the FTS5 table `events_fts` (external content, indexed at commit)',
    readme: '+ FTS5 `events_fts`',
  }),
  spans: T('spans', 'traces', cols('incident_id INTEGER NOT NULL', 'source_id INTEGER', 'trace_id TEXT NOT NULL', 'span_id TEXT NOT NULL', 'parent_id TEXT', 'name TEXT NOT NULL', 'start_ns INTEGER NOT NULL', 'end_ns INTEGER NOT NULL', 'attrs_json TEXT NOT NULL'), {
    notes: 'traces and profiler CPU events',
  }),
  kernels: T('kernels', 'traces', cols('incident_id INTEGER NOT NULL', 'source_id INTEGER', 'device INTEGER NOT NULL', 'stream INTEGER NOT NULL', 'name TEXT NOT NULL', 'start_ns INTEGER NOT NULL', 'end_ns INTEGER NOT NULL', 'correlation_id INTEGER', 'attrs_json TEXT NOT NULL'), {
    notes: 'GPU kernels, memcpy, memset',
  }),
  allocations: T('allocations', 'allocations', cols('incident_id INTEGER NOT NULL', 'source_id INTEGER', 'device INTEGER NOT NULL', 'addr TEXT NOT NULL', 'size INTEGER NOT NULL', 'alloc_ns INTEGER', 'free_ns INTEGER', 'stack_id INTEGER', 'source TEXT NOT NULL', 'correlation_id INTEGER'), {
    notes: '`addr` as hex text (addresses pass 2^53); `source` `snapshot`, `kineto`, `nsys`; `correlation_id`: the allocating CUDA call (nsys), span `c<id>`',
    readme: 'stack_id: the CPU ops or Python frames around it, innermost first; correlation_id (nsys): the allocating CUDA call, span `c<id>`',
  }),
  stacks: T('stacks', 'allocations', cols('id INTEGER', 'hash TEXT NOT NULL', 'frames_json TEXT NOT NULL'), {
    notes: 'frames innermost first; identical stacks share one row',
  }),
  annotations: T('annotations', 'notes', cols('id INTEGER', 'incident_id INTEGER NOT NULL', 'start_ms INTEGER NOT NULL', 'end_ms INTEGER NOT NULL', 'panel TEXT NOT NULL', 'text TEXT NOT NULL', 'author TEXT NOT NULL', 'created_ms INTEGER NOT NULL'), {
    notes: 'the user\'s notes',
  }),
  diagnoses: T('diagnoses', 'notes', cols('incident_id INTEGER NOT NULL', 'json TEXT NOT NULL', 'created_ms INTEGER NOT NULL'), {
    notes: 'the latest diagnosis of each incident',
  }),
  sample_tiles: T('sample_tiles', 'series', cols('series_id INTEGER NOT NULL', 'tile INTEGER NOT NULL', 't_first INTEGER NOT NULL', 'min REAL NOT NULL', 'max REAL NOT NULL', 'n INTEGER NOT NULL'), {
    notes: 'internal: min/max per series per 10 s tile, kept by the writer so a day-long chart reads tiles, not millions of samples; a series with at most one sample in every tile keeps none (its samples are its tiles)',
    readme: null,
  }),
  histogram_layouts: T('histogram_layouts', 'series', cols('id INTEGER', 'le_json TEXT NOT NULL'), { notes: '', listed: false, readme: null }),
  histogram_snapshots: T('histogram_snapshots', 'series', cols('series_id INTEGER NOT NULL', 'ts_ms INTEGER NOT NULL', 'layout_id INTEGER NOT NULL', 'counts_json TEXT NOT NULL'), { notes: '', listed: false, readme: null }),
  events_fts: T('events_fts', 'events', cols('text TEXT'), { kind: 'fts5', notes: '', listed: false, readme: null }),
} as const satisfies Record<string, Table>;

export type TableName = keyof typeof TABLES;

export const columnNames = (table: TableName): string[] => TABLES[table].columns.map((c) => c.name);

/** The columns an INSERT names: all of the table's, or the ones given, checked against the declaration. */
function insertColumns(table: TableName, columns?: readonly string[]): string[] {
  const known = columnNames(table);
  if (!columns) return known;
  const unknown = columns.filter((c) => !known.includes(c));
  if (unknown.length) throw new Error(`tables.ts: ${table} has no column ${unknown.join(', ')} (it has ${known.join(', ')})`);
  return [...columns];
}

/**
 * `INSERT [OR …] INTO table (columns) VALUES (?, …)[, (?, …)…]` for `rows` rows, with every column of
 * the declaration in order unless `columns` names some.
 */
export function insertSql(table: TableName, opts: { columns?: readonly string[]; rows?: number; or?: 'REPLACE' | 'IGNORE' } = {}): string {
  const c = insertColumns(table, opts.columns);
  const one = `(${c.map(() => '?').join(',')})`;
  return `INSERT${opts.or ? ` OR ${opts.or}` : ''} INTO ${table} (${c.join(', ')}) VALUES ${Array.from({ length: opts.rows ?? 1 }, () => one).join(',')}`;
}

/**
 * `INSERT INTO table (columns) SELECT exprs FROM …`: each column of the declaration takes its
 * expression from `exprs` (SQL text); a column left out must be nullable or have a default. Used for
 * copies out of an attached database (nsys exports), so their column lists are the declaration's too.
 */
export function insertSelectSql(table: TableName, exprs: Readonly<Record<string, string>>, from: string, or?: 'REPLACE' | 'IGNORE'): string {
  const c = insertColumns(table, Object.keys(exprs));
  return `INSERT${or ? ` OR ${or}` : ''} INTO ${table} (${c.join(', ')}) SELECT ${c.map((k) => exprs[k]).join(', ')} ${from}`;
}

const listed = (): Table[] => Object.values(TABLES).filter((t) => t.listed);

/** The table of docs/architecture.md §5. */
export function renderArchitectureTable(): string {
  return ['| table | columns | notes |', '|---|---|---|', ...listed().map((t) => `| \`${t.name}\` | ${t.columns.map((c) => c.name).join(', ')} | ${t.notes} |`)].join('\n');
}

/** The README's table ("The database"). */
export function renderReadmeTable(): string {
  return [
    '| table | columns |',
    '|---|---|',
    ...listed()
      .filter((t) => t.readme !== null)
      .map((t) => `| \`${t.name}\` | ${t.columns.map((c) => c.name).join(', ')}${t.readme ? ` (${t.readme})` : ''} |`),
  ].join('\n');
}
