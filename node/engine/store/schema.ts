// Versioned migrations. Each entry runs once, in order, inside one transaction; `PRAGMA user_version`
// records how far a database has come. Never edit a shipped migration: append a new one.
//
// Table names are the documented tables of docs/architecture.md §5: users query them directly in the SQL console
// and `quadscope query`, so they are part of the product.

export const MIGRATIONS: readonly string[] = [
  /* 1: the documented schema */ `
  CREATE TABLE incidents (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    start_ms INTEGER,
    end_ms INTEGER,
    source TEXT NOT NULL DEFAULT 'import',
    meta_json TEXT NOT NULL DEFAULT '{}'
  );

  CREATE TABLE sources (
    id INTEGER PRIMARY KEY,
    incident_id INTEGER NOT NULL REFERENCES incidents(id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    format TEXT NOT NULL,
    bytes INTEGER NOT NULL DEFAULT 0,
    rows INTEGER NOT NULL DEFAULT 0,
    status TEXT NOT NULL CHECK (status IN ('ok', 'failed', 'skipped')),
    error TEXT,
    warnings_json TEXT NOT NULL DEFAULT '[]'
  );
  CREATE INDEX sources_incident ON sources(incident_id);

  CREATE TABLE series (
    id INTEGER PRIMARY KEY,
    incident_id INTEGER NOT NULL REFERENCES incidents(id) ON DELETE CASCADE,
    source_id INTEGER REFERENCES sources(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    labels_json TEXT NOT NULL DEFAULT '{}',
    unit TEXT NOT NULL DEFAULT '',
    kind TEXT NOT NULL DEFAULT 'gauge'
  );
  CREATE INDEX series_incident_name ON series(incident_id, name);

  -- Clustered by (series, time): a chart's range read is one contiguous B-tree walk. One value per
  -- series and millisecond (a repeated timestamp replaces the earlier value).
  CREATE TABLE samples (
    series_id INTEGER NOT NULL REFERENCES series(id) ON DELETE CASCADE,
    ts_ms INTEGER NOT NULL,
    value REAL NOT NULL,
    PRIMARY KEY (series_id, ts_ms)
  ) WITHOUT ROWID;

  -- Min/max per series per 10 s tile, kept by the writer as samples arrive, so a chart of a day-long
  -- series reads thousands of tiles instead of millions of samples.
  CREATE TABLE sample_tiles (
    series_id INTEGER NOT NULL REFERENCES series(id) ON DELETE CASCADE,
    tile INTEGER NOT NULL,
    t_first INTEGER NOT NULL,
    min REAL NOT NULL,
    max REAL NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (series_id, tile)
  ) WITHOUT ROWID;

  -- Histograms: one row per series and scrape, its cumulative bucket counts a JSON array aligned with
  -- the bucket bounds of its layout (ascending; +Inf written 9e999, which SQLite and JSON.parse read as
  -- Infinity). A bucket per row cost 20× the rows on import and on every analysis. Layouts are shared
  -- and never deleted. The documented view \`histograms(series_id, ts_ms, le, count)\` expands them.
  CREATE TABLE histogram_layouts (
    id INTEGER PRIMARY KEY,
    le_json TEXT NOT NULL UNIQUE
  );
  CREATE TABLE histogram_snapshots (
    series_id INTEGER NOT NULL REFERENCES series(id) ON DELETE CASCADE,
    ts_ms INTEGER NOT NULL,
    layout_id INTEGER NOT NULL,
    counts_json TEXT NOT NULL,
    PRIMARY KEY (series_id, ts_ms)
  ) WITHOUT ROWID;
  CREATE VIEW histograms AS
    SELECT h.series_id, h.ts_ms, CAST(l.le_json ->> c.key AS REAL) AS le, CAST(c.value AS REAL) AS count
      FROM histogram_snapshots h JOIN histogram_layouts l ON l.id = h.layout_id, json_each(h.counts_json) c;

  CREATE TABLE events (
    id INTEGER PRIMARY KEY,
    incident_id INTEGER NOT NULL REFERENCES incidents(id) ON DELETE CASCADE,
    ts_ms INTEGER NOT NULL,
    kind TEXT NOT NULL,
    severity TEXT NOT NULL DEFAULT 'info',
    source_id INTEGER REFERENCES sources(id) ON DELETE CASCADE,
    line INTEGER,
    text TEXT NOT NULL,
    attrs_json TEXT NOT NULL DEFAULT '{}'
  );
  CREATE INDEX events_incident_ts ON events(incident_id, ts_ms);
  CREATE INDEX events_incident_kind ON events(incident_id, kind);

  -- External-content FTS: the text lives once, in events. A source's events are indexed in one
  -- INSERT … SELECT when it commits (a per-row trigger cost ~30 µs an event); deletes use the trigger.
  CREATE VIRTUAL TABLE events_fts USING fts5(text, content='events', content_rowid='id', tokenize='unicode61');
  CREATE TRIGGER events_ad AFTER DELETE ON events BEGIN
    INSERT INTO events_fts(events_fts, rowid, text) VALUES ('delete', old.id, old.text);
  END;

  CREATE TABLE spans (
    incident_id INTEGER NOT NULL REFERENCES incidents(id) ON DELETE CASCADE,
    source_id INTEGER REFERENCES sources(id) ON DELETE CASCADE,
    trace_id TEXT NOT NULL,
    span_id TEXT NOT NULL,
    parent_id TEXT,
    name TEXT NOT NULL,
    start_ns INTEGER NOT NULL,
    end_ns INTEGER NOT NULL,
    attrs_json TEXT NOT NULL DEFAULT '{}'
  );
  CREATE INDEX spans_incident_trace ON spans(incident_id, trace_id);
  CREATE INDEX spans_incident_start ON spans(incident_id, start_ns);

  CREATE TABLE kernels (
    incident_id INTEGER NOT NULL REFERENCES incidents(id) ON DELETE CASCADE,
    source_id INTEGER REFERENCES sources(id) ON DELETE CASCADE,
    device INTEGER NOT NULL,
    stream INTEGER NOT NULL,
    name TEXT NOT NULL,
    start_ns INTEGER NOT NULL,
    end_ns INTEGER NOT NULL,
    correlation_id INTEGER,
    attrs_json TEXT NOT NULL DEFAULT '{}'
  );
  CREATE INDEX kernels_incident_start ON kernels(incident_id, start_ns);

  CREATE TABLE stacks (
    id INTEGER PRIMARY KEY,
    hash TEXT NOT NULL UNIQUE,
    frames_json TEXT NOT NULL
  );

  CREATE TABLE allocations (
    incident_id INTEGER NOT NULL REFERENCES incidents(id) ON DELETE CASCADE,
    source_id INTEGER REFERENCES sources(id) ON DELETE CASCADE,
    device INTEGER NOT NULL,
    addr TEXT NOT NULL,
    size INTEGER NOT NULL,
    alloc_ns INTEGER,
    free_ns INTEGER,
    stack_id INTEGER REFERENCES stacks(id),
    source TEXT NOT NULL
  );
  CREATE INDEX allocations_incident_alloc ON allocations(incident_id, alloc_ns);

  CREATE TABLE annotations (
    id INTEGER PRIMARY KEY,
    incident_id INTEGER NOT NULL REFERENCES incidents(id) ON DELETE CASCADE,
    start_ms INTEGER NOT NULL,
    end_ms INTEGER NOT NULL,
    panel TEXT NOT NULL,
    text TEXT NOT NULL,
    author TEXT NOT NULL DEFAULT '',
    created_ms INTEGER NOT NULL
  );

  CREATE TABLE diagnoses (
    incident_id INTEGER NOT NULL REFERENCES incidents(id) ON DELETE CASCADE,
    json TEXT NOT NULL,
    created_ms INTEGER NOT NULL
  );
  `,
  // 2: the CUDA correlation id of an allocation's runtime call (nsys), so an allocation joins to that call
  // (spans.span_id 'c<id>') and the kernels after it (kernels.correlation_id) without a frame per call site.
  `
  ALTER TABLE allocations ADD COLUMN correlation_id INTEGER;
  `,
];
