// Links to a view: incident, tab and the zoomed range survive a round trip through the address bar.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatHash, parseHash } from '../../../browser/renderer/src/state/navigation';

test('an incident link carries its tab and, when zoomed, the visible range', () => {
  const h = formatHash('incident', 3, 'logs', [1773479662000.4, 1773479722000]);
  assert.equal(h, '#/incident/3/logs?from=1773479662000&to=1773479722000');
  assert.deepEqual(parseHash(h), { view: 'incident', incidentId: 3, tab: 'logs', range: [1773479662000, 1773479722000] });
  assert.equal(formatHash('incident', 3, 'overview'), '#/incident/3/overview');
  assert.equal(parseHash('#/incident/3/logs?from=9&to=2').range, null, 'a backwards range is ignored');
  assert.deepEqual(parseHash('#/live'), { view: 'live', incidentId: null, tab: null, range: null });
});
