// The far side of user SQL run in its own process: reads {file, sql, limit, timeoutMs} as JSON on stdin,
// answers {ok, value} or {ok:false, error:{code, message}} as JSON on stdout. The engine kills this
// process when a query outlives its time cap, which nothing in-process can do (see user-sql.ts).
import { runReadOnlySql } from './user-sql';
import { EngineError } from '../../../common/contract/api';

export async function sqlChildMain(): Promise<void> {
  let input = '';
  for await (const chunk of process.stdin) input += chunk;
  let answer: unknown;
  try {
    const req = JSON.parse(input) as { file: string; sql: string; limit: number; timeoutMs: number };
    answer = { ok: true, value: runReadOnlySql(req.file, req.sql, req.limit, { timeoutMs: req.timeoutMs }) };
  } catch (e) {
    answer = { ok: false, error: { code: e instanceof EngineError ? e.code : 'sql_error', message: e instanceof Error ? e.message : String(e) } };
  }
  process.stdout.write(JSON.stringify(answer));
}
