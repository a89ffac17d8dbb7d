// The engine host with a stand-in for Electron's utility process: calls are answered while the engine
// lives, a crash answers the calls in flight, and once the restarts are used up every call is refused at
// once (it was posted to the dead process and never settled).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { MAX_RESTARTS, startEngineHost, type EngineChild } from '../../../electron-main/engine-host';
import type { Wire } from '../../../common/contract/api';

class FakeChild extends EventEmitter {
  posted: Wire[] = [];
  postMessage(m: Wire): void {
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
