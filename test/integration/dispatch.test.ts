// The one wire dispatch (node/engine/dispatch.ts) that the engine host's port and the bridge's WebSocket
// both answer through, on a real engine over a real SQLite file: the contract's checks, the two doors,
// errors as values with their codes, and the hook that runs after a call succeeded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine } from '../../node/engine/api';
import { dispatchCall } from '../../node/engine/dispatch';
import type { EngineApi, Method } from '../../common/contract/api';

async function withEngine(fn: (engine: Engine) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'qs-dispatch-'));
  const engine = new Engine(join(dir, 'w.db'));
  try {
    await fn(engine);
  } finally {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a valid call is answered with its value and the same id, from either door', () =>
  withEngine(async (engine) => {
    for (const door of ['window', 'main'] as const) {
      const r = await dispatchCall(engine, { id: 7, method: 'runSql', payload: { sql: 'SELECT 2 AS n' } }, { door });
      assert.deepEqual(r, { kind: 'result', id: 7, ok: true, value: { columns: ['n'], rows: [[2]], truncated: false } });
    }
    const listed = await dispatchCall(engine, { id: 8, method: 'listIncidents', payload: null }, { door: 'window' });
    assert.deepEqual(listed, { kind: 'result', id: 8, ok: true, value: [] });
  }));

test('the contract refuses unknown methods and bad payloads, naming the field', () =>
  withEngine(async (engine) => {
    const unknown = await dispatchCall(engine, { id: 1, method: 'constructor', payload: {} }, { door: 'main' });
    assert.equal(unknown.ok, false);
    assert.deepEqual(!unknown.ok && unknown.error, { code: 'unknown_method', message: 'unknown method constructor' });
    const bad = await dispatchCall(engine, { id: 2, method: 'getIncident', payload: { id: 'one' } }, { door: 'main' });
    assert.equal(!bad.ok && bad.error.code, 'invalid_request');
    assert.match(!bad.ok ? bad.error.message : '', /id must be a finite number/);
  }));

test('only main may name where a report goes; the window may not', () =>
  withEngine(async (engine) => {
    const payload = { incident_id: 42, format: 'html', out: join(tmpdir(), 'r.html') };
    const fromWindow = await dispatchCall(engine, { id: 1, method: 'exportReport', payload }, { door: 'window' });
    assert.equal(!fromWindow.ok && fromWindow.error.code, 'invalid_request');
    assert.match(!fromWindow.ok ? fromWindow.error.message : '', /\bout must be absent/);
    // Past the contract, the engine itself answers: there is no incident 42.
    const fromMain = await dispatchCall(engine, { id: 2, method: 'exportReport', payload }, { door: 'main' });
    assert.equal(!fromMain.ok && fromMain.error.code, 'not_found');
  }));

test("the engine's error codes travel as values; anything else is internal", async () => {
  await withEngine(async (engine) => {
    const refused = await dispatchCall(engine, { id: 3, method: 'runSql', payload: { sql: "ATTACH '/etc/passwd' AS x" } }, { door: 'window' });
    assert.equal(!refused.ok && refused.error.code, 'sql_refused');
  });
  const broken = { listIncidents: () => Promise.reject(new TypeError('boom')) } as unknown as EngineApi;
  const r = await dispatchCall(broken, { id: 4, method: 'listIncidents', payload: null }, { door: 'main' });
  assert.deepEqual(r, { kind: 'result', id: 4, ok: false, error: { code: 'internal', message: 'boom' } });
});

test('the after hook sees each successful call with its request and answer, and no failed one', () =>
  withEngine(async (engine) => {
    const seen: [Method, unknown, unknown][] = [];
    const after = (m: Method, req: unknown, res: unknown) => void seen.push([m, req, res]);
    await dispatchCall(engine, { id: 1, method: 'runSql', payload: { sql: 'SELECT 1 AS one' } }, { door: 'window', after });
    await dispatchCall(engine, { id: 2, method: 'getIncident', payload: { id: 42 } }, { door: 'window', after });
    assert.deepEqual(seen, [['runSql', { sql: 'SELECT 1 AS one' }, { columns: ['one'], rows: [[1]], truncated: false }]]);
    // A hook that throws turns the answer into an error rather than losing the call.
    const r = await dispatchCall(engine, { id: 3, method: 'listIncidents', payload: null }, { door: 'main', after: () => { throw new Error('cleanup failed'); } });
    assert.deepEqual(r, { kind: 'result', id: 3, ok: false, error: { code: 'internal', message: 'cleanup failed' } });
  }));
