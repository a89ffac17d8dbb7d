// Electron's utilityProcess.fork, stood in for by Node's child_process.fork over utility-process-entry.ts,
// so main's engine host (electron-main/engine-host.ts) drives real engine and SQL processes in a test.
// It keeps what a test asks about them: their arguments and environment, and how many ran at once.
import { fork as forkNode, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { EngineChild, ForkEngine } from '../../electron-main/engine-host';
import { REPO_ROOT } from './corpus';

export interface UtilityProcesses {
  fork: ForkEngine;
  /** Every process started: its arguments and environment, and whether it still runs (not stopped, not exited). */
  started: { args: string[]; env: NodeJS.ProcessEnv; running: () => boolean; child: ChildProcess }[];
  /** The most processes whose arguments include `arg` that ran at once. */
  peak(arg: string): number;
}

export function nodeUtilityProcesses(): UtilityProcesses {
  const started: UtilityProcesses['started'] = [];
  const peaks = new Map<string, number>();
  const count = (arg: string) => started.filter((p) => p.args.includes(arg) && p.running()).length;
  const fork: ForkEngine = (entry, args, opts) => {
    const child = forkNode(join(REPO_ROOT, 'test/helpers/utility-process-entry.ts'), [entry, ...args], {
      cwd: REPO_ROOT,
      execArgv: ['--import', 'tsx'],
      env: opts.env,
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let stopped = false;
    child.on('exit', () => (stopped = true));
    started.push({ args, env: opts.env, running: () => !stopped, child });
    for (const a of args) peaks.set(a, Math.max(peaks.get(a) ?? 0, count(a)));
    const wrapped = {
      postMessage: (m: unknown) => {
        if (child.connected) child.send(m as never);
      },
      // Electron's kill() is SIGTERM on POSIX.
      kill: () => {
        stopped = true;
        return child.kill('SIGTERM');
      },
      on: (event: 'message' | 'exit', listener: (x: unknown) => void) => {
        if (event === 'message') child.on('message', (m) => listener(m));
        else child.on('exit', (code, signal) => listener(code ?? (signal ? 128 + 15 : 1)));
        return wrapped;
      },
    };
    return wrapped as unknown as EngineChild;
  };
  return { fork, started, peak: (arg) => peaks.get(arg) ?? 0 };
}
