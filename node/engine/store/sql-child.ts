// The far side of user SQL run in its own process: a request {file, sql, limit, timeoutMs} as JSON in,
// {ok, value} or {ok:false, error:{code, message}} as JSON out. The engine kills this process when a
// query outlives its time cap, which nothing in-process can do (see user-sql.ts). Under Node the request
// comes on stdin and the answer goes to stdout; as an Electron utility process (the desktop app), both
// travel on its parent port, and main stops the process once it has the answer.
import { runReadOnlySql } from './user-sql';
import { EngineError } from '../../../common/contract/api';

/** One request's answer, as JSON text. */
export function answerSql(request: string): string {
  let answer: unknown;
  try {
    const req = JSON.parse(request) as { file: string; sql: string; limit: number; timeoutMs: number };
    answer = { ok: true, value: runReadOnlySql(req.file, req.sql, req.limit, { timeoutMs: req.timeoutMs }) };
  } catch (e) {
    answer = { ok: false, error: { code: e instanceof EngineError ? e.code : 'sql_error', message: e instanceof Error ? e.message : String(e) } };
  }
  return JSON.stringify(answer);
}

export async function sqlChildMain(): Promise<void> {
  let input = '';
  for await (const chunk of process.stdin) input += chunk;
  process.stdout.write(answerSql(input));
}

/** A utility process's port (Electron's `process.parentPort`). */
export interface ParentPort {
  on(event: 'message', listener: (e: { data: unknown }) => void): void;
  postMessage(message: unknown): void;
}

/** As a utility process: the first message is the request; its answer goes back on the same port. */
export function sqlChildOnPort(port: ParentPort): void {
  let answered = false;
  port.on('message', ({ data }) => {
    if (answered) return;
    answered = true;
    port.postMessage(answerSql(String(data)));
  });
}
