import { performance } from 'node:perf_hooks';
import { tempStore } from '../helpers/import-file';
import { servingIncident } from '../helpers/synthetic-incident';
const ts = tempStore();
const x = servingIncident(ts.store, 86400, { kv: () => 0.4 });
const id = x.done();
const db = ts.store.db;
const cat = ts.store.seriesCatalog(id).filter((c) => c.kind !== 'histogram');
const q = (sql: string) => db.prepare(sql).raw();
for (const [name, sql] of [
  ['count', 'SELECT COUNT(*), SUM(value) FROM samples WHERE series_id = ?'],
  ['json ts', 'SELECT json_group_array(ts_ms) FROM samples WHERE series_id = ?'],
  ['json v', 'SELECT json_group_array(value) FROM samples WHERE series_id = ?'],
  ['gc v', "SELECT group_concat(value, ',') FROM samples WHERE series_id = ?"],
  ['gc v printf', "SELECT group_concat(printf('%!.17g', value), ',') FROM samples WHERE series_id = ?"],
  ['json both', 'SELECT json_group_array(ts_ms), json_group_array(value) FROM samples WHERE series_id = ?'],
] as const) {
  const st = q(sql);
  let t = performance.now(); let parse = 0; let n = 0;
  for (const c of cat) { const r = st.get(c.id) as unknown[]; const a = performance.now(); for (const s of r) if (typeof s === 'string') n += (JSON.parse(s.startsWith('[') ? s : `[${s}]`) as number[]).length; parse += performance.now() - a; }
  console.log(name, (performance.now() - t).toFixed(0), 'ms, parse', parse.toFixed(0), n);
}
ts.dispose();
