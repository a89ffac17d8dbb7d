// The Memory panel's figures: what it shows is computed here, so it is checked without a browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { growthPerMinute, reservedVsAllocated, siteLabel } from './memory-figures';

test('memory figures: growth per minute, a site named by its Python frame, reserved vs allocated', () => {
  assert.equal(growthPerMinute([0, 30_000, 60_000], [0, 50, 100]), 100);
  assert.equal(growthPerMinute([0, 10], [0, 1]), null, 'too few points, too short');
  assert.equal(siteLabel(['torch::unwind::unwind()', '/app/plugins/response_cache.py:88 remember', '/usr/lib/x.py:1 f']), 'response_cache.py:88 remember');
  assert.equal(siteLabel(['cudaMalloc_v3020']), 'cudaMalloc_v3020');
  assert.equal(siteLabel([]), '(no stack recorded)');
  // Reserved at 0, 10, 20 s; allocated at 5 and 15 s: each reserved point takes the allocated before it.
  const r = reservedVsAllocated([0, 10_000, 20_000], [100, 300, 200], [5000, 15_000], [50, 120]);
  assert.deepEqual([...r.allocated], [0, 50, 120]);
  assert.deepEqual([...r.cached], [100, 250, 80]);
  assert.deepEqual(r.peak, { t: 10_000, reserved: 300, allocated: 50 });
});
