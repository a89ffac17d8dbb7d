// A 24 h incident at 1 s resolution (~30 series, ~2.4 M samples and four 20-bucket histograms scraped
// every second, written through the SourceWriter) and the time `analyzeIncident` takes over it, split
// into loading from SQLite and the model itself. Baseline in the same run: stepping better-sqlite3
// through the incident's sample rows alone (what loading cost before the JSON-chunked reads).
//   node --import tsx test/bench/analyze.bench.ts   (QUADSCOPE_BENCH_HOURS=6 for a quick run)
import { performance } from 'node:perf_hooks';
import { tempStore } from '../helpers/import-file';
import { servingIncident } from '../helpers/synthetic-incident';
import { loadSignals } from '../../node/engine/model/signals-from-store';
import { analyzeSignals } from '../../node/engine/model/diagnose';
import { emit } from './lib';

const hours = Number(process.env.QUADSCOPE_BENCH_HOURS ?? 24);
const seconds = Math.round(hours * 3600);
const ts = tempStore();
try {
  const onset = Math.round(seconds * 0.7);
  const x = servingIncident(ts.store, seconds, {
    kv: (s) => (s >= onset ? 0.97 : 0.4),
    preemptRate: (s) => (s >= onset ? 2 : 0),
    gtok: (s) => (s >= onset ? 1200 : 2000),
  });
  for (let k = 0; k < 5; k++) x.gauge(`gpu.extra${k}`, (s) => s % 97, { gpu: '0' });
  const id = x.done();
  const detail = ts.store.getIncident(id)!;

  let t = performance.now();
  let rows = 0;
  for (const r of ts.store.db.prepare('SELECT s.ts_ms, s.value FROM series r JOIN samples s ON s.series_id = r.id WHERE r.incident_id = ? ORDER BY s.series_id, s.ts_ms').raw().iterate(id)) if (r) rows++;
  const naive = performance.now() - t;

  t = performance.now();
  const sig = loadSignals(ts.store, id);
  const load = performance.now() - t;
  t = performance.now();
  const d = analyzeSignals(sig).diagnosis;
  const model = performance.now() - t;
  const label = `${hours} h, ${detail.counts.series} series, ${(detail.counts.samples / 1e6).toFixed(1)} M samples + histograms`;
  console.error(`analyze: ${d.windows.length} windows, top cause ${d.causes[0]?.id ?? 'none'}`);
  emit({ bench: 'analyze', case: `load signals (${label})`, value: load, unit: 'ms', baseline: `row-by-row read of the ${(rows / 1e6).toFixed(1)} M samples alone`, baseline_value: naive });
  emit({ bench: 'analyze', case: 'model over the loaded signals', value: model, unit: 'ms' });
  emit({ bench: 'analyze', case: `analyze total (${label})`, value: load + model, unit: 'ms', baseline: 'row-by-row read of the samples alone', baseline_value: naive, target: '< 2000 ms', met: load + model < 2000 });
} finally {
  ts.dispose();
}
