import { test } from 'node:test';
import assert from 'node:assert/strict';
import { METHODS, requestValidators, validateRequest } from '../../../common/contract/api';
import { ValidationError } from '../../../common/contract/validate';

test('every method has a validator', () => {
  assert.ok(METHODS.length >= 25);
  for (const m of METHODS) assert.equal(typeof requestValidators[m], 'function');
});

test('valid payloads pass through with their values', () => {
  assert.deepEqual(validateRequest('querySeries', { series_ids: [1, 2], start_ms: 0, end_ms: 10, points: 800 }), { series_ids: [1, 2], start_ms: 0, end_ms: 10, points: 800 });
  assert.deepEqual(validateRequest('startImport', { paths: ['/x'], options: { year: 2026 } }), { paths: ['/x'], options: { year: 2026 } });
  assert.equal(validateRequest('listIncidents', undefined), undefined);
});

test('bad payloads name the key that is wrong', () => {
  const bad: [Parameters<typeof validateRequest>[0], unknown, RegExp][] = [
    ['getIncident', { id: -1 }, /id must be >= 0/],
    ['getIncident', { id: 1.5 }, /id must be an integer/],
    ['getIncident', null, /payload must be an object/],
    ['querySeries', { series_ids: [1], start_ms: 0, end_ms: 1, points: 10 ** 9 }, /points must be <= 20000/],
    ['querySeries', { series_ids: 'x', start_ms: 0, end_ms: 1, points: 1 }, /series_ids must be an array/],
    ['startImport', { paths: [''] }, /paths\[0\] must be at least 1 characters/],
    ['startImport', { paths: ['/a'], options: { year: 'soon' } }, /options.year must be a finite number/],
    ['exportReport', { incident_id: 1, format: 'exe' }, /format must be one of html, md, pdf/],
    ['listIncidents', { x: 1 }, /must be empty/],
    ['addAnnotation', { incident_id: 1, start_ms: 0, end_ms: 1, panel: 'timeline', text: 'x', extra: 1 }, /extra must be absent/],
  ];
  for (const [m, payload, re] of bad) {
    assert.throws(() => validateRequest(m, payload), (e: unknown) => e instanceof ValidationError && re.test(e.message), `${m} ${JSON.stringify(payload)}`);
  }
});
