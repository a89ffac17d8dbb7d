// `quadscope serve`: the workstation in a browser, on loopback.
import type { Command } from '../main';
import { parseArgs } from '../args';
import { UsageError } from '../errors';
import { defaultDbFile } from '../../workspace';

export const command: Command = {
  summary: 'serve the workstation on 127.0.0.1 for a browser (prints the URL with its token)',
  usage: 'serve [--db F] [--port N] [--host 127.0.0.1] [--renderer DIR] [--open-demo]',
  async run(argv) {
    const { flags } = parseArgs(argv, { db: 'string', port: 'string', host: 'string', renderer: 'string', 'open-demo': 'boolean' });
    const port = flags.port === undefined ? 0 : Number(flags.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError('--port must be 0..65535');
    const { startServer } = await import('../../bridge/server');
    const dbFile = (flags.db as string | undefined) ?? defaultDbFile();
    const server = await startServer({ dbFile, port, host: flags.host as string | undefined, rendererDir: flags.renderer as string | undefined });
    console.log(`Quadscope is serving ${dbFile}`);
    console.log(`open ${server.url}`);
    if (flags['open-demo']) {
      // The page is usable at once; the demo incident appears in the library when its import is done.
      const { ensureDemoIncident } = await import('../../engine/demo');
      ensureDemoIncident(server.engine).then(
        (id) => id !== null && console.log(`demo incident ready (id ${id})`),
        (e: unknown) => console.error(`the demo incident did not import: ${e instanceof Error ? e.message : String(e)}`),
      );
    }
    await new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    await server.close();
    return 0;
  },
};
