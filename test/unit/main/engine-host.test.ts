// The engine host with a stand-in for Electron's utility process: calls are answered while the engine
// lives, a crash answers the calls in flight, and once the restarts are used up every call is refused at
// once (it was posted to the dead process and never settled). Main also starts the utility processes user
// SQL runs in, when the engine asks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { MAX_RESTARTS, startEngineHost, type EngineChild } from '../../../electron-main/engine-host';
import type { Wire } from '../../../common/contract/api';
import { MAX_SQL_PROCESSES, type SqlRelay } from '../../../common/contract/ipc';

class FakeChild extends EventEmitter {
  posted: unknown[] = [];
  postMessage(m: unknown): void {
    this.posted.push(m);
  }
  kill(): boolean {
    this.emit('exit', 0);
    return true;
  }
}

test('after the last restart a call is refused at once, not left pending', async () => {
  const children: FakeChild[] = [];
  const host = startEngineHost('engine.js', 'w.db', () => {}, false, {}, () => {
    const c = new FakeChild();
    children.push(c);
    return c as unknown as EngineChild;
  });
  // A live engine answers.
  const first = host.call('listIncidents', {});
  const sent = children[0].posted[0] as Wire & { id: number };
  children[0].emit('message', { kind: 'result', id: sent.id, ok: true, value: [] });
  assert.equal((await first).ok, true);
  // Each crash answers the call in flight and starts a new engine, MAX_RESTARTS times.
  for (let i = 0; i <= MAX_RESTARTS; i++) {
    const inFlight = host.call('listIncidents', {});
    children[children.length - 1].emit('exit', 1);
    const r = await inFlight;
    assert.equal(r.ok, false);
  }
  assert.equal(children.length, MAX_RESTARTS + 1);
  // Now no engine: the call settles at once with the reason.
  const late = await Promise.race([host.call('listIncidents', {}), new Promise<'pending'>((resolve) => setTimeout(() => resolve('pending'), 200))]);
  if (late === 'pending') assert.fail('the call after the last restart never settled');
  assert.equal(late.ok, false);
  assert.match(late.ok ? '' : late.error.message, /stopped 4 times .* restart Quadscope/);
});

test('user SQL: main starts a utility process per query the engine asks for, relays its one answer, stops it, and refuses past the cap', () => {
  const forks: { entry: string; args: string[]; child: FakeChild; killed: boolean }[] = [];
  const host = startEngineHost('engine.js', 'w.db', () => {}, false, {}, (entry, args) => {
    const c = new FakeChild();
    const f = { entry, args, child: c, killed: false };
    c.kill = () => {
      f.killed = true;
      return true;
    };
    forks.push(f);
    return c as unknown as EngineChild;
  });
  const engine = forks[0].child;
  const fromEngine = (m: SqlRelay) => engine.emit('message', m);
  const toEngine = () => engine.posted as unknown as SqlRelay[];

  fromEngine({ kind: 'sql-start', id: 1, request: '{"sql":"SELECT 1"}' });
  const sql = forks[1];
  assert.deepEqual([sql.entry, sql.args], ['engine.js', ['--run-sql']], 'the same bundle, as the SQL process');
  assert.deepEqual(sql.child.posted, ['{"sql":"SELECT 1"}']);
  sql.child.emit('message', '{"ok":true}');
  assert.deepEqual(toEngine(), [{ kind: 'sql-answer', id: 1, answer: '{"ok":true}' }]);
  assert.equal(sql.killed, true, 'stopped once it has answered');

  // MAX_SQL_PROCESSES at once; the next is refused, not started.
  for (let id = 2; id < 2 + MAX_SQL_PROCESSES; id++) fromEngine({ kind: 'sql-start', id, request: '{}' });
  fromEngine({ kind: 'sql-start', id: 99, request: '{}' });
  assert.equal(forks.length, 2 + MAX_SQL_PROCESSES);
  assert.deepEqual(toEngine().at(-1), { kind: 'sql-ended', id: 99, code: 'busy', message: `${MAX_SQL_PROCESSES} SQL queries are running: wait for their answers` });
  // The engine's time cap: it asks, main stops that one and there is room again.
  fromEngine({ kind: 'sql-kill', id: 2 });
  assert.equal(forks[2].killed, true);
  fromEngine({ kind: 'sql-start', id: 100, request: '{}' });
  assert.equal(forks.length, 3 + MAX_SQL_PROCESSES);
  // A process that dies without answering is reported, once.
  forks[3].child.emit('exit', 9);
  assert.deepEqual(toEngine().at(-1), { kind: 'sql-ended', id: 3, code: 'sql_error', message: 'the SQL process ended without an answer (exit 9)' });
  // The engine crashing takes its SQL processes with it.
  engine.emit('exit', 1);
  assert.ok(forks.slice(4, 3 + MAX_SQL_PROCESSES).every((f) => f.killed), 'the crashed engine\'s SQL processes are stopped');
  host.stop();
});
