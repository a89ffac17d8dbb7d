import { importPaths } from './node/engine/import/pipeline';
import { Store } from './node/engine/store/store';
import { loadSignals } from './node/engine/model/signals-from-store';
import { instanceGroups, signalsFor } from './node/engine/model/fleet';
import { signalGrid } from './node/engine/model/series-buckets';
import { frameReads } from './node/engine/model/frame';
import { DEFAULT_CONFIG } from './node/engine/model/config';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
const store = new Store(join(mkdtempSync('/tmp/kp/w'), 'w.db'));
const r = await importPaths(store, [process.argv[2]]);
const sig = loadSignals(store, r.incident_id);
const groups = instanceGroups(sig);
console.log('groups', groups.length);
for (const s of [sig, ...groups.map((g) => signalsFor(sig, g, groups))]) {
  const g = signalGrid(s, DEFAULT_CONFIG, (name: string) => frameReads(name, DEFAULT_CONFIG.causes.kv_full));
  console.log(g.startMs, g.endMs, g.engineFrom, g.grid.t0, g.grid.n, g.grid.step, (g.engineFrom - g.grid.t0) / g.grid.step);
}
