// One default workspace for the desktop app, the CLI and browser mode (node/workspace.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { defaultDbFile } from '../../node/workspace';

test('defaultDbFile: QUADSCOPE_DB, else QUADSCOPE_HOME/workspace.db, else ~/.quadscope/workspace.db', () => {
  const saved = { db: process.env.QUADSCOPE_DB, home: process.env.QUADSCOPE_HOME };
  try {
    delete process.env.QUADSCOPE_DB;
    delete process.env.QUADSCOPE_HOME;
    assert.equal(defaultDbFile(), join(homedir(), '.quadscope', 'workspace.db'));
    process.env.QUADSCOPE_HOME = '/tmp/qs-home';
    assert.equal(defaultDbFile(), join('/tmp/qs-home', 'workspace.db'));
    process.env.QUADSCOPE_DB = '/tmp/other.db';
    assert.equal(defaultDbFile(), '/tmp/other.db');
  } finally {
    for (const [k, v] of [['QUADSCOPE_DB', saved.db], ['QUADSCOPE_HOME', saved.home]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
});
