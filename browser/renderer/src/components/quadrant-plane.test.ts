// The quadrant map draws the split the diagnosis was made with, not a copy of the model's defaults.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_QUADRANT_THRESHOLDS, quadrantThresholdsOf, type Diagnosis } from '../../../../common/contract/diagnosis';
import { quadrantPlane } from './quadrant-plane';

test("the plane is split at the diagnosis' θR and θS", () => {
  const plane = quadrantPlane({ theta_R: 0.7, theta_S: 0.4 });
  assert.deepEqual(
    plane.areas.map((a) => [a.quadrant, a.r0, a.s0, a.r1, a.s1]),
    [
      ['healthy', 0, 0, 0.7, 0.4],
      ['saturated', 0.7, 0, 1, 0.4],
      ['contended', 0, 0.4, 0.7, 1],
      ['exhausted', 0.7, 0.4, 1, 1],
    ],
  );
  assert.deepEqual(plane.ticksR, [0, 0.5, 0.7, 1]);
  assert.deepEqual(plane.ticksS, [0, 0.4, 1]);
  // The right-hand names sit in the middle of their band, whatever its width.
  assert.deepEqual(plane.labels.filter((l) => l.vertical).map((l) => [l.quadrant, l.r, l.s]), [['saturated', 0.85, 0.2], ['exhausted', 0.85, 0.7]]);
  // A threshold on a fixed tick is one tick, not two labels drawn over each other.
  assert.deepEqual(quadrantPlane({ theta_R: 0.5, theta_S: 0.5 }).ticksR, [0, 0.5, 1]);
});

test('a diagnosis saved before it carried its split is drawn with the model defaults', () => {
  assert.deepEqual(quadrantThresholdsOf({ quadrant_thresholds: { theta_R: 0.9, theta_S: 0.3 } } as Pick<Diagnosis, 'quadrant_thresholds'>), { theta_R: 0.9, theta_S: 0.3 });
  assert.equal(quadrantThresholdsOf({}), DEFAULT_QUADRANT_THRESHOLDS);
  assert.equal(quadrantThresholdsOf(null), DEFAULT_QUADRANT_THRESHOLDS);
});
