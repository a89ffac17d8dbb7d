// Payloads written by an attacker: prototype keys, unsafe numbers, oversized strings and arrays.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { METHODS, validateRequest, type Method } from '../../../common/contract/api';
import { ValidationError, num, obj, record, str } from '../../../common/contract/validate';

const refused = (fn: () => unknown, re: RegExp) => assert.throws(fn, (e: unknown) => e instanceof ValidationError && re.test(e.message));

test('obj refuses keys that only exist on Object.prototype', () => {
  for (const key of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf']) {
    const payload = JSON.parse(`{"id": 1, "${key}": {"polluted": true}}`) as unknown;
    refused(() => validateRequest('getIncident', payload), new RegExp(`${key} must be absent`));
  }
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

test('obj reads only own fields, never inherited ones', () => {
  const inherited = Object.create({ id: 7 }) as object;
  refused(() => validateRequest('getIncident', inherited), /id must be a finite number/);
});

test('record refuses a __proto__ key and overlong keys, and never pollutes', () => {
  const check = record(num());
  refused(() => check(JSON.parse('{"__proto__": 1}') as unknown), /__proto__ must be absent/);
  refused(() => check({ ['k'.repeat(1001)]: 1 }), /a key of at most 1000 characters/);
  assert.deepEqual(check({ constructor: 1, a: 2 }), { constructor: 1, a: 2 });
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

test('NaN, Infinity and integers past 2^53 are refused for every numeric field', () => {
  for (const bad of [NaN, Infinity, -Infinity]) refused(() => validateRequest('querySeries', { series_ids: [1], start_ms: bad, end_ms: 1, points: 1 }), /start_ms must be a finite number/);
  refused(() => validateRequest('getIncident', { id: 1e300 }), /id must be an integer of at most 2\^53 - 1/);
  refused(() => validateRequest('queryEvents', { incident_id: 1, offset: 2 ** 60 }), /offset must be an integer of at most/);
  refused(() => validateRequest('querySeries', { series_ids: [2 ** 53], start_ms: 0, end_ms: 1, points: 1 }), /series_ids\[0\] must be an integer of at most/);
  assert.deepEqual(validateRequest('getIncident', { id: Number.MAX_SAFE_INTEGER }), { id: Number.MAX_SAFE_INTEGER });
});

test('very long strings and arrays are refused before they are walked', () => {
  refused(() => validateRequest('runSql', { sql: 'x'.repeat(100_001) }), /sql must be at most 100000 characters/);
  refused(() => validateRequest('startImport', { paths: new Array(1001).fill('/a') }), /paths must be at most 1000 items/);
  refused(() => validateRequest('querySeries', { series_ids: new Array(10 ** 6).fill(1), start_ms: 0, end_ms: 1, points: 1 }), /series_ids must be at most 200 items/);
  refused(() => str()('y'.repeat(100_001)), /at most 100000 characters/);
});

test('exportReport writes only to report files', () => {
  for (const out of ['/home/u/.bashrc', '/home/u/.config/autostart/x.desktop', 'C:\\Users\\u\\x.exe', 'report.html\0.sh', '']) {
    assert.throws(() => validateRequest('exportReport', { incident_id: 1, format: 'html', out }), ValidationError, JSON.stringify(out));
  }
  assert.deepEqual(validateRequest('exportReport', { incident_id: 1, format: 'pdf', out: '/tmp/r.PDF' }), { incident_id: 1, format: 'pdf', out: '/tmp/r.PDF' });
});

test('every method refuses a payload with a __proto__ key', () => {
  for (const m of METHODS as Method[]) {
    const payload = JSON.parse('{"__proto__": {"x": 1}}') as unknown;
    assert.throws(() => validateRequest(m, payload), ValidationError, m);
  }
});

test('obj keeps shape checks for nested objects', () => {
  const check = obj({ a: obj({ b: num() }) });
  refused(() => check(JSON.parse('{"a": {"b": 1, "__proto__": {}}}') as unknown), /a.__proto__ must be absent/);
});
