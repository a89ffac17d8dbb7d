// The YAML kubectl writes (yaml-subset.ts): read to the same values as its JSON, refused with a line where
// it is YAML kubectl never writes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseYamlSubset, YamlError } from '../../../node/engine/importers/yaml-subset';

test('mappings, a sequence at its key\'s indent, `- key:` items, scalars typed, quoted strings, block scalars', () => {
  const y = [
    'apiVersion: v1',
    'items:',
    '- kind: Event',
    '  count: 3',
    '  firstTimestamp: "2026-03-14T09:00:15Z"',
    '  lastTimestamp: null',
    '  message: Readiness probe failed: Get "http://10.0.0.1:8000/health": connect: connection refused',
    "  note: 'it''s ready'",
    '  involvedObject:',
    '    kind: Pod',
    '    fieldPath: spec.containers{vllm}',
    '  args:',
    '  - --tensor-parallel-size',
    '  - "4"',
    '  - 0.9',
    '  empty: []',
    '  none: {}',
    '  ok: true',
    '- kind: Pod',
    '  message: |',
    '    line one',
    '',
    '      indented',
    '  folded: >-',
    '    a',
    '    b',
    '  long: a plain scalar that',
    '    goes on',
    'kind: List',
  ].join('\n');
  assert.deepEqual(parseYamlSubset(y), [
    {
      apiVersion: 'v1',
      items: [
        {
          kind: 'Event',
          count: 3,
          firstTimestamp: '2026-03-14T09:00:15Z',
          lastTimestamp: null,
          message: 'Readiness probe failed: Get "http://10.0.0.1:8000/health": connect: connection refused',
          note: "it's ready",
          involvedObject: { kind: 'Pod', fieldPath: 'spec.containers{vllm}' },
          args: ['--tensor-parallel-size', '4', 0.9],
          empty: [],
          none: {},
          ok: true,
        },
        { kind: 'Pod', message: 'line one\n\n  indented\n', folded: 'a b', long: 'a plain scalar that goes on' },
      ],
      kind: 'List',
    },
  ]);
});

test('documents split by ---; YAML kubectl never writes is refused with its line', () => {
  assert.deepEqual(parseYamlSubset('a: 1\n---\nb: 2\n'), [{ a: 1 }, { b: 2 }]);
  const refused = (y: string, line: number, what: RegExp) =>
    assert.throws(
      () => parseYamlSubset(y),
      (e: unknown) => e instanceof YamlError && e.line === line && what.test(e.message),
    );
  refused('a: 1\nb: &x 2\n', 2, /anchors/);
  refused('a: [1, 2]\n', 1, /flow collections/);
  refused('a:\n\tb: 1\n', 2, /tab/);
  refused('a: "open\n', 1, /unterminated/);
  refused('a:\n  b: 1\n    c: 2\n', 3, /a mapping or sequence under a scalar/);
  // k0 on line 2 … k64 on line 66 is the 65th level.
  refused(`k:\n${Array.from({ length: 70 }, (_, i) => `${'  '.repeat(i + 1)}k${i}:`).join('\n')}\n`, 66, /nested deeper than 64/);
});

test('a `__proto__` key is an own property, as JSON.parse makes it, not the prototype', () => {
  const [doc] = parseYamlSubset('__proto__:\n  polluted: 1\nkind: Pod\n') as Record<string, unknown>[];
  assert.equal(Object.getPrototypeOf(doc), Object.prototype);
  assert.deepEqual(Object.keys(doc), ['__proto__', 'kind']);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

test("go-yaml's quoting and block headers: YAML escapes, an escaped line break, `|2-`, `|+`, a wrapped plain scalar whose next line starts with `- `", () => {
  const y = [
    'a: "\\e[31mred\\e[0m \\x41\\u00e9\\t\\\\"',
    'b: "one two \\',
    '  three"',
    'c: |2-',
    '    indented first',
    '  second',
    'd: |+',
    '  x',
    '',
    'e: a long plain scalar wrapped by go-yaml',
    '  - and its continuation',
    'f: 1',
  ].join('\n');
  assert.deepEqual(parseYamlSubset(y), [{ a: '\x1b[31mred\x1b[0m Aé\t\\', b: 'one two three', c: '  indented first\nsecond', d: 'x\n\n', e: 'a long plain scalar wrapped by go-yaml - and its continuation', f: 1 }]);
  assert.throws(() => parseYamlSubset('a: "\\q"\n'), (e: unknown) => e instanceof YamlError && e.line === 1 && /the escape \\q/.test(e.message));
});
