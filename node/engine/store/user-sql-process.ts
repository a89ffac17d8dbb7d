// User SQL for the long-running engine (the SQL console): run in a process of its own that is killed at
// the time cap, so even a query that computes for ever before its first row cannot freeze the
// workstation. How that process starts depends on the host: under Node (the CLI, browser mode) it is a
// child Node process (node + tsx over sql-child-entry.ts); in the desktop app the engine is itself an
// Electron utility process and asks main to start a utility process of its own (relayedSqlLauncher):
// a packaged app has the RunAsNode fuse off, so Electron's binary cannot be run as Node.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { EngineError } from '../../../common/contract/api';
import { MAX_SQL_PROCESSES, type SqlRelay } from '../../../common/contract/ipc';
import type { SqlResult } from '../../../common/contract/types';
import { DEFAULT_SQL_TIMEOUT_MS, MAX_ANSWER_BYTES } from './user-sql';

/** The child caps its answer at user-sql.ts's MAX_ANSWER_BYTES; anything far past it is not a real answer. */
const MAX_CHILD_OUTPUT_BYTES = 4 * MAX_ANSWER_BYTES;
/**
 * SQL processes running at once, and calls waiting for one: each is a Node process (~50–70 MB), and
 * 68 calls started 64 of them (4.6 GB). Past both, a call is refused as busy.
 */
export const MAX_SQL_CHILDREN = MAX_SQL_PROCESSES;
export const MAX_SQL_WAITING = 64;

/** One user-SQL process as the engine sees it: started with its request, answering once, killable. */
export interface SqlProcess {
  /** Its answer (sql-child.ts's JSON text), or a rejection (an EngineError) when it ended without one. */
  readonly answer: Promise<string>;
  kill(): void;
}

/** Starts one user-SQL process for a request (JSON text: file, sql, limit, timeoutMs). */
export type SqlLauncher = (request: string) => SqlProcess;

let running = 0;
const waiting: (() => void)[] = [];

/** Runs `fn` when a process slot is free; refuses at once when too many calls already wait. */
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

/** Under Node: a child Node process running sql-child-entry.ts, the request on stdin, the answer on stdout. */
export const nodeSqlLauncher: SqlLauncher = (request) => {
  // tsx by its resolved URL: a bare `--import tsx` would resolve from the user's working directory.
  const args = ['--import', import.meta.resolve('tsx'), fileURLToPath(new URL('./sql-child-entry.ts', import.meta.url))];
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  const answer = new Promise<string>((resolve, reject) => {
    const out: Buffer[] = [];
    let bytes = 0;
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      bytes += d.length;
      if (bytes > MAX_CHILD_OUTPUT_BYTES) {
        child.kill('SIGKILL');
        reject(tooLarge());
      } else out.push(d);
    });
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
    child.on('error', (e) => reject(new EngineError('sql_error', `the SQL process did not start: ${e.message}`)));
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(out).toString('utf8'));
      else reject(new EngineError('sql_error', `the SQL process ended without an answer (exit ${code}): ${stderr.trim().split('\n').at(-1) ?? ''}`));
    });
  });
  child.stdin.end(request);
  return { answer, kill: () => child.kill('SIGKILL') };
};

const tooLarge = () => new EngineError('sql_too_large', `the answer is larger than ${MAX_CHILD_OUTPUT_BYTES / 2 ** 20} MiB: add a LIMIT`);

/**
 * In the desktop app's engine (a utility process): SQL processes started by main over the engine's port.
 * `receive` takes main's relay messages (sql-answer, sql-ended) for the processes it started.
 */
export function relayedSqlLauncher(post: (m: SqlRelay) => void): { launch: SqlLauncher; receive: (m: SqlRelay) => void } {
  let nextId = 1;
  const open = new Map<number, { resolve: (answer: string) => void; reject: (e: EngineError) => void }>();
  return {
    launch: (request) => {
      const id = nextId++;
      const answer = new Promise<string>((resolve, reject) => open.set(id, { resolve, reject }));
      post({ kind: 'sql-start', id, request });
      return { answer, kill: () => open.has(id) && post({ kind: 'sql-kill', id }) };
    },
    receive: (m) => {
      const waiter = open.get(m.id);
      if (!waiter || (m.kind !== 'sql-answer' && m.kind !== 'sql-ended')) return;
      open.delete(m.id);
      if (m.kind === 'sql-answer') waiter.resolve(m.answer);
      else waiter.reject(new EngineError(m.code, m.message));
    },
  };
}

export function runUserSqlInChild(file: string, sql: string, limit: number, timeoutMs = DEFAULT_SQL_TIMEOUT_MS, launch: SqlLauncher = nodeSqlLauncher): Promise<SqlResult> {
  return withSlot(() => runChild(launch, file, sql, limit, timeoutMs));
}

function runChild(launch: SqlLauncher, file: string, sql: string, limit: number, timeoutMs: number): Promise<SqlResult> {
  return new Promise((resolve, reject) => {
    const child = launch(JSON.stringify({ file, sql, limit, timeoutMs }));
    let settled = false;
    const finish = (f: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      f();
    };
    // Start-up counts against nothing: the cap is the query's, plus a margin for the process.
    const timer = setTimeout(() => {
      child.kill();
      finish(() => reject(new EngineError('sql_timeout', `the query ran longer than ${timeoutMs} ms and was stopped: narrow it (WHERE, LIMIT) and run it again`)));
    }, timeoutMs + 3000);
    child.answer.then(
      (text) =>
        finish(() => {
          if (text.length > MAX_CHILD_OUTPUT_BYTES) return reject(tooLarge());
          try {
            const answer = JSON.parse(text) as { ok: true; value: SqlResult } | { ok: false; error: { code: string; message: string } };
            if (answer.ok) resolve(answer.value);
            else reject(new EngineError(answer.error.code, answer.error.message));
          } catch {
            reject(new EngineError('sql_error', 'the SQL process answered with something that is not its answer'));
          }
        }),
      (e: unknown) => finish(() => reject(e instanceof EngineError ? e : new EngineError('sql_error', e instanceof Error ? e.message : String(e)))),
    );
  });
}
