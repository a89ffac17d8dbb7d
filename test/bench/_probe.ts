import { performance } from 'node:perf_hooks';
import { tempStore } from '../helpers/import-file';
import { servingIncident } from '../helpers/synthetic-incident';
const ts = tempStore();
const seconds = 86400;
const x = servingIncident(ts.store, seconds, { kv: () => 0.4 });
for (let k = 0; k < 5; k++) x.gauge(`gpu.extra${k}`, (s) => s % 97, { gpu: '0' });
const id = x.done();
const cat = ts.store.seriesCatalog(id);
let t = performance.now();
ts.store.getIncident(id); console.log('getIncident', performance.now() - t); t = performance.now();
let hs = 0, ss = 0;
for (const c of cat) if (c.kind === 'histogram') { const a = performance.now(); ts.store.histogramSnapshots(c.id); hs += performance.now() - a; } else { const a = performance.now(); ts.store.sampleArrays(c.id); ss += performance.now() - a; }
console.log('hist', hs, 'samples', ss);
t = performance.now(); ts.store.queryEvents({ incident_id: id, kinds: ['oom'], limit: 100000 }); ts.store.querySpans({ incident_id: id }); console.log('ev+spans', performance.now() - t);
t = performance.now(); ts.store.incidentMeta(id); ts.store.allocationCount(id); console.log('rest', performance.now() - t);
ts.dispose();
