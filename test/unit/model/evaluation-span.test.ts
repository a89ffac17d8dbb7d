// The evaluation span ends where service recovered: the rules' medians read the degraded episode, not
// the quiet hours after it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { evaluationSpan } from '../../../node/engine/model/diagnose';
import { DEFAULT_CONFIG } from '../../../node/engine/model/config';
import { makeGrid } from '../../../node/engine/model/windows';
import type { Frame } from '../../../node/engine/model/frame';
import type { Dimensions } from '../../../node/engine/model/normalize';
import type { Alert } from '../../../common/contract/diagnosis';

const STEP = 5_000;
const N = 300;

/** A frame whose e2e P99 steps from 1 s to 5 s at window 60, every other KPI unknown (the alerts say when it recovered). */
function frame(): Frame {
  const grid = makeGrid(0, (N + 1) * STEP, STEP, DEFAULT_CONFIG);
  const t = Float64Array.from({ length: grid.n }, (_, i) => i * grid.step);
  const e2e99 = Float64Array.from({ length: grid.n }, (_, i) => (i >= 60 ? 5 : 1) * (1 + 0.02 * Math.sin(i)));
  const unknown = new Float64Array(grid.n).fill(NaN);
  return new Proxy({ grid, t, e2e99 } as unknown as Frame, { get: (o, k) => (k in o ? (o as never)[k] : unknown) });
}

test('a shift after the baseline is read to where the last sustained symptom resolved', () => {
  const f = frame();
  const base: [number, number] = [0, 20];
  const at = (i: number) => f.t[i];
  const resolved: Alert[] = [{ family: 'latency', first_fired_ms: at(62), resolved_ms: at(140) }];
  const { span, episode } = evaluationSpan(f, {} as Dimensions, DEFAULT_CONFIG, -1, base, resolved);
  assert.ok(episode);
  assert.ok(Math.abs(span[0] - 60) <= 2, `starts at the shift (${span[0]})`);
  assert.ok(Math.abs(span[1] - 140) <= 1, `ends where the symptom resolved (${span[1]}), not at ${f.grid.n - 1}`);

  const still: Alert[] = [{ family: 'latency', first_fired_ms: at(62), resolved_ms: null }];
  assert.equal(evaluationSpan(f, {} as Dimensions, DEFAULT_CONFIG, -1, base, still).span[1], f.grid.n - 1, 'a symptom still on reads to the end');
  assert.equal(evaluationSpan(f, {} as Dimensions, DEFAULT_CONFIG, -1, base, []).span[1], f.grid.n - 1, 'a shift no symptom followed reads to the end');
  // A short blip is no sustained symptom and ends nothing.
  const blip: Alert[] = [{ family: 'latency', first_fired_ms: at(62), resolved_ms: at(64) }];
  assert.equal(evaluationSpan(f, {} as Dimensions, DEFAULT_CONFIG, -1, base, blip).span[1], f.grid.n - 1);
});

test('a momentary joint trigger long after a symptom had been sustained is a moment of the episode, not its start', () => {
  const f = frame();
  const base: [number, number] = [0, 20];
  const dims = { S: new Float64Array(f.grid.n) } as unknown as Dimensions;
  const on: Alert[] = [{ family: 'latency', first_fired_ms: f.t[62], resolved_ms: null }];
  // The joint trigger at window 250 held for a moment (jointSustained false): the episode is the symptom's, from the shift.
  const moment = evaluationSpan(f, dims, DEFAULT_CONFIG, 250, base, on, false);
  assert.ok(Math.abs(moment.span[0] - 60) <= 2, `starts at the shift (${moment.span[0]}), not at the trigger`);
  // A joint trigger that held is the episode's start, as it always was.
  assert.equal(evaluationSpan(f, dims, DEFAULT_CONFIG, 250, base, on, true).span[0], 250);
  // So is a momentary one that came with the symptom (under alerts.incident_min_ms after its streak began).
  assert.equal(evaluationSpan(f, dims, DEFAULT_CONFIG, 70, base, on, false).span[0], 70);
});
