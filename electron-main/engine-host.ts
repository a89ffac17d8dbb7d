// Starts the engine in a utility process and relays calls to it; restarts it once if it crashes.
import { utilityProcess, type UtilityProcess } from 'electron';
import type { Wire } from '../common/contract/api';
import type { EngineEvent } from '../common/contract/types';

export interface EngineHost {
  call(method: string, payload: unknown): Promise<Wire & { kind: 'result' }>;
  stop(): void;
}

export function startEngineHost(entry: string, dbFile: string, onEvent: (e: EngineEvent) => void, openDemo: boolean, env: Record<string, string> = {}): EngineHost {
  let child: UtilityProcess;
  let nextId = 1;
  let restarts = 0;
  let stopping = false;
  const pending = new Map<number, (r: Wire & { kind: 'result' }) => void>();

  const spawn = () => {
    child = utilityProcess.fork(entry, ['--db', dbFile, ...(openDemo ? ['--open-demo'] : [])], { serviceName: 'Quadscope engine', stdio: 'inherit', env: { ...process.env, ...env } });
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
      if (!stopping && restarts++ < 3) spawn();
    });
  };
  spawn();

  return {
    call(method, payload) {
      const id = nextId++;
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
