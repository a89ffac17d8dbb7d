// Store: samples/s through the SourceWriter (batched multi-row inserts in one transaction) against a
// naive loop of single prepared inserts; a downsampled query over 10 M samples against reading the
// same range raw.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from '../../node/engine/store/store';
import { emit, time } from './lib';
import { storeSql, storeWriter } from '../helpers/store-sql';

const N = Number(process.env.QUADSCOPE_BENCH_SAMPLES ?? 10_000_000);
const SERIES = 10;
const dir = mkdtempSync(join(tmpdir(), 'qs-bench-store-'));
const store = new Store(join(dir, 'bench.db'));
const inc = store.createIncident('bench');

const writer = store.beginSource(inc, { path: 'bench', format: 'prometheus-text', bytes: 0 });
const ids = Array.from({ length: SERIES }, (_, i) => writer.series({ name: 'bench.series', labels: { i: String(i) } }));
const perSeries = N / SERIES;
const t0 = Date.parse('2026-03-14T00:00:00Z');
const w = await time(() => {
  for (let k = 0; k < perSeries; k++) {
    const ts = t0 + k * 100;
    for (let s = 0; s < SERIES; s++) writer.sample(ids[s], ts, Math.sin(k / 1000) + s);
  }
  writer.commit([]);
});

// Baseline: the naive loop, one prepared INSERT per sample, same transaction shape, 1/10 of the rows.
const naiveN = Math.min(N, 1_000_000);
const db = storeWriter(store);
const naive = db.prepare('INSERT OR REPLACE INTO samples (series_id, ts_ms, value) VALUES (?, ?, ?)');
const naiveSeries = Number(db.prepare("INSERT INTO series (incident_id, name) VALUES (?, 'naive')").run(inc).lastInsertRowid);
const b = await time(() => {
  db.exec('BEGIN');
  for (let k = 0; k < naiveN; k++) naive.run(naiveSeries, t0 + k, k);
  db.exec('COMMIT');
});
emit({ bench: 'store', case: `samples into SQLite (${(N / 1e6).toFixed(0)} M)`, value: N / (w.ms / 1000), unit: 'samples/s', baseline: 'naive insert loop', baseline_value: naiveN / (b.ms / 1000), target: '>= 1e6', met: N / (w.ms / 1000) >= 1e6 });

// Downsampled query: one series of N/SERIES samples over its whole range into 1000 buckets, and the
// same range read raw (what a chart without downsampling would receive).
const end = t0 + perSeries * 100;
store.querySeries([ids[0]], t0, end, 1000);
const q = await time(() => store.querySeries(ids, t0, end, 1000));
const raw = await time(() => storeSql(store).prepare('SELECT ts_ms, value FROM samples WHERE series_id = ? AND ts_ms BETWEEN ? AND ?').raw().all(ids[0], t0, end).length);
emit({ bench: 'store', case: `downsample ${SERIES}×${(perSeries / 1e6).toFixed(1)} M samples → 1000 px`, value: q.ms, unit: 'ms', baseline: 'raw read of 1 series', baseline_value: raw.ms * SERIES });
const zoom = await time(() => store.querySeries([ids[0]], t0 + (end - t0) * 0.4, t0 + (end - t0) * 0.45, 1000));
emit({ bench: 'store', case: 'zoomed query (5% of range, 1 series)', value: zoom.ms, unit: 'ms' });

store.close();
rmSync(dir, { recursive: true, force: true });
