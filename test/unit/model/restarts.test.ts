// Restarts read off process_start_time_seconds: a crash loop is an incident even where no engine log
// was collected, and a rolling deploy (each replica restarted once) is not a loop.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SIG } from '../../../common/names';
import { metricRestarts, worstRestartLoop } from '../../../node/engine/model/restarts';
import type { Signals } from '../../../node/engine/model/signals-from-store';

const T0 = 1_765_118_855_000;
/** One process_start_time_seconds series scraped every 15 s for an hour, the process starting at `starts` (s after T0). */
function endpoint(instance: string, starts: number[]) {
  const t: number[] = [];
  const v: number[] = [];
  for (let s = 0; s <= 3600; s += 15) {
    t.push(T0 + s * 1000);
    const started = starts.filter((x) => x <= s).pop() ?? starts[0];
    // Rounded the way clients print it: the same process reads the same value, give or take.
    v.push((T0 + started * 1000) / 1000 + (s % 30 === 0 ? 0.2 : 0));
  }
  return { id: 1, name: SIG.processStart, labels: { instance }, kind: 'gauge', t: Float64Array.from(t), v: Float64Array.from(v) };
}
const sig = (...eps: ReturnType<typeof endpoint>[]) => ({ series: new Map([[SIG.processStart, eps]]) }) as unknown as Signals;

test('a process started again and again behind one endpoint is a restart loop, dated at each start', () => {
  const s = sig(endpoint('a:8000', [-600, 1200, 1500, 1760, 2230]), endpoint('b:8000', [-600]));
  const restarts = metricRestarts(s);
  assert.equal(restarts.length, 1);
  // Each start time as the new process printed it (to within its rounding).
  assert.deepEqual(restarts[0].times.map((x) => Math.round((x - T0) / 1000)), [1200, 1500, 1760, 2230]);
  // The outage before each began after the old process's last scrape (scrapes every 15 s).
  assert.deepEqual(restarts[0].lastSeen.map((x) => Math.round((x - T0) / 1000)), [1185, 1485, 1755, 2220]);
  const loop = worstRestartLoop(s, 30 * 60_000)!;
  assert.equal(loop.count, 4);
  assert.equal(loop.labels.instance, 'a:8000');
  assert.equal(Math.round((loop.to - loop.from) / 1000), 1030);
});

test('a rolling deploy restarts each replica once: no loop; a steady process: no restart', () => {
  const s = sig(endpoint('a:8000', [-600, 1200]), endpoint('b:8000', [-600, 1290]), endpoint('c:8000', [-600, 1380]), endpoint('d:8000', [-600]));
  assert.equal(worstRestartLoop(s, 30 * 60_000)!.count, 1);
  assert.equal(metricRestarts(sig(endpoint('a:8000', [-600]))).length, 0);
  assert.equal(worstRestartLoop(sig(), 30 * 60_000), null);
});

/** A generated-tokens counter of one endpoint scraped every 15 s, set back to 0 by each start in `starts`. */
function tokens(labels: Record<string, string>, starts: number[]) {
  const t: number[] = [];
  const v: number[] = [];
  for (let s = 0; s <= 3600; s += 15) {
    t.push(T0 + s * 1000);
    const since = Math.max(0, ...starts.filter((x) => x <= s));
    v.push(1e6 + 2000 * (s - since) - (since > 0 ? 1e6 : 0));
  }
  return { id: 2, name: SIG.tokensGeneration, labels, kind: 'counter', t: Float64Array.from(t), v: Float64Array.from(v) };
}

test("without process_start_time_seconds, an engine counter set back is a restart; one endpoint's counters count once; one process_start_time saw is not counted twice", () => {
  const only = { series: new Map([[SIG.tokensGeneration, [tokens({ pod: 'a', model_name: 'm1' }, [1200, 1500]), tokens({ pod: 'a', model_name: 'm2' }, [1200, 1500]), tokens({ pod: 'b' }, [])]]]) } as unknown as Signals;
  const r = metricRestarts(only);
  assert.equal(r.length, 1, JSON.stringify(r));
  assert.equal(r[0].labels.pod, 'a');
  assert.deepEqual(r[0].times.map((x) => Math.round((x - T0) / 1000)), [1200, 1500]);
  assert.deepEqual(r[0].lastSeen.map((x) => Math.round((x - T0) / 1000)), [1185, 1485]);
  const both = { series: new Map<string, unknown[]>([[SIG.processStart, [endpoint('a:8000', [-600, 1200])]], [SIG.tokensGeneration, [tokens({ instance: 'a:8000' }, [1200, 1500])]]]) } as unknown as Signals;
  assert.deepEqual(metricRestarts(both).flatMap((x) => x.times.map((t) => Math.round((t - T0) / 1000))).sort((a, b) => a - b), [1200, 1500]);
});
