// User SQL for the long-running engine (the SQL console): run in a child process that is killed at the
// time cap, so even a query that computes for ever before its first row cannot freeze the workstation.
// From the TypeScript sources the child is node + tsx; in the desktop app it is the engine's own bundle
// run as Node (ELECTRON_RUN_AS_NODE) with --run-sql, named by QUADSCOPE_ENGINE_ENTRY.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { EngineError } from '../../../common/contract/api';
import type { SqlResult } from '../../../common/contract/types';
import { DEFAULT_SQL_TIMEOUT_MS, MAX_ANSWER_BYTES } from './user-sql';

/** The child caps its answer at user-sql.ts's MAX_ANSWER_BYTES; anything far past it is not a real answer. */
const MAX_CHILD_OUTPUT_BYTES = 4 * MAX_ANSWER_BYTES;
/**
 * SQL children running at once, and calls waiting for one: each child is a Node process (~50–70 MB), and
 * 68 calls started 64 of them (4.6 GB). Past both, a call is refused as busy.
 */
export const MAX_SQL_CHILDREN = 4;
export const MAX_SQL_WAITING = 64;

let running = 0;
const waiting: (() => void)[] = [];

/** Runs `fn` when a child slot is free; refuses at once when too many calls already wait. */
async function withSlot<T>(fn: () => Promise<T>): Promise<T> {
  if (running >= MAX_SQL_CHILDREN) {
    if (waiting.length >= MAX_SQL_WAITING) {
      throw new EngineError('busy', `${MAX_SQL_CHILDREN} SQL queries are running and ${MAX_SQL_WAITING} waiting: wait for their answers before sending more`);
    }
    await new Promise<void>((resolve) => waiting.push(resolve));
  } else running++;
  try {
    return await fn();
  } finally {
    // The slot passes straight to the next waiter (running stays counted), else it is freed.
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

function childCommand(): { args: string[]; env: NodeJS.ProcessEnv } {
  const bundled = process.env.QUADSCOPE_ENGINE_ENTRY;
  if (bundled) return { args: [bundled, '--run-sql'], env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } };
  // tsx by its resolved URL: a bare `--import tsx` would resolve from the user's working directory.
  return { args: ['--import', import.meta.resolve('tsx'), fileURLToPath(new URL('./sql-child-entry.ts', import.meta.url))], env: process.env };
}

export function runUserSqlInChild(file: string, sql: string, limit: number, timeoutMs = DEFAULT_SQL_TIMEOUT_MS): Promise<SqlResult> {
  return withSlot(() => runChild(file, sql, limit, timeoutMs));
}

function runChild(file: string, sql: string, limit: number, timeoutMs: number): Promise<SqlResult> {
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
      if (bytes > MAX_CHILD_OUTPUT_BYTES) {
        child.kill('SIGKILL');
        finish(() => reject(new EngineError('sql_too_large', `the answer is larger than ${MAX_CHILD_OUTPUT_BYTES / 2 ** 20} MiB: add a LIMIT`)));
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
