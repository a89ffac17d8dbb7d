// `quadscope query <db> <sql>`: read-only SQL over the documented views.
import type { Command } from '../main';
import { parseArgs } from '../args';
import { UsageError } from '../errors';
import { existsSync } from 'node:fs';
import { runReadOnlySql } from '../../engine/store/user-sql';

export const command: Command = {
  summary: 'run read-only SQL over a workspace database (tables: incidents, sources, series, samples, events, …)',
  usage: 'query <db> <sql> [--json] [--limit N]',
  async run(argv) {
    const { positional, flags } = parseArgs(argv, { json: 'boolean', limit: 'string' });
    const [db, ...sqlParts] = positional;
    if (!db || !sqlParts.length) throw new UsageError('name a database and a query');
    if (!existsSync(db)) throw new Error(`${db}: no such database`);
    const limit = flags.limit === undefined ? 10_000 : Number(flags.limit);
    if (!Number.isInteger(limit) || limit < 1) throw new UsageError('--limit must be a positive integer');
    const r = runReadOnlySql(db, sqlParts.join(' '), limit);
    if (flags.json) {
      console.log(JSON.stringify(r.rows.map((row) => Object.fromEntries(r.columns.map((c, i) => [c, row[i]])))));
    } else {
      console.log(r.columns.join('\t'));
      for (const row of r.rows) console.log(row.map((v) => (v === null ? 'NULL' : String(v))).join('\t'));
      if (r.truncated) console.error(`(first ${limit} rows; use --limit for more)`);
    }
    return 0;
  },
};
