// Starts the engine in a utility process and relays calls to it; restarts it if it crashes, at most
// MAX_RESTARTS times. After that every call is answered at once with an error: before, a call posted to
// the dead process never settled, and the window waited for ever.
// It also starts the utility processes user SQL runs in, when the engine asks (common/contract/ipc.ts's
// SqlRelay): the engine cannot start one itself, and with the RunAsNode fuse off it cannot run
// Electron's binary as Node either. At most MAX_SQL_PROCESSES run; each is stopped once it has answered,
// when the engine asks (its time cap), or with the engine.
import type { UtilityProcess } from 'electron';
import type { Wire } from '../common/contract/api';
import { MAX_SQL_PROCESSES, isSqlRelay, type SqlRelay } from '../common/contract/ipc';
import type { EngineEvent } from '../common/contract/types';

export interface EngineHost {
  call(method: string, payload: unknown): Promise<Wire & { kind: 'result' }>;
  stop(): void;
}

/** What the host uses of a utility process (a stand-in in tests). */
export type EngineChild = Pick<UtilityProcess, 'postMessage' | 'kill'> & {
  on(event: 'message', listener: (msg: unknown) => void): unknown;
  on(event: 'exit', listener: (code: number) => void): unknown;
};

export type ForkEngine = (entry: string, args: string[], opts: { serviceName: string; stdio: 'inherit'; env: NodeJS.ProcessEnv }) => EngineChild;

export const MAX_RESTARTS = 3;

export function startEngineHost(
  entry: string,
  dbFile: string,
  onEvent: (e: EngineEvent) => void,
  openDemo: boolean,
  env: Record<string, string>,
  /** Electron's utilityProcess.fork (index.ts passes it: this module imports no Electron value, so a test can run it under Node). */
  fork: ForkEngine,
): EngineHost {
  let child: EngineChild;
  /** The engine stopped for good (restarts used up, or stop()): calls are refused at once. */
  let gone: string | null = null;
  let nextId = 1;
  let restarts = 0;
  let stopping = false;
  const pending = new Map<number, (r: Wire & { kind: 'result' }) => void>();
  /** The SQL processes running, by the engine's id for them. */
  const sqls = new Map<number, EngineChild>();

  /** One user SQL query in a utility process of its own: the request in, its one answer back to `engine`. */
  const startSql = (engine: EngineChild, id: number, request: string) => {
    const reply = (m: SqlRelay) => {
      try {
        engine.postMessage(m);
      } catch {
        /* that engine has exited: no one waits for this answer */
      }
    };
    if (sqls.size >= MAX_SQL_PROCESSES) return reply({ kind: 'sql-ended', id, code: 'busy', message: `${MAX_SQL_PROCESSES} SQL queries are running: wait for their answers` });
    let sql: EngineChild;
    try {
      sql = fork(entry, ['--run-sql'], { serviceName: 'Quadscope SQL', stdio: 'inherit', env: { ...process.env, ...env } });
    } catch (e) {
      return reply({ kind: 'sql-ended', id, code: 'sql_error', message: `the SQL process did not start: ${(e as Error).message}` });
    }
    sqls.set(id, sql);
    // Counted until it answers or is stopped, not until it has exited: the engine starts the next query
    // as soon as it has this one's answer. A restarted engine numbers its queries afresh, so only this
    // process's own entry goes.
    const done = () => sqls.get(id) === sql && sqls.delete(id);
    let answered = false;
    sql.on('message', (answer) => {
      if (answered) return;
      answered = true;
      done();
      reply({ kind: 'sql-answer', id, answer: String(answer) });
      sql.kill();
    });
    sql.on('exit', (code) => {
      done();
      if (!answered) {
        answered = true;
        reply({ kind: 'sql-ended', id, code: 'sql_error', message: `the SQL process ended without an answer (exit ${code})` });
      }
    });
    sql.postMessage(request);
  };
  const stopSqls = () => {
    for (const sql of sqls.values()) sql.kill();
    sqls.clear();
  };

  const spawn = () => {
    const engine = (child = fork(entry, ['--db', dbFile, ...(openDemo ? ['--open-demo'] : [])], { serviceName: 'Quadscope engine', stdio: 'inherit', env: { ...process.env, ...env } }));
    child.on('message', (data: unknown) => {
      if (isSqlRelay(data)) {
        if (data.kind === 'sql-start') startSql(engine, data.id, data.request);
        else if (data.kind === 'sql-kill') {
          const sql = sqls.get(data.id);
          sqls.delete(data.id);
          sql?.kill();
        }
        return;
      }
      const msg = data as Wire;
      if (msg.kind === 'event') onEvent(msg.event);
      else if (msg.kind === 'result') {
        pending.get(msg.id)?.(msg);
        pending.delete(msg.id);
      }
    });
    child.on('exit', (code) => {
      // Its SQL processes answer no one now.
      stopSqls();
      for (const [id, resolve] of pending) resolve({ kind: 'result', id, ok: false, error: { code: 'engine_exit', message: `the engine stopped (exit ${code}); the call was lost` } });
      pending.clear();
      if (!stopping && restarts++ < MAX_RESTARTS) spawn();
      else gone = stopping ? 'the engine was stopped' : `the engine stopped ${MAX_RESTARTS + 1} times (exit ${code}) and is not restarted again: restart Quadscope`;
    });
  };
  spawn();

  return {
    call(method, payload) {
      const id = nextId++;
      if (gone !== null) return Promise.resolve({ kind: 'result', id, ok: false, error: { code: 'engine_exit', message: gone } });
      return new Promise((resolve) => {
        pending.set(id, resolve);
        child.postMessage({ kind: 'call', id, method, payload } as Wire);
      });
    },
    stop() {
      stopping = true;
      stopSqls();
      child.kill();
    },
  };
}
