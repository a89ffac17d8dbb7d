// `quadscope <command> …`: each command is a module in ./commands with one `run(argv)` function.
// A command answers an exit code; errors a user can act on are printed as one line, not a stack.
import { parseArgs } from './args';

export interface Command {
  summary: string;
  usage: string;
  run(argv: string[]): Promise<number>;
}

const COMMANDS: Record<string, () => Promise<{ command: Command }>> = {
  import: () => import('./commands/import'),
  pull: () => import('./commands/pull'),
  query: () => import('./commands/query'),
  serve: () => import('./commands/serve'),
  analyze: () => import('./commands/analyze'),
  report: () => import('./commands/report'),
  record: () => import('./commands/record'),
  collect: () => import('./commands/collect'),
};

import { UsageError } from './errors';

async function help(): Promise<void> {
  const lines = ['usage: quadscope <command> [options]', '', 'commands:'];
  for (const [name, load] of Object.entries(COMMANDS)) {
    try {
      const { command } = await load();
      lines.push(`  ${name.padEnd(9)} ${command.summary}`);
    } catch {
      /* a command whose module is not built yet is simply not listed */
    }
  }
  lines.push('', "run 'quadscope <command> --help' for a command's options");
  console.log(lines.join('\n'));
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    await help();
    return name ? 0 : 2;
  }
  const load = COMMANDS[name];
  if (!load) {
    console.error(`quadscope: unknown command '${name}' (try 'quadscope --help')`);
    return 2;
  }
  const { command } = await load();
  if (rest.includes('--help') || rest.includes('-h')) {
    console.log(`usage: quadscope ${command.usage}\n\n${command.summary}`);
    return 0;
  }
  try {
    return await command.run(rest);
  } catch (e) {
    if (e instanceof UsageError) {
      console.error(`quadscope ${name}: ${e.message}\nusage: quadscope ${command.usage}`);
      return 2;
    }
    const msg = e instanceof Error ? e.message : String(e);
    console.error(`quadscope ${name}: ${msg}`);
    if (process.env.QUADSCOPE_DEBUG) console.error(e);
    return 1;
  }
}

export { parseArgs };
