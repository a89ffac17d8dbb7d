// Where the workspace database lives when the user names none: one file for the desktop app, the CLI
// and browser mode, so an incident imported in one is there in the others. Node only (no electron):
// electron-main imports it too.
import { homedir } from 'node:os';
import { join } from 'node:path';

/** `QUADSCOPE_DB`, else `workspace.db` in `QUADSCOPE_HOME`, else in `~/.quadscope`. */
export function defaultDbFile(): string {
  return process.env.QUADSCOPE_DB ?? join(process.env.QUADSCOPE_HOME ?? join(homedir(), '.quadscope'), 'workspace.db');
}
