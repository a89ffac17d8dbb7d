// Where the workspace database lives when the user names none.
import { homedir } from 'node:os';
import { join } from 'node:path';

export function defaultDbFile(): string {
  return process.env.QUADSCOPE_DB ?? join(process.env.QUADSCOPE_HOME ?? join(homedir(), '.quadscope'), 'workspace.db');
}
