// Starts the engine in a utility process and relays calls to it; restarts it if it crashes, at most
// MAX_RESTARTS times. After that every call is answered at once with an error: before, a call posted to
// the dead process never settled, and the window waited for ever.
import type { UtilityProcess } from 'electron';
import type { Wire } from '../common/contract/api';
import type { EngineEvent } from '../common/contract/types';

export interface EngineHost {
  call(method: string, payload: unknown): Promise<Wire & { kind: 'result' }>;
  stop(): void;
}

/** What the host uses of a utility process (a stand-in in tests). */
export type EngineChild = Pick<UtilityProcess, 'postMessage' | 'kill'> & {
  on(event: 'message', listener: (msg: Wire) => void): unknown;
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

  const spawn = () => {
    child = fork(entry, ['--db', dbFile, ...(openDemo ? ['--open-demo'] : [])], { serviceName: 'Quadscope engine', stdio: 'inherit', env: { ...process.env, ...env } });
    child.on('message', (msg: Wire) => {
      if (msg.kind === 'event') onEvent(msg.event);
      else if (msg.kind === 'result') {
        pending.get(msg.id)?.(msg);
        pending.delete(msg.id);
      }
    });
    child.on('exit', (code) => {
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
      child.kill();
    },
  };
}
