// Writes the table lists of docs/architecture.md §5 and the README from node/engine/store/tables.ts (the
// one declaration of the workspace tables); test/unit/store/tables.test.ts fails while they differ.
//   node --import tsx scripts/tables-doc.ts          rewrites both documents
//   node --import tsx scripts/tables-doc.ts --check  exits 1 (naming the document) where one is stale
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderArchitectureTable, renderReadmeTable } from '../node/engine/store/tables';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The documents and their tables: each block starts at its header line and runs to the first line that is not a row. */
export const TABLE_DOCS = [
  { file: 'docs/architecture.md', header: '| table | columns | notes |', render: renderArchitectureTable },
  { file: 'README.md', header: '| table | columns |', render: renderReadmeTable },
] as const;

/** The document's text with its table replaced by `table`; throws naming the file when it has no such table. */
export function withTable(file: string, text: string, header: string, table: string): string {
  const lines = text.split('\n');
  const at = lines.indexOf(header);
  if (at < 0) throw new Error(`${file}: no table starting with the line '${header}'`);
  let end = at;
  while (end < lines.length && lines[end].startsWith('|')) end++;
  return [...lines.slice(0, at), ...table.split('\n'), ...lines.slice(end)].join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const check = process.argv.includes('--check');
  let stale = 0;
  for (const d of TABLE_DOCS) {
    const path = join(root, d.file);
    const text = readFileSync(path, 'utf8');
    const next = withTable(d.file, text, d.header, d.render());
    if (next === text) continue;
    stale++;
    if (check) console.error(`${d.file}: its table of the workspace tables differs from node/engine/store/tables.ts (run node --import tsx scripts/tables-doc.ts)`);
    else writeFileSync(path, next);
  }
  if (check && stale) process.exitCode = 1;
}
