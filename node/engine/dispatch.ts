// The one wire dispatch (docs/architecture.md §3): a call that arrived as a `Wire` message — on the engine
// host's utility-process port from Electron main, or on the bridge's WebSocket from a browser — is checked
// against the contract (the method is one of `requestValidators`, the payload passes its validator), run
// on the engine, and answered as a `Wire` result. Errors are values on the wire (thrown errors lose all but
// `message` across processes): the engine's own code, `invalid_request` for a payload the contract refuses
// (its message names the field), `unknown_method`, else `internal`.
import { EngineError, isMethod, validateRequest, validateWindowRequest, type EngineApi, type Method, type Req, type Res, type Wire } from '../../common/contract/api';
import { ValidationError } from '../../common/contract/validate';

export type WireResult = Extract<Wire, { kind: 'result' }>;

/**
 * Who sent the call. `window`: a page (the bridge's WebSocket), held to `validateWindowRequest` — it may
 * never name a path on the engine's machine. `main`: Electron main relaying a window call it has already
 * checked that way, or one of its own (a PDF export names where the HTML goes), held to the contract alone.
 */
export type Door = 'window' | 'main';

export interface DispatchOptions {
  door: Door;
  /** Runs after a call succeeded, before it is answered (the bridge removes uploads and report folders). */
  after?: <M extends Method>(method: M, req: Req<M>, res: Res<M>) => void;
}

/** Answers one call; never throws. */
export async function dispatchCall(engine: EngineApi, call: { id: number; method: unknown; payload: unknown }, opts: DispatchOptions): Promise<WireResult> {
  try {
    if (!isMethod(call.method)) throw new EngineError('unknown_method', `unknown method ${String(call.method)}`);
    const value = await run(engine, call.method, call.payload, opts);
    return { kind: 'result', id: call.id, ok: true, value: value ?? null };
  } catch (e) {
    return { kind: 'result', id: call.id, ok: false, error: { code: errorCode(e), message: e instanceof Error ? e.message : String(e) } };
  }
}

async function run<M extends Method>(engine: EngineApi, method: M, payload: unknown, opts: DispatchOptions): Promise<Res<M>> {
  const req = opts.door === 'window' ? validateWindowRequest(method, payload) : validateRequest(method, payload);
  const res = await (engine[method] as (r: Req<M>) => Promise<Res<M>>).call(engine, req);
  opts.after?.(method, req, res);
  return res;
}

function errorCode(e: unknown): string {
  if (e instanceof EngineError) return e.code;
  return e instanceof ValidationError ? 'invalid_request' : 'internal';
}
