// The log search as users type it: any case, words that name what the log says in other words, FTS
// syntax passed through, the index's syntax errors as a sentence.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { searchErrorText, toSearchQuery } from './log-query';

test('bare words become quoted prefixes; OOM finds the ways logs say out of memory', () => {
  assert.equal(toSearchQuery('Watchdog 79'), '"Watchdog"* "79"*');
  assert.equal(toSearchQuery('OOM'), toSearchQuery('oom'));
  assert.match(toSearchQuery('OOM'), /"out of memory"/);
  assert.match(toSearchQuery('OOM'), /"outofmemoryerror"\*/);
  assert.equal(toSearchQuery('error:'), '"error:"*', 'a colon is not a column filter');
  assert.equal(toSearchQuery('"CUDA out" OR xid'), '"CUDA out" OR xid', 'FTS syntax passes through');
  assert.equal(toSearchQuery('  '), '');
});

test('syntax errors read as what to type, never as SQLite', () => {
  const t = searchErrorText('search ""x" is not a valid query: fts5: syntax error near ""');
  assert.match(t ?? '', /^Can't search that: the search does not parse near “”/);
  assert.match(searchErrorText('unterminated string') ?? '', /a quote is not closed/);
  assert.equal(searchErrorText('connection lost'), null);
});
