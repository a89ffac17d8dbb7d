// A 24 h incident at 1 s resolution (~30 series, ~2.6 M samples, written through the SourceWriter) and
// the time `analyzeIncident` takes over it, split into loading from SQLite and the model itself.
//   node --import tsx test/bench/analyze.bench.ts [hours]
import { performance } from 'node:perf_hooks';
import { tempStore } from '../helpers/import-file';
import { servingIncident } from '../helpers/synthetic-incident';
import { loadSignals } from '../../electron/engine/model/signals-from-store';
import { analyzeSignals } from '../../electron/engine/model/diagnose';

const hours = Number(process.argv[2] ?? 24);
const seconds = Math.round(hours * 3600);
const ts = tempStore();
try {
  let t = performance.now();
  const onset = Math.round(seconds * 0.7);
  const x = servingIncident(ts.store, seconds, {
    kv: (s) => (s >= onset ? 0.97 : 0.4),
    preemptRate: (s) => (s >= onset ? 2 : 0),
    gtok: (s) => (s >= onset ? 1200 : 2000),
  });
  for (let k = 0; k < 5; k++) x.gauge(`gpu.extra${k}`, (s) => s % 97, { gpu: '0' });
  const id = x.done();
  const detail = ts.store.getIncident(id)!;
  const build = performance.now() - t;
  t = performance.now();
  const sig = loadSignals(ts.store, id);
  const load = performance.now() - t;
  t = performance.now();
  const d = analyzeSignals(sig).diagnosis;
  const model = performance.now() - t;
  console.log(`incident: ${hours} h, ${detail.counts.series} series, ${detail.counts.samples} samples (+ histogram buckets), built in ${(build / 1000).toFixed(1)} s`);
  console.log(`analyze: load ${load.toFixed(0)} ms + model ${model.toFixed(0)} ms = ${(load + model).toFixed(0)} ms (${d.windows.length} windows, top cause ${d.causes[0]?.id ?? 'none'})`);
} finally {
  ts.dispose();
}
