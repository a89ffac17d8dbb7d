// The cause registry (node/engine/model/causes/registry.ts): one file per cause, declared with
// defineCause(), and the precedence and upstream tables of docs/root-causes.md §2 read from those
// declarations — the document is checked against the code, so the two cannot drift.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { CAUSES } from '../../../node/engine/model/causes/registry';
import { CAUSE_IDS, type CauseId } from '../../../common/contract/diagnosis';

const doc = readFileSync(new URL('../../../docs/root-causes.md', import.meta.url), 'utf8');
const ids = (cell: string): string[] => cell.split('(')[0].match(/\b[a-z]+(?:_[a-z]+)+\b/g) ?? [];

/** The rows of the markdown table that follows `heading` in the document: cells, header and rule skipped. */
function table(heading: string): string[][] {
  const at = doc.indexOf(heading);
  assert.ok(at >= 0, `docs/root-causes.md: "${heading}" not found`);
  const lines = doc.slice(at).split('\n');
  const first = lines.findIndex((l) => l.startsWith('|'));
  const rows: string[][] = [];
  for (const l of lines.slice(first + 2)) {
    if (!l.startsWith('|')) break;
    rows.push(l.split('|').slice(1, -1).map((c) => c.trim()));
  }
  return rows;
}

test('every cause id has its own file, declared under its own id', () => {
  assert.deepEqual(Object.keys(CAUSES), [...CAUSE_IDS]);
  for (const id of CAUSE_IDS) {
    assert.equal(CAUSES[id].id, id);
    const file = new URL(`../../../node/engine/model/causes/${id.replace(/_/g, '-')}.ts`, import.meta.url);
    assert.ok(existsSync(file), `${id}: node/engine/model/causes/${id.replace(/_/g, '-')}.ts missing`);
    assert.match(readFileSync(file, 'utf8'), new RegExp(`defineCause\\(\\{\\n  id: '${id}',`), `${id}: its file does not declare it`);
  }
});

test('the precedence table of docs/root-causes.md §2 is the causes\' levels', () => {
  const documented = new Map<string, number>();
  for (const [level, causes] of table('### Precedence')) for (const id of ids(causes)) documented.set(id, Number(level));
  const code = new Map(CAUSE_IDS.map((id) => [id as string, CAUSES[id].level]));
  assert.deepEqual([...documented].sort(), [...code].sort());
});

test('the upstream table of docs/root-causes.md §2 is the causes\' upstream lists, in order', () => {
  const documented = new Map(table('Causes that can drive others').map(([mech, from]) => [mech, ids(from)]));
  const code = new Map(CAUSE_IDS.filter((id) => CAUSES[id].upstream?.length).map((id) => [id as string, CAUSES[id].upstream as CauseId[] as string[]]));
  assert.deepEqual([...documented].sort(), [...code].sort());
});
