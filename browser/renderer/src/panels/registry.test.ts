// The panel registry: every panel folder declares itself and is listed once in panels/index.ts, every tab
// the code opens by id is a registered panel, and the fleet panel is offered only where it has something
// to show. (The folders' index.ts files import React components, which Node cannot load: their
// declarations are read as text here; the e2e suite opens every tab.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Diagnosis } from '../../../../common/contract/diagnosis';
import { checkRegistry, definePanel, offeredPanels, type PanelInfo } from './panel';

const here = fileURLToPath(new URL('.', import.meta.url));
const src = join(here, '..');
const folders = readdirSync(here).filter((n) => statSync(join(here, n)).isDirectory());

/** The id each folder's index.ts declares. */
const ids = new Map(
  folders.map((f) => {
    const text = readFileSync(join(here, f, 'index.ts'), 'utf8');
    const m = /definePanel\(\{\s*id:\s*'([^']+)'/.exec(text);
    assert.ok(m, `panels/${f}/index.ts declares its panel with definePanel({ id: … })`);
    return [f, m[1]] as const;
  }),
);

test('every panel folder is registered once in panels/index.ts, under the id its folder is named by', () => {
  const index = readFileSync(join(here, 'index.ts'), 'utf8');
  const listed = /checkRegistry\(\[([^\]]*)\]\)/.exec(index)?.[1].split(',').map((s) => s.trim()).filter(Boolean) ?? [];
  for (const [folder, id] of ids) {
    assert.equal(id, folder, `panels/${folder}: the folder is named by the panel's id`);
    assert.match(index, new RegExp(`import ${folder.replace(/-/g, '_')} from './${folder}';`), `panels/index.ts imports ./${folder}`);
  }
  assert.deepEqual([...listed].sort(), [...ids.keys()].map((f) => f.replace(/-/g, '_')).sort(), 'PANELS lists every folder, each once');
});

function sources(dir: string, out: string[] = []): string[] {
  for (const n of readdirSync(dir)) {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) sources(p, out);
    else if (/\.tsx?$/.test(n) && !n.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

test('every tab the code opens by id is a registered panel', () => {
  const registered = new Set(ids.values());
  const named: string[] = [];
  for (const file of sources(src)) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/setTab\('([^']+)'\)|\btab: '([^']+)'/g)) named.push(`${relative(src, file)}: ${m[1] ?? m[2]}`);
  }
  assert.ok(named.length >= 5, named.join('\n'));
  for (const n of named) assert.ok(registered.has(n.split(': ')[1]), `${n} is not a registered panel`);
});

const Stub = () => null;
const panel = (id: string, available?: PanelInfo['available']): PanelInfo => definePanel({ id, title: id, component: Stub, available });

test('a panel is offered where it says so, and always when a link names it', () => {
  const list = checkRegistry([panel('overview'), panel('fleet', ({ diagnosis }) => (diagnosis?.instances?.length ?? 0) >= 2)]);
  const two = { instances: [{}, {}] } as unknown as Diagnosis;
  assert.deepEqual(offeredPanels(list, { diagnosis: null }, 'overview').map((p) => p.id), ['overview']);
  assert.deepEqual(offeredPanels(list, { diagnosis: two }, 'overview').map((p) => p.id), ['overview', 'fleet']);
  assert.deepEqual(offeredPanels(list, { diagnosis: null }, 'fleet').map((p) => p.id), ['overview', 'fleet'], 'a link to the fleet keeps its tab');
});

test('a bad id or a duplicate is refused where the panel is declared, naming it', () => {
  assert.throws(() => panel('Fleet View'), /panel "Fleet View": id "Fleet View" must be lower-case/);
  assert.throws(() => checkRegistry([panel('logs'), panel('logs')]), /two panels have the id "logs"/);
});
