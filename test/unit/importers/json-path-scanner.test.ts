import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JsonPathScanner, JsonScanError, pathText, type JsonPath, type JsonVisitor, type Take } from '../../../node/engine/importers/json-path-scanner';

/** Writes `text` in chunks of `size` bytes (or at the given cut points) and ends. */
function feed(scanner: JsonPathScanner, text: string | Buffer, cuts: number | number[]): void {
  const buf = Buffer.isBuffer(text) ? text : Buffer.from(text);
  const at = typeof cuts === 'number' ? Array.from({ length: Math.ceil(buf.length / cuts) }, (_, i) => i * cuts) : [0, ...cuts];
  for (let i = 0; i < at.length; i++) scanner.write(buf.subarray(at[i], at[i + 1] ?? buf.length));
  scanner.end();
}

/** Rebuilds the document from what a visitor sees: walking containers, parsing leaves at `leafDepth`. */
function rebuild(text: string | Buffer, cuts: number | number[], leafDepth: number): { doc: unknown; events: string[] } {
  const events: string[] = [];
  const stack: { node: unknown }[] = [];
  let doc: unknown;
  const put = (path: JsonPath, v: unknown) => {
    if (path.length === 0) doc = v;
    else (stack[stack.length - 1].node as Record<string | number, unknown>)[path[path.length - 1]] = v;
  };
  const visitor: JsonVisitor = {
    enter(path, kind): Take {
      if ((kind === 'object' || kind === 'array') && path.length < leafDepth) {
        const node = kind === 'object' ? {} : [];
        put(path, node);
        stack.push({ node });
        events.push(`enter ${pathText(path)}`);
        return 'walk';
      }
      return 'parse';
    },
    value(path, v) {
      put(path, v);
    },
    leave(path) {
      stack.pop();
      events.push(`leave ${pathText(path)}`);
    },
  };
  feed(new JsonPathScanner(visitor), text, cuts);
  return { doc, events };
}

const SAMPLE = {
  a: [1, -2.5e3, true, false, null, 'x"y\\z', { '{': '}', '[': ']', 'q\\"': '\u00e9\u{1F600}\n' }],
  'k\u00fc': { nested: { deeper: [[], {}, [[1]]] } },
  empty: '',
  n: 0,
};

test('walking and parsing reproduce JSON.parse, at every chunk size and leaf depth', () => {
  for (const text of [JSON.stringify(SAMPLE), JSON.stringify(SAMPLE, null, 2), `\ufeff \n${JSON.stringify(SAMPLE, null, '\t')}\r\n`]) {
    for (const size of [1, 2, 3, 5, 64]) {
      for (const depth of [0, 1, 2, 3, 9]) assert.deepEqual(rebuild(text, size, depth).doc, SAMPLE, `chunk ${size}, depth ${depth}`);
    }
  }
});

test('leave follows enter for each walked container, with its own path', () => {
  const { events } = rebuild('{"a": [{"b": {}}, []], "c": {}}', 2, 9);
  assert.deepEqual(events, ['enter ', 'enter a', 'enter a[0]', 'enter a[0].b', 'leave a[0].b', 'leave a[0]', 'enter a[1]', 'leave a[1]', 'leave a', 'enter c', 'leave c', 'leave ']);
});

test("'text' hands over the value's JSON text, 'skip' nothing; lines and offsets are the value's", () => {
  const got: [string, string, number, number][] = [];
  const text = '{\n  "a": {"x": "}]"},\n  "s": [1,\n 2],\n  "b": "\u00e9\\"",\n  "c": 12}';
  const scanner = new JsonPathScanner({
    enter: (path) => (path.length === 0 ? 'walk' : path[0] === 's' ? 'skip' : 'text'),
    text: (path, t, at) => got.push([pathText(path), t, at.offset, at.line]),
  });
  feed(scanner, text, 3);
  const off = (needle: string) => Buffer.byteLength(text.slice(0, text.indexOf(needle)));
  assert.deepEqual(got, [
    ['a', '{"x": "}]"}', off('{"x"'), 2],
    ['b', '"\u00e9\\""', off('"\u00e9'), 5],
    ['c', '12', off('12'), 6],
  ]);
  assert.equal(scanner.line, 6);
});

test("with after: 'stop', write answers where the top-level value ended", () => {
  const scanner = new JsonPathScanner({ enter: () => 'walk' }, { after: 'stop' });
  assert.equal(scanner.write(Buffer.from('{"a": [1, ')), -1);
  assert.equal(scanner.write(Buffer.from('2]}\n{"next": 1}')), 3);
  assert.equal(scanner.line, 1);
  const exact = new JsonPathScanner({ enter: () => 'walk' }, { after: 'stop' });
  assert.equal(exact.write(Buffer.from('[1]')), 3);
});

function scanError(text: string, take: Take = 'walk', cuts: number | number[] = 4): JsonScanError {
  try {
    feed(new JsonPathScanner({ enter: () => take }), text, cuts);
  } catch (e) {
    assert.ok(e instanceof JsonScanError, String(e));
    return e;
  }
  assert.fail(`no error for ${text}`);
}

test('malformed JSON: the byte offset, line and path of the first fault', () => {
  const cases: [string, Take, number, number, RegExp][] = [
    ['{"a": [1, 2,]}', 'walk', 12, 1, /expected a value, found "\]" \(in a\[2\]\)/],
    ['{"a": 1,}', 'walk', 8, 1, /expected a key \(a string\) after ","/],
    ['{"a" 1}', 'walk', 5, 1, /expected ":" after the key/],
    ['{"a": 1 "b": 2}', 'walk', 8, 1, /expected "," or "}", found "\\""/],
    ['[1, 2}', 'walk', 5, 1, /expected "," or "\]"/],
    ['{"a": {"b": [1}]}', 'skip', 14, 1, /"}" does not match the open bracket/],
    ['{"a": tru}', 'walk', 6, 1, /incomplete value "tru" \(in a\)/],
    ['{\n"a": {\n  "b": tru}}', 'parse', 16, 3, /^Unexpected token '}'.* is not valid JSON$/],
    ['{"\u00e9": [1], "b": x}', 'walk', Buffer.byteLength('{"\u00e9": [1], "b": '), 1, /expected a value, found "x" \(in b\)/],
    ['{"a": 1} x', 'walk', 9, 1, /unexpected "x" after the end of the JSON document/],
  ];
  for (const [text, take, offset, line, message] of cases) {
    for (const cuts of [1, 4, 100]) {
      const e = scanError(text, take, cuts);
      assert.equal(e.offset, offset, `${text} (chunks of ${cuts}): ${e.message}`);
      assert.equal(e.line, line, text);
      assert.match(e.message, message, text);
    }
  }
});

test('truncated JSON: the offset is the end of the file, and the message says so', () => {
  const doc = '{\n "a": [\n  {"b": "c\\"d"}';
  for (let cut = 1; cut < doc.length; cut++) {
    const text = doc.slice(0, cut);
    const e = scanError(text, 'walk', 3);
    assert.equal(e.offset, Buffer.byteLength(text), text);
    assert.equal(e.line, text.split('\n').length, text);
    assert.match(e.message, /the JSON ends early .*the file is truncated/, text);
  }
  assert.match(scanError('{"a": {"b": "un').message, /ends early \(inside a string\) in a\.b: the file is truncated/);
  assert.match(scanError('   ').message, /no JSON value: the file is empty/);
});
