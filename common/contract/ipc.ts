// The Electron IPC channels between the preload and main, named once: a channel renamed on one side only
// would leave every call unanswered, with nothing to say why.

/** Renderer → main: one call of the contract (`invoke(method, payload)`, answered with a `Wire` result). */
export const IPC_CALL = 'quadscope:call';
/** Main → renderer: engine events (import progress, live status). */
export const IPC_EVENT = 'quadscope:event';

/**
 * User SQL processes running at once. Each is a process of its own (~50–70 MB): 68 calls once started 64
 * of them (4.6 GB). The engine queues beyond this (user-sql-process.ts); main, which starts them in the
 * desktop app, refuses beyond it too.
 */
export const MAX_SQL_PROCESSES = 4;

/**
 * Engine ⇄ main, beside the Wire calls on the engine's utility-process port. In the desktop app user SQL
 * runs in a utility process of its own, which only main can start: a packaged app has Electron's RunAsNode
 * fuse off, so the engine cannot run Electron's binary as Node. The engine asks (`sql-start`, its request
 * as JSON text), main starts the process and relays its one answer (`sql-answer`, JSON text) or says it
 * ended without one (`sql-ended`); the engine keeps the time cap and asks main to stop it (`sql-kill`).
 */
export type SqlRelay =
  | { kind: 'sql-start'; id: number; request: string }
  | { kind: 'sql-kill'; id: number }
  | { kind: 'sql-answer'; id: number; answer: string }
  | { kind: 'sql-ended'; id: number; code: string; message: string };

/** Whether a message on the engine's port is one of the SQL relay's (the rest are Wire messages). */
export function isSqlRelay(m: unknown): m is SqlRelay {
  const kind = (m as { kind?: unknown } | null)?.kind;
  return typeof kind === 'string' && kind.startsWith('sql-') && typeof (m as { id?: unknown }).id === 'number';
}
