// `quadscope import <bundle…>`: imports folders, archives or files as one incident.
import type { Command } from '../main';
import { parseArgs } from '../args';
import { UsageError } from '../errors';
import { defaultDbFile } from '../../workspace';
import { importPaths } from '../../engine/import/pipeline';
import { Store } from '../../engine/store/store';
import { describeStoreError } from '../../engine/store/db';
import type { ImportOptions } from '../../../common/contract/types';
import { formatBytes } from '../../../common/format';

export const command: Command = {
  summary: 'import an incident bundle (folder, .zip, .tar.gz or files) into a workspace database',
  usage: 'import <bundle…> [--db F] [--name N] [--year Y] [--tz ±HH:MM] [--json]',
  async run(argv) {
    const { positional, flags } = parseArgs(argv, { db: 'string', name: 'string', year: 'string', tz: 'string', json: 'boolean' });
    if (!positional.length) throw new UsageError('name at least one bundle');
    const options: ImportOptions = {};
    if (flags.year !== undefined) {
      const y = Number(flags.year);
      if (!Number.isInteger(y) || y < 1970 || y > 9999) throw new UsageError('--year must be a year such as 2026');
      options.year = y;
    }
    if (flags.tz !== undefined) options.tzOffsetMinutes = parseTz(flags.tz as string);
    const dbFile = (flags.db as string | undefined) ?? defaultDbFile();
    let store: Store;
    try {
      store = new Store(dbFile);
    } catch (e) {
      return failWhole(!!flags.json, `${dbFile}: ${describeStoreError(e)}`);
    }
    const controller = new AbortController();
    // Ctrl-C or a polite kill: the file in flight is rolled back, those committed stay, the result is printed.
    const onSignal = () => controller.abort();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    try {
      const result = await importPaths(store, positional, {
        name: flags.name as string | undefined,
        options,
        signal: controller.signal,
        onProgress: flags.json || !process.stderr.isTTY ? undefined : (p) => {
          if (p.state === 'running' && p.path) process.stderr.write(`\r\x1b[K${p.entries_done}/${p.entries_total ?? '?'} ${p.path} ${formatBytes(p.entry_bytes_done)}`);
        },
      });
      if (!flags.json && process.stderr.isTTY) process.stderr.write('\r\x1b[K');
      // The WAL folded back before the answer, not after it (the process would linger that long).
      await store.checkpointNow();
      if (flags.json) {
        console.log(JSON.stringify({ incident_id: result.incident_id, sources: result.sources, cancelled: result.cancelled }));
      } else {
        console.log(`incident ${result.incident_id} in ${dbFile}${result.cancelled ? ' (cancelled: partial)' : ''}`);
        for (const s of result.sources) {
          console.log(`  ${s.status.padEnd(7)} ${s.format.padEnd(22)} ${String(s.rows).padStart(9)} rows  ${s.path}${s.error ? `\n          ${s.error}` : ''}`);
        }
      }
      const failed = result.sources.filter((s) => s.status === 'failed').length;
      return result.cancelled ? 130 : failed && failed === result.sources.length ? 1 : 0;
    } catch (e) {
      if (e instanceof UsageError) throw e;
      return failWhole(!!flags.json, describeStoreError(e));
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      try {
        store.close();
      } catch {
        /* a store that failed mid-write closes as best it can */
      }
    }
  },
};

/** The import could not run at all (the bundle or the workspace): one line, and a JSON answer for --json. */
function failWhole(json: boolean, message: string): number {
  if (json) console.log(JSON.stringify({ incident_id: null, sources: [], cancelled: false, error: message }));
  console.error(`quadscope import: ${message}`);
  return 1;
}

function parseTz(s: string): number {
  if (s === 'UTC' || s === 'Z') return 0;
  const m = /^([+-])(\d{1,2}):?(\d{2})?$/.exec(s);
  if (!m) throw new UsageError('--tz must look like +02:00, -0500 or UTC');
  const mins = Number(m[2]) * 60 + Number(m[3] ?? 0);
  return m[1] === '-' ? -mins : mins;
}
