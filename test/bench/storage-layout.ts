// The storage decision of issue 20, part 1, measured: the model's scan of every sample into window
// buckets from the `samples` table as it is (one row per sample, read through qs_pack) beside the same
// samples stored as chunked columnar blobs (CHUNK samples a row: their times, then their values, as
// float64), the layout the issue names as the field's standard. The chunks go to a database of their own,
// built from the incident's samples; both scans fold into the same BucketFold on the model's grid
// (10 s windows, 5 s step), so what differs is only how the samples come out of SQLite.
// docs/architecture.md §5 "Storage layout" holds the decision these numbers back.
import Database from 'better-sqlite3';
import { scanSamples } from '../../node/engine/store/sample-reads';
import { BucketFold } from '../../node/engine/model/windows';

/** Samples per chunk: 64 KiB of float64 a row. */
export const CHUNK = 4096;
const STEP_MS = 5000;

function seriesOf(db: Database.Database, incidentId: number): number[] {
  return db.prepare('SELECT id FROM series WHERE incident_id = ? ORDER BY id').pluck().all(incidentId) as number[];
}

/** The grid every scan folds into: 5 s buckets over the incident's samples. */
function gridOf(db: Database.Database, incidentId: number): { t0: number; step: number; nb: number } {
  // Per series one seek at each end (a MIN over `series_id IN (…)` would walk every row).
  const [lo, hi] = db
    .prepare('SELECT MIN((SELECT MIN(ts_ms) FROM samples WHERE series_id = s.id)), MAX((SELECT MAX(ts_ms) FROM samples WHERE series_id = s.id)) FROM series s WHERE s.incident_id = ?')
    .raw()
    .get(incidentId) as [number, number];
  return { t0: lo, step: STEP_MS, nb: Math.floor((hi - lo) / STEP_MS) + 1 };
}

/**
 * Copies the incident's samples into `chunkFile` as chunks; answers the time of the writing alone (the
 * samples are read into memory first), the chunk table's bytes and the `samples` table's bytes (dbstat).
 */
export function writeChunks(rowFile: string, chunkFile: string, incidentId: number): { ms: number; chunk_bytes: number; row_bytes: number; samples: number } {
  const db = new Database(rowFile, { readonly: true });
  const all: { id: number; t: Float64Array; v: Float64Array }[] = [];
  let samples = 0;
  for (const id of seriesOf(db, incidentId)) {
    const t: number[] = [];
    const v: number[] = [];
    scanSamples(db, id, -Infinity, Infinity, (a, b) => {
      t.push(a);
      v.push(b);
    });
    all.push({ id, t: Float64Array.from(t), v: Float64Array.from(v) });
    samples += t.length;
  }
  const rowBytes = db.prepare("SELECT SUM(pgsize) FROM dbstat WHERE name = 'samples'").pluck().get() as number;
  db.close();
  const out = new Database(chunkFile);
  out.pragma('journal_mode = WAL');
  out.pragma('synchronous = NORMAL');
  out.exec('CREATE TABLE sample_chunks (series_id INTEGER NOT NULL, t_first INTEGER NOT NULL, t_last INTEGER NOT NULL, n INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (series_id, t_first)) WITHOUT ROWID');
  const insert = out.prepare('INSERT INTO sample_chunks VALUES (?, ?, ?, ?, ?)');
  const t0 = performance.now();
  out.transaction(() => {
    for (const s of all)
      for (let i = 0; i < s.t.length; i += CHUNK) {
        const n = Math.min(CHUNK, s.t.length - i);
        const f = new Float64Array(2 * n);
        f.set(s.t.subarray(i, i + n), 0);
        f.set(s.v.subarray(i, i + n), n);
        insert.run(s.id, s.t[i], s.t[i + n - 1], n, Buffer.from(f.buffer));
      }
  })();
  out.pragma('wal_checkpoint(TRUNCATE)');
  const ms = performance.now() - t0;
  const chunkBytes = out.prepare("SELECT SUM(pgsize) FROM dbstat WHERE name = 'sample_chunks'").pluck().get() as number;
  out.close();
  return { ms, chunk_bytes: chunkBytes, row_bytes: rowBytes, samples };
}

type Scan = { ms: number; samples: number; checksum: number };

/**
 * Folds each series of `ids` into 5 s buckets (gauge and counter sums) in one read transaction of `db`,
 * `feed` handing the fold its samples and answering how many; `ms`: the folding alone.
 */
function foldAll(db: Database.Database, ids: number[], g: ReturnType<typeof gridOf>, feed: (id: number, f: BucketFold) => number): Scan {
  let samples = 0;
  let checksum = 0;
  const t0 = performance.now();
  db.transaction(() => {
    for (const id of ids) {
      const f = new BucketFold(g, { gauge: { above: Infinity }, counter: true });
      samples += feed(id, f);
      checksum += sumOf(f);
    }
  })();
  return { ms: performance.now() - t0, samples, checksum };
}

/** Every sample of the incident folded into buckets, read from the `samples` table as the model reads it (qs_pack). */
export function scanRows(rowFile: string, incidentId: number): Scan {
  const db = new Database(rowFile, { readonly: true });
  try {
    return foldAll(db, seriesOf(db, incidentId), gridOf(db, incidentId), (id, f) => {
      let n = 0;
      scanSamples(db, id, -Infinity, Infinity, (t, x) => {
        f.add(t, x);
        n++;
      });
      return n;
    });
  } finally {
    db.close();
  }
}

/** The same fold over the chunks `writeChunks` made (the grid and the series list read from the row file first). */
export function scanChunks(rowFile: string, chunkFile: string, incidentId: number): Scan {
  const rows = new Database(rowFile, { readonly: true });
  const g = gridOf(rows, incidentId);
  const ids = seriesOf(rows, incidentId);
  rows.close();
  const db = new Database(chunkFile, { readonly: true });
  const read = db.prepare('SELECT data FROM sample_chunks WHERE series_id = ? ORDER BY t_first').pluck();
  try {
    return foldAll(db, ids, g, (id, f) => {
      let total = 0;
      for (const b of read.iterate(id) as Iterable<Buffer>) {
        // A BLOB comes out as a Buffer of its own; its bytes are copied to an aligned array.
        const d = new Float64Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
        const n = d.length / 2;
        for (let k = 0; k < n; k++) f.add(d[k], d[n + k]);
        total += n;
      }
      return total;
    });
  } finally {
    db.close();
  }
}

/** A sum over the fold's buckets, so both scans can be checked to have seen the same samples. */
function sumOf(f: BucketFold): number {
  let s = 0;
  for (const x of f.gauge!.sum) s += x;
  for (const x of f.counter!.inc) s += x;
  return s;
}
