// Every configuration key is documented in docs/four-quadrant-model.md §11 with its default: the keys a
// user can set in `--config` are the ones the doc names, no more and no fewer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DEFAULT_CONFIG } from '../../../node/engine/model/config';

function paths(o: Record<string, unknown>, prefix = ''): [string, unknown][] {
  const out: [string, unknown][] = [];
  for (const [k, v] of Object.entries(o)) {
    const p = prefix ? `${prefix}.${k}` : k;
    // The presets are documented one row each ({latency_ms, throughput_drop}).
    if (v && typeof v === 'object' && !Array.isArray(v) && p !== 'presets.default' && p !== 'presets.high-qps' && p !== 'presets.long-context') out.push(...paths(v as Record<string, unknown>, p));
    else out.push([p, v]);
  }
  return out;
}

test('every configuration key and its default are in the configuration table of docs/four-quadrant-model.md', () => {
  const doc = readFileSync(fileURLToPath(new URL('../../../docs/four-quadrant-model.md', import.meta.url)), 'utf8');
  const section = doc.slice(doc.indexOf('## 11. Configuration'));
  const rows = new Map<string, string>();
  for (const m of section.matchAll(/^\| `([^`]+)` \| ([^|]+) \|/gm)) rows.set(m[1], m[2].trim());
  const missing: string[] = [];
  const wrong: string[] = [];
  for (const [p, v] of paths(DEFAULT_CONFIG as unknown as Record<string, unknown>)) {
    const row = rows.get(p);
    if (row === undefined) {
      missing.push(p);
      continue;
    }
    if (typeof v === 'number' && !row.includes(String(v))) wrong.push(`${p}: doc says ${row}, default is ${v}`);
    if (Array.isArray(v) && !row.includes(JSON.stringify(v).replace(/,/g, ', '))) wrong.push(`${p}: doc says ${row}, default is ${JSON.stringify(v)}`);
  }
  const known = new Set(paths(DEFAULT_CONFIG as unknown as Record<string, unknown>).map(([p]) => p));
  const stale = [...rows.keys()].filter((k) => !known.has(k));
  assert.deepEqual({ missing, wrong, stale }, { missing: [], wrong: [], stale: [] });
});
