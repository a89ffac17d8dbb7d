// User SQL for the long-running engine (the SQL console): run in a child process that is killed at the
// time cap, so even a query that computes for ever before its first row cannot freeze the workstation.
// From the TypeScript sources the child is node + tsx; in the desktop app it is the engine's own bundle
// run as Node (ELECTRON_RUN_AS_NODE) with --run-sql, named by QUADSCOPE_ENGINE_ENTRY.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { EngineError } from '../../contract/api';
import type { SqlResult } from '../../contract/types';
import { DEFAULT_SQL_TIMEOUT_MS } from './user-sql';

const MAX_ANSWER_BYTES = 256 * 2 ** 20;

function childCommand(): { args: string[]; env: NodeJS.ProcessEnv } {
  const bundled = process.env.QUADSCOPE_ENGINE_ENTRY;
  if (bundled) return { args: [bundled, '--run-sql'], env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } };
  // tsx by its resolved URL: a bare `--import tsx` would resolve from the user's working directory.
  return { args: ['--import', import.meta.resolve('tsx'), fileURLToPath(new URL('./sql-child-entry.ts', import.meta.url))], env: process.env };
}

export function runUserSqlInChild(file: string, sql: string, limit: number, timeoutMs = DEFAULT_SQL_TIMEOUT_MS): Promise<SqlResult> {
  const { args, env } = childCommand();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let bytes = 0;
    let stderr = '';
    let settled = false;
    const finish = (f: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      f();
    };
    // Start-up counts against nothing: the cap is the query's, plus a margin for the process.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      finish(() => reject(new EngineError('sql_timeout', `the query ran longer than ${timeoutMs} ms and was stopped: narrow it (WHERE, LIMIT) and run it again`)));
    }, timeoutMs + 3000);
    child.stdout.on('data', (d: Buffer) => {
      bytes += d.length;
      if (bytes > MAX_ANSWER_BYTES) {
        child.kill('SIGKILL');
        finish(() => reject(new EngineError('sql_too_large', 'the answer is larger than 256 MiB: add a LIMIT')));
      } else out.push(d);
    });
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
    child.on('error', (e) => finish(() => reject(new EngineError('sql_error', `the SQL process did not start: ${e.message}`))));
    child.on('close', (code) => {
      finish(() => {
        try {
          const answer = JSON.parse(Buffer.concat(out).toString('utf8')) as { ok: true; value: SqlResult } | { ok: false; error: { code: string; message: string } };
          if (answer.ok) resolve(answer.value);
          else reject(new EngineError(answer.error.code, answer.error.message));
        } catch {
          reject(new EngineError('sql_error', `the SQL process ended without an answer (exit ${code}): ${stderr.trim().split('\n').at(-1) ?? ''}`));
        }
      });
    });
    child.stdin.end(JSON.stringify({ file, sql, limit, timeoutMs }));
  });
}
