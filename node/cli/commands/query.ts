// `quadscope query <db> <sql>`: read-only SQL over the documented views.
import type { Command } from '../main';
import { parseArgs } from '../args';
import { UsageError } from '../errors';
import { existsSync } from 'node:fs';
import { writeSync } from 'node:fs';
import { streamReadOnlySql } from '../../engine/store/user-sql';
import { fileKind } from '../../engine/store/workspace-file';
import { randomUUID } from 'node:crypto';

/** The placeholder of a bigint in --json output: a random token, so no value of the answer can be it. */
const BIG = `qs-bigint-${randomUUID()}-`;
const BIG_RE = new RegExp(`"${BIG}(\\d+)"`, 'g');

export const command: Command = {
  summary: 'run read-only SQL over a workspace database (tables: incidents, sources, series, samples, events, …)',
  usage: 'query <db> <sql> [--json] [--limit N]',
  async run(argv) {
    const { positional, flags } = parseArgs(argv, { json: 'boolean', limit: 'string' });
    const [db, ...sqlParts] = positional;
    if (!db || !sqlParts.length) throw new UsageError('name a database and a query');
    if (!existsSync(db)) throw new Error(`${db}: no such database`);
    // A bundle (a folder, a log, an archive) named where the database goes reached SQLite as "disk I/O error".
    if (fileKind(db) === 'other') throw new UsageError(`${db} is not a SQLite database; to query a bundle, import it first: quadscope import ${db} --db incident.db, then quadscope query incident.db …`);
    const limit = flags.limit === undefined ? 10_000 : Number(flags.limit);
    if (!Number.isInteger(limit) || limit < 1) throw new UsageError('--limit must be a positive integer');
    // Rows go to stdout as they are read, so a large answer never sits in memory.
    const out = new LineWriter();
    let columns: string[] = [];
    let first = true;
    let r: { truncated: boolean };
    try {
      r = streamReadOnlySql(
        db,
        sqlParts.join(' '),
        limit,
        (c) => {
          columns = c;
          out.write(flags.json ? '[' : `${c.join('\t')}\n`);
        },
        (row) => {
          if (flags.json) {
            // An integer past 2^53 (ns times) is written with all its digits (JSON numbers have no limit):
            // JSON.stringify cannot, so it writes a placeholder no value can hold, then replaced.
            const big: string[] = [];
            const json = JSON.stringify(Object.fromEntries(columns.map((c, i) => [c, row[i]])), (_k, v: unknown) => (typeof v === 'bigint' ? `${BIG}${big.push(v.toString()) - 1}` : v));
            out.write(`${first ? '' : ','}${big.length ? json.replace(BIG_RE, (_m, i: string) => big[Number(i)]) : json}`);
            first = false;
          } else out.write(`${row.map((v) => (v === null ? 'NULL' : String(v))).join('\t')}\n`);
        },
      );
      if (flags.json) out.write(']\n');
      out.end();
    } catch (e) {
      if (e instanceof PipeClosed) return 0; // the reader had enough (`| head`)
      throw e;
    }
    if (r.truncated) console.error(`(first ${limit} rows; use --limit for more)`);
    return 0;
  },
};

/** Buffers small writes to stdout into blocks written synchronously (the query runs synchronously too). */
class LineWriter {
  private parts: string[] = [];
  private size = 0;

  write(s: string): void {
    this.parts.push(s);
    this.size += s.length;
    if (this.size >= 1 << 16) this.flush();
  }

  end(): void {
    this.flush();
  }

  private flush(): void {
    if (!this.parts.length) return;
    const text = this.parts.join('');
    this.parts = [];
    this.size = 0;
    const buf = Buffer.from(text);
    for (let at = 0; at < buf.length; ) {
      try {
        at += writeSync(1, buf, at);
      } catch (e) {
        // A pipe that is full (EAGAIN) is waited on; one that is closed (EPIPE: `| head`) ends the output.
        if ((e as NodeJS.ErrnoException).code === 'EAGAIN') continue;
        if ((e as NodeJS.ErrnoException).code === 'EPIPE') throw new PipeClosed();
        throw e;
      }
    }
  }
}

class PipeClosed extends Error {}
